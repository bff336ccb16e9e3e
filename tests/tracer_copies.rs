//! Memory copies of every direction on a two-GPU machine: each arrives with its stream and on
//! the device XLA's direction rules pick (docs/xla-interface.md#copy-device-rules), except that a copy with no
//! GPU side gets `INVALID_DEVICE_ID` rather than XLA's 0 (docs/xla-interface.md#xla-edge-8). Also the
//! non-direct-dispatch hazard (docs/sdk-facts.md#direct-dispatch) is counted, not silent.
//!
//! The simulated machine is fixed when the SDK initializes (before `main`), so each test body
//! runs in a re-executed child with `gpus` / `direct_dispatch` set.
mod tracer_common;

use sim_test_kit::child;
use std::collections::BTreeMap;

use rocprofiler_sdk_sim::driver::{self, Copy, CopyCall, CopyKind, HostMemory};
use tracer_common::{joined, start_collecting, start_recording};
use xla_rocm_tracer::drop_reason::DropReason;
use xla_rocm_tracer::event::{EventDetails, EventSource, EventType, RocmTracerEvent};
use xla_rocm_tracer::testing::correlation;
use xla_rocm_tracer::tracer::Tracer;

fn copy(kind: CopyKind, src_device: Option<u32>, dst_device: Option<u32>) -> Copy {
    Copy {
        kind,
        bytes: 3 << 20,
        src_device,
        dst_device,
        duration_ns: 3_000,
    }
}

#[test]
fn copies_of_every_direction_on_two_gpus() {
    if child::is_any_child() {
        return;
    }
    // Host-to-host copies are CPU copies without an SDK record on real hardware (not a tracer
    // bug); this test checks each direction's record, so host-to-host copies get one here.
    let output = child::rerun(
        "child_copies_of_every_direction",
        &[("ROCSIM_MACHINE", "gpus = 2, h2h_record = true")],
    );
    child::assert_passed("two GPUs", &output);
}

#[test]
fn child_copies_of_every_direction() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    assert_eq!(tracer.num_gpus(), 2);
    let gpu = |i: usize| tracer.gpu_agents()[i].handle as u32;
    let sink = start_recording(tracer);

    driver::set_device(1).unwrap();
    let stream = driver::stream_create().unwrap();
    let stream_id = driver::sdk_stream_id(stream).unwrap();
    // (correlation id, expected type, expected device, expected stream)
    let mut expected: BTreeMap<u64, (EventType, u32, u64)> = BTreeMap::new();
    let cases = [
        (
            CopyKind::HostToDevice,
            None,
            None,
            EventType::MemcpyH2D,
            gpu(1),
        ),
        (
            CopyKind::DeviceToHost,
            None,
            None,
            EventType::MemcpyD2H,
            gpu(1),
        ),
        // Between two GPUs: a peer copy on its source GPU (docs/xla-interface.md#copy-device-rules).
        (
            CopyKind::DeviceToDevice,
            Some(1),
            Some(0),
            EventType::MemcpyP2P,
            gpu(1),
        ),
        (
            CopyKind::DeviceToDevice,
            Some(0),
            Some(1),
            EventType::MemcpyP2P,
            gpu(0),
        ),
        (
            CopyKind::HostToHost,
            None,
            None,
            EventType::MemcpyOther,
            RocmTracerEvent::INVALID_DEVICE_ID,
        ),
    ];
    let unattributed_before = correlation::unattributed_requests();
    for (kind, src, dst, event_type, device) in cases {
        let id = driver::memcpy_async(stream, &copy(kind, src, dst)).unwrap();
        expected.insert(id, (event_type, device, stream_id));
    }
    // A synchronous copy has no stream argument: inside its HIP call it gets the null stream,
    // and is not counted as unattributed work.
    let sync = driver::memcpy_sync(&copy(CopyKind::HostToDevice, None, Some(0))).unwrap();
    assert_eq!(correlation::unattributed_requests(), unattributed_before);
    expected.insert(sync, (EventType::MemcpyH2D, gpu(0), 0));
    driver::stream_synchronize(stream).unwrap();
    for device in 0..2 {
        driver::set_device(device).unwrap();
        driver::device_synchronize().unwrap();
    }
    tracer.disable();

    let copies: Vec<_> = sink
        .activities()
        .into_iter()
        .filter(|e| e.event_type.is_memcpy())
        .collect();
    assert_eq!(copies.len(), expected.len(), "{copies:#?}");
    for event in copies {
        let (event_type, device, stream) = expected[&event.correlation_id];
        assert_eq!(event.event_type, event_type, "{event:?}");
        assert_eq!(&*event.name, event_type.name());
        assert_eq!(event.device_id, device, "{event:?}");
        assert_eq!(event.stream_id, stream, "{event:?}");
        assert_eq!(event.domain, xla_rocm_tracer::event::EventDomain::HipOps);
        let EventDetails::Memcpy(details) = event.details else {
            panic!("memcpy details expected: {event:?}");
        };
        assert_eq!(details.num_bytes, 3 << 20);
    }
    for id in expected.keys() {
        let api = sink
            .by_correlation(*id)
            .into_iter()
            .find(|e| e.source == EventSource::ApiCallback)
            .unwrap();
        assert_eq!(api.event_type, EventType::MemcpyOther);
    }
}

#[test]
fn request_callbacks_on_a_worker_thread_are_counted() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun(
        "child_request_callbacks_on_a_worker_thread",
        &[("ROCSIM_MACHINE", "direct_dispatch = false")],
    );
    child::assert_passed("no direct dispatch", &output);
}

#[test]
fn child_request_callbacks_on_a_worker_thread() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    let (_, kernels) = driver::load_code_object(0, &["k"]).unwrap();
    let sink = start_recording(tracer);
    let before = correlation::unattributed_requests();
    let stream = driver::stream_create().unwrap();
    let launch = driver::KernelLaunch {
        kernel: kernels[0],
        grid: [64, 1, 1],
        block: [64, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 1_000,
    };
    driver::launch_kernel(stream, &launch).unwrap();
    driver::wait_idle();
    driver::device_synchronize().unwrap();
    tracer.disable();
    assert!(correlation::unattributed_requests() > before);
    assert_eq!(sink.activities().len(), 1);
}

/// What a trace should show for copies as the HIP runtime submits them (one GPU, the
/// simulator's default copy model): each copy call the GPU does is one memcpy event of the
/// call's direction and size, a copy the CPU does has none, and every HIP call is kept.
#[test]
fn copies_as_hip_submits_them_keep_direction_size_and_api_events() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun("child_copies_as_hip_submits_them", &[]);
    child::assert_passed("default copy model", &output);
}

#[test]
fn child_copies_as_hip_submits_them() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    let collector = start_collecting(tracer);
    let stream = driver::stream_create().unwrap();
    let pageable = CopyCall {
        host: HostMemory::Pageable,
        ..CopyCall::default()
    };
    let small = |kind| Copy {
        bytes: 4096,
        ..copy(kind, None, None)
    };
    let big = Copy {
        bytes: 64 << 20,
        ..copy(CopyKind::HostToDevice, None, None)
    };
    let calls = [
        (
            driver::memcpy_async(stream, &small(CopyKind::HostToDevice)).unwrap(),
            Some((EventType::MemcpyH2D, 4096)),
        ),
        (
            driver::memcpy_async(stream, &small(CopyKind::DeviceToHost)).unwrap(),
            Some((EventType::MemcpyD2H, 4096)),
        ),
        (
            driver::memcpy_async_with(stream, &small(CopyKind::HostToDevice), &pageable).unwrap(),
            // Staged and blitted like a pinned one (CLR `KernelBlitManager::writeBuffer`).
            Some((EventType::MemcpyH2D, 4096)),
        ),
        (
            driver::memcpy_async_with(stream, &big, &pageable).unwrap(),
            Some((EventType::MemcpyH2D, 64 << 20)),
        ),
        (
            driver::memcpy_async(stream, &small(CopyKind::HostToHost)).unwrap(),
            None,
        ),
    ];
    driver::stream_synchronize(stream).unwrap();
    tracer.disable();
    for (id, expected) in calls {
        let events = joined(&collector, id);
        assert!(
            events.iter().any(|e| e.source == EventSource::ApiCallback),
            "the hipMemcpyAsync API event of call {id} is kept: {events:#?}"
        );
        let activities: Vec<_> = events
            .iter()
            .filter(|e| e.source == EventSource::Activity)
            .collect();
        match expected {
            Some((event_type, bytes)) => {
                assert_eq!(activities.len(), 1, "one copy event per call: {events:#?}");
                assert_eq!(activities[0].event_type, event_type, "{events:#?}");
                let EventDetails::Memcpy(details) = activities[0].details else {
                    panic!("memcpy details expected");
                };
                assert_eq!(details.num_bytes, bytes);
            }
            None => assert!(activities.is_empty()),
        }
    }
    // Only hipStreamCreate, hipStreamSynchronize and the hipHostMalloc of the pinned buffer the
    // simulated program allocates at its first pinned copy, which submit no GPU work, go
    // unjoined.
    let drops = collector.drop_counters();
    let unjoined = drops.count(DropReason::ApiWithoutActivity);
    assert_eq!((drops.by_reason().len(), unjoined), (1, 3), "{drops:?}");
}

/// Every release's HIP runtime runs a small host<->device copy as a `__amd_rocclr_copyBuffer`
/// blit kernel (a KERNEL_DISPATCH record; docs/simulator-fidelity.md, row "Small copies"): the
/// device timeline still shows a 4 KiB MemcpyH2D (and D2H), named by the HIP call, with the
/// kernel kept as the recorded direction. The oldest and newest releases, each in a child.
#[test]
fn a_small_copy_run_as_a_blit_kernel_stays_a_copy_of_its_call_direction() {
    if child::is_any_child() {
        return;
    }
    for rocm in ["7.0", "10.1"] {
        let machine = format!("rocm = \"{rocm}\"");
        let output = child::rerun(
            "child_small_copy_blit_kernel",
            &[("ROCSIM_MACHINE", machine.as_str())],
        );
        child::assert_passed("small copy as a blit kernel", &output);
    }
}

#[test]
fn child_small_copy_blit_kernel() {
    use rocprofiler_sdk_sim::machine::machine;
    if !child::is_any_child() {
        return;
    }
    assert!(machine().sdma_threshold >= 4096);
    let tracer = Tracer::get();
    let collector = start_collecting(tracer);
    let stream = driver::stream_create().unwrap();
    let small = |kind| Copy {
        bytes: 4096,
        ..copy(kind, None, None)
    };
    let calls = [
        (
            driver::memcpy_async(stream, &small(CopyKind::HostToDevice)).unwrap(),
            EventType::MemcpyH2D,
        ),
        (
            driver::memcpy_async(stream, &small(CopyKind::DeviceToHost)).unwrap(),
            EventType::MemcpyD2H,
        ),
        // XLA's own upload call: its size is read from its own argument layout.
        (
            driver::memcpy_async_as(
                rocprofiler_sdk_sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync,
                stream,
                &small(CopyKind::HostToDevice),
                &CopyCall::default(),
            )
            .unwrap(),
            EventType::MemcpyH2D,
        ),
    ];
    driver::stream_synchronize(stream).unwrap();
    tracer.disable();
    for (id, direction) in calls {
        let events = joined(&collector, id);
        let activities: Vec<_> = events
            .iter()
            .filter(|e| e.source == EventSource::Activity)
            .collect();
        assert_eq!(activities.len(), 1, "{events:#?}");
        let event = activities[0];
        assert_eq!(event.event_type, direction, "{events:#?}");
        assert_eq!(&*event.name, direction.name());
        let EventDetails::Memcpy(details) = event.details else {
            panic!("memcpy details expected: {events:#?}");
        };
        assert_eq!(details.num_bytes, 4096);
        assert_eq!(
            xla_rocm_tracer::collector::recorded_direction(event),
            Some(EventType::Kernel),
            "the SDK recorded a kernel dispatch"
        );
    }
}

/// Under indirect dispatch (`AMD_DIRECT_DISPATCH=0`) HIP's worker thread submits the work and
/// the SDK gives each kernel and copy record a fresh correlation id made there: no record ties
/// the kernel to its hipLaunchKernel call, so the trace cannot attribute it (this test once
/// asked for that; on the real SDK it is impossible). The kernel is still delivered, marked
/// as submitted by no HIP call so the collector puts it on an "unattributed" lane of its queue.
#[test]
fn indirect_dispatch_delivers_kernels_marked_unattributed() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun(
        "child_indirect_dispatch_unattributed",
        &[("ROCSIM_MACHINE", "direct_dispatch = false")],
    );
    child::assert_passed("no direct dispatch", &output);
}

#[test]
fn child_indirect_dispatch_unattributed() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    let (_, kernels) = driver::load_code_object(0, &["k"]).unwrap();
    let sink = start_recording(tracer);
    let unattributed_before = correlation::unattributed_requests();
    let stream = driver::stream_create().unwrap();
    let launch = driver::KernelLaunch {
        kernel: kernels[0],
        grid: [64, 1, 1],
        block: [64, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 1_000,
    };
    let id = driver::launch_kernel(stream, &launch).unwrap();
    driver::stream_synchronize(stream).unwrap();
    driver::wait_idle();
    tracer.disable();
    assert_eq!(
        correlation::unattributed_requests(),
        unattributed_before + 1
    );
    let launch_events = sink.by_correlation(id);
    assert!(
        launch_events
            .iter()
            .any(|e| e.source == EventSource::ApiCallback && &*e.name == "hipLaunchKernel"),
        "{launch_events:#?}"
    );
    let kernels: Vec<_> = sink
        .activities()
        .into_iter()
        .filter(|e| e.event_type == EventType::Kernel)
        .collect();
    assert_eq!(kernels.len(), 1, "{:#?}", sink.events());
    let kernel = &kernels[0];
    assert_ne!(kernel.correlation_id, id, "the worker made the record's id");
    assert_eq!(kernel.stream_id, RocmTracerEvent::UNATTRIBUTED_STREAM_ID);
    assert_ne!(kernel.queue_id, 0, "the lane is its HSA queue's");
    assert_eq!(sink.total_drops(), 0, "{:?}", sink.drops.lock());
}

/// A device-to-device copy within one GPU is a blit kernel on ROCm, and XLA shows it as a
/// kernel without a byte count. Here the kernel's device event is named by its call
/// (MemcpyD2D) and carries `memcpy_details` with the size the call asked for, and the
/// host-side call event has it too.
#[test]
fn a_same_gpu_copy_run_as_a_blit_kernel_shows_its_size() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun("child_same_gpu_copy_shows_its_size", &[]);
    child::assert_passed("same-GPU copy", &output);
}

#[test]
fn child_same_gpu_copy_shows_its_size() {
    use std::sync::Arc;
    use xla_rocm_tracer::collector::{CaptureStart, Collector, CollectorOptions};
    use xla_rocm_tracer::export::{xplane_proto::x_stat::Value, ExportOptions};
    use xla_rocm_tracer::tracer::TracerOptions;
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    let collector = Arc::new(Collector::new(
        CollectorOptions {
            num_gpus: tracer.num_gpus(),
            ..CollectorOptions::default()
        },
        CaptureStart {
            walltime_ns: 0,
            gputime_ns: Tracer::timestamp(),
        },
    ));
    tracer
        .enable(TracerOptions::default(), collector.clone())
        .unwrap();
    let stream = driver::stream_create().unwrap();
    let bytes = 5 << 20;
    driver::memcpy_async(
        stream,
        &Copy {
            bytes,
            ..copy(CopyKind::DeviceToDevice, Some(0), Some(0))
        },
    )
    .unwrap();
    driver::stream_synchronize(stream).unwrap();
    tracer.disable();

    let space = collector.export(Tracer::timestamp(), &ExportOptions::default());
    let details_of = |plane_name: &str| -> Vec<(String, String)> {
        let plane = space.planes.iter().find(|p| p.name == plane_name).unwrap();
        let mut found = Vec::new();
        for event in plane.lines.iter().flat_map(|line| &line.events) {
            let name = plane.event_metadata[&event.metadata_id].name.clone();
            for stat in &event.stats {
                let key = &plane.stat_metadata[&stat.metadata_id].name;
                if key.ends_with("_details") {
                    let text = match &stat.value {
                        Some(Value::StrValue(text)) => text.clone(),
                        Some(Value::RefValue(id)) => {
                            plane.stat_metadata[&(*id as i64)].name.clone()
                        }
                        other => panic!("{other:?}"),
                    };
                    found.push((name.clone(), format!("{key}={text}")));
                }
            }
        }
        found
    };
    let device = details_of("/device:GPU:0");
    assert_eq!(device.len(), 1, "{device:?}");
    // Named by its call, in the one form of every copy's details.
    assert_eq!(device[0].0, "MemcpyD2D");
    assert_eq!(
        device[0].1,
        format!("memcpy_details=kind_src:device kind_dst:device size:{bytes} dest:0 async:1"),
        "{device:?}"
    );
    let host = details_of("/host:ROCTRACER");
    assert!(
        host.iter().any(
            |(name, text)| name == "hipMemcpyAsync" && text.contains(&format!("size:{bytes} "))
        ),
        "{host:?}"
    );
}
