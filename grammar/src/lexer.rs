//! The logos lexer. Identifiers and keywords are folded to lower case here, string
//! contents are not. Bad input becomes a token kind of its own, never a panic.

use crate::span::Span;
use logos::Logos;

/// Token kinds. Paths (`v.x`, `query.is_baby`, `math.cos`) are one token: the game does
/// not allow whitespace around the dots (`v.x . y` does not load).
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\x0C]+")]
pub enum TokenKind {
    #[regex(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]*)?[fF]?")]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]*)?[fF]?")]
    Number,
    #[regex(r"'([^'\\]|\\[^'\\]|\\\\|\\')*'")]
    String,
    #[regex(r"'([^'\\]|\\[^'\\]|\\\\|\\')*", priority = 0)]
    UnterminatedString,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")]
    Path,
    #[token("return", ignore(case))]
    Return,
    #[token("loop", ignore(case))]
    Loop,
    #[token("for_each", ignore(case))]
    ForEach,
    #[token("break", ignore(case))]
    Break,
    #[token("continue", ignore(case))]
    Continue,
    #[token("this", ignore(case))]
    This,
    #[token("true", ignore(case))]
    True,
    #[token("false", ignore(case))]
    False,
    #[token("??")]
    Coalesce,
    #[token("->")]
    Arrow,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<=")]
    LtEq,
    #[token(">=")]
    GtEq,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("=")]
    Assign,
    #[token("!")]
    Bang,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(";")]
    Semicolon,
    /// A character no Molang token starts with (`%`, `#`, `"`, a lone `.`, non-ASCII...).
    Unknown,
}

impl TokenKind {
    /// How the token is named in messages.
    pub fn describe(self) -> &'static str {
        use TokenKind::*;
        match self {
            Number => "a number",
            String => "a string",
            UnterminatedString => "an unterminated string",
            Path => "a name",
            Return => "`return`",
            Loop => "`loop`",
            ForEach => "`for_each`",
            Break => "`break`",
            Continue => "`continue`",
            This => "`this`",
            True => "`true`",
            False => "`false`",
            Coalesce => "`??`",
            Arrow => "`->`",
            EqEq => "`==`",
            NotEq => "`!=`",
            LtEq => "`<=`",
            GtEq => "`>=`",
            AndAnd => "`&&`",
            OrOr => "`||`",
            Lt => "`<`",
            Gt => "`>`",
            Assign => "`=`",
            Bang => "`!`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            Slash => "`/`",
            Question => "`?`",
            Colon => "`:`",
            LParen => "`(`",
            RParen => "`)`",
            LBrace => "`{`",
            RBrace => "`}`",
            LBracket => "`[`",
            RBracket => "`]`",
            Comma => "`,`",
            Semicolon => "`;`",
            Unknown => "an unknown character",
        }
    }

    /// Tokens after which the parser may hold a level open until something later closes it
    /// (prefix operators, `?`, brackets): what bounds the parser's stack depth.
    pub fn opens_nesting(self) -> bool {
        use TokenKind::*;
        matches!(self, Bang | Minus | Question | LParen | LBrace | LBracket)
    }

    /// Tokens that can begin an operand; two operands in a row mean a missing operator.
    pub fn starts_operand(self) -> bool {
        use TokenKind::*;
        self.is_atom() || matches!(self, Loop | ForEach | LParen | LBrace | LBracket)
    }

    /// Tokens that can end an operand.
    pub fn ends_operand(self) -> bool {
        use TokenKind::*;
        self.is_atom() || matches!(self, Break | Continue | RParen | RBrace | RBracket)
    }

    /// Tokens that are a whole operand on their own (they both start and end one).
    fn is_atom(self) -> bool {
        use TokenKind::*;
        matches!(self, Number | String | Path | This | True | False)
    }
}

/// One token with its byte span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// Splits `src` into tokens. Never fails: unknown characters and unterminated strings
/// become tokens of their own kind for the parser to report.
pub fn lex(src: &str) -> Vec<Token> {
    // Vanilla Molang averages about one token per four bytes; reserving that up front saves
    // the regrowth copies that otherwise dominate lexing short strings.
    let mut out = Vec::with_capacity(src.len() / 4 + 4);
    let mut lexer = TokenKind::lexer(src);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let kind = match result {
            Ok(kind) => kind,
            Err(()) => TokenKind::Unknown,
        };
        // logos reports one error per unmatched run; keep unknown tokens one character wide
        // so that the message can quote the character.
        if kind == TokenKind::Unknown {
            let text = &src[range.clone()];
            let first = text.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
            out.push(Token {
                kind,
                span: Span::new(range.start, range.start + first),
            });
            continue;
        }
        out.push(Token {
            kind,
            span: Span::new(range.start, range.end),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        lex(src).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn spec_vectors() {
        use TokenKind::*;
        assert_eq!(
            kinds("Math.Cos(Q.Anim_Time*38.17)"),
            vec![Path, LParen, Path, Star, Number, RParen]
        );
        assert_eq!(kinds("v.a->v.b"), vec![Path, Arrow, Path]);
        assert_eq!(kinds("1-->0"), vec![Number, Minus, Arrow, Number]);
        assert_eq!(kinds("a??b"), vec![Path, Coalesce, Path]);
        assert_eq!(kinds("x<=-1"), vec![Path, LtEq, Minus, Number]);
        assert_eq!(kinds("'Hello World'"), vec![String]);
        assert_eq!(kinds("0.5f+.5"), vec![Number, Plus, Number]);
        assert_eq!(kinds("1 5. 1e3 1E+2 2.5e-3 1.0F"), vec![Number; 6]);
        assert_eq!(
            kinds("RETURN Loop for_each BREAK continue This TRUE false"),
            vec![Return, Loop, ForEach, Break, Continue, This, True, False]
        );
        assert_eq!(kinds("returnx"), vec![Path]);
        assert_eq!(kinds("'abc"), vec![UnterminatedString]);
        assert_eq!(kinds("1 % 2"), vec![Number, Unknown, Number]);
        assert_eq!(kinds("ż"), vec![Unknown]);
        assert_eq!(kinds(". 1"), vec![Unknown, Number]);
    }
}
