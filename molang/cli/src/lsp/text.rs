//! Positions: byte offsets of a file's text ↔ LSP positions (line, UTF-16 column), and
//! `file://` URIs ↔ paths.

use std::path::{Path, PathBuf};

use lsp_types::{Position, Range, Uri};

/// Line starts of a text, for offset ↔ position conversions.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// `(byte offset, UTF-16 units before it)` at a character boundary every
    /// [`MARK_EVERY`] bytes: a column on a minified one-line file is counted from the nearest
    /// mark, not from the start of its line (2,000 diagnostics on a 19 MB line each rescanned
    /// the whole line).
    marks: Vec<(usize, usize)>,
}

const MARK_EVERY: usize = 4096;

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let mut marks = vec![(0, 0)];
        let mut units = 0;
        let mut next = MARK_EVERY;
        for (i, c) in text.char_indices() {
            if i >= next {
                marks.push((i, units));
                next = i + MARK_EVERY;
            }
            units += c.len_utf16();
        }
        LineIndex { starts, marks }
    }

    /// UTF-16 units of `text[..offset]` (`offset` on a character boundary).
    fn units_before(&self, text: &str, offset: usize) -> usize {
        let k = self.marks.partition_point(|&(b, _)| b <= offset) - 1;
        let (at, units) = self.marks[k];
        units + text[at..offset].chars().map(char::len_utf16).sum::<usize>()
    }

    /// The LSP position of byte `offset` of `text` (clamped to the text).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col = self.units_before(text, offset) - self.units_before(text, self.starts[line]);
        Position::new(line as u32, col as u32)
    }

    pub fn range(&self, text: &str, r: std::ops::Range<usize>) -> Range {
        Range::new(self.position(text, r.start), self.position(text, r.end))
    }

    /// The byte offset of an LSP position (clamped to its line and to the text).
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(text.len(), |&e| e.saturating_sub(1));
        let mut units = 0u32;
        for (i, c) in text[start..end].char_indices() {
            if units >= pos.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        end
    }
}

/// `file://` URI of an absolute path, percent-encoding what a URI path may not hold.
pub fn path_to_uri(path: &Path) -> Uri {
    let mut s = String::from("file://");
    let text = path.to_string_lossy();
    if !text.starts_with('/') {
        s.push('/');
    }
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    s.parse().expect("a percent-encoded file URI is valid")
}

/// The path of a `file://` URI; `None` for other schemes.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path` is not local; `file:///path` has an empty host.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&rest[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(String::from_utf8_lossy(&out).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\n\u{1F600}x\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 0), Position::new(0, 0));
        assert_eq!(idx.position(text, 3), Position::new(1, 0));
        // The emoji is 4 bytes and 2 UTF-16 units.
        assert_eq!(idx.position(text, 7), Position::new(1, 2));
        assert_eq!(idx.offset(text, Position::new(1, 2)), 7);
        assert_eq!(idx.offset(text, Position::new(1, 99)), 8);
        assert_eq!(idx.offset(text, Position::new(9, 0)), text.len());
    }

    /// Columns counted from the marks are the columns counted from the line start, on long
    /// lines of mixed widths, across many marks and on several lines.
    #[test]
    fn positions_from_marks_are_positions_from_the_line_start() {
        let mut text = String::new();
        for i in 0..6000 {
            text.push_str(match i % 7 {
                0 => "\u{1F600}",
                1 => "é",
                3 if i % 1000 == 3 => "\n",
                _ => "a",
            });
        }
        let idx = LineIndex::new(&text);
        assert!(idx.marks.len() > 2);
        for offset in (0..=text.len()).step_by(37).chain([text.len()]) {
            let mut o = offset;
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            let line_start = text[..o].rfind('\n').map_or(0, |i| i + 1);
            let col: usize = text[line_start..o].chars().map(char::len_utf16).sum();
            let line = text[..o].matches('\n').count();
            assert_eq!(
                idx.position(&text, offset),
                Position::new(line as u32, col as u32),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn uris_round_trip() {
        let p = PathBuf::from("/tmp/a pack/ent%ity.json");
        let uri = path_to_uri(&p);
        assert_eq!(uri.as_str(), "file:///tmp/a%20pack/ent%25ity.json");
        assert_eq!(uri_to_path(&uri), Some(p));
    }
}
