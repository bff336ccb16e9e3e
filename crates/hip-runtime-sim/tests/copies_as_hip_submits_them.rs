//! Copies through the simulated HIP runtime, seen by a minimal callback-tracing tool: the
//! runtime tells pinned (`hipHostMalloc`) from pageable host memory, so what the SDK records
//! follows the HIP runtime's copy paths, and the HIP API payload shows the program's own
//! pointers, size and `hipMemcpyKind`. One process, one tool.
// The simulated SDK library supplies the `rocprofiler_*` and `rocsim_*` symbols.
extern crate rocprofiler_sdk_sim;

use amdhip64::api::{memory::*, stream::*};
use amdhip64::error::*;
use sim_test_kit::sys;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::{Mutex, OnceLock};

#[derive(Clone, Debug)]
struct CopySeen {
    operation: i32,
    bytes: u64,
    src_agent: u64,
    dst_agent: u64,
}

/// (name, value text) of each argument of a call.
type Args = Vec<(String, String)>;

#[derive(Default)]
struct Seen {
    /// correlation id -> MEMORY_COPY records (callback EXIT)
    copies: HashMap<u64, Vec<CopySeen>>,
    /// correlation id -> kernel dispatches (callback ENQUEUE, made in the call): the blits
    dispatches: HashMap<u64, usize>,
    /// (operation, correlation id, [(name, value)]) of HIP API EXITs, in order
    calls: Vec<(i32, u64, Args)>,
    gpu: u64,
}

static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();

fn seen() -> std::sync::MutexGuard<'static, Seen> {
    SEEN.get_or_init(Default::default).lock().unwrap()
}

unsafe extern "C" fn on_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    if record.kind == sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH {
        if record.operation == sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE
            && record.phase == sys::ROCPROFILER_CALLBACK_PHASE_EXIT
        {
            *seen()
                .dispatches
                .entry(record.correlation_id.internal)
                .or_default() += 1;
        }
        return;
    }
    if record.phase != sys::ROCPROFILER_CALLBACK_PHASE_EXIT {
        return;
    }
    if record.kind == sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY {
        // SAFETY: a MEMORY_COPY record's payload is the SDK's memory_copy_data struct, live for
        // the callback.
        let p = unsafe {
            &*record
                .payload
                .cast::<sys::rocprofiler_callback_tracing_memory_copy_data_t>()
        };
        seen()
            .copies
            .entry(record.correlation_id.internal)
            .or_default()
            .push(CopySeen {
                operation: record.operation,
                bytes: p.bytes,
                src_agent: p.src_agent_id.handle,
                dst_agent: p.dst_agent_id.handle,
            });
    } else {
        // SAFETY: the callback record the SDK passed, read during the callback.
        let args = unsafe { sim_test_kit::arg_texts(record) };
        seen()
            .calls
            .push((record.operation, record.correlation_id.internal, args));
    }
}

unsafe extern "C" fn tool_init(
    _fini: sys::rocprofiler_client_finalize_t,
    _data: *mut c_void,
) -> c_int {
    let kinds = [
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
        sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
    ];
    let ctx = sim_test_kit::callback_context(&kinds, Some(on_callback));
    if let Some(gpu) = sim_test_kit::agents()
        .into_iter()
        .rfind(|a| a.type_ == sys::ROCPROFILER_AGENT_TYPE_GPU)
    {
        seen().gpu = gpu.id.handle;
    }
    sim_test_kit::start(ctx);
    0
}

/// The copies and arguments of the last `hipMemcpy` traced.
fn last_memcpy() -> (Vec<CopySeen>, Args) {
    let (copies, args, _) = last_memcpy_with_blits();
    (copies, args)
}

/// The same, with the number of kernel dispatches (shader blits) the call made.
fn last_memcpy_with_blits() -> (Vec<CopySeen>, Args, usize) {
    let seen = seen();
    let (_, corr, args) = seen
        .calls
        .iter()
        .rev()
        .find(|c| c.0 == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy)
        .expect("a hipMemcpy was traced")
        .clone();
    let blits = seen.dispatches.get(&corr).copied().unwrap_or_default();
    (
        seen.copies.get(&corr).cloned().unwrap_or_default(),
        args,
        blits,
    )
}

#[test]
fn pinned_and_pageable_copies_follow_the_runtime_paths() {
    sim_test_kit::register_tool(c"hip-copies-test-tool", tool_init, None);
    const BIG: usize = 40 << 20;
    let mut device: *mut c_void = std::ptr::null_mut();
    let mut pinned: *mut c_void = std::ptr::null_mut();
    // SAFETY: live locals for HIP to write the allocations' addresses to.
    unsafe {
        assert_eq!(hipMalloc(&mut device, BIG), HIP_SUCCESS);
        assert_eq!(hipHostMalloc(&mut pinned, 1 << 20, 0), HIP_SUCCESS);
    }
    let gpu = seen().gpu;
    let mut pageable = vec![7u8; BIG];

    // 4 KiB from pageable memory: staged, then a shader blit; no copy record.
    assert_eq!(
        // SAFETY: `device` holds BIG bytes and `pageable` BIG bytes; 4096 fit in both.
        unsafe { hipMemcpy(device, pageable.as_ptr().cast(), 4096, 1) },
        HIP_SUCCESS
    );
    let (copies, args, blits) = last_memcpy_with_blits();
    assert!(copies.is_empty(), "{copies:?}");
    assert_eq!(blits, 1, "one __amd_rocclr_copyBuffer dispatch");
    assert_eq!(
        args,
        [
            ("dst".to_owned(), format!("{:#x}", device as usize)),
            (
                "src".to_owned(),
                format!("{:#x}", pageable.as_ptr() as usize)
            ),
            ("sizeBytes".to_owned(), "4096".to_owned()),
            ("kind".to_owned(), "HostToDevice".to_owned()),
        ]
    );

    // 4 KiB from pinned memory: a shader blit too.
    // SAFETY: `device` (BIG bytes) and `pinned` (1 MiB) both hold 4096 bytes.
    assert_eq!(unsafe { hipMemcpy(device, pinned, 4096, 4) }, HIP_SUCCESS);
    let (copies, args, blits) = last_memcpy_with_blits();
    assert_eq!((copies.len(), blits), (0, 1), "{copies:?}");
    assert_eq!(args[3].1, "Default", "the hipMemcpyKind the program passed");

    // 1 MiB back into pinned memory: one SDMA device-to-host copy.
    assert_eq!(
        // SAFETY: `pinned` and `device` both hold 1 MiB.
        unsafe { hipMemcpy(pinned, device, 1 << 20, 2) },
        HIP_SUCCESS
    );
    let (copies, _) = last_memcpy();
    assert_eq!(copies.len(), 1);
    assert_eq!(
        copies[0].operation,
        sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST
    );
    assert_eq!(copies[0].src_agent, gpu);

    // 40 MiB from pageable memory: pinned in 32 MiB pieces, two records for one call.
    assert_eq!(
        // SAFETY: `device` and `pageable` both hold BIG bytes.
        unsafe { hipMemcpy(device, pageable.as_ptr().cast(), BIG, 1) },
        HIP_SUCCESS
    );
    let (copies, _) = last_memcpy();
    assert_eq!(
        copies.iter().map(|c| c.bytes).collect::<Vec<_>>(),
        [32 << 20, 8 << 20]
    );
    assert!(copies
        .iter()
        .all(|c| c.operation == sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE && c.dst_agent == gpu));

    // Host to host: the CPU copies, no record; the data still moves.
    let mut other = vec![0u8; 4096];
    // SAFETY: `pinned` holds 1 MiB, so 4096 bytes are writable.
    unsafe { std::ptr::write_bytes(pinned.cast::<u8>(), 9, 4096) };
    assert_eq!(
        // SAFETY: `other` and `pinned` both hold 4096 bytes.
        unsafe { hipMemcpy(other.as_mut_ptr().cast(), pinned, 4096, 0) },
        HIP_SUCCESS
    );
    let (copies, _) = last_memcpy();
    assert!(copies.is_empty());
    assert!(other.iter().all(|b| *b == 9));

    // hipMemcpyAsync shows its stream too.
    let mut stream = 0u64;
    // SAFETY: `stream` is a live local for HIP to write; `pageable` and `device` hold 1 MiB.
    unsafe {
        assert_eq!(hipStreamCreate(&mut stream), HIP_SUCCESS);
        assert_eq!(
            hipMemcpyAsync(pageable.as_mut_ptr().cast(), device, 1 << 20, 2, stream),
            HIP_SUCCESS
        );
        assert_eq!(hipStreamSynchronize(stream), HIP_SUCCESS);
    }
    let seen = seen();
    let (_, _, args) = seen
        .calls
        .iter()
        .rev()
        .find(|c| c.0 == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync)
        .unwrap();
    assert_eq!(args[4], ("stream".to_owned(), format!("{stream:#x}")));
    drop(seen);
    assert_eq!(hipFree(device), HIP_SUCCESS);
    assert_eq!(hipHostFree(pinned), HIP_SUCCESS);
}
