//! ROCTx range labels on HIP work, through the simulator's real SDK call path: the innermost
//! range of the launching thread labels the call and its kernel (`roctx_range`), per thread,
//! as the label travels in the thread's annotation log (docs/ARCHITECTURE.md, "A kernel").
mod tracer_common;

use std::sync::{Arc, Barrier, OnceLock};

use rocprofiler_sdk_sim::driver::{self, KernelId, KernelLaunch, NULL_STREAM};
use sim_test_kit::child;
use tracer_common::{start_recording, VIRTUAL_CLOCK};
use xla_rocm_tracer::event::{EventSource, EventType, RocmTracerEvent};
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

/// Thread ranges (push/pop) and process ranges (start/stop, stopped on another thread) under
/// one `roctx_domains` shape (docs/simulator-fidelity.md, row "ROCTx domains"): each range is
/// one Generic event, a thread range on its thread, a process range on the process-wide line
/// (`PROCESS_RANGE_THREAD_ID`); only the thread range labels the kernel launched inside it.
fn every_range_once(test: &str, domains: &str) {
    let machine = format!("clock = \"virtual\", roctx_domains = \"{domains}\"");
    if !child::in_child(test, &[("ROCSIM_MACHINE", &machine)]) {
        return;
    }
    kernel();
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
    let sink = start_recording(tracer);

    let epoch = driver::roctx_range_start("epoch").unwrap();
    driver::roctx_range_push("step").unwrap();
    let in_step = launch();
    driver::roctx_mark("checkpoint").unwrap();
    driver::roctx_range_pop();
    let in_epoch_only = launch();
    let main_thread = std::thread::current().id();
    std::thread::spawn(move || {
        assert_ne!(std::thread::current().id(), main_thread);
        driver::roctx_range_stop(epoch);
    })
    .join()
    .unwrap();
    driver::wait_idle();
    driver::device_synchronize().unwrap();
    tracer.disable();

    let events = sink.events();
    let mut markers: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == EventType::Generic)
        .map(|e| {
            let process = e.thread_id == RocmTracerEvent::PROCESS_RANGE_THREAD_ID;
            (e.name.to_string(), process)
        })
        .collect();
    markers.sort();
    assert_eq!(
        markers,
        [
            ("checkpoint".to_owned(), false),
            ("epoch".to_owned(), true),
            ("step".to_owned(), false)
        ],
        "{domains}"
    );
    let kernel_label = |correlation_id: u64| {
        events
            .iter()
            .find(|e| {
                e.correlation_id == correlation_id
                    && e.event_type == EventType::Kernel
                    && e.source == EventSource::Activity
            })
            .unwrap_or_else(|| panic!("no kernel for call {correlation_id}"))
            .roctx_range
            .clone()
    };
    assert_eq!(kernel_label(in_step).as_deref(), Some("step"), "{domains}");
    assert_eq!(kernel_label(in_epoch_only), None, "{domains}");
}

#[test]
fn every_range_once_when_only_the_core_domain_tells() {
    every_range_once("every_range_once_when_only_the_core_domain_tells", "core");
}

#[test]
fn every_range_once_when_both_domains_tell() {
    every_range_once("every_range_once_when_both_domains_tell", "core-and-range");
}

#[test]
fn every_range_once_when_only_the_range_domain_tells() {
    every_range_once("every_range_once_when_only_the_range_domain_tells", "range");
}
