//! Entry point: text → tokens → AST, never failing. Problems come back as
//! [`ParseDiagnostic`]s next to whatever tree could be built.

use smallvec::SmallVec;

use crate::ast::{Arenas, Ast, BinaryOp, Block, Expr, ExprId, GroupKind, Name, UnaryOp};
use crate::lexer::{lex, Token, TokenKind};
use crate::span::Span;

// Three parsers generated from the one grammar (see build.rs).
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, dead_code, unused_imports)]
    ascent
);
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, dead_code, unused_imports)]
    plain
);
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, dead_code, unused_imports)]
    table
);

/// Programs that never hold more than this many nesting levels open at once (brackets, and
/// within each bracket the prefix operators and `?`s not yet closed, see
/// [`max_open_nesting`]) go to the recursive-ascent parser, whose LR stack is the call stack:
/// at most about 1.6 KB per level in a release build, so this bound keeps it far inside any
/// thread's stack. Anything deeper goes to the table-driven parser, whose stack is on the
/// heap. Nearly every vanilla string holds fewer than ten open.
pub const MAX_ASCENT_NESTERS: usize = 64;
// `parse_with` skips the nesting scan for programs with at most MAX_ASCENT_NESTERS tokens.
const _: () = assert!(MAX_ASCENT_NESTERS < MAX_BRACKET_NESTING);

/// Which generated parser reads a program (both come from the same grammar and actions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Recursive ascent when the program is shallow enough ([`MAX_ASCENT_NESTERS`]), else
    /// table-driven: what [`parse`] does. A program the fast recursive-ascent parser rejects
    /// is read again by one without its inlining, so that errors are reported from the
    /// grammar's own states.
    Auto,
    /// Always table-driven: the reference the tests compare [`Engine::Auto`] with.
    TableDriven,
}

/// Deepest bracket nesting the parser will look at. The game refuses anything past 256
/// node levels anyway; stopping here keeps hostile input (100,000 nested parentheses) cheap.
pub const MAX_BRACKET_NESTING: usize = 256;

/// Longest source text the parser reads, in bytes. Not a game rule (the game's own limit is
/// not documented): vanilla expressions are at most a few KB, and refusing longer text up
/// front keeps hostile input (a 10 MB expression) to a clear diagnostic in microseconds.
pub const MAX_SOURCE_LEN: usize = 4 * 1024 * 1024;

/// Molang versions as the game numbers them (see the conformance README): -1 .. 13.
/// Parsing rules that changed: right-grouping `?:` from 5, the new `&&`/`||` and comparison
/// precedence from 6.
pub const LATEST_VERSION: i16 = 13;

#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// Raw Molang version (-1..=13); values outside clamp to the nearest end.
    pub version: i16,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            version: LATEST_VERSION,
        }
    }
}

/// What went wrong while reading the text.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// No tokens at all.
    Empty,
    UnknownCharacter(char),
    UnterminatedString,
    /// An exponent with no digits (`1e`): the game logs it and reads the number as 0.
    ExponentWithoutDigits,
    UnexpectedToken {
        found: TokenKind,
        expected: Vec<String>,
    },
    UnexpectedEnd {
        expected: Vec<String>,
    },
    /// Two operands in a row, e.g. `1 + (2 3)` or `-62.5(2)`.
    MissingOperator,
    /// More than [`MAX_BRACKET_NESTING`] nested brackets.
    TooDeep,
    /// More than [`MAX_SOURCE_LEN`] bytes; the span covers what is past the limit.
    TooLong,
    /// Before version 5, an else-if chain of more than [`MAX_BRACKET_NESTING`] conditionals
    /// (regrouped to the left, it nests past the game's limit).
    ConditionalChainTooDeep,
    /// Before version 5 `a ? b ? c : d : e` does not load (the conditional groups left).
    NestedConditionalInThen,
}

impl ParseErrorKind {
    /// Warnings leave the expression loadable.
    pub fn is_error(&self) -> bool {
        !matches!(self, ParseErrorKind::ExponentWithoutDigits)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParseDiagnostic {
    pub kind: ParseErrorKind,
    pub span: Span,
}

/// The result of parsing: always a (possibly empty) tree plus diagnostics.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub ast: Ast,
    pub diagnostics: Vec<ParseDiagnostic>,
    pub tokens: Vec<Token>,
}

impl Parsed {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.kind.is_error())
    }
}

/// Parses one Molang program (a simple expression or a statement list).
pub fn parse(src: &str, options: ParseOptions) -> Parsed {
    parse_with(src, options, Engine::Auto)
}

/// [`parse`] with a chosen parser engine: for tests that compare the two.
pub fn parse_with(src: &str, options: ParseOptions, engine: Engine) -> Parsed {
    let version = options.version.clamp(-1, LATEST_VERSION);
    if src.len() > MAX_SOURCE_LEN {
        let mut at = MAX_SOURCE_LEN;
        while !src.is_char_boundary(at) {
            at -= 1;
        }
        return Parsed {
            ast: Ast::default(),
            diagnostics: vec![ParseDiagnostic {
                kind: ParseErrorKind::TooLong,
                span: Span::new(at, src.len()),
            }],
            tokens: Vec::new(),
        };
    }
    let tokens = lex(src);
    let mut diagnostics = Vec::new();

    // No program has more list items (statements and arguments) than separators and
    // brackets, plus the top-level statement: the list arena is allocated once.
    let mut list_items = 1;
    for t in &tokens {
        match t.kind {
            TokenKind::Comma
            | TokenKind::Semicolon
            | TokenKind::LParen
            | TokenKind::LBrace
            | TokenKind::LBracket => list_items += 1,
            TokenKind::Unknown => {
                let c = src[t.span.range()].chars().next().unwrap_or('?');
                diagnostics.push(ParseDiagnostic {
                    kind: ParseErrorKind::UnknownCharacter(c),
                    span: t.span,
                });
            }
            TokenKind::UnterminatedString => diagnostics.push(ParseDiagnostic {
                kind: ParseErrorKind::UnterminatedString,
                span: t.span,
            }),
            _ => {}
        }
    }
    if tokens.is_empty() {
        diagnostics.push(ParseDiagnostic {
            kind: ParseErrorKind::Empty,
            span: Span::new(0, src.len()),
        });
    }
    // Fewer tokens than the limit cannot hold more levels open, nor nest past
    // MAX_BRACKET_NESTING: nearly every real program skips the scan.
    let nesting = if tokens.len() <= MAX_ASCENT_NESTERS {
        Nesting {
            too_deep: None,
            max_open: tokens.len(),
        }
    } else {
        scan_nesting(&tokens)
    };
    if let Some(span) = nesting.too_deep {
        diagnostics.push(ParseDiagnostic {
            kind: ParseErrorKind::TooDeep,
            span,
        });
    }
    if !diagnostics.is_empty() {
        return Parsed {
            ast: Ast::default(),
            diagnostics,
            tokens,
        };
    }

    let new_builder = || Builder {
        src,
        version,
        // A node per token is an upper bound for nearly every program (groups and calls fold
        // several tokens into one node); reserving it avoids regrowing the arena while parsing.
        inner: Inner {
            arenas: Arenas {
                nodes: Vec::with_capacity(tokens.len()),
                text: src.to_ascii_lowercase(),
                lists: Vec::with_capacity(list_items),
            },
            diagnostics: Vec::new(),
            stack: SmallVec::new(),
        },
    };
    let stream = || {
        tokens
            .iter()
            .map(|t| Ok::<_, ()>((t.span.start, t.kind, t.span.end)))
    };
    let ascent = match engine {
        Engine::Auto => nesting.max_open <= MAX_ASCENT_NESTERS,
        Engine::TableDriven => false,
    };
    let mut builder = new_builder();
    let mut result = if ascent {
        ascent::ProgramParser::new().parse(&mut builder, stream())
    } else {
        table::ProgramParser::new().parse(&mut builder, stream())
    };
    if ascent && result.is_err() {
        // The fast parser inlines some nonterminals (see build.rs), which changes where it
        // notices an error and what it expects there: read the program again with the
        // grammar's own states, so the diagnostic (and the partial tree) is the same as ever.
        builder = new_builder();
        result = plain::ProgramParser::new().parse(&mut builder, stream());
    }
    let inner = builder.inner;
    diagnostics.extend(inner.diagnostics);
    let root = match result {
        Ok(block) => Some(block),
        Err(err) => {
            diagnostics.push(convert_error(err, &tokens, src.len()));
            None
        }
    };
    Parsed {
        ast: Ast::from_parts(inner.arenas, root),
        diagnostics,
        tokens,
    }
}

/// What one pass over the tokens says about nesting.
struct Nesting {
    /// The first bracket past [`MAX_BRACKET_NESTING`].
    too_deep: Option<Span>,
    /// [`max_open_nesting`].
    max_open: usize,
}

/// The most nesting levels `tokens` hold open at once as the parser reads them, counted up
/// to one past [`MAX_ASCENT_NESTERS`] (what decides the engine): each unclosed bracket, and in
/// each bracket the prefix operators (`!`, a `-` that does not follow an operand) and `?`s not
/// yet closed. This bounds the parser's stack depth: every other rule of the grammar is
/// left-recursive or of fixed length, so it adds at most a constant per bracket. It may
/// overestimate (a `?` counts until the statement, argument, `??` or `=` that ends its
/// conditional; a prefix until the next operator), never underestimate, which is what makes
/// it safe for choosing the recursive-ascent parser.
pub fn max_open_nesting(tokens: &[Token]) -> usize {
    scan_nesting(tokens).max_open
}

/// One pass for [`MAX_BRACKET_NESTING`] and [`max_open_nesting`].
fn scan_nesting(tokens: &[Token]) -> Nesting {
    use TokenKind::*;
    const CAP: usize = MAX_ASCENT_NESTERS + 1;
    let mut depth = 0usize;
    let mut too_deep = None;
    // Once the count reaches CAP the engine is decided; only brackets are counted after that.
    let mut max_open = 0usize;
    // For each enclosing bracket (innermost last, while fewer than CAP are open, which is all
    // that can matter before the count reaches CAP): the levels held open outside it, and its
    // own open `?`s and prefixes.
    let mut saved = [(0u32, 0u32, 0u32); CAP];
    let mut outer = 0usize;
    let (mut questions, mut prefixes) = (0usize, 0usize);
    let mut prev: Option<TokenKind> = None;
    for t in tokens {
        match t.kind {
            LParen | LBrace | LBracket => {
                if depth == MAX_BRACKET_NESTING {
                    // Not parsed at all; nothing past here matters.
                    too_deep = Some(t.span);
                    break;
                }
                if depth < CAP {
                    saved[depth] = (outer as u32, questions as u32, prefixes as u32);
                }
                depth += 1;
                outer += 1 + questions + prefixes;
                (questions, prefixes) = (0, 0);
            }
            // A stray closing bracket is a syntax error where the parser meets it.
            RParen | RBrace | RBracket if depth > 0 => {
                depth -= 1;
                // The bracket was an operand: the prefixes before it stay open.
                if depth < CAP {
                    let (o, q, p) = saved[depth];
                    (outer, questions, prefixes) = (o as usize, q as usize, p as usize);
                }
            }
            _ if max_open >= CAP => {}
            Bang => prefixes += 1,
            Minus if !prev.is_some_and(TokenKind::ends_operand) => prefixes += 1,
            // The condition before `?` is complete; the conditional stays open.
            Question => {
                questions += 1;
                prefixes = 0;
            }
            // These end every conditional and operand of the statement or argument.
            Semicolon | Comma | Coalesce | Assign => (questions, prefixes) = (0, 0),
            // A binary operator (or `:`) ends the unary operands before it.
            OrOr | AndAnd | EqEq | NotEq | Lt | LtEq | Gt | GtEq | Plus | Minus | Star | Slash
            | Colon => prefixes = 0,
            _ => {}
        }
        max_open = max_open.max((outer + questions + prefixes).min(CAP));
        prev = Some(t.kind);
    }
    Nesting { too_deep, max_open }
}

fn convert_error(
    err: lalrpop_util::ParseError<u32, TokenKind, ()>,
    tokens: &[Token],
    len: usize,
) -> ParseDiagnostic {
    use lalrpop_util::ParseError::*;
    let clean = |expected: Vec<String>| {
        expected
            .into_iter()
            .map(|e| e.trim_matches('"').to_string())
            .collect()
    };
    match err {
        UnrecognizedToken {
            token: (l, found, r),
            expected,
        } => {
            let idx = tokens.iter().position(|t| t.span.start == l);
            let prev = idx.and_then(|i| i.checked_sub(1)).map(|i| tokens[i].kind);
            if found.starts_operand() && prev.is_some_and(|p| p.ends_operand()) {
                ParseDiagnostic {
                    kind: ParseErrorKind::MissingOperator,
                    span: sp(l, r),
                }
            } else {
                ParseDiagnostic {
                    kind: ParseErrorKind::UnexpectedToken {
                        found,
                        expected: clean(expected),
                    },
                    span: sp(l, r),
                }
            }
        }
        UnrecognizedEof { expected, .. } => ParseDiagnostic {
            kind: ParseErrorKind::UnexpectedEnd {
                expected: clean(expected),
            },
            span: Span::new(len, len),
        },
        ExtraToken {
            token: (l, found, r),
        } => ParseDiagnostic {
            kind: ParseErrorKind::UnexpectedToken {
                found,
                expected: Vec::new(),
            },
            span: sp(l, r),
        },
        InvalidToken { location } => ParseDiagnostic {
            kind: ParseErrorKind::UnknownCharacter('?'),
            span: sp(location, location + 1),
        },
        User { .. } => ParseDiagnostic {
            kind: ParseErrorKind::Empty,
            span: Span::new(0, len),
        },
    }
}

#[derive(Default)]
struct Inner {
    arenas: Arenas,
    diagnostics: Vec<ParseDiagnostic>,
    /// One stack for every operator chain and every list being read. A chain's entries are
    /// its operands with the operator before each (the first operand's is unused), the
    /// shunting-yard stack; a list's are its items so far (the operator unused). A chain or
    /// list nested in an operand or an item (inside brackets or call arguments) starts and
    /// ends above the one around it, so one stack serves them all without allocating per
    /// chain or list; a finished list moves to the tree's list arena. Inline for the short
    /// programs that are nearly all real Molang; a long script spills it to the heap once.
    stack: SmallVec<[(BinaryOp, ExprId); 32]>,
}

/// A span from the parser's locations.
pub(crate) fn sp(l: u32, r: u32) -> Span {
    Span { start: l, end: r }
}

/// An operator chain being read. Most operands stand alone: a chain goes on the shared
/// stack only when its first operator arrives.
#[derive(Clone, Copy)]
pub enum Chain {
    One(ExprId),
    /// The height of the shared stack where the chain begins.
    Many {
        base: u32,
    },
}

/// An argument list being read: the height of the shared stack where it begins.
#[derive(Clone, Copy)]
pub struct Pending {
    base: u32,
}

/// The `;`-terminated statements of a list read so far (on the shared stack from `base`).
#[derive(Clone, Copy)]
pub struct SeqItems {
    base: u32,
    semicolons: u32,
    leading_semicolon: bool,
    /// From the first token of the list to the last `;` so far.
    span: Span,
}

/// Builds the arena from the grammar's actions (the generated parser's one `&mut` parameter).
pub struct Builder<'s> {
    src: &'s str,
    version: i16,
    inner: Inner,
}

impl Builder<'_> {
    fn push(&mut self, e: Expr, span: Span) -> ExprId {
        let nodes = &mut self.inner.arenas.nodes;
        let id = ExprId(nodes.len() as u32);
        nodes.push((e, span));
        id
    }
    fn span(&self, id: ExprId) -> Span {
        self.inner.arenas.nodes[id.index()].1
    }
    fn get(&self, id: ExprId) -> Expr {
        self.inner.arenas.nodes[id.index()].0
    }

    /// An empty argument list, at the top of the shared stack.
    pub(crate) fn list_start(&mut self) -> Pending {
        Pending {
            base: self.inner.stack.len() as u32,
        }
    }
    /// An argument list and its first argument.
    pub(crate) fn list_first(&mut self, item: ExprId) -> Pending {
        let list = self.list_start();
        self.list_push(list, item)
    }
    pub(crate) fn list_push(&mut self, list: Pending, item: ExprId) -> Pending {
        self.inner.stack.push((BinaryOp::Or, item));
        list
    }
    /// Moves the list from `base` up off the shared stack into the tree.
    fn finish_list(inner: &mut Inner, base: u32) -> crate::ast::List {
        let Inner { arenas, stack, .. } = inner;
        let list = arenas.list(stack[base as usize..].iter().map(|&(_, e)| e));
        stack.truncate(base as usize);
        list
    }

    pub(crate) fn items(
        &mut self,
        items: Option<SeqItems>,
        statement: Option<ExprId>,
        semicolon: Span,
    ) -> SeqItems {
        let inner = &mut self.inner;
        let mut items = items.unwrap_or_else(|| SeqItems {
            base: inner.stack.len() as u32,
            semicolons: 0,
            leading_semicolon: statement.is_none(),
            span: statement.map_or(semicolon, |s| inner.arenas.nodes[s.index()].1),
        });
        items.semicolons += 1;
        if let Some(s) = statement {
            inner.stack.push((BinaryOp::Or, s));
        }
        items.span = items.span.to(semicolon);
        items
    }

    /// A statement list; its span covers its tokens (an empty list is placed by
    /// [`Builder::group`]).
    pub(crate) fn block(&mut self, items: Option<SeqItems>, last: Option<ExprId>) -> Block {
        let inner = &mut self.inner;
        let last_span = last.map(|l| inner.arenas.nodes[l.index()].1);
        let Some(items) = items else {
            return Block {
                statements: inner.arenas.list(last),
                semicolons: 0,
                trailing_semicolon: false,
                leading_semicolon: false,
                span: last_span.unwrap_or_default(),
            };
        };
        let SeqItems {
            base,
            semicolons,
            leading_semicolon,
            span,
        } = items;
        if let Some(last) = last {
            inner.stack.push((BinaryOp::Or, last));
        }
        let statements = Self::finish_list(inner, base);
        Block {
            statements,
            semicolons,
            trailing_semicolon: last.is_none(),
            leading_semicolon,
            span: last_span.map_or(span, |l| span.to(l)),
        }
    }

    pub(crate) fn ret(&mut self, value: Option<ExprId>, l: u32, r: u32) -> ExprId {
        self.push(Expr::Return { value }, sp(l, r))
    }

    pub(crate) fn assign(&mut self, target: ExprId, value: ExprId, l: u32, r: u32) -> ExprId {
        self.push(Expr::Assign { target, value }, sp(l, r))
    }

    pub(crate) fn coalesce(&mut self, lhs: ExprId, rhs: ExprId, l: u32, r: u32) -> ExprId {
        self.push(Expr::Coalesce { lhs, rhs }, sp(l, r))
    }

    pub(crate) fn cond(
        &mut self,
        c: ExprId,
        t: ExprId,
        e: Option<ExprId>,
        l: u32,
        r: u32,
    ) -> ExprId {
        let plain = |b: &mut Self, otherwise| {
            b.push(
                Expr::Conditional {
                    cond: c,
                    then: t,
                    otherwise,
                },
                sp(l, r),
            )
        };
        if self.version >= 5 {
            return plain(self, e);
        }
        // Before version 5 the conditional groups to the left.
        if matches!(self.get(t), Expr::Conditional { .. }) {
            let span = self.span(t);
            self.inner.diagnostics.push(ParseDiagnostic {
                kind: ParseErrorKind::NestedConditionalInThen,
                span,
            });
        }
        let Some(e) = e else {
            return plain(self, None);
        };
        if !matches!(self.get(e), Expr::Conditional { .. }) {
            return plain(self, Some(e));
        }
        // `c ? t : (x ? y : z)` parsed right-grouped: rotate so that `c ? t : x` becomes the
        // condition of the leftmost conditional in the else chain.
        //
        // Each rotation walks the chain, so an else-if chain of n conditionals costs n^2/2
        // steps. A chain longer than the nesting limit nests past it once regrouped, which
        // the game refuses, so stop there: 100,000 `?:` stay linear.
        let mut node = e;
        let mut steps = 0;
        loop {
            steps += 1;
            if steps > MAX_BRACKET_NESTING {
                let inner = &mut self.inner;
                if !inner
                    .diagnostics
                    .iter()
                    .any(|d| d.kind == ParseErrorKind::ConditionalChainTooDeep)
                {
                    let d = ParseDiagnostic {
                        kind: ParseErrorKind::ConditionalChainTooDeep,
                        span: sp(l, r),
                    };
                    inner.diagnostics.push(d);
                }
                return self.push(
                    Expr::Conditional {
                        cond: c,
                        then: t,
                        otherwise: Some(e),
                    },
                    sp(l, r),
                );
            }
            let Expr::Conditional { cond, .. } = self.get(node) else {
                unreachable!()
            };
            if matches!(self.get(cond), Expr::Conditional { .. }) {
                node = cond;
            } else {
                let new_cond = self.push(
                    Expr::Conditional {
                        cond: c,
                        then: t,
                        otherwise: Some(cond),
                    },
                    sp(l, self.span(cond).end),
                );
                let inner = &mut self.inner;
                if let Expr::Conditional { cond: slot, .. } =
                    &mut inner.arenas.nodes[node.index()].0
                {
                    *slot = new_cond;
                }
                break;
            }
        }
        // Widen the spans along the rotated chain.
        let mut node = e;
        loop {
            let inner = &mut self.inner;
            let s = inner.arenas.nodes[node.index()].1;
            inner.arenas.nodes[node.index()].1 = sp(l, s.end);
            let Expr::Conditional { cond, .. } = inner.arenas.nodes[node.index()].0 else {
                break;
            };
            if cond == node || !matches!(self.get(cond), Expr::Conditional { .. }) {
                break;
            }
            node = cond;
        }
        e
    }

    /// How tightly an operator binds (higher first); equal levels group to the left.
    fn precedence(version: i16, op: BinaryOp) -> u8 {
        use BinaryOp::*;
        match op {
            // The game groups division in a pass before multiplication:
            // `a * b / c * d` is `(a * (b / c)) * d`.
            Div => 12,
            Mul => 11,
            Add | Sub => 10,
            _ if version >= 6 => match op {
                Lt | Le | Gt | Ge => 4,
                Eq | Ne => 3,
                And => 2,
                _ => 1,
            },
            // Legacy: every operator is its own level, in the engine's operation order.
            Lt => 8,
            Le => 7,
            Ge => 6,
            Gt => 5,
            Eq => 4,
            Ne => 3,
            Or => 2,
            _ => 1,
        }
    }

    pub(crate) fn chain_start(&mut self, first: ExprId) -> Chain {
        Chain::One(first)
    }

    pub(crate) fn chain_push(&mut self, chain: Chain, op: BinaryOp, operand: ExprId) -> Chain {
        let version = self.version;
        let level = Self::precedence(version, op);
        let inner = &mut self.inner;
        let base = match chain {
            Chain::One(first) => {
                let base = inner.stack.len() as u32;
                inner.stack.push((BinaryOp::Or, first));
                base
            }
            Chain::Many { base } => {
                while inner.stack.len() > base as usize + 1
                    && Self::precedence(version, inner.stack.last().unwrap().0) >= level
                {
                    reduce_top(inner);
                }
                base
            }
        };
        inner.stack.push((op, operand));
        Chain::Many { base }
    }

    pub(crate) fn chain_end(&mut self, chain: Chain) -> ExprId {
        let base = match chain {
            Chain::One(only) => return only,
            Chain::Many { base } => base as usize,
        };
        let inner = &mut self.inner;
        while inner.stack.len() > base + 1 {
            reduce_top(inner);
        }
        debug_assert_eq!(inner.stack.len(), base + 1);
        inner.stack.pop().unwrap().1
    }

    pub(crate) fn neg(&mut self, e: ExprId, l: u32, r: u32) -> ExprId {
        self.push(
            Expr::Unary {
                op: UnaryOp::Neg,
                operand: e,
            },
            sp(l, r),
        )
    }
    pub(crate) fn not(&mut self, e: ExprId, l: u32, r: u32) -> ExprId {
        self.push(
            Expr::Unary {
                op: UnaryOp::Not,
                operand: e,
            },
            sp(l, r),
        )
    }
    pub(crate) fn arrow(&mut self, lhs: ExprId, rhs: ExprId, l: u32, r: u32) -> ExprId {
        self.push(Expr::Arrow { lhs, rhs }, sp(l, r))
    }
    pub(crate) fn leaf(&mut self, e: Expr, l: u32, r: u32) -> ExprId {
        self.push(e, sp(l, r))
    }
    pub(crate) fn group(&mut self, kind: GroupKind, mut body: Block, l: u32, r: u32) -> ExprId {
        // An empty list sits at its closing bracket.
        if body.statements.is_empty() && body.semicolons == 0 {
            body.span = sp(r - 1, r - 1);
        }
        self.push(Expr::Group { kind, body }, sp(l, r))
    }
    pub(crate) fn looping(&mut self, for_each: bool, args: Pending, l: u32, r: u32) -> ExprId {
        let args = Self::finish_list(&mut self.inner, args.base);
        let e = if for_each {
            Expr::ForEach { args }
        } else {
            Expr::Loop { args }
        };
        self.push(e, sp(l, r))
    }
}

/// Joins the top two operands of the chain stack with the operator between them.
fn reduce_top(inner: &mut Inner) {
    let (op, rhs) = inner.stack.pop().unwrap();
    let (_, lhs) = *inner.stack.last().unwrap();
    let nodes = &mut inner.arenas.nodes;
    let span = nodes[lhs.index()].1.to(nodes[rhs.index()].1);
    let id = ExprId(nodes.len() as u32);
    nodes.push((Expr::Binary { op, lhs, rhs }, span));
    inner.stack.last_mut().unwrap().1 = id;
}

/// Number text as the game reads it: optional `f` suffix ignored; an exponent with no
/// digits reads as 0 (with a logged error) unless a sign follows the `e`.
pub(crate) fn number_value(text: &str) -> (f32, bool) {
    match short_decimal(text) {
        Some(value) => (value, false),
        None => any_number_value(text),
    }
}

/// [`number_value`] for every number token.
fn any_number_value(text: &str) -> (f32, bool) {
    let t = text.trim_end_matches(['f', 'F']);
    if let Some(pos) = t.find(['e', 'E']) {
        let (mantissa, exp) = (&t[..pos], &t[pos + 1..]);
        let digits = exp.trim_start_matches(['+', '-']);
        if digits.is_empty() {
            if exp.is_empty() {
                return (0.0, true);
            }
            return (parse_mantissa(mantissa), false);
        }
    }
    let t = t.strip_suffix('.').unwrap_or(t);
    (
        t.parse::<f32>().unwrap_or_else(|_| parse_mantissa(t)),
        false,
    )
}

/// The value of a number token with no exponent whose digits, read as one integer, are exact
/// in an `f32` (below 2^24) with at most 10 of them after the point: nearly every number in
/// real Molang. Then the integer and the power of ten are both exact, so one division rounds
/// once, to the same value `str::parse` gives, without its general algorithm.
fn short_decimal(text: &str) -> Option<f32> {
    // Powers of ten exact in an f32 (5^10 < 2^24).
    const POW10: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
    let bytes = text.as_bytes();
    let bytes = match bytes.last() {
        Some(b'f' | b'F') => &bytes[..bytes.len() - 1],
        _ => bytes,
    };
    let mut mantissa: u32 = 0;
    let mut after_point: Option<usize> = None;
    for &b in bytes {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u32::from(b - b'0');
                if mantissa >= 1 << 24 {
                    return None;
                }
                if let Some(n) = &mut after_point {
                    *n += 1;
                }
            }
            b'.' if after_point.is_none() => after_point = Some(0),
            _ => return None,
        }
    }
    let value = mantissa as f32;
    match after_point.unwrap_or(0) {
        0 => Some(value),
        n if n < POW10.len() => Some(value / POW10[n]),
        _ => None,
    }
}

fn parse_mantissa(m: &str) -> f32 {
    let m = m.trim_end_matches('.');
    if m.is_empty() {
        return 0.0;
    }
    m.parse::<f32>().unwrap_or(0.0)
}

impl Builder<'_> {
    pub(crate) fn number(&mut self, l: u32, r: u32) -> ExprId {
        let (value, exponent_warning) = number_value(&self.src[l as usize..r as usize]);
        if exponent_warning {
            self.inner.diagnostics.push(ParseDiagnostic {
                kind: ParseErrorKind::ExponentWithoutDigits,
                span: sp(l, r),
            });
        }
        self.push(Expr::Number(value), sp(l, r))
    }
    pub(crate) fn string(&mut self, l: u32, r: u32) -> ExprId {
        // The tree's text starts as the whole source folded to lower case (one pass is
        // cheaper than one per name); a string literal gets its own bytes back.
        let inside = sp(l + 1, r - 1);
        let text = &mut self.inner.arenas.text;
        text.replace_range(inside.range(), &self.src[inside.range()]);
        self.push(Expr::String(Name::at(inside)), sp(l, r))
    }
    pub(crate) fn path(&mut self, l: u32, r: u32) -> ExprId {
        self.push(Expr::Path(Name::at(sp(l, r))), sp(l, r))
    }
    pub(crate) fn call(&mut self, l: u32, pr: u32, args: Pending, r: u32) -> ExprId {
        let callee = Name::at(sp(l, pr));
        let args = Self::finish_list(&mut self.inner, args.base);
        self.push(
            Expr::Call {
                callee,
                callee_span: sp(l, pr),
                args,
            },
            sp(l, r),
        )
    }
    pub(crate) fn index(&mut self, l: u32, pr: u32, index: ExprId, r: u32) -> ExprId {
        let array = Name::at(sp(l, pr));
        self.push(
            Expr::Index {
                array,
                array_span: sp(l, pr),
                index,
            },
            sp(l, r),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str, version: i16) -> Vec<ParseErrorKind> {
        parse(src, ParseOptions { version })
            .diagnostics
            .into_iter()
            .map(|d| d.kind)
            .collect()
    }

    #[test]
    fn legacy_conditional_chains_group_left() {
        // `a ? b : c ? d : e` before version 5 is `(a ? b : c) ? d : e`.
        let parsed = parse("1 ? 2 : 3 ? 4 : 5", ParseOptions { version: 4 });
        let root = parsed.ast.list(parsed.ast.root.unwrap().statements)[0];
        let Expr::Conditional { cond, .. } = parsed.ast.expr(root) else {
            panic!()
        };
        assert!(matches!(parsed.ast.expr(*cond), Expr::Conditional { .. }));
        assert_eq!(parsed.ast.span(*cond), Span::new(0, 9));
        let parsed = parse("1 ? 2 : 3 ? 4 : 5", ParseOptions::default());
        let root = parsed.ast.list(parsed.ast.root.unwrap().statements)[0];
        let Expr::Conditional {
            otherwise: Some(o), ..
        } = parsed.ast.expr(root)
        else {
            panic!()
        };
        assert!(matches!(parsed.ast.expr(*o), Expr::Conditional { .. }));
    }

    #[test]
    fn names_strings_and_lists_come_from_the_tree_arenas() {
        // Nested lists finish inside the list around them; names are folded, strings not.
        let src = "Math.Max(V.A, q.f('MiXed', {T.x = 1; t.y;}), 3); Array.B[V.I]; loop(2, {})";
        let parsed = parse(src, ParseOptions::default());
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let ast = &parsed.ast;
        let root = ast.list(ast.root.unwrap().statements);
        assert_eq!(root.len(), 3);
        let Expr::Call { callee, args, .. } = ast.expr(root[0]) else {
            panic!("{:?}", ast.expr(root[0]))
        };
        assert_eq!(ast.name(*callee), "math.max");
        let args = ast.list(*args);
        assert_eq!(args.len(), 3);
        assert!(matches!(ast.expr(args[0]), Expr::Path(p) if ast.name(*p) == "v.a"));
        assert!(matches!(ast.expr(args[2]), Expr::Number(n) if *n == 3.0));
        let Expr::Call { callee, args, .. } = ast.expr(args[1]) else {
            panic!()
        };
        assert_eq!(ast.name(*callee), "q.f");
        let inner = ast.list(*args);
        assert!(matches!(ast.expr(inner[0]), Expr::String(s) if ast.name(*s) == "MiXed"));
        let Expr::Group { body, .. } = ast.expr(inner[1]) else {
            panic!()
        };
        let block = ast.list(body.statements);
        assert_eq!(block.len(), 2);
        assert_eq!(crate::print::print_expr(ast, block[0]), "t.x = 1");
        let Expr::Index { array, .. } = ast.expr(root[1]) else {
            panic!()
        };
        assert_eq!(ast.name(*array), "array.b");
        let Expr::Loop { args } = ast.expr(root[2]) else {
            panic!()
        };
        let Expr::Group { body, .. } = ast.expr(ast.list(*args)[1]) else {
            panic!()
        };
        assert!(body.statements.is_empty() && ast.list(body.statements).is_empty());
        // A lone operand, a chain, and a call with no arguments.
        let parsed = parse("q.f()", ParseOptions::default());
        let ast = &parsed.ast;
        let Expr::Call { args, .. } = ast.expr(ast.list(ast.root.unwrap().statements)[0]) else {
            panic!()
        };
        assert!(args.is_empty());
    }

    #[test]
    fn long_legacy_chain_stops_at_the_limit() {
        let chain = |n: usize| format!("{}0", "v.a ? 1 : ".repeat(n));
        assert!(kinds(&chain(200), 4).is_empty());
        assert_eq!(
            kinds(&chain(300), 4),
            vec![ParseErrorKind::ConditionalChainTooDeep]
        );
        assert!(
            kinds(&chain(300), LATEST_VERSION).is_empty(),
            "right-grouped chains are the checker's business"
        );
    }

    #[test]
    fn short_decimals_read_as_the_standard_library_reads_them() {
        // Every shape the fast path takes, against `str::parse` (correctly rounded), bit for
        // bit: all numbers of up to 5 characters, and random ones up to 2^24 and 10 decimals.
        let mut texts = Vec::new();
        let alphabet = ["0", "1", "5", "9", "."];
        let mut shorter = vec![String::new()];
        for _ in 0..5 {
            let mut next = Vec::new();
            for s in &shorter {
                for c in alphabet {
                    next.push(format!("{s}{c}"));
                }
            }
            texts.extend(next.iter().cloned());
            shorter = next;
        }
        let mut seed = 1u64;
        for _ in 0..20_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let digits = format!("{}", (seed >> 20) % 40_000_000);
            let point = (seed >> 8) as usize % (digits.len() + 1);
            texts.push(format!("{}.{}", &digits[..point], &digits[point..]));
            texts.push(format!("{}.{}f", &digits[..point], &digits[point..]));
            // Up to 10 decimals, through leading zeros.
            let zeros = (seed >> 4) as usize % 8;
            texts.push(format!("0.{}{}", "0".repeat(zeros), &digits[..point]));
        }
        texts.extend(
            [
                "16777215",
                "16777216",
                "0.1677721",
                "1.6777215",
                "0.0000000001",
            ]
            .map(String::from),
        );
        let mut fast = 0;
        for text in &texts {
            let tokens = lex(text);
            if tokens.len() != 1 || tokens[0].kind != TokenKind::Number {
                continue;
            }
            let Some(value) = short_decimal(text) else {
                continue;
            };
            fast += 1;
            let (expected, warning) = any_number_value(text);
            assert!(!warning);
            assert_eq!(value.to_bits(), expected.to_bits(), "{text}");
        }
        assert!(fast > 10_000, "the fast path took only {fast} numbers");
        assert_eq!(short_decimal("16777216"), None);
        assert_eq!(short_decimal("1e3"), None);
        assert_eq!(short_decimal("0.00000000001"), None);
    }

    #[test]
    fn too_long() {
        let src = "1".repeat(MAX_SOURCE_LEN + 3);
        let parsed = parse(&src, ParseOptions::default());
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.diagnostics[0].kind, ParseErrorKind::TooLong);
        assert_eq!(
            parsed.diagnostics[0].span,
            Span::new(MAX_SOURCE_LEN, MAX_SOURCE_LEN + 3)
        );
        assert!(parsed.ast.root.is_none() && parsed.tokens.is_empty());
        // The span starts on a character boundary.
        let src = format!("{}ż", "1".repeat(MAX_SOURCE_LEN - 1));
        let parsed = parse(&src, ParseOptions::default());
        assert_eq!(
            parsed.diagnostics[0].span.start as usize,
            MAX_SOURCE_LEN - 1
        );
        let src = "1".repeat(MAX_SOURCE_LEN);
        assert!(!parse(&src, ParseOptions::default()).has_errors());
    }

    #[test]
    fn too_many_brackets() {
        let src = format!(
            "{}1{}",
            "(".repeat(MAX_BRACKET_NESTING + 1),
            ")".repeat(MAX_BRACKET_NESTING + 1)
        );
        assert_eq!(kinds(&src, LATEST_VERSION), vec![ParseErrorKind::TooDeep]);
        let src = format!(
            "{}1{}",
            "(".repeat(MAX_BRACKET_NESTING),
            ")".repeat(MAX_BRACKET_NESTING)
        );
        assert!(kinds(&src, LATEST_VERSION).is_empty());
    }
}
