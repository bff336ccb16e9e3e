//! How deep scenario text nests tables and arrays, read before the TOML parser sees it.
//!
//! The TOML parser limits a header's dotted path, a dotted key and inline nesting to 80 each,
//! but separately: one file combining them builds a tree some 240 levels deep, and building,
//! reading and dropping that tree recurses once per level on the caller's thread (the thread
//! that calls `rocsim_replay_scenario`, which may have a small stack). This pass bounds the
//! sum in one linear read of the text, without allocating past the limit.
//!
//! Levels counted: two per segment of a `[table]` or `[[array]]` header (an array of tables
//! is an array and a table), one per dot of a key (each dot opens a table), one per `[` and
//! `{` of a value. A `steps` group is two levels whichever way it is written (the limit,
//! `parse::MAX_NESTING`, is twice the group limit plus room for the deepest step's own tables
//! and arrays).

/// Where the reader is in the text, for telling keys from values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// Reading a key: its dots nest.
    Key,
    /// Reading a value: its dots are part of a number or a date.
    Value,
}

/// The bytes [`too_deep`] acts on: quotes, comments, line ends, brackets, braces, dots, `=`
/// and `,`.
static STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"\"'#\n[]{}.=,";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// An open inline table (`true`, with the levels its current key's dots add) or array.
struct Open {
    table: bool,
    key_levels: u32,
}

/// The byte offset of the first place where `text` nests more than `limit` levels, if any.
/// Text that is not TOML is read as far as it goes; the TOML parser reports its errors.
pub(super) fn too_deep(text: &str, limit: u32) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    // Levels of the dots of the top-level key being read.
    let mut top_key_levels = 0u32;
    let mut depth = 0u32;
    let mut position = Position::Key;
    let mut at = 0;
    while at < bytes.len() {
        // Most of a scenario is names, numbers and spaces: skipped a byte at a few instructions.
        while at < bytes.len() && !STRUCTURAL[usize::from(bytes[at])] {
            at += 1;
        }
        let Some(&byte) = bytes.get(at) else { break };
        match byte {
            b'"' | b'\'' => {
                at = string_end(bytes, at);
                continue;
            }
            b'#' => {
                at = line_end(bytes, at);
                continue;
            }
            b'\n' if open.is_empty() => {
                depth = depth.saturating_sub(top_key_levels);
                top_key_levels = 0;
                position = Position::Key;
            }
            b'[' if open.is_empty() && position == Position::Key => {
                let (end, segments) = header(bytes, at);
                depth = segments.saturating_mul(2);
                top_key_levels = 0;
                if depth > limit {
                    return Some(at);
                }
                at = end;
                continue;
            }
            b'.' if position == Position::Key => {
                match open.last_mut() {
                    Some(table) => table.key_levels += 1,
                    None => top_key_levels += 1,
                }
                depth += 1;
            }
            b'=' if position == Position::Key => position = Position::Value,
            b'[' | b'{' if position == Position::Value => {
                let table = byte == b'{';
                open.push(Open {
                    table,
                    key_levels: 0,
                });
                depth += 1;
                if table {
                    position = Position::Key;
                }
            }
            b',' => {
                if let Some(last) = open.last_mut().filter(|last| last.table) {
                    depth = depth.saturating_sub(last.key_levels);
                    last.key_levels = 0;
                    position = Position::Key;
                }
            }
            b']' | b'}' => {
                if let Some(closed) = open.pop() {
                    depth = depth.saturating_sub(1 + closed.key_levels);
                }
                position = Position::Value;
            }
            _ => {}
        }
        if depth > limit {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// The offset after the string opening at `start` (`"`, `'`, `"""` or `'''`), or the end of
/// the text if it is not closed.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let triple = bytes[start..].starts_with(&[quote; 3]);
    let mut at = start + if triple { 3 } else { 1 };
    while at < bytes.len() {
        match bytes[at] {
            // An escape in a basic string: the next byte is not the closing quote.
            b'\\' if quote == b'"' => at += 2,
            // A single-line string ends at its line (an error the TOML parser reports).
            b'\n' if !triple => return at,
            b if b == quote && !triple => return at + 1,
            b if b == quote && bytes[at..].starts_with(&[quote; 3]) => {
                // Up to two more quotes belong to the string (`"""a""""`).
                let mut end = at + 3;
                while end < bytes.len() && end < at + 5 && bytes[end] == quote {
                    end += 1;
                }
                return end;
            }
            _ => at += 1,
        }
    }
    bytes.len()
}

/// The offset of the newline ending the line that `at` is on, or the end of the text.
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |n| at + n)
}

/// The header opening at `start`: the offset after it (or of the end of its line, if it is
/// not closed) and how many segments its path has.
fn header(bytes: &[u8], start: usize) -> (usize, u32) {
    let mut segments = 1u32;
    let mut at = start;
    while at < bytes.len() {
        match bytes[at] {
            b'"' | b'\'' => {
                at = string_end(bytes, at);
                continue;
            }
            b'.' => segments = segments.saturating_add(1),
            b']' => {
                let closing = if bytes[at..].starts_with(b"]]") { 2 } else { 1 };
                return (at + closing, segments);
            }
            b'\n' | b'#' => break,
            _ => {}
        }
        at += 1;
    }
    (at, segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(text: &str) -> u32 {
        (0..200)
            .find(|&limit| too_deep(text, limit).is_none())
            .unwrap()
    }

    #[test]
    fn levels_count_headers_keys_and_brackets() {
        assert_eq!(levels("a = 1\n"), 0);
        assert_eq!(levels("[machine]\ngpus = 2\n"), 2);
        assert_eq!(levels("[[thread.steps.steps]]\nx = 1\n"), 6);
        assert_eq!(levels("a.b.c = 1\n"), 2);
        assert_eq!(levels("x = [[1], { a = [2] }]\n"), 3);
        assert_eq!(levels("x = { a.b = [1], c = 2.5 }\n"), 3);
        // A group is two levels either way.
        assert_eq!(
            levels("[[t]]\ns = [ { s = [ { s = [ {} ] } ] } ]\n"),
            2 + 1 + 2 * 2 + 1
        );
        assert_eq!(levels("[[t.s.s.s]]\nx = 1\n"), 8);
    }

    #[test]
    fn strings_and_comments_do_not_nest() {
        assert_eq!(levels("x = \"[[[{{{.\" # [[[\n"), 0);
        assert_eq!(levels("x = 'a.b[' \ny = \"\\\"[\"\n"), 0);
        assert_eq!(levels("x = \"\"\"\n[[[\n\"\"\"\"\ny = '''[[''' \n"), 0);
        assert_eq!(levels("[\"a.b\".c] # [x.y.z]\n"), 4);
        assert_eq!(levels("\"a.b\".c = 1\n"), 1);
    }

    #[test]
    fn too_deep_names_where() {
        let text = format!("x = {}", "[".repeat(100_000));
        assert_eq!(too_deep(&text, 80), Some(4 + 80));
        // Closing and reopening does not add up.
        let text = "x = [[]]\n".repeat(1000);
        assert_eq!(too_deep(&text, 2), None);
        // Not TOML: read without panicking.
        for text in ["]]]}}}", "[[[", "= = .. [ { , } ]", "\"", "'''", "x = \"\\"] {
            too_deep(text, 1);
        }
    }
}
