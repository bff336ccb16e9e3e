//! Read-only helpers over any XSpace, ours or XLA's: names, times and stat values.
use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{XEvent, XLine, XPlane, XStat};

pub fn line_name(line: &XLine) -> &str {
    if line.display_name.is_empty() {
        &line.name
    } else {
        &line.display_name
    }
}

pub fn event_name<'a>(plane: &'a XPlane, event: &XEvent) -> &'a str {
    match plane.event_metadata.get(&event.metadata_id) {
        Some(metadata) if !metadata.display_name.is_empty() => &metadata.display_name,
        Some(metadata) => &metadata.name,
        None => "",
    }
}

pub fn stat_name<'a>(plane: &'a XPlane, stat: &XStat) -> &'a str {
    plane
        .stat_metadata
        .get(&stat.metadata_id)
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
        Some(Value::RefValue(id)) => {
            let referenced = i64::try_from(*id)
                .ok()
                .and_then(|id| plane.stat_metadata.get(&id));
            serde_json::json!(referenced
                .map(|metadata| metadata.name.as_str())
                .unwrap_or(""))
        }
        None => serde_json::Value::Null,
    }
}

/// The value of the event's stat `name` as text, if present.
pub fn stat_text(plane: &XPlane, event: &XEvent, name: &str) -> Option<String> {
    let stat = event
        .stats
        .iter()
        .find(|stat| stat_name(plane, stat) == name)?;
    Some(match stat_value(plane, stat) {
        serde_json::Value::String(text) => text,
        other => other.to_string(),
    })
}

/// Start and end of an event in picoseconds since the epoch of the line's timestamp.
pub fn event_span_ps(line: &XLine, event: &XEvent) -> (i128, i128) {
    use xla_rocm_tracer::export::xplane_proto::x_event::Data;
    let offset_ps = match event.data {
        Some(Data::OffsetPs(offset)) => offset,
        _ => 0,
    };
    let start = i128::from(line.timestamp_ns) * 1000 + i128::from(offset_ps);
    (start, start + i128::from(event.duration_ps))
}
