//! Rendering: rustc-style reports through miette for people, one JSON object per
//! diagnostic for editors. Only the CLI calls these; the core never prints.

use super::{Diagnostic, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

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
        return render_window(d, src, start, end, line_start, line_end);
    }
    let mut labels = vec![LabeledSpan::new_primary_with_span(
        Some(d.code.title().to_string()),
        map(d.span.start)..map(d.span.end).max(map(d.span.start)),
    )];
    for (span, text) in &d.labels {
        labels.push(LabeledSpan::new_with_span(
            Some(text.clone()),
            map(span.start)..map(span.end).max(map(span.start)),
        ));
    }
    let help = match &d.help {
        Some(h) => format!("{h}\n{}", d.consequence()),
        None => d.consequence().to_string(),
    };
    let md = MietteDiagnostic::new(d.message.clone())
        .with_code(d.code.as_str())
        .with_severity(match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
        .with_labels(labels)
        .with_help(help);
    let report =
        miette::Report::new(md).with_source_code(NamedSource::new(src.name, src.text.to_string()));
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let mut out = String::new();
    let handler = GraphicalReportHandler::new_themed(theme).with_context_lines(1);
    if handler.render_report(&mut out, report.as_ref()).is_err() {
        out = format!(
            "{}[{}]: {}\n",
            d.severity.as_str(),
            d.code.as_str(),
            d.message
        );
    }
    out
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
        Some(h) => format!("{h}\n{}", d.consequence()),
        None => d.consequence().to_string(),
    };
    let mut out = format!(
        "{}[{}]: {}\n{pad} --> {}:{line}:{column}\n{pad} |\n{gutter} | {lead}{}{tail}\n{pad} | {}{} {}\n",
        d.severity.as_str(),
        d.code.as_str(),
        d.message,
        src.name,
        text[back..fwd].replace(['\t', '\r'], " "),
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
        "severity": d.severity.as_str(),
        "message": d.message,
        "help": d.help,
        "game": d.consequence(),
    })
    .to_string()
}
