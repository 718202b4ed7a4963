//! `textDocument/signatureHelp`: the query or math call under the cursor.

use grammar::lexer::{lex, TokenKind};
use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::{split, Namespace, Workspace};
use molang::builtins::math::MathFn;
use molang::query_table;

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
            let q = query_table::lookup(&name)?;
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
