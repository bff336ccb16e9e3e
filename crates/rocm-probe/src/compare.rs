//! The comparison: two runs flattened into fields ("steps.<step>.<field>", "agents", ...) and
//! every field that differs turned into one finding, naming the simulator's machine option or
//! behaviour that decides it. Findings come in the order of the fields in the first run, then
//! the fields only the second has, so the same two reports always give the same list.

use crate::report::{Finding, Run, Step};
use std::collections::BTreeMap;

/// One comparable field: a list of lines (order matters) or a single value.
type Fields = Vec<(String, Vec<String>)>;

fn step_fields(out: &mut Fields, step: &Step) {
    let p = format!("steps.{}", step.name);
    out.push((
        format!("{p}.skipped"),
        step.skipped.iter().cloned().collect(),
    ));
    if step.skipped.is_some() {
        // A step run on one side only is one finding (its `skipped`), not one per field.
        return;
    }
    out.push((format!("{p}.calls"), step.calls.clone()));
    out.push((format!("{p}.notes"), step.notes.clone()));
    for (thread, lines) in &step.callbacks {
        out.push((format!("{p}.callbacks.{thread}"), one_per_copy(lines)));
    }
    out.push((format!("{p}.stream_ids"), step.stream_ids.clone()));
    out.push((
        format!("{p}.external_correlation_requests"),
        one_per_copy(&step.external_correlation_requests),
    ));
    out.push((
        format!("{p}.records"),
        step.records.iter().map(|r| record_property(r)).collect(),
    ));
    out.push((format!("{p}.arrival"), arrived(&step.arrival)));
}

// The report keeps what a run saw in detail; the comparison looks only at what does not depend
// on a race or on where a host buffer happens to sit in its page (docs/probe.md "Comparison"):
// every record present, the sizes of a copy's pieces summing to the call, but not how many
// pieces a pageable copy took, nor when a record arrived relative to the flush after a
// synchronize.

/// A records line with its pieces' sizes ("bytes A+B+C xN") as their sum and the largest piece:
/// the first piece of a pageable copy ends at a pinning boundary that depends on the buffer's
/// offset in its page, so the count and the sizes of the pieces vary, their sum and the pinning
/// chunk do not.
fn record_property(line: &str) -> String {
    let Some((head, rest)) = line.rsplit_once(" bytes ") else {
        return line.to_string();
    };
    let sizes = rest.split_once(' ').map_or(rest, |(sizes, _)| sizes);
    let pieces: Option<Vec<u64>> = sizes.split('+').map(|n| n.parse().ok()).collect();
    match pieces {
        Some(pieces) => format!(
            "{head} bytes {} in pieces of at most {}",
            pieces.iter().sum::<u64>(),
            pieces.iter().max().unwrap_or(&0)
        ),
        None => line.to_string(),
    }
}

/// Callback or request lines with consecutive repeats of a memory-copy line kept once: one per
/// piece of a copy, and the number of pieces is not a property (see [`record_property`]).
fn one_per_copy(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        if line.contains("MEMORY_COPY") && out.last() == Some(line) {
            continue;
        }
        out.push(line.clone());
    }
    out
}

/// What arrived on which thread, without when: an arrival line is "what on thread: when", and
/// on a GPU when a completion lands against the flush right after a synchronize is a race.
fn arrived(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = lines
        .iter()
        .map(|l| {
            l.rsplit_once(": ")
                .map_or(l.as_str(), |(what, _)| what)
                .to_string()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn fields(run: &Run) -> Fields {
    let mut out = vec![
        (
            "sdk_version".to_string(),
            vec![run.libraries.sdk.version.clone()],
        ),
        (
            "hip_runtime_version".to_string(),
            vec![run.libraries.hip.version.clone()],
        ),
        ("configure".to_string(), vec![run.configure.clone()]),
        ("hip_devices".to_string(), vec![run.hip_devices.to_string()]),
        ("agents".to_string(), run.agents.clone()),
        ("gpu_names".to_string(), run.gpu_names.clone()),
        ("sdk_statuses".to_string(), run.sdk_statuses.clone()),
        (
            "buffer_callback_threads".to_string(),
            run.buffer_callback_threads.clone(),
        ),
        ("exit".to_string(), vec![run.exit.clone()]),
    ];
    for step in &run.steps {
        step_fields(&mut out, step);
    }
    out
}

/// A list difference in a line: the lines only one side has, or "same lines, other order".
fn describe(a: &[String], b: &[String]) -> (String, String) {
    let mut only_a = Vec::new();
    let mut rest_b: Vec<&String> = b.iter().collect();
    for line in a {
        match rest_b.iter().position(|l| *l == line) {
            Some(i) => {
                rest_b.remove(i);
            }
            None => only_a.push(line.as_str()),
        }
    }
    let only_b: Vec<&str> = rest_b.iter().map(|s| s.as_str()).collect();
    if only_a.is_empty() && only_b.is_empty() {
        return (
            format!("order [{}]", a.join("; ")),
            format!("order [{}]", b.join("; ")),
        );
    }
    let side = |v: &[&str]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            format!("[{}]", v.join("; "))
        }
    };
    (side(&only_a), side(&only_b))
}

/// The simulator's machine key behind a field (SCENARIOS.md "Machine" lists them), or the
/// model that has no key.
pub fn simulator_for(key: &str, a: &str, b: &str) -> String {
    let step = key.strip_prefix("steps.").unwrap_or("");
    let (step_name, field) = step.split_once('.').unwrap_or((step, ""));
    let mentions = |s: &str| a.contains(s) || b.contains(s);
    match key {
        "sdk_version" | "configure" => return "sdk_version".into(),
        "hip_runtime_version" => return "hip-runtime-sim hipRuntimeGetVersion (no option)".into(),
        "hip_devices" | "agents" => {
            return "gpus, cpus, hip_visible_devices/rocr_visible_devices (agents and visibility)"
                .into()
        }
        "gpu_names" => return "the simulated GPU model (MI300X-class gfx942; no option)".into(),
        "sdk_statuses" => return "the SDK's status codes (no option)".into(),
        "buffer_callback_threads" => {
            return "callback threads (the simulator's internal_threading; no option)".into()
        }
        "exit" => {
            return "teardown at process exit (the simulator's finalization; no option)".into()
        }
        _ => {}
    }
    if field == "skipped" && (step_name == "legacy_stream" || step_name == "per_thread_stream") {
        return "stream_map (with sdk_version)".into();
    }
    // Stream ids follow the stream map in every step, the graph step included (the simulated
    // runtime exports stream capture and answers hipErrorNotSupported, so that step runs).
    if field == "stream_ids" || field == "notes" && step_name == "stream_create_destroy" {
        return "stream_map".into();
    }
    if step_name == "graph_capture_launch" {
        return "hip-runtime-sim stream capture and graphs (no option)".into();
    }
    if field == "arrival" || step_name == "disable_after_sync" {
        if mentions("KERNEL_DISPATCH") {
            return "kernel_record_lag_us".into();
        }
        return "copy records are pushed before the copy completes (no option)".into();
    }
    if field == "external_correlation_requests" || field.starts_with("callbacks.") {
        if mentions("sdk-") {
            return "direct_dispatch".into();
        }
        return "the SDK's external correlation rules (no option)".into();
    }
    if field == "records" && step_name.starts_with("copy_") {
        let mut parts = step_name.split('_');
        let (_, dir, memory) = (parts.next(), parts.next(), parts.next());
        return match (dir, memory) {
            (Some("d2d"), _) => "device-to-device copy as a blit kernel (no option)".into(),
            (Some("h2h"), _) => "h2h_record".into(),
            (Some("h2d" | "d2h"), Some("pageable")) => "sdma_threshold, pageable_chunk".into(),
            _ => "sdma_threshold".into(),
        };
    }
    if field == "records" {
        return "hip-runtime-sim: the records of this call (no option)".into();
    }
    if field == "calls" {
        return "hip-runtime-sim: the call's return code (no option)".into();
    }
    "no simulator option (a behaviour of the simulated runtime)".into()
}

/// Every field where `a` and `b` differ, one finding each.
pub fn compare(a: &Run, b: &Run) -> Vec<Finding> {
    let fa = fields(a);
    let fb: BTreeMap<String, Vec<String>> = fields(b).into_iter().collect();
    let mut seen = std::collections::HashSet::new();
    let mut diffs: Vec<(String, String, String)> = Vec::new();
    let absent: Vec<String> = Vec::new();
    let skipped_somewhere = |key: &str| {
        let Some(rest) = key.strip_prefix("steps.") else {
            return false;
        };
        let step = rest.split('.').next().unwrap_or("");
        let skipped = format!("steps.{step}.skipped");
        key != skipped
            && (fa.iter().any(|(k, v)| *k == skipped && !v.is_empty())
                || fb.get(&skipped).is_some_and(|v| !v.is_empty()))
    };
    let mut push = |key: &str, va: &[String], vb: &[String]| {
        let (da, db) = describe(va, vb);
        diffs.push((key.to_string(), da, db));
    };
    for (key, va) in &fa {
        seen.insert(key.clone());
        if skipped_somewhere(key) {
            continue;
        }
        let vb = fb.get(key).unwrap_or(&absent);
        if va != vb {
            push(key, va, vb);
        }
    }
    for (key, vb) in fields(b) {
        if !seen.contains(&key) && !vb.is_empty() && !skipped_somewhere(&key) {
            push(&key, &absent, &vb);
        }
    }
    diffs
        .iter()
        .map(|(key, da, db)| Finding {
            key: key.clone(),
            simulator: step_cause(key, &diffs).unwrap_or_else(|| simulator_for(key, da, db)),
            a: da.clone(),
            b: db.clone(),
        })
        .collect()
}

/// One cause can show in several fields of a step: a copy done another way changes its
/// records, and with them its callbacks, requests and arrivals; work submitted from another
/// thread changes all of those too. The step's first such cause names every field but
/// `skipped` (and `records`, which has its own, unless the work moved threads).
fn step_cause(key: &str, diffs: &[(String, String, String)]) -> Option<String> {
    let rest = key.strip_prefix("steps.")?;
    let (step, field) = rest.split_once('.')?;
    if field == "skipped" {
        return None;
    }
    let prefix = format!("steps.{step}.");
    let step_diffs: Vec<&(String, String, String)> = diffs
        .iter()
        .filter(|(k, _, _)| k.starts_with(&prefix))
        .collect();
    let moved = step_diffs.iter().any(|(k, a, b)| {
        k.contains(".callbacks.sdk-other") || a.contains("sdk-other") || b.contains("sdk-other")
    });
    if moved {
        return Some("direct_dispatch".into());
    }
    if field == "records" {
        return None;
    }
    if step.starts_with("copy_") {
        let records = format!("{prefix}records");
        if let Some((k, a, b)) = step_diffs.iter().find(|(k, _, _)| *k == records) {
            return Some(simulator_for(k, a, b));
        }
    }
    None
}

/// One line per finding.
pub fn render(findings: &[Finding], a: &str, b: &str) -> String {
    findings
        .iter()
        .map(|f| format!("{}: {a} {} | {b} {} -> {}\n", f.key, f.a, f.b, f.simulator))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_pieces_compare_by_their_sum_and_the_largest() {
        let sim = "hipMemcpy: MEMORY_COPY HOST_TO_DEVICE cpu0 -> gpu0 bytes 33554432+33554432 x2";
        // A buffer 4 KiB into its page: the first piece ends at the pinning boundary.
        let real =
            "hipMemcpy: MEMORY_COPY HOST_TO_DEVICE cpu0 -> gpu0 bytes 33550336+33554432+4096 x3";
        assert_eq!(record_property(sim), record_property(real));
        assert_eq!(
            record_property(sim),
            "hipMemcpy: MEMORY_COPY HOST_TO_DEVICE cpu0 -> gpu0 bytes 67108864 in pieces of at most 33554432"
        );
        // Unchunked, or a byte missing: a difference.
        let whole = "hipMemcpy: MEMORY_COPY HOST_TO_DEVICE cpu0 -> gpu0 bytes 67108864 x1";
        let short = "hipMemcpy: MEMORY_COPY HOST_TO_DEVICE cpu0 -> gpu0 bytes 33554432+33554431 x2";
        assert_ne!(record_property(sim), record_property(whole));
        assert_ne!(record_property(sim), record_property(short));
        // Records without sizes keep their count: every record must be there.
        let kernel = "hipMemsetAsync: KERNEL_DISPATCH op0 on gpu0 x1";
        assert_eq!(record_property(kernel), kernel);
    }

    #[test]
    fn arrivals_compare_by_what_arrived_not_when() {
        let a = [
            "record KERNEL_DISPATCH COMPLETE delivered on sdk-buffer-1: after the flush that followed the synchronize".to_string(),
            "record MEMORY_COPY HOST_TO_DEVICE delivered on sdk-buffer-1: before the synchronize returned".to_string(),
            "record MEMORY_COPY HOST_TO_DEVICE delivered on sdk-buffer-1: before the synchronize returned".to_string(),
        ];
        let b = [
            "record KERNEL_DISPATCH COMPLETE delivered on sdk-buffer-1: before the synchronize returned".to_string(),
            "record MEMORY_COPY HOST_TO_DEVICE delivered on sdk-buffer-1: after the synchronize returned, in the flush right after it".to_string(),
        ];
        assert_eq!(arrived(&a), arrived(&b));
        let missing = [b[1].clone()];
        assert_ne!(arrived(&a), arrived(&missing));
    }

    #[test]
    fn one_line_per_copy_however_many_pieces() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let two = lines(&[
            "HIP_RUNTIME_API hipMemcpy ENTER",
            "MEMORY_COPY HOST_TO_DEVICE NONE",
            "MEMORY_COPY HOST_TO_DEVICE NONE",
            "HIP_RUNTIME_API hipMemcpy EXIT",
        ]);
        let three = lines(&[
            "HIP_RUNTIME_API hipMemcpy ENTER",
            "MEMORY_COPY HOST_TO_DEVICE NONE",
            "MEMORY_COPY HOST_TO_DEVICE NONE",
            "MEMORY_COPY HOST_TO_DEVICE NONE",
            "HIP_RUNTIME_API hipMemcpy EXIT",
        ]);
        assert_eq!(one_per_copy(&two), one_per_copy(&three));
        // Other repeats are kept: two kernels are two kernels.
        let kernels = lines(&[
            "KERNEL_DISPATCH COMPLETE NONE",
            "KERNEL_DISPATCH COMPLETE NONE",
        ]);
        assert_eq!(one_per_copy(&kernels), kernels);
    }
}
