//! The checker: AST → checked IR. The only code that reads names. It reports every problem
//! the game reports (with the game's accept/reject decision) and builds a [`Program`]
//! when nothing refuses to load.
//!
//! Pass order: syntax (from `grammar`), token-level rules (`;` placement), lowering with
//! the context-dependent rules (assignment targets, operand kinds, `??`, `->`, loops,
//! depth), struct-copy resolution, then the read-before-set flow analysis ([`flow`]).

pub mod flow;
pub mod nan;

use crate::builtins::math::MathFn;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ir::{
    fnv1_64, ArithOp, Assign, CmpOp, ForEach, Names, Node, NodeId, Program, PureQuery, Remote,
    ResourceKind, Scope,
};
use crate::query_table;
use grammar::{
    Ast, BinaryOp, Block, Expr, ExprId, GroupKind, ParseErrorKind, Span, TokenKind, UnaryOp,
};

/// The game's nesting limit: a node at depth 256 refuses to load.
pub const MAX_DEPTH: u32 = 256;

/// What the checker knows about the place an expression comes from.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Raw Molang version, -1..=13 (13 = latest).
    pub version: i16,
    /// Judge reads of `variable.*` (only when the whole entity is known).
    pub judge_variables: bool,
    /// `variable.*` names already set before this program runs (entity `variables`,
    /// `initialize`, earlier `pre_animation` entries, engine-provided ones).
    pub preset_variables: Vec<String>,
    /// `variable.*` names set later in the same per-frame script: reading them earlier is
    /// only a first-frame problem.
    pub later_variables: Vec<String>,
    /// Report unknown queries (a lone `--expr` may be used with custom queries).
    pub warn_unknown_queries: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            version: grammar::LATEST_VERSION,
            judge_variables: false,
            preset_variables: Vec::new(),
            later_variables: Vec::new(),
            warn_unknown_queries: true,
        }
    }
}

/// The result of checking: a program when the expression loads, and every diagnostic.
#[derive(Clone, Debug)]
pub struct Checked {
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
    /// Whether the game loads the expression (no diagnostic refuses it).
    pub fn loads(&self) -> bool {
        !self.diagnostics.iter().any(|d| d.refuses_load())
    }
}

/// Checks one Molang program against `names` (shared by an entity's scripts).
pub fn check(src: &str, options: &CheckOptions, names: &mut Names) -> Checked {
    let (program, diagnostics) = check_as_written(src, options, names);
    Checked {
        // What the game runs is the program as its compiler shapes it.
        program: program.map(|p| crate::fold::fold(p, names)),
        diagnostics,
    }
}

/// The divisions of `src` (as written) whose divisor can be within the game's division
/// guard of 0; none when it does not load.
pub fn near_zero_divisions(
    src: &str,
    options: &CheckOptions,
) -> Vec<(Span, nan::NearZeroDivision)> {
    let (program, _) = check_as_written(src, options, &mut Names::default());
    let Some(program) = program else {
        return Vec::new();
    };
    nan::near_zero_divisions(&program)
        .into_iter()
        .map(|d| (program.span(d.node), d))
        .collect()
}

/// [`check`] without the compiler's folding: the program as written when it loads.
fn check_as_written(
    src: &str,
    options: &CheckOptions,
    names: &mut Names,
) -> (Option<Program>, Vec<Diagnostic>) {
    let parsed = grammar::parse(
        src,
        grammar::ParseOptions {
            version: options.version,
        },
    );
    let mut diagnostics: Vec<Diagnostic> = parsed
        .diagnostics
        .iter()
        .map(|d| parse_diagnostic(d, src))
        .collect();

    // Token-level rules the game applies before structuring.
    let tokens = &parsed.tokens;
    if let (Some(first), Some(last)) = (tokens.first(), tokens.last()) {
        if first.kind == TokenKind::Semicolon {
            diagnostics.push(
                Diagnostic::new(
                    Code::LeadingSemicolon,
                    first.span,
                    "an expression cannot begin with `;`",
                )
                .with_help("remove the leading `;`"),
            );
        } else if last.kind != TokenKind::Semicolon {
            let marker = tokens
                .iter()
                .find(|t| matches!(t.kind, TokenKind::Semicolon | TokenKind::Assign));
            if let Some(m) = marker {
                let what = if m.kind == TokenKind::Assign {
                    "an assignment"
                } else {
                    "a `;`"
                };
                diagnostics.push(
                    Diagnostic::new(
                        Code::MissingFinalSemicolon,
                        Span::new(last.span.end as usize, last.span.end as usize),
                        format!("this expression contains {what}, so it is a complex expression and must end with `;`"),
                    )
                    .with_label(m.span, "makes this a complex expression")
                    .with_help("add `;` at the end"),
                );
            }
        }
    }

    let Some(root) = parsed.ast.root.as_ref() else {
        return (None, diagnostics);
    };
    if diagnostics.iter().any(|d| d.is_error()) {
        return (None, diagnostics);
    }

    let mut lower = Lower {
        ast: &parsed.ast,
        options,
        names,
        // About one node per expression, plus the root block: no regrowth while lowering.
        nodes: Vec::with_capacity(parsed.ast.len() + 1),
        spans: Vec::with_capacity(parsed.ast.len() + 1),
        diagnostics: Vec::new(),
        too_deep_reported: false,
        pending_copies: Vec::new(),
        suggestions: 0,
        complex: root.is_complex(),
    };
    let top_depth = if root.is_complex() { 1 } else { 0 };
    let ctx = Ctx {
        depth: top_depth,
        in_loop: false,
        value_ctx: false,
    };
    let (root_id, _) = lower.block(root, GroupKind::Brace, ctx, true, root.span);
    lower.resolve_copies();
    let Lower {
        nodes,
        spans,
        diagnostics: more,
        ..
    } = lower;
    diagnostics.extend(more);
    let program = Program {
        nodes,
        spans,
        root: root_id,
        source: src.into(),
    };
    diagnostics.extend(flow::analyse(&program, names, options));
    diagnostics.extend(nan::analyse(&program));
    let ok = !diagnostics.iter().any(|d| d.refuses_load());
    (ok.then_some(program), diagnostics)
}

fn parse_diagnostic(d: &grammar::ParseDiagnostic, src: &str) -> Diagnostic {
    let text = &src[d.span.range()];
    match &d.kind {
        ParseErrorKind::Empty => Diagnostic::new(Code::Empty, d.span, "the expression is empty")
            .with_help("write a value such as `0`, or remove the field"),
        ParseErrorKind::UnknownCharacter(c) => {
            let help = match c {
                '%' => "Molang has no `%` operator: use `math.mod(a, b)`",
                '^' => "Molang has no `^` operator: use `math.pow(a, b)`",
                '&' => "use `&&` for logical and",
                '|' => "use `||` for logical or",
                '"' => "Molang strings use single quotes: 'text'",
                '#' => "Molang has no comments",
                '.' => "a `.` must join two names, as in `v.x`, or belong to a number",
                _ => "this character is not part of Molang",
            };
            Diagnostic::new(Code::UnknownCharacter, d.span, format!("unknown character `{c}`")).with_help(help)
        }
        ParseErrorKind::UnterminatedString => {
            Diagnostic::new(Code::UnterminatedString, d.span, "string is missing its closing `'`")
        }
        ParseErrorKind::ExponentWithoutDigits => Diagnostic::new(
            Code::ExponentWithoutDigits,
            d.span,
            format!("`{text}` has an exponent with no digits; the game reads it as 0"),
        ),
        ParseErrorKind::UnexpectedToken { found, expected } => {
            // Punctuation describes itself (`` `)` ``); names, numbers and strings are quoted.
            let message = match found {
                TokenKind::Number | TokenKind::String | TokenKind::Path => {
                    let what = found.describe().trim_start_matches("a ");
                    format!("unexpected {what} `{text}`")
                }
                _ => format!("unexpected {}", found.describe()),
            };
            let mut diag = Diagnostic::new(Code::UnexpectedToken, d.span, message);
            if !expected.is_empty() && expected.len() <= 8 {
                diag = diag.with_help(format!("expected one of: {}", expected.join(" ")));
            }
            if *found == TokenKind::Comma {
                diag = diag.with_help("`,` only separates the arguments of a function, query, `loop` or `for_each`");
            }
            diag
        }
        ParseErrorKind::UnexpectedEnd { .. } => {
            Diagnostic::new(Code::UnexpectedEnd, d.span, "the expression ends too early")
                .with_help("an operand or a closing bracket is missing")
        }
        ParseErrorKind::MissingOperator => Diagnostic::new(
            Code::MissingOperator,
            d.span,
            "two operands with no operator between them",
        )
        .with_help("Molang has no implicit multiplication: write `a * (b)`"),
        ParseErrorKind::TooDeep => Diagnostic::new(Code::TooDeep, d.span, "brackets nested deeper than 256 levels"),
        ParseErrorKind::TooLong => Diagnostic::new(
            Code::SourceTooLong,
            d.span,
            format!("the expression is {} bytes long; molang reads at most {} (4 MiB)", src.len(), grammar::MAX_SOURCE_LEN),
        )
        .with_help("no real expression is this long: split it, or check that the file holds what you expect"),
        ParseErrorKind::ConditionalChainTooDeep => Diagnostic::new(
            Code::TooDeep,
            d.span,
            "before Molang version 5 this `?:` chain groups to the left and nests deeper than 256 levels",
        )
        .with_help("split the chain with parentheses or temp variables, or raise min_engine_version"),
        ParseErrorKind::NestedConditionalInThen => Diagnostic::new(
            Code::NestedConditional,
            d.span,
            "before Molang version 5 (min_engine_version 1.18.10) a conditional inside the `?` branch does not load",
        )
        .with_help("wrap the inner conditional in parentheses or raise min_engine_version"),
        _ => Diagnostic::new(Code::UnexpectedToken, d.span, "syntax error"),
    }
}

/// Static kind of a value, for the game's operand checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Num,
    Str,
    Resource,
    ArrayElement,
    Assignment,
    Loop,
    Unknown,
}

#[derive(Clone, Copy, Debug)]
struct Ctx {
    depth: u32,
    in_loop: bool,
    /// Inside an assignment's value or a call's arguments, where the game only logs
    /// arithmetic on array elements.
    value_ctx: bool,
}

struct Lower<'a> {
    ast: &'a Ast,
    options: &'a CheckOptions,
    names: &'a mut Names,
    nodes: Vec<Node>,
    spans: Vec<Span>,
    diagnostics: Vec<Diagnostic>,
    too_deep_reported: bool,
    /// Struct assignments `dst = src` to expand once every member name is known.
    pending_copies: Vec<(NodeId, Scope, String, Scope, String)>,
    /// "Did you mean" searches made so far (see `MAX_SUGGESTIONS`).
    suggestions: u32,
    /// The program is a complex expression (has `;`): there the game logs some errors that
    /// refuse a simple expression and runs on (see `coalesce`).
    complex: bool,
}

/// Most "did you mean" searches for unknown queries in one program: each costs a pass over
/// the query table, and hostile text can hold a hundred thousand unknown names.
const MAX_SUGGESTIONS: u32 = 1000;

/// A resolved dotted name.
enum Name<'s> {
    Var(Scope, &'s str),
    Query(&'s str),
    Math(&'s str),
    Resource(ResourceKind, &'s str),
    Array(&'s str),
    Bool(bool),
    Unknown,
}

fn resolve(path: &str) -> Name<'_> {
    // Namespaces are short: a byte loop finds the dot sooner than `split_once`'s search.
    let (ns, rest) = match path.bytes().position(|b| b == b'.') {
        Some(dot) => (&path[..dot], &path[dot + 1..]),
        None => {
            // The game accepts any prefix of `true`/`false` as a name (`t`, `fa`).
            if !path.is_empty() && "true".starts_with(path) {
                return Name::Bool(true);
            }
            if !path.is_empty() && "false".starts_with(path) {
                return Name::Bool(false);
            }
            return Name::Unknown;
        }
    };
    match ns {
        "variable" | "v" => Name::Var(Scope::Variable, rest),
        "temp" | "t" => Name::Var(Scope::Temp, rest),
        "context" | "c" => Name::Var(Scope::Context, rest),
        "query" | "q" => Name::Query(rest),
        "math" => Name::Math(rest),
        "geometry" => Name::Resource(ResourceKind::Geometry, rest),
        "material" => Name::Resource(ResourceKind::Material, rest),
        "texture" => Name::Resource(ResourceKind::Texture, rest),
        "array" => Name::Array(rest),
        _ => Name::Unknown,
    }
}

const PI: f32 = std::f32::consts::PI;

impl<'a> Lower<'a> {
    fn push(&mut self, node: Node, span: Span) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(node);
        self.spans.push(span);
        id
    }

    fn report(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// Enters a `loop` (`code` [`Code::LoopArguments`]) or `for_each`
    /// ([`Code::ForEachArguments`]): the context inside, or `None` once it has reported why
    /// not (too deep, or not the form's arguments ending in a `{ }` body).
    fn enter_form(&mut self, ctx: Ctx, span: Span, args: &[ExprId], code: Code) -> Option<Ctx> {
        let ctx = self.enter(ctx, 2, span)?;
        let (arity, message, help) = if code == Code::LoopArguments {
            (
                2,
                "`loop` takes a count and a `{ }` body",
                "write `loop(10, { ...; });`",
            )
        } else {
            (
                3,
                "`for_each` takes a variable, an array and a `{ }` body",
                "write `for_each(t.e, q.get_nearby_entities(4), { ...; });`",
            )
        };
        let ok = args.len() == arity
            && matches!(
                self.ast.expr(args[arity - 1]),
                Expr::Group {
                    kind: GroupKind::Brace,
                    ..
                }
            );
        if !ok {
            self.report(Diagnostic::new(code, span, message).with_help(help));
        }
        ok.then_some(ctx)
    }

    fn dummy(&mut self, span: Span) -> (NodeId, Ty) {
        (self.push(Node::Const(0.0), span), Ty::Unknown)
    }

    /// Depth bookkeeping: returns false (and reports once) past the game's limit.
    fn enter(&mut self, ctx: Ctx, weight: u32, span: Span) -> Option<Ctx> {
        let depth = ctx.depth + weight;
        if depth >= MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                self.report(
                    Diagnostic::new(
                        Code::TooDeep,
                        span,
                        "the expression nests deeper than the game's limit of 256 levels",
                    )
                    .with_help("split it into several statements with temp variables"),
                );
            }
            return None;
        }
        Some(Ctx { depth, ..ctx })
    }

    /// `group_span` covers the brackets too (the whole program at top level); diagnostics
    /// about the group point at it rather than at its possibly empty inside.
    fn block(
        &mut self,
        block: &Block,
        kind: GroupKind,
        ctx: Ctx,
        top: bool,
        group_span: Span,
    ) -> (NodeId, Ty) {
        let statements = self.ast.list(block.statements);
        let statement_level =
            kind != GroupKind::Paren && kind != GroupKind::Bracket || block.semicolons > 0;
        if !top && block.statements.is_empty() {
            self.report(
                Diagnostic::new(Code::EmptyGroup, group_span, "empty group")
                    .with_help("put an expression inside"),
            );
            return self.dummy(group_span);
        }
        if kind == GroupKind::Brace && !top && block.semicolons == 0 {
            let nested_block = block.statements.len() == 1
                && matches!(self.ast.expr(statements[0]), Expr::Group { kind: GroupKind::Brace, body } if body.semicolons > 0);
            if !nested_block {
                let mut d = Diagnostic::new(
                    Code::BraceWithoutSemicolon,
                    group_span,
                    "a `{}` block must contain `;`-terminated statements, even when it holds one",
                )
                .with_help("add `;` after the statement");
                if let Some(&last) = statements.last() {
                    let end = self.ast.span(last).end as usize;
                    d = d.with_label(Span::new(end, end), "`;` missing here");
                }
                self.report(d);
            }
        }
        if kind == GroupKind::Brace && !top && block.semicolons > 0 && !block.trailing_semicolon {
            // `{v.a = 1; v.b = 2}` loads, but the last statement is easy to lose when the
            // block grows; every other statement in a block ends with `;`.
            if let Some(&last) = statements.last() {
                let span = self.ast.span(last);
                self.report(
                    Diagnostic::new(
                        Code::NoFinalSemicolonInBlock,
                        span,
                        "this statement is not ended by `;`",
                    )
                    .with_label(
                        Span::new(span.end as usize, span.end as usize),
                        "add `;` here",
                    )
                    .with_help("end every statement of a `{}` block with `;`"),
                );
            }
        }
        let mut stmts = Vec::with_capacity(block.statements.len());
        let mut ended_by: Option<(ExprId, bool)> = None;
        let mut unreachable_reported = false;
        for &s in statements {
            if let Some((end, is_return)) = ended_by {
                if !unreachable_reported {
                    unreachable_reported = true;
                    let (kw, node) = match self.ast.expr(end) {
                        Expr::Return { .. } => ("return", "Return"),
                        Expr::Break => ("break", "Break"),
                        _ => ("continue", "Continue"),
                    };
                    // The game's content-log wording, then what it means.
                    let mut d = Diagnostic::new(
                        Code::Unreachable,
                        self.ast.span(s),
                        format!("unreachable statements after {node} '{kw}': they never run"),
                    )
                    .with_label(self.ast.span(end), format!("`{kw}` ends here"));
                    if !(top && is_return) {
                        d = d.with_severity(Severity::Warning);
                    }
                    self.report(d);
                }
            }
            let (id, _) = self.statement(s, ctx, statement_level, top && block.semicolons == 0);
            match self.ast.expr(s) {
                Expr::Return { .. } => ended_by = Some((s, true)),
                Expr::Break | Expr::Continue => ended_by = ended_by.or(Some((s, false))),
                _ => {}
            }
            stmts.push(id);
        }
        let simple = block.semicolons == 0;
        if simple && stmts.len() == 1 && !top {
            // `(x)` is just `x`.
            let ty = self.ty_of_simple(statements[0]);
            return (stmts[0], ty);
        }
        let id = self.push(
            Node::Block {
                stmts: stmts.into_boxed_slice(),
                simple,
            },
            block.span,
        );
        let ty = if simple {
            self.ty_of_simple(statements[0])
        } else {
            Ty::Unknown
        };
        (id, ty)
    }

    fn ty_of_simple(&self, e: ExprId) -> Ty {
        match self.ast.expr(self.ast.unparen(e)) {
            Expr::Number(_) | Expr::True | Expr::False => Ty::Num,
            Expr::String(_) => Ty::Str,
            Expr::Assign { .. } => Ty::Assignment,
            _ => Ty::Unknown,
        }
    }

    fn statement(
        &mut self,
        s: ExprId,
        ctx: Ctx,
        statement_level: bool,
        top_simple: bool,
    ) -> (NodeId, Ty) {
        let span = self.ast.span(s);
        match self.ast.expr(s) {
            Expr::Return { value } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                match value {
                    Some(v) => {
                        let (v, _) = self.expr(*v, ctx);
                        (self.push(Node::Return(v), span), Ty::Unknown)
                    }
                    None => {
                        self.report(
                            Diagnostic::new(
                                Code::ReturnWithoutValue,
                                span,
                                "`return` needs a value",
                            )
                            .with_help("write `return 0;` to stop early"),
                        );
                        self.dummy(span)
                    }
                }
            }
            Expr::Assign { target, value } if statement_level => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                self.assign(*target, *value, span, ctx, true)
            }
            Expr::Break | Expr::Continue if top_simple && !ctx.in_loop => {
                let is_break = matches!(self.ast.expr(s), Expr::Break);
                if is_break {
                    self.report(
                        Diagnostic::new(Code::BreakOutsideLoop, span, "`break` outside a loop")
                            .with_help("`break` only means something inside `loop` or `for_each`"),
                    );
                    return self.dummy(span);
                }
                self.expr(s, ctx)
            }
            _ => self.expr(s, ctx),
        }
    }

    fn expr(&mut self, e: ExprId, ctx: Ctx) -> (NodeId, Ty) {
        let span = self.ast.span(e);
        match self.ast.expr(e) {
            Expr::Number(v) => (self.push(Node::Const(*v), span), Ty::Num),
            Expr::True => (self.push(Node::Const(1.0), span), Ty::Num),
            Expr::False => (self.push(Node::Const(0.0), span), Ty::Num),
            Expr::String(s) => {
                let hash = fnv1_64(self.ast.name(*s).as_bytes());
                (self.push(Node::Str(hash), span), Ty::Str)
            }
            Expr::This => (self.push(Node::This, span), Ty::Num),
            Expr::Break | Expr::Continue => {
                let is_break = matches!(self.ast.expr(e), Expr::Break);
                if !ctx.in_loop {
                    // The game logs E45 for a `break` here but says nothing about a
                    // `continue` (molangx vectors #173 and #176): a lint of ours, not a log.
                    let d = if is_break {
                        Diagnostic::new(Code::BreakOutsideLoop, span, "`break` outside a loop")
                            .with_severity(Severity::Warning)
                            .with_help(
                                "`break` only means something inside `loop` or `for_each`; the game logs an error and ignores it",
                            )
                    } else {
                        Diagnostic::new(
                            Code::ContinueOutsideLoop,
                            span,
                            "`continue` outside a loop does nothing",
                        )
                        .with_help(
                            "`continue` only means something inside `loop` or `for_each`; the game accepts it silently and skips nothing",
                        )
                    };
                    self.report(d);
                    return (self.push(Node::Const(0.0), span), Ty::Unknown);
                }
                (
                    self.push(
                        if is_break {
                            Node::Break
                        } else {
                            Node::Continue
                        },
                        span,
                    ),
                    Ty::Unknown,
                )
            }
            Expr::Path(path) => self.path(self.ast.name(*path), span),
            Expr::Call {
                callee,
                callee_span,
                args,
            } => {
                let Some(ctx) = self.enter(ctx, 2, span) else {
                    return self.dummy(span);
                };
                let (callee, args) = (self.ast.name(*callee), self.ast.list(*args));
                self.call(callee, *callee_span, args, span, ctx)
            }
            Expr::Index {
                array,
                array_span,
                index,
            } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                let array = self.ast.name(*array);
                let Name::Array(name) = resolve(array) else {
                    self.report(
                        Diagnostic::new(
                            Code::NotAnArray,
                            *array_span,
                            format!("`{array}` cannot be indexed"),
                        )
                        .with_help(
                            "`[ ]` only selects from render-controller arrays (`array.name[i]`)",
                        ),
                    );
                    return self.dummy(span);
                };
                let name = self.names.symbols.intern(name);
                let (index, _) = self.expr(*index, ctx);
                (
                    self.push(Node::Index { array: name, index }, span),
                    Ty::ArrayElement,
                )
            }
            Expr::Loop { args } => {
                let args = self.ast.list(*args);
                let Some(ctx) = self.enter_form(ctx, span, args, Code::LoopArguments) else {
                    return self.dummy(span);
                };
                let (count, _) = self.expr(
                    args[0],
                    Ctx {
                        value_ctx: true,
                        ..ctx
                    },
                );
                let (body, _) = self.expr(
                    args[1],
                    Ctx {
                        in_loop: true,
                        ..ctx
                    },
                );
                (self.push(Node::Loop { count, body }, span), Ty::Loop)
            }
            Expr::ForEach { args } => {
                let args = self.ast.list(*args);
                let Some(ctx) = self.enter_form(ctx, span, args, Code::ForEachArguments) else {
                    return self.dummy(span);
                };
                let var = match self.ast.expr(args[0]) {
                    Expr::Path(p) => match resolve(self.ast.name(*p)) {
                        Name::Var(scope @ (Scope::Temp | Scope::Variable), name)
                            if !name.contains('.') =>
                        {
                            Some((scope, name.to_string()))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let Some((scope, name)) = var else {
                    self.report(
                        Diagnostic::new(
                            Code::ForEachVariable,
                            self.ast.span(args[0]),
                            "`for_each` iterates with a `temp.` or `variable.` name",
                        )
                        .with_help("write `for_each(t.element, ...)`"),
                    );
                    return self.dummy(span);
                };
                let slot = self.names.table_mut(scope).intern(&name);
                let (array, _) = self.expr(args[1], ctx);
                let (body, _) = self.expr(
                    args[2],
                    Ctx {
                        in_loop: true,
                        ..ctx
                    },
                );
                (
                    self.push(
                        Node::ForEach(ForEach {
                            scope,
                            slot,
                            array,
                            body,
                        }),
                        span,
                    ),
                    Ty::Loop,
                )
            }
            Expr::Unary { op, operand } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                let (v, ty) = self.expr(*operand, ctx);
                let sym = if *op == UnaryOp::Neg { "-" } else { "!" };
                self.operand_kind(ty, *operand, &sym, ctx);
                let node = if *op == UnaryOp::Neg {
                    Node::Neg(v)
                } else {
                    Node::Not(v)
                };
                (self.push(node, span), Ty::Num)
            }
            Expr::Binary { op, lhs, rhs } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                let (l, lt) = self.expr(*lhs, ctx);
                let (r, rt) = self.expr(*rhs, ctx);
                let node = match op {
                    BinaryOp::Eq => Node::Equal {
                        negate: false,
                        lhs: l,
                        rhs: r,
                    },
                    BinaryOp::Ne => Node::Equal {
                        negate: true,
                        lhs: l,
                        rhs: r,
                    },
                    _ => {
                        self.operand_kind(lt, *lhs, &op.symbol(), ctx);
                        self.operand_kind(rt, *rhs, &op.symbol(), ctx);
                        let arith = |op| Node::Arith { op, lhs: l, rhs: r };
                        let compare = |op| Node::Compare { op, lhs: l, rhs: r };
                        match op {
                            BinaryOp::Add => arith(ArithOp::Add),
                            BinaryOp::Sub => arith(ArithOp::Sub),
                            BinaryOp::Mul => arith(ArithOp::Mul),
                            BinaryOp::Div => arith(ArithOp::Div),
                            BinaryOp::Lt => compare(CmpOp::Lt),
                            BinaryOp::Le => compare(CmpOp::Le),
                            BinaryOp::Gt => compare(CmpOp::Gt),
                            BinaryOp::Ge => compare(CmpOp::Ge),
                            BinaryOp::And => Node::And(l, r),
                            _ => Node::Or(l, r),
                        }
                    }
                };
                (self.push(node, span), Ty::Num)
            }
            Expr::Conditional {
                cond,
                then,
                otherwise,
            } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                let (c, _) = self.expr(*cond, ctx);
                let (t, tt) = self.branch(*then, ctx);
                let (o, ot) = match otherwise {
                    Some(o) => {
                        let (o, ot) = self.branch(*o, ctx);
                        (Some(o), ot)
                    }
                    None => (None, Ty::Num),
                };
                let ty = if tt == Ty::Num && ot == Ty::Num {
                    Ty::Num
                } else {
                    Ty::Unknown
                };
                (
                    self.push(
                        Node::Cond {
                            cond: c,
                            then: t,
                            otherwise: o,
                        },
                        span,
                    ),
                    ty,
                )
            }
            Expr::Coalesce { lhs, rhs } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                self.coalesce(*lhs, *rhs, span, ctx)
            }
            Expr::Assign { target, value } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                self.assign(*target, *value, span, ctx, false)
            }
            Expr::Arrow { lhs, rhs } => {
                let Some(ctx) = self.enter(ctx, 1, span) else {
                    return self.dummy(span);
                };
                self.arrow(*lhs, *rhs, span, ctx)
            }
            Expr::Group { kind, body } => {
                // A group holding statements costs the game two levels (section and block).
                let weight = if body.semicolons > 0 { 2 } else { 1 };
                let Some(ctx) = self.enter(ctx, weight, span) else {
                    return self.dummy(span);
                };
                self.block(body, *kind, ctx, false, span)
            }
            Expr::Return { .. } => {
                // The grammar only produces `return` in statement position.
                self.statement(e, ctx, true, false)
            }
        }
    }

    /// A conditional branch may be a `break`/`continue` statement or a block.
    fn branch(&mut self, e: ExprId, ctx: Ctx) -> (NodeId, Ty) {
        self.expr(e, ctx)
    }

    /// `op` is only formatted when there is something to report (most operands are numbers).
    fn operand_kind(&mut self, ty: Ty, e: ExprId, op: &dyn std::fmt::Display, ctx: Ctx) {
        // `break + 1` / `continue + 1`: statements as operands, refused from version 3 like an
        // assignment or a loop there (molangx measured rows: evaluated at version 2, "parse
        // fails" at 3).
        let jump = match self.ast.expr(self.ast.unparen(e)) {
            Expr::Break => Some("a `break`"),
            Expr::Continue => Some("a `continue`"),
            _ => None,
        };
        let what = match ty {
            _ if jump.is_some() => jump.unwrap_or_default(),
            Ty::Str => "a string",
            Ty::Resource => "a resource (geometry, material or texture)",
            Ty::Assignment => "an assignment",
            Ty::Loop => "a loop",
            Ty::ArrayElement => {
                let d = Diagnostic::new(
                    Code::ArrayElementArithmetic,
                    self.ast.span(e),
                    format!("`{op}` cannot use a resource array element"),
                )
                .with_help("array elements are geometries, materials or textures, not numbers");
                let d = if ctx.value_ctx {
                    d.with_severity(Severity::Warning)
                } else {
                    d
                };
                self.report(d);
                return;
            }
            _ => return,
        };
        if self.options.version < 3 {
            return;
        }
        self.report(
            Diagnostic::new(
                Code::NonNumericOperand,
                self.ast.span(e),
                format!("`{op}` needs numbers, but this is {what}"),
            )
            .with_help(match ty {
                _ if jump.is_some() => "write the jump as its own statement: `(c) ? break;`",
                Ty::Assignment => "wrap the assignment in its own statement and use the variable",
                Ty::Str => "strings can only be compared with `==` and `!=`",
                _ => "only numbers take part in arithmetic, comparisons and logic",
            }),
        );
    }

    fn path(&mut self, path: &str, span: Span) -> (NodeId, Ty) {
        match resolve(path) {
            Name::Bool(b) => (
                self.push(Node::Const(if b { 1.0 } else { 0.0 }), span),
                Ty::Num,
            ),
            Name::Var(scope, name) => {
                let slot = self.names.table_mut(scope).intern(name);
                (self.push(Node::Read { scope, slot }, span), Ty::Num)
            }
            Name::Query(name) => self.query(
                name,
                &[],
                span,
                span,
                Ctx {
                    depth: 0,
                    in_loop: false,
                    value_ctx: true,
                },
            ),
            Name::Math(name) => {
                if name == "pi" {
                    return (self.push(Node::Const(PI), span), Ty::Num);
                }
                match MathFn::from_name(name) {
                    Some(f) => self.report(
                        Diagnostic::new(
                            Code::MathWithoutCall,
                            span,
                            format!("`math.{name}` is a function and needs its arguments in parentheses"),
                        )
                        .with_help(format!("write `math.{name}({})`", arg_placeholder(f.arity()))),
                    ),
                    None => self.unknown_math(name, span),
                }
                self.dummy(span)
            }
            Name::Resource(kind, name) => {
                let name = self.names.symbols.intern(name);
                (self.push(Node::Resource { kind, name }, span), Ty::Resource)
            }
            Name::Array(name) => {
                let name = self.names.symbols.intern(name);
                (self.push(Node::Array { name }, span), Ty::Unknown)
            }
            Name::Unknown => {
                let head = path.split('.').next().unwrap_or(path);
                let mut d =
                    Diagnostic::new(Code::UnknownName, span, format!("unknown name `{path}`"));
                d = d.with_help(if path.contains('.') {
                    format!("`{head}` is not a Molang namespace; use query./q., variable./v., temp./t., context./c., math., geometry., material., texture. or array.")
                } else {
                    "names need a namespace, as in `v.x` or `q.is_baby`".to_string()
                });
                self.report(d);
                self.dummy(span)
            }
        }
    }

    fn unknown_math(&mut self, name: &str, span: Span) {
        let mut d = Diagnostic::new(
            Code::UnknownMathFunction,
            span,
            format!("`math.{name}` is not a Molang math function"),
        );
        let help = match name {
            "tan" => Some("there is no math.tan: use `math.sin(x) / math.cos(x)`".to_string()),
            "log" | "log10" => {
                Some("use `math.ln(x)` (divide by `math.ln(10)` for log10)".to_string())
            }
            "e" => Some("use `math.exp(1)`".to_string()),
            _ => closest(name, MathFn::ALL.iter().map(|f| f.name()))
                .map(|s| format!("did you mean `math.{s}`?")),
        };
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.report(d);
    }

    fn call(
        &mut self,
        callee: &str,
        callee_span: Span,
        args: &[ExprId],
        span: Span,
        ctx: Ctx,
    ) -> (NodeId, Ty) {
        match resolve(callee) {
            Name::Math(name) => {
                let Some(f) = MathFn::from_name(name).filter(|_| name != "pi") else {
                    if name == "pi" {
                        self.report(
                            Diagnostic::new(
                                Code::MathArity,
                                span,
                                "`math.pi` is a constant and takes no parentheses",
                            )
                            .with_help("write `math.pi`"),
                        );
                    } else {
                        self.unknown_math(name, callee_span);
                    }
                    return self.dummy(span);
                };
                if args.len() != f.arity() {
                    let plural = if f.arity() == 1 {
                        "argument"
                    } else {
                        "arguments"
                    };
                    self.report(
                        Diagnostic::new(
                            Code::MathArity,
                            span,
                            format!(
                                "math.{name} takes exactly {} {plural}, found {}",
                                f.arity(),
                                args.len()
                            ),
                        )
                        .with_help(format!(
                            "write `math.{name}({})`",
                            arg_placeholder(f.arity())
                        )),
                    );
                    return self.dummy(span);
                }
                let inner = Ctx {
                    value_ctx: true,
                    ..ctx
                };
                let mut ids = Vec::with_capacity(args.len());
                for &a in args {
                    let (id, ty) = self.expr(a, inner);
                    self.operand_kind(ty, a, &format_args!("math.{name}"), inner);
                    ids.push(id);
                }
                (
                    self.push(
                        Node::Math {
                            func: f,
                            args: ids.into_boxed_slice(),
                        },
                        span,
                    ),
                    Ty::Num,
                )
            }
            Name::Query(name) => self.query(
                name,
                args,
                span,
                callee_span,
                Ctx {
                    value_ctx: true,
                    ..ctx
                },
            ),
            _ => {
                self.report(
                    Diagnostic::new(
                        Code::NotCallable,
                        callee_span,
                        format!("`{callee}` cannot be called"),
                    )
                    .with_help("only `math.*` functions and `query.*` take arguments"),
                );
                self.dummy(span)
            }
        }
    }

    fn query(
        &mut self,
        name: &str,
        args: &[ExprId],
        span: Span,
        name_span: Span,
        ctx: Ctx,
    ) -> (NodeId, Ty) {
        // Some queries return structs (`query.spellcolor.r` in vanilla, `bone_aabb` → `.min.x`):
        // a member path of a known query is that query.
        let info = query_table::lookup(name).or_else(|| {
            name.split_once('.')
                .and_then(|(head, _)| query_table::lookup(head))
        });
        match info {
            Some(info) => {
                if !info.accepts(args.len()) {
                    let bounds = match info.max_args {
                        Some(max) if max == info.min_args => format!("exactly {max}"),
                        Some(max) => format!("{} to {max}", info.min_args),
                        None => format!("at least {}", info.min_args),
                    };
                    self.report(
                        Diagnostic::new(
                            Code::QueryArity,
                            span,
                            format!(
                                "query.{name} takes {bounds} arguments, found {}",
                                args.len()
                            ),
                        )
                        .with_help("check the query's documentation for its parameters"),
                    );
                }
                if let Some(dep) = info.deprecated {
                    let help = match dep.strip_prefix("none:") {
                        Some(note) => note.trim().to_string(),
                        None => format!("use `{dep}` instead"),
                    };
                    self.report(
                        Diagnostic::new(
                            Code::DeprecatedQuery,
                            name_span,
                            format!("query.{name} is deprecated"),
                        )
                        .with_help(help),
                    );
                }
            }
            None if self.options.warn_unknown_queries => {
                let mut d = Diagnostic::new(
                    Code::UnknownQuery,
                    name_span,
                    format!("unknown query `query.{name}`"),
                )
                .with_help("the game evaluates unknown queries to 0");
                // The search compares against every query and is quadratic in the name's
                // length: no query name is longer than 40 characters, so a longer name cannot
                // be within its 3 edits (a 1 MB name took 13 s), and past `MAX_SUGGESTIONS`
                // names the warning goes without one (100,000 names took 20 s).
                let search = name.len() <= 64 && self.suggestions < MAX_SUGGESTIONS;
                self.suggestions += search as u32;
                let suggestion = search.then(|| query_table::suggest(name)).flatten();
                if let Some(s) = suggestion {
                    d = d.with_help(format!(
                        "did you mean `query.{s}`? The game evaluates unknown queries to 0"
                    ));
                }
                self.report(d);
            }
            None => {}
        }
        if let Some(func) = PureQuery::from_name(name).filter(|_| info.is_some()) {
            return self.pure_query(func, args, span, ctx);
        }
        let slot = self.names.queries.intern(name);
        let mut ids = Vec::with_capacity(args.len());
        for &a in args {
            let (id, _) = self.expr(a, ctx);
            ids.push(id);
        }
        (
            self.push(
                Node::Query {
                    query: slot,
                    args: ids.into_boxed_slice(),
                },
                span,
            ),
            Ty::Num,
        )
    }

    /// `query.all`, `any`, `in_range`, `approx_eq`, `count`: computed from the arguments by the
    /// back ends (rules in [`crate::builtins::queries`]). The arity was checked by the caller.
    fn pure_query(
        &mut self,
        func: PureQuery,
        args: &[ExprId],
        span: Span,
        ctx: Ctx,
    ) -> (NodeId, Ty) {
        let mut ids = Vec::with_capacity(args.len());
        for &a in args {
            let (id, ty) = self.expr(a, ctx);
            if func.numbers_only() && matches!(ty, Ty::Str | Ty::Resource | Ty::ArrayElement) {
                let what = match ty {
                    Ty::Str => "a string",
                    Ty::Resource => "a resource",
                    _ => "a resource array element",
                };
                self.report(
                    Diagnostic::new(
                        Code::QueryNeedsNumber,
                        self.ast.span(a),
                        format!("query.{} needs numbers, not {what}", func.name()),
                    )
                    .with_help("pass a number; strings can only be compared with `==`"),
                );
            }
            ids.push(id);
        }
        (
            self.push(
                Node::PureQuery {
                    func,
                    args: ids.into_boxed_slice(),
                },
                span,
            ),
            Ty::Num,
        )
    }

    fn assign(
        &mut self,
        target: ExprId,
        value: ExprId,
        span: Span,
        ctx: Ctx,
        strict: bool,
    ) -> (NodeId, Ty) {
        let (v, vt) = self.expr(
            value,
            Ctx {
                value_ctx: true,
                ..ctx
            },
        );
        let target_id = if strict {
            target
        } else {
            self.ast.unparen(target)
        };
        let tspan = self.ast.span(target_id);
        match self.ast.expr(target_id) {
            Expr::Path(p) => match resolve(self.ast.name(*p)) {
                Name::Var(scope @ (Scope::Temp | Scope::Variable), name) => {
                    if scope == Scope::Temp && name.contains('.') {
                        self.report(
                            Diagnostic::new(
                                Code::TempMemberAssign,
                                tspan,
                                "temp variables can only be assigned on their own, not as struct members",
                            )
                            .with_help("use a `variable.` struct, or a plain temp name such as `t.a_b`"),
                        );
                    }
                    return self.store(scope, name, v, vt, value, span);
                }
                Name::Var(Scope::Context, name) if strict && !name.contains('.') => {
                    self.report(
                        Diagnostic::new(Code::BadAssignTarget, tspan, format!("`{}` is read-only", self.ast.name(*p)))
                            .with_help("context values come from the game; assign to a `variable.` or `temp.` instead"),
                    );
                    return self.dummy(span);
                }
                Name::Var(Scope::Context, _) => {
                    self.report(
                        Diagnostic::new(
                            Code::IneffectiveAssign,
                            tspan,
                            format!(
                                "`{}` is read-only; this assignment does nothing",
                                self.ast.name(*p)
                            ),
                        )
                        .with_help("assign to a `variable.` or `temp.` instead"),
                    );
                }
                _ if strict => return self.bad_target(tspan, span),
                _ => self.report(Diagnostic::new(
                    Code::IneffectiveAssign,
                    tspan,
                    "assignment to something that is not a variable does nothing",
                )),
            },
            Expr::Arrow { lhs, rhs } => {
                // Only `x->variable.name = ...` loads (logged, not performed); the game refuses
                // an arrow into anything else on the left of `=` (molangx measured reject row
                // `v.x->temp.x = 0;`, molang-go `c.owner->q.hp = 1;`).
                let into_variable = matches!(
                    self.ast.expr(self.ast.unparen(*rhs)),
                    Expr::Path(p) if matches!(resolve(self.ast.name(*p)), Name::Var(Scope::Variable, _))
                );
                if !into_variable {
                    self.report(
                        Diagnostic::new(
                            Code::BadAssignTarget,
                            tspan,
                            "assignment to non-variable not allowed. Expression is trying to assign to a: Pointer '->'",
                        )
                        .with_help("another entity's `variable.` names are the only `->` targets on the left of `=`, and even those are not written"),
                    );
                    return self.dummy(span);
                }
                let (_, _) = self.expr(*lhs, ctx);
                self.report(
                    Diagnostic::new(
                        Code::AssignThroughArrow,
                        tspan,
                        "writing another entity's variables is not supported; the game ignores this assignment",
                    )
                    .with_help("only reading through `->` works"),
                );
            }
            _ if strict => return self.bad_target(tspan, span),
            Expr::Number(_)
            | Expr::String(_)
            | Expr::Assign { .. }
            | Expr::True
            | Expr::False
            | Expr::This => self.report(Diagnostic::new(
                Code::IneffectiveAssign,
                tspan,
                "assignment to something that is not a variable does nothing",
            )),
            _ => {}
        }
        (self.push(Node::Discard(v), span), Ty::Assignment)
    }

    fn bad_target(&mut self, tspan: Span, span: Span) -> (NodeId, Ty) {
        self.report(
            Diagnostic::new(Code::BadAssignTarget, tspan, "only `variable.` and `temp.` names can be assigned")
                .with_help("the left side of `=` must be a plain `v.name` or `t.name` (no parentheses, no operators)"),
        );
        self.dummy(span)
    }

    fn store(
        &mut self,
        scope: Scope,
        name: &str,
        v: NodeId,
        _vt: Ty,
        value: ExprId,
        span: Span,
    ) -> (NodeId, Ty) {
        let slot = self.names.table_mut(scope).intern(name);
        let mut parents = Vec::new();
        let mut rest = name;
        while let Some((head, _)) = rest.rsplit_once('.') {
            parents.push(self.names.table_mut(scope).intern(head));
            rest = head;
        }
        let id = self.push(
            Node::Assign(Assign {
                scope,
                slot,
                value: v,
                parents: parents.into_boxed_slice(),
                copies: Box::new([]),
            }),
            span,
        );
        // A whole-variable value may be a struct: copy its members once all names are known.
        if let Expr::Path(p) = self.ast.expr(self.ast.unparen(value)) {
            if let Name::Var(src_scope, src_name) = resolve(self.ast.name(*p)) {
                self.pending_copies.push((
                    id,
                    scope,
                    name.to_string(),
                    src_scope,
                    src_name.to_string(),
                ));
            }
        }
        (id, Ty::Assignment)
    }

    fn resolve_copies(&mut self) {
        for (id, dst_scope, dst, src_scope, src) in std::mem::take(&mut self.pending_copies) {
            let prefix = format!("{src}.");
            let members: Vec<String> = self
                .names
                .table(src_scope)
                .iter()
                .filter_map(|(_, n)| n.strip_prefix(&prefix).map(str::to_string))
                .collect();
            if members.is_empty() {
                continue;
            }
            let mut copies = Vec::new();
            for m in members {
                let s = self
                    .names
                    .table_mut(src_scope)
                    .intern(&format!("{src}.{m}"));
                let d = self
                    .names
                    .table_mut(dst_scope)
                    .intern(&format!("{dst}.{m}"));
                copies.push((s, d));
            }
            if let Node::Assign(a) = &mut self.nodes[id.0 as usize] {
                a.copies = copies.into_boxed_slice();
            }
        }
    }

    fn coalesce(&mut self, lhs: ExprId, rhs: ExprId, span: Span, ctx: Ctx) -> (NodeId, Ty) {
        let inner = self.ast.unparen(lhs);
        let var = self.linear_var(inner);
        let (l, lt) = self.expr(lhs, ctx);
        let (r, rt) = self.expr(rhs, ctx);
        let ty = if lt == Ty::Num && rt == Ty::Num {
            Ty::Num
        } else {
            Ty::Unknown
        };
        match var {
            Some((scope, name)) => {
                let slot = self.names.table_mut(scope).intern(&name);
                (
                    self.push(
                        Node::Coalesce {
                            scope,
                            slot,
                            lhs: l,
                            rhs: r,
                        },
                        span,
                    ),
                    ty,
                )
            }
            None if matches!(self.ast.expr(inner), Expr::Assign { .. }) => {
                self.report(
                    Diagnostic::new(
                        Code::CoalesceLhs,
                        self.ast.span(lhs),
                        "the left side of `??` should be a variable; the game logs an error and uses the assignment",
                    )
                    .with_severity(Severity::Warning),
                );
                (
                    self.push(
                        Node::Block {
                            stmts: Box::new([l]),
                            simple: true,
                        },
                        span,
                    ),
                    ty,
                )
            }
            None if self.complex => match self.logged_coalesce(inner, l, r) {
                Some(node) => {
                    self.report(
                        Diagnostic::new(
                            Code::CoalesceLhs,
                            self.ast.span(lhs),
                            "found left-hand-side of ?? expression that isn't a direct-variable reference - this is unsupported at this time (the game logs this error in a complex expression and runs it)",
                        )
                        .with_severity(Severity::Warning)
                        .with_help("write `v.a ?? (v.b ?? 5)`, or test the variable itself"),
                    );
                    (self.push(node, span), ty)
                }
                None => self.coalesce_refused(lhs, span),
            },
            None => self.coalesce_refused(lhs, span),
        }
    }

    /// What the game runs for a `??` whose left side it only logs about in a complex
    /// expression (molangx measured rows, engine server logs: `v.a = 1; v.b = 2; return v.a ??
    /// v.b ?? 5;` gives 1, `v.a = 1; return v.a.b ?? 7;` gives 7): a member read falls back
    /// when the member is unset, and `(a ?? b) ?? c` is `a ?? (b ?? c)`. `None` for other
    /// left sides (refused as in a simple expression).
    fn logged_coalesce(&mut self, inner: ExprId, l: NodeId, r: NodeId) -> Option<Node> {
        match self.ast.expr(inner) {
            Expr::Path(p) => match resolve(self.ast.name(*p)) {
                Name::Var(scope, name) => {
                    let slot = self.names.table_mut(scope).intern(name);
                    Some(Node::Coalesce {
                        scope,
                        slot,
                        lhs: l,
                        rhs: r,
                    })
                }
                _ => None,
            },
            Expr::Coalesce { rhs: b, .. } => {
                let b = *b;
                let Node::Coalesce {
                    scope,
                    slot,
                    lhs: al,
                    rhs: bl,
                } = self.nodes[l.0 as usize].clone()
                else {
                    return None;
                };
                let tail = match self.linear_var(b) {
                    Some((s, name)) => {
                        let bs = self.names.table_mut(s).intern(&name);
                        let span = self.spans[bl.0 as usize];
                        self.push(
                            Node::Coalesce {
                                scope: s,
                                slot: bs,
                                lhs: bl,
                                rhs: r,
                            },
                            span,
                        )
                    }
                    None => bl,
                };
                Some(Node::Coalesce {
                    scope,
                    slot,
                    lhs: al,
                    rhs: tail,
                })
            }
            _ => None,
        }
    }

    /// The left side of `??` the game refuses.
    fn coalesce_refused(&mut self, lhs: ExprId, span: Span) -> (NodeId, Ty) {
        self.report(
            Diagnostic::new(
                Code::CoalesceLhs,
                self.ast.span(lhs),
                "the left side of `??` must be a variable (`v.x`, `t.x` or `c.x`)",
            )
            .with_help("`??` is the loosest operator: `a ?? b ? c : d` means `a ?? (b ? c : d)`; add parentheses"),
        );
        self.dummy(span)
    }

    /// The game folds `v.x * 2 + 1`-style expressions into one node over the variable and
    /// then accepts them on the left of `??`. Both walks stop at the game's depth limit
    /// (deeper input is refused anyway), so a million-term operand cannot overflow the stack.
    fn linear_var(&self, e: ExprId) -> Option<(Scope, String)> {
        let mut e = e;
        for _ in 0..MAX_DEPTH {
            e = self.ast.unparen(e);
            match self.ast.expr(e) {
                Expr::Path(p) => {
                    return match resolve(self.ast.name(*p)) {
                        Name::Var(scope, name) if !name.contains('.') => {
                            Some((scope, name.to_string()))
                        }
                        _ => None,
                    }
                }
                Expr::Unary {
                    op: UnaryOp::Neg,
                    operand,
                } => e = *operand,
                Expr::Binary {
                    op: BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul,
                    lhs,
                    rhs,
                } => {
                    if self.is_const(*rhs, 0) {
                        e = *lhs;
                    } else if self.is_const(*lhs, 0) {
                        e = *rhs;
                    } else {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        None
    }

    fn is_const(&self, e: ExprId, depth: u32) -> bool {
        if depth >= MAX_DEPTH {
            return false;
        }
        let e = self.ast.unparen(e);
        match self.ast.expr(e) {
            Expr::Number(_) | Expr::True | Expr::False => true,
            Expr::Path(p) => self.ast.name(*p) == "math.pi",
            Expr::Unary { operand, .. } => self.is_const(*operand, depth + 1),
            Expr::Binary { lhs, rhs, .. } => {
                self.is_const(*lhs, depth + 1) && self.is_const(*rhs, depth + 1)
            }
            _ => false,
        }
    }

    fn arrow(&mut self, lhs: ExprId, rhs: ExprId, span: Span, ctx: Ctx) -> (NodeId, Ty) {
        let l_inner = self.ast.unparen(lhs);
        if matches!(self.ast.expr(l_inner), Expr::Arrow { .. }) {
            self.report(
                Diagnostic::new(Code::NestedArrow, span, "`a->b->c` is not supported")
                    .with_help("store `a->b` in a variable first, then use `v.b->c`"),
            );
            return self.dummy(span);
        }
        let r = self.ast.unparen(rhs);
        let remote = match self.ast.expr(r) {
            Expr::Path(p) => match resolve(self.ast.name(*p)) {
                Name::Var(Scope::Variable, name) if !name.contains('.') => {
                    Some(Remote::Variable(self.names.symbols.intern(name)))
                }
                Name::Query(name) if !name.contains('.') => Some(Remote::Query {
                    query: self.names.queries.intern(name),
                    args: Box::new([]),
                }),
                _ => None,
            },
            Expr::Call { callee, args, .. } => match resolve(self.ast.name(*callee)) {
                Name::Query(name) => {
                    let slot = self.names.queries.intern(name);
                    let mut ids = Vec::new();
                    for &a in self.ast.list(*args) {
                        ids.push(self.expr(a, ctx).0);
                    }
                    Some(Remote::Query {
                        query: slot,
                        args: ids.into_boxed_slice(),
                    })
                }
                _ => None,
            },
            _ => None,
        };
        let Some(remote) = remote else {
            self.report(
                Diagnostic::new(
                    Code::ArrowRhs,
                    self.ast.span(rhs),
                    "the right side of `->` must be a `variable.` name or a query",
                )
                .with_help("write `c.other->v.name` or `c.other->q.name`"),
            );
            return self.dummy(span);
        };
        let (entity, _) = self.expr(lhs, ctx);
        (self.push(Node::Arrow { entity, remote }, span), Ty::Num)
    }
}

fn arg_placeholder(n: usize) -> String {
    (0..n)
        .map(|i| ["a", "b", "c"].get(i).copied().unwrap_or("x"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The closest candidate by edit distance (Levenshtein, over chars), when it is close
/// enough to be a typo.
pub(crate) fn closest<'s>(
    name: &str,
    candidates: impl Iterator<Item = &'s str>,
) -> Option<&'s str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = strsim::levenshtein(name, c);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .map(|(_, c)| c)
}
