//! JSON plumbing for the pack loader: the lenient parse the game does, RFC 6901 pointers,
//! and the map from offsets in a decoded string back to bytes of the JSON file.

use jsonc_parser::ast::{
    Array, BooleanLit, NullKeyword, NumberLit, Object, ObjectProp, ObjectPropName, StringLit, Value,
};
use jsonc_parser::common::Range;
use jsonc_parser::tokens::Token;
use jsonc_parser::{parse_to_ast, CollectOptions, ParseOptions, Scanner, ScannerOptions};

/// A parse failure with a 1-based line and character column.
pub(crate) struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses `text` the way Bedrock reads pack JSON: comments and trailing commas are accepted
/// (252 vanilla files rely on that); the other JSON5 extensions jsonc-parser offers are not,
/// so a file the game would reject is reported instead of silently accepted.
///
/// The tree is jsonc-parser's, built here from its scanner's tokens (see [`Builder`]); a text
/// the builder does not take is handed to jsonc-parser's own `parse_to_ast`, which gives the
/// same tree for what it accepts and its own error (message and position) for the rest.
pub(crate) fn parse(text: &str) -> Result<Option<Value<'_>>, JsonError> {
    if let Some(value) = Builder::parse(text) {
        return Ok(Some(value));
    }
    parse_slow(text)
}

fn options() -> ParseOptions {
    ParseOptions {
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
    }
}

/// [`parse`] by jsonc-parser's `parse_to_ast` alone.
pub(crate) fn parse_slow(text: &str) -> Result<Option<Value<'_>>, JsonError> {
    parse_to_ast(text, &CollectOptions::default(), &options())
        .map(|result| result.value)
        .map_err(|e| JsonError {
            line: e.line_display(),
            column: e.column_display(),
            message: e.kind().to_string(),
        })
}

/// Builds jsonc-parser's syntax tree from the tokens of its [`Scanner`] (same options, same
/// ranges), for well-formed JSON with comments and trailing commas only: anything else
/// (a scanner error, a missing comma, nesting deeper than [`Builder::MAX_DEPTH`], no value)
/// gives up, and [`parse`] asks `parse_to_ast` instead. `parse_to_ast` wraps every token in
/// its own bookkeeping and grows each object's and array's vector element by element; here
/// the elements wait on one stack per file and each container gets one exact allocation.
/// On the vanilla resource pack that is about 40 % fewer instructions for the same tree
/// (callgrind); `a_built_tree_is_parse_to_asts_tree` checks the trees
/// agree on every vanilla file.
struct Builder<'a> {
    scanner: Scanner<'a>,
    values: Vec<Value<'a>>,
    props: Vec<ObjectProp<'a>>,
    depth: usize,
}

/// The builder does not take this text.
struct GiveUp;

impl<'a> Builder<'a> {
    /// Nesting that stays well inside `parse_to_ast`'s limit (512 ranges: two per object
    /// level, one per array level), and inside the stack.
    const MAX_DEPTH: usize = 128;

    fn parse(text: &'a str) -> Option<Value<'a>> {
        let o = options();
        let mut b = Builder {
            scanner: Scanner::new(
                text,
                &ScannerOptions {
                    allow_single_quoted_strings: o.allow_single_quoted_strings,
                    allow_hexadecimal_numbers: o.allow_hexadecimal_numbers,
                    allow_unary_plus_numbers: o.allow_unary_plus_numbers,
                    allow_bare_decimal_point_numbers: o.allow_bare_decimal_point_numbers,
                    allow_non_finite_numbers: o.allow_non_finite_numbers,
                    allow_extended_string_escapes: o.allow_extended_string_escapes,
                },
            ),
            values: Vec::new(),
            props: Vec::new(),
            depth: 0,
        };
        let first = b.scan().ok()??;
        let value = b.value(first).ok()?;
        match b.scan() {
            Ok(None) => Some(value),
            _ => None,
        }
    }

    /// The next token that is not a comment.
    fn scan(&mut self) -> Result<Option<Token<'a>>, GiveUp> {
        loop {
            match self.scanner.scan() {
                Ok(Some(Token::CommentLine(_) | Token::CommentBlock(_))) => continue,
                Ok(token) => return Ok(token),
                Err(_) => return Err(GiveUp),
            }
        }
    }

    fn next(&mut self) -> Result<Token<'a>, GiveUp> {
        self.scan()?.ok_or(GiveUp)
    }

    fn range(&self) -> Range {
        Range {
            start: self.scanner.token_start(),
            end: self.scanner.token_end(),
        }
    }

    /// The value that starts with `token` (just scanned), through its last token.
    fn value(&mut self, token: Token<'a>) -> Result<Value<'a>, GiveUp> {
        let range = self.range();
        Ok(match token {
            Token::OpenBrace => Value::Object(self.object(range.start)?),
            Token::OpenBracket => Value::Array(self.array(range.start)?),
            Token::String(value) => Value::StringLit(StringLit { range, value }),
            Token::Number(value) => Value::NumberLit(NumberLit { range, value }),
            Token::Boolean(value) => Value::BooleanLit(BooleanLit { range, value }),
            Token::Null => Value::NullKeyword(NullKeyword { range }),
            _ => return Err(GiveUp),
        })
    }

    fn enter(&mut self) -> Result<(), GiveUp> {
        self.depth += 1;
        if self.depth > Self::MAX_DEPTH {
            return Err(GiveUp);
        }
        Ok(())
    }

    /// The entries of an object or array up to its `close` token, each read by `entry`
    /// from its first token (trailing commas allowed, as the game allows them); the byte
    /// range from `start` to the closing token.
    fn entries(
        &mut self,
        start: usize,
        close: Token<'a>,
        mut entry: impl FnMut(&mut Self, Token<'a>) -> Result<(), GiveUp>,
    ) -> Result<Range, GiveUp> {
        self.enter()?;
        let mut token = self.next()?;
        while token != close {
            entry(self, token)?;
            token = match self.next()? {
                Token::Comma => self.next()?,
                t if t == close => break,
                _ => return Err(GiveUp),
            };
        }
        self.depth -= 1;
        Ok(Range {
            start,
            end: self.scanner.token_end(),
        })
    }

    fn object(&mut self, start: usize) -> Result<Object<'a>, GiveUp> {
        let first = self.props.len();
        let range = self.entries(start, Token::CloseBrace, |p, token| {
            let Token::String(value) = token else {
                return Err(GiveUp);
            };
            let name = StringLit {
                range: p.range(),
                value,
            };
            if !matches!(p.next()?, Token::Colon) {
                return Err(GiveUp);
            }
            let first_token = p.next()?;
            let value = p.value(first_token)?;
            let range = Range {
                start: name.range.start,
                end: p.scanner.token_end(),
            };
            p.props.push(ObjectProp {
                range,
                name: ObjectPropName::String(name),
                value,
            });
            Ok(())
        })?;
        Ok(Object {
            range,
            properties: self.props.drain(first..).collect(),
        })
    }

    fn array(&mut self, start: usize) -> Result<Array<'a>, GiveUp> {
        let first = self.values.len();
        let range = self.entries(start, Token::CloseBracket, |p, token| {
            let value = p.value(token)?;
            p.values.push(value);
            Ok(())
        })?;
        Ok(Array {
            range,
            elements: self.values.drain(first..).collect(),
        })
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` as RFC 6901 says.
pub(crate) fn ptr(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    // Most keys need no escape: copied whole rather than character by character.
    if !token.bytes().any(|b| b == b'~' || b == b'/') {
        out.push_str(token);
        return out;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// Appends an array index to a JSON pointer (`itoa`: `format!` costs several times more, and
/// the walk writes one per array element).
pub(crate) fn ptr_idx(base: &str, index: usize) -> String {
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(index);
    let mut out = String::with_capacity(base.len() + 1 + digits.len());
    out.push_str(base);
    out.push('/');
    out.push_str(digits);
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
pub(crate) fn line_starts(src: &str) -> Vec<u32> {
    // `memchr_iter` finds each `\n` for a few instructions; `match_indices('\n')` restarts a
    // search per line at about 160 (15 M of a check of the vanilla resource pack). Offsets
    // are 32-bit (a kept file is at most `Limits::file_size`, under 4 GiB): pretty-printed
    // JSON has a line every 30 bytes or so, where 8 bytes a line was a quarter of the text.
    let mut out = Vec::with_capacity(src.len() / 32 + 1);
    out.push(0);
    out.extend(memchr::memchr_iter(b'\n', src.as_bytes()).map(|i| (i + 1) as u32));
    out
}

/// Bytes per block of [`char_marks`].
const MARK_BLOCK: usize = 4096;

/// The number of characters before each [`MARK_BLOCK`]-byte block of `src`, so that a column
/// on a long line costs one block's count, not the line's: 2,000 positions on a 19 MB
/// one-line file must not count 19 MB each.
pub(crate) fn char_marks(src: &str) -> Vec<usize> {
    let mut out = Vec::with_capacity(src.len() / MARK_BLOCK + 1);
    let mut n = 0;
    for block in src.as_bytes().chunks(MARK_BLOCK) {
        out.push(n);
        n += chars_in(block);
    }
    out
}

/// Characters that start in `bytes` (bytes that are not UTF-8 continuation bytes).
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// 1-based line and character column of byte `offset`; `marks` from [`char_marks`] of the
/// same text, or empty.
pub(crate) fn line_col(
    src: &str,
    starts: &[u32],
    marks: &[usize],
    offset: usize,
) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let line = starts.partition_point(|&s| s as usize <= offset).max(1);
    let start = starts[line - 1] as usize;
    let bytes = src.as_bytes();
    // Characters before byte `x`, from the mark of its block.
    let before = |x: usize| {
        let k = x / MARK_BLOCK;
        marks[k] + chars_in(&bytes[k * MARK_BLOCK..x])
    };
    let col = if offset - start > MARK_BLOCK && offset / MARK_BLOCK < marks.len() {
        before(offset) - before(start) + 1
    } else {
        src[start..offset].chars().count() + 1
    };
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

#[cfg(test)]
mod tests {
    use super::{parse, parse_slow, Builder};
    use std::path::PathBuf;

    /// The tree [`parse`] gives, and its error, are `parse_to_ast`'s.
    fn check(text: &str) {
        let slow = parse_slow(text);
        if let Some(built) = Builder::parse(text) {
            assert_eq!(
                Some(&built),
                slow.as_ref().ok().and_then(Option::as_ref),
                "{text}"
            );
        }
        match (parse(text), slow) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(a), Err(b)) => {
                assert_eq!((a.line, a.column, a.message), (b.line, b.column, b.message))
            }
            _ => panic!("parse and parse_to_ast disagree on {text:?}"),
        }
    }

    #[test]
    fn columns_from_block_marks_count_characters_as_a_scan_does() {
        // A long line of one-, two-, three- and four-byte characters, then a short one.
        let long: String = "aé€😀".repeat(5_000);
        let src = format!("{{\n{long}\nxy\n");
        let (starts, marks) = (super::line_starts(&src), super::char_marks(&src));
        for offset in (0..src.len()).step_by(997).chain([src.len()]) {
            assert_eq!(
                super::line_col(&src, &starts, &marks, offset),
                super::line_col(&src, &starts, &[], offset),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn line_starts_follow_each_line_feed() {
        for (text, starts) in [
            ("", vec![0]),
            ("a", vec![0]),
            ("\n", vec![0, 1]),
            ("a\r\nb\n\nc\rd\n", vec![0, 3, 5, 6, 10]),
        ] {
            assert_eq!(super::line_starts(text), starts, "{text:?}");
        }
    }

    #[test]
    fn pointers_escape_and_number_as_rfc_6901_says() {
        assert_eq!(super::ptr("", "a"), "/a");
        assert_eq!(super::ptr("/a", "b~c/d"), "/a/b~0c~1d");
        assert_eq!(super::ptr("/a", ""), "/a/");
        for i in [0, 7, 10, 99, 100, 12345, usize::MAX] {
            assert_eq!(super::ptr_idx("/a", i), format!("/a/{i}"));
        }
    }

    #[test]
    fn a_built_tree_is_parse_to_asts_tree() {
        for text in [
            "",
            "  // only a comment\n",
            "5",
            "\"s\"",
            "null",
            "{}",
            "[]",
            "{\"a\": 1}",
            "{\"a\": [1, 2, {\"b\": null}], \"c\": true, \"d\": false,}",
            "[1, 2, 3,]",
            "/* c */ { // c\n \"a\" /* c */ : /* c */ [ /* c */ 1 /* c */ , ] /* c */ } // c",
            "{\"a\": \"\\u00e9\\n\\\"x\\\" \\ud83d\\ude00\"}",
            "{\"a\":1,\"a\":2}",
            "\u{feff}{}",
            "{\"a\": 1} {\"b\": 2}",
            "{\"a\": 1 \"b\": 2}",
            "[1 2]",
            "[1 [2]]",
            "{\"a\": 1 {}}",
            "{\"a\": [1, 2,, 3]}",
            "{\"a\": 01}",
            "{a: 1}",
            "{\"a\": 1 /* open comment",
            "{'a': 'single'}",
            "{\"a\": \"\\x41\"}",
            "{\"a\": tru}",
            "{\"a\" 1}",
            "{\"a\": -}",
            "{\"a\": 1e}",
            "{\"a\": \"\\ud800\"}",
            "{\"a\": +1, \"b\": .5, \"c\": 0x10, \"d\": NaN}",
            "{\"a\": [}",
            "{\"a\": ",
            "[",
            "{,}",
            "[,]",
            "{\"a\": 1,,}",
            "}",
        ] {
            check(text);
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let deep_objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        for n in [1, 127, 128, 129, 255, 256, 257, 300, 600] {
            check(&deep(n));
            check(&deep_objects(n));
        }
    }

    /// Every JSON file of the vanilla packs in `../shared/vanilla` (read at test time; its
    /// absence fails the test).
    #[test]
    fn a_built_tree_is_parse_to_asts_tree_on_vanilla() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let vanilla = here
            .ancestors()
            .map(|d| d.join("shared/vanilla"))
            .find(|d| d.join("resource_pack").is_dir())
            .expect("../shared/vanilla not found beside the workspace");
        let files = crate::pack::find_files(&vanilla, ".json").unwrap();
        assert!(files.len() > 1000, "{} files", files.len());
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            assert!(Builder::parse(text).is_some(), "{}", f.display());
            check(text);
        }
    }
}
