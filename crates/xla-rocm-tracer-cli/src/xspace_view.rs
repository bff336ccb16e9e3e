//! Read-only helpers over any XSpace, ours or XLA's: names, times and stat values.
use xla_rocm_tracer::export::xplane_proto::x_event::Data;
use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{shown_event_name, LineHeader, XEvent, XLine, XPlane, XStat};

pub fn line_name(line: &XLine) -> &str {
    LineHeader::of(line).shown_name()
}

pub fn event_name<'a>(plane: &'a XPlane, event: &XEvent) -> &'a str {
    metadata_name(plane, event.metadata_id)
}

/// The name events of metadata `metadata_id` show (its display name when it has one).
pub fn metadata_name(plane: &XPlane, metadata_id: i64) -> &str {
    plane
        .event_metadata
        .get(&metadata_id)
        .map_or("", shown_event_name)
}

pub fn stat_name<'a>(plane: &'a XPlane, stat: &XStat) -> &'a str {
    stat_metadata_name(plane, stat.metadata_id)
}

pub fn stat_metadata_name(plane: &XPlane, metadata_id: i64) -> &str {
    plane
        .stat_metadata
        .get(&metadata_id)
        .map(|metadata| metadata.name.as_str())
        .unwrap_or("")
}

/// A stat value as JSON: numbers stay numbers, refs become the referenced string.
pub fn stat_value(plane: &XPlane, stat: &XStat) -> serde_json::Value {
    match &stat.value {
        Some(Value::DoubleValue(v)) => serde_json::json!(v),
        Some(Value::Uint64Value(v)) => serde_json::json!(v),
        Some(Value::Int64Value(v)) => serde_json::json!(v),
        Some(Value::StrValue(v)) => serde_json::json!(v),
        Some(Value::BytesValue(v)) => serde_json::json!(format!("<{} bytes>", v.len())),
        Some(Value::RefValue(id)) => serde_json::json!(referenced_text(plane, *id)),
        None => serde_json::Value::Null,
    }
}

/// The string a ref stat's value `id` stands for ("" when the plane has no such metadata).
pub fn referenced_text(plane: &XPlane, id: u64) -> &str {
    i64::try_from(id)
        .ok()
        .and_then(|id| plane.stat_metadata.get(&id))
        .map(|metadata| metadata.name.as_str())
        .unwrap_or("")
}

/// The value of the event's stat `name` as text, if present.
pub fn stat_text(plane: &XPlane, event: &XEvent, name: &str) -> Option<String> {
    stats_text(plane, &event.stats, name)
}

/// The value of stat `name` among `stats` (the first of that name) as text, if present.
pub fn stats_text(plane: &XPlane, stats: &[XStat], name: &str) -> Option<String> {
    let stat = stats.iter().find(|stat| stat_name(plane, stat) == name)?;
    Some(match stat_value(plane, stat) {
        serde_json::Value::String(text) => text,
        other => other.to_string(),
    })
}

/// Start and end of an event in picoseconds since the epoch of the line's timestamp.
pub fn event_span_ps(line: &XLine, event: &XEvent) -> (i128, i128) {
    span_ps(line.timestamp_ns, event.data, event.duration_ps)
}

/// [`event_span_ps`] of an event given by its parts (an event without an offset starts with
/// its line).
pub fn span_ps(line_timestamp_ns: i64, data: Option<Data>, duration_ps: i64) -> (i128, i128) {
    let offset_ps = match data {
        Some(Data::OffsetPs(offset)) => offset,
        _ => 0,
    };
    let start = i128::from(line_timestamp_ns) * 1000 + i128::from(offset_ps);
    (start, start + i128::from(duration_ps))
}
