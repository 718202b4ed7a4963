//! Molang text → tokens → AST with spans. Never uses `molang`, Cranelift or files.
//!
//! - [`lexer`]: the logos lexer; names are folded to lower case, strings keep their case.
//! - [`parse()`]: the LALRPOP grammar (`src/molang.lalrpop`) driven by the lexer's tokens;
//!   it never fails, it returns a [`Parsed`] with the tree and its diagnostics.
//! - [`ast`]: a flat arena of expressions with spans.
//!
//! The grammar accepts more than the game does where the game's rules depend on context
//! (what may be assigned to, what `loop` takes, which operands an operator accepts); the
//! `molang` crate's checker enforces those. Version-dependent grouping (`?:` from version
//! 5, `&&`/`||`/comparisons from 6) is applied here, from [`ParseOptions::version`].
//!
//! ```
//! let parsed = grammar::parse("v.x = 1; return v.x * 2;", Default::default());
//! assert!(!parsed.has_errors());
//! assert_eq!(parsed.ast.root.unwrap().statements.len(), 2);
//! ```

// Nothing here needs `unsafe` (the logos and LALRPOP output included).
#![forbid(unsafe_code)]

pub mod ast;
pub mod lexer;
mod parse;
pub mod print;
pub mod span;

pub use ast::{Ast, BinaryOp, Block, Expr, ExprId, GroupKind, List, Name, UnaryOp};
pub use lexer::{Token, TokenKind};
pub use parse::{
    max_open_nesting, parse, parse_with, Engine, ParseDiagnostic, ParseErrorKind, ParseOptions,
    Parsed, LATEST_VERSION, MAX_ASCENT_NESTERS, MAX_BRACKET_NESTING, MAX_SOURCE_LEN,
};
pub use span::Span;
