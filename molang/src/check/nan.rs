//! The platform lint (W0507): a value that can be NaN reaching an operator whose result then
//! differs between the game's two CPU families (see [`crate::builtins::platform`]).
//!
//! NaN sources: `math.sqrt` / `math.ln` of something that can be negative, `math.asin` /
//! `math.acos` of something that can lie outside the range they clamp (±1.0005). Inputs
//! (queries, variables set elsewhere) are taken as numbers, never NaN: a warning on every
//! comparison of a variable would bury the real ones. Where the NaN is visible:
//!
//! | sink | x86-64 | arm64 |
//! |---|---|---|
//! | `a < b`, `a <= b` | false | true |
//! | `math.min(a, N)`, `math.max(a, N)` | N | a |
//! | `math.clamp(v, N, hi)` | N (hi when v > hi) | v (hi when v > hi) |
//! | `a / N` | N | 0 (the division guard fires) |
//! | `math.asin(N)`, `math.acos(N)` | N | −90, 180 |
//! | `math.sign(N)` | 1 | −1 |
//!
//! A NaN as the first operand of `min`/`max`, as `clamp`'s value or upper bound, or on either
//! side of `>`/`>=` gives the same result on both, so it is not reported.
//!
//! The walk is one pass in evaluation order over the checked IR with an interval per value:
//! assignments in the program carry their interval and NaN origin to later reads; branches
//! join; a loop body is walked once with the variables it assigns widened.

use std::collections::HashMap;

use crate::builtins::math::MathFn;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{ArithOp, Assign, CmpOp, ForEach, Node, NodeId, Program, PureQuery, Scope, Slot};

/// Where a NaN can come from: the node and why.
#[derive(Clone, Debug)]
struct Origin {
    node: NodeId,
    why: String,
}

/// What the walk knows of a value: bounds (either may be infinite) and whether it can be NaN
/// (the index of its [`Origin`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Abs {
    lo: f64,
    hi: f64,
    nan: Option<usize>,
}

const FULL: Abs = Abs {
    lo: f64::NEG_INFINITY,
    hi: f64::INFINITY,
    nan: None,
};

impl Abs {
    fn range(lo: f64, hi: f64) -> Abs {
        // A bound computed as NaN (∞ − ∞) means nothing is known on that side.
        Abs {
            lo: if lo.is_nan() { f64::NEG_INFINITY } else { lo },
            hi: if hi.is_nan() { f64::INFINITY } else { hi },
            nan: None,
        }
    }
    fn point(x: f64) -> Abs {
        Abs::range(x, x)
    }
    fn with_nan(mut self, nan: Option<usize>) -> Abs {
        self.nan = nan;
        self
    }
    fn join(self, o: Abs) -> Abs {
        Abs {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            nan: self.nan.or(o.nan),
        }
    }
}

/// Values of the temps and variables this program assigned so far.
type State = HashMap<(Scope, Slot), Abs>;

fn join_states(a: &State, b: &State) -> State {
    let mut out = State::new();
    for (k, va) in a {
        // Assigned on one path only: the other keeps what it read before (an input).
        let vb = b.get(k).copied().unwrap_or(FULL);
        out.insert(*k, va.join(vb));
    }
    for (k, vb) in b {
        out.entry(*k).or_insert_with(|| vb.join(FULL));
    }
    out
}

/// Whether two nodes read the same name (or are the same node): their values are equal.
fn same_read(program: &Program, a: NodeId, b: NodeId) -> bool {
    a == b
        || matches!(
            (program.node(a), program.node(b)),
            (Node::Read { scope: s1, slot: l1 }, Node::Read { scope: s2, slot: l2 })
                if s1 == s2 && l1 == l2
        )
}

/// The W0507 warnings of `program`.
pub fn analyse(program: &Program) -> Vec<Diagnostic> {
    // Most programs have no NaN source at all: one scan spares them the walk.
    let source = program.nodes.iter().any(|n| {
        matches!(
            n,
            Node::Math {
                func: MathFn::Sqrt | MathFn::Ln | MathFn::Asin | MathFn::Acos,
                ..
            }
        )
    });
    if !source {
        return Vec::new();
    }
    let mut walk = Walk::new(program);
    let mut state = State::new();
    walk.eval(program.root(), &mut state);
    walk.diagnostics
}

/// A division whose divisor can come within the game's division guard of 0 (|divisor| below
/// `f32::EPSILON`, where the game gives 0), with the divisor's bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearZeroDivision {
    pub node: NodeId,
    /// The divisor's bounds as the walk knows them (infinite: unknown on that side).
    pub lo: f64,
    pub hi: f64,
}

/// The divisions of `program` (as written, before folding) whose divisor can be within the
/// guard of 0, by the same interval walk as the W0507 lint.
pub fn near_zero_divisions(program: &Program) -> Vec<NearZeroDivision> {
    if !program.nodes.iter().any(|n| {
        matches!(
            n,
            Node::Arith {
                op: ArithOp::Div,
                ..
            }
        )
    }) {
        return Vec::new();
    }
    let mut walk = Walk::new(program);
    let mut state = State::new();
    walk.eval(program.root(), &mut state);
    walk.near_zero
}

struct Walk<'a> {
    program: &'a Program,
    origins: Vec<Origin>,
    diagnostics: Vec<Diagnostic>,
    /// Sink nodes already warned about (a loop body is walked once, but stay safe).
    reported: Vec<NodeId>,
    near_zero: Vec<NearZeroDivision>,
}

/// Why a `sqrt`/`ln` of `arg` is NaN: always, or when it is negative.
fn negative(a: Abs, arg: &str) -> String {
    if a.hi < 0.0 {
        format!("NaN: `{arg}` is negative")
    } else {
        format!("NaN when `{arg}` is negative")
    }
}

/// Source text of a node, cut for a message.
fn text(program: &Program, id: NodeId) -> String {
    let span = program.span(id);
    let s = program
        .source()
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::excerpt(&one, 48)
}

impl<'a> Walk<'a> {
    fn new(program: &'a Program) -> Walk<'a> {
        Walk {
            program,
            origins: Vec::new(),
            diagnostics: Vec::new(),
            reported: Vec::new(),
            near_zero: Vec::new(),
        }
    }

    /// The NaN of `sqrt` or `ln` of `a` (the value of node `arg`): a new origin where `a` may
    /// be negative, else the NaN `a` carries.
    fn nan_when_negative(&mut self, node: NodeId, a: Abs, arg: NodeId) -> Option<usize> {
        if a.lo < 0.0 {
            self.origin(node, negative(a, &text(self.program, arg)))
        } else {
            a.nan
        }
    }

    fn origin(&mut self, node: NodeId, why: String) -> Option<usize> {
        self.origins.push(Origin { node, why });
        Some(self.origins.len() - 1)
    }

    /// Warns at `sink` that operand `operand`, NaN through `origin`, changes the result.
    fn warn(&mut self, sink: NodeId, operand: NodeId, origin: usize, message: String) {
        if self.reported.contains(&sink) {
            return;
        }
        self.reported.push(sink);
        let o = &self.origins[origin];
        let mut d = Diagnostic::new(Code::PlatformNan, self.program.span(sink), message);
        if o.node != sink {
            d = d.with_label(self.program.span(o.node), o.why.clone());
        }
        let _ = operand;
        self.diagnostics.push(d.with_help(
            "keep the value from being NaN, e.g. `math.sqrt(math.max(x, 0))`, \
`math.asin(math.clamp(x, -1, 1))`",
        ));
    }

    fn eval(&mut self, id: NodeId, state: &mut State) -> Abs {
        let program = self.program;
        let node = program.node(id);
        match node {
            Node::Const(c) => Abs::point(*c as f64),
            Node::Str(_)
            | Node::Resource { .. }
            | Node::Array { .. }
            | Node::This
            | Node::Break
            | Node::Continue => FULL,
            // Nothing known of the value: only what the operands do counts.
            Node::Index { .. }
            | Node::Query { .. }
            | Node::Post { .. }
            | Node::Discard(_)
            | Node::Arrow { .. } => {
                self.eval_children(node, state);
                FULL
            }
            Node::Read { scope, slot } => state.get(&(*scope, *slot)).copied().unwrap_or(FULL),
            Node::Not(_) | Node::Equal { .. } => {
                self.eval_children(node, state);
                Abs::range(0.0, 1.0)
            }
            Node::PureQuery { func, .. } => {
                self.eval_children(node, state);
                match func {
                    PureQuery::Count => Abs::range(0.0, f64::INFINITY),
                    _ => Abs::range(0.0, 1.0),
                }
            }
            Node::Math { func, args } => {
                let vals: Vec<Abs> = args.iter().map(|&a| self.eval(a, state)).collect();
                self.math(id, *func, args, &vals)
            }
            Node::Neg(x) => {
                let v = self.eval(*x, state);
                Abs::range(-v.hi, -v.lo).with_nan(v.nan)
            }
            // Built by `fold` after this analysis; never seen here.
            Node::PlatformConst(_) => FULL,
            Node::Arith { op, lhs, rhs } => {
                let a = self.eval(*lhs, state);
                let b = self.eval(*rhs, state);
                let v = self.arith(id, *op, *rhs, a, b);
                // `x * x` (the same read twice, as in a distance) is never negative: the
                // corners of the intervals alone would allow `lo * hi`.
                if *op == ArithOp::Mul && same_read(program, *lhs, *rhs) {
                    Abs::range(v.lo.max(0.0), v.hi).with_nan(v.nan)
                } else {
                    v
                }
            }
            Node::Compare { op, lhs, rhs } => {
                let a = self.eval(*lhs, state);
                let b = self.eval(*rhs, state);
                if matches!(op, CmpOp::Lt | CmpOp::Le) {
                    for (side, v) in [(*lhs, a), (*rhs, b)] {
                        if let Some(o) = v.nan {
                            let msg = format!(
                                "on arm64 `{}` is true when `{}` is NaN; on x86-64 it is false",
                                text(program, id),
                                text(program, side)
                            );
                            self.warn(id, side, o, msg);
                            break;
                        }
                    }
                }
                Abs::range(0.0, 1.0)
            }
            Node::And(a, b) | Node::Or(a, b) => {
                self.eval(*a, state);
                // The right side may not run: its assignments are a branch.
                let mut right = state.clone();
                self.eval(*b, &mut right);
                *state = join_states(state, &right);
                Abs::range(0.0, 1.0)
            }
            Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                self.eval(*cond, state);
                let mut s1 = state.clone();
                let v1 = self.eval(*then, &mut s1);
                let mut s2 = state.clone();
                let v2 = match otherwise {
                    Some(e) => self.eval(*e, &mut s2),
                    None => Abs::point(0.0),
                };
                *state = join_states(&s1, &s2);
                v1.join(v2)
            }
            Node::Coalesce { lhs, rhs, .. } => {
                let l = self.eval(*lhs, state);
                let mut right = state.clone();
                let r = self.eval(*rhs, &mut right);
                *state = join_states(state, &right);
                l.join(r)
            }
            Node::Assign(a) => {
                let v = self.eval(a.value, state);
                state.insert((a.scope, a.slot), v);
                for (_, to) in a.copies.iter() {
                    state.insert((a.scope, *to), FULL);
                }
                v
            }
            Node::Block { stmts, simple } => {
                let mut last = Abs::point(0.0);
                for &s in stmts.iter() {
                    last = self.eval(s, state);
                }
                if *simple {
                    last
                } else {
                    FULL
                }
            }
            Node::Loop { count, body } => {
                self.eval(*count, state);
                self.looped(*body, None, state);
                Abs::point(0.0)
            }
            Node::ForEach(f) => {
                self.eval(f.array, state);
                self.looped(f.body, Some((f.scope, f.slot)), state);
                Abs::point(0.0)
            }
            Node::Return(x) => self.eval(*x, state),
        }
    }

    /// Walks the children of `node` in order, their values unused.
    fn eval_children(&mut self, node: &Node, state: &mut State) {
        for c in node.children() {
            self.eval(c, state);
        }
    }

    /// A loop body, which may run zero or more times: the names it assigns are widened
    /// before the walk (their value may come from an earlier iteration), and the state after
    /// is the join of "did not run" and "ran".
    fn looped(&mut self, body: NodeId, var: Option<(Scope, Slot)>, state: &mut State) {
        let mut inside = state.clone();
        for key in assigned(self.program, body).into_iter().chain(var) {
            let before = inside.get(&key).copied().unwrap_or(FULL);
            inside.insert(key, before.join(FULL));
        }
        self.eval(body, &mut inside);
        *state = join_states(state, &inside);
    }

    fn arith(&mut self, id: NodeId, op: ArithOp, rhs: NodeId, a: Abs, b: Abs) -> Abs {
        let nan = a.nan.or(b.nan);
        let corners = |f: fn(f64, f64) -> f64| {
            let c = [f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)];
            if c.iter().any(|x| x.is_nan()) {
                return FULL;
            }
            let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Abs::range(lo, hi)
        };
        let v = match op {
            ArithOp::Add => Abs::range(a.lo + b.lo, a.hi + b.hi),
            ArithOp::Sub => Abs::range(a.lo - b.hi, a.hi - b.lo),
            ArithOp::Mul => corners(|x, y| x * y),
            ArithOp::Div => {
                if let Some(o) = b.nan {
                    let msg = format!(
                        "on arm64 dividing by a NaN `{}` gives 0; on x86-64 it gives NaN",
                        text(self.program, rhs)
                    );
                    self.warn(id, rhs, o, msg);
                }
                // The guard gives 0 for a divisor near 0; away from it, the quotients.
                let eps = f32::EPSILON as f64;
                if b.lo < eps && b.hi > -eps && !self.near_zero.iter().any(|d| d.node == id) {
                    self.near_zero.push(NearZeroDivision {
                        node: id,
                        lo: b.lo,
                        hi: b.hi,
                    });
                }
                if b.lo > -eps && b.hi < eps {
                    Abs::point(0.0)
                } else if b.lo >= eps || b.hi <= -eps {
                    corners(|x, y| x / y)
                } else {
                    FULL
                }
            }
        };
        v.with_nan(nan)
    }

    fn math(&mut self, id: NodeId, func: MathFn, args: &[NodeId], vals: &[Abs]) -> Abs {
        let program = self.program;
        let any_nan = vals.iter().find_map(|v| v.nan);
        let arg = |i: usize| vals.get(i).copied().unwrap_or(FULL);
        match func {
            MathFn::Sqrt => {
                let a = arg(0);
                let nan = self.nan_when_negative(id, a, args[0]);
                Abs::range(a.lo.max(0.0).sqrt(), a.hi.max(0.0).sqrt()).with_nan(nan)
            }
            MathFn::Ln => {
                let a = arg(0);
                FULL.with_nan(self.nan_when_negative(id, a, args[0]))
            }
            MathFn::Asin | MathFn::Acos => {
                let a = arg(0);
                let name = if func == MathFn::Asin { "asin" } else { "acos" };
                if let Some(o) = a.nan {
                    let reads = if func == MathFn::Asin {
                        "-1 (-90)"
                    } else {
                        "-1 (180)"
                    };
                    let msg = format!(
                        "on arm64 `math.{name}` reads a NaN `{}` as {reads}; on x86-64 it returns NaN",
                        text(program, args[0])
                    );
                    self.warn(id, args[0], o, msg);
                }
                // The game clamps |x| <= 1.0005 to [-1, 1]; beyond, NaN.
                let nan = if a.lo < -1.0005 || a.hi > 1.0005 {
                    self.origin(
                        id,
                        format!("NaN when `{}` is outside [-1, 1]", text(program, args[0])),
                    )
                } else {
                    a.nan
                };
                let r = if func == MathFn::Asin {
                    Abs::range(-90.0, 90.0)
                } else {
                    Abs::range(0.0, 180.0)
                };
                r.with_nan(nan)
            }
            MathFn::Sign => {
                let a = arg(0);
                if let Some(o) = a.nan {
                    let msg = format!(
                        "on arm64 `math.sign` of a NaN `{}` is -1; on x86-64 it is 1",
                        text(program, args[0])
                    );
                    self.warn(id, args[0], o, msg);
                }
                Abs::range(-1.0, 1.0)
            }
            MathFn::Min | MathFn::Max => {
                let (a, b) = (arg(0), arg(1));
                let name = if func == MathFn::Min { "min" } else { "max" };
                // x86-64 returns the second operand when either is NaN; arm64 the other
                // one. They differ only for a NaN second operand.
                if let Some(o) = b.nan {
                    let msg = format!(
                        "on arm64 `math.{name}` ignores a NaN `{}` and returns `{}`; on x86-64 it returns NaN",
                        text(program, args[1]),
                        text(program, args[0])
                    );
                    self.warn(id, args[1], o, msg);
                }
                let r = if func == MathFn::Min {
                    Abs::range(a.lo.min(b.lo), a.hi.min(b.hi))
                } else {
                    Abs::range(a.lo.max(b.lo), a.hi.max(b.hi))
                };
                r.with_nan(b.nan)
            }
            MathFn::Clamp => {
                let (lo, hi) = (arg(1), arg(2));
                if let Some(o) = lo.nan {
                    let msg = format!(
                        "on arm64 `math.clamp` ignores a NaN lower bound `{}` and returns `{}` (capped at the upper bound); on x86-64 it returns NaN unless `{}` is above the upper bound",
                        text(program, args[1]),
                        text(program, args[0]),
                        text(program, args[0])
                    );
                    self.warn(id, args[1], o, msg);
                }
                Abs::range(lo.lo.min(hi.lo), lo.hi.max(hi.hi)).with_nan(lo.nan)
            }
            MathFn::Abs => {
                let a = arg(0);
                let m = a.lo.abs().max(a.hi.abs());
                let lo = if a.lo <= 0.0 && a.hi >= 0.0 {
                    0.0
                } else {
                    a.lo.abs().min(a.hi.abs())
                };
                Abs::range(lo, m).with_nan(a.nan)
            }
            MathFn::Sin | MathFn::Cos => Abs::range(-1.0, 1.0).with_nan(any_nan),
            MathFn::Exp => Abs::range(0.0, f64::INFINITY).with_nan(any_nan),
            MathFn::Floor | MathFn::Ceil | MathFn::Round | MathFn::Trunc => {
                let a = arg(0);
                Abs::range(a.lo.floor(), a.hi.ceil()).with_nan(a.nan)
            }
            MathFn::Pow => {
                // An even whole exponent gives a square: never negative.
                let even = matches!(program.node(args[1]), Node::Const(c) if c.fract() == 0.0 && c % 2.0 == 0.0);
                if even {
                    Abs::range(0.0, f64::INFINITY).with_nan(any_nan)
                } else {
                    FULL.with_nan(any_nan)
                }
            }
            MathFn::Pi => Abs::point(std::f64::consts::PI),
            _ => FULL.with_nan(any_nan),
        }
    }
}

/// The temps and variables assigned anywhere under `id`.
fn assigned(program: &Program, id: NodeId) -> Vec<(Scope, Slot)> {
    let mut out = Vec::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        let node = program.node(n);
        if let Node::Assign(Assign { scope, slot, .. })
        | Node::ForEach(ForEach { scope, slot, .. }) = node
        {
            out.push((*scope, *slot));
        }
        stack.extend(node.children());
    }
    out
}
