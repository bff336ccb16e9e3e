//! SDK failures during initialization (inside the tool's `initialize`, before `main`): each
//! one leaves the tracer unavailable, with the failing call and the SDK's status string kept
//! for `enable()`. The SDK initializes once per process, so every fault runs in a re-executed
//! child of this test binary with `ROCSIM_FAULTS` set.
mod tracer_common;

use rocprofiler_sdk_sim::driver;
use sim_test_kit::child;
use tracer_common::RecordingSink;
use xla_rocm_tracer::testing::sdk;
use xla_rocm_tracer::tracer::{Tracer, TracerError, TracerOptions};

/// (ROCSIM_FAULTS rule, failing call, status).
const FAULTS: &[(&str, &str, u32)] = &[
    ("rocprofiler_get_version=1", "rocprofiler_get_version", 1),
    (
        "rocprofiler_iterate_callback_tracing_kind_operations=19",
        "rocprofiler_iterate_callback_tracing_kind_operations",
        19,
    ),
    (
        "rocprofiler_query_available_agents=18",
        "rocprofiler_query_available_agents",
        18,
    ),
    (
        "rocprofiler_create_context@1=29",
        "rocprofiler_create_context",
        29,
    ),
    (
        "rocprofiler_create_context@2=29",
        "rocprofiler_create_context",
        29,
    ),
    (
        "rocprofiler_create_context@3=29",
        "rocprofiler_create_context",
        29,
    ),
    (
        "rocprofiler_configure_callback_tracing_service@1=4",
        "rocprofiler_configure_callback_tracing_service",
        4,
    ),
    (
        "rocprofiler_configure_callback_tracing_service@3=15",
        "rocprofiler_configure_callback_tracing_service",
        15,
    ),
    // Calls 2, 4, 5, 6 and 7 configure HIP's RUNTIME_INITIALIZATION notice, the stream names
    // (MARKER_NAME_API), the ROCTx ranges (MARKER_CORE_API, MARKER_CORE_RANGE_API) and the
    // allocation functions (HIP_RUNTIME_API, for the copies' memory kinds), which may fail:
    // see `a_failed_stream_name_service_leaves_the_tracer_available`. On an SDK with
    // HIP_GRAPH tracing (7.14 on), call 9 configures it, last, and may fail too.
    (
        "rocprofiler_configure_callback_tracing_service@8=16",
        "rocprofiler_configure_callback_tracing_service",
        16,
    ),
    (
        "rocprofiler_start_context@1=10",
        "rocprofiler_start_context",
        10,
    ),
    (
        "rocprofiler_start_context@2=12",
        "rocprofiler_start_context",
        12,
    ),
    (
        "rocprofiler_create_buffer=29",
        "rocprofiler_create_buffer",
        29,
    ),
    (
        "rocprofiler_configure_buffer_tracing_service@1=3",
        "rocprofiler_configure_buffer_tracing_service",
        3,
    ),
    (
        "rocprofiler_configure_buffer_tracing_service@3=15",
        "rocprofiler_configure_buffer_tracing_service",
        15,
    ),
    (
        "rocprofiler_configure_external_correlation_id_request_service=4",
        "rocprofiler_configure_external_correlation_id_request_service",
        4,
    ),
    (
        "rocprofiler_create_callback_thread=29",
        "rocprofiler_create_callback_thread",
        29,
    ),
    (
        "rocprofiler_assign_callback_thread=3",
        "rocprofiler_assign_callback_thread",
        3,
    ),
    (
        "rocprofiler_context_is_valid=2",
        "rocprofiler_context_is_valid",
        2,
    ),
    (
        "rocprofiler_force_configure=16",
        "rocprofiler_force_configure",
        16,
    ),
];

#[test]
fn every_initialization_fault_makes_the_tracer_unavailable() {
    if child::is_any_child() {
        return;
    }
    for (rule, call, status) in FAULTS {
        let output = child::rerun(
            "child_reports_unavailable",
            &[
                ("ROCSIM_FAULTS", rule),
                ("EXPECTED_CALL", call),
                ("EXPECTED_STATUS", &status.to_string()),
            ],
        );
        child::assert_passed(rule, &output);
    }
}

/// Runs only in a child: checks the fault named by the environment.
#[test]
fn child_reports_unavailable() {
    if !child::is_any_child() {
        return;
    }
    let call = std::env::var("EXPECTED_CALL").unwrap();
    let status: u32 = std::env::var("EXPECTED_STATUS").unwrap().parse().unwrap();
    let tracer = Tracer::get();
    assert!(!tracer.is_available());
    let Some(TracerError::Unavailable(reason)) = tracer.init_error() else {
        panic!("unavailable expected, got {:?}", tracer.init_error());
    };
    assert!(reason.contains(&call), "{reason}");
    assert!(reason.contains(&sdk::status_string(status)), "{reason}");
    let error = tracer
        .enable(TracerOptions::default(), RecordingSink::new())
        .unwrap_err();
    assert!(
        error.to_string().contains(&sdk::status_string(status)),
        "{error}"
    );
    // As in XLA, the agents stay listed when start-up fails after querying them; only a
    // failure at or before the query leaves none.
    let before_agent_query = [
        "rocprofiler_force_configure",
        "rocprofiler_get_version",
        "rocprofiler_query_available_agents",
    ];
    if before_agent_query.contains(&call.as_str()) {
        assert_eq!(tracer.num_gpus(), 0, "{call}");
        assert!(tracer.agents().is_none(), "{call}");
    } else {
        assert!(tracer.num_gpus() >= 1, "{call}: GPU agents lost");
        assert!(tracer
            .agents()
            .is_some_and(|agents| agents.gpus().len() == tracer.num_gpus() as usize));
    }
    tracer.disable();

    // A failed tracer must not disturb the program: HIP calls keep working.
    let stream = driver::stream_create().unwrap();
    driver::memcpy_async(
        stream,
        &driver::Copy {
            kind: driver::CopyKind::HostToDevice,
            bytes: 64,
            src_device: None,
            dst_device: None,
            duration_ns: 1_000,
        },
    )
    .unwrap();
    driver::stream_synchronize(stream).unwrap();
    assert!(tracer.stream_context().is_none());
}

#[test]
fn the_tracer_registers_before_main() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun("child_sdk_is_initialized_before_first_use", &[]);
    child::assert_passed("load-time registration", &output);
}

/// Runs only in a child, before anything touches the tracer: the load-time constructor must
/// already have forced the SDK's configuration and run the tool's initialize.
#[test]
fn child_sdk_is_initialized_before_first_use() {
    if !child::is_any_child() {
        return;
    }
    assert_eq!(sdk::is_initialized().unwrap(), 1);
    assert_ne!(xla_rocm_tracer::testing::registration::client_handle(), 0);
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
}

#[test]
fn a_failed_stream_name_service_leaves_the_tracer_available() {
    if child::is_any_child() {
        return;
    }
    // Call 2: the notice of HIP's initialization (the "no GPU events" diagnosis,
    // src/tracer/sdk/hip_runtime_reach.rs); call 4: the stream names; calls 5 and 6: the ROCTx
    // ranges of either marker domain; call 7: the allocation functions (memory kinds,
    // src/tracer/hip_api/memory_kinds.rs).
    for rule in [
        "rocprofiler_configure_callback_tracing_service@2=16",
        "rocprofiler_configure_callback_tracing_service@4=16",
        "rocprofiler_configure_callback_tracing_service@5=16",
        "rocprofiler_configure_callback_tracing_service@6=16",
        "rocprofiler_configure_callback_tracing_service@7=16",
    ] {
        let output = child::rerun("child_is_available", &[("ROCSIM_FAULTS", rule)]);
        child::assert_passed(rule, &output);
    }
}

/// On an SDK with HIP_GRAPH tracing, call 9 subscribes to it, last: graph node ordinals are
/// optional too (the collector numbers them by dispatch order without it).
#[test]
fn a_failed_hip_graph_service_leaves_the_tracer_available() {
    if child::is_any_child() {
        return;
    }
    let rule = "rocprofiler_configure_callback_tracing_service@9=16";
    let output = child::rerun(
        "child_is_available",
        &[
            ("ROCSIM_FAULTS", rule),
            ("ROCSIM_MACHINE", "rocm = \"7.14\""),
        ],
    );
    child::assert_passed(rule, &output);
}

/// Runs only in a child: ROCTx stream names and ranges and the notice of HIP's initialization
/// are optional, the tracer works without them.
#[test]
fn child_is_available() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
}
