//! The kind of an event of any XLA trace, inferred from its name and stats: foreign traces
//! (e.g. XLA's CUPTI output) carry no type field, only names such as "MemcpyH2D" or
//! "Memset 3" and stats such as `memcpy_details` or `kernel_details`.
//!
//! On AMD GPUs a memset runs as a fill kernel (ROCclr's `__amd_rocclr_fill*`), recorded as a
//! kernel dispatch: a kernel whose correlation id is a `hipMemset*` call's, or a ROCclr fill
//! kernel, is counted as the memset it is.
use std::collections::{BTreeMap, HashSet};

use xla_rocm_tracer::event::EventType;
use xla_rocm_tracer::export::plane_names::{
    FLOW_STAT, KERNEL_DETAILS_STAT, MEMALLOC_DETAILS_STAT, MEMCPY_DETAILS_STAT,
    MEMFREE_DETAILS_STAT, MEMSET_DETAILS_STAT,
};
use xla_rocm_tracer::export::{XEvent, XPlane, XSpace, XStat};

use crate::xspace_view::{event_name, stat_text, stats_text};

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
        if let Some(id) = memset_call_id(plane, event_name(plane, event), &event.stats) {
            calls.insert(id);
        }
    }
}

/// Whether events of this name are HIP memset calls (whose kernels are memsets).
pub fn is_memset_call_name(name: &str) -> bool {
    name.starts_with("hipMemset")
}

/// The correlation id of an event of `plane` named `name` with `stats`, if it is a
/// `hipMemset*` call.
pub fn memset_call_id(plane: &XPlane, name: &str, stats: &[XStat]) -> Option<u64> {
    if !is_memset_call_name(name) {
        return None;
    }
    parse_correlation_id(&stats_text(plane, stats, CORRELATION_ID_STAT)?)
}

/// The stat whose value matches a kernel to its `hipMemset*` call.
pub const CORRELATION_ID_STAT: &str = "correlation_id";

/// A correlation id as a stat's text holds it.
pub fn parse_correlation_id(text: &str) -> Option<u64> {
    text.parse().ok()
}

/// What an event's name says, the same for every event of one metadata id.
#[derive(Clone, Copy)]
pub struct NameHints {
    /// The name mentions "memcpy" (any case).
    memcpy: bool,
    /// The name starts with "memset" (any case).
    memset: bool,
    direction: Option<EventType>,
    fill_kernel: bool,
}

impl NameHints {
    pub fn of(name: &str) -> NameHints {
        let lower = name.to_ascii_lowercase();
        NameHints {
            memcpy: lower.contains("memcpy"),
            memset: lower.starts_with("memset"),
            direction: direction_from_name(name),
            fill_kernel: name.starts_with(FILL_KERNEL_PREFIX),
        }
    }
}

/// The stats [`kind`] looks for, as bits of a mask.
#[derive(Clone, Copy)]
enum DetailsStat {
    Memcpy = 1,
    Memset = 2,
    Memalloc = 4,
    Memfree = 8,
    Kernel = 16,
    Flow = 32,
}

/// Which of one plane's stat metadata ids are the stats [`kind`] looks for.
#[derive(Default)]
pub struct DetailsStats {
    /// A handful: scanned, not hashed.
    ids: Vec<(i64, DetailsStat)>,
}

impl DetailsStats {
    pub fn of(plane: &XPlane) -> DetailsStats {
        let mut stats = DetailsStats::default();
        for (id, metadata) in &plane.stat_metadata {
            stats.add(*id, &metadata.name);
        }
        stats
    }

    /// Stat metadata `id` is named `name`.
    pub fn add(&mut self, id: i64, name: &str) {
        let kind = match name {
            MEMCPY_DETAILS_STAT => DetailsStat::Memcpy,
            MEMSET_DETAILS_STAT => DetailsStat::Memset,
            MEMALLOC_DETAILS_STAT => DetailsStat::Memalloc,
            MEMFREE_DETAILS_STAT => DetailsStat::Memfree,
            KERNEL_DETAILS_STAT => DetailsStat::Kernel,
            FLOW_STAT => DetailsStat::Flow,
            _ => return,
        };
        self.ids.push((id, kind));
    }

    /// Which of the stats looked for an event with stats of these metadata ids has, as the
    /// mask [`kind`] takes.
    pub fn present(&self, stat_ids: impl IntoIterator<Item = i64>) -> u8 {
        let mut mask = 0;
        for stat_id in stat_ids {
            if let Some((_, kind)) = self.ids.iter().find(|(id, _)| *id == stat_id) {
                mask |= *kind as u8;
            }
        }
        mask
    }
}

/// The kind of an event from what its name says, the [`DetailsStats::present`] mask of its
/// stats, its `memcpy_details` text and whether it is a kernel of a `hipMemset*` call (both
/// asked only when the rule needs them). `None`: none of the types a trace's names and stats
/// reveal (shown as "Other"). One rule for an event of a prost plane ([`PlaneKinds`]) and for
/// a class of events counted as they stream by (streaming_summary.rs).
pub fn kind(
    name: NameHints,
    present: u8,
    memcpy_details: impl FnOnce() -> Option<String>,
    is_memset_call: impl FnOnce() -> bool,
) -> Option<EventType> {
    let has = |stat: DetailsStat| present & stat as u8 != 0;
    let kind = if has(DetailsStat::Memcpy) {
        name.direction
            .or_else(|| memcpy_details().and_then(|details| direction_from_details(&details)))
            .unwrap_or(EventType::MemcpyOther)
    } else if name.memcpy {
        name.direction.unwrap_or(EventType::MemcpyOther)
    } else if has(DetailsStat::Memset) || name.memset {
        EventType::Memset
    } else if has(DetailsStat::Memalloc) {
        EventType::MemoryAlloc
    } else if has(DetailsStat::Memfree) {
        EventType::MemoryFree
    } else if has(DetailsStat::Kernel) {
        if name.fill_kernel || is_memset_call() {
            EventType::Memset
        } else {
            EventType::Kernel
        }
    } else {
        return None;
    };
    Some(kind)
}

/// Whether an event of no [`kind`] with the stats of this [`DetailsStats::present`] mask is one
/// end of a flow: a stream wait's `hipEventRecord` or `hipStreamWaitEvent` marker on a device
/// lane (docs/xla-interface.md#stream-waits), counted as a flow end, not as "Other".
pub fn is_flow_end(present: u8) -> bool {
    present & DetailsStat::Flow as u8 != 0
}

/// Infers the kinds of one plane's events. A plane's events share few names and stat
/// names: both are looked up once per metadata id, not once per event (a long replay's
/// summary did that a million times).
pub struct PlaneKinds<'a> {
    plane: &'a XPlane,
    memset_calls: &'a HashSet<u64>,
    stats: DetailsStats,
    names: BTreeMap<i64, NameHints>,
}

impl<'a> PlaneKinds<'a> {
    /// `memset_calls`: [`memset_calls`] of the plane's space.
    pub fn new(plane: &'a XPlane, memset_calls: &'a HashSet<u64>) -> PlaneKinds<'a> {
        PlaneKinds {
            plane,
            memset_calls,
            stats: DetailsStats::of(plane),
            names: BTreeMap::new(),
        }
    }

    /// `Err(true)`: a flow end ([`is_flow_end`]); `Err(false)`: none of the types a trace's
    /// names and stats reveal (shown as "Other").
    pub fn kind(&mut self, event: &XEvent) -> Result<EventType, bool> {
        let plane = self.plane;
        let name = *self
            .names
            .entry(event.metadata_id)
            .or_insert_with(|| NameHints::of(event_name(plane, event)));
        let present = self
            .stats
            .present(event.stats.iter().map(|stat| stat.metadata_id));
        kind(
            name,
            present,
            || stat_text(plane, event, MEMCPY_DETAILS_STAT),
            || self.is_memset_call(event),
        )
        .ok_or_else(|| is_flow_end(present))
    }

    /// A kernel whose correlation id is a `hipMemset*` call's.
    fn is_memset_call(&self, event: &XEvent) -> bool {
        // Reading the id costs more than the rest of the kind: skipped when no call could match.
        !self.memset_calls.is_empty()
            && stat_text(self.plane, event, CORRELATION_ID_STAT)
                .and_then(|text| parse_correlation_id(&text))
                .is_some_and(|id| self.memset_calls.contains(&id))
    }
}

/// Bytes of a copy from `memcpy_details` (`size:<n>`).
pub fn memcpy_bytes(plane: &XPlane, event: &XEvent) -> Option<u64> {
    memcpy_details_bytes(&stat_text(plane, event, MEMCPY_DETAILS_STAT)?)
}

/// Bytes of a copy from the text of its `memcpy_details` (`size:<n>`).
pub fn memcpy_details_bytes(details: &str) -> Option<u64> {
    details
        .split_whitespace()
        .find_map(|part| part.strip_prefix("size:"))
        .and_then(|size| size.parse().ok())
}
