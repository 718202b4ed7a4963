//! AST → Molang text, and structural comparison of trees.
//!
//! [`print()`] writes the text the parser reads back to the same tree: for every `ast` that
//! [`parse`](crate::parse()) built without errors, `parse(print(ast))` equals `ast` by
//! [`same_tree`] (spans aside) at the same Molang version. It adds no parentheses — the tree
//! keeps the source's own groups as [`Expr::Group`] nodes — so operands are printed in the
//! order and grouping the grammar gives them. Shrunk fuzz cases read as Molang this way.
//!
//! Both walk the tree with an explicit stack: a parsed chain can be millions of nodes deep.
//!
//! ```
//! let parsed = grammar::parse("V.X=1;;Return  math.ABS(v.x)*-2;", Default::default());
//! let text = grammar::print::print(&parsed.ast);
//! // The empty statement's `;` moves to the end: the tree keeps only how many there are.
//! assert_eq!(text, "v.x = 1; return math.abs(v.x) * -2;;");
//! let again = grammar::parse(&text, Default::default());
//! assert!(grammar::print::same_tree(&parsed.ast, &again.ast));
//! ```

use crate::ast::{Ast, Block, Expr, ExprId, GroupKind, List, UnaryOp};

enum Work<'a> {
    Expr(ExprId),
    Block(&'a Block),
    Text(&'static str),
    Owned(String),
}

/// The whole program (`ast.root`); empty when the parse failed.
pub fn print(ast: &Ast) -> String {
    match &ast.root {
        Some(block) => print_block(ast, block),
        None => String::new(),
    }
}

/// One statement list, as it would appear in a program or inside a group.
pub fn print_block(ast: &Ast, block: &Block) -> String {
    run(ast, Work::Block(block))
}

/// One expression.
pub fn print_expr(ast: &Ast, id: ExprId) -> String {
    run(ast, Work::Expr(id))
}

/// Number text the lexer reads back to the same f32. Literals are never negative or NaN;
/// an overflowing literal is infinity, which `1e39` reads back as.
fn number(x: f32) -> String {
    if x.is_infinite() {
        "1e39".to_string()
    } else {
        format!("{x}")
    }
}

fn run(ast: &Ast, start: Work<'_>) -> String {
    let mut out = String::new();
    let mut stack = vec![start];
    // Pieces of the current node in reading order; pushed reversed onto the stack.
    let mut pieces: Vec<Work<'_>> = Vec::new();
    while let Some(work) = stack.pop() {
        match work {
            Work::Text(t) => out.push_str(t),
            Work::Owned(s) => out.push_str(&s),
            Work::Block(b) => block_pieces(ast, b, &mut pieces),
            Work::Expr(id) => expr_pieces(ast, id, &mut pieces),
        }
        stack.extend(pieces.drain(..).rev());
    }
    out
}

fn block_pieces<'a>(ast: &'a Ast, b: &'a Block, out: &mut Vec<Work<'a>>) {
    let n = b.statements.len();
    // `;` that end a statement; the others come from empty statements, whose positions the
    // tree does not keep (only their count), so they go first (a leading `;`) or last.
    let ending = if b.trailing_semicolon {
        n
    } else {
        n.saturating_sub(1)
    };
    let mut extra = (b.semicolons as usize).saturating_sub(ending);
    if b.leading_semicolon && extra > 0 {
        out.push(Work::Text("; "));
        extra -= 1;
    }
    for (i, &s) in ast.list(b.statements).iter().enumerate() {
        let last = i + 1 == n;
        if last && !b.trailing_semicolon {
            for _ in 0..extra {
                out.push(Work::Text("; "));
            }
            extra = 0;
        }
        out.push(Work::Expr(s));
        if !last {
            out.push(Work::Text("; "));
        } else if b.trailing_semicolon {
            out.push(Work::Text(";"));
        }
    }
    for _ in 0..extra {
        out.push(Work::Text(";"));
    }
}

/// `lhs`, the operator, `rhs`.
fn infix<'a>(lhs: ExprId, op: Work<'a>, rhs: ExprId, out: &mut Vec<Work<'a>>) {
    out.extend([Work::Expr(lhs), op, Work::Expr(rhs)]);
}

fn list<'a>(args: &[ExprId], out: &mut Vec<Work<'a>>) {
    for (i, &a) in args.iter().enumerate() {
        if i > 0 {
            out.push(Work::Text(", "));
        }
        out.push(Work::Expr(a));
    }
}

fn expr_pieces<'a>(ast: &'a Ast, id: ExprId, out: &mut Vec<Work<'a>>) {
    match ast.expr(id) {
        Expr::Number(x) => out.push(Work::Owned(number(*x))),
        Expr::String(s) => out.push(Work::Owned(format!("'{}'", ast.name(*s)))),
        Expr::Path(p) => out.push(Work::Owned(ast.name(*p).to_owned())),
        Expr::True => out.push(Work::Text("true")),
        Expr::False => out.push(Work::Text("false")),
        Expr::This => out.push(Work::Text("this")),
        Expr::Break => out.push(Work::Text("break")),
        Expr::Continue => out.push(Work::Text("continue")),
        Expr::Call { callee, args, .. } => {
            out.push(Work::Owned(format!("{}(", ast.name(*callee))));
            list(ast.list(*args), out);
            out.push(Work::Text(")"));
        }
        Expr::Index { array, index, .. } => {
            out.push(Work::Owned(format!("{}[", ast.name(*array))));
            out.push(Work::Expr(*index));
            out.push(Work::Text("]"));
        }
        Expr::Loop { args } => {
            out.push(Work::Text("loop("));
            list(ast.list(*args), out);
            out.push(Work::Text(")"));
        }
        Expr::ForEach { args } => {
            out.push(Work::Text("for_each("));
            list(ast.list(*args), out);
            out.push(Work::Text(")"));
        }
        Expr::Unary { op, operand } => {
            out.push(Work::Text(match op {
                UnaryOp::Neg => "-",
                UnaryOp::Not => "!",
            }));
            out.push(Work::Expr(*operand));
        }
        Expr::Binary { op, lhs, rhs } => {
            infix(*lhs, Work::Owned(format!(" {} ", op.symbol())), *rhs, out)
        }
        Expr::Conditional {
            cond,
            then,
            otherwise,
        } => {
            out.push(Work::Expr(*cond));
            out.push(Work::Text(" ? "));
            out.push(Work::Expr(*then));
            if let Some(o) = otherwise {
                out.push(Work::Text(" : "));
                out.push(Work::Expr(*o));
            }
        }
        Expr::Coalesce { lhs, rhs } => infix(*lhs, Work::Text(" ?? "), *rhs, out),
        Expr::Assign { target, value } => infix(*target, Work::Text(" = "), *value, out),
        Expr::Arrow { lhs, rhs } => infix(*lhs, Work::Text("->"), *rhs, out),
        Expr::Group { kind, body } => {
            let (open, close) = match kind {
                GroupKind::Paren => ("(", ")"),
                GroupKind::Brace => ("{", "}"),
                GroupKind::Bracket => ("[", "]"),
            };
            out.push(Work::Text(open));
            out.push(Work::Block(body));
            out.push(Work::Text(close));
        }
        Expr::Return { value } => {
            out.push(Work::Text("return"));
            if let Some(v) = value {
                out.push(Work::Text(" "));
                out.push(Work::Expr(*v));
            }
        }
    }
}

enum Pair<'a> {
    Expr(ExprId, ExprId),
    Block(&'a Block, &'a Block),
}

/// Whether two parsed programs have the same tree, spans aside (numbers compare by bits).
pub fn same_tree(a: &Ast, b: &Ast) -> bool {
    match (&a.root, &b.root) {
        (Some(x), Some(y)) => compare(a, b, Pair::Block(x, y)),
        (None, None) => true,
        _ => false,
    }
}

/// Whether expression `x` of `a` and `y` of `b` have the same tree, spans aside.
pub fn same_expr(a: &Ast, x: ExprId, b: &Ast, y: ExprId) -> bool {
    compare(a, b, Pair::Expr(x, y))
}

fn compare<'a>(a: &'a Ast, b: &'a Ast, start: Pair<'a>) -> bool {
    let mut stack = vec![start];
    while let Some(pair) = stack.pop() {
        let (x, y) = match pair {
            Pair::Block(x, y) => {
                if x.statements.len() != y.statements.len()
                    || x.semicolons != y.semicolons
                    || x.trailing_semicolon != y.trailing_semicolon
                    || x.leading_semicolon != y.leading_semicolon
                {
                    return false;
                }
                let pairs = a.list(x.statements).iter().zip(b.list(y.statements));
                stack.extend(pairs.map(|(&p, &q)| Pair::Expr(p, q)));
                continue;
            }
            Pair::Expr(x, y) => (a.expr(x), b.expr(y)),
        };
        let lists = |p: &List, q: &List, stack: &mut Vec<Pair<'a>>| {
            let (p, q) = (a.list(*p), b.list(*q));
            if p.len() != q.len() {
                return false;
            }
            stack.extend(p.iter().zip(q).map(|(&p, &q)| Pair::Expr(p, q)));
            true
        };
        let ok = match (x, y) {
            (Expr::Number(p), Expr::Number(q)) => p.to_bits() == q.to_bits(),
            (Expr::String(p), Expr::String(q)) | (Expr::Path(p), Expr::Path(q)) => {
                a.name(*p) == b.name(*q)
            }
            (Expr::True, Expr::True)
            | (Expr::False, Expr::False)
            | (Expr::This, Expr::This)
            | (Expr::Break, Expr::Break)
            | (Expr::Continue, Expr::Continue) => true,
            (
                Expr::Call {
                    callee: c1,
                    args: a1,
                    ..
                },
                Expr::Call {
                    callee: c2,
                    args: a2,
                    ..
                },
            ) => a.name(*c1) == b.name(*c2) && lists(a1, a2, &mut stack),
            (
                Expr::Index {
                    array: n1,
                    index: i1,
                    ..
                },
                Expr::Index {
                    array: n2,
                    index: i2,
                    ..
                },
            ) => {
                stack.push(Pair::Expr(*i1, *i2));
                a.name(*n1) == b.name(*n2)
            }
            (Expr::Loop { args: a1 }, Expr::Loop { args: a2 })
            | (Expr::ForEach { args: a1 }, Expr::ForEach { args: a2 }) => lists(a1, a2, &mut stack),
            (
                Expr::Unary {
                    op: o1,
                    operand: e1,
                },
                Expr::Unary {
                    op: o2,
                    operand: e2,
                },
            ) => {
                stack.push(Pair::Expr(*e1, *e2));
                o1 == o2
            }
            (
                Expr::Binary {
                    op: o1,
                    lhs: l1,
                    rhs: r1,
                },
                Expr::Binary {
                    op: o2,
                    lhs: l2,
                    rhs: r2,
                },
            ) => {
                stack.push(Pair::Expr(*l1, *l2));
                stack.push(Pair::Expr(*r1, *r2));
                o1 == o2
            }
            (
                Expr::Conditional {
                    cond: c1,
                    then: t1,
                    otherwise: e1,
                },
                Expr::Conditional {
                    cond: c2,
                    then: t2,
                    otherwise: e2,
                },
            ) => {
                stack.push(Pair::Expr(*c1, *c2));
                stack.push(Pair::Expr(*t1, *t2));
                match (e1, e2) {
                    (Some(p), Some(q)) => {
                        stack.push(Pair::Expr(*p, *q));
                        true
                    }
                    (None, None) => true,
                    _ => false,
                }
            }
            (Expr::Coalesce { lhs: l1, rhs: r1 }, Expr::Coalesce { lhs: l2, rhs: r2 })
            | (Expr::Arrow { lhs: l1, rhs: r1 }, Expr::Arrow { lhs: l2, rhs: r2 })
            | (
                Expr::Assign {
                    target: l1,
                    value: r1,
                },
                Expr::Assign {
                    target: l2,
                    value: r2,
                },
            ) => {
                stack.push(Pair::Expr(*l1, *l2));
                stack.push(Pair::Expr(*r1, *r2));
                true
            }
            (Expr::Group { kind: k1, body: b1 }, Expr::Group { kind: k2, body: b2 }) => {
                stack.push(Pair::Block(b1, b2));
                k1 == k2
            }
            (Expr::Return { value: v1 }, Expr::Return { value: v2 }) => match (v1, v2) {
                (Some(p), Some(q)) => {
                    stack.push(Pair::Expr(*p, *q));
                    true
                }
                (None, None) => true,
                _ => false,
            },
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, ParseOptions};

    /// `None` when `src` itself does not parse at `version`.
    fn round_trip(src: &str, version: i16) -> Option<String> {
        let options = ParseOptions { version };
        let parsed = parse(src, options);
        if parsed.has_errors() {
            return None;
        }
        let text = print(&parsed.ast);
        let again = parse(&text, options);
        assert!(
            !again.has_errors(),
            "{src} → {text}: {:?}",
            again.diagnostics
        );
        assert!(same_tree(&parsed.ast, &again.ast), "{src} → {text}");
        Some(text)
    }

    #[test]
    fn prints_what_it_parsed() {
        for src in [
            "1",
            "v.a = 1; v.b = v.a * 2 / 3 * 4 / 5; return v.b;",
            ";;v.x = 1;;",
            "v.x = 1; ; ; return v.x",
            "a ? b ? c : d : e ? f : g",
            "a ? b ? c",
            "a ? (b ? c) : d",
            "a || b && c == d < e",
            "-!-(1) - -1 + !2",
            "v.x ?? v.y ?? 3",
            "loop(3, {v.x = (v.x ?? 0) + 1; v.x > 2 ? break : continue;});",
            "for_each(t.e, q.get_nearby_entities(4), { t.e->v.y = 1; });",
            "array.skins[q.variant] == 'Hello World'",
            "[1]; {2;}; (3;);",
            "1e39 + 0.0000001 + 340282350000000000000000000000000000000 + 5.",
            "return",
            "this->v.x",
        ] {
            assert!(round_trip(src, 13).is_some(), "{src} must parse");
            for version in [6, 5, 4, -1] {
                round_trip(src, version);
            }
        }
    }

    #[test]
    fn legacy_conditional_chain_round_trips() {
        let src = format!("{}0", "v.a ? 1 : ".repeat(50));
        assert!(round_trip(&src, 4).is_some());
    }

    #[test]
    fn million_deep_chain_prints_without_recursion() {
        let src = format!("1{}", "+1".repeat(1_000_000));
        let parsed = parse(&src, ParseOptions::default());
        let text = print(&parsed.ast);
        assert_eq!(text.len(), 1 + 4 * 1_000_000);
        let again = parse(&text, ParseOptions::default());
        assert!(same_tree(&parsed.ast, &again.ast));
    }

    #[test]
    fn different_trees_differ() {
        let a = parse("1 + 2 * 3", ParseOptions::default());
        let b = parse("(1 + 2) * 3", ParseOptions::default());
        let c = parse("1 + 2 * 4", ParseOptions::default());
        assert!(!same_tree(&a.ast, &b.ast));
        assert!(!same_tree(&a.ast, &c.ast));
        assert!(same_tree(&a.ast, &a.ast));
    }
}
