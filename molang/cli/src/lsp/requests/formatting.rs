//! `textDocument/formatting` and `rangeFormatting`: the `molang fmt` formatter.

use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::Workspace;
use molang::format::{format_file, Style};

/// Formatting edits of the Molang strings of a file; with `range`, of the strings it
/// touches only.
pub fn formatting(ws: &Workspace, uri: &Uri, range: Option<Range>) -> Option<Vec<TextEdit>> {
    let at = resolve(ws, uri, None)?;
    let f = format_file(&ws.pack, at.file, Style::Pretty);
    let src = ws.text(at.file);
    let want = range.map(|r| at.index.offset(src, r.start)..at.index.offset(src, r.end));
    Some(
        f.edits
            .into_iter()
            .filter(|e| {
                want.as_ref()
                    .is_none_or(|w| e.range.end >= w.start && e.range.start <= w.end)
            })
            .map(|e| TextEdit::new(at.index.range(src, e.range), e.new_text))
            .collect(),
    )
}
