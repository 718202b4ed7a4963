//! Request handlers: each turns a position in a JSON document into the Molang site under
//! it and answers from the workspace's analysis.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use grammar::lexer::{lex, TokenKind};
use grammar::{Expr, ExprId};
use lsp_types::*;

use super::state::{split, Namespace, Workspace};
use super::text::{path_to_uri, uri_to_path, LineIndex};
use molang::builtins::math::MathFn;
use molang::diagnostics::Severity;
use molang::fmt::{format_file, Style};
use molang::lint::PackDiagnostic;
use molang::pack::{EntityKind, FileKind, SiteId, SiteKind};
use molang::queries;

/// A document position resolved to a file of the pack.
pub struct At {
    pub file: usize,
    pub offset: usize,
    pub index: LineIndex,
}

/// The Molang site under a request's cursor: the position resolved, the site, and the
/// offset in its text.
fn site_under(ws: &Workspace, p: &TextDocumentPositionParams) -> Option<(At, SiteId, usize)> {
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

fn location(ws: &Workspace, file: usize, range: std::ops::Range<usize>) -> Location {
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
fn file_of(ws: &Workspace, pd: &PackDiagnostic) -> Option<usize> {
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
        ..Diagnostic::default()
    }
}

fn line_col_range(line: usize, column: usize) -> Range {
    let p = Position::new(
        line.saturating_sub(1) as u32,
        column.saturating_sub(1) as u32,
    );
    Range::new(p, p)
}

fn markdown(value: String) -> HoverContents {
    HoverContents::Markup(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
}

fn arity_text(min: u8, max: Option<u8>) -> String {
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
fn math_signature(f: MathFn) -> (String, Vec<String>) {
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
fn query_doc(q: &queries::QueryInfo) -> String {
    let mut s = format!(
        "**query.{}**: {}",
        q.name,
        arity_text(q.min_args, q.max_args)
    );
    if let Some(d) = queries::doc(q.name) {
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
fn math_doc(f: MathFn) -> String {
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

pub fn hover(ws: &Workspace, p: &HoverParams) -> Option<Hover> {
    let (at, site, off) = site_under(ws, &p.text_document_position_params)?;
    let text = &ws.pack.sites[site].text;
    let (tok, kind) = ws.token_at(site, off)?;
    let range = Some(
        at.index
            .range(ws.text(at.file), ws.file_range(site, tok.clone())),
    );
    if kind == TokenKind::Path {
        let word = &text[tok.clone()];
        let (ns, at_name) = split(word);
        let name = word[at_name..].to_ascii_lowercase();
        let value = match ns {
            Namespace::Query => match queries::lookup(&name) {
                Some(q) => query_doc(q),
                None => format!("**query.{name}**: not a query the game knows"),
            },
            Namespace::Math => match MathFn::from_name(&name) {
                Some(f) => math_doc(f),
                None => format!("**math.{name}**: not a math function"),
            },
            Namespace::Variable => variable_hover(ws, site, &name),
            Namespace::Temp => {
                let occ = ws.occurrences(&[site], Namespace::Temp, &name);
                let writes = occ.iter().filter(|o| o.write).count();
                format!(
                    "**temp.{name}**: {writes} write{}, {} read{} in this expression (temps live for one expression)",
                    if writes == 1 { "" } else { "s" },
                    occ.len() - writes,
                    if occ.len() - writes == 1 { "" } else { "s" }
                )
            }
            _ => return constant_hover(text, off, range, ws.pack.sites[site].file, ws, site),
        };
        return Some(Hover {
            contents: markdown(value),
            range,
        });
    }
    constant_hover(text, off, range, ws.pack.sites[site].file, ws, site)
}

fn variable_hover(ws: &Workspace, site: SiteId, name: &str) -> String {
    let scope = ws.variable_scope(site);
    let occ = ws.occurrences(&scope, Namespace::Variable, name);
    let mut s = format!("**variable.{name}**");
    if queries::is_engine_variable(&format!("variable.{name}")) || queries::is_engine_variable(name)
    {
        s.push_str(" (the engine provides it)");
    }
    let owners = ws.owners(site);
    if !owners.is_empty() {
        let ids: Vec<&str> = owners
            .iter()
            .map(|&e| ws.pack.entities[e].identifier.as_str())
            .collect();
        s.push_str(&format!("\n\nEntities: {}", ids.join(", ")));
    }
    for (label, write) in [("Written", true), ("Read", false)] {
        let mut places: Vec<String> = occ
            .iter()
            .filter(|o| o.write == write)
            .map(|o| ws.describe_at(o.site, o.token.start))
            .collect();
        places.dedup();
        if places.is_empty() {
            s.push_str(&format!("\n\n{label}: nowhere"));
        } else {
            s.push_str(&format!("\n\n{label} in:"));
            for p in places.iter().take(20) {
                s.push_str(&format!("\n- {p}"));
            }
            if places.len() > 20 {
                s.push_str(&format!("\n- and {} more", places.len() - 20));
            }
        }
    }
    s
}

/// Whether expression `id` is made of literals, operators and non-random math only.
fn is_constant(ast: &grammar::Ast, id: ExprId) -> bool {
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        match ast.expr(id) {
            Expr::Number(_) => {}
            Expr::Path(p) if ast.name(*p) == "math.pi" => {}
            Expr::Unary { operand, .. } => stack.push(*operand),
            Expr::Binary { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
            Expr::Conditional {
                cond,
                then,
                otherwise,
            } => {
                stack.extend([*cond, *then]);
                stack.extend(*otherwise);
            }
            Expr::Group { kind, body } => {
                if *kind != grammar::GroupKind::Paren || body.semicolons > 0 {
                    return false;
                }
                stack.extend(ast.list(body.statements));
            }
            Expr::Call { callee, args, .. } => {
                let name = ast.name(*callee).strip_prefix("math.");
                match name.and_then(MathFn::from_name) {
                    Some(f) if !f.is_random() && f.arity() == args.len() => {
                        stack.extend(ast.list(*args))
                    }
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    true
}

/// The value of the largest constant subexpression under the cursor, as the game computes
/// it (f32, through the interpreter).
fn constant_hover(
    text: &str,
    off: usize,
    range: Option<Range>,
    file: usize,
    ws: &Workspace,
    site: SiteId,
) -> Option<Hover> {
    let version = molang::fmt::site_version(&ws.pack, site);
    let parsed = grammar::parse(text, grammar::ParseOptions { version });
    let mut best: Option<(usize, usize)> = None;
    for i in 0..parsed.ast.len() {
        let id = ExprId(i as u32);
        let sp = parsed.ast.span(id);
        let (a, b) = (sp.start as usize, sp.end as usize);
        if a <= off
            && off <= b
            && is_constant(&parsed.ast, id)
            && best.is_none_or(|(x, y)| b - a > y - x)
        {
            best = Some((a, b));
        }
    }
    let (a, b) = best?;
    let sub = &text[a..b];
    let options = molang::CheckOptions {
        version,
        ..Default::default()
    };
    let expr = molang::compile(sub, &options).ok()?;
    let v = expr.eval_with(&[]).value.as_num();
    let index = LineIndex::new(ws.text(file));
    let range = Some(index.range(ws.text(file), ws.file_range(site, a..b))).or(range);
    Some(Hover {
        contents: markdown(format!(
            "`{sub}` = **{}** (f32, as the game computes it)",
            molang::interp::value::format_f32(v)
        )),
        range,
    })
}

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
            documentation: doc.map(|value| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                })
            }),
            ..CompletionItem::default()
        });
    };
    for q in queries::all() {
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
            queries::engine_variables()
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

/// `textDocument/signatureHelp`: inside the parentheses of a query or math call, its
/// signature, documentation and the argument under the cursor.
pub fn signature_help(ws: &Workspace, p: &SignatureHelpParams) -> Option<SignatureHelp> {
    let (_, site, off) = site_under(ws, &p.text_document_position_params)?;
    let text = &ws.pack.sites[site].text;
    let before = &text[..off];
    let tokens = lex(before);
    // Open parentheses before the cursor: the call they belong to, and commas seen.
    let mut open: Vec<(Option<&str>, u32)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            TokenKind::LParen => {
                let callee = i
                    .checked_sub(1)
                    .map(|j| &tokens[j])
                    .filter(|c| c.kind == TokenKind::Path)
                    .map(|c| &before[c.span.start as usize..c.span.end as usize]);
                open.push((callee, 0));
            }
            TokenKind::RParen => {
                open.pop();
            }
            TokenKind::Comma => {
                if let Some(top) = open.last_mut() {
                    top.1 += 1;
                }
            }
            _ => {}
        }
    }
    let (callee, active) = open.iter().rev().find_map(|(c, n)| Some(((*c)?, *n)))?;
    let (ns, at) = split(callee);
    let name = callee[at..].to_ascii_lowercase();
    let (label, params, doc) = match ns {
        Namespace::Math => {
            let f = MathFn::from_name(&name)?;
            let (label, params) = math_signature(f);
            (label, params, math_doc(f))
        }
        Namespace::Query => {
            let q = queries::lookup(&name)?;
            let shown = q.max_args.unwrap_or(q.min_args).max(q.min_args);
            let mut params: Vec<String> = (1..=shown).map(|i| format!("arg{i}")).collect();
            if q.max_args.is_none() {
                params.push("...".to_string());
            }
            let label = format!("query.{}({})", q.name, params.join(", "));
            (label, params, query_doc(q))
        }
        _ => return None,
    };
    let active = match params.last() {
        Some(last) if last == "..." => active.min(params.len() as u32 - 1),
        _ => active,
    };
    Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label,
            documentation: Some(Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: doc,
            })),
            parameters: Some(
                params
                    .into_iter()
                    .map(|p| ParameterInformation {
                        label: ParameterLabel::Simple(p),
                        documentation: None,
                    })
                    .collect(),
            ),
            active_parameter: Some(active),
        }],
        active_signature: Some(0),
        active_parameter: Some(active),
    })
}

/// `query.x` → `q.x`, `variable.x` → `v.x`, `temp.x` → `t.x`, `context.x` → `c.x`.
fn short_form(label: &str) -> String {
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
fn name_at(ws: &Workspace, uri: &Uri, pos: Position) -> Option<(SiteId, Namespace, String)> {
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

fn scope_of(ws: &Workspace, site: SiteId, ns: Namespace) -> Vec<SiteId> {
    match ns {
        Namespace::Temp => vec![site],
        _ => ws.variable_scope(site),
    }
}

pub fn definition(ws: &Workspace, p: &GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let tdp = &p.text_document_position_params;
    if let Some((site, ns, name)) = name_at(ws, &tdp.text_document.uri, tdp.position) {
        let occ = ws.occurrences(&scope_of(ws, site, ns), ns, &name);
        let locs: Vec<Location> = occ
            .iter()
            .filter(|o| o.write)
            .map(|o| {
                location(
                    ws,
                    ws.pack.sites[o.site].file,
                    ws.file_range(o.site, o.token.clone()),
                )
            })
            .collect();
        return Some(GotoDefinitionResponse::Array(locs));
    }
    animation_definition(ws, &tdp.text_document.uri, tdp.position)
}

/// An entity's `animations` / `animate` short name or full identifier under the cursor →
/// the definition of the animation or controller.
fn animation_definition(
    ws: &Workspace,
    uri: &Uri,
    pos: Position,
) -> Option<GotoDefinitionResponse> {
    let at = resolve(ws, uri, Some(pos))?;
    let src = ws.text(at.file);
    // The JSON string under the cursor.
    let start = src[..at.offset].rfind('"')? + 1;
    let end = at.offset + src[at.offset..].find('"')?;
    let word = &src[start..end];
    let mut ids = Vec::new();
    for e in ws.pack.entities.iter().filter(|e| e.file == at.file) {
        if let Some(id) = e.animation_id(word) {
            ids.push((id.to_string(), ws.pack.entity_side(e)));
        }
        if e.animations.iter().any(|(_, id)| id == word) {
            ids.push((word.to_string(), ws.pack.entity_side(e)));
        }
    }
    let mut locs = Vec::new();
    // A geometry id (`description.geometry` values) → where its model file defines it: the
    // `identifier` value, or the legacy `"geometry.x"` / `"geometry.x:parent"` key.
    let geometry_used = ws
        .pack
        .entities
        .iter()
        .any(|e| e.file == at.file && e.geometries.iter().any(|(_, g)| g == word));
    if geometry_used {
        for g in ws.pack.geometries_named(word) {
            let fsrc = &ws.pack.files[g.file].source;
            let found = [format!("\"{word}\""), format!("\"{word}:")]
                .iter()
                .find_map(|k| fsrc.find(k.as_str()));
            if let Some(i) = found {
                locs.push(location(ws, g.file, i + 1..i + 1 + word.len()));
            }
        }
    }
    for (id, side) in ids {
        let files = ws
            .pack
            .animations_for(side, &id)
            .map(|a| a.file)
            .chain(ws.pack.controllers_for(side, &id).map(|c| c.file));
        for f in files {
            let fsrc = &ws.pack.files[f].source;
            let key = format!("\"{id}\"");
            if let Some(i) = fsrc.find(&key) {
                locs.push(location(ws, f, i + 1..i + key.len() - 1));
            }
        }
    }
    (!locs.is_empty()).then_some(GotoDefinitionResponse::Array(locs))
}

pub fn references(ws: &Workspace, p: &ReferenceParams) -> Option<Vec<Location>> {
    let tdp = &p.text_document_position;
    let (site, ns, name) = name_at(ws, &tdp.text_document.uri, tdp.position)?;
    let occ = ws.occurrences(&scope_of(ws, site, ns), ns, &name);
    Some(
        occ.iter()
            .filter(|o| p.context.include_declaration || !o.write)
            .map(|o| {
                location(
                    ws,
                    ws.pack.sites[o.site].file,
                    ws.file_range(o.site, o.token.clone()),
                )
            })
            .collect(),
    )
}

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
    for (_, full) in &e.animations {
        for c in ws.pack.controllers_for(side, full) {
            for st in &c.states {
                if st.variables.iter().any(|(n, _)| n == name) {
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
) -> Result<super::state::Reach, String> {
    let refuse = |why: String| Err(format!("`variable.{name}` cannot be renamed safely: {why}"));
    if name.contains('.') {
        return refuse("it is a struct member; rename the struct variable instead".into());
    }
    if queries::is_engine_variable(name) || queries::is_engine_variable(&format!("variable.{name}"))
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
                if queries::is_engine_variable(&new_lower) {
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

#[allow(deprecated)]
pub fn symbols(ws: &Workspace, uri: &Uri) -> Option<DocumentSymbolResponse> {
    let at = resolve(ws, uri, None)?;
    let src = ws.text(at.file);
    let pack = &ws.pack;
    let sym = |name: String,
               detail: &str,
               kind,
               r: std::ops::Range<usize>,
               children: Vec<DocumentSymbol>| {
        let range = at.index.range(src, r);
        DocumentSymbol {
            name,
            detail: Some(detail.to_string()),
            kind,
            tags: None,
            deprecated: None,
            range,
            selection_range: range,
            children: (!children.is_empty()).then_some(children),
        }
    };
    let key_range = |id: &str| {
        let key = format!("\"{id}\"");
        src.find(&key).map_or(0..0, |i| i + 1..i + key.len() - 1)
    };
    let leaf =
        |id: &String, detail: &str, kind| sym(id.clone(), detail, kind, key_range(id), Vec::new());
    let mut out = Vec::new();
    for e in pack.entities.iter().filter(|e| e.file == at.file) {
        let kids = e
            .animations
            .iter()
            .zip(&e.animation_at)
            .map(|((short, id), r)| {
                sym(short.clone(), id, SymbolKind::FIELD, r.clone(), Vec::new())
            })
            .collect();
        out.push(sym(
            e.identifier.clone(),
            "entity",
            SymbolKind::CLASS,
            key_range(&e.identifier),
            kids,
        ));
    }
    for a in pack.animations.iter().filter(|a| a.file == at.file) {
        out.push(leaf(&a.id, "animation", SymbolKind::FUNCTION));
    }
    for c in pack.controllers.iter().filter(|c| c.file == at.file) {
        let kids = c
            .states
            .iter()
            .map(|s| {
                sym(
                    s.name.clone(),
                    "state",
                    SymbolKind::ENUM_MEMBER,
                    s.at.clone(),
                    Vec::new(),
                )
            })
            .collect();
        out.push(sym(
            c.id.clone(),
            "animation controller",
            SymbolKind::CLASS,
            c.at.clone(),
            kids,
        ));
    }
    for r in pack.render_controllers.iter().filter(|r| r.file == at.file) {
        out.push(leaf(&r.id, "render controller", SymbolKind::CLASS));
    }
    Some(DocumentSymbolResponse::Nested(out))
}

/// Semantic token types, in legend order.
pub const TOKEN_TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::VARIABLE,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::NUMBER,
    SemanticTokenType::STRING,
    SemanticTokenType::KEYWORD,
    SemanticTokenType::OPERATOR,
    SemanticTokenType::NAMESPACE,
];

pub fn semantic_tokens(ws: &Workspace, uri: &Uri) -> Option<SemanticTokensResult> {
    let at = resolve(ws, uri, None)?;
    let src = ws.text(at.file);
    let mut spans: Vec<(usize, usize, u32)> = Vec::new();
    for (si, site) in ws.pack.sites.iter().enumerate() {
        if site.file != at.file {
            continue;
        }
        for t in lex(&site.text) {
            use TokenKind::*;
            let ty = match t.kind {
                Path => {
                    let w = &site.text[t.span.start as usize..t.span.end as usize];
                    match split(w).0 {
                        Namespace::Query | Namespace::Math => 1,
                        _ => 0,
                    }
                }
                Number => 2,
                String => 3,
                Return | Loop | ForEach | Break | Continue | This | True | False => 4,
                LParen | RParen | LBrace | RBrace | LBracket | RBracket | Comma | Semicolon
                | Unknown | UnterminatedString => continue,
                _ => 5,
            };
            let r = ws.file_range(si, t.span.start as usize..t.span.end as usize);
            spans.push((r.start, r.end, ty));
        }
    }
    spans.sort();
    let mut data = Vec::new();
    let (mut line, mut col) = (0u32, 0u32);
    for (a, b, ty) in spans {
        let s = at.index.position(src, a);
        let e = at.index.position(src, b);
        if e.line != s.line || e.character <= s.character {
            continue;
        }
        let delta_line = s.line - line;
        let delta_start = if delta_line == 0 {
            s.character - col
        } else {
            s.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length: e.character - s.character,
            token_type: ty,
            token_modifiers_bitset: 0,
        });
        line = s.line;
        col = s.character;
    }
    Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    }))
}
