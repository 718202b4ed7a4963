//! `textDocument/completion`: queries, math, the entity's variables and engine variables,
//! contexts and temps, with documentation.

use std::collections::BTreeSet;

use grammar::lexer::{lex, TokenKind};
use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::{split, Namespace, Workspace};
use molang::builtins::math::MathFn;
use molang::pack::{EntityKind, FileKind, SiteKind};
use molang::query_table;

pub fn completion(ws: &Workspace, p: &CompletionParams) -> Option<CompletionResponse> {
    let (at, site, off) = site_under(ws, &p.text_document_position)?;
    let text = &ws.pack.sites[site].text;
    // The partial name before the cursor.
    let start = text[..off]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |i| i + 1);
    let prefix = text[start..off].to_ascii_lowercase();
    let file_text = ws.text(at.file);
    let edit_range = at.index.range(file_text, ws.file_range(site, start..off));
    let mut items = Vec::new();
    let mut add_doc = |label: String,
                       kind,
                       detail: String,
                       snippet: Option<String>,
                       deprecated: bool,
                       doc: Option<String>| {
        let short = short_form(&label);
        if !(label.starts_with(&prefix) || short.starts_with(&prefix)) {
            return;
        }
        // Keep the user's spelling of the namespace (`q.` or `query.`).
        let written =
            if !prefix.is_empty() && short.starts_with(&prefix) && !label.starts_with(&prefix) {
                short
            } else {
                label.clone()
            };
        let (new_text, format) = match snippet {
            Some(args) => (format!("{written}({args})"), InsertTextFormat::SNIPPET),
            None => (written.clone(), InsertTextFormat::PLAIN_TEXT),
        };
        items.push(CompletionItem {
            label: written.clone(),
            kind: Some(kind),
            detail: Some(detail),
            filter_text: Some(written),
            insert_text_format: Some(format),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                edit_range, new_text,
            ))),
            tags: deprecated.then(|| vec![CompletionItemTag::DEPRECATED]),
            // The tag's predecessor, for clients that only know it.
            #[allow(deprecated)]
            deprecated: deprecated.then_some(true),
            documentation: doc.map(|value| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                })
            }),
            ..CompletionItem::default()
        });
    };
    for q in query_table::all() {
        let snippet = (q.min_args > 0).then(|| {
            (1..=q.min_args)
                .map(|i| format!("${{{i}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        });
        let mut detail = arity_text(q.min_args, q.max_args);
        if let Some(d) = q.deprecated {
            detail.push_str(&format!("; deprecated: {d}"));
        }
        add_doc(
            format!("query.{}", q.name),
            CompletionItemKind::FUNCTION,
            detail,
            snippet,
            q.deprecated.is_some(),
            Some(query_doc(q)),
        );
    }
    for f in MathFn::ALL {
        let (_, params) = math_signature(f);
        let snippet = (f.arity() > 0).then(|| {
            params
                .iter()
                .enumerate()
                .map(|(i, p)| format!("${{{}:{p}}}", i + 1))
                .collect::<Vec<_>>()
                .join(", ")
        });
        add_doc(
            format!("math.{}", f.name()),
            CompletionItemKind::FUNCTION,
            math_signature(f).0,
            snippet,
            false,
            Some(f.doc().to_string()),
        );
    }
    let mut add = |label: String, kind, detail: String, snippet: Option<String>, deprecated| {
        add_doc(label, kind, detail, snippet, deprecated, None)
    };
    let mut offered = std::collections::BTreeSet::new();
    for v in ws.entity_variables(site) {
        offered.insert(v.clone());
        add(
            format!("variable.{v}"),
            CompletionItemKind::VARIABLE,
            "set by this entity".to_string(),
            None,
            false,
        );
    }
    // What the game provides, where it provides it: particle variables in particles, the
    // entity's engine variables in its own files, an item's contexts in attachables and
    // geometry bindings (where vanilla reads `c.item_slot`, `c.is_first_person`,
    // `c.owning_entity`).
    let owners = ws.owners(site);
    let mut engine: Vec<(String, &str)> = Vec::new();
    if ws.pack.sites[site].kind == SiteKind::Particle {
        engine.extend(
            query_table::engine_variables()
                .iter()
                .filter(|v| v.starts_with("particle_") || v.starts_with("emitter_"))
                .map(|v| (v.to_string(), "the game sets it for particles")),
        );
    }
    // The generic engine variables are those some vanilla entity receives; one named after
    // another kind of entity (`goat_has_left_horn` for an iron golem) is not offered.
    let short = |id: &str| id.rsplit(':').next().unwrap_or(id).to_ascii_lowercase();
    let kinds: BTreeSet<String> = ws
        .pack
        .entities
        .iter()
        .map(|e| short(&e.identifier))
        .filter(|k| k.len() >= 3)
        .collect();
    let names_other = |v: &str, own: &str| {
        kinds.iter().any(|k| {
            k != own
                && !own.contains(k.as_str())
                && (v == k
                    || v.starts_with(&format!("{k}_"))
                    || v.ends_with(&format!("_{k}"))
                    || v.contains(&format!("_{k}_")))
        })
    };
    for &e in owners {
        let own = short(&ws.pack.entities[e].identifier);
        engine.extend(
            molang::engine_vars::for_entity(&ws.pack.entities[e].identifier)
                .filter(|v| !names_other(v.name, &own))
                .map(|v| (v.name.to_string(), "the game sets it on this entity")),
        );
    }
    for (v, why) in engine {
        if offered.insert(v.clone()) {
            add(
                format!("variable.{v}"),
                CompletionItemKind::VARIABLE,
                why.to_string(),
                None,
                false,
            );
        }
    }
    let file_kind = ws.pack.files[ws.pack.sites[site].file].kind;
    let item_context = matches!(file_kind, FileKind::Attachable | FileKind::Geometry)
        || owners
            .iter()
            .any(|&e| ws.pack.entities[e].kind == EntityKind::Attachable);
    if item_context {
        for c in ["is_first_person", "item_slot", "owning_entity"] {
            add(
                format!("context.{c}"),
                CompletionItemKind::VARIABLE,
                "the game provides it to items (attachables)".to_string(),
                None,
                false,
            );
        }
    }
    let mut temps: Vec<String> = lex(text)
        .iter()
        .filter(|t| t.kind == TokenKind::Path)
        .filter_map(|t| {
            let w = &text[t.span.start as usize..t.span.end as usize];
            match split(w) {
                (Namespace::Temp, at) if t.span.end as usize != off => {
                    Some(w[at..].to_ascii_lowercase())
                }
                _ => None,
            }
        })
        .collect();
    temps.sort();
    temps.dedup();
    for t in temps {
        add(
            format!("temp.{t}"),
            CompletionItemKind::VARIABLE,
            "temp of this expression".to_string(),
            None,
            false,
        );
    }
    Some(CompletionResponse::Array(items))
}
