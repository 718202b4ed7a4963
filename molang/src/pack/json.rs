//! JSON plumbing for the pack loader: the lenient parse the game does, RFC 6901 pointers,
//! and the map from offsets in a decoded string back to bytes of the JSON file.

use jsonc_parser::ast::{ObjectPropName, StringLit, Value};
use jsonc_parser::{parse_to_ast, CollectOptions, ParseOptions};

/// A parse failure with a 1-based line and character column.
pub(crate) struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses `text` the way Bedrock reads pack JSON: comments and trailing commas are accepted
/// (252 vanilla files rely on that); the other JSON5 extensions jsonc-parser offers are not,
/// so a file the game would reject is reported instead of silently accepted.
pub(crate) fn parse(text: &str) -> Result<Option<Value<'_>>, JsonError> {
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    parse_to_ast(text, &CollectOptions::default(), &options)
        .map(|result| result.value)
        .map_err(|e| JsonError {
            line: e.line_display(),
            column: e.column_display(),
            message: e.kind().to_string(),
        })
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` as RFC 6901 says.
pub(crate) fn ptr(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn ptr_idx(base: &str, index: usize) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(base.len() + 4);
    out.push_str(base);
    let _ = write!(out, "/{index}");
    out
}

pub(crate) fn prop_name<'b>(name: &'b ObjectPropName<'_>) -> &'b str {
    match name {
        ObjectPropName::String(lit) => lit.value.as_ref(),
        ObjectPropName::Word(word) => word.value,
    }
}

/// Every property of an object value in document order (duplicate keys included, as the
/// corpus scans every copy); nothing for other values.
pub(crate) fn props<'b, 'a>(
    value: &'b Value<'a>,
) -> impl Iterator<Item = (&'b str, &'b Value<'a>)> {
    properties(value)
        .iter()
        .map(|p| (prop_name(&p.name), &p.value))
}

/// The properties of an object value; none for other values.
fn properties<'b, 'a>(value: &'b Value<'a>) -> &'b [jsonc_parser::ast::ObjectProp<'a>] {
    match value {
        Value::Object(obj) => &obj.properties,
        _ => &[],
    }
}

/// Elements of an array value; nothing for other values.
pub(crate) fn elems<'b, 'a>(value: &'b Value<'a>) -> impl Iterator<Item = (usize, &'b Value<'a>)> {
    let list: &[Value<'a>] = match value {
        Value::Array(arr) => &arr.elements,
        _ => &[],
    };
    list.iter().enumerate()
}

pub(crate) fn as_str<'b>(value: &'b Value<'_>) -> Option<&'b str> {
    match value {
        Value::StringLit(lit) => Some(lit.value.as_ref()),
        _ => None,
    }
}

/// One escape sequence inside a string literal: where its decoded bytes and raw bytes start
/// and how long each is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Escape {
    pub decoded: usize,
    pub decoded_len: usize,
    pub raw: usize,
    pub raw_len: usize,
}

/// Byte range of the literal's contents (inside the quotes) in the file, and its escapes.
pub(crate) fn literal_layout(
    src: &str,
    lit: &StringLit<'_>,
) -> (std::ops::Range<usize>, Vec<Escape>) {
    let start = lit.range.start + 1;
    let end = lit.range.end.saturating_sub(1).max(start);
    let raw = &src[start..end];
    let escapes = scan_escapes(raw);
    // The decoded length must agree with the parser's own decoding; if it ever does not,
    // fall back to an identity map rather than point at wrong places with confidence.
    let decoded_len = raw.len()
        - escapes
            .iter()
            .map(|e| e.raw_len - e.decoded_len)
            .sum::<usize>();
    if decoded_len != lit.value.len() {
        return (start..end, Vec::new());
    }
    (start..end, escapes)
}

fn scan_escapes(raw: &str) -> Vec<Escape> {
    let bytes = raw.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut d) = (0usize, 0usize);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            let len = utf8_len(bytes[i]);
            i += len;
            d += len;
            continue;
        }
        let start = i;
        let decoded_len = if bytes.get(i + 1) == Some(&b'u') {
            let first = hex4(raw, i + 2);
            i += 6;
            match first {
                Some(hi @ 0xD800..=0xDBFF) => {
                    let low = if raw[i.min(raw.len())..].starts_with("\\u") {
                        hex4(raw, i + 2)
                    } else {
                        None
                    };
                    match low {
                        Some(lo @ 0xDC00..=0xDFFF) => {
                            i += 6;
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                .map_or(3, char::len_utf8)
                        }
                        _ => 3,
                    }
                }
                Some(cp) => char::from_u32(cp).map_or(3, char::len_utf8),
                None => 3,
            }
        } else {
            i += 2;
            1
        };
        i = i.min(bytes.len());
        out.push(Escape {
            decoded: d,
            decoded_len,
            raw: start,
            raw_len: i - start,
        });
        d += decoded_len;
    }
    out
}

fn hex4(raw: &str, at: usize) -> Option<u32> {
    raw.get(at..at + 4)
        .and_then(|h| u32::from_str_radix(h, 16).ok())
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Raw offset (from the start of the literal's contents) of decoded offset `offset`.
pub(crate) fn raw_offset(escapes: &[Escape], offset: usize) -> usize {
    let i = escapes.partition_point(|e| e.decoded <= offset);
    if i == 0 {
        return offset;
    }
    let e = escapes[i - 1];
    if offset < e.decoded + e.decoded_len {
        e.raw
    } else {
        e.raw + e.raw_len + (offset - e.decoded - e.decoded_len)
    }
}

/// Byte offsets where lines start, for turning byte offsets into line/column.
pub(crate) fn line_starts(src: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// 1-based line and character column of byte `offset`.
pub(crate) fn line_col(src: &str, starts: &[usize], offset: usize) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let line = starts.partition_point(|&s| s <= offset).max(1);
    let col = src[starts[line - 1]..offset].chars().count() + 1;
    (line, col)
}

/// Like [`props`], with the byte range of each key (quotes included) in the file.
pub(crate) fn props_at<'b, 'a>(
    value: &'b Value<'a>,
) -> impl Iterator<Item = (&'b str, std::ops::Range<usize>, &'b Value<'a>)> {
    use jsonc_parser::common::Ranged;
    properties(value).iter().map(|p| {
        let r = p.name.range();
        (prop_name(&p.name), r.start..r.end, &p.value)
    })
}

/// Byte range of a value in the file.
pub(crate) fn range_of(value: &Value<'_>) -> std::ops::Range<usize> {
    use jsonc_parser::common::Ranged;
    let r = value.range();
    r.start..r.end
}
