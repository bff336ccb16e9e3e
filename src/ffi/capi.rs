//! A plain C ABI over the tracer, for programs that are not XLA (C, Python ctypes, other
//! runtimes): one capture at a time into the Rust collector, written out as an XSpace, plus
//! the stream-stack statistics. The header `include/xla_rocm_tracer.h` is generated from this
//! file, the flat event (`event.rs`) and the kernel word count (`crate::event::KERNEL_WORDS`) by
//! cbindgen (`cbindgen.toml`); a unit test below fails when it is out of date.
//!
//! Every function catches panics and reports them as `XrtStatus::Internal`; pointers are
//! checked for null; strings must be NUL-terminated UTF-8.
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::collector::{CaptureStart, Collector, CollectorOptions, GpuAgentInfo};
use crate::export::encode_xspace;
use crate::tracer::sdk::calls as sdk;
use crate::tracer::streams::stack as stream_stack;
use crate::tracer::{Tracer, TracerError, TracerOptions};

use super::event::Utf8;
pub use super::event::{XrtDetailKind, XrtEvent};

/// Result of the C functions.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum XrtStatus {
    Ok = 0,
    /// A capture is already running.
    AlreadyExists = 1,
    /// The tracer could not initialize with rocprofiler-sdk (or it was finalized).
    Unavailable = 2,
    /// An SDK call failed, or a panic was caught.
    Internal = 3,
    /// A null pointer or non-UTF-8 string was passed.
    InvalidArgument = 4,
    /// No capture to stop, flush or write.
    NoCapture = 5,
    /// Writing the trace file failed.
    IoError = 6,
}

/// Caps of one capture (XLA's `RocmTraceCollectorOptions`); 0 means the XLA default.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct XrtCaptureOptions {
    pub max_callback_api_events: u64,
    pub max_activity_api_events: u64,
    pub max_annotation_strings: u64,
}

/// The calling thread's HIP stream stack statistics (see `stream_stack`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct XrtStreamStackStats {
    /// HIP_STREAM SET ENTERs seen on this thread.
    pub pushes: u64,
    /// SET EXITs that popped an entry.
    pub pops: u64,
    /// SET EXITs on this thread with nothing to pop.
    pub unmatched_exits: u64,
    /// Deepest stack seen, counting the base null-stream entry.
    pub max_depth: u64,
    /// Current depth, counting the base entry.
    pub depth: u64,
    /// The stream id work enqueued now would be attributed to.
    pub current_stream_id: u64,
    /// SET EXITs with nothing to pop, over all threads.
    pub unmatched_exits_all_threads: u64,
}

/// The capture an [`xrt_export_events`] call describes.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct XrtExportInput {
    pub options: XrtCaptureOptions,
    pub num_gpus: u32,
    pub start_walltime_ns: u64,
    pub start_gputime_ns: u64,
    pub end_gputime_ns: u64,
    /// Use the tracer's GPU agents for device numbering and capabilities.
    pub use_tracer_gpu_agents: bool,
}

/// Bytes allocated by this library; release them with [`xrt_free_bytes`].
#[repr(C)]
#[derive(Debug)]
pub struct XrtBytes {
    pub data: *mut u8,
    pub len: usize,
}

struct Capture {
    collector: Arc<Collector>,
    running: bool,
}

static CAPTURE: Mutex<Option<Capture>> = Mutex::new(None);

fn guarded(body: impl FnOnce() -> XrtStatus) -> XrtStatus {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(XrtStatus::Internal)
}

/// The collector options of `options` (0 means XLA's default) for `num_gpus` GPUs.
fn collector_options(options: XrtCaptureOptions, num_gpus: u32) -> CollectorOptions {
    let defaults = CollectorOptions::default();
    let or_default = |value: u64, default: u64| if value == 0 { default } else { value };
    CollectorOptions {
        max_callback_api_events: or_default(
            options.max_callback_api_events,
            defaults.max_callback_api_events,
        ),
        max_activity_api_events: or_default(
            options.max_activity_api_events,
            defaults.max_activity_api_events,
        ),
        max_annotation_strings: or_default(
            options.max_annotation_strings,
            defaults.max_annotation_strings,
        ),
        num_gpus,
    }
}

/// The library version, a static NUL-terminated string ("0.1.0").
#[no_mangle]
pub extern "C" fn xrt_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}

/// The rocprofiler-sdk version the tracer runs on. Returns `XrtStatus::Unavailable` if the
/// tracer did not initialize.
///
/// # Safety
/// Each pointer is null or valid for a write of one `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn xrt_sdk_version(
    major: *mut u32,
    minor: *mut u32,
    patch: *mut u32,
) -> XrtStatus {
    guarded(|| {
        if major.is_null() || minor.is_null() || patch.is_null() {
            return XrtStatus::InvalidArgument;
        }
        let Some(version) = Tracer::get().sdk_version() else {
            return XrtStatus::Unavailable;
        };
        // SAFETY: checked non-null above; valid per this function's contract.
        unsafe {
            *major = version.major;
            *minor = version.minor;
            *patch = version.patch;
        }
        XrtStatus::Ok
    })
}

/// Number of GPU agents (0 if the tracer is unavailable).
#[no_mangle]
pub extern "C" fn xrt_num_gpus() -> u32 {
    catch_unwind(|| Tracer::get().num_gpus()).unwrap_or(0)
}

/// Starts a capture of every GPU into a fresh collector. `options` may be null (XLA's
/// defaults).
///
/// # Safety
/// `options` is null or points to an `XrtCaptureOptions`.
#[no_mangle]
pub unsafe extern "C" fn xrt_enable(options: *const XrtCaptureOptions) -> XrtStatus {
    guarded(|| {
        // SAFETY: null or valid per this function's contract.
        let options = unsafe { options.as_ref() }.copied().unwrap_or_default();
        let tracer = Tracer::get();
        // Whether a capture may start is the tracer's decision (`Tracer::enable`), shared with
        // the C++ tracer.
        let mut capture = CAPTURE.lock();
        let collector_options = collector_options(options, tracer.num_gpus());
        let start = CaptureStart {
            gputime_ns: Tracer::timestamp(),
            walltime_ns: wall_clock_ns(),
        };
        let collector = Arc::new(Collector::new(collector_options.clone(), start));
        collector.set_gpu_agents(tracer.gpu_agents().iter().map(GpuAgentInfo::from).collect());
        let tracer_options = TracerOptions {
            max_annotation_strings: collector_options.max_annotation_strings,
            ..TracerOptions::default()
        };
        match tracer.enable(tracer_options, collector.clone()) {
            Ok(()) => {
                *capture = Some(Capture {
                    collector,
                    running: true,
                });
                XrtStatus::Ok
            }
            Err(TracerError::AlreadyExists) => XrtStatus::AlreadyExists,
            Err(TracerError::Unavailable(_)) => XrtStatus::Unavailable,
            Err(TracerError::Internal(_)) => XrtStatus::Internal,
        }
    })
}

/// Delivers what rocprofiler-sdk has buffered so far to the running capture.
#[no_mangle]
pub extern "C" fn xrt_flush() -> XrtStatus {
    guarded(|| {
        if !CAPTURE.lock().as_ref().is_some_and(|c| c.running) {
            return XrtStatus::NoCapture;
        }
        match Tracer::get().buffer().map(sdk::flush_buffer) {
            Some(Ok(())) => XrtStatus::Ok,
            Some(Err(_)) => XrtStatus::Internal,
            None => XrtStatus::Unavailable,
        }
    })
}

/// Stops the capture (flushing every buffered record into it); it stays available to
/// `xrt_write_xspace` until the next `xrt_enable`.
#[no_mangle]
pub extern "C" fn xrt_disable() -> XrtStatus {
    guarded(|| {
        let mut capture = CAPTURE.lock();
        match capture.as_mut() {
            Some(c) if c.running => {
                super::disable_into(&c.collector);
                c.running = false;
                XrtStatus::Ok
            }
            _ => XrtStatus::NoCapture,
        }
    })
}

/// Writes the last capture as a serialized XSpace (`*.xplane.pb`) to `path`.
///
/// # Safety
/// `path` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn xrt_write_xspace(path: *const c_char) -> XrtStatus {
    guarded(|| {
        if path.is_null() {
            return XrtStatus::InvalidArgument;
        }
        // SAFETY: non-null and NUL-terminated per this function's contract.
        let Ok(path) = unsafe { CStr::from_ptr(path) }.to_str() else {
            return XrtStatus::InvalidArgument;
        };
        let Some(collector) = CAPTURE.lock().as_ref().map(|c| c.collector.clone()) else {
            return XrtStatus::NoCapture;
        };
        // Encoded as it is built (the whole XSpace is never held), into a temporary file that
        // replaces `path` only when complete: a failed write leaves `path` as it was.
        let written = crate::export::replace_file_with(std::path::Path::new(path), |out| {
            collector
                .write_xspace_to(Tracer::timestamp(), &super::export_options(), out)
                .map(drop)
        });
        match written {
            Ok(()) => XrtStatus::Ok,
            Err(_) => XrtStatus::IoError,
        }
    })
}

/// Writes the last capture as a serialized XSpace to `out`, encoded as it is built, for Rust
/// callers that place it themselves (the tool library): `NoCapture` when there is none.
pub fn write_last_capture(out: &mut dyn std::io::Write) -> Result<(), XrtStatus> {
    let collector = CAPTURE
        .lock()
        .as_ref()
        .map(|c| c.collector.clone())
        .ok_or(XrtStatus::NoCapture)?;
    collector
        .write_xspace_to(Tracer::timestamp(), &super::export_options(), out)
        .map(drop)
        .map_err(|_| XrtStatus::IoError)
}

/// Runs events collected by the caller (API callbacks and activities, as XLA's collector
/// receives them) through the collector and XSpace writer, and returns the serialized XSpace
/// in `out`. API events are not auxiliary.
///
/// # Safety
/// `input` and `out` are null or valid; `events` is valid for `count` events (or `count` is
/// 0); every string pointer in them is null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn xrt_export_events(
    input: *const XrtExportInput,
    events: *const XrtEvent,
    count: usize,
    out: *mut XrtBytes,
) -> XrtStatus {
    guarded(|| {
        if input.is_null() || out.is_null() || (events.is_null() && count > 0) {
            return XrtStatus::InvalidArgument;
        }
        // SAFETY: non-null and valid per this function's contract.
        let input = unsafe { *input };
        let events: &[XrtEvent] = if count == 0 {
            &[]
        } else {
            // SAFETY: per this function's contract.
            unsafe { std::slice::from_raw_parts(events, count) }
        };
        let options = collector_options(input.options, input.num_gpus);
        let collector = Collector::new(
            options,
            CaptureStart {
                walltime_ns: input.start_walltime_ns,
                gputime_ns: input.start_gputime_ns,
            },
        );
        if input.use_tracer_gpu_agents {
            collector.set_gpu_agents(
                Tracer::get()
                    .gpu_agents()
                    .iter()
                    .map(GpuAgentInfo::from)
                    .collect(),
            );
        }
        for event in events {
            // SAFETY: the strings are null or NUL-terminated per this function's contract.
            match unsafe { event.rust_event(Utf8::Required) } {
                Some(event) => collector.add_event(event, false),
                None => return XrtStatus::InvalidArgument,
            }
        }
        let bytes =
            encode_xspace(&collector.export(input.end_gputime_ns, &super::export_options()));
        let mut bytes = bytes.into_boxed_slice();
        let len = bytes.len();
        let data = bytes.as_mut_ptr();
        std::mem::forget(bytes);
        // SAFETY: non-null and valid per this function's contract.
        unsafe { out.write(XrtBytes { data, len }) };
        XrtStatus::Ok
    })
}

/// Releases bytes returned by this library (null data is fine).
///
/// # Safety
/// `bytes` is null or holds what this library returned, released at most once.
#[no_mangle]
pub unsafe extern "C" fn xrt_free_bytes(bytes: XrtBytes) {
    if bytes.data.is_null() {
        return;
    }
    // SAFETY: allocated as a boxed slice of exactly `len` bytes by `xrt_export_events`.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(bytes.data, bytes.len)) });
}

/// The calling thread's stream-stack statistics.
///
/// # Safety
/// `out` is null or valid for a write of one `XrtStreamStackStats`.
#[no_mangle]
pub unsafe extern "C" fn xrt_stream_stack_stats(out: *mut XrtStreamStackStats) -> XrtStatus {
    guarded(|| {
        if out.is_null() {
            return XrtStatus::InvalidArgument;
        }
        let thread = stream_stack::current_thread_stats();
        let stats = XrtStreamStackStats {
            pushes: thread.pushes,
            pops: thread.pops,
            unmatched_exits: thread.unmatched_exits,
            max_depth: thread.max_depth,
            depth: stream_stack::depth() as u64,
            current_stream_id: stream_stack::top(),
            unmatched_exits_all_threads: stream_stack::unmatched_exits_total(),
        };
        // SAFETY: checked non-null; valid per this function's contract.
        unsafe { out.write(stats) };
        XrtStatus::Ok
    })
}

fn wall_clock_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What cbindgen makes of this crate with the committed configuration.
    fn generated_header() -> String {
        let crate_dir = env!("CARGO_MANIFEST_DIR");
        let config = cbindgen::Config::from_file(format!("{crate_dir}/cbindgen.toml"))
            .expect("cbindgen.toml parses");
        let mut out = Vec::new();
        cbindgen::Builder::new()
            .with_config(config)
            .with_src(format!("{crate_dir}/src/ffi/capi.rs"))
            .with_src(format!("{crate_dir}/src/ffi/event.rs"))
            .with_src(format!("{crate_dir}/src/event.rs"))
            .generate()
            .expect("cbindgen generates the C header")
            .write(&mut out);
        String::from_utf8(out).expect("UTF-8 header")
    }

    #[test]
    fn committed_c_header_is_up_to_date() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/include/xla_rocm_tracer.h");
        let generated = generated_header();
        if std::env::var_os("XRT_UPDATE_C_HEADER").is_some() {
            std::fs::write(path, &generated).expect("write the header");
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == generated,
            "{path} is out of date; regenerate it with \
             `XRT_UPDATE_C_HEADER=1 cargo test --lib capi` and commit it"
        );
    }

    #[test]
    fn null_arguments_are_rejected_not_dereferenced() {
        // SAFETY: null is allowed by the contracts and must be refused.
        unsafe {
            assert_eq!(
                xrt_stream_stack_stats(std::ptr::null_mut()),
                XrtStatus::InvalidArgument
            );
            assert_eq!(
                xrt_write_xspace(std::ptr::null()),
                XrtStatus::InvalidArgument
            );
            let mut major = 0;
            assert_eq!(
                xrt_sdk_version(&mut major, std::ptr::null_mut(), std::ptr::null_mut()),
                XrtStatus::InvalidArgument
            );
        }
    }

    #[test]
    fn version_is_the_crate_version() {
        // SAFETY: a static NUL-terminated string.
        let version = unsafe { CStr::from_ptr(xrt_version()) };
        assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn stream_stats_of_a_fresh_thread_are_the_base_null_stream() {
        std::thread::spawn(|| {
            let mut stats = XrtStreamStackStats::default();
            // SAFETY: a valid out pointer.
            assert_eq!(unsafe { xrt_stream_stack_stats(&mut stats) }, XrtStatus::Ok);
            assert_eq!(stats.depth, 1);
            assert_eq!(stats.current_stream_id, 0);
            assert_eq!(stats.pushes, 0);
            assert_eq!(stats.max_depth, 1);
        })
        .join()
        .unwrap();
    }
}
