//! The arguments of the HIP calls the simulator plays, as the SDK stores them in the HIP API
//! callback payload (`rocprofiler_callback_tracing_hip_api_data_t::args`, one union member
//! per HIP function) and describes them to
//! `rocprofiler_iterate_callback_tracing_kind_operation_args`.
//!
//! The descriptions follow the SDK's stringification (rocprofiler-sdk `lib/common/
//! stringize_arg.hpp` `stringize_arg`, `lib/rocprofiler-sdk/hip/details/format.hpp`): the
//! type is the C++ `typeid` name (Itanium-mangled, e.g. `m` for `size_t`), the value text is
//! decimal for integers, `HostToDevice`-style for `hipMemcpyKind`, `{z=.., y=.., x=..}` for
//! dimensions, and pointers print as `0x..` hex (`0` when null, as `std::ostream` does; a null
//! `void**` prints `(null)`). Functions whose arguments the driver does not fill have no
//! described arguments.
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_void, CStr, CString};

/// All-zero arguments (for calls whose arguments are not modelled).
pub(crate) fn zeroed() -> sys::rocprofiler_hip_api_args_t {
    // SAFETY: the union holds only integers and raw pointers, for which all-zero is valid.
    unsafe { std::mem::zeroed() }
}

/// `hipStream_t` as the program passed it.
pub(crate) fn stream_ptr(stream: u64) -> sys::hipStream_t {
    stream as usize as sys::hipStream_t
}

pub(crate) fn dim3(v: [u32; 3]) -> sys::rocprofiler_dim3_t {
    sys::rocprofiler_dim3_t {
        x: v[0],
        y: v[1],
        z: v[2],
    }
}

/// One argument as the iterate callback receives it.
pub(crate) struct ArgText {
    pub addr: *const c_void,
    pub indirection: i32,
    pub type_name: &'static CStr,
    pub name: &'static CStr,
    pub value: CString,
    pub dereferences: i32,
}

fn text(s: String) -> CString {
    CString::new(s).unwrap_or_default()
}

fn pointer(value: usize) -> CString {
    if value == 0 {
        text("0".into())
    } else {
        text(format!("{value:#x}"))
    }
}

fn memcpy_kind(kind: i32) -> CString {
    text(match kind {
        0 => "HostToHost".to_owned(),
        1 => "HostToDevice".to_owned(),
        2 => "DeviceToHost".to_owned(),
        3 => "DeviceToDevice".to_owned(),
        4 => "Default".to_owned(),
        1024 => "DeviceToDeviceNoCU".to_owned(),
        other => format!("hipMemcpy_UNKNOWN={other}"),
    })
}

fn dims(d: &sys::rocprofiler_dim3_t) -> CString {
    text(format!("{{z={}, y={}, x={}}}", d.z, d.y, d.x))
}

/// Collects the described arguments. The tool's dereference budget only matters for pointers
/// to complete non-void types, and no described argument is one.
struct Builder {
    args: Vec<ArgText>,
}

impl Builder {
    fn push<T>(
        &mut self,
        field: &T,
        indirection: i32,
        type_name: &'static CStr,
        name: &'static CStr,
        value: CString,
        dereferences: i32,
    ) {
        self.args.push(ArgText {
            addr: (field as *const T).cast(),
            indirection,
            type_name,
            name,
            value,
            dereferences,
        });
    }
    fn int(&mut self, field: &i32, name: &'static CStr) {
        self.push(field, 0, c"i", name, text(field.to_string()), 0);
    }
    fn uint(&mut self, field: &u32, name: &'static CStr) {
        self.push(field, 0, c"j", name, text(field.to_string()), 0);
    }
    fn size(&mut self, field: &usize, name: &'static CStr) {
        self.push(field, 0, c"m", name, text(field.to_string()), 0);
    }
    fn dim3(&mut self, field: &sys::rocprofiler_dim3_t, name: &'static CStr) {
        self.push(field, 0, c"18rocprofiler_dim3_t", name, dims(field), 0);
    }
    fn kind(&mut self, field: &i32, name: &'static CStr) {
        self.push(field, 0, c"13hipMemcpyKind", name, memcpy_kind(*field), 0);
    }
    /// A pointer to an incomplete or void type: printed, never dereferenced.
    fn opaque<T>(&mut self, field: &*mut T, type_name: &'static CStr, name: &'static CStr) {
        self.push(field, 1, type_name, name, pointer(*field as usize), 0);
    }
    fn opaque_const<T>(&mut self, field: &*const T, type_name: &'static CStr, name: &'static CStr) {
        self.push(field, 1, type_name, name, pointer(*field as usize), 0);
    }
    /// `void**`: the address itself ("(null)" when null); `void` is never dereferenced.
    fn void_pp(&mut self, field: &*mut *mut c_void, name: &'static CStr) {
        let value = if field.is_null() {
            text("(null)".into())
        } else {
            pointer(*field as usize)
        };
        self.push(field, 2, c"PPv", name, value, 0);
    }
    fn stream(&mut self, field: &sys::hipStream_t, name: &'static CStr) {
        self.opaque(field, c"P12ihipStream_t", name);
    }
    fn event(&mut self, field: &sys::hipEvent_t, name: &'static CStr) {
        self.opaque(field, c"P11ihipEvent_t", name);
    }
}

/// The described arguments of `operation` stored in `args` (which must outlive the result's
/// addresses). `max_deref` is the tool's dereference budget.
pub(crate) fn describe(
    operation: i32,
    args: &sys::rocprofiler_hip_api_args_t,
    max_deref: i32,
) -> Vec<ArgText> {
    let _ = max_deref;
    let mut b = Builder { args: Vec::new() };
    // SAFETY: (every union read below) the sim writes the member named after the operation
    // before any callback sees the payload, and all members are plain integers/pointers.
    unsafe {
        match operation {
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice => {
                b.int(&args.hipSetDevice.deviceId, c"deviceId")
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize => {
                b.stream(&args.hipStreamSynchronize.stream, c"stream")
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel => {
                let a = &args.hipLaunchKernel;
                b.opaque_const(&a.function_address, c"PKv", c"function_address");
                b.dim3(&a.numBlocks, c"numBlocks");
                b.dim3(&a.dimBlocks, c"dimBlocks");
                b.void_pp(&a.args, c"args");
                b.size(&a.sharedMemBytes, c"sharedMemBytes");
                b.stream(&a.stream, c"stream");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel => {
                let a = &args.hipModuleLaunchKernel;
                b.opaque(&a.func, c"P18ihipModuleSymbol_t", c"func");
                b.uint(&a.gridDimX, c"gridDimX");
                b.uint(&a.gridDimY, c"gridDimY");
                b.uint(&a.gridDimZ, c"gridDimZ");
                b.uint(&a.blockDimX, c"blockDimX");
                b.uint(&a.blockDimY, c"blockDimY");
                b.uint(&a.blockDimZ, c"blockDimZ");
                b.uint(&a.sharedMemBytes, c"sharedMemBytes");
                b.stream(&a.stream, c"stream");
                b.void_pp(&a.kernelParams, c"kernelParams");
                b.void_pp(&a.extra, c"extra");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch => {
                let a = &args.hipGraphLaunch;
                b.opaque(&a.graphExec, c"P12hipGraphExec", c"graphExec");
                b.stream(&a.stream, c"stream");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset => {
                let a = &args.hipMemset;
                b.opaque(&a.dst, c"Pv", c"dst");
                b.int(&a.value, c"value");
                b.size(&a.sizeBytes, c"sizeBytes");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync => {
                let a = &args.hipMemsetAsync;
                b.opaque(&a.dst, c"Pv", c"dst");
                b.int(&a.value, c"value");
                b.size(&a.sizeBytes, c"sizeBytes");
                b.stream(&a.stream, c"stream");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy => {
                let a = &args.hipMemcpy;
                b.opaque(&a.dst, c"Pv", c"dst");
                b.opaque_const(&a.src, c"PKv", c"src");
                b.size(&a.sizeBytes, c"sizeBytes");
                b.kind(&a.kind, c"kind");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync => {
                let a = &args.hipMemcpyAsync;
                b.opaque(&a.dst, c"Pv", c"dst");
                b.opaque_const(&a.src, c"PKv", c"src");
                b.size(&a.sizeBytes, c"sizeBytes");
                b.kind(&a.kind, c"kind");
                b.stream(&a.stream, c"stream");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord => {
                let a = &args.hipEventRecord;
                b.event(&a.event, c"event");
                b.stream(&a.stream, c"stream");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecordWithFlags => {
                let a = &args.hipEventRecordWithFlags;
                b.event(&a.event, c"event");
                b.stream(&a.stream, c"stream");
                b.uint(&a.flags, c"flags");
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent => {
                let a = &args.hipStreamWaitEvent;
                b.stream(&a.stream, c"stream");
                b.event(&a.event, c"event");
                b.uint(&a.flags, c"flags");
            }
            // hipDeviceSynchronize has no arguments. Functions whose arguments the driver does
            // not fill (stream creation and destruction, `api_call`) have none described.
            _ => {}
        }
    }
    b.args
}
