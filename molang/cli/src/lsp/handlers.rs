//! What the requests share: a position in a JSON document resolved to the Molang site under
//! it, the diagnostics in LSP form, and the documentation of queries and math functions.
//! Each request has its own file in [`super::requests`].

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use grammar::lexer::TokenKind;
use lsp_types::*;

use super::state::{split, Namespace, Workspace};
use super::text::{path_to_uri, uri_to_path, LineIndex};
use molang::builtins::math::MathFn;
use molang::diagnostics::Severity;
use molang::pack::SiteId;
use molang::pack_check::PackDiagnostic;
use molang::query_table;

/// A document position resolved to a file of the pack.
pub struct At {
    pub file: usize,
    pub offset: usize,
    pub index: LineIndex,
}

/// The Molang site under a request's cursor: the position resolved, the site, and the
/// offset in its text.
pub(crate) fn site_under(
    ws: &Workspace,
    p: &TextDocumentPositionParams,
) -> Option<(At, SiteId, usize)> {
    let at = resolve(ws, &p.text_document.uri, Some(p.position))?;
    let (site, off) = ws.site_at(at.file, at.offset)?;
    Some((at, site, off))
}

pub fn resolve(ws: &Workspace, uri: &Uri, pos: Option<Position>) -> Option<At> {
    let path = uri_to_path(uri)?;
    let file = ws.file_index(&path)?;
    let text = ws.text(file);
    let index = LineIndex::new(text);
    let offset = pos.map_or(0, |p| index.offset(text, p));
    Some(At {
        file,
        offset,
        index,
    })
}

pub(crate) fn location(ws: &Workspace, file: usize, range: std::ops::Range<usize>) -> Location {
    let f = &ws.pack.files[file];
    let index = LineIndex::new(&f.source);
    Location::new(path_to_uri(&f.path), index.range(&f.source, range))
}

/// The LSP diagnostics of every file with any (of the files in `only`, when given), by path.
pub fn diagnostics(
    ws: &Workspace,
    only: Option<&BTreeSet<PathBuf>>,
) -> HashMap<PathBuf, Vec<Diagnostic>> {
    let mut out: HashMap<PathBuf, Vec<Diagnostic>> = HashMap::new();
    let mut indexes: HashMap<usize, LineIndex> = HashMap::new();
    let hidden = ws.hidden_layers();
    for pd in ws.diagnostics() {
        if only.is_some_and(|o| !o.contains(&pd.path)) {
            continue;
        }
        let layer = file_of(ws, pd).map(|f| ws.pack.files[f].layer);
        if layer.is_some_and(|l| hidden.get(l).copied().unwrap_or(false)) {
            continue;
        }
        let d = match file_of(ws, pd) {
            Some(f) => {
                let index = indexes
                    .entry(f)
                    .or_insert_with(|| LineIndex::new(&ws.pack.files[f].source));
                lsp_diagnostic(ws, pd, index)
            }
            None => lsp_diagnostic(ws, pd, &LineIndex::new("")),
        };
        out.entry(pd.path.clone()).or_default().push(d);
    }
    out
}

/// The file ([`molang::pack::Pack::files`] index) a diagnostic's span points into.
pub(crate) fn file_of(ws: &Workspace, pd: &PackDiagnostic) -> Option<usize> {
    pd.site
        .map(|s| ws.pack.sites[s].file)
        .or(pd.file)
        .or_else(|| ws.file_index(&pd.path))
}

/// One diagnostic in LSP form; `index` is the line index of its file.
pub fn lsp_diagnostic(ws: &Workspace, pd: &PackDiagnostic, index: &LineIndex) -> Diagnostic {
    let d = &pd.diagnostic;
    let span = d.span.start as usize..d.span.end as usize;
    let (range, related) = match file_of(ws, pd) {
        Some(f) => {
            let src = &ws.pack.files[f].source;
            let to_file = |r: std::ops::Range<usize>| match pd.site {
                Some(s) => ws.file_range(s, r),
                None => r,
            };
            let range = if pd.site.is_some() || pd.file.is_some() {
                index.range(src, to_file(span))
            } else {
                line_col_range(pd.line, pd.column)
            };
            let related: Vec<DiagnosticRelatedInformation> = d
                .labels
                .iter()
                .map(|(sp, text)| DiagnosticRelatedInformation {
                    location: Location::new(
                        path_to_uri(&pd.path),
                        index.range(src, to_file(sp.start as usize..sp.end as usize)),
                    ),
                    message: text.clone(),
                })
                .collect();
            (range, related)
        }
        None => (line_col_range(pd.line, pd.column), Vec::new()),
    };
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push('\n');
        message.push_str(help);
    }
    message.push('\n');
    message.push_str(d.consequence());
    Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        source: Some("molang".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        // Editors strike deprecated names through.
        tags: (d.code == molang::diagnostics::Code::DeprecatedQuery)
            .then(|| vec![DiagnosticTag::DEPRECATED]),
        ..Diagnostic::default()
    }
}

pub(crate) fn line_col_range(line: usize, column: usize) -> Range {
    let p = Position::new(
        line.saturating_sub(1) as u32,
        column.saturating_sub(1) as u32,
    );
    Range::new(p, p)
}

pub(crate) fn markdown(value: String) -> HoverContents {
    HoverContents::Markup(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
}

pub(crate) fn arity_text(min: u8, max: Option<u8>) -> String {
    match (min, max) {
        (0, Some(0)) => "takes no arguments".to_string(),
        (a, Some(b)) if a == b => format!("takes {a} argument{}", if a == 1 { "" } else { "s" }),
        (a, Some(b)) => format!("takes {a} to {b} arguments"),
        (0, None) => "takes no arguments or more (no bound registered)".to_string(),
        (a, None) => format!(
            "takes at least {a} argument{}",
            if a == 1 { "" } else { "s" }
        ),
    }
}

/// `math.clamp(v, lo, hi)` and its parameter names, from the builtin's documentation
/// (which opens with its signature in backticks).
pub(crate) fn math_signature(f: MathFn) -> (String, Vec<String>) {
    let doc = f.doc();
    let sig = doc
        .strip_prefix('`')
        .and_then(|d| d.split('`').next())
        .filter(|s| s.starts_with("math."))
        .map(str::to_string);
    let params: Vec<String> = sig
        .as_deref()
        .and_then(|s| s.split_once('('))
        .map(|(_, rest)| {
            rest.trim_end_matches(')')
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        })
        .filter(|p: &Vec<String>| p.len() == f.arity())
        .unwrap_or_else(|| (1..=f.arity()).map(|i| format!("x{i}")).collect());
    let sig = if f.arity() == 0 {
        format!("math.{}", f.name())
    } else {
        format!("math.{}({})", f.name(), params.join(", "))
    };
    (sig, params)
}

/// A query's documentation: what it returns (when known), its arguments, and its
/// deprecation with the query that replaces it.
pub(crate) fn query_doc(q: &query_table::QueryInfo) -> String {
    let mut s = format!(
        "**query.{}**: {}",
        q.name,
        arity_text(q.min_args, q.max_args)
    );
    if let Some(d) = query_table::doc(q.name) {
        s.push_str("\n\n");
        s.push_str(d);
    }
    if let Some(d) = q.deprecated {
        match d.strip_prefix("none:") {
            Some(note) => s.push_str(&format!("\n\n**Deprecated**:{note}")),
            None => s.push_str(&format!("\n\n**Deprecated**: use `{d}` instead")),
        }
    }
    s
}

/// A math builtin's documentation: signature, what it returns, its NaN rule.
pub(crate) fn math_doc(f: MathFn) -> String {
    let (sig, _) = math_signature(f);
    let mut s = format!(
        "**{sig}**: takes exactly {} argument{}",
        f.arity(),
        if f.arity() == 1 { "" } else { "s" }
    );
    s.push_str("\n\n");
    s.push_str(f.doc());
    s
}

/// `query.x` → `q.x`, `variable.x` → `v.x`, `temp.x` → `t.x`, `context.x` → `c.x`.
pub(crate) fn short_form(label: &str) -> String {
    for (long, short) in [
        ("query.", "q."),
        ("variable.", "v."),
        ("temp.", "t."),
        ("context.", "c."),
    ] {
        if let Some(rest) = label.strip_prefix(long) {
            return format!("{short}{rest}");
        }
    }
    label.to_string()
}

/// The `variable.*` / `temp.*` name under a position: its site, namespace and name.
pub(crate) fn name_at(
    ws: &Workspace,
    uri: &Uri,
    pos: Position,
) -> Option<(SiteId, Namespace, String)> {
    let at = resolve(ws, uri, Some(pos))?;
    let (site, off) = ws.site_at(at.file, at.offset)?;
    let (tok, kind) = ws.token_at(site, off)?;
    if kind != TokenKind::Path {
        return None;
    }
    let word = &ws.pack.sites[site].text[tok];
    let (ns, at_name) = split(word);
    matches!(ns, Namespace::Variable | Namespace::Temp)
        .then(|| (site, ns, word[at_name..].to_ascii_lowercase()))
}

pub(crate) fn scope_of(ws: &Workspace, site: SiteId, ns: Namespace) -> Vec<SiteId> {
    match ns {
        Namespace::Temp => vec![site],
        _ => ws.variable_scope(site),
    }
}
