//! The one flat form of a [`RocmTracerEvent`] at the foreign boundaries: [`XrtEvent`], the C
//! ABI's struct (cbindgen writes it into `include/xla_rocm_tracer.h`), which the cxx bridges
//! carry as is (a trivial extern type: `type XrtEvent = crate::ffi::event::XrtEvent`) and the
//! C++ shims fill and read (cpp/event_bridge.h). Enums are XLA's integer values, the detail
//! union a kind plus plain fields, the kernel's fields [`KernelDetails::to_array`]'s words.
use std::ffi::{c_char, CStr};
use std::sync::Arc;

use crate::event::{
    EventDetails, EventDomain, EventSource, EventType, GraphNode, KernelDetails, MemAllocDetails,
    MemcpyDetails, MemsetDetails, RocmTracerEvent, KERNEL_WORDS,
};

/// One event for `xrt_export_events`: XLA's `RocmTracerEvent` with its enums as XLA's
/// integer values (`RocmTracerEventType`, `...Source`, `...Domain`) and the detail union
/// flattened.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct XrtEvent {
    pub event_type: u32,
    pub source: u32,
    pub domain: u32,
    /// NUL-terminated UTF-8; null means "".
    pub name: *const c_char,
    /// NUL-terminated UTF-8; null or "" means none.
    pub annotation: *const c_char,
    pub start_time_ns: u64,
    pub end_time_ns: u64,
    pub device_id: u32,
    pub correlation_id: u64,
    pub thread_id: u64,
    pub stream_id: u64,
    pub queue_id: u64,
    pub scope_range_id: i64,
    /// Which detail fields are meaningful: 0 none, 1 kernel, 2 memcpy, 3 memset, 4 memory
    /// allocation (`XrtDetailKind`).
    pub detail_kind: u32,
    /// Kernel: private/group segment sizes, workgroup x/y/z, grid x/y/z (work-items), arch
    /// and accumulation VGPRs, SGPRs, static LDS bytes.
    pub kernel: [u32; KERNEL_WORDS],
    pub num_bytes: u64,
    pub destination: u32,
    pub is_async: bool,
    /// The innermost ROCTx range label at the HIP call (NUL-terminated UTF-8; null or "" means
    /// none); a ROCTx range or mark (`Generic`) carries its own label.
    pub roctx_range: *const c_char,
    /// The SDK's id of the graph executable a kernel or copy of a `hipGraphLaunch` ran in (0:
    /// not known, or not a graph node).
    pub graph_exec_id: u64,
    /// The node's ordinal in its launch plus one; 0 (what a zeroed event holds) means the
    /// event is not a graph node.
    pub graph_node: u32,
}

/// The values of `XrtEvent::detail_kind`; unknown values mean "no details", as XLA's export
/// ignores the union for such events.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum XrtDetailKind {
    None = 0,
    Kernel = 1,
    Memcpy = 2,
    Memset = 3,
    MemAlloc = 4,
}

// SAFETY: `XrtEvent` is `#[repr(C)]` plain data declared to C++ by include/xla_rocm_tracer.h
// under this name, so C++ may copy and move it as the bytes it is.
unsafe impl cxx::ExternType for XrtEvent {
    type Id = cxx::type_id!("XrtEvent");
    type Kind = cxx::kind::Trivial;
}

/// How [`XrtEvent::rust_event`] reads a string that is not UTF-8.
#[derive(Copy, Clone)]
pub(super) enum Utf8 {
    /// The C ABI: the event is refused.
    Required,
    /// The C++ shims (XLA's strings): read lossily.
    Lossy,
}

impl XrtEvent {
    /// The Rust core's event; `None` for a string that is not UTF-8 under [`Utf8::Required`].
    /// Values outside XLA's enums become `Unsupported` / `Invalid` / `InvalidDomain`, which
    /// the collector drops and counts.
    ///
    /// # Safety
    /// Each string pointer is null or NUL-terminated, valid for the call.
    pub(super) unsafe fn rust_event(&self, utf8: Utf8) -> Option<RocmTracerEvent> {
        let text = |ptr: *const c_char| -> Option<Arc<str>> {
            if ptr.is_null() {
                return Some(Arc::from(""));
            }
            // SAFETY: non-null and NUL-terminated per this function's contract.
            let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
            match utf8 {
                Utf8::Required => std::str::from_utf8(bytes).ok().map(Arc::from),
                Utf8::Lossy => Some(Arc::from(String::from_utf8_lossy(bytes))),
            }
        };
        let optional = |text: Arc<str>| (!text.is_empty()).then_some(text);
        let details = match self.detail_kind {
            1 => EventDetails::Kernel(KernelDetails::from_array(self.kernel)),
            2 => EventDetails::Memcpy(MemcpyDetails {
                num_bytes: self.num_bytes,
                destination: self.destination,
                is_async: self.is_async,
                // XLA's event has no copy facts (docs/ARCHITECTURE.md#a-copy).
                ..MemcpyDetails::default()
            }),
            3 => EventDetails::Memset(MemsetDetails {
                num_bytes: self.num_bytes,
                is_async: self.is_async,
            }),
            4 => EventDetails::MemAlloc(MemAllocDetails {
                num_bytes: self.num_bytes,
            }),
            _ => EventDetails::None,
        };
        Some(RocmTracerEvent {
            event_type: EventType::from_u32(self.event_type).unwrap_or(EventType::Unsupported),
            source: EventSource::from_u32(self.source).unwrap_or(EventSource::Invalid),
            domain: EventDomain::from_u32(self.domain).unwrap_or(EventDomain::InvalidDomain),
            name: text(self.name)?,
            annotation: optional(text(self.annotation)?),
            roctx_range: optional(text(self.roctx_range)?),
            start_time_ns: self.start_time_ns,
            end_time_ns: self.end_time_ns,
            device_id: self.device_id,
            correlation_id: self.correlation_id,
            thread_id: self.thread_id,
            stream_id: self.stream_id,
            queue_id: self.queue_id,
            scope_range_id: self.scope_range_id,
            details,
            graph: self.graph_node.checked_sub(1).map(|ordinal| GraphNode {
                exec_id: self.graph_exec_id,
                ordinal,
            }),
        })
    }

    /// `event` with null strings (the caller points them at its text).
    fn of(event: &RocmTracerEvent) -> XrtEvent {
        let mut flat = XrtEvent {
            event_type: event.event_type as u32,
            source: event.source as u32,
            domain: event.domain as u32,
            name: std::ptr::null(),
            annotation: std::ptr::null(),
            start_time_ns: event.start_time_ns,
            end_time_ns: event.end_time_ns,
            device_id: event.device_id,
            correlation_id: event.correlation_id,
            thread_id: event.thread_id,
            stream_id: event.stream_id,
            queue_id: event.queue_id,
            scope_range_id: event.scope_range_id,
            detail_kind: XrtDetailKind::None as u32,
            kernel: [0; KERNEL_WORDS],
            num_bytes: 0,
            destination: 0,
            is_async: false,
            roctx_range: std::ptr::null(),
            graph_exec_id: event.graph.map_or(0, |node| node.exec_id),
            // An ordinal of u32::MAX has no room: it is left out.
            graph_node: event
                .graph
                .map_or(0, |node| node.ordinal.checked_add(1).unwrap_or(0)),
        };
        match event.details {
            EventDetails::None => {}
            EventDetails::Kernel(kernel) => {
                flat.detail_kind = XrtDetailKind::Kernel as u32;
                flat.kernel = kernel.to_array();
            }
            EventDetails::Memcpy(memcpy) => {
                flat.detail_kind = XrtDetailKind::Memcpy as u32;
                flat.num_bytes = memcpy.num_bytes;
                flat.destination = memcpy.destination;
                flat.is_async = memcpy.is_async;
            }
            EventDetails::Memset(memset) => {
                flat.detail_kind = XrtDetailKind::Memset as u32;
                flat.num_bytes = memset.num_bytes;
                flat.is_async = memset.is_async;
            }
            EventDetails::MemAlloc(alloc) => {
                flat.detail_kind = XrtDetailKind::MemAlloc as u32;
                flat.num_bytes = alloc.num_bytes;
            }
        }
        flat
    }
}

/// Events as [`XrtEvent`]s for C++, with the NUL-terminated strings they point to: `text`
/// owns them (its heap buffer does not move when the value does), so the events are valid
/// while `text` lives. A string's interior NUL ends it, as it would in C.
pub(super) struct XrtEvents {
    pub(super) events: Vec<XrtEvent>,
    pub(super) text: Vec<u8>,
}

impl XrtEvents {
    pub(super) fn of(events: &[RocmTracerEvent]) -> XrtEvents {
        fn strings(event: &RocmTracerEvent) -> [&str; 3] {
            [
                Some(&*event.name),
                event.annotation.as_deref(),
                event.roctx_range.as_deref(),
            ]
            .map(|text| text.unwrap_or(""))
        }
        let total: usize = events
            .iter()
            .flat_map(|event| strings(event).map(|text| text.len() + 1))
            .sum();
        let mut text = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(events.len());
        for event in events {
            starts.push(strings(event).map(|string| {
                let start = text.len();
                text.extend_from_slice(string.as_bytes());
                text.push(0);
                start
            }));
        }
        let base = text.as_ptr() as *const c_char;
        let events = events
            .iter()
            .zip(starts)
            .map(|(event, [name, annotation, roctx_range])| {
                // SAFETY: each start is inside `text`, which is not changed after `base`.
                let at = |start: usize| unsafe { base.add(start) };
                XrtEvent {
                    name: at(name),
                    annotation: at(annotation),
                    roctx_range: at(roctx_range),
                    ..XrtEvent::of(event)
                }
            })
            .collect();
        XrtEvents { events, text }
    }

    /// One event and the text it points to.
    pub(super) fn one(event: &RocmTracerEvent) -> (XrtEvent, Vec<u8>) {
        let XrtEvents { events, text } = XrtEvents::of(std::slice::from_ref(event));
        // `of` gives one event per event; the fallback (strings read as "") is never taken.
        let flat = events
            .first()
            .copied()
            .unwrap_or_else(|| XrtEvent::of(event));
        (flat, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_detail_kind_survives_the_flat_form() {
        let kernel = KernelDetails::from_array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        let all = [
            EventDetails::None,
            EventDetails::Kernel(kernel),
            EventDetails::Memcpy(MemcpyDetails {
                num_bytes: 4096,
                destination: 17,
                is_async: true,
                ..MemcpyDetails::default()
            }),
            EventDetails::Memset(MemsetDetails {
                num_bytes: 9,
                is_async: true,
            }),
            EventDetails::MemAlloc(MemAllocDetails { num_bytes: 11 }),
        ];
        let events: Vec<RocmTracerEvent> = all
            .into_iter()
            .map(|details| RocmTracerEvent {
                name: Arc::from("k"),
                annotation: Some(Arc::from("step")),
                roctx_range: Some(Arc::from("train_step")),
                correlation_id: 7,
                scope_range_id: 5,
                details,
                graph: Some(GraphNode {
                    exec_id: 3,
                    ordinal: 0,
                }),
                ..RocmTracerEvent::default()
            })
            .collect();
        let flat = XrtEvents::of(&events);
        for (flat, event) in flat.events.iter().zip(&events) {
            // SAFETY: the strings are `flat`'s own, NUL-terminated.
            let back = unsafe { flat.rust_event(Utf8::Required) };
            assert_eq!(back.as_ref(), Some(event));
        }
        assert_eq!(kernel.to_array(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        assert_eq!(kernel.workgroup_z, 5);
        assert_eq!(kernel.grid_x, 6);
        assert_eq!(kernel.arch_vgpr_count, 9);
        assert_eq!(kernel.static_group_segment_size, 12);
    }

    #[test]
    fn out_of_range_values_become_invalid_and_bad_text_is_refused_or_replaced() {
        let mut flat = XrtEvent::of(&RocmTracerEvent::default());
        flat.event_type = 1000;
        flat.source = 77;
        flat.domain = 9;
        flat.detail_kind = 5;
        // SAFETY: null strings are allowed.
        let back = unsafe { flat.rust_event(Utf8::Required) }.expect("an event");
        assert_eq!(back.event_type, EventType::Unsupported);
        assert_eq!(back.source, EventSource::Invalid);
        assert_eq!(back.domain, EventDomain::InvalidDomain);
        assert_eq!(back.details, EventDetails::None);
        assert_eq!((&*back.name, back.annotation), ("", None));

        flat.name = c"k\xff".as_ptr();
        // SAFETY: a NUL-terminated literal.
        assert_eq!(unsafe { flat.rust_event(Utf8::Required) }, None);
        // SAFETY: as above.
        let lossy = unsafe { flat.rust_event(Utf8::Lossy) }.expect("an event");
        assert_eq!(&*lossy.name, "k\u{fffd}");
    }
}
