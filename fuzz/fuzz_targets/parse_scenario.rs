//! Scenario text -> a scenario or a located error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocprofiler_sdk_sim::scenario;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(error) = scenario::parse_str(&text, "fuzz.toml") {
        assert!(!error.message.is_empty());
        assert!(error.line <= text.lines().count() + 1);
    }
});
