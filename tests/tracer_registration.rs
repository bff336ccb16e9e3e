//! The tracer registers with the SDK when it is loaded, before the program's first HIP call:
//! on SDK 1.0.0 (ROCm 7.0) a stream created before the tracer's HIP_STREAM context existed is
//! unknown to the SDK, and the first HIP call on it aborts the process.
mod tracer_common;

use rocprofiler_sdk_sim::driver::{self, KernelLaunch};
use sim_test_kit::child;
use tracer_common::start_recording;
use xla_rocm_tracer::event::EventSource;
use xla_rocm_tracer::testing::registration::CLIENT_NAME;
use xla_rocm_tracer::tracer::Tracer;

#[test]
fn a_stream_created_before_the_first_tracer_call_is_traced() {
    // A fresh process: nothing has called into the tracer before this body.
    if !child::in_child(
        "a_stream_created_before_the_first_tracer_call_is_traced",
        &[(
            "ROCSIM_MACHINE",
            "clock = \"virtual\", stream_map = \"sdk-1.0\"",
        )],
    ) {
        return;
    }
    let name = CLIENT_NAME.to_str().unwrap().to_owned();
    assert!(
        rocprofiler_sdk_sim::client_names()
            .iter()
            .any(|(_, client)| client.as_deref() == Some(name.as_str())),
        "the tracer registered at load, before main: {:?}",
        rocprofiler_sdk_sim::client_names()
    );
    // Created before the program's first call into the tracer. Were the tracer's HIP_STREAM
    // context created later, the SDK would never map this stream and the launch below would
    // abort the process.
    let stream = driver::stream_create().unwrap();
    let (_, kernels) = driver::load_code_object(0, &["_Z4stepv"]).unwrap();
    let tracer = Tracer::get();
    assert!(tracer.init_error().is_none(), "{:?}", tracer.init_error());
    let sink = start_recording(tracer);
    let id = driver::launch_kernel(
        stream,
        &KernelLaunch {
            kernel: kernels[0],
            grid: [64, 1, 1],
            block: [64, 1, 1],
            private_segment_size: 0,
            group_segment_size: 0,
            duration_ns: 1_000,
        },
    )
    .unwrap();
    driver::stream_synchronize(stream).unwrap();
    tracer.disable();
    let activity = sink
        .by_correlation(id)
        .into_iter()
        .find(|event| event.source == EventSource::Activity)
        .expect("the kernel's record");
    assert_eq!(activity.stream_id, driver::sdk_stream_id(stream).unwrap());
}
