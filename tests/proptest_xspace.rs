//! Bad trace files: random bytes, truncated and bit-flipped encodings of a real exported
//! XSpace. `read_xspace` returns a trace or a clear error (empty, truncated, not an XSpace);
//! it never panics, and a valid trace reads back unchanged.
mod reliability_support;

use std::sync::OnceLock;

use proptest::prelude::*;
use reliability_support::synthetic_pair;
use xla_rocm_tracer::collector::{
    CaptureStart, Collector, CollectorOptions, DropReason, GpuAgentInfo,
};
use xla_rocm_tracer::export::{encode_xspace, read_xspace, read_xspace_file, ExportOptions};
use xla_rocm_tracer::export::{TraceError, XSpace};
use xla_rocm_tracer::sink::EventSink;

const GPU: u64 = 301;

/// A small but complete exported trace: host plane, a GPU plane with stream lines, stats,
/// warnings.
fn valid_space() -> &'static (XSpace, Vec<u8>) {
    static SPACE: OnceLock<(XSpace, Vec<u8>)> = OnceLock::new();
    SPACE.get_or_init(|| {
        let collector = Collector::new(
            CollectorOptions {
                num_gpus: 1,
                max_activity_api_events: 40,
                ..CollectorOptions::default()
            },
            CaptureStart {
                walltime_ns: 1_700_000_000_000_000_000,
                gputime_ns: 1_000,
            },
        );
        collector.set_gpu_agents(vec![GpuAgentInfo {
            handle: GPU,
            name: "gfx942".into(),
            ..GpuAgentInfo::default()
        }]);
        let mut batch: Vec<_> = (0..50)
            .flat_map(|i| synthetic_pair(i, GPU, 1_000))
            .collect();
        collector.add_events(&mut batch);
        collector.on_events_dropped(DropReason::SdkDropped, 3);
        let space = collector.export(10_000_000, &ExportOptions::default());
        let bytes = encode_xspace(&space);
        (space, bytes)
    })
}

fn check_error(error: &TraceError) {
    let shown = error.to_string();
    assert!(!shown.is_empty());
    assert!(
        matches!(
            error,
            TraceError::Empty | TraceError::Truncated(_) | TraceError::NotXSpace(_)
        ),
        "{error:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(debug_assertions) { 256 } else { 4096 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_read_as_a_trace_or_a_clear_error(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048)
    ) {
        if let Err(error) = read_xspace(&bytes) {
            check_error(&error);
        }
    }

    #[test]
    fn truncated_traces_read_as_a_prefix_or_a_clear_error(cut in any::<prop::sample::Index>()) {
        let (space, bytes) = valid_space();
        let cut = cut.index(bytes.len());
        match read_xspace(&bytes[..cut]) {
            // A cut at a field boundary is a valid, shorter trace.
            Ok(prefix) => prop_assert!(prefix.planes.len() <= space.planes.len()),
            Err(error) => check_error(&error),
        }
    }

    #[test]
    fn corrupted_traces_read_as_a_trace_or_a_clear_error(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16)
    ) {
        let mut bytes = valid_space().1.clone();
        for (at, value) in flips {
            let at = at.index(bytes.len());
            bytes[at] ^= value | 1;
        }
        if let Err(error) = read_xspace(&bytes) {
            check_error(&error);
        }
    }
}

#[test]
fn a_valid_trace_reads_back_unchanged() {
    let (space, bytes) = valid_space();
    assert!(space.planes.len() >= 2 && !space.warnings.is_empty());
    assert_eq!(&read_xspace(bytes).unwrap(), space);
    assert!(matches!(read_xspace(&[]), Err(TraceError::Empty)));
    assert!(matches!(
        read_xspace(b"{\"traceEvents\": []}"),
        Err(TraceError::NotXSpace(_))
    ));
    let truncated = read_xspace(&bytes[..bytes.len() / 2]);
    assert!(
        matches!(truncated, Err(TraceError::Truncated(_))),
        "{truncated:?}"
    );
    let missing = read_xspace_file("/nonexistent/dir/trace.xplane.pb").unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("/nonexistent/dir/trace.xplane.pb"),
        "{missing}"
    );
}
