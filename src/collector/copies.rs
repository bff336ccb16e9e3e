//! Copies as the program asked for them, joined once, here (docs/ARCHITECTURE.md#a-copy).
//!
//! The HIP runtime does not always submit a copy the way the program wrote it: a small
//! host<->device copy is a blit on the GPU, which the SDK records as DEVICE_TO_DEVICE; a large
//! copy from pageable memory is pinned piece by piece, one MEMORY_COPY record per piece under
//! the call's correlation id; a same-GPU device-to-device copy is a blit kernel; and a copy the
//! runtime does with the CPU has no record at all. The tracer puts what the call asked for on
//! its HIP API event (`MemcpyDetails::call_direction`, and the call's size in `num_bytes`);
//! the join hands each activity group to this file with that API event, and:
//! - names each copy record by its call's direction, keeping the record's own in
//!   `recorded_direction` (exported as a stat);
//! - merges the pieces of one call into one event of the call's size;
//! - gives a blit kernel the copy call's size and names it by the call's direction (newer HIP
//!   runtimes run small copies as `__amd_rocclr_copyBuffer` blits: a 4 KiB host-to-device copy
//!   stays a 4 KiB MemcpyH2D, as it is on runtimes that record it as a copy, and a same-GPU
//!   device-to-device blit is a MemcpyD2D; docs/simulator-fidelity.md#the-ledger);
//! - carries the call's memory kinds and async flag onto every event of the call (one
//!   `memcpy_details` form across the trace);
//! - leaves a copy call without a record on its host thread (the CPU copied; see
//!   [`is_done_by_cpu`]).
use super::stored_event::LoggedEvent;
use crate::event::{EventDetails, EventType, MemcpyDetails, RocmTracerEvent};

/// The call facts of a HIP API copy event, if it is one.
fn call_of(api_event: &LoggedEvent<'_>) -> Option<MemcpyDetails> {
    if !api_event.event_type().is_memcpy() {
        return None;
    }
    match api_event.details() {
        EventDetails::Memcpy(call) => Some(call),
        _ => None,
    }
}

fn copy_bytes(event: &RocmTracerEvent) -> u64 {
    match event.details {
        EventDetails::Memcpy(details) => details.num_bytes,
        _ => 0,
    }
}

/// A HIP copy call with no device record: the CPU copied (host-to-host, small pageable copies
/// on a large-BAR GPU). Its API event keeps the call's size and stays on its host thread, with
/// no device; export counts it (`DropReason::CopyDoneByCpu`).
pub(super) fn is_done_by_cpu(api_event: &LoggedEvent<'_>) -> bool {
    api_event.event_type().is_memcpy()
}

/// The details a HIP API copy event takes from the first activity of its call: the activity's
/// (device side) facts, with the call's own direction and, when the activity is one piece of
/// a larger call, the call's size.
pub(super) fn api_copy_details(
    api_event: &LoggedEvent<'_>,
    first: &LoggedEvent<'_>,
) -> EventDetails {
    let (Some(call), EventDetails::Memcpy(record)) = (call_of(api_event), first.details()) else {
        return first.details();
    };
    let recorded = first.event_type();
    let renamed = call.call_direction.is_some_and(|asked| asked != recorded);
    EventDetails::Memcpy(MemcpyDetails {
        num_bytes: record.num_bytes.max(call.num_bytes),
        call_direction: call.call_direction,
        recorded_direction: renamed.then_some(recorded),
        is_async: call.is_async,
        src_kind: call.src_kind,
        dst_kind: call.dst_kind,
        ..record
    })
}

/// A blit kernel (a copy HIP ran as a kernel) takes its copy call's size instead of the
/// blit's launch geometry, which no reader needs (docs/xla-interface.md#copy-apis). Nothing
/// changes if `api_event` is not a copy. See [`name_blit_kernel_by_call`].
pub(super) fn name_blit_kernel(kernel: &mut RocmTracerEvent, api_event: LoggedEvent<'_>) {
    if let Some(call) = call_of(&api_event) {
        name_blit_kernel_by_call(kernel, call);
    }
}

/// The blit rule, from the call's facts (`call`: the HIP API copy event's details, or those
/// the tracer put on the kernel): the kernel takes the call's size, memory kinds and async
/// flag, and the call's direction as its type and name, keeping `Kernel` in
/// `recorded_direction`: every copy is named by its HIP call, the same-GPU device-to-device
/// blit too (docs/xla-interface.md#copy-details). A call of unknown direction
/// (`hipMemcpyDefault`) keeps the kernel's name with the copy's details; one of unknown size
/// and direction changes nothing.
pub(crate) fn name_blit_kernel_by_call(kernel: &mut RocmTracerEvent, call: MemcpyDetails) {
    let asked = call.call_direction;
    if call.num_bytes == 0 && asked.is_none() {
        return;
    }
    kernel.details = EventDetails::Memcpy(MemcpyDetails {
        destination: kernel.device_id,
        call_direction: asked,
        recorded_direction: asked.map(|_| EventType::Kernel),
        ..call
    });
    if let Some(asked) = asked {
        kernel.event_type = asked;
        kernel.name = asked.shared_name();
    }
}

/// The copy activities of one correlation id, on their way out of the join: each is named by
/// its call's direction, and pieces smaller than their call wait until they add up to the
/// call's size, then leave as one event spanning them all (in place of the last piece).
pub(super) struct CopyPieces {
    call: Option<MemcpyDetails>,
    partial: Option<RocmTracerEvent>,
}

impl CopyPieces {
    /// For the activities of `api_event`'s correlation id (`None`: no API event).
    pub(crate) fn of_call(api_event: Option<&LoggedEvent<'_>>) -> CopyPieces {
        CopyPieces {
            call: api_event.and_then(call_of),
            partial: None,
        }
    }

    /// Hands `activity` on to `emit`, named by its call, or keeps it as a piece.
    #[inline]
    pub(crate) fn pass(
        &mut self,
        mut activity: RocmTracerEvent,
        emit: &mut impl FnMut(RocmTracerEvent),
    ) {
        let Some(call) = self.call.filter(|_| activity.event_type.is_memcpy()) else {
            emit(activity);
            return;
        };
        if let Some(asked) = call.call_direction {
            name_by_call(&mut activity, asked);
        }
        let bytes = copy_bytes(&activity);
        if call.num_bytes == 0 || bytes >= call.num_bytes {
            emit(activity);
            return;
        }
        let merged = match self.partial.take() {
            None => activity,
            Some(mut merged) => {
                merged.start_time_ns = merged.start_time_ns.min(activity.start_time_ns);
                merged.end_time_ns = merged.end_time_ns.max(activity.end_time_ns);
                if let EventDetails::Memcpy(details) = &mut merged.details {
                    details.num_bytes = details.num_bytes.saturating_add(bytes);
                }
                merged
            }
        };
        if copy_bytes(&merged) >= call.num_bytes {
            emit(merged);
        } else {
            self.partial = Some(merged);
        }
    }

    /// Pieces that never added up to their call (the session ended first) leave as they are.
    pub(crate) fn finish(self, emit: &mut impl FnMut(RocmTracerEvent)) {
        if let Some(partial) = self.partial {
            emit(partial);
        }
    }
}

/// Names a copy activity by the direction its call asked for, keeping the record's own in
/// `recorded_direction`. Also the whole of the copy rules a C++ collector gets (XLA's event has
/// no room for the rest), from the direction the tracer put on the activity.
pub(crate) fn name_by_call(activity: &mut RocmTracerEvent, asked: EventType) {
    let EventDetails::Memcpy(details) = &mut activity.details else {
        return;
    };
    // A device-to-device call whose record ran between two GPUs (the decoder's MemcpyP2P) is
    // the peer copy it was, as CUPTI names it (docs/xla-interface.md#copy-details).
    let asked = if asked == EventType::MemcpyD2D && activity.event_type == EventType::MemcpyP2P {
        EventType::MemcpyP2P
    } else {
        asked
    };
    details.call_direction = Some(asked);
    if activity.event_type != asked {
        details.recorded_direction = Some(activity.event_type);
        activity.event_type = asked;
        activity.name = asked.shared_name();
    }
}

/// The direction the SDK record of a renamed copy activity said, for the `recorded_direction`
/// stat.
pub fn recorded_direction(event: &RocmTracerEvent) -> Option<EventType> {
    match event.details {
        EventDetails::Memcpy(details) => details.recorded_direction,
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collector::event_log::EventLog;
    use crate::collector::stored_event::SessionStrings;
    use crate::event::{EventSource, MemoryKind};

    fn piece(event_type: EventType, bytes: u64, start: u64) -> RocmTracerEvent {
        RocmTracerEvent {
            event_type,
            source: EventSource::Activity,
            name: event_type.shared_name(),
            correlation_id: 2,
            start_time_ns: start,
            end_time_ns: start + 10,
            details: EventDetails::Memcpy(MemcpyDetails {
                num_bytes: bytes,
                destination: 1,
                ..MemcpyDetails::default()
            }),
            ..RocmTracerEvent::default()
        }
    }

    /// A HIP API copy call, stored as the collector keeps it.
    struct Call {
        log: EventLog,
        strings: SessionStrings,
    }

    impl Call {
        fn event(&self) -> LoggedEvent<'_> {
            self.log.get(0, &self.strings)
        }
    }

    fn call(direction: EventType, bytes: u64) -> Call {
        let mut call = Call {
            log: EventLog::default(),
            strings: SessionStrings::default(),
        };
        call.log.push(
            &RocmTracerEvent {
                event_type: EventType::MemcpyOther,
                source: EventSource::ApiCallback,
                correlation_id: 2,
                details: EventDetails::Memcpy(MemcpyDetails {
                    num_bytes: bytes,
                    call_direction: Some(direction),
                    is_async: true,
                    src_kind: MemoryKind::Device,
                    dst_kind: MemoryKind::Device,
                    ..MemcpyDetails::default()
                }),
                ..RocmTracerEvent::default()
            },
            &mut call.strings,
        );
        call
    }

    fn run(api: &Call, activities: Vec<RocmTracerEvent>) -> Vec<RocmTracerEvent> {
        let mut out = Vec::new();
        let mut pieces = CopyPieces::of_call(Some(&api.event()));
        for activity in activities {
            pieces.pass(activity, &mut |event| out.push(event));
        }
        pieces.finish(&mut |event| out.push(event));
        out
    }

    #[test]
    fn a_blit_record_takes_the_call_direction_and_keeps_its_own() {
        let out = run(
            &call(EventType::MemcpyH2D, 4096),
            vec![piece(EventType::MemcpyD2D, 4096, 100)],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].event_type, EventType::MemcpyH2D);
        assert_eq!(&*out[0].name, "MemcpyH2D");
        assert_eq!(recorded_direction(&out[0]), Some(EventType::MemcpyD2D));
    }

    #[test]
    fn pieces_join_into_one_event_of_the_call_size() {
        let out = run(
            &call(EventType::MemcpyH2D, 3 << 20),
            vec![
                piece(EventType::MemcpyH2D, 1 << 20, 200),
                piece(EventType::MemcpyH2D, 1 << 20, 300),
                piece(EventType::MemcpyH2D, 1 << 20, 400),
                // A later lone piece of the same id: kept as it is once the session ends.
                piece(EventType::MemcpyH2D, 1 << 20, 500),
            ],
        );
        assert_eq!(out.len(), 2);
        assert_eq!(copy_bytes(&out[0]), 3 << 20);
        assert_eq!((out[0].start_time_ns, out[0].end_time_ns), (200, 410));
        assert_eq!(recorded_direction(&out[0]), None);
        assert_eq!(copy_bytes(&out[1]), 1 << 20);
    }

    #[test]
    fn a_copy_of_unknown_size_passes_unmerged() {
        let out = run(
            &call(EventType::MemcpyD2H, 0),
            vec![
                piece(EventType::MemcpyD2H, 64, 0),
                piece(EventType::MemcpyD2H, 64, 50),
            ],
        );
        assert_eq!(out.len(), 2);
    }

    fn blit(device_id: u32) -> RocmTracerEvent {
        RocmTracerEvent {
            event_type: EventType::Kernel,
            source: EventSource::Activity,
            name: "__amd_rocclr_copyBuffer".into(),
            device_id,
            ..RocmTracerEvent::default()
        }
    }

    #[test]
    fn a_same_gpu_blit_kernel_is_named_by_its_call() {
        let mut kernel = blit(7);
        name_blit_kernel(&mut kernel, call(EventType::MemcpyD2D, 5 << 20).event());
        let EventDetails::Memcpy(details) = kernel.details else {
            panic!("memcpy details expected");
        };
        assert_eq!((details.num_bytes, details.destination), (5 << 20, 7));
        assert_eq!(
            (details.src_kind, details.dst_kind, details.is_async),
            (MemoryKind::Device, MemoryKind::Device, true),
            "the call's facts"
        );
        assert_eq!(kernel.event_type, EventType::MemcpyD2D);
        assert_eq!(&*kernel.name, "MemcpyD2D");
        assert_eq!(recorded_direction(&kernel), Some(EventType::Kernel));
    }

    #[test]
    fn a_blit_kernel_of_a_host_to_device_call_is_named_by_the_call() {
        let mut kernel = blit(3);
        name_blit_kernel(&mut kernel, call(EventType::MemcpyH2D, 4096).event());
        assert_eq!(kernel.event_type, EventType::MemcpyH2D);
        assert_eq!(&*kernel.name, "MemcpyH2D");
        assert_eq!(copy_bytes(&kernel), 4096);
        assert_eq!(recorded_direction(&kernel), Some(EventType::Kernel));
        // On through the copy rules, it stays one event of the call's size and direction.
        let out = run(&call(EventType::MemcpyH2D, 4096), vec![kernel]);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].event_type, copy_bytes(&out[0])),
            (EventType::MemcpyH2D, 4096)
        );
        assert_eq!(recorded_direction(&out[0]), Some(EventType::Kernel));
    }
}
