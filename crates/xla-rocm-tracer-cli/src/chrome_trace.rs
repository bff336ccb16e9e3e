//! `convert --to chrome-json`: the Trace Event Format that chrome://tracing and Perfetto UI
//! load. One process per plane, one thread per line, "X" (complete) events in microseconds,
//! event stats as args.
use std::io::{self, Write};

use serde_json::{json, Map, Value};
use xla_rocm_tracer::export::XSpace;

use crate::progress::Progress;
use crate::xspace_view::{event_name, event_span_ps, line_name, stat_name, stat_value};

fn write_record(out: &mut dyn Write, first: &mut bool, record: &Value) -> io::Result<()> {
    if !*first {
        out.write_all(b",\n")?;
    }
    *first = false;
    serde_json::to_writer(&mut *out, record).map_err(io::Error::other)
}

/// Streams the JSON so that large traces are not held twice in memory.
pub fn write_chrome_trace(
    space: &XSpace,
    out: &mut dyn Write,
    progress: &mut Progress,
) -> io::Result<()> {
    out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
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
            write_record(
                out,
                &mut first,
                &json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": line_name(line)}}),
            )?;
            write_record(
                out,
                &mut first,
                &json!({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid, "args": {"sort_index": tid}}),
            )?;
            for event in &line.events {
                let (start_ps, end_ps) = event_span_ps(line, event);
                let mut args = Map::new();
                for stat in &event.stats {
                    args.insert(stat_name(plane, stat).to_owned(), stat_value(plane, stat));
                }
                let record = json!({
                    "ph": "X",
                    "name": event_name(plane, event),
                    "pid": pid,
                    "tid": tid,
                    "ts": start_ps as f64 / 1e6,
                    "dur": (end_ps - start_ps) as f64 / 1e6,
                    "args": args,
                });
                write_record(out, &mut first, &record)?;
                progress.tick();
            }
        }
    }
    out.write_all(b"\n]}\n")?;
    out.flush()
}
