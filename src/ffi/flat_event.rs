//! The one flat form of a [`RocmTracerEvent`] at the foreign boundaries: enums as XLA's integer
//! values and the detail union as a kind plus plain fields. The cxx bridge's `BridgeEvent` and
//! the C ABI's `XrtEvent` both convert through [`FlatEvent`], so the mapping is written once.
use std::sync::Arc;

use crate::event::{
    EventDetails, EventDomain, EventSource, EventType, KernelDetails, MemAllocDetails,
    MemcpyDetails, MemsetDetails, RocmTracerEvent,
};

/// Which member of XLA's detail union is meaningful; the values are the C ABI's
/// `XrtEvent::detail_kind` and the order of the bridge's `DetailKind`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum DetailCode {
    None = 0,
    Kernel = 1,
    Memcpy = 2,
    Memset = 3,
    MemAlloc = 4,
}

impl DetailCode {
    /// Unknown codes mean "no details", as XLA's export ignores the union for such events.
    pub(crate) fn from_u32(value: u32) -> DetailCode {
        match value {
            1 => DetailCode::Kernel,
            2 => DetailCode::Memcpy,
            3 => DetailCode::Memset,
            4 => DetailCode::MemAlloc,
            _ => DetailCode::None,
        }
    }
}

/// The detail union flattened.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct FlatDetails {
    pub kind: DetailCode,
    pub kernel: KernelDetails,
    /// Memcpy, memset, memory allocation.
    pub num_bytes: u64,
    /// Memcpy: the destination agent handle truncated to 32 bits.
    pub destination: u32,
    pub is_async: bool,
}

impl FlatDetails {
    pub(crate) fn of(details: &EventDetails) -> FlatDetails {
        let mut flat = FlatDetails {
            kind: DetailCode::None,
            kernel: KernelDetails::default(),
            num_bytes: 0,
            destination: 0,
            is_async: false,
        };
        match *details {
            EventDetails::None => {}
            EventDetails::Kernel(kernel) => {
                flat.kind = DetailCode::Kernel;
                flat.kernel = kernel;
            }
            EventDetails::Memcpy(memcpy) => {
                flat.kind = DetailCode::Memcpy;
                flat.num_bytes = memcpy.num_bytes;
                flat.destination = memcpy.destination;
                flat.is_async = memcpy.is_async;
            }
            EventDetails::Memset(memset) => {
                flat.kind = DetailCode::Memset;
                flat.num_bytes = memset.num_bytes;
                flat.is_async = memset.is_async;
            }
            EventDetails::MemAlloc(alloc) => {
                flat.kind = DetailCode::MemAlloc;
                flat.num_bytes = alloc.num_bytes;
            }
        }
        flat
    }

    pub(crate) fn into_details(self) -> EventDetails {
        match self.kind {
            DetailCode::None => EventDetails::None,
            DetailCode::Kernel => EventDetails::Kernel(self.kernel),
            DetailCode::Memcpy => EventDetails::Memcpy(MemcpyDetails {
                num_bytes: self.num_bytes,
                destination: self.destination,
                is_async: self.is_async,
                // XLA's event has no copy facts (docs/ARCHITECTURE.md#a-copy): C++ collectors
                // see the copy as the SDK recorded it.
                ..MemcpyDetails::default()
            }),
            DetailCode::Memset => EventDetails::Memset(MemsetDetails {
                num_bytes: self.num_bytes,
                is_async: self.is_async,
            }),
            DetailCode::MemAlloc => EventDetails::MemAlloc(MemAllocDetails {
                num_bytes: self.num_bytes,
            }),
        }
    }
}

/// One event in flat form, borrowing its strings from the foreign struct.
#[derive(Clone, Debug)]
pub(crate) struct FlatEvent<'a> {
    pub event_type: u32,
    pub source: u32,
    pub domain: u32,
    pub name: &'a str,
    /// "" means none.
    pub annotation: &'a str,
    pub start_time_ns: u64,
    pub end_time_ns: u64,
    pub device_id: u32,
    pub correlation_id: u64,
    pub thread_id: u64,
    pub stream_id: u64,
    pub queue_id: u64,
    pub scope_range_id: i64,
    pub details: FlatDetails,
}

impl<'a> FlatEvent<'a> {
    pub(crate) fn of(event: &'a RocmTracerEvent) -> FlatEvent<'a> {
        FlatEvent {
            event_type: event.event_type as u32,
            source: event.source as u32,
            domain: event.domain as u32,
            name: &event.name,
            annotation: event.annotation.as_deref().unwrap_or(""),
            start_time_ns: event.start_time_ns,
            end_time_ns: event.end_time_ns,
            device_id: event.device_id,
            correlation_id: event.correlation_id,
            thread_id: event.thread_id,
            stream_id: event.stream_id,
            queue_id: event.queue_id,
            scope_range_id: event.scope_range_id,
            details: FlatDetails::of(&event.details),
        }
    }

    /// The Rust core's event. Values outside XLA's enums become `Unsupported` / `Invalid` /
    /// `InvalidDomain`, which the collector drops and counts.
    pub(crate) fn to_event(&self) -> RocmTracerEvent {
        RocmTracerEvent {
            event_type: EventType::from_u32(self.event_type).unwrap_or(EventType::Unsupported),
            source: EventSource::from_u32(self.source).unwrap_or(EventSource::Invalid),
            domain: EventDomain::from_u32(self.domain).unwrap_or(EventDomain::InvalidDomain),
            name: Arc::from(self.name),
            annotation: (!self.annotation.is_empty()).then(|| Arc::from(self.annotation)),
            roctx_range: None,
            start_time_ns: self.start_time_ns,
            end_time_ns: self.end_time_ns,
            device_id: self.device_id,
            correlation_id: self.correlation_id,
            thread_id: self.thread_id,
            stream_id: self.stream_id,
            queue_id: self.queue_id,
            scope_range_id: self.scope_range_id,
            details: self.details.into_details(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_detail_kind_survives_the_flat_form() {
        let kernel = KernelDetails::from_array([1, 2, 3, 4, 5, 6, 7, 8]);
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
            assert_eq!(FlatDetails::of(&details).into_details(), details);
        }
        assert_eq!(kernel.to_array(), [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(kernel.workgroup_z, 5);
        assert_eq!(kernel.grid_x, 6);
    }

    #[test]
    fn out_of_range_enum_values_become_invalid() {
        let event = RocmTracerEvent::default();
        let mut flat = FlatEvent::of(&event);
        flat.event_type = 1000;
        flat.source = 77;
        flat.domain = 9;
        let back = flat.to_event();
        assert_eq!(back.event_type, EventType::Unsupported);
        assert_eq!(back.source, EventSource::Invalid);
        assert_eq!(back.domain, EventDomain::InvalidDomain);
    }
}
