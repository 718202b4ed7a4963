//! Positions: byte offsets of a file's text ↔ LSP positions (line, UTF-16 column), and
//! `file://` URIs ↔ paths.

use std::path::{Path, PathBuf};

use lsp_types::{Position, Range, Uri};

/// Line starts of a text, for offset ↔ position conversions.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The LSP position of byte `offset` of `text` (clamped to the text).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col: usize = text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum();
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

    #[test]
    fn uris_round_trip() {
        let p = PathBuf::from("/tmp/a pack/ent%ity.json");
        let uri = path_to_uri(&p);
        assert_eq!(uri.as_str(), "file:///tmp/a%20pack/ent%25ity.json");
        assert_eq!(uri_to_path(&uri), Some(p));
    }
}
