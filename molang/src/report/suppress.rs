//! Inline suppression: a `// molang-ignore: W0806` comment in a pack's JSON (the game reads
//! JSON with comments). A comment after something on its line covers that line; a comment
//! alone on its line covers the next line that holds more than comments. Several codes may
//! follow, separated by commas or spaces; text after them is a reason and is ignored
//! (`// molang-ignore: W0806, W0804 -- the bones are vanilla's`). Block comments work alike.

use std::collections::HashMap;
use std::ops::Range;

use crate::diagnostics::Code;

/// The word that starts a suppression inside a comment.
pub const DIRECTIVE: &str = "molang-ignore";

/// The suppressions of one file.
#[derive(Clone, Debug, Default)]
pub struct Suppressions {
    /// 1-based line → the codes suppressed on it.
    by_line: HashMap<usize, Vec<Code>>,
    /// Names after `molang-ignore` that look like codes but are none (or a directive with no
    /// code at all), with their byte range in the file.
    pub unknown: Vec<(Range<usize>, String)>,
}

impl Suppressions {
    /// Whether `code` is suppressed on 1-based `line`.
    pub fn covers(&self, line: usize, code: Code) -> bool {
        self.by_line.get(&line).is_some_and(|c| c.contains(&code))
    }

    pub fn is_empty(&self) -> bool {
        self.by_line.is_empty() && self.unknown.is_empty()
    }
}

/// The suppression comments of a JSON text.
pub fn scan(text: &str) -> Suppressions {
    let mut out = Suppressions::default();
    if !text.contains(DIRECTIVE) {
        return out;
    }
    let b = text.as_bytes();
    let mut line = 1;
    // Whether the current line has something other than whitespace and comments so far.
    let mut content = false;
    // Codes waiting for the next line with content.
    let mut pending: Vec<Code> = Vec::new();
    let mut i = 0;
    // The first thing on a line that is not a comment: waiting codes land on that line.
    fn touch(line: usize, content: &mut bool, pending: &mut Vec<Code>, out: &mut Suppressions) {
        if !*content {
            *content = true;
            if !pending.is_empty() {
                out.by_line.entry(line).or_default().append(pending);
            }
        }
    }
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                content = false;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'"' => {
                touch(line, &mut content, &mut pending, &mut out);
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') || b.get(i + 1) == Some(&b'*') => {
                let block = b[i + 1] == b'*';
                let start = i + 2;
                let end = if block {
                    text[start..].find("*/").map_or(b.len(), |e| start + e)
                } else {
                    text[start..].find('\n').map_or(b.len(), |e| start + e)
                };
                let codes = directive(text, start..end, &mut out.unknown);
                if !codes.is_empty() {
                    if content {
                        out.by_line.entry(line).or_default().extend(codes);
                    } else {
                        pending.extend(codes);
                    }
                }
                line += text[start..end].matches('\n').count();
                i = if block { (end + 2).min(b.len()) } else { end };
            }
            _ => {
                touch(line, &mut content, &mut pending, &mut out);
                i += 1;
            }
        }
    }
    out
}

/// The codes a comment's text (`range` of `text`) suppresses; names that are not codes go
/// to `unknown`.
fn directive(
    text: &str,
    range: Range<usize>,
    unknown: &mut Vec<(Range<usize>, String)>,
) -> Vec<Code> {
    let body = &text[range.clone()];
    let Some(at) = body.find(DIRECTIVE) else {
        return Vec::new();
    };
    let after = at + DIRECTIVE.len();
    let rest = &body[after..];
    // `molang-ignore-next-line` and the like are other words, not this directive.
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_') {
        return Vec::new();
    }
    let rest_start = range.start + after;
    let mut codes = Vec::new();
    let mut offset = 0;
    let mut named = false;
    for token in rest.split_inclusive([',', ' ', '\t', ':', '\r', '\n']) {
        let word = token.trim_end_matches([',', ' ', '\t', ':', '\r', '\n']);
        let start = rest_start + offset;
        offset += token.len();
        if word.is_empty() {
            continue;
        }
        let looks_like_code = word.len() > 1
            && word.starts_with(['E', 'W', 'e', 'w'])
            && word[1..].bytes().all(|c| c.is_ascii_digit());
        if !looks_like_code {
            // The reason, or whatever follows the codes.
            break;
        }
        named = true;
        match Code::ALL
            .iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(word))
        {
            Some(c) => codes.push(*c),
            None => unknown.push((start..start + word.len(), word.to_string())),
        }
    }
    if !named {
        let start = range.start + at;
        unknown.push((start..start + DIRECTIVE.len(), String::new()));
    }
    codes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_covers_its_line_or_the_next_line_with_content() {
        let text = r#"{
  // molang-ignore: W0806
  "a": "v.x", // molang-ignore: W0804, E0601 -- vanilla's
  "b": "// molang-ignore: W0805 is inside a string",

  /* molang-ignore W0807 */
  // a plain comment

  "c": 1, "d": "x" /* molang-ignore: e0101 */
}"#;
        let s = scan(text);
        assert!(s.unknown.is_empty(), "{:?}", s.unknown);
        assert!(s.covers(3, Code::UnknownBone));
        assert!(s.covers(3, Code::UnknownShortName));
        assert!(s.covers(3, Code::ReadBeforeSet));
        assert!(!s.covers(2, Code::UnknownBone));
        assert!(!s.covers(4, Code::UnknownBone));
        assert!(!s.covers(4, Code::UndefinedAnimation));
        assert!(!s.covers(5, Code::UndefinedAnimation));
        assert!(s.covers(9, Code::ArrayIndexOutOfRange));
        assert!(s.covers(9, Code::Empty));
        assert!(!s.covers(10, Code::Empty));
    }

    #[test]
    fn names_that_are_no_code_are_reported() {
        let text = "{\"a\": 1 // molang-ignore: W0860, W0806\n, \"b\": 2 // molang-ignore\n}";
        let s = scan(text);
        assert!(s.covers(1, Code::UnknownBone));
        assert_eq!(s.unknown.len(), 2, "{:?}", s.unknown);
        assert_eq!(&text[s.unknown[0].0.clone()], "W0860");
        assert_eq!(&text[s.unknown[1].0.clone()], "molang-ignore");
        assert!(scan("{\"a\": 1} // molang-ignore-file: W0806").is_empty());
    }
}
