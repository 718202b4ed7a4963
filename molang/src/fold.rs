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
//! * The terms of a flattened sum merge. With no constant term, terms that all print alike in
//!   the game's tree text (a constant a comparison, `min`/`max`, `pow` or `mod` took in is not
//!   printed) become the first of them with the post-operations summed: `v.x = 2;
//!   (v.x == 1) + (v.x == 2)` is `(v.x == 1)·2`, 0. Otherwise terms that read the same
//!   `variable.*` merge into the first (post-operations added); a merged term whose scale
//!   cancels leaves with its offset: `(v.x + 1) - v.x` is 0.
//! * A sum whose terms all cancel is the constant of its offset, which keeps the sum's
//!   post-operation: where it moves into its parent (a factor, a term, an assigned value, an
//!   operand a comparison, `min`/`max`/`pow`/`mod` takes in) it is `v·S + O`, elsewhere (a
//!   branch of `?:`, the value of the expression) `v`: `v.r = (v.x + v.y + 1) + (-v.x - v.y)`
//!   stores 2, the same sum as a branch gives 1.
//! * A nested `&&` in a `&&` (`||` in a `||`) is one n-ary node with its parent: its
//!   post-operation is dropped (`v.a && ((v.b && v.c) - 1)` is `v.a && v.b && v.c`).
//!
//! Not reproduced: `math.mod`'s own post-operation rules and arm64 builtins that apply their
//! post-operation inside their formula (both at run time, not in the tree); the accidental
//! collisions of the game's tree text (it runs operators, names and numbers together without
//! separators); terms with queries, random functions or assignments print alike to nothing, as
//! in the game, and so do the statement forms (blocks, loops, `->`, `??`, arrays), which we do
//! not print.
//!
//! Source: molangx (bedrock-crustaceans/molangx, commit ffa4a42) `src/compile/sema/fold.rs`,
//! `sum.rs`, `src/numeric/post_op.rs`, `instr.rs` and `arch/`, its model of the engine's
//! optimiser, checked against trees the game printed (`molangx-parse-vectors.json`) and the
//! values measured in its `tests/measured_*.rs`.

use crate::builtins::math::MathFn;
use crate::builtins::platform::Platform;
use crate::interp::pure_math;
use crate::ir::{ArithOp, Assign, CmpOp, Names, Node, NodeId, PostOp, Program, Scope, Slot};
use grammar::Span;
use std::collections::HashMap;

type Pair = [f32; 2];
type Posts = [PostOp; 2];

const ID: Posts = [PostOp::IDENTITY; 2];

/// A folded subtree.
enum Val {
    /// A number (per platform) and the post-operation it keeps. Only a sum whose terms all
    /// cancel keeps one (its own, `(1, O)` with the value `O`): it counts where the constant
    /// moves into its parent (a factor, a term, an assigned value, an operand a comparison,
    /// `math.min`/`max`/`pow`/`mod` takes in) as `v·S + O`, and nowhere else (a fold, a branch
    /// of `?:`, the value of the whole expression).
    Const(Pair, Posts),
    /// An emitted node with the post-operation its parents folded into it.
    Run(NodeId, Posts),
    /// A flattened sum: its run-time terms in order, each with its post-operation, the sum's
    /// own post-operation and the span of the `+` that made it.
    Sum(Vec<(NodeId, Posts)>, Posts, Span),
}

/// Rewrites a checked program into the form the game runs. Node ids change; the spans of the
/// nodes that remain are kept.
pub(crate) fn fold(program: Program, names: &Names) -> Program {
    let mut f = Folder {
        src: &program,
        names,
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
    names: &'a Names,
    nodes: Vec<Node>,
    spans: Vec<Span>,
}

fn per(f: impl Fn(Platform) -> f32) -> Pair {
    [f(Platform::X86_64), f(Platform::Arm64)]
}

fn per_post(f: impl Fn(Platform) -> PostOp) -> Posts {
    [f(Platform::X86_64), f(Platform::Arm64)]
}

/// The longest term text that is built.
const TERM_TEXT_LIMIT: usize = 4096;

/// A number as the game's tree text prints it: six decimals.
fn write_fixed6(out: &mut String, x: f32) {
    use std::fmt::Write as _;
    let _ = write!(out, "{x:.6}");
}

/// A post-operation in the term text, after the node: nothing for the plain form.
fn write_post(out: &mut String, post: PostOp) {
    if !post.is_identity() {
        out.push('*');
        write_fixed6(out, post.scale);
        out.push('+');
        write_fixed6(out, post.offset);
    }
}

/// A plain constant.
fn konst(c: Pair) -> Val {
    Val::Const(c, ID)
}

/// A constant as it moves into its parent: `v·S + O` (a `−0` becomes `+0`).
fn moved(c: Pair, post: Posts) -> Pair {
    per(|p| {
        let i = p.index();
        p.mul_add(post[i].scale, c[i], post[i].offset)
    })
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
            Val::Const(c, _) => self.emit_const(c, span),
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

    /// A folded operand its parent takes in: a constant as it moves (`v·S + O`).
    fn emit_operand(&mut self, v: Val, span: Span) -> NodeId {
        match v {
            Val::Const(c, post) => self.emit_const(moved(c, post), span),
            v => self.emit_val(v, span),
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
            Node::Const(c) => konst([*c, *c]),
            Node::PlatformConst(c) => konst(*c),
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
                if let (Val::Const(a, _), Val::Const(b, _)) = (&a, &b) {
                    return konst(per(|p| bool_num(op.holds(p, a[p.index()], b[p.index()]))));
                }
                // A constant second operand moves into the comparison.
                let (lhs, rhs) = (self.emit_val(a, span), self.emit_operand(b, span));
                self.run(Node::Compare { op: *op, lhs, rhs }, span)
            }
            Node::Equal { negate, lhs, rhs } => {
                let (a, b) = (self.fold(*lhs), self.fold(*rhs));
                if let (Val::Const(a, _), Val::Const(b, _)) = (&a, &b) {
                    return konst(per(|p| bool_num((a[p.index()] == b[p.index()]) != *negate)));
                }
                // A constant operand on either side moves into the test.
                let (lhs, rhs) = (self.emit_operand(a, span), self.emit_operand(b, span));
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
                if let (Val::Const(a, _), Val::Const(b, _)) = (&a, &b) {
                    // A boolean, never an operand's value: `1 && -0` is +0.
                    return konst(per(|p| {
                        let (x, y) = (truthy(a[p.index()]), truthy(b[p.index()]));
                        bool_num(if and { x && y } else { x || y })
                    }));
                }
                // A nested node of the same operator is one n-ary node with this one: its
                // post-operation is dropped (`v.a && ((v.b && v.c) - 1)` is `v.a && v.b && v.c`).
                let flat = |f: &Self, v: Val| match v {
                    Val::Run(id, _)
                        if matches!(
                            (and, &f.nodes[id.0 as usize]),
                            (true, Node::And(..)) | (false, Node::Or(..))
                        ) =>
                    {
                        Val::Run(id, ID)
                    }
                    v => v,
                };
                let (a, b) = (flat(self, a), flat(self, b));
                let (l, r) = (self.emit_val(a, span), self.emit_val(b, span));
                self.run(if and { Node::And(l, r) } else { Node::Or(l, r) }, span)
            }
            Node::Not(e) => match self.fold(*e) {
                Val::Const(c, _) => konst(c.map(|x| bool_num(!truthy(x)))),
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
                if let (Val::Const(c, _), Val::Const(t, _)) = (&c, &t) {
                    match &o {
                        None => {
                            return konst(per(|p| {
                                let i = p.index();
                                if truthy(c[i]) {
                                    t[i]
                                } else {
                                    0.0
                                }
                            }))
                        }
                        Some(Val::Const(o, _)) => {
                            return konst(per(|p| {
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
                if !func.is_random() && vals.iter().all(|v| matches!(v, Val::Const(..))) {
                    let consts: Vec<Pair> = vals
                        .iter()
                        .map(|v| match v {
                            Val::Const(c, _) => *c,
                            _ => unreachable!(),
                        })
                        .collect();
                    return konst(per(|p| {
                        let a: Vec<f32> = consts.iter().map(|c| c[p.index()]).collect();
                        match func {
                            // The fold's own remainder: NaN for 0, a `−0` kept.
                            MathFn::Mod => a[0] % a[1],
                            _ => pure_math(p, *func, &a),
                        }
                    }));
                }
                let arg_spans: Vec<Span> = args.iter().map(|&a| src.span(a)).collect();
                // `min` and `max` take a constant operand on either side into the call, `pow`
                // and `mod` a second one.
                let moves = |i: usize| match func {
                    MathFn::Min | MathFn::Max => true,
                    MathFn::Pow | MathFn::Mod => i == 1,
                    _ => false,
                };
                let args = vals
                    .into_iter()
                    .zip(arg_spans)
                    .enumerate()
                    .map(|(i, (v, s))| {
                        if moves(i) {
                            self.emit_operand(v, s)
                        } else {
                            self.emit_val(v, s)
                        }
                    })
                    .collect();
                self.run(Node::Math { func: *func, args }, span)
            }
            Node::Assign(a) => {
                let value = match self.fold(a.value) {
                    // Stored as the constant's post-operation gives it: `−0` becomes `+0`.
                    Val::Const(c, post) => self.emit_const(moved(c, post), src.span(a.value)),
                    v => self.emit_val(v, src.span(a.value)),
                };
                self.run(Node::Assign(Assign { value, ..a.clone() }), span)
            }
            Node::Block { stmts, simple } => {
                let stmts = if *simple && stmts.len() == 1 {
                    match self.fold(stmts[0]) {
                        v @ Val::Const(..) => return v,
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
                // A node whose value the fold leaves alone, its children folded.
                let node = other.map_children(|c| self.node(c));
                self.run(node, span)
            }
        }
    }

    fn negate(&mut self, v: Val) -> Val {
        match v {
            // A fold reads the raw value: a kept post-operation is lost.
            Val::Const(c, _) => konst(c.map(|x| -x)),
            Val::Run(id, post) => Val::Run(id, self.negated(post)),
            Val::Sum(terms, post, span) => Val::Sum(terms, self.negated(post), span),
        }
    }

    fn negated(&self, post: Posts) -> Posts {
        per_post(|p| fold_negated(p, PostOp::IDENTITY, post[p.index()]))
    }

    /// `post` under a constant factor `c` (moved into the product).
    fn scaled(c: Pair, post: Posts) -> Posts {
        per_post(|p| {
            let i = p.index();
            fold_scaled(p, PostOp::IDENTITY, c[i], post[i])
        })
    }

    fn product(&mut self, a: Val, b: Val, span: Span) -> Val {
        match (a, b) {
            (Val::Const(a, _), Val::Const(b, _)) => {
                konst(per(|p| p.mul(a[p.index()], b[p.index()])))
            }
            (Val::Const(c, cp), v) | (v, Val::Const(c, cp)) => match v {
                Val::Run(id, post) => Val::Run(id, Self::scaled(moved(c, cp), post)),
                Val::Sum(terms, post, s) => Val::Sum(terms, Self::scaled(moved(c, cp), post), s),
                Val::Const(..) => unreachable!("matched above"),
            },
            (a, b) => {
                let lhs = self.emit_val(a, span);
                let rhs = self.emit_val(b, span);
                self.run_arith(ArithOp::Mul, lhs, rhs, span)
            }
        }
    }

    /// `lhs op rhs` of two emitted operands, left to run.
    fn run_arith(&mut self, op: ArithOp, lhs: NodeId, rhs: NodeId, span: Span) -> Val {
        self.run(Node::Arith { op, lhs, rhs }, span)
    }

    fn quotient(&mut self, a: Val, b: Val, span: Span) -> Val {
        match (a, b) {
            (Val::Const(a, _), Val::Const(b, _)) => {
                konst(per(|p| fold_div(p, a[p.index()], b[p.index()])))
            }
            // A literal divisor: a multiplication by its reciprocal, left as it is.
            (a, Val::Const(c, _)) => {
                let lhs = self.emit_val(a, span);
                let rhs = self.emit_const(per(|p| reciprocal(p, c[p.index()])), span);
                self.run_arith(ArithOp::Mul, lhs, rhs, span)
            }
            (a, b) => {
                let lhs = self.emit_val(a, span);
                let rhs = self.emit_val(b, span);
                self.run_arith(ArithOp::Div, lhs, rhs, span)
            }
        }
    }

    /// `a + b`: flattened, its constant term folded into the offset.
    fn sum(&mut self, a: Val, b: Val, span: Span) -> Val {
        if let (Val::Const(a, _), Val::Const(b, _)) = (&a, &b) {
            return konst(per(|p| p.add(a[p.index()], b[p.index()])));
        }
        // A sum extended by one term (every `+` but the first of a left-nested chain): only
        // that term is new to the merges, the others are already merged.
        let only_last_new = matches!((&a, &b), (Val::Sum(..), Val::Run(..)));
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
                Val::Const(c, cp) => constant = Some(moved(c, cp)),
            }
        }
        if let Some(c) = constant {
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
        if constant.is_none() && self.terms_print_alike(&terms) {
            return self.merge_alike(&terms, own);
        }
        self.merge_variables(&mut terms, only_last_new);
        match terms.len() {
            // Every term cancelled: the offset, which keeps the sum's post-operation.
            0 => Val::Const([own[0].offset, own[1].offset], own),
            1 => Self::lift(terms[0].0, terms[0].1, own),
            _ => Val::Sum(terms, own, span),
        }
    }

    /// Whether every term prints as the first in the game's tree text ([`Folder::term_text`]).
    fn terms_print_alike(&self, terms: &[(NodeId, Posts)]) -> bool {
        let Some(((id, post), rest)) = terms.split_first() else {
            return false;
        };
        let Some(first) = self.term_text(*id, post[0]) else {
            return false;
        };
        rest.iter()
            .all(|(t, tp)| self.term_text(*t, tp[0]).as_deref() == Some(first.as_str()))
    }

    /// Terms that print alike: the first of them, the post-operations summed in two
    /// interleaved chains (even and odd positions), then the odd one out; a scale that cancels
    /// leaves the offset, as a sum whose terms all cancel.
    fn merge_alike(&self, terms: &[(NodeId, Posts)], own: Posts) -> Val {
        let post = per_post(|p| {
            let i = p.index();
            let (mut even, mut odd) = ((0.0, 0.0), (0.0, 0.0));
            let pairs = terms.chunks_exact(2);
            let rest = pairs.remainder();
            for pair in pairs {
                let (a, b) = (pair[0].1[i], pair[1].1[i]);
                even = (p.add(a.scale, even.0), p.add(a.offset, even.1));
                odd = (p.add(b.scale, odd.0), p.add(b.offset, odd.1));
            }
            let mut sum = (p.add(odd.0, even.0), p.add(odd.1, even.1));
            if let [(_, last)] = rest {
                sum = (p.add(last[i].scale, sum.0), p.add(last[i].offset, sum.1));
            }
            PostOp {
                scale: sum.0,
                offset: sum.1,
            }
        });
        // The scales are sums of the same values on both platforms: x86-64 decides.
        if post[0].scale == 0.0 {
            return Val::Const([own[0].offset, own[1].offset], own);
        }
        Val::Run(
            terms[0].0,
            per_post(|p| {
                let i = p.index();
                PostOp {
                    scale: p.mul(own[i].scale, post[i].scale),
                    offset: p.mul_add(own[i].scale, post[i].offset, own[i].offset),
                }
            }),
        )
    }

    /// The game's term text of a term with its post-operation (x86-64's; the platforms'
    /// posts differ only in the last bit of a fused offset, which six decimals hide): what
    /// two terms of a `+` are compared by. Each node prints its operator, its children and
    /// its post-operation to six decimals; a constant the node took in (a comparison's second
    /// operand, either of `==`, `min` and `max`, the second of `pow` and `mod`) is not printed,
    /// so `v.x == 1` and `v.x == 2` print alike. `None` (alike to nothing) for a term with a
    /// query, a random function or an assignment, and for the statement forms (blocks, loops,
    /// `->`, `??`, arrays), which we do not print; the game's text runs its parts together
    /// without separators, whose accidental collisions we do not reproduce.
    fn term_text(&self, id: NodeId, post: PostOp) -> Option<String> {
        let mut out = String::new();
        self.write_term(id, &mut out)?;
        write_post(&mut out, post);
        // Past this the text is not built (a member chain doubles it in the game).
        (out.len() <= TERM_TEXT_LIMIT).then_some(out)
    }

    fn write_term(&self, id: NodeId, out: &mut String) -> Option<()> {
        use std::fmt::Write as _;
        if out.len() > TERM_TEXT_LIMIT {
            return None;
        }
        let is_const = |n: NodeId| {
            matches!(
                self.nodes[n.0 as usize],
                Node::Const(_) | Node::PlatformConst(_)
            )
        };
        let children = |out: &mut String, head: &str, ids: &[NodeId]| {
            out.push_str(head);
            out.push('(');
            for &c in ids {
                self.write_term(c, out)?;
                out.push(',');
            }
            out.push(')');
            Some(())
        };
        match &self.nodes[id.0 as usize] {
            Node::Const(c) => write_fixed6(out, *c),
            Node::PlatformConst(c) => write_fixed6(out, c[0]),
            Node::Str(h) => {
                let _ = write!(out, "'{h}");
            }
            Node::Read { scope, slot } => {
                let _ = write!(
                    out,
                    "{}.{}",
                    scope.prefix(),
                    self.names.table(*scope).name(*slot)
                );
            }
            Node::This => out.push_str("this"),
            Node::Post { operand, post } => {
                self.write_term(*operand, out)?;
                write_post(out, post[0]);
            }
            Node::Neg(e) => children(out, "neg", &[*e])?,
            Node::Not(e) => children(out, "!", &[*e])?,
            Node::Arith { op, lhs, rhs } => match op {
                // A sum's terms, its chain of `+` nodes one n-ary node.
                ArithOp::Add => {
                    let mut terms = vec![*rhs];
                    let mut l = *lhs;
                    while let Node::Arith {
                        op: ArithOp::Add,
                        lhs,
                        rhs,
                    } = self.nodes[l.0 as usize]
                    {
                        terms.push(rhs);
                        l = lhs;
                    }
                    terms.push(l);
                    terms.reverse();
                    children(out, "+", &terms)?
                }
                ArithOp::Sub => children(out, "-", &[*lhs, *rhs])?,
                ArithOp::Mul => children(out, "*", &[*lhs, *rhs])?,
                ArithOp::Div => children(out, "/", &[*lhs, *rhs])?,
            },
            Node::Compare { op, lhs, rhs } => {
                let head = match op {
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                if is_const(*rhs) {
                    children(out, head, &[*lhs])?
                } else {
                    children(out, head, &[*lhs, *rhs])?
                }
            }
            Node::Equal { negate, lhs, rhs } => {
                let head = if *negate { "!=" } else { "==" };
                let is_str = |n: NodeId| matches!(self.nodes[n.0 as usize], Node::Str(_));
                // The constant (else the string) operand it took in.
                let kept: &[NodeId] = if is_const(*lhs) || (!is_const(*rhs) && is_str(*lhs)) {
                    &[*rhs]
                } else if is_const(*rhs) || is_str(*rhs) {
                    &[*lhs]
                } else {
                    &[*lhs, *rhs]
                };
                children(out, head, kept)?
            }
            Node::And(..) | Node::Or(..) => {
                let and = matches!(self.nodes[id.0 as usize], Node::And(..));
                // n-ary: nested nodes of the same operator are one.
                let mut operands = Vec::new();
                let mut stack = vec![id];
                while let Some(n) = stack.pop() {
                    match self.nodes[n.0 as usize] {
                        Node::And(l, r) if and => stack.extend([r, l]),
                        Node::Or(l, r) if !and => stack.extend([r, l]),
                        _ => operands.push(n),
                    }
                }
                children(out, if and { "&&" } else { "||" }, &operands)?
            }
            Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                let mut ids = vec![*cond, *then];
                ids.extend(*otherwise);
                children(out, "?", &ids)?
            }
            Node::Math { func, args } => {
                if func.is_random() {
                    return None;
                }
                let taken = |i: usize| {
                    is_const(args[i])
                        && match func {
                            MathFn::Min | MathFn::Max => true,
                            MathFn::Pow | MathFn::Mod => i == 1,
                            _ => false,
                        }
                };
                let kept: Vec<NodeId> = (0..args.len())
                    .filter(|&i| !taken(i))
                    .map(|i| args[i])
                    .collect();
                children(out, func.name(), &kept)?
            }
            Node::Query { .. }
            | Node::PureQuery { .. }
            | Node::Assign(_)
            | Node::Discard(_)
            | Node::Resource { .. }
            | Node::Array { .. }
            | Node::Index { .. }
            | Node::Coalesce { .. }
            | Node::Arrow { .. }
            | Node::Block { .. }
            | Node::Loop { .. }
            | Node::ForEach(_)
            | Node::Break
            | Node::Continue
            | Node::Return(_) => return None,
        }
        Some(())
    }

    /// The `variable.*` a term reads, when it is a plain one (not a struct member).
    fn entity_variable(&self, id: NodeId) -> Option<Slot> {
        match self.nodes[id.0 as usize] {
            Node::Read {
                scope: Scope::Variable,
                slot,
            } if !self.names.variables.name(slot).contains('.') => Some(slot),
            _ => None,
        }
    }

    /// Terms that read the same `variable.*` merge into the first of them, their
    /// post-operations added in order. A merged term whose scale cancels to exactly 0 leaves
    /// the sum, its offset with it (`(v.x + 1) - v.x` is 0); a later term of that variable
    /// starts a new merged term in its own place. With `only_last_new`, the earlier terms are
    /// already merged (no two read the same variable) and only the last can merge.
    fn merge_variables(&self, terms: &mut Vec<(NodeId, Posts)>, only_last_new: bool) {
        let mut leaving = vec![false; terms.len()];
        // Adds `terms[later]` into `terms[first]`; whether the merged term cancelled.
        let mut merge = |terms: &mut Vec<(NodeId, Posts)>, first: usize, later: usize| {
            let t = terms[later].1;
            let m = &mut terms[first].1;
            for p in Platform::ALL {
                let i = p.index();
                m[i].scale = p.add(m[i].scale, t[i].scale);
                m[i].offset = p.add(m[i].offset, t[i].offset);
            }
            leaving[later] = true;
            // Scales come from products of the same constants on both platforms (only a
            // folded builtin can differ), so both cancel alike; x86-64 decides.
            let cancelled = m[0].scale == 0.0;
            if cancelled {
                leaving[first] = true;
            }
            cancelled
        };
        if only_last_new {
            let last = terms.len() - 1;
            let Some(slot) = self.entity_variable(terms[last].0) else {
                return;
            };
            let Some(first) = terms[..last]
                .iter()
                .position(|t| self.entity_variable(t.0) == Some(slot))
            else {
                return;
            };
            merge(terms, first, last);
        } else {
            let mut live: HashMap<Slot, usize> = HashMap::new();
            for index in 0..terms.len() {
                let Some(slot) = self.entity_variable(terms[index].0) else {
                    continue;
                };
                match live.get(&slot) {
                    None => {
                        live.insert(slot, index);
                    }
                    Some(&first) => {
                        if merge(terms, first, index) {
                            live.remove(&slot);
                        }
                    }
                }
            }
        }
        if leaving.iter().any(|&l| l) {
            let mut i = 0;
            terms.retain(|_| {
                i += 1;
                !leaving[i - 1]
            });
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

    #[test]
    fn sum_terms_merge() {
        // One variable's terms cancel with their offset.
        let p = folded("(v.x + 1) - v.x");
        assert_eq!(p.node(top(&p)), &Node::Const(0.0));
        // Added post-operations: `v.x·2 + 3`.
        let p = folded("(v.x + 1) + (v.x + 2)");
        let (x, s, o) = post(&p, top(&p)).expect("a post-operation");
        assert!(is_read(&p, x));
        assert_eq!((s, o), (2.0, 3.0));
        // A struct member is not a variable term; temps are not either.
        for src in ["v.s.a - v.s.a", "t.x - t.x"] {
            let p = folded(src);
            assert!(
                matches!(
                    p.node(top(&p)),
                    Node::Arith {
                        op: ArithOp::Add,
                        ..
                    }
                ),
                "{src}"
            );
        }
        // Print-alike terms: twice the first; the constants the comparisons took in differ.
        let p = folded("(v.x == 1) + (v.x == 2)");
        let (e, s, o) = post(&p, top(&p)).expect("a post-operation");
        assert_eq!((s, o), (2.0, 0.0));
        let Node::Equal { rhs, .. } = p.node(e) else {
            panic!("an equality")
        };
        assert_eq!(p.node(*rhs), &Node::Const(1.0));
        // Queries print alike to nothing.
        let p = folded("q.life_time + q.life_time");
        assert!(matches!(
            p.node(top(&p)),
            Node::Arith {
                op: ArithOp::Add,
                ..
            }
        ));
        // Every term cancels: the constant 1 with the sum's post-operation, stored as 1·1 + 1.
        let p = folded("v.r = (v.x + v.y + 1) + (-v.x - v.y);");
        let Node::Block { stmts, .. } = p.node(p.root()) else {
            panic!("a block")
        };
        let Node::Assign(Assign { value, .. }) = p.node(stmts[0]) else {
            panic!("an assignment")
        };
        assert_eq!(p.node(*value), &Node::Const(2.0));
    }

    #[test]
    fn nested_logic_is_flattened_without_its_post_operation() {
        let p = folded("v.a && ((v.b && v.c) - 1)");
        let Node::And(_, r) = p.node(top(&p)) else {
            panic!("an and")
        };
        assert!(matches!(p.node(*r), Node::And(..)), "{:?}", p.node(*r));
        // A different operator keeps it.
        let p = folded("v.a || ((v.b && v.c) - 1)");
        let Node::Or(_, r) = p.node(top(&p)) else {
            panic!("an or")
        };
        assert!(post(&p, *r).is_some());
    }
}
