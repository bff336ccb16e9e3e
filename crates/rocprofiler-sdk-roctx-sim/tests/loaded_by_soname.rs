//! The simulated ROCTx library as a program uses it: loaded by its SONAME, its ranges and marks
//! reach the simulated SDK's marker tracing, so the tracer shows them on the host timeline and
//! labels the work launched inside a range.
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use parking_lot::Mutex;
use rocprofiler_sdk_sim::driver::{self, KernelLaunch, NULL_STREAM};
use sim_test_kit::child;
use xla_rocm_tracer::drop_reason::DropReason;
use xla_rocm_tracer::event::{EventSource, EventType, RocmTracerEvent};
use xla_rocm_tracer::sink::{EventSink, SessionEnd};
use xla_rocm_tracer::tracer::{Tracer, TracerOptions};

extern "C" {
    // The simulated SDK's entry points, linked into this executable (and exported from it, see
    // build.rs) for the library to find, as it finds them in `librocprofiler-sdk.so.1`.
    fn rocsim_roctx_range_push_a(message: *const c_char) -> c_int;
    fn rocsim_roctx_range_pop() -> c_int;
    fn rocsim_roctx_range_start_a(message: *const c_char) -> u64;
    fn rocsim_roctx_range_stop(id: u64);
    fn rocsim_roctx_mark_a(message: *const c_char);
    fn rocsim_roctx_name_hip_stream(name: *const c_char, stream: *const c_void) -> c_int;
}

/// The cdylib this `cargo test` built (in `deps/` beside the test, or one folder up).
fn cdylib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [deps, deps.parent().unwrap()]
        .iter()
        .map(|dir| dir.join("librocprofiler_sdk_roctx_sim.so"))
        .find(|path| path.is_file())
        .expect("the cdylib beside the test; `cargo build -p rocprofiler-sdk-roctx-sim` makes it")
}

/// A folder holding the library under its SONAME, for `LD_LIBRARY_PATH`.
fn lib_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("roctx-soname")
}

#[derive(Default)]
struct Sink(Mutex<Vec<RocmTracerEvent>>);

impl EventSink for Sink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        self.0.lock().append(batch);
    }
    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        panic!("{count} events dropped: {reason}");
    }
    fn end_session(&self, _end: SessionEnd) {}
}

/// `name` from the library `handle`.
fn function(handle: *mut c_void, name: &CStr) -> *mut c_void {
    // SAFETY: a live handle and a NUL-terminated name.
    let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
    assert!(!address.is_null(), "the library exports {name:?}");
    address
}

#[test]
fn carries_the_real_soname_and_no_sdk_function() {
    let Ok(output) = child::output(
        "carries_the_real_soname_and_no_sdk_function",
        Command::new("readelf").arg("-dW").arg(cdylib()),
    ) else {
        eprintln!("no readelf: SONAME not checked");
        return;
    };
    let dynamic = String::from_utf8_lossy(&output.stdout);
    assert!(
        dynamic.contains("[librocprofiler-sdk-roctx.so.1]"),
        "{dynamic}"
    );
    // Like the real one it does not need the SDK: it works, untraced, without one.
    assert!(!dynamic.contains("librocprofiler-sdk.so"), "{dynamic}");
}

#[test]
fn ranges_and_marks_through_the_library_reach_the_trace() {
    let dir = lib_dir();
    if !child::is_child("ranges_and_marks_through_the_library_reach_the_trace") {
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("librocprofiler-sdk-roctx.so.1");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(cdylib(), &link).unwrap();
    }
    let dir = dir.to_str().unwrap().to_owned();
    if !child::in_child(
        "ranges_and_marks_through_the_library_reach_the_trace",
        &[("LD_LIBRARY_PATH", &dir)],
    ) {
        return;
    }
    std::hint::black_box([
        rocsim_roctx_range_push_a as *const (),
        rocsim_roctx_range_pop as *const (),
        rocsim_roctx_range_start_a as *const (),
        rocsim_roctx_range_stop as *const (),
        rocsim_roctx_mark_a as *const (),
        rocsim_roctx_name_hip_stream as *const (),
    ]);
    let kernel = driver::load_code_object(0, &["loop_add_fusion"]).unwrap().1[0];
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
    xla_rocm_tracer::tracer::set_wait_sleeper(driver::host_sleep);
    let sink = Arc::new(Sink::default());
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .expect("enable the tracer");

    // SAFETY: a NUL-terminated name.
    let handle = unsafe {
        libc::dlopen(
            c"librocprofiler-sdk-roctx.so.1".as_ptr(),
            libc::RTLD_NOW | libc::RTLD_LOCAL,
        )
    };
    assert!(!handle.is_null(), "dlopen by SONAME from {dir}");
    type Push = unsafe extern "C" fn(*const c_char) -> c_int;
    type Pop = unsafe extern "C" fn() -> c_int;
    type Mark = unsafe extern "C" fn(*const c_char);
    type Start = unsafe extern "C" fn(*const c_char) -> u64;
    type Stop = unsafe extern "C" fn(u64);
    // SAFETY: the library's functions have ROCTx's signatures.
    let (push, pop, mark, start, stop) = unsafe {
        (
            std::mem::transmute::<*mut c_void, Push>(function(handle, c"roctxRangePushA")),
            std::mem::transmute::<*mut c_void, Pop>(function(handle, c"roctxRangePop")),
            std::mem::transmute::<*mut c_void, Mark>(function(handle, c"roctxMarkA")),
            std::mem::transmute::<*mut c_void, Start>(function(handle, c"roctxRangeStartA")),
            std::mem::transmute::<*mut c_void, Stop>(function(handle, c"roctxRangeStop")),
        )
    };
    let launch = KernelLaunch {
        kernel,
        grid: [256, 1, 1],
        block: [256, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 1_000,
    };
    // SAFETY: NUL-terminated messages.
    let (levels, inside) = unsafe {
        let epoch = start(c"epoch".as_ptr());
        // Stopped by another thread: a process range.
        std::thread::spawn(move || stop(epoch)).join().unwrap();
        let outer = push(c"train_step".as_ptr());
        let inner = push(c"matmul".as_ptr());
        let inside = driver::launch_kernel(NULL_STREAM, &launch).unwrap();
        mark(c"checkpoint".as_ptr());
        let closed = (pop(), pop(), pop());
        ((outer, inner, closed), inside)
    };
    assert_eq!(levels, (0, 1, (1, 0, -1)));
    driver::wait_idle();
    driver::device_synchronize().unwrap();
    tracer.disable();

    let events = sink.0.lock().clone();
    let mut markers: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == EventType::Generic)
        .map(|e| (e.name.to_string(), e.end_time_ns > e.start_time_ns))
        .collect();
    markers.sort();
    assert_eq!(
        markers,
        [
            ("checkpoint".to_owned(), false),
            ("epoch".to_owned(), true),
            ("matmul".to_owned(), true),
            ("train_step".to_owned(), true)
        ]
    );
    let kernel = events
        .iter()
        .find(|e| e.correlation_id == inside && e.source == EventSource::Activity)
        .expect("the kernel launched inside the ranges");
    assert_eq!(kernel.roctx_range.as_deref(), Some("matmul"));
}
