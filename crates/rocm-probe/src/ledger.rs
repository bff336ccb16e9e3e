//! The ledger's cells the battery can see, as a run shows them (docs/simulator-fidelity.md,
//! the ledger; docs/probe.md "Ledger cells"): today the small-copy row (its shape and blit
//! size), which is unpinned on 7.0 and pinned only by ancestry on every later release. On a
//! real machine this is the evidence that pins the cell. (The probe links no simulator, so it
//! does not read the simulator's list of unpinned rows; docs/probe.md names the rows the
//! battery cannot reach.)
use crate::report::{LedgerCell as Cell, Run, Step};
use crate::runner::rocm_release;

const SMALL_COPIES: &str = "Small copies";

/// The cells of `run`'s release that the battery can see, as `run` shows them.
pub fn cells(run: &Run) -> Vec<Cell> {
    let Some(release) = rocm_release(&run.libraries.sdk.version) else {
        return Vec::new();
    };
    vec![Cell {
        release: release.to_owned(),
        row: SMALL_COPIES.to_owned(),
        observed: small_copies(&run.steps),
    }]
}

/// How each synchronous host<->device copy of the battery was recorded, and the largest size
/// that was a shader blit: "blit up to 16 KiB (h2d pinned: 4k blit, 16k blit, 32k copy; ...)".
fn small_copies(steps: &[Step]) -> String {
    let mut largest_blit: Option<&str> = None;
    let mut seen = Vec::new();
    for (dir, memory) in [
        ("h2d", "pinned"),
        ("h2d", "pageable"),
        ("d2h", "pinned"),
        ("d2h", "pageable"),
    ] {
        let mut shapes = Vec::new();
        for size in ["4k", "16k", "32k"] {
            let name = format!("copy_{dir}_{memory}_{size}_sync");
            let Some(step) = steps.iter().find(|s| s.name == name && s.skipped.is_none()) else {
                continue;
            };
            let shape = record_shape(step);
            if shape == "blit" && largest_blit.is_none_or(|l| size_rank(size) > size_rank(l)) {
                largest_blit = Some(size);
            }
            shapes.push(format!("{size} {shape}"));
        }
        if !shapes.is_empty() {
            seen.push(format!("{dir} {memory}: {}", shapes.join(", ")));
        }
    }
    if seen.is_empty() {
        return "not seen: the battery's copy steps were skipped".to_owned();
    }
    let verdict = match largest_blit {
        Some(size) => format!("blit up to {} KiB", size.trim_end_matches('k')),
        None => "no blit: every copy an SDMA copy".to_owned(),
    };
    format!("{verdict} ({})", seen.join("; "))
}

fn size_rank(size: &str) -> u32 {
    size.trim_end_matches('k').parse().unwrap_or(0)
}

/// "blit" (a kernel dispatch and no copy record), "copy" (a MEMORY_COPY record), or "none".
fn record_shape(step: &Step) -> &'static str {
    let has = |kind: &str| step.records.iter().any(|r| r.contains(kind));
    match (has("KERNEL_DISPATCH"), has("MEMORY_COPY")) {
        (_, true) => "copy",
        (true, false) => "blit",
        (false, false) => "none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(name: &str, record: &str) -> Step {
        Step {
            name: name.to_owned(),
            records: vec![format!("hipMemcpy: {record}")],
            ..Step::default()
        }
    }

    #[test]
    fn the_small_copy_cell_names_the_largest_blit() {
        let blit = "KERNEL_DISPATCH COMPLETE on gpu0 x1";
        let copy = "MEMORY_COPY HOST_TO_DEVICE cpu0 -> gpu0 bytes 32768 x1";
        let steps = vec![
            step("copy_h2d_pinned_4k_sync", blit),
            step("copy_h2d_pinned_16k_sync", blit),
            step("copy_h2d_pinned_32k_sync", copy),
        ];
        assert_eq!(
            small_copies(&steps),
            "blit up to 16 KiB (h2d pinned: 4k blit, 16k blit, 32k copy)"
        );
        let sdma = vec![step("copy_h2d_pinned_4k_sync", copy)];
        assert_eq!(
            small_copies(&sdma),
            "no blit: every copy an SDMA copy (h2d pinned: 4k copy)"
        );
    }
}
