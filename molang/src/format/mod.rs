//! The Molang formatter behind `molang fmt` and the language server's formatting.
//!
//! It re-spaces tokens and nothing else: the output has exactly the tokens of the input,
//! in order, with their text as written (names keep their case, numbers their spelling),
//! so it parses to the same tree at every Molang version (no rule of the game looks at
//! whitespace between tokens). [`format_expr`] checks that by lexing its own output before
//! returning it. Text that does not parse is left alone: the user sees its diagnostic.
//!
//! Two styles: [`Style::Pretty`] (spaces around binary operators, `, ` between arguments,
//! `{ a; b; }`, line breaks between top-level statements kept where the source had them)
//! and [`Style::Minify`] (a space only where two tokens would otherwise run together).
//!
//! [`format_file`] formats every Molang site of a loaded pack file and returns edits on
//! the JSON text: only the contents of the JSON string literals change, re-escaped; every
//! other byte of the file stays as it is. Script arrays are formatted entry by entry.

use std::ops::Range;

use grammar::lexer::{lex, Token, TokenKind};

use crate::pack::{Pack, SiteId};
use crate::pack_check::molang_version;

/// How to lay the tokens out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// Readable: spaces around binary operators, line breaks between statements kept.
    #[default]
    Pretty,
    /// Shortest: a space only where two tokens would otherwise merge.
    Minify,
}

/// Why a piece of Molang was left as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// The text does not parse (its diagnostic says why); formatting waits for a fix.
    Syntax,
    /// The formatted text would not lex back to the same tokens, or would pass the
    /// game's length limit. Never expected; reported rather than risked.
    Unstable,
}

/// Formats one Molang program parsed at `version`.
pub fn format_expr(src: &str, version: i16, style: Style) -> Result<String, Skip> {
    let parsed = grammar::parse(src, grammar::ParseOptions { version });
    if parsed.has_errors() {
        return Err(Skip::Syntax);
    }
    respace(src, &parsed.tokens, style)
}

/// Lays out `tokens` (the lexing of `src`) in `style`, then checks the result lexes back
/// to the same token texts.
fn respace(src: &str, tokens: &[Token], style: Style) -> Result<String, Skip> {
    let text = |t: &Token| &src[t.span.start as usize..t.span.end as usize];
    let mut out = String::with_capacity(src.len() + src.len() / 4);
    let mut depth = 0usize;
    // Whether each `-` / `!` is a prefix operator: it is when the token before it cannot
    // end an operand.
    let mut prev: Option<(Token, bool)> = None;
    for t in tokens {
        let unary = matches!(t.kind, TokenKind::Minus | TokenKind::Bang)
            && !prev.is_some_and(|(p, _)| p.kind.ends_operand());
        if let Some((p, p_unary)) = prev {
            let gap = &src[p.span.end as usize..t.span.start as usize];
            let sep = match style {
                Style::Pretty => pretty_gap(p.kind, p_unary, t.kind, depth, gap.contains('\n')),
                Style::Minify => "",
            };
            let sep = if sep.is_empty() && merges(&out, text(t)) {
                " "
            } else {
                sep
            };
            out.push_str(sep);
        }
        match t.kind {
            TokenKind::LParen | TokenKind::LBrace | TokenKind::LBracket => depth += 1,
            TokenKind::RParen | TokenKind::RBrace | TokenKind::RBracket => {
                depth = depth.saturating_sub(1)
            }
            _ => {}
        }
        out.push_str(text(t));
        prev = Some((*t, unary));
    }
    if out.len() > grammar::MAX_SOURCE_LEN && out.len() > src.len() {
        return Err(Skip::Unstable);
    }
    let again = lex(&out);
    let same = again.len() == tokens.len()
        && again.iter().zip(tokens).all(|(a, b)| {
            a.kind == b.kind && &out[a.span.start as usize..a.span.end as usize] == text(b)
        });
    if same {
        Ok(out)
    } else {
        Err(Skip::Unstable)
    }
}

/// Whether appending `next` right after `out` would lex differently from the two tokens
/// apart (`return` `x`, `-` `>`, `?` `?`, `1` `.5` ...).
fn merges(out: &str, next: &str) -> bool {
    let (Some(a), Some(b)) = (out.chars().last(), next.chars().next()) else {
        return false;
    };
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '\'';
    if word(a) && word(b) {
        return true;
    }
    // Two-character operators: `->`, `??`, `==`, `!=`, `<=`, `>=`, `&&`, `||`.
    matches!(
        (a, b),
        ('-', '>')
            | ('?', '?')
            | ('=', '=')
            | ('!', '=')
            | ('<', '=')
            | ('>', '=')
            | ('&', '&')
            | ('|', '|')
    )
}

fn is_infix(kind: TokenKind) -> bool {
    use TokenKind::*;
    matches!(
        kind,
        Plus | Minus
            | Star
            | Slash
            | Lt
            | Gt
            | LtEq
            | GtEq
            | EqEq
            | NotEq
            | AndAnd
            | OrOr
            | Coalesce
            | Assign
            | Question
            | Colon
    )
}

/// The pretty separator between token `p` and the next token `n`.
fn pretty_gap(
    p: TokenKind,
    p_unary: bool,
    n: TokenKind,
    depth: usize,
    had_newline: bool,
) -> &'static str {
    use TokenKind::*;
    if p == Semicolon {
        return match n {
            Semicolon | RParen | RBracket => "",
            _ if depth == 0 && had_newline => "\n",
            _ => " ",
        };
    }
    if p == Arrow || n == Arrow || p_unary {
        return "";
    }
    match (p, n) {
        (_, RParen | RBracket | Comma | Semicolon) => "",
        (LParen | LBracket, _) => "",
        (LBrace, RBrace) => "",
        (LBrace, _) | (_, RBrace) => " ",
        (Comma, _) => " ",
        // Calls and indexes: `math.cos(`, `loop(`, `array.x[`.
        (Path | Loop | ForEach, LParen) | (Path, LBracket) => "",
        (Return, _) => " ",
        _ if is_infix(p) || is_infix(n) => " ",
        _ => " ",
    }
}

/// One change to a JSON file: replace bytes `range` of [`crate::pack::PackFile::source`]
/// (the contents of one string literal) with `new_text` (already JSON-escaped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub new_text: String,
}

/// What formatting one file would do.
#[derive(Clone, Debug, Default)]
pub struct FileFormat {
    /// Index into [`Pack::files`].
    pub file: usize,
    /// Edits in file order, never overlapping.
    pub edits: Vec<Edit>,
    /// Sites formatted (changed or already formatted).
    pub sites: usize,
    /// Sites left as written, and why.
    pub skipped: Vec<(SiteId, Skip)>,
}

impl FileFormat {
    /// The file's text with the edits applied.
    pub fn apply(&self, source: &str) -> String {
        apply(source, &self.edits)
    }
}

/// `source` with `edits` (in order, not overlapping) applied.
pub fn apply(source: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for e in edits {
        out.push_str(&source[at..e.range.start]);
        out.push_str(&e.new_text);
        at = e.range.end;
    }
    out.push_str(&source[at..]);
    out
}

/// The Molang version a site is read at: its file's (as `molang check` does).
pub fn site_version(pack: &Pack, site: SiteId) -> i16 {
    molang_version(pack.files[pack.sites[site].file].min_engine_version)
}

/// Formats every Molang site of file `file` of `pack`.
pub fn format_file(pack: &Pack, file: usize, style: Style) -> FileFormat {
    let mut out = FileFormat {
        file,
        ..FileFormat::default()
    };
    for (si, site) in pack.sites.iter().enumerate() {
        if site.file != file {
            continue;
        }
        let version = site_version(pack, si);
        match format_site(&site.text, &site.pieces, version, style) {
            Ok(edits) => {
                out.sites += 1;
                out.edits.extend(edits);
            }
            Err(skip) => out.skipped.push((si, skip)),
        }
    }
    out.edits.sort_by_key(|e| e.range.start);
    out
}

/// Edits for one site: each piece (JSON string) formatted on its own, once the whole
/// joined program is known to parse.
fn format_site(
    text: &str,
    pieces: &[crate::pack::Piece],
    version: i16,
    style: Style,
) -> Result<Vec<Edit>, Skip> {
    let parsed = grammar::parse(text, grammar::ParseOptions { version });
    if parsed.has_errors() {
        return Err(Skip::Syntax);
    }
    let mut edits = Vec::new();
    for piece in pieces {
        let src = &text[piece.text.clone()];
        // A piece of a script array may be a fragment (vanilla splits `a ? {` / `};`):
        // re-spacing its tokens keeps the joined tokens, which parse (checked above).
        let formatted = respace(src, &lex(src), style)?;
        if formatted != src {
            edits.push(Edit {
                range: piece.json.clone(),
                new_text: json_escape(&formatted),
            });
        }
    }
    Ok(edits)
}

/// Formats every file of `pack` that has Molang; files with nothing to change have no
/// edits.
pub fn format_pack(pack: &Pack, style: Style) -> Vec<FileFormat> {
    let mut files: Vec<usize> = pack.sites.iter().map(|s| s.file).collect();
    files.dedup();
    files.sort_unstable();
    files.dedup();
    files
        .into_iter()
        .map(|f| format_file(pack, f, style))
        .collect()
}

/// The contents of a JSON string literal holding `s`.
pub fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
