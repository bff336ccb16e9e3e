//! `[machine]`: the simulated machine's keys over the default machine (SCENARIOS.md
//! "Machine"), each checked alone so that an error names its line, and the GPUs the
//! visibility keys leave to HIP (docs/simulator-fidelity.md#agents).
use super::Locator;
use crate::machine::Machine;
use crate::scenario::error::ScenarioError;
use std::collections::BTreeMap;
use toml::Spanned;

/// `[machine]` over the default machine, each key checked alone so that an error names its
/// line; a visibility list must name a GPU (omit the key to show all).
pub(super) fn machine(
    at: &Locator,
    keys: &BTreeMap<Spanned<String>, toml::Value>,
) -> Result<(Machine, toml::Table), ScenarioError> {
    let mut table = toml::Table::new();
    for (key, value) in keys {
        let one = toml::Table::from_iter([(key.get_ref().clone(), value.clone())]);
        Machine::default().overlaid(&one).map_err(|e| {
            match e.contains(key.get_ref().as_str()) {
                true => at.error(key.span(), format!("[machine] {e}")),
                false => at.error(key.span(), format!("[machine] {}: {e}", key.get_ref())),
            }
        })?;
        if key.get_ref().ends_with("visible_devices")
            && value.as_str().is_some_and(|v| v.trim().is_empty())
        {
            return Err(at.error(
                key.span(),
                "a visibility list must name at least one GPU (omit the key to show all)",
            ));
        }
        table.insert(key.get_ref().clone(), value.clone());
    }
    let machine = Machine::default()
        .overlaid(&table)
        .map_err(|e| at.error(0..0, format!("[machine] {e}")))?;
    Ok((machine, table))
}

/// The GPUs HIP sees on `machine` (step devices count these); none is an error at the first
/// visibility key.
pub(super) fn hip_devices(
    at: &Locator,
    keys: &BTreeMap<Spanned<String>, toml::Value>,
    machine: &Machine,
) -> Result<u32, ScenarioError> {
    let hip_devices =
        crate::engine::agents::hip_device_order(machine.gpus, &machine.visibility()).len() as u32;
    if hip_devices == 0 {
        let span = keys
            .keys()
            .find(|k| k.get_ref().ends_with("visible_devices"))
            .map_or(0..0, |k| k.span());
        return Err(at.error(span, "the visibility lists leave no GPU to HIP"));
    }
    Ok(hip_devices)
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};

    #[test]
    fn keys_set_the_machine_and_are_kept_for_its_environment() {
        let s = parsed(&with_steps(
            "[machine]\ngpus = 2\nrocm = \"7.14\"\nclock = \"virtual\"",
            "{ sync_device = true }",
        ));
        assert_eq!(s.machine.gpus, 2);
        assert_eq!(s.machine_keys.len(), 3);
        assert!(s.machine_env().iter().any(|(k, _)| *k == "ROCSIM_MACHINE"));
    }

    #[test]
    fn no_machine_table_is_the_default_machine() {
        let s = parsed(&with_steps("", "{ sync_device = true }"));
        assert_eq!(s.machine, crate::machine::Machine::default());
        assert!(s.machine_keys.is_empty());
    }

    #[test]
    fn a_wrong_key_is_refused_at_its_line() {
        let message = refused(&with_steps(
            "[machine]\ngpus = 1\ngpuz = 2",
            "{ sync_device = true }",
        ));
        assert!(message.starts_with("3:1: [machine] "), "{message}");
        assert!(message.contains("gpuz"), "{message}");
        let message = refused(&with_steps(
            "[machine]\n\ngpus = \"two\"",
            "{ sync_device = true }",
        ));
        assert!(message.starts_with("3:1: [machine] "), "{message}");
    }

    #[test]
    fn a_visibility_list_must_name_a_gpu() {
        let message = refused(&with_steps(
            "[machine]\nhip_visible_devices = \" \"",
            "{ sync_device = true }",
        ));
        assert!(
            message.ends_with(
                "a visibility list must name at least one GPU (omit the key to show all)"
            ),
            "{message}"
        );
    }

    #[test]
    fn visibility_leaving_no_gpu_to_hip_is_refused() {
        let message = refused(&with_steps(
            "[machine]\ngpus = 1\nhip_visible_devices = \"3\"",
            "{ sync_device = true }",
        ));
        assert!(
            message.ends_with("the visibility lists leave no GPU to HIP"),
            "{message}"
        );
    }
}
