//! Re-exports the tracer so that its C ABI (`xrt_*`), `rocprofiler_configure` and its load-time
//! registration end up in a shared library, as the tracer sits in a PJRT plugin.
pub use xla_rocm_tracer;

use std::ffi::{c_char, CStr};

/// The calling thread's annotation for the benchmark's HIP calls: the standalone annotation
/// stack that the tracer's HIP API callback reads (the C ABI has no call of its own for it).
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn bench_push_annotation(name: *const c_char) {
    if name.is_null() {
        return;
    }
    // SAFETY: non-null and NUL-terminated, as the caller promises.
    let name = unsafe { CStr::from_ptr(name) };
    xla_rocm_tracer::tracer::annotation::push_annotation(&name.to_string_lossy());
}

/// Leaves the innermost annotation of the calling thread.
#[no_mangle]
pub extern "C" fn bench_pop_annotation() {
    xla_rocm_tracer::tracer::annotation::pop_annotation();
}
