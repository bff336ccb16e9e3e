//! The export sink that writes an XSpace's protobuf encoding to a file as the export builds it
//! ([`XSpaceEncoder`]): each line is encoded when it is complete, each plane written when it
//! is complete, so at most one plane's encoded lines are held (about 35 bytes per event)
//! instead of a prost `XSpace` of the whole trace (about 480 bytes per event). The bytes are
//! those of prost's encoding of the XSpace the export describes: prost writes a message's
//! fields in tag order, so a line is its fields numbered below `events` (4), its events, then
//! its fields numbered above; a plane is its id and name, its lines (3), then its metadata
//! and stats.
use std::io::Write;

use prost::encoding::{encode_key, encode_varint, message, string, WireType};
use prost::Message;

use super::xplane_proto::{XEvent, XLine, XPlane};
use super::xspace_sink::{EventView, LineHeader, XSpaceSink};

/// A line whose events' encoding is at least this long is kept as it is, not copied into the
/// plane's buffer.
const MOVED_LINE_BYTES: usize = 64 << 10;
/// A line's events are encoded into pieces of about this size: a growing buffer would hold up
/// to twice its bytes, and copy them at each doubling.
const PIECE_BYTES: usize = 1 << 20;

/// `XSpace.planes`, `XPlane.lines` and `XLine.events`.
const SPACE_PLANES_TAG: u32 = 1;
const PLANE_LINES_TAG: u32 = 3;
const LINE_EVENTS_TAG: u32 = 4;

pub struct XSpaceEncoder<W: Write> {
    out: W,
    /// The current line's fields before and after its events, and its events encoded: full
    /// pieces, then the piece being written.
    line: Option<(XLine, XLine)>,
    line_pieces: Vec<Vec<u8>>,
    line_events: Vec<u8>,
    /// The current plane's lines, encoded: pieces written in order, then `plane_lines`. A
    /// long line's events are moved in as a piece, not copied: a million-event line would
    /// otherwise be held twice while it is copied.
    plane_pieces: Vec<Vec<u8>>,
    plane_lines: Vec<u8>,
    /// One event, reused: its stats vector keeps its capacity.
    event: XEvent,
    /// Scratch for a plane's head and tail.
    buffer: Vec<u8>,
    written: u64,
    /// The first write that failed; nothing is written after it.
    error: Option<std::io::Error>,
}

impl<W: Write> XSpaceEncoder<W> {
    pub fn new(out: W) -> XSpaceEncoder<W> {
        XSpaceEncoder {
            out,
            line: None,
            line_pieces: Vec::new(),
            line_events: Vec::new(),
            plane_pieces: Vec::new(),
            plane_lines: Vec::new(),
            event: XEvent::default(),
            buffer: Vec::new(),
            written: 0,
            error: None,
        }
    }

    /// How many bytes were written, or the first write error.
    pub fn finish(mut self) -> std::io::Result<u64> {
        if self.error.is_none() {
            if let Err(error) = self.out.flush() {
                self.error = Some(error);
            }
        }
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.written),
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        match self.out.write_all(bytes) {
            Ok(()) => self.written += bytes.len() as u64,
            Err(error) => self.error = Some(error),
        }
    }

    /// Appends the fields of `message` (no tag, no length) to the buffer `into` picks. A
    /// vector grows as needed, so prost's capacity error cannot happen; it is kept as the
    /// encoder's error all the same rather than unwrapped.
    fn encode_fields(&mut self, message: &impl Message, into: impl Fn(&mut Self) -> &mut Vec<u8>) {
        if let Err(error) = message.encode(into(self)) {
            self.error.get_or_insert(std::io::Error::other(error));
        }
    }

    /// Appends the current line, if any, to the plane's lines.
    fn end_line(&mut self) {
        let Some((head, tail)) = self.line.take() else {
            return;
        };
        let events_len =
            self.line_pieces.iter().map(Vec::len).sum::<usize>() + self.line_events.len();
        let len = head.encoded_len() + events_len + tail.encoded_len();
        encode_key(
            PLANE_LINES_TAG,
            WireType::LengthDelimited,
            &mut self.plane_lines,
        );
        encode_varint(len as u64, &mut self.plane_lines);
        self.encode_fields(&head, |encoder| &mut encoder.plane_lines);
        if events_len < MOVED_LINE_BYTES {
            // Shorter than a piece, so all in `line_events`.
            self.plane_lines.extend_from_slice(&self.line_events);
            self.line_events.clear();
        } else {
            let before = std::mem::take(&mut self.plane_lines);
            self.plane_pieces.push(before);
            self.plane_pieces.append(&mut self.line_pieces);
            let events = std::mem::take(&mut self.line_events);
            self.plane_pieces.push(events);
        }
        self.encode_fields(&tail, |encoder| &mut encoder.plane_lines);
    }
}

impl<W: Write> XSpaceSink for XSpaceEncoder<W> {
    fn start_line(&mut self, line: LineHeader<'_>) {
        self.end_line();
        // `id` (1), `name` (2), `timestamp_ns` (3) | events (4) | `duration_ps` (9),
        // `display_id` (10), `display_name` (11).
        let mut tail = line.to_line();
        let head = XLine {
            id: tail.id,
            name: std::mem::take(&mut tail.name),
            timestamp_ns: tail.timestamp_ns,
            ..XLine::default()
        };
        tail.id = 0;
        tail.timestamp_ns = 0;
        self.line = Some((head, tail));
    }

    fn add_event(&mut self, event: EventView<'_>) {
        // A sink is fed a line before its events; an event without one has nowhere to go.
        if self.line.is_none() {
            return;
        }
        let scratch = &mut self.event;
        scratch.metadata_id = event.metadata_id;
        scratch.data = event.data;
        scratch.duration_ps = event.duration_ps;
        scratch.stats.clear();
        scratch.stats.extend_from_slice(event.stats);
        message::encode(LINE_EVENTS_TAG, &*scratch, &mut self.line_events);
        if self.line_events.len() >= PIECE_BYTES {
            let full = std::mem::replace(
                &mut self.line_events,
                Vec::with_capacity(PIECE_BYTES + PIECE_BYTES / 8),
            );
            self.line_pieces.push(full);
        }
    }

    fn finish_plane(&mut self, plane: XPlane) {
        self.end_line();
        let head = XPlane {
            id: plane.id,
            name: plane.name,
            ..XPlane::default()
        };
        let tail = XPlane {
            event_metadata: plane.event_metadata,
            stat_metadata: plane.stat_metadata,
            stats: plane.stats,
            ..XPlane::default()
        };
        let lines_len =
            self.plane_pieces.iter().map(Vec::len).sum::<usize>() + self.plane_lines.len();
        let len = head.encoded_len() + lines_len + tail.encoded_len();
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        encode_key(SPACE_PLANES_TAG, WireType::LengthDelimited, &mut buffer);
        encode_varint(len as u64, &mut buffer);
        self.buffer = buffer;
        self.encode_fields(&head, |encoder| &mut encoder.buffer);
        let buffer = std::mem::take(&mut self.buffer);
        self.write(&buffer);
        for piece in std::mem::take(&mut self.plane_pieces) {
            self.write(&piece);
        }
        let lines = std::mem::take(&mut self.plane_lines);
        self.write(&lines);
        self.plane_lines = lines;
        self.plane_lines.clear();
        self.buffer = buffer;
        self.buffer.clear();
        self.encode_fields(&tail, |encoder| &mut encoder.buffer);
        let buffer = std::mem::take(&mut self.buffer);
        self.write(&buffer);
        self.buffer = buffer;
    }

    fn finish_space(&mut self, errors: &[String], warnings: &[String], hostnames: &[String]) {
        self.end_line();
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        // XSpace's fields after the planes, in tag order.
        string::encode_repeated(2, errors, &mut buffer);
        string::encode_repeated(3, warnings, &mut buffer);
        string::encode_repeated(4, hostnames, &mut buffer);
        self.write(&buffer);
        self.buffer = buffer;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::xplane_proto::{x_event, x_stat, XEventMetadata, XStat, XStatMetadata};
    use crate::export::xspace_sink::replay_xspace;
    use crate::export::XSpace;

    fn stat(metadata_id: i64, value: x_stat::Value) -> XStat {
        XStat {
            metadata_id,
            value: Some(value),
        }
    }

    #[test]
    fn streamed_bytes_are_one_encoding_of_the_whole_space() {
        let mut plane = XPlane {
            id: 3,
            name: "/device:GPU:0".to_owned(),
            stats: vec![stat(1, x_stat::Value::StrValue("AMD".to_owned()))],
            ..XPlane::default()
        };
        plane.event_metadata.insert(
            2,
            XEventMetadata {
                id: 2,
                name: "kernel".to_owned(),
                display_name: "k".to_owned(),
                metadata: vec![0, 1],
                stats: vec![stat(1, x_stat::Value::Int64Value(-1))],
                child_id: vec![7],
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
        // Line 4's events are over `MOVED_LINE_BYTES` (kept as a piece of their own), line
        // 6's over several `PIECE_BYTES`, with short lines around them.
        for (id, events) in [
            (1, 3),
            (2, 0),
            (3, 300),
            (4, 4000),
            (5, 2),
            (6, 100_000),
            (7, 1),
        ] {
            plane.lines.push(XLine {
                id,
                display_id: id + 100,
                name: format!("Stream #{id}"),
                display_name: if id == 2 {
                    "shown".to_owned()
                } else {
                    String::new()
                },
                timestamp_ns: 1_700_000_000_000_000_000 + id,
                duration_ps: id * 5,
                events: (0..events)
                    .map(|n| XEvent {
                        metadata_id: 2,
                        data: Some(if n % 7 == 6 {
                            x_event::Data::NumOccurrences(n)
                        } else {
                            x_event::Data::OffsetPs(n * 1000)
                        }),
                        duration_ps: n,
                        stats: vec![
                            stat(1, x_stat::Value::Uint64Value(n as u64)),
                            stat(1, x_stat::Value::DoubleValue(0.5)),
                            stat(1, x_stat::Value::RefValue(1)),
                            stat(1, x_stat::Value::BytesValue(vec![n as u8])),
                        ],
                    })
                    .collect(),
            });
        }
        let space = XSpace {
            planes: vec![
                XPlane {
                    id: 0,
                    name: "/host:CUPTI".to_owned(),
                    ..XPlane::default()
                },
                plane,
                XPlane::default(),
            ],
            errors: vec!["an error".to_owned()],
            warnings: vec!["a warning".to_owned(), String::new()],
            hostnames: vec!["host".to_owned()],
        };
        let line_4 = space.planes[1].lines[3].encoded_len();
        assert!(line_4 > MOVED_LINE_BYTES, "{line_4}");
        let line_6 = space.planes[1].lines[5].encoded_len();
        assert!(line_6 > 2 * PIECE_BYTES, "{line_6}");
        let mut bytes = Vec::new();
        let mut encoder = XSpaceEncoder::new(&mut bytes);
        replay_xspace(&space, &mut encoder);
        let written = encoder.finish().unwrap();
        assert_eq!(bytes, space.encode_to_vec());
        assert_eq!(written, bytes.len() as u64);
    }

    #[test]
    fn a_failed_write_is_reported_and_nothing_follows_it() {
        struct FailAfter(usize);
        impl Write for FailAfter {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                if self.0 < buf.len() {
                    return Err(std::io::Error::other("disk full"));
                }
                self.0 -= buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let space = XSpace {
            planes: vec![XPlane {
                name: "/host:CUPTI".to_owned(),
                ..XPlane::default()
            }],
            warnings: vec!["w".to_owned()],
            ..XSpace::default()
        };
        let mut encoder = XSpaceEncoder::new(FailAfter(4));
        replay_xspace(&space, &mut encoder);
        let error = encoder.finish().unwrap_err();
        assert_eq!(error.to_string(), "disk full");
    }
}
