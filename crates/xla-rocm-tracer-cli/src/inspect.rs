//! `inspect`: planes, lanes with event counts by kind, copy bytes by direction, time span and
//! what the trace says was dropped.
use std::collections::BTreeMap;
use std::fmt::Write as _;

use xla_rocm_tracer::event::EventType;
use xla_rocm_tracer::export::plane_names::GPU_PLANE_PREFIX;
use xla_rocm_tracer::export::{XPlane, XSpace};

use crate::event_kind::{infer_kind, memcpy_bytes};
use crate::xspace_view::{event_span_ps, line_name};

pub struct LaneSummary {
    pub name: String,
    pub events: u64,
    pub by_kind: BTreeMap<EventType, u64>,
    /// Events of no kind the trace's names and stats reveal.
    pub others: u64,
}

pub struct PlaneSummary {
    pub name: String,
    pub id: i64,
    pub is_device: bool,
    pub lanes: Vec<LaneSummary>,
    pub memcpy_bytes: BTreeMap<EventType, u64>,
    /// Earliest start and latest end, picoseconds since the epoch.
    pub span_ps: Option<(i128, i128)>,
}

fn widen(span: &mut Option<(i128, i128)>, start: i128, end: i128) {
    *span = Some(match *span {
        Some((low, high)) => (low.min(start), high.max(end)),
        None => (start, end),
    });
}

pub fn summarize_plane(plane: &XPlane) -> PlaneSummary {
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
    };
    for line in &plane.lines {
        let mut lane = LaneSummary {
            name: line_name(line).to_owned(),
            events: line.events.len() as u64,
            by_kind: BTreeMap::new(),
            others: 0,
        };
        for event in &line.events {
            let (start, end) = event_span_ps(line, event);
            widen(&mut summary.span_ps, start, end);
            if !is_device {
                continue;
            }
            let Some(kind) = infer_kind(plane, event) else {
                lane.others += 1;
                continue;
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

fn format_duration_ps(ps: i128) -> String {
    format!("{:.3} ms", ps as f64 / 1e9)
}

pub fn render(space: &XSpace, source: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "trace: {source}");
    if !space.hostnames.is_empty() {
        let _ = writeln!(out, "hosts: {}", space.hostnames.join(", "));
    }
    let _ = writeln!(out, "planes: {}", space.planes.len());
    let mut device_span = None;
    for plane in &space.planes {
        let summary = summarize_plane(plane);
        let events: u64 = summary.lanes.iter().map(|lane| lane.events).sum();
        let _ = write!(
            out,
            "\n{} (id {}): {} lanes, {} events",
            summary.name,
            summary.id,
            summary.lanes.len(),
            events
        );
        if let Some((start, end)) = summary.span_ps {
            let _ = write!(out, ", span {}", format_duration_ps(end - start));
            if summary.is_device {
                widen(&mut device_span, start, end);
            }
        }
        let _ = writeln!(out);
        if !plane.stats.is_empty() && summary.is_device {
            let _ = writeln!(out, "  device stats: {}", device_stats_line(plane));
        }
        for lane in &summary.lanes {
            let _ = write!(out, "  {}: {} events", lane.name, lane.events);
            if !lane.by_kind.is_empty() || lane.others > 0 {
                let mut kinds: Vec<String> = lane
                    .by_kind
                    .iter()
                    .map(|(kind, count)| format!("{} {count}", kind.name()))
                    .collect();
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
                .map(|(kind, bytes)| format!("{} {bytes}", kind.name()))
                .collect();
            let _ = writeln!(out, "  memcpy bytes: {}", bytes.join(", "));
        }
    }
    if let Some((start, end)) = device_span {
        let _ = writeln!(
            out,
            "\ndevice time span: {} (from {} ns to {} ns)",
            format_duration_ps(end - start),
            start / 1000,
            end / 1000
        );
    }
    if space.warnings.is_empty() && space.errors.is_empty() {
        let _ = writeln!(out, "\ndrops: none reported");
    } else {
        let _ = writeln!(out, "\ndrops and problems reported by the trace:");
        for error in &space.errors {
            let _ = writeln!(out, "  error: {error}");
        }
        for warning in &space.warnings {
            let _ = writeln!(out, "  warning: {warning}");
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
            let value = match value {
                serde_json::Value::String(text) => text,
                other => other.to_string(),
            };
            format!("{}={value}", crate::xspace_view::stat_name(plane, stat))
        })
        .collect();
    parts.join(" ")
}
