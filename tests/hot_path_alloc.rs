//! The app-thread hot path of every HIP call (HIP_STREAM SET ENTER, the external-correlation
//! request, SET EXIT) must not touch the heap once the thread's stack exists: it runs inside
//! the profiled program's HIP calls. A counting global allocator sees every allocation the
//! calling thread makes while the callbacks run, called exactly as the SDK calls them. With an
//! annotation active, the HIP API ENTER's recording of it must not allocate either once the
//! thread has seen its stack, nor, inside a ROCTx range, the recording of the range's label.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sim as _; // the SDK symbols the tracer library leaves open
use rocprofiler_sdk_sys as sys;
use xla_rocm_tracer::testing::correlation::stream_external_correlation_callback;
use xla_rocm_tracer::testing::stream_stack::{self, hip_stream_callback};
use xla_rocm_tracer::tracer::annotation::{
    pop_annotation, push_annotation, record_current_annotation, AnnotationMap,
    ThreadAnnotationStack,
};
use xla_rocm_tracer::tracer::roctx;

struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards to the system allocator unchanged; counting has no effect on it.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller keeps GlobalAlloc's contract for `layout`, which is System's too.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as in alloc.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: `ptr` came from this allocator, i.e. from System, with `layout` (caller's contract).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as in realloc: System allocated `ptr` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

struct HipCall {
    payload: sys::rocprofiler_callback_tracing_hip_stream_data_t,
    tid: u64,
    /// Every request carries a fresh internal correlation id, as the SDK's do: a per-id store
    /// on the hot path would grow and allocate.
    next_correlation_id: std::cell::Cell<u64>,
}

/// The SDK stream id of the test thread's `hipStreamPerThread` (newer SDKs give it a lazy id).
const PER_THREAD_ID: u64 = 9;

impl HipCall {
    fn new() -> HipCall {
        HipCall {
            // SAFETY: a plain C struct; all-zero is a valid value.
            payload: unsafe { std::mem::zeroed() },
            // SAFETY: gettid has no arguments and cannot fail.
            tid: unsafe { libc::syscall(libc::SYS_gettid) } as u64,
            next_correlation_id: std::cell::Cell::new(1),
        }
    }

    fn set(&mut self, phase: sys::rocprofiler_callback_phase_t, stream_id: u64) {
        self.payload.size =
            std::mem::size_of::<sys::rocprofiler_callback_tracing_hip_stream_data_t>() as u64;
        self.payload.stream_id.handle = stream_id;
        // As the SDK does: the `hipStream_t` the id stands for. Id 0 is the null stream (0) and
        // id PER_THREAD_ID this thread's `hipStreamPerThread` (2): the tracer notes SETs on
        // those reserved handles for the lane labels.
        self.payload.stream_value.value = match stream_id {
            0 => 0,
            PER_THREAD_ID => 2,
            _ => 0x7f00_0000_0000 + 0x100 * stream_id,
        };
        // SAFETY: a plain C struct; all-zero is a valid value.
        let mut record: sys::rocprofiler_callback_tracing_record_t = unsafe { std::mem::zeroed() };
        record.thread_id = self.tid;
        record.kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM;
        record.operation = sys::ROCPROFILER_HIP_STREAM_SET;
        record.phase = phase;
        record.payload = std::ptr::addr_of_mut!(self.payload).cast();
        let mut user_data = sys::rocprofiler_user_data_t { value: 0 };
        // SAFETY: the record and payload are valid for the call, as the SDK guarantees.
        unsafe { hip_stream_callback(record, &mut user_data, std::ptr::null_mut()) };
    }

    fn request(&self) -> u64 {
        let mut external = sys::rocprofiler_user_data_t { value: u64::MAX };
        let correlation_id = self.next_correlation_id.get();
        self.next_correlation_id.set(correlation_id + 1);
        // SAFETY: a writable user-data slot, as the SDK passes.
        let status = unsafe {
            stream_external_correlation_callback(
                self.tid,
                sys::rocprofiler_context_id_t { handle: 1 },
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
                0,
                correlation_id,
                &mut external,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(status, 0);
        // SAFETY: the callback wrote the `value` member.
        unsafe { external.value }
    }

    /// One HIP call with a stream argument that launches a kernel; returns the stream the
    /// request stamped on it.
    fn launch(&mut self, stream_id: u64) -> u64 {
        self.set(sys::ROCPROFILER_CALLBACK_PHASE_ENTER, stream_id);
        let stamped = self.request();
        self.set(sys::ROCPROFILER_CALLBACK_PHASE_EXIT, stream_id);
        stamped
    }
}

#[test]
fn hip_call_hot_path_makes_no_heap_allocation_after_warm_up() {
    // Registered and set up, the tracer counts the requests in its session ledger, as the SDK's
    // requests are counted.
    xla_rocm_tracer::tracer::Tracer::get();
    std::thread::spawn(|| {
        let mut call = HipCall::new();
        // Warm-up: the thread's first calls may set up its thread-locals (and note the null
        // stream once).
        for stream in [0, 1, 2, 3, 4, PER_THREAD_ID] {
            assert_eq!(call.launch(stream), stream);
        }
        COUNTING.set(true);
        let mut wrong = 0u64;
        for i in 0..100_000u64 {
            let stream = 1 + i % 4;
            wrong += u64::from(call.launch(stream) != stream);
            if i % 8 == 0 {
                wrong += u64::from(call.launch(0) != 0);
                wrong += u64::from(call.launch(PER_THREAD_ID) != PER_THREAD_ID);
            }
            // A nested SET (a HIP call made inside another's window) stays in line too.
            if i % 16 == 0 {
                call.set(sys::ROCPROFILER_CALLBACK_PHASE_ENTER, stream);
                wrong += u64::from(call.launch(stream + 10) != stream + 10);
                wrong += u64::from(call.request() != stream);
                call.set(sys::ROCPROFILER_CALLBACK_PHASE_EXIT, stream);
            }
        }
        COUNTING.set(false);
        assert_eq!(wrong, 0, "requests stamped the wrong stream");
        assert_eq!(
            stream_stack::top(),
            0,
            "every SET ENTER was matched by its EXIT"
        );
        assert_eq!(
            ALLOCATIONS.load(Ordering::Relaxed),
            0,
            "the hot path allocated on the app thread"
        );
    })
    .join()
    .unwrap();
}

/// The annotated hot path: inside two annotations, as XLA writes them, every HIP API ENTER
/// records the thread's annotation for the call. Once the thread's stack has been seen, an
/// unchanged annotation is neither converted, hashed nor stored in a shared map: the thread
/// extends its run in its own log.
#[test]
fn annotated_hip_calls_make_no_heap_allocation_after_warm_up() {
    let map = std::sync::Arc::new(AnnotationMap::new(1024));
    let app_map = map.clone();
    let first_timed = std::thread::spawn(move || {
        let mut call = HipCall::new();
        push_annotation("jit_step");
        push_annotation("fusion.42#hlo_op=fusion.42,hlo_module=jit_step#");
        let annotated_call = |call: &mut HipCall| {
            // HIP API ENTER first, with the id the request will carry.
            record_current_annotation(
                &ThreadAnnotationStack,
                call.next_correlation_id.get(),
                &app_map,
            );
            call.launch(1)
        };
        for _ in 0..16 {
            annotated_call(&mut call);
        }
        let first_timed = call.next_correlation_id.get();
        COUNTING.set(true);
        for _ in 0..100_000u64 {
            assert_eq!(annotated_call(&mut call), 1);
        }
        COUNTING.set(false);
        pop_annotation();
        pop_annotation();
        assert_eq!(
            ALLOCATIONS.load(Ordering::Relaxed),
            0,
            "the annotated hot path allocated on the app thread"
        );
        first_timed
    })
    .join()
    .unwrap();
    // The buffer thread's look-ups see every call's annotation and innermost scope.
    let (first, scope) = map.look_up_with_scope_range_id(first_timed);
    let (last, last_scope) = map.look_up_with_scope_range_id(first_timed + 99_999);
    assert_eq!(
        first.as_deref(),
        Some("jit_step::fusion.42#hlo_op=fusion.42,hlo_module=jit_step#")
    );
    assert_eq!((last, last_scope), (first, scope));
    assert!(scope > 0);
    assert_eq!(map.look_up(first_timed + 100_000), None);
}

/// The annotated hot path inside a ROCTx range: the range's label travels with the annotation
/// in the thread's run, so an unchanged label costs no allocation, no lock and no map entry.
#[test]
fn annotated_hip_calls_inside_a_roctx_range_make_no_heap_allocation_after_warm_up() {
    let map = std::sync::Arc::new(AnnotationMap::new(1024));
    let app_map = map.clone();
    let (first_timed, after_pop) = std::thread::spawn(move || {
        let mut call = HipCall::new();
        push_annotation("jit_step");
        roctx::on_marker_call(
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
            Some("train_step".into()),
            1,
        );
        let annotated_call = |call: &mut HipCall| {
            record_current_annotation(
                &ThreadAnnotationStack,
                call.next_correlation_id.get(),
                &app_map,
            );
            call.launch(1)
        };
        for _ in 0..16 {
            annotated_call(&mut call);
        }
        let first_timed = call.next_correlation_id.get();
        COUNTING.set(true);
        for _ in 0..100_000u64 {
            assert_eq!(annotated_call(&mut call), 1);
        }
        COUNTING.set(false);
        assert_eq!(
            ALLOCATIONS.load(Ordering::Relaxed),
            0,
            "the annotated hot path inside a ROCTx range allocated on the app thread"
        );
        // Outside the annotation, still inside the range: the label alone is recorded.
        pop_annotation();
        let unannotated = call.next_correlation_id.get();
        annotated_call(&mut call);
        (first_timed, unannotated)
    })
    .join()
    .unwrap();
    let first = map.look_up_call(first_timed);
    assert_eq!(first.annotation.as_deref(), Some("jit_step"));
    assert_eq!(first.roctx_label.as_deref(), Some("train_step"));
    assert_eq!(map.look_up_call(first_timed + 99_999), first);
    let label_only = map.look_up_call(after_pop);
    assert_eq!(
        (label_only.annotation, label_only.scope_range_id),
        (None, 0)
    );
    assert_eq!(label_only.roctx_label.as_deref(), Some("train_step"));
    assert_eq!(map.look_up_call(after_pop + 1), Default::default());
}
