//! The exported XSpace as the bridge's columns ([`FlatXSpace`]): what `Export` hands to C++,
//! which builds the caller's XSpace from it (cpp/flat_xspace.h). Encoding the XSpace in Rust
//! and parsing it again in C++ cost about half of the XLA path's export
//! (benches/run.sh, `xla_export_instructions`). The export writes the columns directly as it
//! builds each line ([`FlatXSpaceSink`], an export sink): no prost XSpace is built on the way,
//! the event column is reserved to the exact count, and no allocation is made per event.
//! Every field of the schema is carried, so the C++ XSpace is the one the Rust export built.
//!
//! The columns are a cxx bridge of their own (types only); the collector's bridge names
//! [`FlatXSpace`] as `type FlatXSpace = crate::ffi::flat_xspace::FlatXSpace`.
use crate::export::xplane_proto::{x_event, x_stat, XEventMetadata, XStat};
use crate::export::{replay_planes, EventView, LineHeader, XPlane, XSpaceSink};

#[cxx::bridge(namespace = "xla::profiler::rust_bridge")]
mod bridge {
    /// A stretch of one of [`FlatXSpace`]'s columns (or of its `text`): `len` items from
    /// `start`.
    #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
    struct Span {
        start: usize,
        len: usize,
    }

    /// Which member of `XStat`'s value oneof is set.
    #[derive(Debug)]
    enum XStatValueKind {
        None,
        Double,
        Uint64,
        Int64,
        Str,
        Bytes,
        Ref,
    }

    /// An `XStat`: `number` holds a double's bits, a uint64, an int64's bits or a ref;
    /// `text` a string or bytes.
    #[derive(Debug)]
    struct FlatXStat {
        metadata_id: i64,
        kind: XStatValueKind,
        number: u64,
        text: Span,
    }

    /// An `XEvent`; `data` is the oneof's member: 0 none, 1 `offset_ps`, 2 `num_occurrences`.
    #[derive(Debug)]
    struct FlatXEvent {
        metadata_id: i64,
        data: u8,
        data_value: i64,
        duration_ps: i64,
        stats: Span,
    }

    #[derive(Debug)]
    struct FlatXLine {
        id: i64,
        display_id: i64,
        name: Span,
        display_name: Span,
        timestamp_ns: i64,
        duration_ps: i64,
        events: Span,
    }

    #[derive(Debug)]
    struct FlatXEventMetadata {
        id: i64,
        name: Span,
        display_name: Span,
        metadata: Span,
        stats: Span,
        child_ids: Span,
    }

    #[derive(Debug)]
    struct FlatXStatMetadata {
        id: i64,
        name: Span,
        description: Span,
    }

    #[derive(Debug)]
    struct FlatXPlane {
        id: i64,
        name: Span,
        lines: Span,
        event_metadata: Span,
        stat_metadata: Span,
        stats: Span,
    }

    /// A `tensorflow.profiler.XSpace` as columns: the export hands it to C++, which builds
    /// the caller's XSpace from it without a parse. Every string and byte string is a
    /// [`Span`] of `text`; every repeated field a [`Span`] of its column.
    #[derive(Debug, Default)]
    struct FlatXSpace {
        planes: Vec<FlatXPlane>,
        lines: Vec<FlatXLine>,
        events: Vec<FlatXEvent>,
        stats: Vec<FlatXStat>,
        event_metadata: Vec<FlatXEventMetadata>,
        stat_metadata: Vec<FlatXStatMetadata>,
        child_ids: Vec<i64>,
        text: Vec<u8>,
        errors: Vec<Span>,
        warnings: Vec<Span>,
        hostnames: Vec<Span>,
    }
}

pub(super) use bridge::FlatXSpace;
use bridge::{
    FlatXEvent, FlatXEventMetadata, FlatXLine, FlatXPlane, FlatXStat, FlatXStatMetadata, Span,
    XStatValueKind,
};

impl FlatXSpace {
    /// `space` as columns (the export writes them directly; tests compare).
    #[cfg(test)]
    pub(super) fn of(space: &crate::export::XSpace) -> FlatXSpace {
        let mut sink = FlatXSpaceSink::default();
        crate::export::replay_xspace(space, &mut sink);
        sink.finish()
    }

    /// `planes` as columns (no errors, warnings or host names).
    pub(super) fn of_planes<'a>(
        planes: impl IntoIterator<Item = &'a XPlane> + Clone,
    ) -> FlatXSpace {
        let mut sink = FlatXSpaceSink::default();
        replay_planes(planes, &mut sink);
        sink.finish()
    }

    fn add_text(&mut self, text: impl AsRef<[u8]>) -> Span {
        let text = text.as_ref();
        let start = self.text.len();
        self.text.extend_from_slice(text);
        Span {
            start,
            len: text.len(),
        }
    }

    fn add_texts(&mut self, texts: &[String]) -> Vec<Span> {
        texts.iter().map(|text| self.add_text(text)).collect()
    }

    fn add_stats(&mut self, stats: &[XStat]) -> Span {
        let start = self.stats.len();
        for stat in stats {
            let (kind, number, text) = match &stat.value {
                None => (XStatValueKind::None, 0, Span::default()),
                Some(x_stat::Value::DoubleValue(v)) => {
                    (XStatValueKind::Double, v.to_bits(), Span::default())
                }
                Some(x_stat::Value::Uint64Value(v)) => {
                    (XStatValueKind::Uint64, *v, Span::default())
                }
                Some(x_stat::Value::Int64Value(v)) => {
                    (XStatValueKind::Int64, *v as u64, Span::default())
                }
                Some(x_stat::Value::RefValue(v)) => (XStatValueKind::Ref, *v, Span::default()),
                Some(x_stat::Value::StrValue(v)) => (XStatValueKind::Str, 0, self.add_text(v)),
                Some(x_stat::Value::BytesValue(v)) => (XStatValueKind::Bytes, 0, self.add_text(v)),
            };
            self.stats.push(FlatXStat {
                metadata_id: stat.metadata_id,
                kind,
                number,
                text,
            });
        }
        Span {
            start,
            len: stats.len(),
        }
    }

    fn add_event_metadata(&mut self, metadata: &XEventMetadata) -> FlatXEventMetadata {
        let child_start = self.child_ids.len();
        self.child_ids.extend_from_slice(&metadata.child_id);
        FlatXEventMetadata {
            id: metadata.id,
            name: self.add_text(&metadata.name),
            display_name: self.add_text(&metadata.display_name),
            metadata: self.add_text(&metadata.metadata),
            stats: self.add_stats(&metadata.stats),
            child_ids: Span {
                start: child_start,
                len: metadata.child_id.len(),
            },
        }
    }
}

/// The export sink that writes [`FlatXSpace`]'s columns. A plane's lines are contiguous in
/// `lines` (they arrive before the plane), each line's events in `events`, each event's
/// stats in `stats`.
#[derive(Default)]
pub(super) struct FlatXSpaceSink {
    flat: FlatXSpace,
    /// Where the lines of the plane being built start.
    plane_lines_start: usize,
}

impl FlatXSpaceSink {
    pub(super) fn finish(self) -> FlatXSpace {
        self.flat
    }
}

impl XSpaceSink for FlatXSpaceSink {
    fn expect_events(&mut self, events: usize) {
        self.flat.events.reserve_exact(events);
        // Nearly every event carries a correlation id; the rest grows as needed.
        self.flat.stats.reserve(events);
    }

    fn start_line(&mut self, line: LineHeader<'_>) {
        let flat = &mut self.flat;
        let line = FlatXLine {
            id: line.id,
            display_id: line.display_id,
            name: flat.add_text(line.name),
            display_name: flat.add_text(line.display_name),
            timestamp_ns: line.timestamp_ns,
            duration_ps: line.duration_ps,
            events: Span {
                start: flat.events.len(),
                len: 0,
            },
        };
        flat.lines.push(line);
    }

    fn add_event(&mut self, event: EventView<'_>) {
        let flat = &mut self.flat;
        // A sink is fed a line before its events; an event without one has nowhere to go.
        if flat.lines.len() <= self.plane_lines_start {
            return;
        }
        let (data, data_value) = match event.data {
            None => (0, 0),
            Some(x_event::Data::OffsetPs(offset)) => (1, offset),
            Some(x_event::Data::NumOccurrences(count)) => (2, count),
        };
        let stats = flat.add_stats(event.stats);
        flat.events.push(FlatXEvent {
            metadata_id: event.metadata_id,
            data,
            data_value,
            duration_ps: event.duration_ps,
            stats,
        });
        if let Some(line) = flat.lines.last_mut() {
            line.events.len += 1;
        }
    }

    fn finish_plane(&mut self, plane: XPlane) {
        let flat = &mut self.flat;
        let lines = Span {
            start: self.plane_lines_start,
            len: flat.lines.len() - self.plane_lines_start,
        };
        self.plane_lines_start = flat.lines.len();
        let event_metadata_start = flat.event_metadata.len();
        for metadata in plane.event_metadata.values() {
            let metadata = flat.add_event_metadata(metadata);
            flat.event_metadata.push(metadata);
        }
        let stat_metadata_start = flat.stat_metadata.len();
        for metadata in plane.stat_metadata.values() {
            let metadata = FlatXStatMetadata {
                id: metadata.id,
                name: flat.add_text(&metadata.name),
                description: flat.add_text(&metadata.description),
            };
            flat.stat_metadata.push(metadata);
        }
        let plane = FlatXPlane {
            id: plane.id,
            name: flat.add_text(&plane.name),
            lines,
            event_metadata: Span {
                start: event_metadata_start,
                len: plane.event_metadata.len(),
            },
            stat_metadata: Span {
                start: stat_metadata_start,
                len: plane.stat_metadata.len(),
            },
            stats: flat.add_stats(&plane.stats),
        };
        flat.planes.push(plane);
    }

    fn finish_space(&mut self, errors: &[String], warnings: &[String], hostnames: &[String]) {
        let flat = &mut self.flat;
        flat.errors = flat.add_texts(errors);
        flat.warnings = flat.add_texts(warnings);
        flat.hostnames = flat.add_texts(hostnames);
    }
}

#[cfg(test)]
mod tests {
    //! The columns read back into an XSpace, as cpp/flat_xspace.h reads them, give the XSpace
    //! they were made from.
    use super::*;
    use crate::export::xplane_proto::{XEvent, XStatMetadata};
    use crate::export::{XLine, XPlane, XSpace};

    fn text(flat: &FlatXSpace, span: Span) -> Vec<u8> {
        flat.text[span.start..span.start + span.len].to_vec()
    }

    fn string(flat: &FlatXSpace, span: Span) -> String {
        String::from_utf8(text(flat, span)).expect("UTF-8")
    }

    fn stats(flat: &FlatXSpace, span: Span) -> Vec<XStat> {
        flat.stats[span.start..span.start + span.len]
            .iter()
            .map(|stat| XStat {
                metadata_id: stat.metadata_id,
                value: match stat.kind {
                    XStatValueKind::Double => {
                        Some(x_stat::Value::DoubleValue(f64::from_bits(stat.number)))
                    }
                    XStatValueKind::Uint64 => Some(x_stat::Value::Uint64Value(stat.number)),
                    XStatValueKind::Int64 => Some(x_stat::Value::Int64Value(stat.number as i64)),
                    XStatValueKind::Ref => Some(x_stat::Value::RefValue(stat.number)),
                    XStatValueKind::Str => Some(x_stat::Value::StrValue(string(flat, stat.text))),
                    XStatValueKind::Bytes => Some(x_stat::Value::BytesValue(text(flat, stat.text))),
                    _ => None,
                },
            })
            .collect()
    }

    fn read_back(flat: &FlatXSpace) -> XSpace {
        let planes = flat.planes.iter().map(|plane| {
            let lines = &flat.lines[plane.lines.start..plane.lines.start + plane.lines.len];
            let event_metadata = &flat.event_metadata
                [plane.event_metadata.start..plane.event_metadata.start + plane.event_metadata.len];
            let stat_metadata = &flat.stat_metadata
                [plane.stat_metadata.start..plane.stat_metadata.start + plane.stat_metadata.len];
            XPlane {
                id: plane.id,
                name: string(flat, plane.name),
                lines: lines
                    .iter()
                    .map(|line| XLine {
                        id: line.id,
                        display_id: line.display_id,
                        name: string(flat, line.name),
                        display_name: string(flat, line.display_name),
                        timestamp_ns: line.timestamp_ns,
                        duration_ps: line.duration_ps,
                        events: flat.events[line.events.start..line.events.start + line.events.len]
                            .iter()
                            .map(|event| XEvent {
                                metadata_id: event.metadata_id,
                                data: match event.data {
                                    1 => Some(x_event::Data::OffsetPs(event.data_value)),
                                    2 => Some(x_event::Data::NumOccurrences(event.data_value)),
                                    _ => None,
                                },
                                duration_ps: event.duration_ps,
                                stats: stats(flat, event.stats),
                            })
                            .collect(),
                    })
                    .collect(),
                event_metadata: event_metadata
                    .iter()
                    .map(|m| {
                        let children =
                            &flat.child_ids[m.child_ids.start..m.child_ids.start + m.child_ids.len];
                        let metadata = XEventMetadata {
                            id: m.id,
                            name: string(flat, m.name),
                            display_name: string(flat, m.display_name),
                            metadata: text(flat, m.metadata),
                            stats: stats(flat, m.stats),
                            child_id: children.to_vec(),
                        };
                        (m.id, metadata)
                    })
                    .collect(),
                stat_metadata: stat_metadata
                    .iter()
                    .map(|m| {
                        let metadata = XStatMetadata {
                            id: m.id,
                            name: string(flat, m.name),
                            description: string(flat, m.description),
                        };
                        (m.id, metadata)
                    })
                    .collect(),
                stats: stats(flat, plane.stats),
            }
        });
        let strings = |spans: &[Span]| spans.iter().map(|&s| string(flat, s)).collect();
        XSpace {
            planes: planes.collect(),
            errors: strings(&flat.errors),
            warnings: strings(&flat.warnings),
            hostnames: strings(&flat.hostnames),
        }
    }

    fn stat(metadata_id: i64, value: x_stat::Value) -> XStat {
        XStat {
            metadata_id,
            value: Some(value),
        }
    }

    #[test]
    fn every_field_of_the_schema_survives_the_columns() {
        let mut plane = XPlane {
            id: 7,
            name: "/device:GPU:0".to_owned(),
            stats: vec![stat(1, x_stat::Value::Int64Value(-3))],
            ..XPlane::default()
        };
        plane.event_metadata.insert(
            2,
            XEventMetadata {
                id: 2,
                name: "kernel".to_owned(),
                display_name: "k".to_owned(),
                metadata: vec![0, 255, 1],
                stats: vec![stat(1, x_stat::Value::BytesValue(vec![9, 0]))],
                child_id: vec![4, 5],
            },
        );
        plane.stat_metadata.insert(
            1,
            XStatMetadata {
                id: 1,
                name: "correlation_id".to_owned(),
                description: "why".to_owned(),
            },
        );
        for (id, events) in [(1, 2), (2, 0), (3, 1)] {
            plane.lines.push(XLine {
                id,
                display_id: id + 10,
                name: format!("Stream #{id}"),
                display_name: "shown".to_owned(),
                timestamp_ns: 1000 * id,
                duration_ps: 5,
                events: (0..events)
                    .map(|n| XEvent {
                        metadata_id: 2,
                        data: Some(if n == 0 {
                            x_event::Data::OffsetPs(-n - 1)
                        } else {
                            x_event::Data::NumOccurrences(n)
                        }),
                        duration_ps: 3,
                        stats: vec![
                            stat(1, x_stat::Value::Uint64Value(u64::MAX)),
                            stat(1, x_stat::Value::DoubleValue(12.5)),
                            stat(1, x_stat::Value::StrValue("é".to_owned())),
                            stat(1, x_stat::Value::RefValue(1)),
                            XStat {
                                metadata_id: 1,
                                value: None,
                            },
                        ],
                    })
                    .collect(),
            });
        }
        let space = XSpace {
            planes: vec![
                plane,
                XPlane {
                    id: 0,
                    name: "/host:CUPTI".to_owned(),
                    ..XPlane::default()
                },
            ],
            errors: vec!["an error".to_owned()],
            warnings: vec!["a warning".to_owned(), String::new()],
            hostnames: vec!["host".to_owned()],
        };
        assert_eq!(read_back(&FlatXSpace::of(&space)), space);
    }

    #[test]
    fn an_empty_space_has_empty_columns() {
        let flat = FlatXSpace::of(&XSpace::default());
        assert!(flat.planes.is_empty() && flat.events.is_empty() && flat.text.is_empty());
    }
}
