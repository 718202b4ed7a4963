//! Code actions (quick fixes for the checker's diagnostics) and inlay hints.
//!
//! Quick fixes, each an edit of the JSON text (Molang inserted into a JSON string is
//! escaped as the formatter does):
//! - a read before set (E0601, W0602, W0603, W0604): `v.x` → `(v.x ?? 0)` (`??` is looser
//!   than every other operator, so the parentheses keep the rest of the expression as it
//!   was; a read that is the whole expression gets none);
//! - a deprecated query (W0209) with a named replacement: the replacement, in the spelling
//!   of the namespace used (`q.` or `query.`);
//! - `math.min` / `math.max` with more than two arguments (E0203): nested two-argument
//!   calls, left to right (`math.max(a, b, c)` → `math.max(math.max(a, b), c)`);
//! - a complex expression without its final `;` (E0108): the `;`;
//! - an unknown query (W0205) close to a known one: the known one;
//! - an animation or controller id no file defines (W0805) close to one that is defined
//!   (same side, a few edits or only the case apart): that id.
//!
//! Inlay hints: after each `variable.*` read, the script that sets it first in the game's
//! order (initialize, then pre_animation, then the rest); and at each file's
//! `format_version` the Molang version in force (from the pack manifest).

use std::collections::HashMap;

use grammar::lexer::{lex, TokenKind};
use grammar::{Expr, ExprId};
use lsp_types::*;

use super::handlers::{lsp_diagnostic, resolve};
use super::state::{split, Namespace, Workspace};
use super::text::path_to_uri;
use molang::diagnostics::Code;
use molang::format::{json_escape, site_version};
use molang::pack::{SiteId, SiteKind};
use molang::pack_check::{molang_version, PackDiagnostic};
use molang::query_table;

/// A fix: its title, whether it is the obvious one, and the edit in site-text bytes.
struct Fix {
    title: String,
    preferred: bool,
    range: std::ops::Range<usize>,
    new_text: String,
}

// lsp-types' `Uri` caches its parse in a cell, which clippy takes for a mutable key; its
// hash and equality only look at the text.
#[allow(clippy::mutable_key_type)]
pub fn code_actions(ws: &Workspace, p: &CodeActionParams) -> Option<CodeActionResponse> {
    let at = resolve(ws, &p.text_document.uri, None)?;
    let src = ws.text(at.file);
    let want = at.index.offset(src, p.range.start)..at.index.offset(src, p.range.end);
    let mut out = Vec::new();
    for pd in ws.diagnostics() {
        let Some(site) = pd.site.filter(|&s| ws.pack.sites[s].file == at.file) else {
            continue;
        };
        let span = pd.diagnostic.span.start as usize..pd.diagnostic.span.end as usize;
        let r = ws.file_range(site, span.clone());
        // The diagnostic touches the range asked about (an empty range: the cursor).
        if r.end < want.start || r.start > want.end {
            continue;
        }
        let Some(fix) = fix(ws, site, pd, span) else {
            continue;
        };
        let piece_of = |o: usize| {
            ws.pack.sites[site]
                .pieces
                .iter()
                .position(|pc| pc.text.start <= o && o <= pc.text.end)
        };
        // An edit across two entries of a script array would not be one JSON string.
        if piece_of(fix.range.start) != piece_of(fix.range.end) {
            continue;
        }
        let edit = TextEdit::new(
            at.index.range(src, ws.file_range(site, fix.range)),
            json_escape(&fix.new_text),
        );
        let changes = HashMap::from([(path_to_uri(&ws.pack.files[at.file].path), vec![edit])]);
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: fix.title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![lsp_diagnostic(ws, pd, &at.index)]),
            edit: Some(WorkspaceEdit {
                changes: Some(changes),
                ..WorkspaceEdit::default()
            }),
            is_preferred: Some(fix.preferred),
            ..CodeAction::default()
        }));
    }
    // Fixes of the pack's structure (no Molang site): the JSON value itself.
    for pd in ws.diagnostics() {
        if pd.site.is_some()
            || pd.file != Some(at.file)
            || pd.diagnostic.code != Code::UndefinedAnimation
        {
            continue;
        }
        let r = pd.diagnostic.span.start as usize..pd.diagnostic.span.end as usize;
        if r.end < want.start || r.start > want.end {
            continue;
        }
        let Some((inner, near)) = near_animation_id(ws, at.file, r) else {
            continue;
        };
        let edit = TextEdit::new(at.index.range(src, inner), json_escape(&near));
        let changes = HashMap::from([(path_to_uri(&ws.pack.files[at.file].path), vec![edit])]);
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Replace with `{near}`"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![lsp_diagnostic(ws, pd, &at.index)]),
            edit: Some(WorkspaceEdit {
                changes: Some(changes),
                ..WorkspaceEdit::default()
            }),
            is_preferred: Some(true),
            ..CodeAction::default()
        }));
    }
    Some(out)
}

/// For an undefined animation or controller id at `r` (the JSON string, quotes or not) of
/// entity file `file`: the range of the id's text and the nearest id defined for the
/// entity's side, when one is near (only the case apart, or at most a quarter of its
/// length in edits, at most 3).
fn near_animation_id(
    ws: &Workspace,
    file: usize,
    r: std::ops::Range<usize>,
) -> Option<(std::ops::Range<usize>, String)> {
    let src = ws.text(file);
    let raw = src.get(r.clone())?;
    let inner = match raw.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some(_) => r.start + 1..r.end - 1,
        None => r,
    };
    let id = src.get(inner.clone())?;
    let e = ws
        .pack
        .entities
        .iter()
        .find(|e| e.file == file && e.animations.iter().any(|a| a.id == id))?;
    let side = ws.pack.entity_side(e);
    let known = ws
        .pack
        .animations
        .iter()
        .filter(|a| ws.pack.files[a.file].side.meets(side))
        .map(|a| a.id.as_str())
        .chain(
            ws.pack
                .controllers
                .iter()
                .filter(|c| ws.pack.files[c.file].side.meets(side))
                .map(|c| c.id.as_str()),
        );
    let lower = id.to_ascii_lowercase();
    let allowed = (id.len() / 4).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let d = if k.to_ascii_lowercase() == lower {
            0
        } else if k.len().abs_diff(id.len()) > allowed {
            continue;
        } else {
            strsim::levenshtein(&lower, &k.to_ascii_lowercase())
        };
        if d <= allowed && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| (inner, k.to_string()))
}

fn fix(
    ws: &Workspace,
    site: SiteId,
    pd: &PackDiagnostic,
    span: std::ops::Range<usize>,
) -> Option<Fix> {
    let text = &ws.pack.sites[site].text;
    match pd.diagnostic.code {
        Code::ReadBeforeSet
        | Code::MaybeReadBeforeSet
        | Code::ReadBeforeSetFirstFrame
        | Code::NeverSet => {
            let read = text.get(span.clone())?;
            let whole = text.trim() == read;
            Some(Fix {
                title: format!("Read `{read}` as 0 while it is unset (`?? 0`)"),
                preferred: true,
                range: span,
                new_text: if whole {
                    format!("{read} ?? 0")
                } else {
                    format!("({read} ?? 0)")
                },
            })
        }
        Code::DeprecatedQuery => {
            let (start, word) = path_at(text, span.start)?;
            let (ns, at) = split(word);
            let old = query_table::lookup(&word[at..])?;
            let new = old.deprecated?.strip_prefix("query.")?;
            let same_arity = query_table::lookup(new)
                .is_some_and(|n| (n.min_args, n.max_args) == (old.min_args, old.max_args));
            (ns == Namespace::Query).then(|| Fix {
                title: format!("Replace with `{}{new}`", &word[..at]),
                preferred: same_arity,
                range: start + at..start + word.len(),
                new_text: new.to_string(),
            })
        }
        Code::MathArity => {
            let parsed = grammar::parse(
                text,
                grammar::ParseOptions {
                    version: site_version(&ws.pack, site),
                },
            );
            let id = (0..parsed.ast.len())
                .map(|i| ExprId(i as u32))
                .find(|&id| {
                    let s = parsed.ast.span(id);
                    (s.start as usize, s.end as usize) == (span.start, span.end)
                })?;
            let Expr::Call { callee, args, .. } = parsed.ast.expr(id) else {
                return None;
            };
            let (callee, args) = (parsed.ast.name(*callee), parsed.ast.list(*args));
            if !matches!(callee, "math.min" | "math.max") || args.len() < 3 {
                return None;
            }
            let arg = |a: &ExprId| {
                let s = parsed.ast.span(*a);
                text[s.start as usize..s.end as usize].to_string()
            };
            let mut nested = arg(&args[0]);
            for a in &args[1..] {
                nested = format!("{callee}({nested}, {})", arg(a));
            }
            Some(Fix {
                title: format!("Nest into two-argument `{callee}` calls"),
                preferred: true,
                range: span,
                new_text: nested,
            })
        }
        Code::UnknownQuery => {
            let (start, word) = path_at(text, span.start)?;
            let (ns, at) = split(word);
            let near = query_table::suggest(&word[at..])?;
            (ns == Namespace::Query).then(|| Fix {
                title: format!("Replace with `{}{near}`", &word[..at]),
                preferred: true,
                range: start + at..start + word.len(),
                new_text: near.to_string(),
            })
        }
        Code::MissingFinalSemicolon => Some(Fix {
            title: "Add the final `;`".to_string(),
            preferred: true,
            range: span.start..span.start,
            new_text: ";".to_string(),
        }),
        _ => None,
    }
}

/// The order the game runs an entity's scripts in, for "set first in".
fn script_rank(kind: SiteKind) -> u8 {
    match kind {
        SiteKind::Initialize => 0,
        SiteKind::PreAnimation => 1,
        _ => 2,
    }
}

pub fn inlay_hints(ws: &Workspace, p: &InlayHintParams) -> Option<Vec<InlayHint>> {
    let at = resolve(ws, &p.text_document.uri, None)?;
    let src = ws.text(at.file);
    let want = at.index.offset(src, p.range.start)..at.index.offset(src, p.range.end);
    let mut hints = Vec::new();
    let file = &ws.pack.files[at.file];
    let has_sites = ws.pack.sites.iter().any(|s| s.file == at.file);
    if has_sites {
        let version = molang_version(file.min_engine_version);
        let why = match file.min_engine_version {
            Some([a, b, c]) => format!("min_engine_version {a}.{b}.{c}"),
            None => "no manifest: the latest rules".to_string(),
        };
        // At the end of the `format_version` value, else at the start of the file.
        let key = "\"format_version\"";
        let offset = src
            .find(key)
            .and_then(|k| {
                let rest = &src[k + key.len()..];
                let open = k + key.len() + rest.find('"')? + 1;
                Some(open + src[open..].find('"')? + 1)
            })
            .unwrap_or(0);
        if want.start <= offset && offset <= want.end {
            hints.push(hint(
                at.index.position(src, offset),
                format!(" Molang v{version} ({why})"),
            ));
        }
    }
    for (si, site) in ws.pack.sites.iter().enumerate() {
        if site.file != at.file {
            continue;
        }
        let scope = ws.variable_scope(si);
        let tokens = lex(&site.text);
        for (i, t) in tokens.iter().enumerate() {
            let (a, b) = (t.span.start as usize, t.span.end as usize);
            let r = ws.file_range(si, a..b);
            if t.kind != TokenKind::Path || r.end < want.start || r.start > want.end {
                continue;
            }
            let word = &site.text[a..b];
            let (ns, name_at) = split(word);
            let is_write = tokens
                .get(i + 1)
                .is_some_and(|n| n.kind == TokenKind::Assign);
            if ns != Namespace::Variable || is_write || ws.owners(si).is_empty() {
                continue;
            }
            let name = word[name_at..].to_ascii_lowercase();
            let first = ws
                .occurrences(&scope, Namespace::Variable, &name)
                .into_iter()
                .filter(|o| o.write)
                .min_by_key(|o| (script_rank(ws.pack.sites[o.site].kind), o.site));
            let label = match first {
                Some(o) => format!(" set first in {}", ws.describe_site(o.site)),
                None => " set by no script".to_string(),
            };
            hints.push(hint(at.index.position(src, r.end), label));
        }
    }
    Some(hints)
}

fn hint(position: Position, label: String) -> InlayHint {
    InlayHint {
        position,
        label: InlayHintLabel::String(label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: None,
        padding_right: None,
        data: None,
    }
}

/// The name token (`q.old`, `query.old`) holding byte `at` of `text`: its start and text.
fn path_at(text: &str, at: usize) -> Option<(usize, &str)> {
    let tok = lex(text).into_iter().find(|t| {
        t.kind == TokenKind::Path && t.span.start as usize <= at && at < t.span.end as usize
    })?;
    let (start, end) = (tok.span.start as usize, tok.span.end as usize);
    Some((start, &text[start..end]))
}
