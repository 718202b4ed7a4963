//! `textDocument/prepareRename` and `textDocument/rename`: a temp in its expression, a
//! variable in every entity that shares it, or the reason it cannot be renamed safely.

use std::collections::HashMap;

use grammar::lexer::{lex, TokenKind};
use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::{split, Namespace, Workspace};
use crate::lsp::text::{path_to_uri, LineIndex};
use molang::pack::SiteId;
use molang::query_table;

/// Whether `name` can follow `variable.` / `temp.`: the lexer reads `v.name` as one name
/// with one dot.
fn valid_name(name: &str) -> bool {
    let full = format!("v.{name}");
    let tokens = lex(&full);
    !name.contains('.')
        && tokens.len() == 1
        && tokens[0].kind == TokenKind::Path
        && tokens[0].span.end as usize == full.len()
}

/// An entity as a rename's message names it: identifier and file.
fn entity_label(ws: &Workspace, ei: usize) -> String {
    let e = &ws.pack.entities[ei];
    let file = ws.pack.files[e.file]
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{} ({file})", e.identifier)
}

/// Where entity `ei` defines `variable.name` outside Molang text: the game (engine
/// variables), its `scripts.variables` (public), or a controller state's `variables` key.
/// A rename cannot follow those: the reason, when one applies.
fn defined_outside_molang(ws: &Workspace, ei: usize, name: &str) -> Option<String> {
    let e = &ws.pack.entities[ei];
    if molang::engine_vars::for_entity(&e.identifier).any(|v| v.name == name) {
        return Some(format!(
            "the game sets `variable.{name}` on {}",
            entity_label(ws, ei)
        ));
    }
    if e.public_variables.iter().any(|v| v == name) {
        return Some(format!(
            "`variable.{name}` is public in the `scripts.variables` of {} (other entities may read it through `->`)",
            entity_label(ws, ei)
        ));
    }
    let side = ws.pack.entity_side(e);
    for full in e.animations.iter().map(|a| &a.id) {
        for c in ws.pack.controllers_for(side, full) {
            for st in &c.states {
                if st.data.variables.iter().any(|v| v.name == name) {
                    return Some(format!(
                        "`variable.{name}` is a `variables` key of state `{}` of `{}`, played by {}",
                        st.name,
                        c.id,
                        entity_label(ws, ei)
                    ));
                }
            }
        }
    }
    None
}

/// What a rename of `variable.name` from `site` edits, or why it cannot be renamed safely.
/// The rename reaches every entity that shares the variable through a shared animation,
/// controller or render controller ([`Workspace::variable_reach`]); it is refused when the
/// name is also defined outside Molang text, is a struct, or is read from another entity
/// through `->` (which entity cannot be told).
pub fn rename_reach(
    ws: &Workspace,
    site: SiteId,
    name: &str,
) -> Result<crate::lsp::state::Reach, String> {
    let refuse = |why: String| Err(format!("`variable.{name}` cannot be renamed safely: {why}"));
    if name.contains('.') {
        return refuse("it is a struct member; rename the struct variable instead".into());
    }
    if query_table::is_engine_variable(name)
        || query_table::is_engine_variable(&format!("variable.{name}"))
    {
        return refuse("the game sets it".into());
    }
    let reach = ws.variable_reach(site, name);
    for &e in &reach.entities {
        if let Some(why) = defined_outside_molang(ws, e, name) {
            return refuse(why);
        }
        // `v.name.member` is the same variable: its members would be left behind.
        for &s in ws.entity_sites(e) {
            let text = &ws.pack.sites[s].text;
            if !text.contains('.') {
                continue;
            }
            for t in lex(text).iter().filter(|t| t.kind == TokenKind::Path) {
                let w = &text[t.span.start as usize..t.span.end as usize];
                let (ns, at) = split(w);
                let rest = w[at..].to_ascii_lowercase();
                if ns == Namespace::Variable
                    && rest.strip_prefix(name).is_some_and(|r| r.starts_with('.'))
                {
                    return refuse(format!(
                        "{} uses it as a struct (`{w}` in {})",
                        entity_label(ws, e),
                        ws.describe_site(s)
                    ));
                }
            }
        }
    }
    // Read from another entity (`c.other->v.name`): which entities that reaches is unknown.
    for (si, s) in ws.pack.sites.iter().enumerate() {
        if !s.text.contains("->") {
            continue;
        }
        if let Some(o) = ws
            .occurrences(&[si], Namespace::Variable, name)
            .iter()
            .find(|o| o.foreign)
        {
            return refuse(format!(
                "`{}` in {} reads it from another entity, and which entities that is cannot be told",
                &s.text[o.token.clone()],
                ws.describe_site(si)
            ));
        }
    }
    Ok(reach)
}

/// `textDocument/prepareRename`: the name under the cursor and what it can be renamed as,
/// or why not. Temps are renamed in their expression; variables through
/// [`rename_reach`].
pub fn prepare_rename(
    ws: &Workspace,
    p: &TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>, String> {
    let Some(at) = resolve(ws, &p.text_document.uri, Some(p.position)) else {
        return Ok(None);
    };
    let Some((site, off)) = ws.site_at(at.file, at.offset) else {
        return Ok(None);
    };
    let Some((tok, TokenKind::Path)) = ws.token_at(site, off) else {
        return Ok(None);
    };
    let word = &ws.pack.sites[site].text[tok.clone()];
    let (ns, at_name) = split(word);
    let name = word[at_name..].to_ascii_lowercase();
    match ns {
        Namespace::Temp => {}
        Namespace::Variable => {
            rename_reach(ws, site, &name)?;
        }
        Namespace::Query | Namespace::Math => {
            return Err(format!(
                "`{word}` is built into the game and cannot be renamed"
            ))
        }
        _ => return Ok(None),
    }
    let range = at.index.range(
        ws.text(at.file),
        ws.file_range(site, tok.start + at_name..tok.end),
    );
    Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
        range,
        placeholder: word[at_name..].to_string(),
    }))
}

// lsp-types' `Uri` caches its parse in a cell, which clippy takes for a mutable key; its
// hash and equality only look at the text.
#[allow(clippy::mutable_key_type)]
pub fn rename(ws: &Workspace, p: &RenameParams) -> Result<Option<WorkspaceEdit>, String> {
    let tdp = &p.text_document_position;
    let Some((site, ns, name)) = name_at(ws, &tdp.text_document.uri, tdp.position) else {
        return Ok(None);
    };
    // Accept `v.new`, `variable.new` or `new`.
    let new = p.new_name.trim();
    let new = match split(new) {
        (n, at) if n == ns => &new[at..],
        _ => new,
    };
    if !valid_name(new) {
        return Err(format!(
            "`{}` is not a Molang name (letters, digits and `_`, not starting with a digit)",
            p.new_name
        ));
    }
    let new_lower = new.to_ascii_lowercase();
    let occ = match ns {
        Namespace::Temp => {
            if new_lower != name && !ws.occurrences(&[site], ns, &new_lower).is_empty() {
                return Err(format!(
                    "`temp.{new}` is already used in this expression: the two would become one"
                ));
            }
            ws.occurrences(&[site], ns, &name)
        }
        _ => {
            let reach = rename_reach(ws, site, &name)?;
            if new_lower != name {
                // The new name must be free in every entity the rename reaches, or two
                // variables would become one.
                let taken = |why: String| {
                    Err(format!(
                        "`variable.{new}` is already used: {why}; renaming would merge two variables"
                    ))
                };
                if query_table::is_engine_variable(&new_lower) {
                    return taken("the game sets it".into());
                }
                for &e in &reach.entities {
                    if let Some(why) = defined_outside_molang(ws, e, &new_lower) {
                        return taken(why);
                    }
                    if let Some(o) = ws.occurrences(ws.entity_sites(e), ns, &new_lower).first() {
                        return taken(format!(
                            "{} names it in {}",
                            entity_label(ws, e),
                            ws.describe_site(o.site)
                        ));
                    }
                }
                if let Some(o) = ws.occurrences(&reach.sites, ns, &new_lower).first() {
                    return taken(format!("it is named in {}", ws.describe_site(o.site)));
                }
            }
            ws.occurrences(&reach.sites, ns, &name)
        }
    };
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for o in occ {
        let file = ws.pack.sites[o.site].file;
        let f = &ws.pack.files[file];
        let index = LineIndex::new(&f.source);
        changes
            .entry(path_to_uri(&f.path))
            .or_default()
            .push(TextEdit::new(
                index.range(&f.source, ws.file_range(o.site, o.name.clone())),
                new.to_string(),
            ));
    }
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    }))
}
