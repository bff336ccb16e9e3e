//! Copy details as XLA's CUDA tracer writes them (docs/xla-interface.md#copy-details): each
//! copy named by its HIP call, the memory kind of each side from the HIP allocation calls the
//! SDK traced (device, pinned, managed; pageable for host memory HIP never saw), `async` for
//! the `...Async` functions and `dest` the destination GPU's ordinal. On two simulated GPUs,
//! in a re-executed child (the machine is fixed when the SDK initializes).
mod tracer_common;

use std::ffi::c_void;

use rocprofiler_sdk_sim::driver::{self, Copy, CopyCall, CopyKind, HostMemory};
use rocprofiler_sdk_sys as sys;
use sim_test_kit::child;
use tracer_common::{joined, start_collecting};
use xla_rocm_tracer::event::{EventDetails, EventSource, EventType};
use xla_rocm_tracer::export::memcpy_details_string;
use xla_rocm_tracer::tracer::Tracer;

#[test]
fn copies_say_their_memory_kinds_direction_async_and_destination() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun("child_copy_details", &[("ROCSIM_MACHINE", "gpus = 2")]);
    child::assert_passed("copy details", &output);
}

/// A traced allocation call: HIP wrote `address` through the `void**` the program passed.
fn allocate(operation: i32, out: &mut *mut c_void, address: usize, size: usize) {
    *out = address as *mut c_void;
    // SAFETY: the union holds only integers and pointers; zero is valid.
    let mut args: sys::rocprofiler_hip_api_args_t = unsafe { std::mem::zeroed() };
    if operation == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc {
        args.hipMalloc = sys::rocprofiler_hip_api_args_hipMalloc_t { ptr: out, size };
    } else {
        args.hipMallocFlags = sys::rocprofiler_hip_api_args_hipMallocFlags_t {
            ptr: out,
            size,
            flags: 0,
        };
    }
    driver::api_call_with_args(operation, None, args).unwrap();
}

#[test]
fn child_copy_details() {
    if !child::is_any_child() {
        return;
    }
    const DEVICE0: u64 = 0x7100_0000_0000;
    const DEVICE1: u64 = 0x7200_0000_0000;
    const PINNED: u64 = 0x7300_0000_0000;
    const MANAGED: u64 = 0x7400_0000_0000;
    const PAGEABLE: u64 = 0x7500_0000_0000;
    const SIZE: usize = 64 << 20;
    let tracer = Tracer::get();
    assert_eq!(tracer.num_gpus(), 2);
    // Allocated before the session: the kinds are known in it all the same.
    let mut outs = [std::ptr::null_mut(); 4];
    allocate(
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc,
        &mut outs[0],
        DEVICE0 as usize,
        SIZE,
    );
    driver::set_device(1).unwrap();
    allocate(
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc,
        &mut outs[1],
        DEVICE1 as usize,
        SIZE,
    );
    driver::set_device(0).unwrap();
    let collector = start_collecting(tracer);
    allocate(
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc,
        &mut outs[2],
        PINNED as usize,
        SIZE,
    );
    allocate(
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocManaged,
        &mut outs[3],
        MANAGED as usize,
        SIZE,
    );
    let stream = driver::stream_create().unwrap();
    let copy = |kind, bytes, src_device, dst_device| Copy {
        kind,
        bytes,
        src_device,
        dst_device,
        duration_ns: 3_000,
    };
    let call = |src: u64, dst: u64, host| CopyCall {
        host,
        dst,
        src,
        hip_kind: None,
    };
    let big = 3 << 20;
    let h2d = copy(CopyKind::HostToDevice, big, None, Some(0));
    let d2h = copy(CopyKind::DeviceToHost, big, Some(0), None);
    // (correlation id, the device event's name, its memcpy_details)
    let cases = [
        (
            driver::memcpy_async_with(stream, &h2d, &call(PINNED, DEVICE0, HostMemory::Pinned))
                .unwrap(),
            "MemcpyH2D",
            format!("kind_src:pinned kind_dst:device size:{big} dest:0 async:1"),
        ),
        (
            driver::memcpy_sync_with(&h2d, &call(PAGEABLE, DEVICE0, HostMemory::Pageable)).unwrap(),
            "MemcpyH2D",
            format!("kind_src:pageable kind_dst:device size:{big} dest:0 async:0"),
        ),
        (
            driver::memcpy_sync_with(&d2h, &call(DEVICE0 + 64, PINNED + 64, HostMemory::Pinned))
                .unwrap(),
            "MemcpyD2H",
            format!("kind_src:device kind_dst:pinned size:{big} dest:0 async:0"),
        ),
        (
            driver::memcpy_async_with(stream, &d2h, &call(MANAGED, PAGEABLE, HostMemory::Pageable))
                .unwrap(),
            "MemcpyD2H",
            format!("kind_src:managed kind_dst:pageable size:{big} dest:0 async:1"),
        ),
        // A small copy HIP runs as a blit kernel: named by its call, in the same form.
        (
            driver::memcpy_async_with(
                stream,
                &copy(CopyKind::HostToDevice, 4096, None, Some(0)),
                &call(PINNED, DEVICE0, HostMemory::Pinned),
            )
            .unwrap(),
            "MemcpyH2D",
            "kind_src:pinned kind_dst:device size:4096 dest:0 async:1".to_owned(),
        ),
        // A same-GPU device-to-device copy, a blit kernel on every release.
        (
            driver::memcpy_sync_with(
                &copy(CopyKind::DeviceToDevice, 5 << 20, Some(0), Some(0)),
                &call(DEVICE0, DEVICE0 + (8 << 20), HostMemory::Pinned),
            )
            .unwrap(),
            "MemcpyD2D",
            format!(
                "kind_src:device kind_dst:device size:{} dest:0 async:0",
                5 << 20
            ),
        ),
        // A peer copy from GPU 0 to GPU 1.
        (
            driver::memcpy_async_as(
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeerAsync,
                stream,
                &copy(CopyKind::DeviceToDevice, big, Some(0), Some(1)),
                &call(DEVICE0, DEVICE1, HostMemory::Pinned),
            )
            .unwrap(),
            "MemcpyP2P",
            format!("kind_src:device kind_dst:device size:{big} dest:1 async:1"),
        ),
        // hipMemcpyDefault: the pointers' memory gives the direction and the kinds.
        (
            driver::memcpy_async_with(
                stream,
                &h2d,
                &CopyCall {
                    hip_kind: Some(4),
                    ..call(PINNED + 64, DEVICE0, HostMemory::Pinned)
                },
            )
            .unwrap(),
            "MemcpyH2D",
            format!("kind_src:pinned kind_dst:device size:{big} dest:0 async:1"),
        ),
        // hipMemcpy device to device from GPU 0 to GPU 1: a peer copy too, as CUPTI names one.
        (
            driver::memcpy_sync_with(
                &copy(CopyKind::DeviceToDevice, big, Some(0), Some(1)),
                &call(DEVICE0, DEVICE1 + 64, HostMemory::Pinned),
            )
            .unwrap(),
            "MemcpyP2P",
            format!("kind_src:device kind_dst:device size:{big} dest:1 async:0"),
        ),
    ];
    driver::stream_synchronize(stream).unwrap();
    driver::device_synchronize().unwrap();
    tracer.disable();
    for (id, name, expected) in &cases {
        let events = joined(&collector, *id);
        let device: Vec<_> = events
            .iter()
            .filter(|e| e.source == EventSource::Activity)
            .collect();
        assert_eq!(device.len(), 1, "{name}: {events:#?}");
        assert_eq!(&*device[0].name, *name, "{events:#?}");
        for event in &events {
            let EventDetails::Memcpy(details) = &event.details else {
                panic!("memcpy details expected: {event:#?}");
            };
            // The device event and its HIP call's event say the same.
            assert_eq!(&memcpy_details_string(details), expected, "{event:#?}");
        }
    }
    // Both peer copies are written once, on their source GPU's plane (GPU 0, where the first
    // upload went), as CUPTI's peer records are.
    let device_event = |id| {
        joined(&collector, id)
            .into_iter()
            .find(|e| e.source == EventSource::Activity)
            .unwrap()
    };
    let gpu0 = device_event(cases[0].0).device_id;
    for (id, _, _) in [&cases[6], &cases[8]] {
        let peer = device_event(*id);
        assert_eq!(peer.event_type, EventType::MemcpyP2P, "{peer:#?}");
        assert_eq!(peer.device_id, gpu0, "{peer:#?}");
    }
}
