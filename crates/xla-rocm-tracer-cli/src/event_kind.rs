//! The kind of an event of any XLA trace, inferred from its name and stats: foreign traces
//! (e.g. XLA's CUPTI output) carry no type field, only names such as "MemcpyH2D" or
//! "Memset 3" and stats such as `memcpy_details` or `kernel_details`.
use xla_rocm_tracer::export::{XEvent, XPlane};

use crate::xspace_view::{event_name, stat_name, stat_text};

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventKind {
    Kernel,
    MemcpyH2D,
    MemcpyD2H,
    MemcpyD2D,
    MemcpyP2P,
    MemcpyOther,
    MemoryAlloc,
    MemoryFree,
    Memset,
    Other,
}

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Kernel => "Kernel",
            EventKind::MemcpyH2D => "MemcpyH2D",
            EventKind::MemcpyD2H => "MemcpyD2H",
            EventKind::MemcpyD2D => "MemcpyD2D",
            EventKind::MemcpyP2P => "MemcpyP2P",
            EventKind::MemcpyOther => "MemcpyOther",
            EventKind::MemoryAlloc => "MemoryAlloc",
            EventKind::MemoryFree => "MemoryFree",
            EventKind::Memset => "Memset",
            EventKind::Other => "Other",
        }
    }

    pub fn is_memcpy(self) -> bool {
        matches!(
            self,
            EventKind::MemcpyH2D
                | EventKind::MemcpyD2H
                | EventKind::MemcpyD2D
                | EventKind::MemcpyP2P
                | EventKind::MemcpyOther
        )
    }
}

fn has_stat(plane: &XPlane, event: &XEvent, name: &str) -> bool {
    event
        .stats
        .iter()
        .any(|stat| stat_name(plane, stat) == name)
}

fn direction_from_name(name: &str) -> Option<EventKind> {
    let upper = name.to_ascii_uppercase();
    let has = |patterns: &[&str]| patterns.iter().any(|pattern| upper.contains(pattern));
    if has(&["H2D", "HTOD"]) {
        Some(EventKind::MemcpyH2D)
    } else if has(&["D2H", "DTOH"]) {
        Some(EventKind::MemcpyD2H)
    } else if has(&["D2D", "DTOD"]) {
        Some(EventKind::MemcpyD2D)
    } else if has(&["P2P", "PEER"]) {
        Some(EventKind::MemcpyP2P)
    } else {
        None
    }
}

/// CUPTI's `"kind_src:pinned kind_dst:device ..."`; ours say `kind:Unknown` and give no hint.
fn direction_from_details(details: &str) -> Option<EventKind> {
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
        ("host", "device") => Some(EventKind::MemcpyH2D),
        ("device", "host") => Some(EventKind::MemcpyD2H),
        ("device", "device") => Some(EventKind::MemcpyD2D),
        _ => None,
    }
}

pub fn infer_kind(plane: &XPlane, event: &XEvent) -> EventKind {
    let name = event_name(plane, event);
    let lower = name.to_ascii_lowercase();
    if let Some(details) = stat_text(plane, event, "memcpy_details") {
        return direction_from_name(name)
            .or_else(|| direction_from_details(&details))
            .unwrap_or(EventKind::MemcpyOther);
    }
    if lower.contains("memcpy") {
        return direction_from_name(name).unwrap_or(EventKind::MemcpyOther);
    }
    if has_stat(plane, event, "Memset_details") || lower.starts_with("memset") {
        return EventKind::Memset;
    }
    if has_stat(plane, event, "memalloc_details") {
        return EventKind::MemoryAlloc;
    }
    if has_stat(plane, event, "MemFree_details") {
        return EventKind::MemoryFree;
    }
    if has_stat(plane, event, "kernel_details") {
        return EventKind::Kernel;
    }
    EventKind::Other
}

/// Bytes of a copy from `memcpy_details` (`size:<n>`).
pub fn memcpy_bytes(plane: &XPlane, event: &XEvent) -> Option<u64> {
    let details = stat_text(plane, event, "memcpy_details")?;
    details
        .split_whitespace()
        .find_map(|part| part.strip_prefix("size:"))
        .and_then(|size| size.parse().ok())
}
