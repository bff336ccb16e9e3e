//! The HIP functions the real JAX ROCm plugin calls beyond the original set (issue 23), each
//! traced under its real operation id (seen by the kit's recording tool): the device queries
//! with HIP's `hipDeviceAttribute_t` numbers answering as an MI300X, stream priority and
//! flags, host callbacks (after the stream's earlier work, off the calling thread), the
//! fixed-direction copies, pointer attributes, hipMemsetD32Async, hipGetFuncBySymbol for a
//! registered kernel, and hipErrorNotSupported for the functions the simulator does not model.
use amdhip64::abi::{HipFatbinWrapper, HIP_FATBIN_MAGIC};
use amdhip64::api::pointer_attributes::HipPointerAttribute;
use amdhip64::api::{
    device::*, device_query::*, error::*, launch::*, memcpy_variants::*, memory::*, module::*,
    pointer_attributes::*, registration::*, stream::*, unsupported,
};
use amdhip64::device_attribute::id;
use amdhip64::error::*;
use sim_test_kit::recording::*;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::mpsc;

/// The HIP API ENTER callbacks of this thread since `from`, as operation ids.
fn ops_since(from: usize) -> Vec<i32> {
    events_since(from, tid())
        .iter()
        .filter(|e| {
            let (kind, _, phase) = e.shape();
            kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API && phase == ENTER
        })
        .map(|e| e.shape().1)
        .collect()
}

fn attribute(attr: c_int) -> c_int {
    let mut value = -7;
    assert_eq!(
        // SAFETY: `value` is a live local.
        unsafe { hipDeviceGetAttribute(&mut value, attr, 0) },
        HIP_SUCCESS
    );
    value
}

#[test]
fn device_queries_answer_as_an_mi300x_with_hips_numbering() {
    setup();
    let from = event_count();
    let mut device = -1;
    // SAFETY: live locals throughout.
    unsafe {
        assert_eq!(hipDeviceGet(&mut device, 0), HIP_SUCCESS);
        assert_eq!(device, 0);
        assert_eq!(hipDeviceGet(&mut device, 99), HIP_ERROR_INVALID_DEVICE);
    }
    // The attributes XLA's executor queries, by HIP's numbers (hip_runtime_api.h).
    assert_eq!(attribute(0), 1); // EccEnabled
    assert_eq!(attribute(74), 64 * 1024); // MaxSharedMemoryPerBlock
    assert_eq!(attribute(10002), 64 * 1024); // MaxSharedMemoryPerMultiprocessor
    assert_eq!(attribute(87), 64); // WarpSize
    assert_eq!(attribute(63), 304); // MultiprocessorCount
    assert_eq!(attribute(57), 2048); // MaxThreadsPerMultiProcessor
    assert_eq!(attribute(71), 65536); // MaxRegistersPerBlock
    assert_eq!(attribute(72), 65536); // MaxRegistersPerMultiprocessor
    assert_eq!(attribute(29), i32::MAX); // MaxGridDimX
    assert_eq!(attribute(30), 65536); // MaxGridDimY
    assert_eq!(attribute(id::COMPUTE_CAPABILITY_MAJOR), 9);
    let mut value = 0;
    // SAFETY: live locals.
    unsafe {
        assert_eq!(
            hipDeviceGetAttribute(&mut value, 64, 0),
            HIP_ERROR_INVALID_VALUE
        );
        assert_eq!(
            hipDeviceGetAttribute(&mut value, 0, 7),
            HIP_ERROR_INVALID_DEVICE
        );
    }

    let mut name = [0 as c_char; 64];
    let mut bus = [0 as c_char; 16];
    let mut total = 0usize;
    let (mut least, mut greatest) = (9, 9);
    // SAFETY: buffers of the lengths passed, live locals.
    unsafe {
        assert_eq!(hipDeviceGetName(name.as_mut_ptr(), 64, 0), HIP_SUCCESS);
        assert_eq!(hipDeviceGetPCIBusId(bus.as_mut_ptr(), 16, 0), HIP_SUCCESS);
        assert_eq!(hipDeviceTotalMem(&mut total, 0), HIP_SUCCESS);
        assert_eq!(
            hipDeviceGetStreamPriorityRange(&mut least, &mut greatest),
            HIP_SUCCESS
        );
        assert_eq!(
            CStr::from_ptr(name.as_ptr()).to_str().unwrap(),
            "AMD Instinct MI300X"
        );
        assert_eq!(
            CStr::from_ptr(bus.as_ptr()).to_str().unwrap(),
            "0000:0c:00.0"
        );
        // A short buffer gets a truncated, terminated name.
        let mut short = [1 as c_char; 4];
        assert_eq!(hipDeviceGetName(short.as_mut_ptr(), 4, 0), HIP_SUCCESS);
        assert_eq!(CStr::from_ptr(short.as_ptr()).to_str().unwrap(), "AMD");
    }
    assert_eq!(total, 192 << 30);
    assert_eq!((least, greatest), (0, -1));
    let ops = ops_since(from);
    for op in [
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGet,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetAttribute,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetName,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetPCIBusId,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceTotalMem,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetStreamPriorityRange,
    ] {
        assert!(ops.contains(&op), "op {op} not traced: {ops:?}");
    }
}

#[test]
fn streams_keep_priority_and_flags() {
    setup();
    let from = event_count();
    let mut stream = 0u64;
    let (mut flags, mut priority): (c_uint, c_int) = (9, 9);
    // SAFETY: live locals.
    unsafe {
        assert_eq!(hipStreamCreateWithPriority(&mut stream, 1, -5), HIP_SUCCESS);
        assert_eq!(hipStreamGetFlags(stream, &mut flags), HIP_SUCCESS);
        assert_eq!(hipStreamGetPriority(stream, &mut priority), HIP_SUCCESS);
    }
    // Out-of-range priorities clamp to the device's range.
    assert_eq!((flags, priority), (1, -1));
    assert_eq!(hipGetStreamDeviceId(stream), 0);
    assert_eq!(hipStreamDestroy(stream), HIP_SUCCESS);
    assert_eq!(
        // SAFETY: live local.
        unsafe { hipStreamGetFlags(stream, &mut flags) },
        HIP_ERROR_CONTEXT_IS_DESTROYED
    );
    let ops = ops_since(from);
    assert!(ops.contains(&sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithPriority));
    assert!(ops.contains(&sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetPriority));
}

/// What a host callback saw: its thread, the SDK's clock, and the value the stream's earlier
/// copy wrote.
struct Seen {
    tid: u64,
    timestamp: u64,
    value: f32,
}

struct CallbackData {
    host: *const f32,
    done: mpsc::Sender<Seen>,
}

unsafe extern "C" fn on_host(data: *mut c_void) {
    // SAFETY: `data` is the `CallbackData` the test passed; it outlives the callback.
    let data = unsafe { &*data.cast::<CallbackData>() };
    // SAFETY: the host buffer is live until the test has received this message.
    let value = unsafe { *data.host };
    let mut timestamp = 0;
    // SAFETY: a live out-pointer.
    unsafe { sys::rocprofiler_get_timestamp(&mut timestamp) };
    let _ = data.done.send(Seen {
        tid: tid(),
        timestamp,
        value,
    });
}

#[test]
fn host_callbacks_run_after_earlier_work_off_the_calling_thread() {
    setup();
    let from = event_count();
    let mut stream = 0u64;
    let mut device: *mut c_void = std::ptr::null_mut();
    // 32 MiB each way (about 0.7 ms each on the modelled link): copies long enough on the device that a callback not waiting for them
    // would run before they end.
    const BYTES: usize = 32 << 20;
    let input = vec![2.5f32; BYTES / 4];
    // Pinned memory, so the read-back is asynchronous (a pageable one returns when done).
    let mut output: *mut c_void = std::ptr::null_mut();
    // SAFETY: a live out-pointer.
    assert_eq!(unsafe { hipHostMalloc(&mut output, BYTES, 0) }, HIP_SUCCESS);
    let (done, seen) = mpsc::channel();
    let data = CallbackData {
        host: output.cast_const().cast(),
        done,
    };
    // SAFETY: live locals; the copies fit the allocation; the callback data outlives the
    // callback (the test waits for its message).
    unsafe {
        assert_eq!(hipStreamCreate(&mut stream), HIP_SUCCESS);
        assert_eq!(hipMalloc(&mut device, BYTES), HIP_SUCCESS);
        assert_eq!(
            hipMemcpyHtoDAsync(device, input.as_ptr().cast(), BYTES, stream),
            HIP_SUCCESS
        );
        assert_eq!(
            hipMemcpyDtoHAsync(output, device, BYTES, stream),
            HIP_SUCCESS
        );
        assert_eq!(
            hipLaunchHostFunc(
                stream,
                Some(on_host),
                (&data as *const CallbackData).cast_mut().cast()
            ),
            HIP_SUCCESS
        );
        assert_eq!(
            hipLaunchHostFunc(stream, None, std::ptr::null_mut()),
            HIP_ERROR_INVALID_VALUE
        );
    }
    let seen = seen
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap();
    assert_ne!(seen.tid, tid(), "the callback ran on the calling thread");
    assert_eq!(
        seen.value, 2.5,
        "the callback ran before the stream's earlier copy"
    );
    assert_eq!(hipStreamSynchronize(stream), HIP_SUCCESS);
    assert_eq!(hipFree(device), HIP_SUCCESS);
    assert_eq!(hipHostFree(output), HIP_SUCCESS);
    assert_eq!(hipStreamDestroy(stream), HIP_SUCCESS);
    // The callback ran after the read-back copy ended on the device.
    drain();
    let read_back = events_since(from, tid())
        .into_iter()
        .find_map(|e| match e {
            Event::Callback {
                kind,
                op,
                phase,
                internal,
                ..
            } if kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API
                && op == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync
                && phase == ENTER =>
            {
                Some(internal)
            }
            _ => None,
        })
        .expect("hipMemcpyDtoHAsync traced");
    let copy_end = records_for(read_back)
        .into_iter()
        .find_map(|r| match r {
            Record::Copy(c) => Some(c.end_timestamp),
            _ => None,
        })
        .expect("the read-back's copy record");
    assert!(
        seen.timestamp >= copy_end,
        "callback at {} before the copy ended at {copy_end}",
        seen.timestamp
    );
    let ops = ops_since(from);
    for op in [
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchHostFunc,
    ] {
        assert!(ops.contains(&op), "op {op} not traced: {ops:?}");
    }
    // The fixed-direction copies are traced as themselves, not as hipMemcpyAsync.
    assert!(!ops.contains(&sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync));
}

#[test]
fn pointer_attributes_and_fills_know_the_allocations() {
    setup();
    let from = event_count();
    let mut device: *mut c_void = std::ptr::null_mut();
    let mut pinned: *mut c_void = std::ptr::null_mut();
    let mut attributes = HipPointerAttribute {
        memory_type: 0,
        device: -1,
        device_pointer: std::ptr::null_mut(),
        host_pointer: std::ptr::null_mut(),
        is_managed: 9,
        allocation_flags: 0,
    };
    let mut memory_type: c_uint = 0;
    let mut start: usize = 0;
    let mut size: usize = 0;
    let mut base: *mut c_void = std::ptr::null_mut();
    let mut words = [0i32; 64];
    // SAFETY: live locals; pointers into the allocations.
    unsafe {
        assert_eq!(hipMalloc(&mut device, 256), HIP_SUCCESS);
        assert_eq!(hipHostMalloc(&mut pinned, 64, 0), HIP_SUCCESS);
        let inside = device.cast::<u8>().add(16).cast::<c_void>();
        assert_eq!(
            hipPointerGetAttributes(&mut attributes, inside),
            HIP_SUCCESS
        );
        assert_eq!((attributes.memory_type, attributes.device), (2, 0));
        assert_eq!(
            hipPointerGetAttribute((&mut memory_type as *mut c_uint).cast(), 2, pinned),
            HIP_SUCCESS
        );
        assert_eq!(memory_type, 1);
        let mut kinds = [11, 12];
        let mut out = [
            (&mut start as *mut usize).cast::<c_void>(),
            (&mut size as *mut usize).cast::<c_void>(),
        ];
        assert_eq!(
            hipDrvPointerGetAttributes(2, kinds.as_mut_ptr(), out.as_mut_ptr(), inside),
            HIP_SUCCESS
        );
        assert_eq!((start, size), (device as usize, 256));
        assert_eq!(
            hipMemGetAddressRange(&mut base, &mut size, inside),
            HIP_SUCCESS
        );
        assert_eq!((base, size), (device, 256));
        let unknown = words.as_ptr().cast();
        assert_eq!(
            hipPointerGetAttributes(&mut attributes, unknown),
            HIP_ERROR_INVALID_VALUE
        );

        assert_eq!(hipMemsetD32Async(device, 0x1234_5678, 64, 0), HIP_SUCCESS);
        assert_eq!(
            hipMemcpyDtoH(words.as_mut_ptr().cast(), device, 256),
            HIP_SUCCESS
        );
        assert_eq!(hipMemsetD32Async(device, 1, 65, 0), HIP_ERROR_INVALID_VALUE);
        assert_eq!(hipFree(device), HIP_SUCCESS);
        assert_eq!(hipHostFree(pinned), HIP_SUCCESS);
    }
    assert!(words.iter().all(|w| *w == 0x1234_5678));
    let ops = ops_since(from);
    for op in [
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipPointerGetAttributes,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipPointerGetAttribute,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvPointerGetAttributes,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD32Async,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH,
    ] {
        assert!(ops.contains(&op), "op {op} not traced: {ops:?}");
    }
}

#[inline(never)]
extern "C" fn redzone_checker_stub() {
    std::hint::black_box(41u32);
}

#[test]
fn get_func_by_symbol_finds_registered_kernels() {
    setup();
    let wrapper = HipFatbinWrapper {
        magic: HIP_FATBIN_MAGIC,
        version: 1,
        binary: std::ptr::null(),
        unused: std::ptr::null_mut(),
    };
    let mut function = 0u64;
    let mut regs = 0;
    // SAFETY: a valid wrapper and NUL-terminated name; live locals.
    unsafe {
        let modules = __hipRegisterFatBinary((&wrapper as *const HipFatbinWrapper).cast());
        assert!(!modules.is_null());
        __hipRegisterFunction(
            modules,
            redzone_checker_stub as *const c_void,
            std::ptr::null_mut(),
            c"redzone_checker".as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        // Variables register without effect (no device copy exists here).
        __hipRegisterVar(
            modules,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            c"v".as_ptr(),
            0,
            4,
            0,
            0,
        );
        assert_eq!(
            hipGetFuncBySymbol(&mut function, redzone_checker_stub as *const c_void),
            HIP_SUCCESS
        );
        assert_eq!(
            hipFuncGetAttribute(&mut regs, 4, function as *const c_void),
            HIP_SUCCESS
        );
        assert_eq!(
            hipModuleLaunchKernel(
                function,
                1,
                1,
                1,
                64,
                1,
                1,
                0,
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ),
            HIP_SUCCESS
        );
        assert_eq!(
            hipGetFuncBySymbol(&mut function, std::ptr::null()),
            HIP_ERROR_INVALID_DEVICE_FUNCTION
        );
    }
    assert!(regs > 0);
    assert_eq!(hipDeviceSynchronize(), HIP_SUCCESS);
}

#[test]
fn unmodelled_functions_return_not_supported() {
    setup();
    let from = event_count();
    assert!(unsupported::NAMES.contains(&"hipStreamBeginCapture"));
    assert_eq!(
        unsupported::hipStreamBeginCapture(),
        HIP_ERROR_NOT_SUPPORTED
    );
    assert_eq!(
        unsupported::hipStreamBeginCapture(),
        HIP_ERROR_NOT_SUPPORTED
    );
    assert_eq!(unsupported::hipMemCreate(), HIP_ERROR_NOT_SUPPORTED);
    assert_eq!(hipGetLastError(), HIP_ERROR_NOT_SUPPORTED);
    let ops = ops_since(from);
    assert!(ops.contains(&sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture));
    let mut status = 7;
    assert_eq!(
        // SAFETY: live local; null id allowed.
        unsafe { hipStreamGetCaptureInfo(0, &mut status, std::ptr::null_mut()) },
        HIP_SUCCESS
    );
    assert_eq!(status, 0);
}
