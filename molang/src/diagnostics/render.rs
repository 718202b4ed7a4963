//! Rendering: rustc-style reports through miette for people, one JSON object per
//! diagnostic for editors. Only the CLI calls these; the core never prints.

use super::{Diagnostic, PackDiagnostic, Severity};
use crate::text::{one_line, terminal_safe};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

/// Source text as a report shows it: a control character a terminal would act on (a pack
/// can hold a raw ESC in a string) becomes a printable one of the same UTF-8 length, so
/// every offset, line and column of the report stays right: `?` for C0 and DEL, `¿` for C1.
/// Tabs and line breaks stay (they are the layout).
fn same_width(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            '\0'..='\x1f' | '\x7f' => '?',
            '\u{80}'..='\u{9f}' => '¿',
            _ => c,
        })
        .collect()
}

/// Where an expression's text sits: in its own right (`--expr`), or inside a file whose
/// offsets differ from the expression's (a JSON string with escapes, joined script arrays).
pub struct SourceText<'a> {
    /// File name shown in reports.
    pub name: &'a str,
    /// The text shown: the whole file for pack files, the expression otherwise.
    pub text: &'a str,
    /// Maps a byte offset in the expression to a byte offset in `text`.
    pub map: &'a dyn SourceMap,
}

pub trait SourceMap {
    fn to_file_offset(&self, expr_offset: usize) -> usize;
}

/// The identity map, for expressions shown on their own.
pub struct Identity;
impl SourceMap for Identity {
    fn to_file_offset(&self, expr_offset: usize) -> usize {
        expr_offset
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Lines longer than this (minified packs, generated expressions) are shown as a window
/// around the label: miette pads to the label's column, and a column past 65,535 is beyond
/// what Rust's formatter can pad (it panics), besides being unreadable.
const LONG_LINE: usize = 1_000;
/// Characters shown on each side of a label on a long line.
const WINDOW: usize = 60;

/// A rustc-like report with the source and labels, without colour codes when `color` is false.
pub fn render_report(d: &Diagnostic, src: &SourceText<'_>, color: bool) -> String {
    render_report_at(d, src, color, d.severity)
}

/// [`render_report`] at the severity a configuration reports the code at (`level`); the
/// game's consequence stays the diagnostic's own.
pub fn render_report_at(
    d: &Diagnostic,
    src: &SourceText<'_>,
    color: bool,
    level: Severity,
) -> String {
    let map = |o: u32| {
        floor_char_boundary(
            src.text,
            src.map.to_file_offset(o as usize).min(src.text.len()),
        )
    };
    let start = map(d.span.start);
    let line_start = src.text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src.text[start..]
        .find('\n')
        .map_or(src.text.len(), |i| start + i);
    if line_end - line_start > LONG_LINE {
        let end = map(d.span.end).max(start).min(line_end);
        return render_window(d, src, start, end, line_start, line_end, level);
    }
    let range = |s: &grammar::Span| map(s.start)..map(s.end).max(map(s.start));
    let spans: Vec<std::ops::Range<usize>> = std::iter::once(&d.span)
        .chain(d.labels.iter().map(|(s, _)| s))
        .map(range)
        .collect();
    let mut labels = vec![LabeledSpan::new_primary_with_span(
        Some(d.code.title().to_string()),
        spans[0].clone(),
    )];
    for ((_, text), span) in d.labels.iter().zip(&spans[1..]) {
        labels.push(LabeledSpan::new_with_span(
            Some(one_line(text).into_owned()),
            span.clone(),
        ));
    }
    let help = match &d.help {
        Some(h) => format!("{}\n{}", terminal_safe(h), d.consequence()),
        None => d.consequence().to_string(),
    };
    let md = MietteDiagnostic::new(terminal_safe(&d.message).into_owned())
        .with_code(d.code.as_str())
        .with_severity(match level {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
        .with_labels(labels)
        .with_help(help);
    let lo = spans.iter().map(|r| r.start).min().unwrap_or(start);
    let hi = spans.iter().map(|r| r.end).max().unwrap_or(start);
    let report = WithSource {
        diagnostic: md,
        source: NamedSource::new(one_line(src.name), Snippet::around(src.text, lo, hi)),
    };
    let mut out = String::new();
    if handler(color).render_report(&mut out, &report).is_err() {
        out = format!(
            "{}[{}]: {}\n",
            level.as_str(),
            d.code.as_str(),
            terminal_safe(&d.message)
        );
    }
    out
}

/// The report handler for each colour choice, made once: making one asks the terminal
/// about itself (a dozen system calls), which a pack with many warnings paid per warning.
fn handler(color: bool) -> &'static GraphicalReportHandler {
    static HANDLERS: std::sync::OnceLock<[GraphicalReportHandler; 2]> = std::sync::OnceLock::new();
    let [plain, coloured] = HANDLERS.get_or_init(|| {
        [GraphicalTheme::unicode_nocolor(), GraphicalTheme::unicode()]
            .map(|theme| GraphicalReportHandler::new_themed(theme).with_context_lines(1))
    });
    if color {
        coloured
    } else {
        plain
    }
}

/// A diagnostic with its source, for the handler. `miette::Report` does the same, but
/// making one installs and runs miette's default hook, which asks the terminal its size
/// (three system calls a report).
struct WithSource {
    diagnostic: MietteDiagnostic,
    source: NamedSource<Snippet>,
}

impl std::fmt::Debug for WithSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.diagnostic, f)
    }
}

impl std::fmt::Display for WithSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.diagnostic, f)
    }
}

impl std::error::Error for WithSource {}

impl miette::Diagnostic for WithSource {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diagnostic.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.diagnostic.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diagnostic.help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.diagnostic.labels()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
}

/// The lines of a file around its labels, standing in for the whole file: miette finds a
/// label's line by scanning its source from the first byte, and a report took a copy of the
/// whole file, so one warning in a large animation file cost as much as its size (370 k
/// instructions a warning on vanilla). Offsets, lines and columns stay the file's, so the
/// report is the same byte for byte.
struct Snippet {
    text: String,
    /// Byte offset of `text` in the file.
    offset: usize,
    /// Line breaks before `text` (miette's count: `\r\n`, `\n` and a lone `\r` each one).
    line: usize,
}

/// Lines of context kept on each side of the labels (miette shows one).
const SNIPPET_LINES: usize = 2;

impl Snippet {
    fn around(text: &str, lo: usize, hi: usize) -> Snippet {
        let bytes = text.as_bytes();
        let is_break = |b: u8| matches!(b, b'\n' | b'\r');
        let line_start = |mut i: usize| {
            while i > 0 && !is_break(bytes[i - 1]) {
                i -= 1;
            }
            i
        };
        // The start of the label's line, then of SNIPPET_LINES lines before it.
        let mut start = line_start(lo.min(bytes.len()));
        for _ in 0..SNIPPET_LINES {
            if start == 0 {
                break;
            }
            // The break that ends the line before (`\r\n` is one break).
            let mut brk = start - 1;
            if brk > 0 && bytes[brk] == b'\n' && bytes[brk - 1] == b'\r' {
                brk -= 1;
            }
            start = line_start(brk);
        }
        // The end of the last label's line and of SNIPPET_LINES lines after it, breaks included.
        let mut end = hi.max(lo).min(bytes.len());
        for _ in 0..=SNIPPET_LINES {
            while end < bytes.len() && !is_break(bytes[end]) {
                end += 1;
            }
            if end < bytes.len() {
                end += if bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
            }
        }
        let start = floor_char_boundary(text, start);
        let end = floor_char_boundary(text, end);
        Snippet {
            text: same_width(&text[start..end]),
            offset: start,
            line: line_breaks(&bytes[..start]),
        }
    }
}

/// Line breaks the way miette counts them.
fn line_breaks(bytes: &[u8]) -> usize {
    let lf = bytes.iter().filter(|&&b| b == b'\n').count();
    let lone_cr = bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
        .count();
    lf + lone_cr
}

impl miette::SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let local =
            miette::SourceSpan::from((span.offset().saturating_sub(self.offset), span.len()));
        let inner = <str as miette::SourceCode>::read_span(&self.text, &local, before, after)?;
        let data: &'a [u8] = inner.data();
        Ok(Box::new(miette::MietteSpanContents::new(
            data,
            (inner.span().offset() + self.offset, inner.span().len()).into(),
            inner.line() + self.line,
            inner.column(),
            inner.line_count() + self.line,
        )))
    }
}

/// The plain form for a label on a very long line: `file:line:col`, then the label's
/// neighbourhood with `…` where the line is cut, and a caret line under the label.
fn render_window(
    d: &Diagnostic,
    src: &SourceText<'_>,
    start: usize,
    end: usize,
    line_start: usize,
    line_end: usize,
    level: Severity,
) -> String {
    let text = src.text;
    let (line, column) = line_col(text, start);
    // Walk WINDOW characters left of the label and right of its end (at most WINDOW
    // characters of the label itself), staying on char boundaries.
    let back = text[line_start..start]
        .char_indices()
        .rev()
        .nth(WINDOW - 1)
        .map_or(line_start, |(i, _)| line_start + i);
    let label_end = text[start..end]
        .char_indices()
        .nth(WINDOW)
        .map_or(end, |(i, _)| start + i);
    let fwd = text[label_end..line_end]
        .char_indices()
        .nth(WINDOW)
        .map_or(line_end, |(i, _)| label_end + i);
    let lead = if back > line_start { "…" } else { "" };
    let tail = if fwd < line_end { "…" } else { "" };
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    let offset = lead.chars().count() + text[back..start].chars().count();
    let width = text[start..label_end].chars().count().max(1);
    let help = match &d.help {
        Some(h) => format!("{}\n{}", terminal_safe(h), d.consequence()),
        None => d.consequence().to_string(),
    };
    let mut out = format!(
        "{}[{}]: {}\n{pad} --> {}:{line}:{column}\n{pad} |\n{gutter} | {lead}{}{tail}\n{pad} | {}{} {}\n",
        level.as_str(),
        d.code.as_str(),
        terminal_safe(&d.message),
        one_line(src.name),
        same_width(&text[back..fwd].replace(['\t', '\r'], " ")),
        " ".repeat(offset),
        "^".repeat(width),
        d.code.title(),
    );
    for line in help.lines() {
        out.push_str(&format!("{pad} = help: {line}\n"));
    }
    out
}

/// One JSON object (one line) for editors: file, line, column, end_line, end_column, code,
/// severity, message, help (or null), game (what the game does with it). Lines and
/// columns are 1-based; columns count characters.
pub fn render_json_line(d: &Diagnostic, src: &SourceText<'_>) -> String {
    render_json_line_at(d, src, d.severity)
}

/// [`render_json_line`] with `severity` the level a configuration reports the code at.
pub fn render_json_line_at(d: &Diagnostic, src: &SourceText<'_>, level: Severity) -> String {
    let start = src.map.to_file_offset(d.span.start as usize);
    let end = src.map.to_file_offset(d.span.end as usize).max(start);
    let (line, column) = line_col(src.text, start);
    let (end_line, end_column) = line_col(src.text, end);
    serde_json::json!({
        "file": src.name,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "code": d.code.as_str(),
        "severity": level.as_str(),
        "message": d.message,
        "help": d.help,
        "game": d.consequence(),
    })
    .to_string()
}

/// Maps a site's expression offsets to its file's.
struct SiteMap<'a> {
    pack: &'a crate::pack::Pack,
    site: &'a crate::pack::Site,
}

impl SourceMap for SiteMap<'_> {
    fn to_file_offset(&self, expr_offset: usize) -> usize {
        self.pack.json_offset(self.site, expr_offset)
    }
}

/// One diagnostic of a pack as `molang check` prints it, its last line ended: a report with
/// the source ([`render_report_at`]) or, with `json`, one JSON object ([`render_json_line_at`]);
/// a whole-file problem (no span in the text) as `severity[code]: file:line:col: message`.
/// `level` is the severity a configuration reports the code at. The runtime's load
/// diagnostics (`molang run`, `molang fuzz`) print through this too.
pub fn render_pack_report(
    pack: &crate::pack::Pack,
    pd: &PackDiagnostic,
    level: Severity,
    json: bool,
    color: bool,
) -> String {
    let report = |d: &Diagnostic, src: &SourceText<'_>| {
        if json {
            format!("{}\n", render_json_line_at(d, src, level))
        } else {
            render_report_at(d, src, color, level)
        }
    };
    let name = pd.path.display().to_string();
    match pd.site {
        Some(si) => {
            let site = &pack.sites[si];
            let file = &pack.files[site.file];
            let map = SiteMap { pack, site };
            let src = SourceText {
                name: &name,
                text: &file.source,
                map: &map,
            };
            report(&pd.diagnostic, &src)
        }
        // Pack structure: the span indexes the file itself.
        None if pd.file.is_some_and(|f| !pack.files[f].source.is_empty()) => {
            let file = &pack.files[pd.file.unwrap_or_default()];
            let src = SourceText {
                name: &name,
                text: &file.source,
                map: &Identity,
            };
            report(&pd.diagnostic, &src)
        }
        None => {
            let d = &pd.diagnostic;
            // Positions are 1-based everywhere; a whole-file problem (not UTF-8) is 1:1.
            let (line, column) = (pd.line.max(1), pd.column.max(1));
            if json {
                format!(
                    "{}\n",
                    serde_json::json!({"file": name, "line": line, "column": column, "end_line": line,
                        "end_column": column, "code": d.code.as_str(), "severity": level.as_str(),
                        "message": d.message, "help": d.help, "game": d.consequence()})
                )
            } else {
                let mut out = format!(
                    "{}[{}]: {}:{}:{}: {}\n",
                    level.as_str(),
                    d.code.as_str(),
                    name,
                    line,
                    column,
                    d.message
                );
                if let Some(h) = &d.help {
                    out.push_str(&format!("  help: {h}\n"));
                }
                out.push_str(&format!("  {}\n", d.consequence()));
                terminal_safe(&out).into_owned()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;
    use grammar::Span;

    /// The report the way it was made before [`Snippet`]: miette reads the whole file.
    fn with_the_whole_file(d: &Diagnostic, name: &str, text: &str) -> String {
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(d.code.title().to_string()),
            d.span.start as usize..d.span.end as usize,
        )];
        for (span, label) in &d.labels {
            labels.push(LabeledSpan::new_with_span(
                Some(label.clone()),
                span.start as usize..span.end as usize,
            ));
        }
        let help = match &d.help {
            Some(h) => format!("{h}\n{}", d.consequence()),
            None => d.consequence().to_string(),
        };
        let md = MietteDiagnostic::new(d.message.clone())
            .with_code(d.code.as_str())
            .with_severity(miette::Severity::Error)
            .with_labels(labels)
            .with_help(help);
        let report =
            miette::Report::new(md).with_source_code(NamedSource::new(name, text.to_string()));
        let mut out = String::new();
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_context_lines(1)
            .render_report(&mut out, report.as_ref())
            .expect("renders");
        out
    }

    #[test]
    fn a_report_from_the_lines_around_its_labels_is_the_whole_files_report() {
        let bodies = [
            "one\ntwo v.a = 1\nthree\nfour\nfive v.b\nsix\n",
            "one\r\ntwo v.a = 1\r\nthree\r\nfour\r\nfive v.b\r\nsix",
            "one\rtwo v.a = 1\rthree\r\rfive v.b\rsix\r",
            "\n\n\nv.a = 1\n\n\n\nv.b\n\n",
            "v.a = 1 v.b",
            "é中\r\nv.a = 1 é\n\r\nx\rv.b é\r\n",
        ];
        let mut compared = 0;
        for text in bodies {
            let a = text.find("v.a").expect("v.a");
            let b = text.find("v.b").expect("v.b");
            let cases = [
                Diagnostic::new(Code::Empty, Span::new(a, a + 3), "one label"),
                Diagnostic::new(Code::Empty, Span::new(b, b + 3), "late label")
                    .with_label(Span::new(a, a + 7), "set here"),
                Diagnostic::new(Code::Empty, Span::new(a, b + 3), "across lines"),
                Diagnostic::new(Code::Empty, Span::new(0, 0), "at the start"),
                Diagnostic::new(Code::Empty, Span::new(text.len(), text.len()), "at the end"),
            ];
            for d in cases {
                let d = d.with_severity(Severity::Error);
                let src = SourceText {
                    name: "f.json",
                    text,
                    map: &Identity,
                };
                assert_eq!(
                    render_report(&d, &src, false),
                    with_the_whole_file(&d, "f.json", text),
                    "{:?} in {text:?}",
                    d.message
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 30);
    }
}
