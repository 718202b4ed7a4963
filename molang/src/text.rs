//! Text that crosses a trust boundary: names from packs and input files shown on a terminal,
//! and the CSV fields the tools write and read back. One place, so that every front end
//! escapes and quotes the same way.

use std::borrow::Cow;

/// A control character a terminal acts on: C0 (but `\n` and `\t`, kept by
/// [`terminal_safe`]), DEL and C1. A pack name holding `ESC ] 0 ; … BEL` would otherwise
/// retitle the user's terminal, and `ESC [ 2 J` clear it.
fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}')
}

fn escape(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_control(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_control(c) && !keep(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Human output that may span lines (a report, a list of notes): every control character
/// but `\n` and `\t` written as `\u{1b}`, so what a pack or input file names cannot drive
/// the terminal. JSON output needs none of this (serde escapes).
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    escape(s, |c| c == '\n' || c == '\t')
}

/// One name on one line (a bone, a state, a file name): [`terminal_safe`], line breaks and
/// tabs escaped too, so a name cannot start a line of its own.
pub fn one_line(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// At most `max` characters of `s` for a message, `…` and the count of the rest when it is
/// longer (a 1 GB bad cell is not echoed whole), escaped as [`one_line`].
pub fn excerpt(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => one_line(s).into_owned(),
        Some((cut, _)) => format!("{}… ({} more bytes)", one_line(&s[..cut]), s.len() - cut),
    }
}

/// One CSV field as RFC 4180 writes it: in double quotes (inner quotes doubled) when it holds
/// a comma, a quote, a line break, or starts or ends with a space (which readers trim).
pub fn csv_field(s: &str) -> Cow<'_, str> {
    let needs = s.contains([',', '"', '\n', '\r'])
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace);
    if needs {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(s)
    }
}

/// Limits of the CSV files the tools read (`--inputs`, snapshots, `doggoyle --inputs`): a
/// line of a billion commas would otherwise be split into a billion fields.
pub const MAX_CSV_LINE: usize = 1 << 20;
/// Fields a CSV line may hold.
pub const MAX_CSV_FIELDS: usize = 4096;

/// A CSV record that breaks a limit or the quoting rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvError {
    /// 1-based line where the record starts.
    pub line: usize,
    pub message: String,
}

/// The records of CSV text (RFC 4180: fields in double quotes may hold commas, doubled quotes
/// and line breaks), each as its raw text (line break removed) with the 1-based line it
/// starts on; [`csv_split`] splits one into fields. Lines may end in `\n` or `\r\n`. A
/// record longer than [`MAX_CSV_LINE`] bytes is an error, found before anything is kept;
/// nothing after it is read.
pub struct CsvLines<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

pub fn csv_lines(text: &str) -> CsvLines<'_> {
    CsvLines {
        text,
        pos: 0,
        line: 0,
    }
}

impl<'a> Iterator for CsvLines<'a> {
    type Item = Result<(usize, &'a str), CsvError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = &self.text[self.pos..];
        if rest.is_empty() {
            return None;
        }
        let start_line = self.line + 1;
        let bytes = rest.as_bytes();
        let mut quoted = false;
        let mut lines = 1;
        let mut end = bytes.len();
        for (i, &b) in bytes.iter().enumerate() {
            if i > MAX_CSV_LINE {
                self.pos = self.text.len();
                return Some(Err(CsvError {
                    line: start_line,
                    message: format!(
                        "the line is longer than {MAX_CSV_LINE} bytes (1 MiB; a CSV line holds at most {MAX_CSV_FIELDS} fields)"
                    ),
                }));
            }
            match b {
                b'"' => quoted = !quoted,
                b'\n' if quoted => lines += 1,
                b'\n' => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        self.pos += (end + 1).min(bytes.len());
        self.line += lines;
        let raw = &rest[..end];
        Some(Ok((start_line, raw.strip_suffix('\r').unwrap_or(raw))))
    }
}

/// The fields of one record (from [`csv_lines`]) with the byte offset where each starts;
/// more than [`MAX_CSV_FIELDS`] is an error, counted before splitting.
pub fn csv_split(raw: &str) -> Result<Vec<(usize, Cow<'_, str>)>, String> {
    check_fields(raw)?;
    split_record(raw)
}

/// Refuses a line of more than [`MAX_CSV_FIELDS`] fields (counting commas, quoted ones too:
/// an upper bound), before anything is split.
pub fn check_fields(raw: &str) -> Result<(), String> {
    let commas = memchr::memchr_iter(b',', raw.as_bytes()).count();
    if commas >= MAX_CSV_FIELDS {
        return Err(format!(
            "{} fields; a CSV line holds at most {MAX_CSV_FIELDS}",
            commas + 1
        ));
    }
    Ok(())
}

/// Splits one record at commas outside double quotes; quoted fields lose their quotes and
/// their doubled quotes become one.
fn split_record(raw: &str) -> Result<Vec<(usize, Cow<'_, str>)>, String> {
    let mut fields = Vec::new();
    let mut start = 0;
    loop {
        let rest = &raw[start..];
        let lead = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if rest[lead..].starts_with('"') {
            let body_start = start + lead + 1;
            let mut i = body_start;
            let bytes = raw.as_bytes();
            let mut text = String::new();
            loop {
                match raw[i..].find('"') {
                    None => {
                        return Err(format!(
                            "the quoted field at byte {} has no closing `\"`",
                            start + lead + 1
                        ))
                    }
                    Some(q) => {
                        text.push_str(&raw[i..i + q]);
                        i += q + 1;
                        if bytes.get(i) == Some(&b'"') {
                            text.push('"');
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            let after = raw[i..].trim_start_matches([' ', '\t']);
            let skipped = raw.len() - i - after.len();
            fields.push((start, Cow::Owned(text)));
            match after.chars().next() {
                None => return Ok(fields),
                Some(',') => start = i + skipped + 1,
                Some(c) => {
                    return Err(format!(
                        "`{}` after the closing quote of field {} (a field in quotes ends at its quote)",
                        one_line(&c.to_string()),
                        fields.len()
                    ))
                }
            }
        } else {
            match rest.find(',') {
                Some(c) => {
                    fields.push((start, Cow::Borrowed(&rest[..c])));
                    start += c + 1;
                }
                None => {
                    fields.push((start, Cow::Borrowed(rest)));
                    return Ok(fields);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Vec<Vec<String>> {
        csv_lines(text)
            .map(|r| {
                csv_split(r.unwrap().1)
                    .unwrap()
                    .into_iter()
                    .map(|(_, f)| f.into_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn control_characters_are_escaped() {
        let evil = "a\u{1b}]0;x\u{7}\u{1b}[2J\u{9b}b\nc\td\u{7f}";
        assert_eq!(
            terminal_safe(evil),
            "a\\u{1b}]0;x\\u{7}\\u{1b}[2J\\u{9b}b\nc\td\\u{7f}"
        );
        assert_eq!(one_line("a\nb\tc"), "a\\u{a}b\\u{9}c");
        assert!(matches!(terminal_safe("plain é ü"), Cow::Borrowed(_)));
    }

    #[test]
    fn excerpts_are_cut() {
        assert_eq!(excerpt("abcdef", 3), "abc… (3 more bytes)");
        assert_eq!(excerpt("abc", 3), "abc");
    }

    #[test]
    fn fields_round_trip() {
        let names = [
            "plain",
            "b\ntouch x #",
            "a,b",
            "say \"hi\"",
            " lead",
            "",
            "cr\r\nlf",
        ];
        let line: Vec<String> = names.iter().map(|n| csv_field(n).into_owned()).collect();
        let text = format!("{}\n1,2,3,4,5,6,7\n", line.join(","));
        let got = fields(&text);
        assert_eq!(got.len(), 2, "{text:?}");
        assert_eq!(got[0], names);
    }

    #[test]
    fn records_track_lines_and_limits() {
        let recs: Vec<_> = csv_lines("a,\"x\ny\"\r\nb,c\n")
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(recs, [(1, "a,\"x\ny\""), (3, "b,c")]);
        let many = ",".repeat(MAX_CSV_FIELDS);
        let e = csv_split(&many).unwrap_err();
        assert_eq!(e, "4097 fields; a CSV line holds at most 4096");
        let long = "x".repeat(MAX_CSV_LINE + 10);
        let e = csv_lines(&long).next().unwrap().unwrap_err();
        assert!(e
            .message
            .starts_with("the line is longer than 1048576 bytes"));
        let e = csv_split("\"a\"b").unwrap_err();
        assert!(e.contains("after the closing quote"), "{e:?}");
    }
}
