//! Trace bytes -> an XSpace or a clear error, never a panic; what reads back re-encodes to
//! something that reads back the same.
#![no_main]
use libfuzzer_sys::fuzz_target;
// The tracer library leaves the SDK symbols to the final link; the simulator supplies them.
use rocprofiler_sdk_sim as _;
use xla_rocm_tracer::export::{encode_xspace, read_xspace};

fuzz_target!(|data: &[u8]| {
    match read_xspace(data) {
        Ok(space) => {
            let again = read_xspace(&encode_xspace(&space)).expect("a re-encoded trace reads");
            assert_eq!(again, space);
        }
        Err(error) => assert!(!error.to_string().is_empty()),
    }
});
