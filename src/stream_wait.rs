//! How a program orders its streams with events, as the tracer saw it: each `hipEventRecord`
//! and `hipStreamWaitEvent` with its event and stream (docs/xla-interface.md#stream-waits).
//! The tracer notes them at the calls' HIP API ENTER (`tracer/hip_api/event_calls.rs`), the
//! session's end carries them to the collector, and the export draws each wait as a flow
//! from the work its record marked to the first work of the waiting stream
//! (`export/flows.rs`). A relation between events, so it rides on no single event.

/// What a call did with its event.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventCallKind {
    /// `hipEventRecord` / `hipEventRecordWithFlags`: the event marks the work submitted to the
    /// stream so far.
    Record,
    /// `hipStreamWaitEvent`: the stream's later work waits for the event's latest record.
    Wait,
}

/// One record or wait call.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventCall {
    /// The call's internal correlation id: calls and submitted work are ordered by it.
    pub correlation_id: u64,
    pub kind: EventCallKind,
    /// The `hipEvent_t`.
    pub event: u64,
    /// The SDK stream id of the call's stream (its HIP_STREAM SET).
    pub stream_id: u64,
}

/// One wait with the record it waits for: the latest record of the same event entered before
/// the wait. A wait on an event never recorded has no pair (HIP makes it a no-op).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StreamWait {
    pub record: EventCall,
    pub wait: EventCall,
}

/// Pairs each wait of `calls` with its record; in the waits' correlation order.
pub fn pair_waits(calls: &[EventCall]) -> Vec<StreamWait> {
    let mut ordered: Vec<&EventCall> = calls.iter().collect();
    ordered.sort_by_key(|call| call.correlation_id);
    let mut latest_record = std::collections::HashMap::new();
    let mut waits = Vec::new();
    for call in ordered {
        match call.kind {
            EventCallKind::Record => {
                latest_record.insert(call.event, *call);
            }
            EventCallKind::Wait => {
                if let Some(&record) = latest_record.get(&call.event) {
                    waits.push(StreamWait {
                        record,
                        wait: *call,
                    });
                }
            }
        }
    }
    waits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(correlation_id: u64, kind: EventCallKind, event: u64, stream_id: u64) -> EventCall {
        EventCall {
            correlation_id,
            kind,
            event,
            stream_id,
        }
    }

    #[test]
    fn a_wait_pairs_with_the_latest_earlier_record_of_its_event() {
        use EventCallKind::{Record, Wait};
        let calls = [
            call(9, Wait, 0xa, 3),
            call(2, Record, 0xa, 1),
            call(5, Record, 0xa, 2),
            call(6, Record, 0xb, 2),
            call(7, Wait, 0xc, 3),
            call(12, Record, 0xa, 4),
        ];
        let waits = pair_waits(&calls);
        assert_eq!(waits.len(), 1, "{waits:?}");
        assert_eq!(waits[0].record.correlation_id, 5);
        assert_eq!(waits[0].wait.correlation_id, 9);
    }
}
