//! HIP_EVENT tracing (rocprofiler-sdk 1.4, ROCm 10.1; docs/xla-interface.md#stream-waits): the
//! tracer configures the buffer kind where the SDK names it, and each record or wait call the
//! session's end carries has its barrier's GPU time, matched by the call's correlation id. A
//! wait that really waited spans from when the waiting queue reached its barrier to the end of
//! the recorded work; a wait on an event already complete enqueued no barrier. Under 7.14 (no
//! HIP_EVENT) no call has one. Each release in a re-executed child (the machine is fixed at
//! the SDK's initialization), on the virtual clock.
mod tracer_common;

use sim_test_kit::child;

use rocprofiler_sdk_sim::driver::{self, KernelLaunch};
use tracer_common::start_recording;
use xla_rocm_tracer::event::{BarrierSpan, EventCall, EventCallKind, EventSource};
use xla_rocm_tracer::tracer::Tracer;

#[test]
fn each_wait_and_record_has_its_barrier_time_under_10_1_only() {
    if child::is_any_child() {
        return;
    }
    for (rocm, traced) in [("10.1", "1"), ("7.14", "0")] {
        let machine = format!("rocm = \"{rocm}\", clock = \"virtual\"");
        let output = child::rerun(
            "child_barrier_times",
            &[
                ("ROCSIM_MACHINE", machine.as_str()),
                ("HIP_EVENT_TEST_TRACED", traced),
            ],
        );
        child::assert_passed(rocm, &output);
    }
}

#[test]
fn child_barrier_times() {
    if !child::is_any_child() {
        return;
    }
    let traced = std::env::var("HIP_EVENT_TEST_TRACED").unwrap() == "1";
    let (_, kernels) = driver::load_code_object(0, &["producer", "consumer"]).unwrap();
    let launch = |kernel, duration_ns| KernelLaunch {
        kernel,
        grid: [256, 1, 1],
        block: [256, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns,
    };
    let tracer = Tracer::get();
    let recording = driver::stream_create().unwrap();
    let waiting = driver::stream_create().unwrap();
    let sink = start_recording(tracer);
    let (first, second) = (0xe1, 0xe2);

    // A wait that waits: the producer still runs when the consumer's stream waits for it.
    let producer = driver::launch_kernel(recording, &launch(kernels[0], 50_000)).unwrap();
    let record = driver::event_record(first, recording).unwrap();
    let wait = driver::stream_wait_event(waiting, first, 0).unwrap();
    let consumer = driver::launch_kernel(waiting, &launch(kernels[1], 1_000)).unwrap();
    driver::device_synchronize().unwrap();
    // A wait on an event already complete: HIP enqueues no barrier.
    let late_record = driver::event_record(second, recording).unwrap();
    driver::device_synchronize().unwrap();
    let late_wait = driver::stream_wait_event(waiting, second, 0).unwrap();
    driver::launch_kernel(waiting, &launch(kernels[1], 1_000)).unwrap();
    driver::device_synchronize().unwrap();
    tracer.disable();

    let activity = |correlation_id| {
        let events: Vec<_> = sink
            .by_correlation(correlation_id)
            .into_iter()
            .filter(|event| event.source == EventSource::Activity)
            .collect();
        assert_eq!(events.len(), 1, "{events:?}");
        (events[0].start_time_ns, events[0].end_time_ns)
    };
    let (_, producer_end) = activity(producer);
    let (consumer_start, _) = activity(consumer);
    let end = sink.end.lock().take().expect("the session's end");
    let call = |correlation_id| -> EventCall {
        *end.event_calls
            .iter()
            .find(|call| call.correlation_id == correlation_id)
            .unwrap_or_else(|| panic!("call {correlation_id}: {:?}", end.event_calls))
    };
    let calls = [record, wait, late_record, late_wait].map(call);
    assert_eq!(
        calls.map(|call| call.kind),
        [
            EventCallKind::Record,
            EventCallKind::Wait,
            EventCallKind::Record,
            EventCallKind::Wait
        ]
    );
    if !traced {
        assert_eq!(calls.map(|call| call.barrier), [None; 4], "{calls:?}");
        return;
    }
    let [record, wait, late_record, late_wait] = calls;
    let Some(BarrierSpan { start_ns, end_ns }) = wait.barrier else {
        panic!("the wait's barrier time: {wait:?}")
    };
    assert!(start_ns < end_ns, "the wait waited: {wait:?}");
    assert_eq!(end_ns, producer_end, "until the recorded work ended");
    assert!(
        consumer_start >= end_ns,
        "the consumer ran after the barrier"
    );
    assert_eq!(
        record.barrier,
        Some(BarrierSpan {
            start_ns: producer_end,
            end_ns: producer_end
        }),
        "the record's barrier ran as the producer ended"
    );
    let late = late_record
        .barrier
        .expect("a record on an idle queue has a barrier too");
    assert!(late.start_ns >= producer_end, "{late:?}");
    assert_eq!(
        late_wait.barrier, None,
        "an event already complete: no barrier"
    );
}
