//! The export sink that writes an XSpace's protobuf encoding to a file as the export builds it
//! ([`XSpaceEncoder`]): each line is encoded when it is complete, each plane written when it
//! is complete. A plane's length comes before its lines, so its encoded lines wait until the
//! plane ends: in memory (about 60 bytes per event), or, given a spill file
//! ([`XSpaceEncoder::with_spill`]), there but for a piece of about a MiB. The bytes are
//! those of prost's encoding of the XSpace the export describes: prost writes a message's
//! fields in tag order, so a line is its fields numbered below `events` (4), its events, then
//! its fields numbered above; a plane is its id and name, its lines (3), then its metadata
//! and stats (the field numbers and lengths: xplane_wire.rs).
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use prost::encoding::{encode_key, encode_varint, int64, message, string, WireType};
use prost::Message;

use super::xplane_proto::{XEvent, XLine, XPlane, XStatMetadata};
use super::xplane_wire::{
    encode_map_entry, encoded_len_delimited, map_entry_len, name_stat_metadata, plane_tail_len,
    LINE_EVENTS_TAG, PLANE_EVENT_METADATA_TAG, PLANE_ID_TAG, PLANE_LINES_TAG, PLANE_NAME_TAG,
    PLANE_STATS_TAG, PLANE_STAT_METADATA_TAG, SPACE_PLANES_TAG,
};
use super::xspace_sink::{EventView, LineHeader, XSpaceSink};

/// A line whose events' encoding is at least this long is kept as it is, not copied into the
/// plane's buffer.
const MOVED_LINE_BYTES: usize = 64 << 10;
/// A line's events are encoded into pieces of about this size: a growing buffer would hold up
/// to twice its bytes, and copy them at each doubling. Also the most of a plane's metadata
/// encoded at once before it is written.
const PIECE_BYTES: usize = 1 << 20;

/// Encoded bytes of a plane's lines, in order, waiting for the plane's end.
enum Piece {
    Held(Vec<u8>),
    /// Written to the spill file at `offset`.
    Spilled {
        offset: u64,
        len: usize,
    },
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Held(bytes) => bytes.len(),
            Piece::Spilled { len, .. } => *len,
        }
    }
}

pub struct XSpaceEncoder<W: Write> {
    out: W,
    /// Where pieces wait instead of memory, and how much of it they use.
    spill: Option<File>,
    spill_len: u64,
    /// Cleared by a failed write to the spill file: later pieces are held in memory (a full
    /// spill disk costs memory, not the export), earlier ones are still read from the file.
    spilling: bool,
    /// The current line's fields before and after its events, and its events encoded: full
    /// pieces, then the piece being written.
    line: Option<(XLine, XLine)>,
    line_pieces: Vec<Piece>,
    line_events: Vec<u8>,
    /// The current plane's lines, encoded: pieces in order, then `plane_lines`. A long line's
    /// events are moved in as pieces, not copied: a million-event line would otherwise be
    /// held twice while it is copied.
    plane_pieces: Vec<Piece>,
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
            spill: None,
            spill_len: 0,
            spilling: false,
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

    /// An encoder whose planes' lines wait in `spill` (an unnamed temporary file, emptied at
    /// each plane's end) rather than in memory.
    pub fn with_spill(out: W, spill: File) -> XSpaceEncoder<W> {
        XSpaceEncoder {
            spill: Some(spill),
            spilling: true,
            ..XSpaceEncoder::new(out)
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

    /// `bytes` as a piece: written to the spill file (and `bytes` emptied, its capacity kept)
    /// when there is one, else moved.
    fn set_aside(&mut self, bytes: &mut Vec<u8>) -> Piece {
        if let Some(spill) = self.spill.as_ref().filter(|_| self.spilling) {
            let offset = self.spill_len;
            if spill.write_all_at(bytes, offset).is_ok() {
                let len = bytes.len();
                self.spill_len += len as u64;
                bytes.clear();
                return Piece::Spilled { offset, len };
            }
            self.spilling = false;
        }
        Piece::Held(std::mem::take(bytes))
    }

    /// Writes `piece` to the output; `scratch` carries a spilled piece's bytes.
    fn write_piece(&mut self, piece: Piece, scratch: &mut Vec<u8>) {
        match piece {
            Piece::Held(bytes) => self.write(&bytes),
            Piece::Spilled { offset, len } => {
                let Some(spill) = &self.spill else {
                    // Cannot happen: the file is kept while the encoder lives.
                    self.error
                        .get_or_insert(std::io::Error::other("an export spill file was lost"));
                    return;
                };
                scratch.resize(len, 0);
                if let Err(error) = spill.read_exact_at(scratch, offset) {
                    self.error.get_or_insert(error);
                    return;
                }
                self.write(scratch);
            }
        }
    }

    /// Appends the current line, if any, to the plane's lines.
    fn end_line(&mut self) {
        let Some((head, tail)) = self.line.take() else {
            return;
        };
        let events_len =
            self.line_pieces.iter().map(Piece::len).sum::<usize>() + self.line_events.len();
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
            let mut before = std::mem::take(&mut self.plane_lines);
            let piece = self.set_aside(&mut before);
            self.plane_pieces.push(piece);
            self.plane_lines = before;
            self.plane_pieces.append(&mut self.line_pieces);
            let mut events = std::mem::take(&mut self.line_events);
            let piece = self.set_aside(&mut events);
            self.plane_pieces.push(piece);
            // Empty either way; with its capacity when its bytes were spilled.
            self.line_events = events;
        }
        self.encode_fields(&tail, |encoder| &mut encoder.plane_lines);
    }

    /// Writes `plane` (its lines are those given before, not `plane.lines`) without taking
    /// it: a caller that keeps the plane's metadata does not copy it for this.
    pub fn write_plane(&mut self, plane: &XPlane) {
        self.write_plane_with_stat_names(plane, &[]);
    }

    /// [`XSpaceEncoder::write_plane`] of a plane whose stat metadata are `stat_names` (id `i`
    /// at `i - 1`), encoded from the names (`plane.stat_metadata` is empty, or `stat_names`).
    pub fn write_plane_with_stat_names(&mut self, plane: &XPlane, stat_names: &[Arc<str>]) {
        self.end_line();
        // prost leaves out fields of default value.
        let head_len = usize::from(plane.id != 0) * int64::encoded_len(PLANE_ID_TAG, &plane.id)
            + usize::from(!plane.name.is_empty())
                * string::encoded_len(PLANE_NAME_TAG, &plane.name);
        let lines_len =
            self.plane_pieces.iter().map(Piece::len).sum::<usize>() + self.plane_lines.len();
        let mut named = XStatMetadata::default();
        let named_len: usize = (1..)
            .zip(stat_names)
            .map(|(id, name)| {
                name_stat_metadata(&mut named, id, name);
                encoded_len_delimited(PLANE_STAT_METADATA_TAG, map_entry_len(id, &named))
            })
            .sum();
        let len = head_len + lines_len + plane_tail_len(plane) + named_len;
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        encode_key(SPACE_PLANES_TAG, WireType::LengthDelimited, &mut buffer);
        encode_varint(len as u64, &mut buffer);
        if plane.id != 0 {
            int64::encode(PLANE_ID_TAG, &plane.id, &mut buffer);
        }
        if !plane.name.is_empty() {
            string::encode(PLANE_NAME_TAG, &plane.name, &mut buffer);
        }
        self.write(&buffer);
        // The line buffer is empty between lines: it carries the spilled pieces back.
        let mut scratch = std::mem::take(&mut self.line_events);
        for piece in std::mem::take(&mut self.plane_pieces) {
            self.write_piece(piece, &mut scratch);
        }
        scratch.clear();
        self.line_events = scratch;
        let lines = std::mem::take(&mut self.plane_lines);
        self.write(&lines);
        self.plane_lines = lines;
        self.plane_lines.clear();
        self.spill_len = 0;
        if let Some(spill) = &self.spill {
            // Gives the disk back; a failure only leaves the pieces' bytes there until the
            // next plane overwrites them.
            let _ = spill.set_len(0);
        }
        // The tail, written in buffers of about a piece: a plane's metadata can be tens of
        // MB (a stat metadata per distinct annotation).
        buffer.clear();
        for (id, metadata) in &plane.event_metadata {
            encode_map_entry(PLANE_EVENT_METADATA_TAG, *id, metadata, &mut buffer);
            self.write_when_full(&mut buffer);
        }
        for (id, metadata) in &plane.stat_metadata {
            encode_map_entry(PLANE_STAT_METADATA_TAG, *id, metadata, &mut buffer);
            self.write_when_full(&mut buffer);
        }
        for (id, name) in (1..).zip(stat_names) {
            name_stat_metadata(&mut named, id, name);
            encode_map_entry(PLANE_STAT_METADATA_TAG, id, &named, &mut buffer);
            self.write_when_full(&mut buffer);
        }
        for stat in &plane.stats {
            message::encode(PLANE_STATS_TAG, stat, &mut buffer);
            self.write_when_full(&mut buffer);
        }
        self.write(&buffer);
        buffer.clear();
        self.buffer = buffer;
    }

    fn write_when_full(&mut self, buffer: &mut Vec<u8>) {
        if buffer.len() >= PIECE_BYTES {
            self.write(buffer);
            buffer.clear();
        }
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
            let mut full = std::mem::take(&mut self.line_events);
            let piece = self.set_aside(&mut full);
            if full.capacity() == 0 {
                // Moved into the piece: a new buffer for the next one.
                full.reserve(PIECE_BYTES + PIECE_BYTES / 8);
            }
            self.line_events = full;
            self.line_pieces.push(piece);
        }
    }

    fn finish_plane(&mut self, plane: XPlane) {
        self.write_plane(&plane);
    }

    fn finish_plane_with_stat_names(&mut self, plane: XPlane, stat_names: Vec<Arc<str>>) {
        self.write_plane_with_stat_names(&plane, &stat_names);
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
        // Lines held in memory, then waiting in a spill file (emptied at each plane's end).
        let spill = tempfile::tempfile().unwrap();
        let spill_copy = spill.try_clone().unwrap();
        for spill in [None, Some(spill)] {
            let mut bytes = Vec::new();
            let mut encoder = match spill {
                Some(spill) => XSpaceEncoder::with_spill(&mut bytes, spill),
                None => XSpaceEncoder::new(&mut bytes),
            };
            replay_xspace(&space, &mut encoder);
            let written = encoder.finish().unwrap();
            assert_eq!(bytes, space.encode_to_vec());
            assert_eq!(written, bytes.len() as u64);
        }
        assert_eq!(spill_copy.metadata().unwrap().len(), 0);
    }

    #[test]
    fn stat_metadata_encoded_from_names_are_those_of_the_map() {
        let names: Vec<Arc<str>> = ["correlation_id", "step_1", "", "step_2"]
            .into_iter()
            .map(Arc::from)
            .collect();
        let plane = XPlane {
            id: 2,
            name: "/device:GPU:1".to_owned(),
            stats: vec![stat(1, x_stat::Value::RefValue(2))],
            ..XPlane::default()
        };
        let space = XSpace {
            planes: vec![XPlane {
                stat_metadata: crate::export::xspace_sink::stat_metadata_of(names.clone()),
                ..plane.clone()
            }],
            ..XSpace::default()
        };
        let mut bytes = Vec::new();
        let mut encoder = XSpaceEncoder::new(&mut bytes);
        encoder.finish_plane_with_stat_names(plane, names);
        encoder.finish_space(&[], &[], &[]);
        encoder.finish().unwrap();
        assert_eq!(bytes, space.encode_to_vec());
    }

    #[test]
    fn a_spill_file_that_cannot_be_written_costs_memory_not_the_export() {
        let space = XSpace {
            planes: vec![XPlane {
                id: 1,
                name: "/device:GPU:0".to_owned(),
                lines: vec![XLine {
                    id: 1,
                    name: "Stream #0".to_owned(),
                    events: (0..100_000)
                        .map(|n| XEvent {
                            metadata_id: 1,
                            data: Some(x_event::Data::OffsetPs(n)),
                            duration_ps: n,
                            stats: vec![stat(2, x_stat::Value::Uint64Value(n as u64))],
                        })
                        .collect(),
                    ..XLine::default()
                }],
                ..XPlane::default()
            }],
            ..XSpace::default()
        };
        // Opened for reading only: every write to it fails.
        let path = std::env::temp_dir().join(format!("spill-test-{}", std::process::id()));
        std::fs::write(&path, b"").unwrap();
        let read_only = std::fs::File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let mut bytes = Vec::new();
        let mut encoder = XSpaceEncoder::with_spill(&mut bytes, read_only);
        replay_xspace(&space, &mut encoder);
        encoder.finish().unwrap();
        assert_eq!(bytes, space.encode_to_vec());
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
