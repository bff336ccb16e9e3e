//! `inspect`: planes, lanes with event counts by kind, copy bytes by direction, time span and
//! what the trace says was dropped.
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

use xla_rocm_tracer::event::EventType;
use xla_rocm_tracer::export::plane_names::{
    CUDA_GRAPH_ID_STAT, GPU_PLANE_PREFIX, GRAPH_NODE_ID_STAT, SCOPE_RANGE_TREE_PLANE_NAME,
};
use xla_rocm_tracer::export::{XPlane, XSpace};

use crate::event_kind::{memcpy_bytes, memset_calls, PlaneKinds};
use crate::xspace_view::{event_span_ps, line_name};

#[derive(Debug, PartialEq)]
pub struct LaneSummary {
    pub name: String,
    pub events: u64,
    pub by_kind: BTreeMap<EventType, u64>,
    /// Events of no kind the trace's names and stats reveal.
    pub others: u64,
    /// Ends of flows: the stream waits' markers (`event_kind::is_flow_end`).
    pub flow_ends: u64,
}

#[derive(Debug, PartialEq)]
pub struct PlaneSummary {
    pub name: String,
    pub id: i64,
    pub is_device: bool,
    pub lanes: Vec<LaneSummary>,
    pub memcpy_bytes: BTreeMap<EventType, u64>,
    /// Earliest start and latest end, picoseconds since the epoch.
    pub span_ps: Option<(i128, i128)>,
    /// Graph nodes on a device plane: events with a `graph_node_id` stat, and the distinct
    /// `cuda_graph_id` values of the plane (docs/xla-interface.md#graph-nodes).
    pub graph_nodes: u64,
    pub graph_ids: BTreeSet<u64>,
}

/// The `Uint64Value` of the first stat named `name` among `stats`.
pub fn uint64_stat(
    stats: &[xla_rocm_tracer::export::XStat],
    is_named: impl Fn(i64) -> bool,
) -> Option<u64> {
    use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
    stats
        .iter()
        .find(|stat| is_named(stat.metadata_id))
        .and_then(|stat| match stat.value {
            Some(Value::Uint64Value(value)) => Some(value),
            _ => None,
        })
}

fn widen(span: &mut Option<(i128, i128)>, start: i128, end: i128) {
    *span = Some(match *span {
        Some((low, high)) => (low.min(start), high.max(end)),
        None => (start, end),
    });
}

/// `memsets`: [`memset_calls`] of the plane's space.
pub fn summarize_plane(plane: &XPlane, memsets: &HashSet<u64>) -> PlaneSummary {
    // Kinds and bytes are counted on device planes only: host API events repeat the copies'
    // details and would count every copy twice.
    let is_device = plane.name.starts_with(GPU_PLANE_PREFIX);
    let mut summary = PlaneSummary {
        name: plane.name.clone(),
        id: plane.id,
        is_device,
        lanes: Vec::new(),
        memcpy_bytes: BTreeMap::new(),
        span_ps: None,
        graph_nodes: 0,
        graph_ids: BTreeSet::new(),
    };
    let named = |name: &str| {
        let ids: Vec<i64> = plane
            .stat_metadata
            .values()
            .filter(|metadata| metadata.name == name)
            .map(|metadata| metadata.id)
            .collect();
        move |id: i64| ids.contains(&id)
    };
    let (is_node_stat, is_graph_stat) = (named(GRAPH_NODE_ID_STAT), named(CUDA_GRAPH_ID_STAT));
    let mut kinds = PlaneKinds::new(plane, memsets);
    for line in &plane.lines {
        let mut lane = LaneSummary {
            name: line_name(line).to_owned(),
            events: line.events.len() as u64,
            by_kind: BTreeMap::new(),
            others: 0,
            flow_ends: 0,
        };
        for event in &line.events {
            let (start, end) = event_span_ps(line, event);
            widen(&mut summary.span_ps, start, end);
            if !is_device {
                continue;
            }
            if uint64_stat(&event.stats, &is_node_stat).is_some() {
                summary.graph_nodes += 1;
            }
            if let Some(id) = uint64_stat(&event.stats, &is_graph_stat) {
                summary.graph_ids.insert(id);
            }
            let kind = match kinds.kind(event) {
                Ok(kind) => kind,
                Err(true) => {
                    lane.flow_ends += 1;
                    continue;
                }
                Err(false) => {
                    lane.others += 1;
                    continue;
                }
            };
            *lane.by_kind.entry(kind).or_insert(0) += 1;
            if kind.is_memcpy() {
                let bytes = memcpy_bytes(plane, event).unwrap_or(0);
                *summary.memcpy_bytes.entry(kind).or_insert(0) += bytes;
            }
        }
        summary.lanes.push(lane);
    }
    summary
}

/// A duration in the unit that keeps it readable: `850 ns`, `12.5 us`, `1.234 ms`, `2.500 s`.
pub fn format_duration_ps(ps: i128) -> String {
    let ns = ps as f64 / 1e3;
    let magnitude = ns.abs();
    if magnitude < 1e3 {
        format!("{} ns", trim_decimals(ns, 1))
    } else if magnitude < 1e6 {
        format!("{} us", trim_decimals(ns / 1e3, 1))
    } else if magnitude < 1e9 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// Traces whose clock is the wall clock (XLA converts to it) start after this: 2000-01-01.
const WALL_CLOCK_FROM_NS: i128 = 946_684_800 * 1_000_000_000;

/// The trace start as a UTC date when the trace's clock is the wall clock, else as a reading
/// of the trace's own clock.
pub fn format_trace_start(ns: i128) -> String {
    if ns < WALL_CLOCK_FROM_NS {
        return format!("{ns} ns on the trace's clock");
    }
    let seconds = ns.div_euclid(1_000_000_000);
    let nanos = ns.rem_euclid(1_000_000_000);
    let (year, month, day) = civil_date(seconds.div_euclid(86_400));
    let of_day = seconds.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{nanos:09} UTC",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// (year, month, day) of a count of days since 1970-01-01 in the proleptic Gregorian
/// calendar, counting in 400-year eras that start on March 1st (so leap days end a year).
fn civil_date(days: i128) -> (i128, i128, i128) {
    let shifted = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i128::from(month <= 2);
    (year, month, day)
}

/// A time relative to the trace start: `+1.234 ms`.
pub fn format_offset_ps(ps: i128) -> String {
    format!("+{}", format_duration_ps(ps))
}

/// `12.5`, `12` (no trailing `.0`).
fn trim_decimals(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    match text.strip_suffix(".0") {
        Some(whole) => whole.to_owned(),
        None => text,
    }
}

/// Bytes with a binary unit: `256 B`, `4.0 KiB`, `4.00 MiB`, `1.50 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let value = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if value < KIB * KIB {
        format!("{:.1} KiB", value / KIB)
    } else if value < KIB * KIB * KIB {
        format!("{:.2} MiB", value / (KIB * KIB))
    } else {
        format!("{:.2} GiB", value / (KIB * KIB * KIB))
    }
}

/// "1 step", "2 steps".
pub fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `text` with control characters escaped (`\n`, `\t`, `\u{1b}`, ...), so that a name from the
/// trace (a ROCTx stream name, a plane name) stays on its line of the report.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Kernels, copies (with bytes) and memsets of all device planes, as the trace shows them.
#[derive(Default)]
pub struct DeviceTotals {
    pub by_kind: BTreeMap<EventType, u64>,
    pub memcpy_bytes: BTreeMap<EventType, u64>,
    pub lanes: u64,
}

impl DeviceTotals {
    pub fn of_spaces(spaces: &[XSpace]) -> DeviceTotals {
        let mut totals = DeviceTotals::default();
        for space in spaces {
            totals.add_space(space);
        }
        totals
    }

    /// Adds one more trace's device planes.
    pub fn add_space(&mut self, space: &XSpace) {
        self.add_summaries(&summarize(space));
    }

    /// Adds one more trace's device planes, from their [`summarize`]d form.
    pub fn add_summaries(&mut self, summaries: &[PlaneSummary]) {
        for summary in summaries {
            self.add_plane(summary);
        }
    }

    fn add_plane(&mut self, summary: &PlaneSummary) {
        if !summary.is_device {
            return;
        }
        self.lanes += summary.lanes.len() as u64;
        for lane in &summary.lanes {
            for (kind, count) in &lane.by_kind {
                *self.by_kind.entry(*kind).or_insert(0) += count;
            }
        }
        for (kind, bytes) in &summary.memcpy_bytes {
            *self.memcpy_bytes.entry(*kind).or_insert(0) += bytes;
        }
    }

    fn count(&self, kind: EventType) -> u64 {
        self.by_kind.get(&kind).copied().unwrap_or(0)
    }

    /// "11 kernels, 2 copies (MemcpyH2D 1 of 4.00 MiB, MemcpyD2H 1 of 256 B) and 0 memsets
    /// on 3 device lanes".
    pub fn describe(&self) -> String {
        let copies: Vec<String> = self
            .by_kind
            .iter()
            .filter(|(kind, _)| kind.is_memcpy())
            .map(|(kind, count)| {
                let bytes = self.memcpy_bytes.get(kind).copied().unwrap_or(0);
                format!("{} {count} of {}", kind.name(), format_bytes(bytes))
            })
            .collect();
        let copy_count: u64 = self
            .by_kind
            .iter()
            .filter(|(kind, _)| kind.is_memcpy())
            .map(|(_, count)| count)
            .sum();
        let mut text = format!(
            "{}, {}",
            plural(self.count(EventType::Kernel), "kernel", "kernels"),
            plural(copy_count, "copy", "copies")
        );
        if !copies.is_empty() {
            text.push_str(&format!(" ({})", copies.join(", ")));
        }
        text.push_str(&format!(
            " and {} on {}",
            plural(self.count(EventType::Memset), "memset", "memsets"),
            plural(self.lanes, "device lane", "device lanes")
        ));
        text
    }
}

/// Every plane's summary, in plane order: what [`render_summarized`] and
/// [`DeviceTotals::add_summaries`] read (summarizing a million-event trace takes a while, so a
/// caller needing both summarizes once).
pub fn summarize(space: &XSpace) -> Vec<PlaneSummary> {
    let memsets = memset_calls(space);
    space
        .planes
        .iter()
        .map(|plane| summarize_plane(plane, &memsets))
        .collect()
}

pub fn render(space: &XSpace, source: &str) -> String {
    render_summarized(space, &summarize(space), source)
}

/// [`render`] with the space's [`summarize`]d planes.
pub fn render_summarized(space: &XSpace, summaries: &[PlaneSummary], source: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "trace: {}", printable(source));
    if !space.hostnames.is_empty() {
        let _ = writeln!(out, "hosts: {}", printable(&space.hostnames.join(", ")));
    }
    // Times are shown from the trace start (its earliest event), not as epoch nanoseconds.
    let trace_start = summaries
        .iter()
        .filter_map(|summary| summary.span_ps)
        .map(|(start, _)| start)
        .min();
    let _ = writeln!(out, "planes: {}", space.planes.len());
    if let Some(start) = trace_start {
        let _ = writeln!(
            out,
            "trace start (its earliest event): {}; times below are from it",
            format_trace_start(start / 1000)
        );
    }
    let mut device_span = None;
    for (plane, summary) in space.planes.iter().zip(summaries) {
        let events: u64 = summary.lanes.iter().map(|lane| lane.events).sum();
        if summary.name == SCOPE_RANGE_TREE_PLANE_NAME {
            // XLA's own bookkeeping, not a timeline: say what it is instead of listing it.
            let _ = writeln!(
                out,
                "\n{} (id {}): XLA's scope-range id tree (annotation nesting), not a timeline; \
                 kept in the file, not shown",
                printable(&summary.name),
                summary.id
            );
            continue;
        }
        let _ = write!(
            out,
            "\n{} (id {}): {}, {}",
            printable(&summary.name),
            summary.id,
            plural(summary.lanes.len() as u64, "lane", "lanes"),
            plural(events, "event", "events")
        );
        if let Some((start, end)) = summary.span_ps {
            let relative = start - trace_start.unwrap_or(start);
            let _ = write!(
                out,
                ", {} to {} ({})",
                format_offset_ps(relative),
                format_offset_ps(relative + end - start),
                format_duration_ps(end - start)
            );
            if summary.is_device {
                widen(&mut device_span, start, end);
            }
        }
        let _ = writeln!(out);
        if !plane.stats.is_empty() && summary.is_device {
            let _ = writeln!(out, "  device stats: {}", device_stats_line(plane));
        }
        for lane in &summary.lanes {
            let _ = write!(
                out,
                "  {}: {}",
                printable(&lane.name),
                plural(lane.events, "event", "events")
            );
            if !lane.by_kind.is_empty() || lane.others > 0 || lane.flow_ends > 0 {
                let mut kinds: Vec<String> = lane
                    .by_kind
                    .iter()
                    .map(|(kind, count)| format!("{} {count}", kind.name()))
                    .collect();
                if lane.flow_ends > 0 {
                    kinds.push(format!("Flow end {}", lane.flow_ends));
                }
                if lane.others > 0 {
                    kinds.push(format!("Other {}", lane.others));
                }
                let _ = write!(out, " ({})", kinds.join(", "));
            }
            let _ = writeln!(out);
        }
        if !summary.memcpy_bytes.is_empty() {
            let bytes: Vec<String> = summary
                .memcpy_bytes
                .iter()
                .map(|(kind, bytes)| {
                    if *bytes < 1024 {
                        format!("{} {}", kind.name(), format_bytes(*bytes))
                    } else {
                        format!("{} {} ({bytes} B)", kind.name(), format_bytes(*bytes))
                    }
                })
                .collect();
            let _ = writeln!(out, "  memcpy bytes: {}", bytes.join(", "));
        }
        if summary.graph_nodes > 0 {
            let ids: Vec<String> = summary.graph_ids.iter().map(u64::to_string).collect();
            let _ = writeln!(
                out,
                "  graph nodes: {} ({GRAPH_NODE_ID_STAT}); graphs ({CUDA_GRAPH_ID_STAT}): {}",
                summary.graph_nodes,
                if ids.is_empty() {
                    "not known".to_owned()
                } else {
                    ids.join(", ")
                }
            );
        }
    }
    if let (Some((start, end)), Some(trace_start)) = (device_span, trace_start) {
        let _ = writeln!(
            out,
            "\ndevice activity: {} to {} ({})",
            format_offset_ps(start - trace_start),
            format_offset_ps(end - trace_start),
            format_duration_ps(end - start)
        );
    }
    if space.warnings.is_empty() && space.errors.is_empty() {
        let _ = writeln!(out, "\ndrops: none reported");
    } else {
        let _ = writeln!(out, "\ndrops and problems reported by the trace:");
        for error in &space.errors {
            let _ = writeln!(out, "  error: {}", printable(error));
        }
        for warning in &space.warnings {
            let _ = writeln!(out, "  warning: {}", printable(warning));
        }
    }
    out
}

fn device_stats_line(plane: &XPlane) -> String {
    let parts: Vec<String> = plane
        .stats
        .iter()
        .map(|stat| {
            let value = crate::xspace_view::stat_value(plane, stat);
            let name = crate::xspace_view::stat_name(plane, stat);
            let number = value.as_f64();
            // XLA's device stats carry their units in their names' definitions only.
            let value = match (name, number) {
                ("clock_rate", Some(khz)) => format!("{:.2} GHz", khz / 1e6),
                ("memory_size", Some(bytes)) => format_bytes(bytes as u64),
                ("memory_bandwidth", Some(bytes_per_s)) => {
                    format!("{:.1} GB/s", bytes_per_s / 1e9)
                }
                _ => match value {
                    serde_json::Value::String(text) => text,
                    other => other.to_string(),
                },
            };
            format!("{}={}", printable(name), printable(&value))
        })
        .collect();
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_start_is_a_utc_date_on_the_wall_clock() {
        // The virtual clock's epoch, and a leap day.
        assert_eq!(
            format_trace_start(1_735_689_600_000_000_000),
            "2025-01-01 00:00:00.000000000 UTC"
        );
        assert_eq!(
            format_trace_start(951_782_400_000_000_123 + 86_399 * 1_000_000_000),
            "2000-02-29 23:59:59.000000123 UTC"
        );
        assert_eq!(format_trace_start(39_825), "39825 ns on the trace's clock");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("h2d"), "h2d");
        assert_eq!(printable("a\nb\tc\u{1b}[31m"), "a\\nb\\tc\\u{1b}[31m");
        assert_eq!(printable("é ü"), "é ü");
    }

    #[test]
    fn durations_and_bytes_carry_units() {
        assert_eq!(format_duration_ps(850_000), "850 ns");
        assert_eq!(format_duration_ps(12_500_000), "12.5 us");
        assert_eq!(format_duration_ps(1_234_000_000), "1.234 ms");
        assert_eq!(format_duration_ps(2_500_000_000_000), "2.500 s");
        assert_eq!(format_bytes(1), "1 B");
        assert_eq!(format_bytes(4096), "4.0 KiB");
        assert_eq!(format_bytes(4 << 20), "4.00 MiB");
        assert_eq!(format_bytes(3 << 29), "1.50 GiB");
    }
}
