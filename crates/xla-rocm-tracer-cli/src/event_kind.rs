//! The kind of an event of any XLA trace, inferred from its name and stats: foreign traces
//! (e.g. XLA's CUPTI output) carry no type field, only names such as "MemcpyH2D" or
//! "Memset 3" and stats such as `memcpy_details` or `kernel_details`.
//!
//! On AMD GPUs a memset runs as a fill kernel (ROCclr's `__amd_rocclr_fill*`), recorded as a
//! kernel dispatch: a kernel whose correlation id is a `hipMemset*` call's, or a ROCclr fill
//! kernel, is counted as the memset it is.
use std::collections::HashSet;

use xla_rocm_tracer::event::EventType;
use xla_rocm_tracer::export::plane_names::{
    KERNEL_DETAILS_STAT, MEMALLOC_DETAILS_STAT, MEMCPY_DETAILS_STAT, MEMFREE_DETAILS_STAT,
    MEMSET_DETAILS_STAT,
};
use xla_rocm_tracer::export::{XEvent, XPlane, XSpace};

use crate::xspace_view::{event_name, stat_name, stat_text};

fn has_stat(plane: &XPlane, event: &XEvent, name: &str) -> bool {
    event
        .stats
        .iter()
        .any(|stat| stat_name(plane, stat) == name)
}

fn direction_from_name(name: &str) -> Option<EventType> {
    let upper = name.to_ascii_uppercase();
    let has = |patterns: &[&str]| patterns.iter().any(|pattern| upper.contains(pattern));
    if has(&["H2D", "HTOD"]) {
        Some(EventType::MemcpyH2D)
    } else if has(&["D2H", "DTOH"]) {
        Some(EventType::MemcpyD2H)
    } else if has(&["D2D", "DTOD"]) {
        Some(EventType::MemcpyD2D)
    } else if has(&["P2P", "PEER"]) {
        Some(EventType::MemcpyP2P)
    } else {
        None
    }
}

/// CUPTI's `"kind_src:pinned kind_dst:device ..."`; ours say `kind:Unknown` and give no hint.
fn direction_from_details(details: &str) -> Option<EventType> {
    let field = |key: &str| {
        details
            .split_whitespace()
            .find_map(|part| part.strip_prefix(key))
            .map(|kind| {
                if kind == "device" || kind == "array" {
                    "device"
                } else {
                    "host"
                }
            })
    };
    match (field("kind_src:")?, field("kind_dst:")?) {
        ("host", "device") => Some(EventType::MemcpyH2D),
        ("device", "host") => Some(EventType::MemcpyD2H),
        ("device", "device") => Some(EventType::MemcpyD2D),
        _ => None,
    }
}

/// The prefix of ROCclr's fill kernels, which HIP's memsets run as.
const FILL_KERNEL_PREFIX: &str = "__amd_rocclr_fill";

/// Correlation ids of the `hipMemset*` calls among the host events of `space`.
pub fn memset_calls(space: &XSpace) -> HashSet<u64> {
    let mut calls = HashSet::new();
    for plane in &space.planes {
        add_memset_calls(plane, &mut calls);
    }
    calls
}

/// Adds the correlation ids of `plane`'s `hipMemset*` calls to `calls` ([`memset_calls`] of
/// a space is the union over its planes).
pub fn add_memset_calls(plane: &XPlane, calls: &mut HashSet<u64>) {
    for event in plane.lines.iter().flat_map(|line| &line.events) {
        if !event_name(plane, event).starts_with("hipMemset") {
            continue;
        }
        if let Some(id) =
            stat_text(plane, event, "correlation_id").and_then(|text| text.parse::<u64>().ok())
        {
            calls.insert(id);
        }
    }
}

fn is_memset_kernel(plane: &XPlane, event: &XEvent, memset_calls: &HashSet<u64>) -> bool {
    if event_name(plane, event).starts_with(FILL_KERNEL_PREFIX) {
        return true;
    }
    // Reading the id costs more than the rest of the kind: skipped when no call could match.
    !memset_calls.is_empty()
        && stat_text(plane, event, "correlation_id")
            .and_then(|text| text.parse::<u64>().ok())
            .is_some_and(|id| memset_calls.contains(&id))
}

/// `None`: none of the types a trace's names and stats reveal (shown as "Other").
/// `memset_calls`: [`memset_calls`] of the event's space.
pub fn infer_kind(
    plane: &XPlane,
    event: &XEvent,
    memset_calls: &HashSet<u64>,
) -> Option<EventType> {
    let name = event_name(plane, event);
    let lower = name.to_ascii_lowercase();
    let kind = if let Some(details) = stat_text(plane, event, MEMCPY_DETAILS_STAT) {
        direction_from_name(name)
            .or_else(|| direction_from_details(&details))
            .unwrap_or(EventType::MemcpyOther)
    } else if lower.contains("memcpy") {
        direction_from_name(name).unwrap_or(EventType::MemcpyOther)
    } else if has_stat(plane, event, MEMSET_DETAILS_STAT) || lower.starts_with("memset") {
        EventType::Memset
    } else if has_stat(plane, event, MEMALLOC_DETAILS_STAT) {
        EventType::MemoryAlloc
    } else if has_stat(plane, event, MEMFREE_DETAILS_STAT) {
        EventType::MemoryFree
    } else if has_stat(plane, event, KERNEL_DETAILS_STAT) {
        if is_memset_kernel(plane, event, memset_calls) {
            EventType::Memset
        } else {
            EventType::Kernel
        }
    } else {
        return None;
    };
    Some(kind)
}

/// Bytes of a copy from `memcpy_details` (`size:<n>`).
pub fn memcpy_bytes(plane: &XPlane, event: &XEvent) -> Option<u64> {
    let details = stat_text(plane, event, MEMCPY_DETAILS_STAT)?;
    details
        .split_whitespace()
        .find_map(|part| part.strip_prefix("size:"))
        .and_then(|size| size.parse().ok())
}
