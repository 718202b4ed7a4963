//! The game's own compiler: the shape the game gives a checked program when it loads the text,
//! which both back ends run. It changes values, so it is part of the semantics, on both
//! platforms (each form is computed per platform, x86-64 first).
//!
//! * A subtree of constants folds to one number, computed as the game folds it: a division by
//!   a constant below the guard gives 0 (also for a NaN divisor, also on x86-64), `math.mod`
//!   by 0 gives NaN and keeps a `−0` remainder, a negation flips a NaN's sign. A constant
//!   assigned directly is stored as `c·1 + 0` (so a folded `−0` becomes `+0`), but a constant
//!   branch of `?:` keeps its `−0`.
//! * `x·c`, `x + c` and `−x` over a run-time `x` become one post-operation `x·S + O`
//!   ([`Node::Post`]), applied by `x`'s own instruction: `−v.x` is `v.x·(−1) + 0`, so it is
//!   `+0` for a zero `v.x`. Chained constant factors are multiplied together first
//!   (`(v.k·3)·(1/3)` is `v.k·1`).
//! * `a − b` is `a + b·(−1)`; nested sums are flattened (an inner sum's scale multiplied into its
//!   terms) and their constant terms added together into the offset before the run-time terms
//!   are summed: `v.a + v.b + 1 + 2` is `(v.a + v.b) + 3`.
//! * A literal divisor becomes a multiplication by its reciprocal (0 below the guard), so the
//!   dividend is evaluated and `v.x / 0` of −2 is `−0`.
//! * How an operand applies its post-operation: generally `raw·S + O` (rounded twice on
//!   x86-64, once on arm64) and the raw value itself for `(1, 0)`; a comparison or logic node
//!   picks `S + O` or `O`; `math.sign` gives `±(S + O)` (so `v.x = -1; math.sign(v.x) + 1` is
//!   −2); a division the guard stops is 0 without it; on arm64 a product scales its left factor
//!   first (`(l·S)·r + O`, rounded once) and a quotient its dividend (`(n·S)/d + O`).
//!
//! Not reproduced (listed in `tests/divergences/edge-semantics.tsv`): the merge of sum terms
//! that print alike or read the same variable, the flattening of nested `&&` / `||` (which drops
//! an inner post-operation), `math.mod`'s own post-operation rules, and arm64 builtins that apply
//! their post-operation inside their formula.
//!
//! Source: molangx (bedrock-crustaceans/molangx, commit ffa4a42) `src/compile/sema/fold.rs`,
//! `sum.rs`, `src/numeric/post_op.rs`, `instr.rs` and `arch/`, its model of the engine's
//! optimiser, checked against trees the game printed (`molangx-parse-vectors.json`) and the
//! values measured in its `tests/measured_*.rs`.

use crate::builtins::math::MathFn;
use crate::builtins::platform::Platform;
use crate::interp::pure_math;
use crate::ir::{ArithOp, CmpOp, Node, NodeId, PostOp, Program};
use grammar::Span;

type Pair = [f32; 2];
type Posts = [PostOp; 2];

const ID: Posts = [PostOp::IDENTITY; 2];

/// A folded subtree.
enum Val {
    /// A number (per platform).
    Const(Pair),
    /// An emitted node with the post-operation its parents folded into it.
    Run(NodeId, Posts),
    /// A flattened sum: its run-time terms in order, each with its post-operation, the sum's
    /// own post-operation and the span of the `+` that made it.
    Sum(Vec<(NodeId, Posts)>, Posts, Span),
}

/// Rewrites a checked program into the form the game runs. Node ids change; the spans of the
/// nodes that remain are kept.
pub(crate) fn fold(program: Program) -> Program {
    let mut f = Folder {
        src: &program,
        nodes: Vec::with_capacity(program.nodes.len()),
        spans: Vec::with_capacity(program.spans.len()),
    };
    let root = f.fold(program.root);
    let span = program.span(program.root);
    let root = f.emit_val(root, span);
    let Folder { nodes, spans, .. } = f;
    Program {
        nodes,
        spans,
        root,
        source: program.source,
    }
}

struct Folder<'a> {
    src: &'a Program,
    nodes: Vec<Node>,
    spans: Vec<Span>,
}

fn per(f: impl Fn(Platform) -> f32) -> Pair {
    [f(Platform::X86_64), f(Platform::Arm64)]
}

fn per_post(f: impl Fn(Platform) -> PostOp) -> Posts {
    [f(Platform::X86_64), f(Platform::Arm64)]
}

fn truthy(x: f32) -> bool {
    x != 0.0
}

fn bool_num(b: bool) -> f32 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// A constant operand as a factor or a term: `c·1 + 0` (a `−0` becomes `+0`).
fn as_operand(p: Platform, c: f32) -> f32 {
    p.mul_add(1.0, c, 0.0)
}

/// `Mul(child, c)` folded into the child's post-operation, under the node's own `outer`.
fn fold_scaled(p: Platform, outer: PostOp, c: f32, child: PostOp) -> PostOp {
    let k = p.mul(outer.scale, c);
    let scale = p.mul(k, child.scale);
    let offset = match p {
        Platform::X86_64 => p.add(p.mul(p.mul(c, child.offset), outer.scale), outer.offset),
        Platform::Arm64 => p.mul_add(k, child.offset, outer.offset),
    };
    PostOp { scale, offset }
}

/// `Negate(child)` folded into the child's post-operation, under the node's own `outer`.
fn fold_negated(p: Platform, outer: PostOp, child: PostOp) -> PostOp {
    PostOp {
        scale: -p.mul(outer.scale, child.scale),
        offset: p.mul_sub(child.offset, outer.scale, outer.offset),
    }
}

/// `a / b` of constants: 0 below the guard or for a NaN divisor, on both platforms.
fn fold_div(p: Platform, a: f32, b: f32) -> f32 {
    if b.abs() >= f32::EPSILON {
        p.div(a, b)
    } else {
        0.0
    }
}

/// The factor a literal divisor becomes.
fn reciprocal(p: Platform, c: f32) -> f32 {
    if c.abs() >= f32::EPSILON {
        p.div(1.0, c)
    } else {
        0.0
    }
}

impl Folder<'_> {
    fn emit(&mut self, node: Node, span: Span) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(node);
        self.spans.push(span);
        id
    }

    fn emit_const(&mut self, c: Pair, span: Span) -> NodeId {
        if c[0].to_bits() == c[1].to_bits() {
            self.emit(Node::Const(c[0]), span)
        } else {
            self.emit(Node::PlatformConst(c), span)
        }
    }

    fn emit_post(&mut self, id: NodeId, post: Posts) -> NodeId {
        if post.iter().all(|p| p.is_identity()) {
            return id;
        }
        let span = self.spans[id.0 as usize];
        self.emit(Node::Post { operand: id, post }, span)
    }

    /// A folded subtree as one node.
    fn emit_val(&mut self, v: Val, span: Span) -> NodeId {
        match v {
            Val::Const(c) => self.emit_const(c, span),
            Val::Run(id, post) => self.emit_post(id, post),
            Val::Sum(terms, post, span) => {
                let mut terms = terms.into_iter();
                let (first, p0) = terms.next().expect("a sum has terms");
                let mut acc = self.emit_post(first, p0);
                for (t, pt) in terms {
                    let rhs = self.emit_post(t, pt);
                    acc = self.emit(
                        Node::Arith {
                            op: ArithOp::Add,
                            lhs: acc,
                            rhs,
                        },
                        span,
                    );
                }
                self.emit_post(acc, post)
            }
        }
    }

    /// Folds `id` and returns it as one node.
    fn node(&mut self, id: NodeId) -> NodeId {
        let v = self.fold(id);
        self.emit_val(v, self.src.span(id))
    }

    fn nodes_of(&mut self, ids: &[NodeId]) -> Box<[NodeId]> {
        ids.iter().map(|&a| self.node(a)).collect()
    }

    fn run(&mut self, node: Node, span: Span) -> Val {
        Val::Run(self.emit(node, span), ID)
    }

    fn fold(&mut self, id: NodeId) -> Val {
        let src = self.src;
        let span = src.span(id);
        match src.node(id) {
            Node::Const(c) => Val::Const([*c, *c]),
            Node::PlatformConst(c) => Val::Const(*c),
            Node::Neg(e) => {
                let v = self.fold(*e);
                self.negate(v)
            }
            Node::Arith { op, lhs, rhs } => {
                let a = self.fold(*lhs);
                let b = self.fold(*rhs);
                match op {
                    ArithOp::Add => self.sum(a, b, span),
                    ArithOp::Sub => {
                        let b = self.negate(b);
                        self.sum(a, b, span)
                    }
                    ArithOp::Mul => self.product(a, b, span),
                    ArithOp::Div => self.quotient(a, b, span),
                }
            }
            Node::Compare { op, lhs, rhs } => {
                let (a, b) = (self.fold(*lhs), self.fold(*rhs));
                if let (Val::Const(a), Val::Const(b)) = (&a, &b) {
                    return Val::Const(per(|p| {
                        let (x, y) = (a[p.index()], b[p.index()]);
                        bool_num(match op {
                            CmpOp::Lt => p.lt(x, y),
                            CmpOp::Le => p.le(x, y),
                            CmpOp::Gt => x > y,
                            CmpOp::Ge => x >= y,
                        })
                    }));
                }
                let (lhs, rhs) = (self.emit_val(a, span), self.emit_val(b, span));
                self.run(Node::Compare { op: *op, lhs, rhs }, span)
            }
            Node::Equal { negate, lhs, rhs } => {
                let (a, b) = (self.fold(*lhs), self.fold(*rhs));
                if let (Val::Const(a), Val::Const(b)) = (&a, &b) {
                    return Val::Const(per(|p| {
                        bool_num((a[p.index()] == b[p.index()]) != *negate)
                    }));
                }
                let (lhs, rhs) = (self.emit_val(a, span), self.emit_val(b, span));
                self.run(
                    Node::Equal {
                        negate: *negate,
                        lhs,
                        rhs,
                    },
                    span,
                )
            }
            Node::And(l, r) | Node::Or(l, r) => {
                let and = matches!(src.node(id), Node::And(..));
                let (a, b) = (self.fold(*l), self.fold(*r));
                if let (Val::Const(a), Val::Const(b)) = (&a, &b) {
                    // A boolean, never an operand's value: `1 && -0` is +0.
                    return Val::Const(per(|p| {
                        let (x, y) = (truthy(a[p.index()]), truthy(b[p.index()]));
                        bool_num(if and { x && y } else { x || y })
                    }));
                }
                let (l, r) = (self.emit_val(a, span), self.emit_val(b, span));
                self.run(if and { Node::And(l, r) } else { Node::Or(l, r) }, span)
            }
            Node::Not(e) => match self.fold(*e) {
                Val::Const(c) => Val::Const(c.map(|x| bool_num(!truthy(x)))),
                v => {
                    let e = self.emit_val(v, span);
                    self.run(Node::Not(e), span)
                }
            },
            Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                let c = self.fold(*cond);
                let t = self.fold(*then);
                let o = otherwise.map(|o| self.fold(o));
                if let (Val::Const(c), Val::Const(t)) = (&c, &t) {
                    match &o {
                        None => {
                            return Val::Const(per(|p| {
                                let i = p.index();
                                if truthy(c[i]) {
                                    t[i]
                                } else {
                                    0.0
                                }
                            }))
                        }
                        Some(Val::Const(o)) => {
                            return Val::Const(per(|p| {
                                let i = p.index();
                                if truthy(c[i]) {
                                    t[i]
                                } else {
                                    o[i]
                                }
                            }))
                        }
                        Some(_) => {}
                    }
                }
                let cond = self.emit_val(c, span);
                let then = self.emit_val(t, span);
                let otherwise = o.map(|o| self.emit_val(o, span));
                self.run(
                    Node::Cond {
                        cond,
                        then,
                        otherwise,
                    },
                    span,
                )
            }
            Node::Math { func, args } => {
                let vals: Vec<Val> = args.iter().map(|&a| self.fold(a)).collect();
                if !func.is_random() && vals.iter().all(|v| matches!(v, Val::Const(_))) {
                    let consts: Vec<Pair> = vals
                        .iter()
                        .map(|v| match v {
                            Val::Const(c) => *c,
                            _ => unreachable!(),
                        })
                        .collect();
                    return Val::Const(per(|p| {
                        let a: Vec<f32> = consts.iter().map(|c| c[p.index()]).collect();
                        match func {
                            // The fold's own remainder: NaN for 0, a `−0` kept.
                            MathFn::Mod => a[0] % a[1],
                            _ => pure_math(p, *func, &a),
                        }
                    }));
                }
                let arg_spans: Vec<Span> = args.iter().map(|&a| src.span(a)).collect();
                let args = vals
                    .into_iter()
                    .zip(arg_spans)
                    .map(|(v, s)| self.emit_val(v, s))
                    .collect();
                self.run(Node::Math { func: *func, args }, span)
            }
            Node::Assign {
                scope,
                slot,
                value,
                parents,
                copies,
            } => {
                let value = match self.fold(*value) {
                    // Stored as the constant's post-operation gives it: `−0` becomes `+0`.
                    Val::Const(c) => {
                        let c = per(|p| as_operand(p, c[p.index()]));
                        self.emit_const(c, src.span(*value))
                    }
                    v => self.emit_val(v, src.span(*value)),
                };
                self.run(
                    Node::Assign {
                        scope: *scope,
                        slot: *slot,
                        value,
                        parents: parents.clone(),
                        copies: copies.clone(),
                    },
                    span,
                )
            }
            Node::Block { stmts, simple } => {
                let stmts = if *simple && stmts.len() == 1 {
                    match self.fold(stmts[0]) {
                        v @ Val::Const(_) => return v,
                        v => Box::new([self.emit_val(v, src.span(stmts[0]))]) as Box<[NodeId]>,
                    }
                } else {
                    self.nodes_of(stmts)
                };
                self.run(
                    Node::Block {
                        stmts,
                        simple: *simple,
                    },
                    span,
                )
            }
            other => {
                let node = self.map_children(other);
                self.run(node, span)
            }
        }
    }

    /// A node whose value the fold leaves alone, its children folded.
    fn map_children(&mut self, node: &Node) -> Node {
        match node {
            Node::Const(_)
            | Node::PlatformConst(_)
            | Node::Str(_)
            | Node::Resource { .. }
            | Node::Array { .. }
            | Node::This
            | Node::Read { .. }
            | Node::Break
            | Node::Continue => node.clone(),
            Node::Index { array, index } => Node::Index {
                array: *array,
                index: self.node(*index),
            },
            Node::Query { query, args } => Node::Query {
                query: *query,
                args: self.nodes_of(args),
            },
            Node::PureQuery { func, args } => Node::PureQuery {
                func: *func,
                args: self.nodes_of(args),
            },
            Node::Math { func, args } => Node::Math {
                func: *func,
                args: self.nodes_of(args),
            },
            Node::Post { operand, post } => Node::Post {
                operand: self.node(*operand),
                post: *post,
            },
            Node::Neg(e) => Node::Neg(self.node(*e)),
            Node::Not(e) => Node::Not(self.node(*e)),
            Node::Discard(e) => Node::Discard(self.node(*e)),
            Node::Return(e) => Node::Return(self.node(*e)),
            Node::Arith { op, lhs, rhs } => Node::Arith {
                op: *op,
                lhs: self.node(*lhs),
                rhs: self.node(*rhs),
            },
            Node::Compare { op, lhs, rhs } => Node::Compare {
                op: *op,
                lhs: self.node(*lhs),
                rhs: self.node(*rhs),
            },
            Node::Equal { negate, lhs, rhs } => Node::Equal {
                negate: *negate,
                lhs: self.node(*lhs),
                rhs: self.node(*rhs),
            },
            Node::And(l, r) => Node::And(self.node(*l), self.node(*r)),
            Node::Or(l, r) => Node::Or(self.node(*l), self.node(*r)),
            Node::Cond {
                cond,
                then,
                otherwise,
            } => Node::Cond {
                cond: self.node(*cond),
                then: self.node(*then),
                otherwise: otherwise.map(|o| self.node(o)),
            },
            Node::Coalesce {
                scope,
                slot,
                lhs,
                rhs,
            } => Node::Coalesce {
                scope: *scope,
                slot: *slot,
                lhs: self.node(*lhs),
                rhs: self.node(*rhs),
            },
            Node::Assign {
                scope,
                slot,
                value,
                parents,
                copies,
            } => Node::Assign {
                scope: *scope,
                slot: *slot,
                value: self.node(*value),
                parents: parents.clone(),
                copies: copies.clone(),
            },
            Node::Arrow { entity, remote } => {
                let entity = self.node(*entity);
                let remote = match remote {
                    crate::ir::Remote::Variable(s) => crate::ir::Remote::Variable(*s),
                    crate::ir::Remote::Query { query, args } => crate::ir::Remote::Query {
                        query: *query,
                        args: self.nodes_of(args),
                    },
                };
                Node::Arrow { entity, remote }
            }
            Node::Block { stmts, simple } => Node::Block {
                stmts: self.nodes_of(stmts),
                simple: *simple,
            },
            Node::Loop { count, body } => Node::Loop {
                count: self.node(*count),
                body: self.node(*body),
            },
            Node::ForEach {
                scope,
                slot,
                array,
                body,
            } => Node::ForEach {
                scope: *scope,
                slot: *slot,
                array: self.node(*array),
                body: self.node(*body),
            },
        }
    }

    fn negate(&mut self, v: Val) -> Val {
        match v {
            Val::Const(c) => Val::Const(c.map(|x| -x)),
            Val::Run(id, post) => Val::Run(id, self.negated(post)),
            Val::Sum(terms, post, span) => Val::Sum(terms, self.negated(post), span),
        }
    }

    fn negated(&self, post: Posts) -> Posts {
        per_post(|p| fold_negated(p, PostOp::IDENTITY, post[p.index()]))
    }

    fn scaled(c: Pair, post: Posts) -> Posts {
        per_post(|p| {
            let i = p.index();
            fold_scaled(p, PostOp::IDENTITY, as_operand(p, c[i]), post[i])
        })
    }

    fn product(&mut self, a: Val, b: Val, span: Span) -> Val {
        match (a, b) {
            (Val::Const(a), Val::Const(b)) => {
                Val::Const(per(|p| p.mul(a[p.index()], b[p.index()])))
            }
            (Val::Const(c), v) | (v, Val::Const(c)) => match v {
                Val::Run(id, post) => Val::Run(id, Self::scaled(c, post)),
                Val::Sum(terms, post, s) => Val::Sum(terms, Self::scaled(c, post), s),
                Val::Const(_) => unreachable!("matched above"),
            },
            (a, b) => {
                let lhs = self.emit_val(a, span);
                let rhs = self.emit_val(b, span);
                self.run(
                    Node::Arith {
                        op: ArithOp::Mul,
                        lhs,
                        rhs,
                    },
                    span,
                )
            }
        }
    }

    fn quotient(&mut self, a: Val, b: Val, span: Span) -> Val {
        match (a, b) {
            (Val::Const(a), Val::Const(b)) => {
                Val::Const(per(|p| fold_div(p, a[p.index()], b[p.index()])))
            }
            // A literal divisor: a multiplication by its reciprocal, left as it is.
            (a, Val::Const(c)) => {
                let lhs = self.emit_val(a, span);
                let rhs = self.emit_const(per(|p| reciprocal(p, c[p.index()])), span);
                self.run(
                    Node::Arith {
                        op: ArithOp::Mul,
                        lhs,
                        rhs,
                    },
                    span,
                )
            }
            (a, b) => {
                let lhs = self.emit_val(a, span);
                let rhs = self.emit_val(b, span);
                self.run(
                    Node::Arith {
                        op: ArithOp::Div,
                        lhs,
                        rhs,
                    },
                    span,
                )
            }
        }
    }

    /// `a + b`: flattened, its constant term folded into the offset.
    fn sum(&mut self, a: Val, b: Val, span: Span) -> Val {
        if let (Val::Const(a), Val::Const(b)) = (&a, &b) {
            return Val::Const(per(|p| p.add(a[p.index()], b[p.index()])));
        }
        let mut own = ID;
        let mut terms: Vec<(NodeId, Posts)> = Vec::new();
        // After flattening there is at most one constant term.
        let mut constant: Option<Pair> = None;
        for child in [a, b] {
            match child {
                Val::Sum(inner, cp, _) => {
                    for p in Platform::ALL {
                        let i = p.index();
                        own[i].offset = p.mul_add(own[i].scale, cp[i].offset, own[i].offset);
                    }
                    // The inner sum's scale goes into each of its terms.
                    for (id, mut tp) in inner {
                        for p in Platform::ALL {
                            let i = p.index();
                            if cp[i].scale != 1.0 {
                                tp[i].scale = p.mul(tp[i].scale, cp[i].scale);
                                tp[i].offset = p.mul(tp[i].offset, cp[i].scale);
                            }
                        }
                        terms.push((id, tp));
                    }
                }
                Val::Run(id, post) => terms.push((id, post)),
                Val::Const(c) => constant = Some(c),
            }
        }
        if let Some(c) = constant {
            let c = per(|p| as_operand(p, c[p.index()]));
            if let [(id, post)] = terms[..] {
                let post = per_post(|p| {
                    let i = p.index();
                    PostOp {
                        scale: post[i].scale,
                        offset: p.add(post[i].offset, c[i]),
                    }
                });
                return Self::lift(id, post, own);
            }
            for p in Platform::ALL {
                let i = p.index();
                own[i].offset = p.mul_add(own[i].scale, c[i], own[i].offset);
            }
        }
        match terms.len() {
            0 => Val::Const([own[0].offset, own[1].offset]),
            1 => Self::lift(terms[0].0, terms[0].1, own),
            _ => Val::Sum(terms, own, span),
        }
    }

    /// The only term of a sum, the sum's post-operation applied after its own.
    fn lift(id: NodeId, post: Posts, own: Posts) -> Val {
        Val::Run(
            id,
            per_post(|p| {
                let i = p.index();
                PostOp {
                    scale: p.mul(post[i].scale, own[i].scale),
                    offset: p.mul_add(post[i].offset, own[i].scale, own[i].offset),
                }
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Names, Scope};

    fn folded(src: &str) -> Program {
        let checked = crate::check(src, &crate::CheckOptions::default(), &mut Names::default());
        checked
            .program
            .unwrap_or_else(|| panic!("{src} does not load"))
    }

    /// The node a simple expression's root block holds.
    fn top(p: &Program) -> NodeId {
        match p.node(p.root()) {
            Node::Block {
                stmts,
                simple: true,
            } if stmts.len() == 1 => stmts[0],
            _ => p.root(),
        }
    }

    fn post(p: &Program, id: NodeId) -> Option<(NodeId, f32, f32)> {
        match p.node(id) {
            Node::Post { operand, post } => {
                assert_eq!(post[0], post[1], "exact posts agree on both platforms");
                Some((*operand, post[0].scale, post[0].offset))
            }
            _ => None,
        }
    }

    fn is_read(p: &Program, id: NodeId) -> bool {
        matches!(
            p.node(id),
            Node::Read {
                scope: Scope::Variable,
                ..
            }
        )
    }

    #[test]
    fn trees_as_the_game_prints_them() {
        // vector #252 `(Mul v.x 0)`: a literal divisor is a factor, outside any post-operation.
        let p = folded("v.x/0");
        match p.node(top(&p)) {
            Node::Arith {
                op: ArithOp::Mul,
                lhs,
                rhs,
            } => {
                assert!(is_read(&p, *lhs));
                assert_eq!(p.node(*rhs), &Node::Const(0.0));
            }
            other => panic!("{other:?}"),
        }
        // vector #1270 `[v.x*-1+0]`.
        let p = folded("-v.x");
        let (x, s, o) = post(&p, top(&p)).expect("a post-operation");
        assert!(is_read(&p, x));
        assert_eq!((s, o.to_bits()), (-1.0, 0));
        // vector #40 `(Add v.a [v.b*-1+0] [v.c*-1+0])`, summed left to right.
        let p = folded("v.a-v.b-v.c");
        let Node::Arith {
            op: ArithOp::Add,
            lhs,
            rhs,
        } = p.node(top(&p))
        else {
            panic!("a sum")
        };
        assert_eq!(post(&p, *rhs).map(|(_, s, o)| (s, o)), Some((-1.0, 0.0)));
        let Node::Arith {
            op: ArithOp::Add,
            lhs: a,
            rhs: b,
        } = p.node(*lhs)
        else {
            panic!("a left-nested sum")
        };
        assert!(is_read(&p, *a));
        assert_eq!(post(&p, *b).map(|(_, s, o)| (s, o)), Some((-1.0, 0.0)));
        // vector #766 `[(Add v.x v.y)*1+3.14159]`; constant terms first.
        let p = folded("v.a + v.b + 1 + 2");
        let (sum, s, o) = post(&p, top(&p)).expect("a post-operation");
        assert!(matches!(
            p.node(sum),
            Node::Arith {
                op: ArithOp::Add,
                ..
            }
        ));
        assert_eq!((s, o), (1.0, 3.0));
        // vector #772 `[v.x*-2+-1]`.
        let p = folded("v.x * -2 - 1");
        assert_eq!(
            post(&p, top(&p)).map(|(_, s, o)| (s, o)),
            Some((-2.0, -1.0))
        );
        // vector #368 `(Add v.a v.b)`: two negations cancel.
        let p = folded("v.a - -v.b");
        let Node::Arith {
            op: ArithOp::Add,
            rhs,
            ..
        } = p.node(top(&p))
        else {
            panic!("a sum")
        };
        assert!(is_read(&p, *rhs));
        // Chained factors multiply first: `v.k·(3·(1/3))` is `v.k`.
        let p = folded("(v.k*3)*(1/3)");
        assert!(is_read(&p, top(&p)));
    }
}
