//! HIP's device numbering, worked out from the visibility variables the way the runtimes read
//! them, since the tracer may not ask HIP (docs/xla-interface.md#device-numbering).
//!
//! XLA's GPU ordinal is the HIP device number (`hipSetDevice(n)`). The SDK lists every GPU in
//! KFD node order (`logical_node_type_id` 0, 1, ...) and marks with its `runtime_visibility` hip
//! bit which ones HIP sees, but not in which order, and its own reading of the variables is not
//! HIP's. HIP's numbering comes in two steps:
//!
//! 1. ROCr (`ROCR_VISIBLE_DEVICES`, ROCr's `RvdFilter`): comma-separated GPU indices (in KFD
//!    order) or `GPU-<uuid>` prefixes, trimmed; the GPUs it names, in list order, are HSA's
//!    GPUs. The first token that is not a valid index or unique UUID prefix, or repeats a GPU,
//!    ends the list; an empty value hides every GPU. Unset: every GPU, in KFD order.
//! 2. HIP (CLR's `rocdevice.cpp` device init): `HIP_VISIBLE_DEVICES`, or when that is unset or
//!    empty `CUDA_VISIBLE_DEVICES`, comma-separated indices into HSA's GPUs (exact decimal
//!    text: no spaces, signs or leading zeros) or `GPU-<uuid>`; HIP device `k` is the `k`-th
//!    valid entry. The first invalid entry ends the list, a repeated one is skipped.
//!    `GPU_DEVICE_ORDINAL` is OpenCL's and does not count for HIP (the SDK's hip bit does
//!    honour it, which is one reason the bit is not used when any variable is set).
use std::collections::HashSet;

/// The visibility variables of this process, as HIP reads them at its initialization.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VisibilityVariables {
    pub rocr_visible_devices: Option<String>,
    pub hip_visible_devices: Option<String>,
    pub cuda_visible_devices: Option<String>,
    pub gpu_device_ordinal: Option<String>,
}

impl VisibilityVariables {
    pub fn from_process() -> VisibilityVariables {
        let var = |name| std::env::var(name).ok();
        VisibilityVariables {
            rocr_visible_devices: var("ROCR_VISIBLE_DEVICES"),
            hip_visible_devices: var("HIP_VISIBLE_DEVICES"),
            cuda_visible_devices: var("CUDA_VISIBLE_DEVICES"),
            gpu_device_ordinal: var("GPU_DEVICE_ORDINAL"),
        }
    }

    /// Whether any variable that hides or reorders GPUs is set.
    pub fn any_set(&self) -> bool {
        self.rocr_visible_devices.is_some()
            || self.hip_visible_devices.is_some()
            || self.cuda_visible_devices.is_some()
            || self.gpu_device_ordinal.is_some()
    }
}

/// HIP's devices: for HIP device 0, 1, ... the index into `uuids`, which lists every GPU in KFD
/// order (by `logical_node_type_id`) with its UUID as ROCr spells it (16 hex digits), if known.
pub fn hip_device_order(uuids: &[Option<String>], variables: &VisibilityVariables) -> Vec<usize> {
    let hsa = match &variables.rocr_visible_devices {
        None => (0..uuids.len()).collect(),
        Some(list) => rocr_selection(list, uuids),
    };
    let list = [
        &variables.hip_visible_devices,
        &variables.cuda_visible_devices,
    ]
    .into_iter()
    .flatten()
    .find(|list| !list.is_empty());
    let Some(list) = list else {
        return hsa;
    };
    let hsa_uuids: Vec<&Option<String>> = hsa.iter().map(|&gpu| &uuids[gpu]).collect();
    let mut devices = Vec::new();
    let mut seen = HashSet::new();
    for token in list.split(',') {
        let index = match token.strip_prefix("GPU-") {
            // CLR looks the text up in each device's UUID string.
            Some(_) => hsa_uuids.iter().position(|uuid| {
                uuid.as_ref().is_some_and(|uuid| {
                    format!("GPU-{uuid}")
                        .to_ascii_lowercase()
                        .contains(&token.to_ascii_lowercase())
                })
            }),
            None => exact_index(token).filter(|&index| index < hsa.len()),
        };
        let Some(index) = index else { break };
        if seen.insert(index) {
            devices.push(hsa[index]);
        }
    }
    devices
}

/// ROCr's reading of `ROCR_VISIBLE_DEVICES`: GPU indices in list order, up to the first
/// illegal or terminating token. Tokens are trimmed; an index is read as C's `strtol` with
/// base 0 reads it (`0x` hex, leading-zero octal) and must be the whole token; a token that
/// starts with `G` is a case-insensitive prefix of exactly one `GPU-<16 hex digits>` UUID.
/// At most as many tokens as GPUs are read.
fn rocr_selection(list: &str, uuids: &[Option<String>]) -> Vec<usize> {
    let mut selected = Vec::new();
    if list.is_empty() {
        return selected;
    }
    let names: Vec<Option<String>> = uuids
        .iter()
        .map(|uuid| {
            uuid.as_ref()
                .map(|uuid| format!("GPU-{uuid}").to_ascii_uppercase())
        })
        .collect();
    for token in list.split(',').take(uuids.len()) {
        let token = token.trim().to_ascii_uppercase();
        let gpu = if token.starts_with('G') {
            let mut matches = names.iter().enumerate().filter(|(_, name)| {
                (5..=20).contains(&token.len())
                    && name.as_ref().is_some_and(|name| name.starts_with(&token))
            });
            match (matches.next(), matches.next()) {
                (Some((gpu, _)), None) => Some(gpu),
                _ => None,
            }
        } else {
            c_integer(&token)
                .and_then(|value| usize::try_from(value).ok())
                .filter(|&gpu| gpu < uuids.len())
        };
        match gpu {
            Some(gpu) if !selected.contains(&gpu) => selected.push(gpu),
            _ => break,
        }
    }
    selected
}

/// `text` read as C's `strtol(text, &end, 0)` with `*end == 0`: an optional sign, then `0x`
/// hex, `0` octal or decimal digits, nothing after.
fn c_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let value = if let Some(hex) = digits
        .strip_prefix("0X")
        .or_else(|| digits.strip_prefix("0x"))
    {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse::<i64>().ok()?
    };
    if digits.starts_with(['+', '-']) {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// `text` as a device index if it is exactly the decimal spelling of one (CLR compares the
/// token with the index printed back).
fn exact_index(text: &str) -> Option<usize> {
    let index: usize = text.parse().ok()?;
    (index.to_string() == text).then_some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpus(count: usize) -> Vec<Option<String>> {
        (0..count)
            .map(|gpu| Some(format!("{:016x}", 0xabcd_0000_0000_0000u64 + gpu as u64)))
            .collect()
    }

    fn order(rocr: Option<&str>, hip: Option<&str>, cuda: Option<&str>) -> Vec<usize> {
        let variables = VisibilityVariables {
            rocr_visible_devices: rocr.map(Into::into),
            hip_visible_devices: hip.map(Into::into),
            cuda_visible_devices: cuda.map(Into::into),
            gpu_device_ordinal: None,
        };
        hip_device_order(&gpus(4), &variables)
    }

    #[test]
    fn hip_numbers_devices_in_list_order() {
        assert_eq!(order(None, None, None), [0, 1, 2, 3]);
        assert_eq!(order(None, Some("2,0"), None), [2, 0]);
        assert_eq!(order(None, Some("3,1"), None), [3, 1]);
        // CUDA_VISIBLE_DEVICES counts when HIP_VISIBLE_DEVICES is unset or empty.
        assert_eq!(order(None, None, Some("1")), [1]);
        assert_eq!(order(None, Some(""), Some("1")), [1]);
        assert_eq!(order(None, Some("0"), Some("1")), [0]);
    }

    #[test]
    fn hip_stops_at_the_first_invalid_entry_and_skips_repeats() {
        assert_eq!(order(None, Some("1,7,0"), None), [1]);
        assert_eq!(order(None, Some("1, 0"), None), [1], "commas only");
        assert_eq!(order(None, Some("01"), None), Vec::<usize>::new());
        assert_eq!(order(None, Some("-1"), None), Vec::<usize>::new());
        assert_eq!(order(None, Some("2,2,1"), None), [2, 1]);
        assert_eq!(order(None, Some("1,,0"), None), [1]);
    }

    #[test]
    fn hip_indexes_the_gpus_rocr_exposes_in_rocr_order() {
        assert_eq!(order(Some("1,3"), None, None), [1, 3]);
        assert_eq!(order(Some("3,1"), None, None), [3, 1]);
        assert_eq!(order(Some("1,3"), Some("1"), None), [3]);
        assert_eq!(order(Some("3,1"), Some("1,0"), None), [1, 3]);
        assert_eq!(order(Some(""), None, None), Vec::<usize>::new());
        assert_eq!(order(Some("2,9,0"), None, None), [2]);
        assert_eq!(order(Some("2,2,0"), None, None), [2]);
        // ROCr trims its tokens and reads them as strtol does.
        assert_eq!(order(Some(" 3 , 0x1"), None, None), [3, 1]);
        assert_eq!(order(Some("2 0"), None, None), Vec::<usize>::new());
        assert_eq!(order(Some("-1"), None, None), Vec::<usize>::new());
    }

    #[test]
    fn uuids_name_gpus() {
        assert_eq!(order(Some("GPU-abcd000000000002"), None, None), [2]);
        // A prefix that names several GPUs ends ROCr's list.
        assert_eq!(order(Some("1,GPU-abcd"), None, None), [1]);
        assert_eq!(order(None, Some("GPU-abcd000000000003,0"), None), [3, 0]);
        assert_eq!(order(None, Some("GPU-XX,0"), None), Vec::<usize>::new());
    }
}
