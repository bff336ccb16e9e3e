//! The collector's own form of a pending event: 144 bytes instead of the 192 of a
//! `RocmTracerEvent`, with no field that is almost always empty. Names and annotations stay
//! `Arc<str>`s moved out of the tracer's event, so storing one costs no hashing and no
//! reference-count traffic.
use std::sync::Arc;

use crate::event::{
    EventDetails, EventDomain, EventSource, EventType, KernelDetails, MemAllocDetails,
    MemcpyDetails, MemsetDetails, RocmTracerEvent,
};

/// `EventDetails` packed into twelve `u32`s (a kernel's dispatch facts and its symbol's
/// resources) plus a one-byte kind (the enum takes 56 bytes: its `u64` fields align the whole
/// union to 8). Packed, so the kind byte shares the event's tail with its type and domain
/// instead of rounding the event up to 152 bytes; fields are only ever read by copy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C, packed)]
pub(super) struct PackedDetails {
    kind: DetailsKind,
    words: [u32; 12],
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
enum DetailsKind {
    None,
    Kernel,
    Memcpy,
    Memset,
    MemAlloc,
}

fn split(value: u64) -> [u32; 2] {
    [value as u32, (value >> 32) as u32]
}

fn join(low: u32, high: u32) -> u64 {
    u64::from(low) | (u64::from(high) << 32)
}

/// 0 for none, else the type's value plus one.
fn pack_direction(direction: Option<EventType>) -> u32 {
    direction.map_or(0, |t| t as u32 + 1)
}

fn unpack_direction(word: u32) -> Option<EventType> {
    word.checked_sub(1).and_then(EventType::from_u32)
}

impl PackedDetails {
    #[inline]
    pub(crate) fn pack(details: EventDetails) -> PackedDetails {
        let mut words = [0u32; 12];
        let kind = match details {
            EventDetails::None => DetailsKind::None,
            EventDetails::Kernel(kernel) => {
                words = kernel.to_array();
                DetailsKind::Kernel
            }
            EventDetails::Memcpy(copy) => {
                let [low, high] = split(copy.num_bytes);
                words[..6].copy_from_slice(&[
                    low,
                    high,
                    copy.destination,
                    copy.is_async.into(),
                    pack_direction(copy.call_direction),
                    pack_direction(copy.recorded_direction),
                ]);
                DetailsKind::Memcpy
            }
            EventDetails::Memset(set) => {
                let [low, high] = split(set.num_bytes);
                words[..3].copy_from_slice(&[low, high, set.is_async.into()]);
                DetailsKind::Memset
            }
            EventDetails::MemAlloc(alloc) => {
                words[..2].copy_from_slice(&split(alloc.num_bytes));
                DetailsKind::MemAlloc
            }
        };
        PackedDetails { kind, words }
    }

    pub(crate) fn unpack(&self) -> EventDetails {
        let w = self.words;
        match self.kind {
            DetailsKind::None => EventDetails::None,
            DetailsKind::Kernel => EventDetails::Kernel(KernelDetails::from_array(w)),
            DetailsKind::Memcpy => EventDetails::Memcpy(MemcpyDetails {
                num_bytes: join(w[0], w[1]),
                destination: w[2],
                is_async: w[3] != 0,
                call_direction: unpack_direction(w[4]),
                recorded_direction: unpack_direction(w[5]),
            }),
            DetailsKind::Memset => EventDetails::Memset(MemsetDetails {
                num_bytes: join(w[0], w[1]),
                is_async: w[2] != 0,
            }),
            DetailsKind::MemAlloc => EventDetails::MemAlloc(MemAllocDetails {
                num_bytes: join(w[0], w[1]),
            }),
        }
    }

    pub(crate) fn is_kernel(&self) -> bool {
        self.kind == DetailsKind::Kernel
    }

    pub(crate) fn is_memcpy(&self) -> bool {
        self.kind == DetailsKind::Memcpy
    }

    pub(crate) fn is_memset(&self) -> bool {
        self.kind == DetailsKind::Memset
    }
}

/// One pending event. Its source is the list it is kept in; a `roctx_range` (set only on work
/// issued inside a ROCTx range) is kept aside by the list, see [`super::arrival_log`].
#[derive(Clone, Debug)]
pub(super) struct StoredEvent {
    pub start_time_ns: u64,
    pub end_time_ns: u64,
    pub correlation_id: u64,
    pub thread_id: u64,
    pub stream_id: u64,
    pub queue_id: u64,
    pub scope_range_id: i64,
    pub name: Arc<str>,
    pub annotation: Option<Arc<str>>,
    pub device_id: u32,
    pub details: PackedDetails,
    /// `EventType` and `EventDomain` are `repr(u32)`; a byte each holds them.
    event_type: u8,
    domain: u8,
}

impl StoredEvent {
    /// Takes `event` apart; its `roctx_range` is returned for the caller to keep aside.
    #[inline]
    pub(crate) fn from_event(event: RocmTracerEvent) -> (StoredEvent, Option<Arc<str>>) {
        let stored = StoredEvent {
            start_time_ns: event.start_time_ns,
            end_time_ns: event.end_time_ns,
            correlation_id: event.correlation_id,
            thread_id: event.thread_id,
            stream_id: event.stream_id,
            queue_id: event.queue_id,
            scope_range_id: event.scope_range_id,
            name: event.name,
            annotation: event.annotation,
            device_id: event.device_id,
            details: PackedDetails::pack(event.details),
            event_type: event.event_type as u8,
            domain: event.domain as u8,
        };
        (stored, event.roctx_range)
    }

    pub(crate) fn event_type(&self) -> EventType {
        EventType::from_u32(self.event_type.into()).unwrap_or(EventType::Unsupported)
    }

    fn domain(&self) -> EventDomain {
        EventDomain::from_u32(self.domain.into()).unwrap_or(EventDomain::InvalidDomain)
    }

    pub(crate) fn to_event(
        &self,
        source: EventSource,
        roctx_range: Option<Arc<str>>,
    ) -> RocmTracerEvent {
        RocmTracerEvent {
            event_type: self.event_type(),
            source,
            domain: self.domain(),
            name: self.name.clone(),
            annotation: self.annotation.clone(),
            roctx_range,
            start_time_ns: self.start_time_ns,
            end_time_ns: self.end_time_ns,
            device_id: self.device_id,
            correlation_id: self.correlation_id,
            thread_id: self.thread_id,
            stream_id: self.stream_id,
            queue_id: self.queue_id,
            scope_range_id: self.scope_range_id,
            details: self.details.unpack(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_event_is_at_most_144_bytes() {
        assert!(std::mem::size_of::<StoredEvent>() <= 144);
    }

    #[test]
    fn every_detail_kind_survives_packing() {
        let all = [
            EventDetails::None,
            EventDetails::Kernel(KernelDetails {
                private_segment_size: 1,
                group_segment_size: 2,
                workgroup_x: 3,
                workgroup_y: 4,
                workgroup_z: 5,
                grid_x: 6,
                grid_y: 7,
                grid_z: u32::MAX,
                arch_vgpr_count: 9,
                accum_vgpr_count: 10,
                sgpr_count: 11,
                static_group_segment_size: u32::MAX - 1,
            }),
            EventDetails::Memcpy(MemcpyDetails {
                num_bytes: u64::MAX - 5,
                destination: 0xdead_beef,
                is_async: true,
                call_direction: Some(EventType::MemcpyH2D),
                recorded_direction: Some(EventType::MemcpyD2D),
            }),
            EventDetails::Memset(MemsetDetails {
                num_bytes: 1 << 40,
                is_async: true,
            }),
            EventDetails::MemAlloc(MemAllocDetails {
                num_bytes: (1 << 33) + 7,
            }),
        ];
        for details in all {
            assert_eq!(PackedDetails::pack(details).unpack(), details);
        }
    }

    #[test]
    fn an_event_survives_the_round_trip() {
        for domain in [
            EventDomain::InvalidDomain,
            EventDomain::HipApi,
            EventDomain::HipOps,
        ] {
            let event = RocmTracerEvent {
                domain,
                ..RocmTracerEvent::default()
            };
            let (stored, _) = StoredEvent::from_event(event.clone());
            assert_eq!(stored.to_event(EventSource::Invalid, None), event);
        }
        for value in 0..12 {
            let event_type = EventType::from_u32(value).unwrap();
            let (stored, _) = StoredEvent::from_event(RocmTracerEvent {
                event_type,
                ..RocmTracerEvent::default()
            });
            assert_eq!(stored.event_type(), event_type);
        }
        let event = RocmTracerEvent {
            event_type: EventType::MemcpyD2H,
            source: EventSource::Activity,
            domain: EventDomain::HipOps,
            name: Arc::from("copy"),
            annotation: Some(Arc::from("step")),
            roctx_range: Some(Arc::from("range")),
            start_time_ns: 10,
            end_time_ns: 20,
            device_id: 3,
            correlation_id: 4,
            thread_id: 5,
            stream_id: 6,
            queue_id: 7,
            scope_range_id: -8,
            details: EventDetails::Memcpy(MemcpyDetails {
                num_bytes: 9,
                destination: 10,
                is_async: false,
                call_direction: None,
                recorded_direction: Some(EventType::MemcpyOther),
            }),
        };
        let (stored, range) = StoredEvent::from_event(event.clone());
        assert_eq!(stored.to_event(EventSource::Activity, range), event);
    }
}
