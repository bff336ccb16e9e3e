//! The simulated machine's keys as the probe hands them to the simulator: `ROCSIM_MACHINE`,
//! the one variable the simulated SDK and HIP runtime read their `Machine` from
//! (crates/rocprofiler-sdk-sim/SCENARIOS.md#machine). Both the runner (which sets it for its
//! children) and the report (which records it) read it here.

/// The simulator's one configuration variable (rocprofiler-sdk-sim `machine.rs`).
pub const MACHINE_VARIABLE: &str = "ROCSIM_MACHINE";

/// The machine keys of `ROCSIM_MACHINE`, read as the simulator reads it: one line is an inline
/// table's keys, several lines a TOML document. Unreadable text gives no keys (the simulator
/// reports it).
pub fn machine_keys() -> toml::Table {
    let Ok(text) = std::env::var(MACHINE_VARIABLE) else {
        return toml::Table::new();
    };
    if text.contains('\n') {
        return toml::from_str(&text).unwrap_or_default();
    }
    let outer: toml::Table = toml::from_str(&format!("m = {{ {text} }}")).unwrap_or_default();
    match outer.get("m") {
        Some(toml::Value::Table(keys)) => keys.clone(),
        _ => toml::Table::new(),
    }
}
