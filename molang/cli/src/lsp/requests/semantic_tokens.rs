//! `textDocument/semanticTokens/full`: the Molang inside the strings.

use grammar::lexer::{lex, TokenKind};
use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::{split, Namespace, Workspace};

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
