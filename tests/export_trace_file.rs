//! Reading and writing `.xplane.pb` files: round trips, and clear errors (never a panic) for
//! empty, truncated, corrupt or foreign files.
mod collector_support;

use collector_support::*;
use proptest::prelude::*;
use xla_rocm_tracer::event::EventType;
use xla_rocm_tracer::export::{
    encode_xspace, read_xspace, read_xspace_file, write_xspace, TraceError,
};
use xla_rocm_tracer::sink::EventSink;

fn sample_bytes() -> Vec<u8> {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 5, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 0, 2_010_000, "k"),
        copy_api(2, 5, 2_100_000),
        memcpy(2, EventType::MemcpyD2H, AGENT0, 4, 2_200_000, 512),
    ]);
    encode_xspace(&export(&collector))
}

#[test]
fn written_file_reads_back_equal() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 5, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 0, 2_010_000, "k"),
    ]);
    let space = export(&collector);
    let path = std::env::temp_dir().join(format!(
        "export_trace_file_{}.xplane.pb",
        std::process::id()
    ));
    write_xspace(&path, &space).unwrap();
    let read = read_xspace_file(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(read, space);
}

#[test]
fn empty_truncated_and_foreign_inputs_are_named_errors() {
    assert!(matches!(read_xspace(&[]), Err(TraceError::Empty)));
    let bytes = sample_bytes();
    let truncated = read_xspace(&bytes[..bytes.len() / 2]).unwrap_err();
    assert!(matches!(truncated, TraceError::Truncated(_)), "{truncated}");
    assert!(truncated.to_string().contains("truncated"));
    let text = read_xspace(b"{\"traceEvents\": []}\n").unwrap_err();
    assert!(matches!(text, TraceError::NotXSpace(_)), "{text}");
    assert!(text.to_string().starts_with("not an XSpace"));
}

#[test]
fn missing_file_error_names_the_path() {
    let error = read_xspace_file("/nonexistent/dir/trace.xplane.pb").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("/nonexistent/dir/trace.xplane.pb: "),
        "{error}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = read_xspace(&bytes);
    }

    #[test]
    fn every_prefix_of_a_trace_is_handled(cut in 0usize..10_000) {
        let bytes = sample_bytes();
        let cut = cut % bytes.len();
        let result = read_xspace(&bytes[..cut]);
        if cut == 0 {
            prop_assert!(matches!(result, Err(TraceError::Empty)));
        }
    }

    #[test]
    fn flipped_bytes_never_panic(index in 0usize..10_000, value in any::<u8>()) {
        let mut bytes = sample_bytes();
        let index = index % bytes.len();
        bytes[index] = value;
        let _ = read_xspace(&bytes);
    }
}
