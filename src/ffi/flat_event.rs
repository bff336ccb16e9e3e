//! The one flat form of a [`RocmTracerEvent`] at the foreign boundaries: the cxx bridge's
//! [`FlatEvent`] (enums as XLA's integer values, the detail union as a kind plus plain fields,
//! the kernel's fields as [`KernelDetails::to_array`]). C++ reads and writes it as is; the C
//! ABI's `XrtEvent` is its C spelling and converts through it, so the mapping is written once.
use std::sync::Arc;

use super::bridge::{DetailKind, FlatEvent};
use crate::event::{
    EventDetails, EventDomain, EventSource, EventType, KernelDetails, MemAllocDetails,
    MemcpyDetails, MemsetDetails, RocmTracerEvent,
};

impl DetailKind {
    /// The C ABI's `XrtEvent::detail_kind`; unknown values mean "no details", as XLA's export
    /// ignores the union for such events.
    pub(crate) fn from_u32(value: u32) -> DetailKind {
        match u8::try_from(value) {
            Ok(repr) if repr <= DetailKind::MemAlloc.repr => DetailKind { repr },
            _ => DetailKind::None,
        }
    }
}

impl FlatEvent {
    pub(crate) fn of(event: &RocmTracerEvent) -> FlatEvent {
        let mut flat = FlatEvent {
            event_type: event.event_type as u32,
            source: event.source as u32,
            domain: event.domain as u32,
            name: event.name.to_string(),
            annotation: event.annotation.as_deref().unwrap_or("").to_owned(),
            roctx_range: event.roctx_range.as_deref().unwrap_or("").to_owned(),
            start_time_ns: event.start_time_ns,
            end_time_ns: event.end_time_ns,
            device_id: event.device_id,
            correlation_id: event.correlation_id,
            thread_id: event.thread_id,
            stream_id: event.stream_id,
            queue_id: event.queue_id,
            scope_range_id: event.scope_range_id,
            detail_kind: DetailKind::None,
            kernel: [0; 12],
            num_bytes: 0,
            destination: 0,
            is_async: false,
        };
        match event.details {
            EventDetails::None => {}
            EventDetails::Kernel(kernel) => {
                flat.detail_kind = DetailKind::Kernel;
                flat.kernel = kernel.to_array();
            }
            EventDetails::Memcpy(memcpy) => {
                flat.detail_kind = DetailKind::Memcpy;
                flat.num_bytes = memcpy.num_bytes;
                flat.destination = memcpy.destination;
                flat.is_async = memcpy.is_async;
            }
            EventDetails::Memset(memset) => {
                flat.detail_kind = DetailKind::Memset;
                flat.num_bytes = memset.num_bytes;
                flat.is_async = memset.is_async;
            }
            EventDetails::MemAlloc(alloc) => {
                flat.detail_kind = DetailKind::MemAlloc;
                flat.num_bytes = alloc.num_bytes;
            }
        }
        flat
    }

    /// The Rust core's event. Values outside XLA's enums become `Unsupported` / `Invalid` /
    /// `InvalidDomain`, which the collector drops and counts.
    pub(crate) fn to_event(&self) -> RocmTracerEvent {
        let details = match self.detail_kind {
            DetailKind::Kernel => EventDetails::Kernel(KernelDetails::from_array(self.kernel)),
            DetailKind::Memcpy => EventDetails::Memcpy(MemcpyDetails {
                num_bytes: self.num_bytes,
                destination: self.destination,
                is_async: self.is_async,
                // XLA's event has no copy facts (docs/ARCHITECTURE.md#a-copy).
                ..MemcpyDetails::default()
            }),
            DetailKind::Memset => EventDetails::Memset(MemsetDetails {
                num_bytes: self.num_bytes,
                is_async: self.is_async,
            }),
            DetailKind::MemAlloc => EventDetails::MemAlloc(MemAllocDetails {
                num_bytes: self.num_bytes,
            }),
            _ => EventDetails::None,
        };
        RocmTracerEvent {
            event_type: EventType::from_u32(self.event_type).unwrap_or(EventType::Unsupported),
            source: EventSource::from_u32(self.source).unwrap_or(EventSource::Invalid),
            domain: EventDomain::from_u32(self.domain).unwrap_or(EventDomain::InvalidDomain),
            name: Arc::from(self.name.as_str()),
            annotation: (!self.annotation.is_empty()).then(|| Arc::from(self.annotation.as_str())),
            roctx_range: (!self.roctx_range.is_empty())
                .then(|| Arc::from(self.roctx_range.as_str())),
            start_time_ns: self.start_time_ns,
            end_time_ns: self.end_time_ns,
            device_id: self.device_id,
            correlation_id: self.correlation_id,
            thread_id: self.thread_id,
            stream_id: self.stream_id,
            queue_id: self.queue_id,
            scope_range_id: self.scope_range_id,
            details,
        }
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
        for details in all {
            let event = RocmTracerEvent {
                name: Arc::from("k"),
                annotation: Some(Arc::from("step")),
                roctx_range: Some(Arc::from("train_step")),
                correlation_id: 7,
                scope_range_id: 5,
                details,
                ..RocmTracerEvent::default()
            };
            assert_eq!(FlatEvent::of(&event).to_event(), event);
        }
        assert_eq!(kernel.to_array(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        assert_eq!(kernel.workgroup_z, 5);
        assert_eq!(kernel.grid_x, 6);
        assert_eq!(kernel.arch_vgpr_count, 9);
        assert_eq!(kernel.static_group_segment_size, 12);
        assert_eq!(DetailKind::from_u32(4), DetailKind::MemAlloc);
        assert_eq!(DetailKind::from_u32(5), DetailKind::None);
    }

    #[test]
    fn out_of_range_enum_values_become_invalid() {
        let mut flat = FlatEvent::of(&RocmTracerEvent::default());
        flat.event_type = 1000;
        flat.source = 77;
        flat.domain = 9;
        let back = flat.to_event();
        assert_eq!(back.event_type, EventType::Unsupported);
        assert_eq!(back.source, EventSource::Invalid);
        assert_eq!(back.domain, EventDomain::InvalidDomain);
    }
}
