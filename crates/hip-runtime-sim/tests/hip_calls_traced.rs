//! HIP calls of the simulated runtime, seen through the real tracer: each call is traced with
//! its real operation id, kernels and copies carry the stream of the call (via the SET the
//! runtime emits) and its correlation id, a graph's kernels share one id, data is computed for
//! real, and bad use returns HIP's errors with a sticky last error. One process, one session.

use amdhip64::abi::{
    Dim3, HipDevicePropR0600, HipFatbinWrapper, HipKernelNodeParams, HIP_FATBIN_MAGIC,
};
use amdhip64::api::{
    device::*, error::*, event::*, graph::*, launch::*, memory::*, registration::*, stream::*,
};
use amdhip64::error::*;
use parking_lot::Mutex;
use rocprofiler_sdk_sim::driver::sdk_stream_id;
use std::ffi::{c_void, CStr};
use std::sync::Arc;
use xla_rocm_tracer::drop_reason::DropReason;
use xla_rocm_tracer::event::{EventDetails, EventType, RocmTracerEvent};
use xla_rocm_tracer::sink::{EventSink, SessionEnd};
use xla_rocm_tracer::tracer::{Tracer, TracerOptions};

#[derive(Default)]
struct RecordingSink(Mutex<Vec<RocmTracerEvent>>);

impl EventSink for RecordingSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        self.0.lock().append(batch);
    }
    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        panic!("{count} events dropped: {reason}");
    }
    fn end_session(&self, _end: SessionEnd) {}
}

// Host stubs: their addresses identify the kernels, so each must be a function of its own.
// Identical empty bodies would let the optimizer merge them into one function in a release
// build (one address for every kernel); a distinct opaque value in each keeps them apart.
#[inline(never)]
extern "C" fn axpy_stub() {
    std::hint::black_box(1u32);
}
#[inline(never)]
extern "C" fn fill_stub() {
    std::hint::black_box(2u32);
}
#[inline(never)]
extern "C" fn unregistered_stub() {
    std::hint::black_box(3u32);
}

/// out[i] = a * x[i] + out[i], for the host body of `axpy`.
unsafe extern "C" fn axpy_body(grid: Dim3, block: Dim3, _shared: usize, args: *mut *mut c_void) {
    // SAFETY: the runtime calls a host body with the launch's argument array: four pointers to
    // the `a`, `x`, `out` and `n` the launch passed, with `x` and `out` holding `n` floats.
    unsafe {
        let a = *(*args.add(0)).cast::<f32>();
        let x = *(*args.add(1)).cast::<*const f32>();
        let out = *(*args.add(2)).cast::<*mut f32>();
        let n = *(*args.add(3)).cast::<u32>();
        for i in 0..(grid.x * block.x).min(n) as usize {
            *out.add(i) += a * *x.add(i);
        }
    }
}

fn launch(stub: extern "C" fn(), blocks: u32, args: &mut [*mut c_void], stream: u64) -> hipError_t {
    let grid = Dim3 {
        x: blocks,
        y: 1,
        z: 1,
    };
    let block = Dim3 { x: 64, y: 1, z: 1 };
    // SAFETY: `stub` is a host stub; `args` holds the kernel's argument pointers, live for the
    // call.
    unsafe {
        hipLaunchKernel(
            stub as *const c_void,
            grid,
            block,
            args.as_mut_ptr(),
            0,
            stream,
        )
    }
}

// This test checks the runtime's plumbing (operation ids, SET, correlation, stream ids, real
// data), so it runs on a machine whose copy model gives one SDMA record per copy: its 4 KiB
// copies would otherwise be CPU copies (pageable, no record) or GPU blits recorded as
// device-to-device, which the tracer does not yet handle as real hardware needs (issue 13).
// The copy paths themselves are tested in tests/copies_as_hip_submits_them.rs.
// The program's bad calls also include a launch on a never-created stream, which the SDK 1.0.0
// stream map (ROCm 7.0; 7.1 and 7.2 for streams it never saw) answers by aborting the process (see
// tests/stream_map.rs), so the child also has the newer SDKs' map.
use sim_test_kit::child;

#[test]
fn hip_program_through_the_tracer() {
    if !child::in_child(
        "hip_program_through_the_tracer",
        &[(
            "ROCSIM_MACHINE",
            "sdma_threshold = 0, stream_map = \"newer\"",
        )],
    ) {
        return;
    }
    // Each kernel needs its own host-stub address (see the stubs above).
    let stubs = [
        axpy_stub as extern "C" fn() as usize,
        fill_stub as extern "C" fn() as usize,
        unregistered_stub as extern "C" fn() as usize,
    ];
    assert!(stubs[0] != stubs[1] && stubs[1] != stubs[2] && stubs[0] != stubs[2]);
    // Registration, as hipcc-generated constructors do it.
    let wrapper = HipFatbinWrapper {
        magic: HIP_FATBIN_MAGIC,
        version: 1,
        binary: std::ptr::null(),
        unused: std::ptr::null_mut(),
    };
    // SAFETY: `wrapper` is a fat-binary wrapper with HIP's layout, live for the program.
    let handle = unsafe { __hipRegisterFatBinary((&wrapper as *const HipFatbinWrapper).cast()) };
    assert!(!handle.is_null());
    for (stub, name) in [
        (axpy_stub as extern "C" fn(), c"_Z4axpyfPKfPfj"),
        (fill_stub, c"_ZN4demo4fillIfEEvPT_S1_i"),
    ] {
        // SAFETY: a handle from __hipRegisterFatBinary, a stub address and static NUL-terminated
        // names; the optional pointers are null as hipcc passes them.
        unsafe {
            __hipRegisterFunction(
                handle,
                stub as *const c_void,
                name.as_ptr().cast_mut(),
                name.as_ptr(),
                u32::MAX,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
    }
    assert_eq!(
        rocsimHipSetKernelHostBody(axpy_stub as *const c_void, Some(axpy_body), 30_000),
        HIP_SUCCESS
    );

    let mut count = 0;
    // SAFETY: `count` is a live local for HIP to write.
    assert_eq!(unsafe { hipGetDeviceCount(&mut count) }, HIP_SUCCESS);
    assert_eq!(count, 1);
    let mut props = HipDevicePropR0600::zeroed();
    assert_eq!(
        // SAFETY: `props` is a live HipDevicePropR0600 for HIP to fill.
        unsafe { hipGetDevicePropertiesR0600(&mut props, 0) },
        HIP_SUCCESS
    );
    assert_eq!(
        // SAFETY: HIP wrote the architecture name as a NUL-terminated string in `props`.
        unsafe { CStr::from_ptr(props.gcnArchName.as_ptr()) }
            .to_str()
            .unwrap(),
        "gfx942:sramecc+:xnack-"
    );
    assert_eq!(props.multiProcessorCount, 304);

    let sink = Arc::new(RecordingSink::default());
    Tracer::get()
        .enable(TracerOptions::default(), sink.clone())
        .expect("enable");

    let (mut s1, mut s2) = (0u64, 0u64);
    // SAFETY: `s1` is a live local for HIP to write.
    assert_eq!(unsafe { hipStreamCreate(&mut s1) }, HIP_SUCCESS);
    // SAFETY: `s2` is a live local for HIP to write.
    assert_eq!(unsafe { hipStreamCreateWithFlags(&mut s2, 1) }, HIP_SUCCESS);
    let (id1, id2) = (sdk_stream_id(s1).unwrap(), sdk_stream_id(s2).unwrap());
    assert_ne!(id1, id2);

    const N: usize = 1024;
    let x: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut result = vec![0f32; N];
    let (mut d_x, mut d_out) = (std::ptr::null_mut(), std::ptr::null_mut());
    let bytes = N * 4;
    // SAFETY: live locals for the allocations; `x` and the allocations hold `bytes` bytes.
    unsafe {
        assert_eq!(hipMalloc(&mut d_x, bytes), HIP_SUCCESS);
        assert_eq!(hipMalloc(&mut d_out, bytes), HIP_SUCCESS);
        assert_eq!(hipMemsetAsync(d_out, 0, bytes, s1), HIP_SUCCESS);
        assert_eq!(
            hipMemcpyAsync(d_x, x.as_ptr().cast(), bytes, 1, s2),
            HIP_SUCCESS
        );
    }
    let mut a = 2.0f32;
    let mut n = N as u32;
    let mut args = [
        (&mut a as *mut f32).cast(),
        (&mut d_x as *mut *mut c_void).cast(),
        (&mut d_out as *mut *mut c_void).cast(),
        (&mut n as *mut u32).cast(),
    ];
    assert_eq!(
        launch(axpy_stub, (N / 64) as u32, &mut args, s1),
        HIP_SUCCESS
    );

    // A graph of three axpy nodes on s2: out += 3 * 2x.
    let mut graph = 0u64;
    let mut exec = 0u64;
    // SAFETY: live locals for HIP's handles; the kernel parameters are `args`, live until the
    // graph ran.
    unsafe {
        assert_eq!(hipGraphCreate(&mut graph, 0), HIP_SUCCESS);
        let params = HipKernelNodeParams {
            blockDim: Dim3 { x: 64, y: 1, z: 1 },
            extra: std::ptr::null_mut(),
            func: axpy_stub as *mut c_void,
            gridDim: Dim3 {
                x: (N / 64) as u32,
                y: 1,
                z: 1,
            },
            kernelParams: args.as_mut_ptr(),
            sharedMemBytes: 0,
        };
        let mut previous = 0u64;
        for i in 0..3 {
            let mut node = 0u64;
            let deps = [previous];
            let (dep_ptr, dep_count) = if i == 0 {
                (std::ptr::null(), 0)
            } else {
                (deps.as_ptr(), 1)
            };
            assert_eq!(
                hipGraphAddKernelNode(&mut node, graph, dep_ptr, dep_count, &params),
                HIP_SUCCESS
            );
            previous = node;
        }
        assert_eq!(
            hipGraphInstantiate(
                &mut exec,
                graph,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0
            ),
            HIP_SUCCESS
        );
        assert_eq!(hipGraphLaunch(exec, s2), HIP_SUCCESS);
        assert_eq!(
            hipMemcpyAsync(result.as_mut_ptr().cast(), d_out, bytes, 2, s2),
            HIP_SUCCESS
        );
        assert_eq!(hipStreamSynchronize(s2), HIP_SUCCESS);
        // Synchronous copy: no stream argument.
        let mut check = vec![0f32; N];
        assert_eq!(
            hipMemcpy(check.as_mut_ptr().cast(), d_out, bytes, 4),
            HIP_SUCCESS
        );
        assert_eq!(check, result);
        // hipMemset: no stream argument, a fill kernel on the null stream, blocking.
        let mut d_fill = std::ptr::null_mut();
        assert_eq!(hipMalloc(&mut d_fill, 64), HIP_SUCCESS);
        assert_eq!(hipMemset(d_fill, 0x5a, 64), HIP_SUCCESS);
        let mut filled = [0u8; 64];
        assert_eq!(
            hipMemcpy(filled.as_mut_ptr().cast(), d_fill, 64, 2),
            HIP_SUCCESS
        );
        assert_eq!(filled, [0x5a; 64]);
        assert_eq!(hipFree(d_fill), HIP_SUCCESS);
    }
    for (i, v) in result.iter().enumerate() {
        assert_eq!(*v, 8.0 * i as f32, "result[{i}]");
    }

    // Bad use: HIP's errors, sticky last error, no device work.
    // SAFETY: HIP rejects each bad call before touching memory (sizes beyond the allocation,
    // bad directions, null out-pointers); the good ones get live locals, the error strings are
    // static.
    unsafe {
        assert_eq!(hipSetDevice(1), HIP_ERROR_INVALID_DEVICE);
        assert_eq!(hipMalloc(std::ptr::null_mut(), 4), HIP_ERROR_INVALID_VALUE);
        assert_eq!(hipGetDeviceCount(&mut count), HIP_SUCCESS);
        assert_eq!(hipPeekAtLastError(), HIP_ERROR_INVALID_VALUE);
        assert_eq!(hipGetLastError(), HIP_ERROR_INVALID_VALUE);
        assert_eq!(hipGetLastError(), HIP_SUCCESS);
        assert_eq!(
            hipMemcpy(d_x, x.as_ptr().cast(), bytes + 1, 1),
            HIP_ERROR_INVALID_VALUE
        );
        assert_eq!(
            hipMemcpy(d_x, x.as_ptr().cast(), 4, 7),
            HIP_ERROR_INVALID_MEMCPY_DIRECTION
        );
        assert_eq!(
            launch(fill_stub, 0, &mut [], s1),
            HIP_ERROR_INVALID_CONFIGURATION
        );
        assert_eq!(
            launch(fill_stub, 1, &mut [], 0xdead_beef),
            HIP_ERROR_CONTEXT_IS_DESTROYED
        );
        assert_eq!(
            launch(unregistered_stub, 1, &mut [], s1),
            HIP_ERROR_INVALID_DEVICE_FUNCTION
        );
        assert_eq!(hipStreamDestroy(0), HIP_ERROR_INVALID_HANDLE);
        assert_eq!(hipGraphLaunch(0x1234, s1), HIP_ERROR_INVALID_VALUE);
        assert_eq!(hipEventRecord(0x1234, s1), HIP_ERROR_INVALID_HANDLE);
        assert_eq!(
            hipFree(d_x.cast::<u8>().add(4).cast()),
            HIP_ERROR_INVALID_VALUE
        );
        assert_eq!(
            CStr::from_ptr(hipGetErrorString(HIP_ERROR_INVALID_DEVICE))
                .to_str()
                .unwrap(),
            "invalid device ordinal"
        );
        assert_eq!(
            CStr::from_ptr(hipGetErrorName(HIP_ERROR_CONTEXT_IS_DESTROYED))
                .to_str()
                .unwrap(),
            "hipErrorContextIsDestroyed"
        );
        let mut blocks = 0;
        assert_eq!(
            hipOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                axpy_stub as *const c_void,
                256,
                0
            ),
            HIP_SUCCESS
        );
        assert_eq!(blocks, 8);
        assert_eq!(hipDeviceSynchronize(), HIP_SUCCESS);
        assert_eq!(hipStreamDestroy(s1), HIP_SUCCESS);
        assert_eq!(hipStreamSynchronize(s1), HIP_ERROR_CONTEXT_IS_DESTROYED);
        assert_eq!(hipGetLastError(), HIP_ERROR_CONTEXT_IS_DESTROYED);
        assert_eq!(hipStreamDestroy(s2), HIP_SUCCESS);
        assert_eq!(hipFree(d_x), HIP_SUCCESS);
        assert_eq!(hipFree(d_out), HIP_SUCCESS);
    }
    // Kernel records can reach the SDK's buffer after hipDeviceSynchronize returned, as on real
    // hardware; this test is about the runtime's plumbing, not the session's tail (issue 13's
    // known failures cover that), so it waits until the simulator pushed every record.
    rocprofiler_sdk_sim::driver::wait_idle();
    Tracer::get().disable();
    __hipUnregisterFatBinary(handle);

    let events = sink.0.lock().clone();
    let api = |name: &str| -> Vec<&RocmTracerEvent> {
        events
            .iter()
            .filter(|e| e.domain.name() == "HIP_API" && &*e.name == name)
            .collect()
    };
    let activity = |t: EventType| -> Vec<&RocmTracerEvent> {
        events
            .iter()
            .filter(|e| e.event_type == t && e.domain.name() != "HIP_API")
            .collect()
    };
    // Every HIP call is traced with its real name, failed ones too.
    assert_eq!(
        api("hipMalloc").len(),
        4,
        "three allocations and one failed call"
    );
    assert_eq!(api("hipSetDevice").len(), 1);
    // Each creation under its own operation id.
    assert_eq!(api("hipStreamCreate").len(), 1);
    assert_eq!(api("hipStreamCreateWithFlags").len(), 1);
    assert_eq!(api("hipMemcpy").len(), 4);
    assert_eq!(api("hipMemset").len(), 1);
    // One success, two failures on s1, one failure on an unknown stream: calls on unknown
    // streams are traced too (without a SET).
    assert_eq!(api("hipLaunchKernel").len(), 4);
    // s2 succeeded; s1 had been destroyed.
    assert_eq!(api("hipStreamSynchronize").len(), 2);
    assert_eq!(api("hipGraphLaunch").len(), 2);
    assert_eq!(api("hipGetLastError").len(), 3);

    let kernels = activity(EventType::Kernel);
    let axpy: Vec<_> = kernels
        .iter()
        .filter(|k| k.name.starts_with("axpy("))
        .collect();
    assert_eq!(
        axpy.len(),
        4,
        "one launch + three graph nodes: {kernels:#?}"
    );
    let launch_id = api("hipLaunchKernel")[0].correlation_id;
    let single: Vec<_> = axpy
        .iter()
        .filter(|k| k.correlation_id == launch_id)
        .collect();
    assert_eq!(single.len(), 1);
    assert_eq!(single[0].stream_id, id1, "the launch's kernel carries s1");
    let graph_launch = api("hipGraphLaunch")
        .into_iter()
        .find(|e| axpy.iter().any(|k| k.correlation_id == e.correlation_id))
        .expect("graph correlated");
    let graph_kernels: Vec<_> = axpy
        .iter()
        .filter(|k| k.correlation_id == graph_launch.correlation_id)
        .collect();
    assert_eq!(graph_kernels.len(), 3);
    assert!(graph_kernels.iter().all(|k| k.stream_id == id2));
    // The memset is a fill blit kernel on s1.
    let fills: Vec<_> = kernels
        .iter()
        .filter(|k| k.name.contains("__amd_rocclr_fillBuffer"))
        .collect();
    assert_eq!(fills.len(), 2);
    let async_fill = fills
        .iter()
        .find(|k| k.correlation_id == api("hipMemsetAsync")[0].correlation_id)
        .expect("hipMemsetAsync's fill kernel");
    assert_eq!(async_fill.stream_id, id1);
    let sync_fill = fills
        .iter()
        .find(|k| k.correlation_id == api("hipMemset")[0].correlation_id)
        .expect("hipMemset's fill kernel");
    assert_eq!(sync_fill.stream_id, 0, "no SET: the null stream");

    let h2d = activity(EventType::MemcpyH2D);
    assert_eq!(h2d.len(), 1);
    assert_eq!(h2d[0].stream_id, id2);
    let d2h = activity(EventType::MemcpyD2H);
    assert_eq!(
        d2h.len(),
        3,
        "async on s2 and two synchronous hipMemcpy calls"
    );
    let sync_copy = d2h
        .iter()
        .find(|c| {
            c.stream_id != id2
                && matches!(c.details, EventDetails::Memcpy(d) if d.num_bytes == bytes as u64)
        })
        .expect("sync copy");
    assert_eq!(sync_copy.stream_id, 0, "no SET: the null stream");
    let sync_api: Vec<_> = api("hipMemcpy")
        .into_iter()
        .filter(|a| a.correlation_id == sync_copy.correlation_id)
        .collect();
    assert_eq!(sync_api.len(), 1);
    // Failed calls enqueue nothing: every activity belongs to a successful call.
    assert_eq!(kernels.len(), 6);
}
