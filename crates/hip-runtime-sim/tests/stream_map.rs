//! HIP calls on streams the SDK's stream map lacks, under the size-indexed maps of SDK 1.0.0
//! to 1.3.0 (ROCm 7.0 to 7.13; 7.1 is the simulator's default) with the tracer's HIP_STREAM
//! context active: the SDK's wrappers run before HIP validates the stream, so a call on a
//! never-created `hipStream_t` aborts the process under 7.0 (the SDK's `std::out_of_range`)
//! and enters the map under 7.1 (ROCm/rocm-systems#1488), while a destroyed stream still has
//! its map entry. Each case runs in a child process.
use amdhip64::api::stream::*;
use amdhip64::error::*;
use sim_test_kit::child;
use xla_rocm_tracer::tracer::Tracer;

// The simulated SDK provides the SDK and `rocsim_*` driver symbols.
use rocprofiler_sdk_sim as _;

/// In the parent: runs `test` in a child and checks how it ended (`abort`: killed by SIGABRT
/// with the SDK's story on stderr; otherwise passed), returns false. In the child: true.
fn in_child(test: &str, abort: bool) -> bool {
    if abort {
        let rocm_7_0 = ("ROCSIM_MACHINE", "rocm = \"7.0\"");
        child::aborts_in_child(test, &[rocm_7_0], &["std::out_of_range"])
    } else {
        child::in_child(test, &[])
    }
}

#[test]
fn a_call_on_a_never_created_stream_is_mapped_from_rocm_7_1() {
    if !in_child(
        "a_call_on_a_never_created_stream_is_mapped_from_rocm_7_1",
        false,
    ) {
        return;
    }
    assert!(Tracer::get().is_available());
    assert_ne!(
        hipStreamSynchronize(0xdead_0000),
        HIP_SUCCESS,
        "HIP rejects it"
    );
}

#[test]
fn a_call_on_a_never_created_stream_aborts() {
    if !in_child("a_call_on_a_never_created_stream_aborts", true) {
        return;
    }
    assert!(Tracer::get().is_available());
    let _ = hipStreamSynchronize(0xdead_0000);
    unreachable!("the SDK's SET on an unmapped stream ends the process");
}

#[test]
fn a_call_on_a_destroyed_stream_fails_without_aborting() {
    if !in_child("a_call_on_a_destroyed_stream_fails_without_aborting", false) {
        return;
    }
    assert!(Tracer::get().is_available());
    let mut stream = 0u64;
    // SAFETY: `stream` is a live local for HIP to write.
    assert_eq!(unsafe { hipStreamCreate(&mut stream) }, HIP_SUCCESS);
    assert_eq!(hipStreamDestroy(stream), HIP_SUCCESS);
    // DESTROY kept the map entry: the SET finds it, HIP rejects the handle.
    assert_eq!(hipStreamQuery(stream), HIP_ERROR_CONTEXT_IS_DESTROYED);
}

#[test]
fn a_failed_create_moves_the_null_stream_to_a_new_id() {
    if !in_child("a_failed_create_moves_the_null_stream_to_a_new_id", false) {
        return;
    }
    assert!(Tracer::get().is_available());
    use rocprofiler_sdk_sim::driver::sdk_stream_id;
    assert_eq!(sdk_stream_id(0).unwrap(), 0);
    // Bad flags: HIP fails and leaves `stream` as it was (the null stream). The SDK's CREATE
    // wrapper adds that value to its map anyway, under a new id.
    let mut stream = 0u64;
    assert_eq!(
        // SAFETY: `stream` is a live local for HIP to write.
        unsafe { hipStreamCreateWithFlags(&mut stream, 0x80) },
        HIP_ERROR_INVALID_VALUE
    );
    assert_eq!(stream, 0);
    assert_ne!(sdk_stream_id(0).unwrap(), 0);
    assert_eq!(hipStreamSynchronize(0), HIP_SUCCESS);
}

/// SDK 1.0.0 (ROCm 7.0) only: 1.1.0 takes `hipStreamPerThread` for the null stream (#343).
#[test]
fn destroying_hip_stream_per_thread_aborts() {
    if !child::aborts_in_child(
        "destroying_hip_stream_per_thread_aborts",
        &[("ROCSIM_MACHINE", "rocm = \"7.0\"")],
        &["std::out_of_range"],
    ) {
        return;
    }
    assert!(Tracer::get().is_available());
    let _ = hipStreamDestroy(2);
    unreachable!("the SDK's DESTROY lookup of hipStreamPerThread ends the process");
}
