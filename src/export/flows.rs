//! Stream waits as flows (docs/xla-interface.md#stream-waits): each `hipStreamWaitEvent` the
//! tracer saw becomes an arrow in xprof's trace viewer, from the work its event's record
//! marked (the last work submitted to the recording stream before the record) to the first
//! work submitted to the waiting stream after the wait, on whatever devices they ran.
//!
//! The arrow is XLA's flow stat (tsl `xplane_schema.h`, `XFlow`; xprof
//! `xplane_to_trace_container.cc` turns it into a flow event): a `uint64` stat named `flow`
//! whose bits 0-1 are the direction (1 in, 2 out), bits 2-57 the flow id and bits 58-63 the
//! category (0, generic). xprof gives every device event with a `correlation_id` a flow of
//! its own, from its HIP call (category `gpu_launch`), over any flow stat the event had, and
//! an event holds one flow. So each wait's flow runs between two zero-length events of its
//! own: `hipEventRecord` on the recording lane at the end of the recorded work, and
//! `hipStreamWaitEvent` on the waiting lane at the start of the work that waited. The flow id
//! is the wait's correlation id.
//!
//! With HIP_EVENT tracing (rocprofiler-sdk 1.4, ROCm 10.1) a call whose barrier packet has a
//! GPU time ([`EventCall::barrier`]) gives its end that time instead: the wait's event spans
//! its barrier on the waiting lane, from when the waiting queue reached it to when the
//! recorded event completed (how long the stream was held), and the record's event sits at
//! its barrier on the recording lane, when the event completed. A wait whose event was
//! already complete enqueues no barrier and keeps its zero-length end.
//!
//! A record with no earlier work on its stream in the trace (none was submitted, or it ran
//! before the capture) marks nothing drawn, and a wait with no later work on its stream held
//! nothing back: neither gets a flow.
use std::collections::BTreeMap;

use super::placement::{Events, FlowEnd, Placed};
use crate::event::{BarrierSpan, EventCall, EventCallKind, EventDetails, RocmTracerEvent};

/// `XFlow`'s direction bits.
const FLOW_IN: u64 = 0x1;
const FLOW_OUT: u64 = 0x2;
/// Flow ids have 56 bits.
const FLOW_ID_MASK: u64 = (1 << 56) - 1;

/// The names of the two ends' events: the HIP calls they stand for.
const RECORD_NAME: &str = "hipEventRecord";
const WAIT_NAME: &str = "hipStreamWaitEvent";

/// The value of a `flow` stat: `direction | id << 2 | category << 58`, category generic (0).
pub(super) fn flow_stat_value(id: u64, direction: u64) -> u64 {
    direction | ((id & FLOW_ID_MASK) << 2)
}

/// A device event: its correlation id (the order its HIP call was entered in), its start and
/// end.
struct Submitted {
    correlation_id: u64,
    start_time_ns: u64,
    end_time_ns: u64,
    placed: Placed,
}

/// The ends of the flows of the waits in `calls`, between the device events placed in
/// `devices` (by device ordinal): a record's end, then its wait's, wait by wait.
pub(super) fn wait_flow_ends(
    events: &Events<'_>,
    calls: &[EventCall],
    devices: &[Vec<Placed>],
) -> Vec<FlowEnd> {
    let waits = pair_waits(calls);
    if waits.is_empty() {
        return Vec::new();
    }
    // Each stream's work in submission order, whatever device it ran on (SDK stream ids are
    // process-wide).
    let mut by_stream: BTreeMap<u64, Vec<Submitted>> = BTreeMap::new();
    for &placed in devices.iter().flatten() {
        let (start_time_ns, end_time_ns) = events.times(placed);
        by_stream
            .entry(events.key(placed).stream_id)
            .or_default()
            .push(Submitted {
                correlation_id: events.correlation_id(placed),
                start_time_ns,
                end_time_ns,
                placed,
            });
    }
    for work in by_stream.values_mut() {
        work.sort_by_key(|w| (w.correlation_id, w.start_time_ns));
    }
    let mut ends = Vec::new();
    for StreamWait { record, wait } in waits {
        let Some(recorded) = by_stream.get(&record.stream_id).and_then(|work| {
            let before = work.partition_point(|w| w.correlation_id < record.correlation_id);
            before.checked_sub(1).map(|last| &work[last])
        }) else {
            continue;
        };
        let Some(waited) = by_stream.get(&wait.stream_id).and_then(|work| {
            let after = work.partition_point(|w| w.correlation_id <= wait.correlation_id);
            work.get(after)
        }) else {
            continue;
        };
        let id = wait.correlation_id;
        let record_at = record
            .barrier
            .map_or((recorded.end_time_ns, recorded.end_time_ns), span_of);
        let wait_at = wait
            .barrier
            .map_or((waited.start_time_ns, waited.start_time_ns), span_of);
        ends.push(flow_end(
            events,
            recorded,
            record_at,
            RECORD_NAME,
            flow_stat_value(id, FLOW_OUT),
        ));
        ends.push(flow_end(
            events,
            waited,
            wait_at,
            WAIT_NAME,
            flow_stat_value(id, FLOW_IN),
        ));
    }
    ends
}

/// A barrier's `(start, end)`.
fn span_of(span: BarrierSpan) -> (u64, u64) {
    (span.start_ns, span.end_ns)
}

/// An event from `start` to `end` (zero-length without a barrier time) on the lane of `work`.
fn flow_end(
    events: &Events<'_>,
    work: &Submitted,
    (start, end): (u64, u64),
    name: &str,
    flow: u64,
) -> FlowEnd {
    let on = events.event(work.placed);
    FlowEnd {
        device_ordinal: events.device_ordinal(work.placed),
        event: RocmTracerEvent {
            name: name.into(),
            annotation: None,
            roctx_range: None,
            start_time_ns: start,
            end_time_ns: end,
            correlation_id: RocmTracerEvent::INVALID_CORRELATION_ID,
            scope_range_id: 0,
            details: EventDetails::None,
            ..on.into_owned()
        },
        flow,
    }
}

/// One wait with the record it waits for: the latest record of the same event entered before
/// the wait. A wait on an event never recorded has no pair (HIP makes it a no-op).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct StreamWait {
    record: EventCall,
    wait: EventCall,
}

/// Pairs each wait of `calls` with its record; in the waits' correlation order.
fn pair_waits(calls: &[EventCall]) -> Vec<StreamWait> {
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

    #[test]
    fn the_stat_value_is_xflows_encoding() {
        // direction in bits 0-1, the id from bit 2, category 0.
        assert_eq!(flow_stat_value(5, FLOW_OUT), 0b1_0110);
        assert_eq!(flow_stat_value(5, FLOW_IN), 0b1_0101);
        assert_eq!(
            flow_stat_value(u64::MAX, FLOW_IN) >> 58,
            0,
            "the id keeps to 56 bits"
        );
    }

    fn call(correlation_id: u64, kind: EventCallKind, event: u64, stream_id: u64) -> EventCall {
        EventCall {
            correlation_id,
            kind,
            event,
            stream_id,
            barrier: None,
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
