//! SCENARIOS.md's "Machine" table is the documentation of `Machine` (`src/machine.rs`): this
//! fails when a key is added, removed or renamed on one side only, or a default drifts.
use rocprofiler_sdk_sim::machine::Machine;

/// (key, default cell) of every row of the "## Machine" table.
fn documented() -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("SCENARIOS.md");
    let text = std::fs::read_to_string(path).unwrap();
    let section = text
        .split("\n## Machine\n")
        .nth(1)
        .expect("a ## Machine section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter_map(|line| {
            let mut cells = line.strip_prefix("| `")?.split(" | ");
            let key = cells.next()?.strip_suffix('`')?.to_owned();
            Some((key, cells.next()?.to_owned()))
        })
        .collect()
}

#[test]
fn the_machine_table_lists_every_key_with_its_default() {
    // Every key, also the optional ones, as the environment variable carries them.
    let every = Machine::parse(
        "stream_map = \"newer\", seed = 1, hip_visible_devices = \"0\", \
         rocr_visible_devices = \"0\", cuda_visible_devices = \"0\", gpu_device_ordinal = \"0\"",
    )
    .unwrap();
    let fields: Vec<String> = toml::Table::try_from(&every)
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let rows = documented();
    let mut keys: Vec<String> = rows.iter().map(|(k, _)| k.clone()).collect();
    keys.sort();
    assert_eq!(keys, fields, "SCENARIOS.md \"Machine\" vs src/machine.rs");
    let defaults = toml::Table::try_from(Machine::default()).unwrap();
    for (key, cell) in rows {
        match defaults.get(&key) {
            Some(value) => assert_eq!(cell, format!("`{value}`"), "default of {key}"),
            None => assert!(cell.starts_with("unset"), "{key} has no default: {cell}"),
        }
    }
}

#[test]
fn no_removed_simulator_mode_is_accepted() {
    for earlier in [
        "statuses = \"sim\"",
        "correlation = \"sim\"",
        "finalize_flush = true",
    ] {
        let error = Machine::parse(earlier).unwrap_err();
        assert!(error.contains("unknown field"), "{earlier}: {error}");
    }
}
