//! HIP API arguments: the HIP API callback payload carries the call's arguments, and
//! `rocprofiler_iterate_callback_tracing_kind_operation_args` describes them one by one, as
//! the SDK does (name, `typeid` type name, value text, indirection, dereferences, address of
//! the stored value). This binary has its own tool: it callback-traces the HIP runtime API and
//! iterates the arguments of every record at EXIT.
use sim::driver::{self, Copy, CopyCall, CopyKind, KernelLaunch, LaunchCall};
use sim_test_kit::{sim, sys};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Mutex, OnceLock};

#[derive(Clone, Debug, PartialEq)]
struct Arg {
    number: u32,
    name: String,
    type_name: String,
    value: String,
    indirection: i32,
    dereferences: i32,
    /// The first 8 bytes at `arg_value_addr`, read during the callback.
    raw: u64,
    raw_size: usize,
}

#[derive(Default)]
struct Seen {
    /// correlation id -> (payload size, arguments at EXIT)
    calls: HashMap<u64, (u64, Vec<Arg>)>,
    /// statuses of iterate calls that are not HIP API records
    statuses: Vec<(u32, sys::rocprofiler_status_t)>,
}

static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();

fn seen() -> std::sync::MutexGuard<'static, Seen> {
    SEEN.get_or_init(Default::default).lock().unwrap()
}

fn text(p: *const c_char) -> String {
    // SAFETY: callers pass the SDK's NUL-terminated argument strings, live during the callback.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

unsafe extern "C" fn on_arg(
    kind: sys::rocprofiler_callback_tracing_kind_t,
    _operation: sys::rocprofiler_tracing_operation_t,
    arg_number: u32,
    arg_value_addr: *const c_void,
    arg_indirection_count: i32,
    arg_type: *const c_char,
    arg_name: *const c_char,
    arg_value_str: *const c_char,
    arg_dereference_count: i32,
    data: *mut c_void,
) -> c_int {
    assert_eq!(kind, sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API);
    // SAFETY: `data` is the `(Vec<Arg>, usize)` the iterating caller passed, alive and unshared
    // for the duration of the iteration.
    let out = unsafe { &mut *data.cast::<(Vec<Arg>, usize)>() };
    let type_name = text(arg_type);
    let raw_size = match type_name.as_str() {
        "i" | "j" | "13hipMemcpyKind" => 4,
        "18rocprofiler_dim3_t" => 4,
        _ => 8,
    };
    let mut raw = 0u64;
    // SAFETY: the SDK's argument address holds a value of `type_name`, at least `raw_size`
    // bytes; `raw` has room for 8.
    unsafe {
        std::ptr::copy_nonoverlapping(
            arg_value_addr.cast::<u8>(),
            (&mut raw as *mut u64).cast::<u8>(),
            raw_size,
        )
    };
    out.0.push(Arg {
        number: arg_number,
        name: text(arg_name),
        type_name,
        value: text(arg_value_str),
        indirection: arg_indirection_count,
        dereferences: arg_dereference_count,
        raw,
        raw_size,
    });
    // Stop after `out.1` arguments when it is non-zero.
    c_int::from(out.1 != 0 && out.0.len() >= out.1)
}

unsafe extern "C" fn on_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    if record.kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API {
        if record.phase != sys::ROCPROFILER_CALLBACK_PHASE_EXIT {
            return;
        }
        // SAFETY: a HIP_RUNTIME_API record's payload is the SDK's hip_api_data struct, live for
        // the callback.
        let size = unsafe {
            (*record
                .payload
                .cast::<sys::rocprofiler_callback_tracing_hip_api_data_t>())
            .size
        };
        let mut out: (Vec<Arg>, usize) = (Vec::new(), 0);
        // SAFETY: on_arg matches the SDK's argument callback and `out` outlives the call.
        let status = unsafe {
            sys::rocprofiler_iterate_callback_tracing_kind_operation_args(
                record,
                Some(on_arg),
                1,
                (&mut out as *mut (Vec<Arg>, usize)).cast(),
            )
        };
        assert_eq!(status, sys::ROCPROFILER_STATUS_SUCCESS);
        let mut first: (Vec<Arg>, usize) = (Vec::new(), 1);
        // SAFETY: as above, with `first`.
        unsafe {
            sys::rocprofiler_iterate_callback_tracing_kind_operation_args(
                record,
                Some(on_arg),
                1,
                (&mut first as *mut (Vec<Arg>, usize)).cast(),
            )
        };
        assert!(first.0.len() <= 1, "a non-zero return stops the iteration");
        seen()
            .calls
            .insert(record.correlation_id.internal, (size, out.0));
    } else {
        // Kernel-dispatch and memory-copy records have no arguments to describe.
        let mut out: (Vec<Arg>, usize) = (Vec::new(), 0);
        // SAFETY: on_arg matches the SDK's argument callback and `out` outlives the call.
        let status = unsafe {
            sys::rocprofiler_iterate_callback_tracing_kind_operation_args(
                record,
                Some(on_arg),
                1,
                (&mut out as *mut (Vec<Arg>, usize)).cast(),
            )
        };
        assert!(out.0.is_empty());
        seen().statuses.push((record.kind, status));
    }
}

unsafe extern "C" fn tool_init(
    _fini: sys::rocprofiler_client_finalize_t,
    _data: *mut c_void,
) -> c_int {
    let kinds = [
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
    ];
    let ctx = sim_test_kit::callback_context(&kinds, Some(on_callback));
    sim_test_kit::start(ctx);
    0
}

fn setup() {
    sim_test_kit::register_tool(c"hip-args-test-tool", tool_init, None);
}

fn args_of(corr: u64) -> Vec<Arg> {
    let seen = seen();
    let (size, args) = seen.calls.get(&corr).expect("traced").clone();
    assert_eq!(
        size,
        std::mem::size_of::<sys::rocprofiler_callback_tracing_hip_api_data_t>() as u64
    );
    assert_eq!(size, 120);
    args
}

/// (name, type, value) of each argument, in order.
fn shape(args: &[Arg]) -> Vec<(String, String, String)> {
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            assert_eq!(a.number, i as u32);
            (a.name.clone(), a.type_name.clone(), a.value.clone())
        })
        .collect()
}

fn strings(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    v.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

fn kernel(name: &str) -> KernelLaunch {
    KernelLaunch {
        grid: [1024, 2, 1],
        group_segment_size: 512,
        duration_ns: 1_000,
        ..sim_test_kit::kernel_on(0, name)
    }
}

#[test]
fn copy_calls_show_kind_sizes_and_stream() {
    setup();
    let stream = driver::stream_create().unwrap();
    let copy = sim_test_kit::copy(CopyKind::HostToDevice, 1 << 20, 1_000);
    let call = CopyCall {
        dst: 0x7fd0_0000_1000,
        src: 0x5555_0000_2000,
        hip_kind: Some(4),
        ..CopyCall::default()
    };
    let corr = driver::memcpy_async_with(stream, &copy, &call).unwrap();
    let args = args_of(corr);
    let stream_text = format!("{stream:#x}");
    assert_eq!(
        shape(&args),
        strings(&[
            ("dst", "Pv", "0x7fd000001000"),
            ("src", "PKv", "0x555500002000"),
            ("sizeBytes", "m", "1048576"),
            ("kind", "13hipMemcpyKind", "Default"),
            ("stream", "P12ihipStream_t", &stream_text),
        ])
    );
    // The addresses point at the stored values.
    assert_eq!(args[2].raw, 1 << 20);
    assert_eq!(args[3].raw, 4);
    assert_eq!(args[4].raw, stream);
    assert_eq!(
        args.iter().map(|a| a.indirection).collect::<Vec<_>>(),
        [1, 1, 0, 0, 1]
    );
    assert!(args.iter().all(|a| a.dereferences == 0));

    // hipMemcpy has no stream; without pointers the simulator makes plausible ones up.
    let sync = driver::memcpy_sync(&Copy {
        kind: CopyKind::DeviceToHost,
        ..copy
    })
    .unwrap();
    let args = args_of(sync);
    assert_eq!(
        args.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        ["dst", "src", "sizeBytes", "kind"]
    );
    assert_eq!(
        (args[2].value.as_str(), args[3].value.as_str()),
        ("1048576", "DeviceToHost")
    );
    assert!(args[0].value.starts_with("0x") && args[1].value.starts_with("0x"));

    // hipMemsetAsync: dst, value, size, stream.
    let memset = driver::memset_async(stream, 4096, 1_000).unwrap();
    let args = args_of(memset);
    assert_eq!(
        args.iter()
            .map(|a| (a.name.as_str(), a.value.as_str()))
            .skip(1)
            .collect::<Vec<_>>(),
        [
            ("value", "0"),
            ("sizeBytes", "4096"),
            ("stream", &stream_text[..])
        ]
    );
    driver::stream_synchronize(stream).unwrap();
}

#[test]
fn launch_calls_show_grid_block_and_stream() {
    setup();
    let stream = driver::stream_create().unwrap();
    let stream_text = format!("{stream:#x}");
    let launch = kernel("_Z4argsv");
    let corr = driver::launch_kernel_with(
        stream,
        &launch,
        &LaunchCall {
            function: 0x0040_1000,
            args: 0x7ffc_0000_0010,
        },
    )
    .unwrap();
    let args = args_of(corr);
    assert_eq!(
        shape(&args),
        strings(&[
            ("function_address", "PKv", "0x401000"),
            ("numBlocks", "18rocprofiler_dim3_t", "{z=1, y=2, x=4}"),
            ("dimBlocks", "18rocprofiler_dim3_t", "{z=1, y=1, x=256}"),
            ("args", "PPv", "0x7ffc00000010"),
            ("sharedMemBytes", "m", "512"),
            ("stream", "P12ihipStream_t", &stream_text),
        ])
    );
    assert_eq!(args[1].raw, 4, "numBlocks.x at the value address");

    let module = driver::module_launch_kernel(stream, &launch).unwrap();
    let args = args_of(module);
    let pairs: Vec<(&str, &str)> = args
        .iter()
        .map(|a| (a.name.as_str(), a.value.as_str()))
        .collect();
    assert_eq!(
        &pairs[1..10],
        [
            ("gridDimX", "4"),
            ("gridDimY", "2"),
            ("gridDimZ", "1"),
            ("blockDimX", "256"),
            ("blockDimY", "1"),
            ("blockDimZ", "1"),
            ("sharedMemBytes", "512"),
            ("stream", &stream_text[..]),
            ("kernelParams", "(null)"),
        ]
    );
    assert_eq!(pairs.len(), 11);

    let graph = driver::graph_launch_with(stream, &[launch, launch], 0xabc0).unwrap();
    assert_eq!(
        shape(&args_of(graph)),
        strings(&[
            ("graphExec", "P12hipGraphExec", "0xabc0"),
            ("stream", "P12ihipStream_t", &stream_text),
        ])
    );
    driver::stream_synchronize(stream).unwrap();
    // Null stream: a null pointer prints as 0.
    let null = driver::launch_kernel(driver::NULL_STREAM, &launch).unwrap();
    assert_eq!(args_of(null)[5].value, "0");
    driver::wait_idle();
    // Kernel-dispatch records have no arguments: NOT_IMPLEMENTED, nothing described.
    let statuses = seen().statuses.clone();
    assert!(!statuses.is_empty());
    assert!(statuses.iter().all(|(kind, status)| *kind
        == sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH
        && *status == sys::ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED));
}

#[test]
fn other_calls_and_bad_records() {
    setup();
    driver::set_device(0).unwrap();
    let stream = driver::stream_create().unwrap();
    // hipSetDevice is not a stream call; its record is the most recent hipSetDevice.
    let seen_set = seen()
        .calls
        .values()
        .filter(|(_, a)| a.len() == 1 && a[0].name == "deviceId")
        .count();
    assert!(seen_set >= 1);
    driver::stream_synchronize(stream).unwrap();
    let sync_args: Vec<Arg> = seen()
        .calls
        .values()
        .filter(|(_, a)| a.len() == 1 && a[0].name == "stream" && a[0].raw == stream)
        .map(|(_, a)| a[0].clone())
        .collect();
    assert_eq!(sync_args.len(), 1, "hipStreamSynchronize shows its stream");
    // A function the simulator does not model has no described arguments.
    let other = driver::api_call(driver::hip_operation("hipMalloc").unwrap(), None).unwrap();
    assert!(args_of(other).is_empty());

    // Records of kind NONE or LAST are invalid; a null callback is invalid.
    let mut record = sys::rocprofiler_callback_tracing_record_t {
        context_id: sys::rocprofiler_context_id_t { handle: 0 },
        thread_id: 0,
        correlation_id: sys::rocprofiler_correlation_id_t {
            internal: 0,
            external: sys::rocprofiler_user_data_t { value: 0 },
            ancestor: 0,
        },
        kind: sys::ROCPROFILER_CALLBACK_TRACING_NONE,
        operation: 0,
        phase: 0,
        payload: std::ptr::null_mut(),
    };
    // SAFETY: the test passes a record value and a matching callback (or none); no data.
    let iterate = |record, callback: sys::rocprofiler_callback_tracing_operation_args_cb_t| unsafe {
        sys::rocprofiler_iterate_callback_tracing_kind_operation_args(
            record,
            callback,
            1,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(
        iterate(record, Some(on_arg)),
        sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
    );
    record.kind = sys::ROCPROFILER_CALLBACK_TRACING_LAST;
    assert_eq!(
        iterate(record, Some(on_arg)),
        sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
    );
    record.kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM;
    assert_eq!(
        iterate(record, Some(on_arg)),
        sys::ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED
    );
    record.kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
    assert_eq!(
        iterate(record, None),
        sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
    );
}
