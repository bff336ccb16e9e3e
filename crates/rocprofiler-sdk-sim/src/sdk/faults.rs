//! Fault injection: make an exported SDK function return a chosen status, always or on its Nth
//! call, to exercise a tool's error paths.
//!
//! Rules come from `ROCSIM_FAULTS` (read once, on first use) and from [`inject`]:
//! `ROCSIM_FAULTS="rocprofiler_start_context=16,rocprofiler_create_buffer@2=29"` makes every
//! `rocprofiler_start_context` return 16 and the second `rocprofiler_create_buffer` return 29.
//! Calls are counted per function from process start, whether or not a rule exists.
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::LazyLock;

#[derive(Clone, Copy, Debug)]
struct Rule {
    status: u32,
    nth: Option<u32>,
}

#[derive(Default)]
struct Faults {
    rules: HashMap<String, Vec<Rule>>,
    calls: HashMap<&'static str, u32>,
}

static FAULTS: LazyLock<Mutex<Faults>> = LazyLock::new(|| {
    let mut faults = Faults::default();
    if let Ok(spec) = std::env::var("ROCSIM_FAULTS") {
        match parse_spec(&spec) {
            Ok(rules) => {
                for (name, rule) in rules {
                    faults.rules.entry(name).or_default().push(rule);
                }
            }
            Err(e) => eprintln!("rocprofiler-sdk-sim: ignoring ROCSIM_FAULTS: {e}"),
        }
    }
    Mutex::new(faults)
});

/// Makes `fn_name` return `status`: on every call if `nth` is `None`, else only on its `nth`
/// call (1-based, counted from process start).
pub fn inject(fn_name: &str, status: u32, nth: Option<u32>) {
    FAULTS
        .lock()
        .rules
        .entry(fn_name.to_owned())
        .or_default()
        .push(Rule { status, nth });
}

/// Removes every rule (call counts are kept).
pub fn clear() {
    FAULTS.lock().rules.clear();
}

/// How many times `fn_name` has been called so far.
pub fn call_count(fn_name: &str) -> u32 {
    FAULTS.lock().calls.get(fn_name).copied().unwrap_or(0)
}

/// Counts a call of `fn_name` and returns the status to fail it with, if a rule says so.
pub(crate) fn take(fn_name: &'static str) -> Option<u32> {
    let mut faults = FAULTS.lock();
    let count = faults.calls.entry(fn_name).or_insert(0);
    *count += 1;
    let count = *count;
    faults
        .rules
        .get(fn_name)?
        .iter()
        .find(|rule| rule.nth.is_none_or(|n| n == count))
        .map(|rule| rule.status)
}

fn parse_spec(spec: &str) -> Result<Vec<(String, Rule)>, String> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (lhs, status) = item
            .split_once('=')
            .ok_or_else(|| format!("`{item}`: expected name[@N]=status"))?;
        let status: u32 = status
            .trim()
            .parse()
            .map_err(|_| format!("`{item}`: status is not a number"))?;
        let (name, nth) = match lhs.split_once('@') {
            Some((name, n)) => {
                let n: u32 = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{item}`: call number is not a number"))?;
                (name, Some(n))
            }
            None => (lhs, None),
        };
        out.push((name.trim().to_owned(), Rule { status, nth }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_and_nth_rules() {
        let rules =
            parse_spec("rocprofiler_start_context=16, rocprofiler_create_buffer@2=29").unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].0, "rocprofiler_start_context");
        assert_eq!(rules[0].1.status, 16);
        assert_eq!(rules[0].1.nth, None);
        assert_eq!(rules[1].1.nth, Some(2));
        assert!(parse_spec("x=y").is_err());
        assert!(parse_spec("nonsense").is_err());
    }
}
