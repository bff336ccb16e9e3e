//! `convert --to chrome-json`: the Trace Event Format that chrome://tracing and Perfetto UI
//! load. One process per plane, one thread per line, "X" (complete) events in microseconds,
//! event stats as args.
//!
//! Times are microseconds from the trace's earliest event (`otherData.start_time_ns` holds it
//! as wall-clock nanoseconds), written as exact decimals (`12.345678`, down to picoseconds).
//! Epoch microseconds need 16 digits before the point, more than a double holds with the
//! nanoseconds after it: readers parse `ts` as a double, so back-to-back slices would overlap.
use std::io::{self, Write};

use serde_json::{json, Map, Value};
use xla_rocm_tracer::export::{XLine, XSpace};

use crate::progress::Progress;
use crate::xspace_view::{event_name, event_span_ps, line_name, stat_name, stat_value};

fn write_record(out: &mut dyn Write, first: &mut bool, record: &Value) -> io::Result<()> {
    if !*first {
        out.write_all(b",\n")?;
    }
    *first = false;
    serde_json::to_writer(&mut *out, record).map_err(io::Error::other)
}

/// The earliest event start of `space`, in picoseconds (0 for a trace without events).
fn trace_start_ps(space: &XSpace) -> i128 {
    space
        .planes
        .iter()
        .flat_map(|plane| &plane.lines)
        .flat_map(|line| {
            line.events
                .iter()
                .map(move |event| event_span_ps(line, event).0)
        })
        .min()
        .unwrap_or(0)
}

/// `ps` picoseconds as microseconds, exactly: `12`, `12.5`, `12.000001`.
fn exact_micros(ps: i128) -> String {
    let sign = if ps < 0 { "-" } else { "" };
    let ps = ps.unsigned_abs();
    let whole = ps / 1_000_000;
    let fraction = ps % 1_000_000;
    if fraction == 0 {
        return format!("{sign}{whole}");
    }
    let digits = format!("{fraction:06}");
    format!("{sign}{whole}.{}", digits.trim_end_matches('0'))
}

/// One "X" record; `ts` and `dur` written as exact decimals, which `serde_json::Value` cannot.
fn write_complete_event(
    out: &mut dyn Write,
    first: &mut bool,
    head: &Value,
    (start_ps, end_ps): (i128, i128),
    args: &Value,
) -> io::Result<()> {
    if !*first {
        out.write_all(b",\n")?;
    }
    *first = false;
    // `head` is an object: its text without the closing brace, then the times and the args.
    let head = serde_json::to_string(head).map_err(io::Error::other)?;
    let head = head.strip_suffix('}').unwrap_or(&head);
    let args = serde_json::to_string(args).map_err(io::Error::other)?;
    write!(
        out,
        "{head},\"ts\":{},\"dur\":{},\"args\":{args}}}",
        exact_micros(start_ps),
        exact_micros(end_ps - start_ps)
    )
}

/// Streams the JSON so that large traces are not held twice in memory.
pub fn write_chrome_trace(
    space: &XSpace,
    out: &mut dyn Write,
    progress: &mut Progress,
) -> io::Result<()> {
    let origin_ps = trace_start_ps(space);
    writeln!(
        out,
        "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"start_time_ns\":\"{}\"}},\"traceEvents\":[",
        origin_ps.div_euclid(1000)
    )?;
    let mut first = true;
    for (plane_index, plane) in space.planes.iter().enumerate() {
        let pid = plane_index + 1;
        write_record(
            out,
            &mut first,
            &json!({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": plane.name}}),
        )?;
        write_record(
            out,
            &mut first,
            &json!({"ph": "M", "name": "process_sort_index", "pid": pid, "args": {"sort_index": pid}}),
        )?;
        for (line_index, line) in plane.lines.iter().enumerate() {
            let tid = line_index + 1;
            write_line_names(out, &mut first, line, pid, tid)?;
            for event in &line.events {
                let (start_ps, end_ps) = event_span_ps(line, event);
                let mut args = Map::new();
                for stat in &event.stats {
                    args.insert(stat_name(plane, stat).to_owned(), stat_value(plane, stat));
                }
                let head = json!({
                    "ph": "X",
                    "name": event_name(plane, event),
                    "pid": pid,
                    "tid": tid,
                });
                write_complete_event(
                    out,
                    &mut first,
                    &head,
                    (start_ps - origin_ps, end_ps - origin_ps),
                    &Value::Object(args),
                )?;
                progress.tick();
            }
        }
    }
    out.write_all(b"\n]}\n")?;
    out.flush()
}

fn write_line_names(
    out: &mut dyn Write,
    first: &mut bool,
    line: &XLine,
    pid: usize,
    tid: usize,
) -> io::Result<()> {
    write_record(
        out,
        first,
        &json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": line_name(line)}}),
    )?;
    write_record(
        out,
        first,
        &json!({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid, "args": {"sort_index": tid}}),
    )
}

#[cfg(test)]
mod tests {
    use super::exact_micros;

    #[test]
    fn micros_are_exact_decimals() {
        assert_eq!(exact_micros(0), "0");
        assert_eq!(exact_micros(12_000_000), "12");
        assert_eq!(exact_micros(12_500_000), "12.5");
        assert_eq!(exact_micros(1), "0.000001");
        assert_eq!(
            exact_micros(1_735_689_600_000_000_123_000),
            "1735689600000000.123"
        );
        assert_eq!(exact_micros(-1_500_000), "-1.5");
    }
}
