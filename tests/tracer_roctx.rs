//! ROCTx range labels on HIP work, through the simulator's real SDK call path: the innermost
//! range of the launching thread labels the call and its kernel (`roctx_range`), per thread,
//! as the label travels in the thread's annotation log (docs/ARCHITECTURE.md, "A kernel").
mod tracer_common;

use std::sync::{Arc, Barrier, OnceLock};

use rocprofiler_sdk_sim::driver::{self, KernelId, KernelLaunch, NULL_STREAM};
use sim_test_kit::child;
use tracer_common::{start_recording, VIRTUAL_CLOCK};
use xla_rocm_tracer::event::{EventSource, EventType};
use xla_rocm_tracer::tracer::Tracer;

fn kernel() -> KernelId {
    static KERNEL: OnceLock<KernelId> = OnceLock::new();
    *KERNEL.get_or_init(|| driver::load_code_object(0, &["loop_add_fusion"]).unwrap().1[0])
}

fn launch() -> u64 {
    let launch = KernelLaunch {
        kernel: kernel(),
        grid: [256, 1, 1],
        block: [256, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 1_000,
    };
    driver::launch_kernel(NULL_STREAM, &launch).unwrap()
}

#[test]
fn two_threads_in_different_ranges_label_their_own_kernels() {
    if !child::in_child(
        "two_threads_in_different_ranges_label_their_own_kernels",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    kernel();
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
    let sink = start_recording(tracer);

    // Both threads launch in lock step, so their correlation ids interleave; each changes its
    // innermost range once (a nested push) and launches once outside any range.
    let rounds = 6;
    let barrier = Arc::new(Barrier::new(2));
    let worker = |outer: &'static str, inner: &'static str| {
        let barrier = barrier.clone();
        std::thread::spawn(move || {
            let mut expected = vec![];
            driver::roctx_range_push(outer).unwrap();
            for round in 0..rounds {
                if round == rounds / 2 {
                    driver::roctx_range_push(inner).unwrap();
                }
                barrier.wait();
                let label = if round < rounds / 2 { outer } else { inner };
                expected.push((launch(), Some(label)));
                barrier.wait();
            }
            driver::roctx_range_pop();
            driver::roctx_range_pop();
            expected.push((launch(), None));
            expected
        })
    };
    let a = worker("alpha", "alpha.inner");
    let b = worker("beta", "beta.inner");
    let mut expected = a.join().unwrap();
    expected.extend(b.join().unwrap());
    driver::wait_idle();
    driver::device_synchronize().unwrap();
    tracer.disable();

    let events = sink.events();
    for (correlation_id, label) in &expected {
        let of_call: Vec<_> = events
            .iter()
            .filter(|e| e.correlation_id == *correlation_id && e.event_type == EventType::Kernel)
            .collect();
        let kernel = of_call
            .iter()
            .find(|e| e.source == EventSource::Activity)
            .unwrap_or_else(|| panic!("no kernel for call {correlation_id}"));
        let api = of_call
            .iter()
            .find(|e| e.source == EventSource::ApiCallback)
            .unwrap_or_else(|| panic!("no API event for call {correlation_id}"));
        assert_eq!(
            kernel.roctx_range.as_deref(),
            *label,
            "kernel of {correlation_id}"
        );
        assert_eq!(api.roctx_range.as_deref(), *label, "call {correlation_id}");
    }
    // The ranges themselves are on the host timeline, one per push.
    let mut ranges: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == EventType::Generic)
        .map(|e| e.name.to_string())
        .collect();
    ranges.sort();
    assert_eq!(ranges, ["alpha", "alpha.inner", "beta", "beta.inner"]);
}
