//! The reference interpreter: the executable specification of Molang's semantics over the
//! checked IR. Correct first, clear second, fast third. Never sees an AST or a name.
//!
//! Semantics (spec preface): f32 everywhere; division evaluates the denominator first and
//! yields 0 without evaluating the numerator when |d| < 2^-23; NaN is true; a read of an
//! unset temp/variable/context ends the whole program with value 0 (except on the left of
//! `??`); `return` ends the whole program; complex programs yield 0 unless they return.

pub mod exec;
pub mod storage;
pub mod value;

pub use storage::{Slots, Storage};
pub use value::Value;

use crate::builtins::math::{self, MathFn, MolangRng};
pub use crate::builtins::platform::Platform;
use crate::builtins::queries;
use crate::ir::{
    ArithOp, CmpOp, ForEach, Node, NodeId, PostOp, Program, PureQuery, Remote, Scope, Slot,
};

/// Smallest divisor magnitude the game divides by.
pub const DIVISION_EPSILON: f32 = 1.0 / 8_388_608.0; // 2^-23

/// Settings that are not part of the program text.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Raw Molang version (division by runtime negative values changed at 7).
    pub version: i16,
    /// Cap each `loop` at this many iterations (the documented 1024); off by default
    /// because the shipped game runs more.
    pub loop_cap: Option<u32>,
    /// Total loop iterations one run may make, so untrusted input always terminates.
    pub iteration_budget: u64,
    /// Nothing reads a run's temps after it (the caller clears them before the next run and
    /// never looks at them): native code may then leave out the stores of temps that the run
    /// itself never reads back from storage (see `jit/lower`, `drop_dead_temp_stores`), so
    /// those temps' storage is stale after the run. The interpreter ignores it. Entity
    /// scripts set it; off by default, where a caller may read temps after a run
    /// ([`crate::EvalResult::temp`]).
    pub private_temps: bool,
    /// The CPU family whose float rules the run follows (see [`Platform`]); x86-64 by default.
    pub platform: Platform,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            version: grammar::LATEST_VERSION,
            loop_cap: None,
            iteration_budget: 10_000_000,
            private_temps: false,
            platform: Platform::X86_64,
        }
    }
}

/// Everything a program reads from outside itself.
pub trait Host {
    /// A query's value. Unknown or unset queries read 0.
    fn query(&mut self, query: Slot, args: &[Value]) -> Value;
    /// The current value of the slot the expression writes (`this`).
    fn this(&mut self) -> f32 {
        0.0
    }
    /// A public variable of another entity, `None` if it has none.
    fn remote_variable(&mut self, _entity: u32, _name: Slot) -> Option<Value> {
        None
    }
    /// A query evaluated on another entity; `None` if the entity does not exist.
    fn remote_query(&mut self, _entity: u32, _query: Slot, _args: &[Value]) -> Option<Value> {
        None
    }
    /// The entities of an entity list, for `for_each`.
    fn entity_list(&mut self, _list: u32) -> Vec<u32> {
        Vec::new()
    }
    /// Number of elements of a render-controller array.
    fn array_len(&mut self, _array: Slot) -> u32 {
        0
    }
    fn rng(&mut self) -> &mut dyn MolangRng;
}

/// Why a run ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbortKind {
    /// A read of a name that was never set (the game's behaviour: value 0, program ends).
    UnsetRead { scope: Scope, slot: Slot },
    /// The iteration budget of [`EvalOptions`] ran out.
    Budget,
}

/// A run that ended early, with the node that ended it (its span is in the program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abort {
    pub kind: AbortKind,
    pub node: NodeId,
}

/// The outcome of one run: a value, and the abort if the program ended early (then the
/// value is 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    pub value: Value,
    pub abort: Option<Abort>,
    /// Iterations the run spent of its budget (loop and `for_each` iterations, die rolls);
    /// past the budget when a die roll ran it out. The same on both back ends.
    pub iterations: u64,
}

/// Why evaluation stopped early. Kept in the machine, not in every `Result`: the error side
/// of the hot path is then a zero-sized [`Stop`], so a number comes back in a register.
enum Unwind {
    Break,
    Continue,
    Return(Value),
    Abort(Abort),
}

/// Evaluation stopped; the reason is in [`Machine::stop`].
struct Stop;

type R = Result<Value, Stop>;
type N = Result<f32, Stop>;

/// Runs `program` once. Temps are cleared first.
pub fn run(
    program: &Program,
    storage: &mut Storage,
    host: &mut dyn Host,
    options: &EvalOptions,
) -> Outcome {
    storage.clear_temps();
    run_inner(program, storage, host, options)
}

/// Runs with the temps already in `storage` (for tests and `--set t.x=...`).
pub fn run_keep_temps(
    program: &Program,
    storage: &mut Storage,
    host: &mut dyn Host,
    options: &EvalOptions,
) -> Outcome {
    run_inner(program, storage, host, options)
}

fn run_inner(
    program: &Program,
    storage: &mut Storage,
    host: &mut dyn Host,
    options: &EvalOptions,
) -> Outcome {
    let mut m = Machine {
        program,
        storage,
        host,
        options,
        iterations: 0,
        stop: None,
    };
    let (value, abort) = match m.eval(program.root()) {
        Ok(v) => (v, None),
        Err(Stop) => match m.stop.take() {
            Some(Unwind::Return(v)) => (v, None),
            Some(Unwind::Abort(a)) => (Value::Num(0.0), Some(a)),
            // The checker reports `break`/`continue` outside loops; they end nothing here.
            Some(Unwind::Break | Unwind::Continue) | None => (Value::Num(0.0), None),
        },
    };
    Outcome {
        value,
        abort,
        iterations: m.iterations,
    }
}

/// A builtin that draws nothing, on `platform`: what the interpreter computes at run time and
/// what [`crate::fold`] computes for constant arguments.
pub(crate) fn pure_math(platform: Platform, func: MathFn, vals: &[f32]) -> f32 {
    if platform != Platform::X86_64 {
        let r = match func {
            // As on x86-64: the exact square, whose NaN is the operand's (quietened) on both.
            MathFn::Pow if vals[1] == 2.0 => {
                crate::builtins::platform::arm64::mul(vals[0], vals[0])
            }
            _ => math::eval_on(platform, func, vals),
        };
        return math::arm64_result(func, r);
    }
    match func {
        // The builtins the JIT inlines, called directly rather than through the table
        // (the same functions, so the same bits).
        MathFn::Clamp => math::molang_clamp(vals[0], vals[1], vals[2]),
        MathFn::Sqrt => math::molang_sqrt(vals[0]),
        MathFn::Abs => math::molang_abs(vals[0]),
        MathFn::Min => math::molang_min(vals[0], vals[1]),
        MathFn::Max => math::molang_max(vals[0], vals[1]),
        // pow(x, 2) is the exact square rounded once, which is what `x * x` computes
        // (NaN, infinities and -0 included; the JIT's `Lowering::PowSquare` rule).
        MathFn::Pow if vals[1] == 2.0 => vals[0] * vals[0],
        _ => math::eval(func, vals),
    }
}

/// Whether the game folds `id` to a number when it loads the text (molangx trees fold every
/// pure numeric subtree, conditionals included). Before version 7 only run-time divisors lose
/// their sign, so `1 / -2` stays -0.5.
pub(crate) fn folds_to_constant(program: &Program, id: NodeId) -> bool {
    let node = program.node(id);
    match node {
        Node::Const(_) | Node::PlatformConst(_) => true,
        Node::Math { func, .. } if func.is_random() => false,
        Node::Block { stmts, simple } if !simple || stmts.len() != 1 => false,
        // An operator, a builtin or a one-statement block over constants.
        Node::Neg(_)
        | Node::Not(_)
        | Node::Arith { .. }
        | Node::Compare { .. }
        | Node::Equal { .. }
        | Node::And(..)
        | Node::Or(..)
        | Node::Cond { .. }
        | Node::Math { .. }
        | Node::Block { .. } => node.children().all(|c| folds_to_constant(program, c)),
        _ => false,
    }
}

struct Machine<'a> {
    program: &'a Program,
    storage: &'a mut Storage,
    host: &'a mut dyn Host,
    options: &'a EvalOptions,
    iterations: u64,
    /// Why the last `Err(Stop)` was returned.
    stop: Option<Unwind>,
}

#[inline]
fn bool_value(b: bool) -> Value {
    Value::Num(if b { 1.0 } else { 0.0 })
}

#[inline]
fn bool_num(b: bool) -> f32 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// Query arguments up to this many are collected on the stack (no allocation per call).
const INLINE_ARGS: usize = 4;

// The evaluator is three mutually recursive walks with one meaning: `eval(id)` is the value,
// `num(id)` is `eval(id).as_num()` and `truth(id)` is `eval(id).truthy()`, with the same
// evaluation order, host calls and stops. `num` and `truth` only exist so that numeric and
// logic nodes do not build and test a `Value` at every level.
impl Machine<'_> {
    #[cold]
    #[inline(never)]
    fn abort(&mut self, kind: AbortKind, node: NodeId) -> Stop {
        self.stop = Some(Unwind::Abort(Abort { kind, node }));
        Stop
    }

    #[cold]
    #[inline(never)]
    fn unset(&mut self, scope: Scope, slot: Slot, node: NodeId) -> Stop {
        self.abort(AbortKind::UnsetRead { scope, slot }, node)
    }

    /// `num(id)` with constants and slot reads answered in place: most operands are leaves,
    /// and a call of the whole walk for one costs more than the leaf itself.
    #[inline(always)]
    fn operand(&mut self, id: NodeId) -> N {
        match self.program.node(id) {
            Node::Const(c) => Ok(*c),
            Node::Read { scope, slot } => match self.storage.slots(*scope).number(*slot) {
                Some(x) => Ok(x),
                None => Err(self.unset(*scope, *slot, id)),
            },
            _ => self.num(id),
        }
    }

    fn num(&mut self, id: NodeId) -> N {
        let program = self.program;
        match program.node(id) {
            Node::Const(c) => Ok(*c),
            Node::PlatformConst(c) => Ok(c[self.options.platform.index()]),
            Node::Post { operand, post } => {
                self.post(*operand, post[self.options.platform.index()])
            }
            Node::This => Ok(self.host.this()),
            Node::Read { scope, slot } => match self.storage.slots(*scope).number(*slot) {
                Some(x) => Ok(x),
                None => Err(self.unset(*scope, *slot, id)),
            },
            Node::Query { query, args } => Ok(self.query(*query, args)?.as_num()),
            Node::Math { func, args } => self.math(id, *func, args),
            Node::Neg(e) => Ok(-self.num(*e)?),
            Node::Not(e) => Ok(bool_num(!self.truth(*e)?)),
            Node::Arith { op, lhs, rhs } => self.arith(*op, *lhs, *rhs),
            Node::Compare { op, lhs, rhs } => Ok(bool_num(self.compare(*op, *lhs, *rhs)?)),
            Node::Equal { negate, lhs, rhs } => Ok(bool_num(self.equal(*negate, *lhs, *rhs)?)),
            Node::And(l, r) => Ok(bool_num(self.truth(*l)? && self.truth(*r)?)),
            Node::Or(l, r) => Ok(bool_num(self.truth(*l)? || self.truth(*r)?)),
            Node::Cond { .. } | Node::Coalesce { .. } => match self.chosen(id)? {
                Some(operand) => self.num(operand),
                None => Ok(0.0),
            },
            Node::Discard(e) => self.num(*e),
            _ => Ok(self.eval(id)?.as_num()),
        }
    }

    /// The operand whose value a `?:` or `??` node takes, decided here once for the three
    /// walks (`num`, `truth`, `eval`). `None`: a `?:` without `else` whose condition is false,
    /// which is 0.
    #[inline]
    fn chosen(&mut self, id: NodeId) -> Result<Option<NodeId>, Stop> {
        let program = self.program;
        Ok(match program.node(id) {
            Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                if self.truth(*cond)? {
                    Some(*then)
                } else {
                    *otherwise
                }
            }
            // `lhs` reads `(scope, slot)`: the right side stands in while that slot is unset.
            Node::Coalesce {
                scope,
                slot,
                lhs,
                rhs,
            } => Some(if self.storage.get(*scope, *slot).is_some() {
                *lhs
            } else {
                *rhs
            }),
            _ => unreachable!("only `?:` and `??` choose an operand"),
        })
    }

    fn truth(&mut self, id: NodeId) -> Result<bool, Stop> {
        let program = self.program;
        match program.node(id) {
            Node::Const(c) => Ok(*c != 0.0),
            Node::Read { scope, slot } => match self.storage.slots(*scope).truthy(*slot) {
                Some(b) => Ok(b),
                None => Err(self.unset(*scope, *slot, id)),
            },
            Node::Query { query, args } => Ok(self.query(*query, args)?.truthy()),
            Node::Not(e) => Ok(!self.truth(*e)?),
            Node::Compare { op, lhs, rhs } => self.compare(*op, *lhs, *rhs),
            Node::Equal { negate, lhs, rhs } => self.equal(*negate, *lhs, *rhs),
            Node::And(l, r) => Ok(self.truth(*l)? && self.truth(*r)?),
            Node::Or(l, r) => Ok(self.truth(*l)? || self.truth(*r)?),
            Node::Cond { .. } | Node::Coalesce { .. } => match self.chosen(id)? {
                Some(operand) => self.truth(operand),
                None => Ok(false),
            },
            Node::Math { .. }
            | Node::Arith { .. }
            | Node::Neg(_)
            | Node::Post { .. }
            | Node::PlatformConst(_) => Ok(self.num(id)? != 0.0),
            _ => Ok(self.eval(id)?.truthy()),
        }
    }

    /// `operand` with the game's post-operation `post` (see [`crate::fold`]): `raw·S + O` as
    /// the operand's own instruction applies it on this platform.
    fn post(&mut self, operand: NodeId, post: PostOp) -> N {
        if post.is_identity() {
            return self.num(operand);
        }
        let p = self.options.platform;
        let PostOp { scale, offset } = post;
        match self.program.node(operand) {
            // A comparison or logic node picks one of two constants: `S + O` or `O`.
            Node::Compare { .. }
            | Node::Equal { .. }
            | Node::And(..)
            | Node::Or(..)
            | Node::Not(_) => Ok(if self.truth(operand)? {
                p.add(scale, offset)
            } else {
                offset
            }),
            // `math.sign` gives `±(S + O)`, not `sign·S + O`.
            Node::Math {
                func: MathFn::Sign,
                args,
            } => {
                let x = self.operand(args[0])?;
                let k = p.add(scale, offset);
                Ok(if p.lt(x, 0.0) { -k } else { k })
            }
            // A division the guard stops is 0 without its post-operation; arm64 scales the
            // dividend and adds the offset after dividing, nothing fused.
            Node::Arith {
                op: ArithOp::Div,
                lhs,
                rhs,
            } => {
                let d = self.divisor(*rhs)?;
                if p.guard_fires(d) {
                    return Ok(0.0);
                }
                let n = self.operand(*lhs)?;
                Ok(match p {
                    Platform::X86_64 => p.mul_add(p.div(n, d), scale, offset),
                    Platform::Arm64 => p.add(p.div(p.mul(n, scale), d), offset),
                })
            }
            // arm64 scales the left factor, then multiplies by the right and adds, rounded once.
            Node::Arith {
                op: ArithOp::Mul,
                lhs,
                rhs,
            } if p == Platform::Arm64 => {
                let l = self.operand(*lhs)?;
                let r = self.operand(*rhs)?;
                Ok(p.mul_add(p.mul(l, scale), r, offset))
            }
            _ => {
                let raw = self.num(operand)?;
                Ok(p.mul_add(raw, scale, offset))
            }
        }
    }

    /// A run-time divisor: before version 7 the game divides by its magnitude.
    #[inline(always)]
    fn divisor(&mut self, rhs: NodeId) -> N {
        let d = self.operand(rhs)?;
        Ok(
            if self.options.version < 7 && !folds_to_constant(self.program, rhs) {
                d.abs()
            } else {
                d
            },
        )
    }

    // Inlined into the walks: one call per operator node, not two.
    #[inline(always)]
    fn arith(&mut self, op: ArithOp, lhs: NodeId, rhs: NodeId) -> N {
        if op == ArithOp::Div {
            let d = self.divisor(rhs)?;
            let p = self.options.platform;
            if p.guard_fires(d) {
                return Ok(0.0);
            }
            let n = self.operand(lhs)?;
            return Ok(p.div(n, d));
        }
        let l = self.operand(lhs)?;
        let r = self.operand(rhs)?;
        let p = self.options.platform;
        Ok(match op {
            ArithOp::Add => p.add(l, r),
            ArithOp::Sub => p.sub(l, r),
            _ => p.mul(l, r),
        })
    }

    // Inlined into the walks: one call per operator node, not two.
    #[inline(always)]
    fn compare(&mut self, op: CmpOp, lhs: NodeId, rhs: NodeId) -> Result<bool, Stop> {
        let l = self.operand(lhs)?;
        let r = self.operand(rhs)?;
        Ok(op.holds(self.options.platform, l, r))
    }

    #[inline]
    fn equal(&mut self, negate: bool, lhs: NodeId, rhs: NodeId) -> Result<bool, Stop> {
        let l = self.eval(lhs)?;
        let r = self.eval(rhs)?;
        Ok(l.equals(r) != negate)
    }

    /// A host query; its arguments are evaluated left to right first.
    #[inline]
    fn query(&mut self, query: Slot, args: &[NodeId]) -> R {
        if args.is_empty() {
            return Ok(self.host.query(query, &[]));
        }
        self.query_args(query, args)
    }

    /// `eval(id)` with a constant answered in place (query arguments are mostly literals).
    #[inline(always)]
    fn arg(&mut self, id: NodeId) -> R {
        match self.program.node(id) {
            Node::Const(c) => Ok(Value::Num(*c)),
            _ => self.eval(id),
        }
    }

    #[inline(never)]
    fn query_args(&mut self, query: Slot, args: &[NodeId]) -> R {
        // One argument (`position_delta(n)`, `is_name_any(...)`-style calls aside) is the
        // common case: no array to fill and no loop.
        if let [a] = *args {
            let v = self.arg(a)?;
            return Ok(self.host.query(query, &[v]));
        }
        if args.len() <= INLINE_ARGS {
            let mut vals = [Value::Num(0.0); INLINE_ARGS];
            for (v, &a) in vals.iter_mut().zip(args) {
                *v = self.arg(a)?;
            }
            return Ok(self.host.query(query, &vals[..args.len()]));
        }
        let mut vals = Vec::with_capacity(args.len());
        for &a in args.iter() {
            vals.push(self.eval(a)?);
        }
        Ok(self.host.query(query, &vals))
    }

    fn math(&mut self, id: NodeId, func: MathFn, args: &[NodeId]) -> N {
        // By arity, so the arguments go straight into registers (no array filled by a loop).
        let mut vals = [0.0f32; 3];
        match *args {
            [a] => vals[0] = self.operand(a)?,
            [a, b] => {
                vals[0] = self.operand(a)?;
                vals[1] = self.operand(b)?;
            }
            _ => {
                for (v, &a) in vals.iter_mut().zip(args) {
                    *v = self.operand(a)?;
                }
            }
        }
        let vals = &vals[..args.len()];
        let platform = self.options.platform;
        if func.is_random() {
            let cost = if platform == Platform::X86_64 {
                func.budget_cost(vals[0])
            } else {
                func.budget_cost_on(platform, vals[0])
            };
            if let Some(n) = cost {
                self.spend(n, id)?;
            }
            return Ok(if platform == Platform::X86_64 {
                math::eval_random(func, vals, self.host.rng())
            } else {
                math::eval_random_on(platform, func, vals, self.host.rng())
            });
        }
        Ok(pure_math(platform, func, vals))
    }

    fn eval(&mut self, id: NodeId) -> R {
        let program = self.program;
        match program.node(id) {
            Node::Const(c) => Ok(Value::Num(*c)),
            Node::PlatformConst(_) | Node::Post { .. } => Ok(Value::Num(self.num(id)?)),
            Node::Str(h) => Ok(Value::Str(*h)),
            Node::Resource { kind, name } => Ok(Value::Resource(*kind, *name)),
            Node::Array { name } => Ok(Value::Array(*name)),
            Node::Index { array, index } => {
                let i = self.num(*index)?;
                let len = self.host.array_len(*array);
                // Index rule: max(0, i), truncated toward zero, modulo the array size.
                let idx = if len == 0 {
                    0
                } else {
                    (i.max(0.0) as u64 % len as u64) as u32
                };
                Ok(Value::ArrayElement(*array, idx))
            }
            Node::This => Ok(Value::Num(self.host.this())),
            Node::Read { scope, slot } => match self.storage.get(*scope, *slot) {
                Some(v) => Ok(v),
                None => Err(self.unset(*scope, *slot, id)),
            },
            Node::Query { query, args } => self.query(*query, args),
            Node::PureQuery { func, args } => self.pure_query(*func, args),
            // The operators are numbers: the numeric walk computes them (logic tests truth
            // like `?:` does, so a reference is true there too).
            Node::Math { .. }
            | Node::Neg(_)
            | Node::Not(_)
            | Node::Arith { .. }
            | Node::Compare { .. }
            | Node::Equal { .. }
            | Node::And(..)
            | Node::Or(..) => Ok(Value::Num(self.num(id)?)),
            Node::Cond { .. } | Node::Coalesce { .. } => match self.chosen(id)? {
                Some(operand) => self.eval(operand),
                None => Ok(Value::Num(0.0)),
            },
            Node::Assign(a) => {
                let v = self.eval(a.value)?;
                for &(s, d) in a.copies.iter() {
                    if let Some(m) = self.storage.get(a.scope, s) {
                        self.storage.set(a.scope, d, m);
                    }
                }
                self.storage.set(a.scope, a.slot, v);
                for &p in a.parents.iter() {
                    if self.storage.get(a.scope, p).is_none() {
                        self.storage.set(a.scope, p, Value::Num(0.0));
                    }
                }
                Ok(v)
            }
            Node::Discard(e) => self.eval(*e),
            Node::Arrow { entity, remote } => self.arrow(*entity, remote),
            Node::Block { stmts, simple } => {
                if *simple {
                    let mut v = Value::Num(0.0);
                    for &s in stmts.iter() {
                        v = self.eval(s)?;
                    }
                    return Ok(v);
                }
                for &s in stmts.iter() {
                    self.eval(s)?;
                }
                Ok(Value::Num(0.0))
            }
            Node::Loop { count, body } => self.run_loop(id, *count, *body),
            Node::ForEach(f) => self.for_each(id, *f),
            Node::Break => {
                self.stop = Some(Unwind::Break);
                Err(Stop)
            }
            Node::Continue => {
                self.stop = Some(Unwind::Continue);
                Err(Stop)
            }
            Node::Return(v) => {
                let v = self.eval(*v)?;
                self.stop = Some(Unwind::Return(v));
                Err(Stop)
            }
        }
    }

    #[inline(never)]
    fn arrow(&mut self, entity: NodeId, remote: &Remote) -> R {
        let Value::Entity(e) = self.eval(entity)? else {
            return Ok(Value::Num(0.0));
        };
        let v = match remote {
            Remote::Variable(name) => self.host.remote_variable(e, *name),
            Remote::Query { query, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for &a in args.iter() {
                    vals.push(self.eval(a)?);
                }
                self.host.remote_query(e, *query, &vals)
            }
        };
        Ok(v.unwrap_or(Value::Num(0.0)))
    }

    /// A loop body's stop: `Ok(true)` to go on, `Ok(false)` after `break`, `Err` for the
    /// stops that end more than the loop.
    #[inline]
    fn body_stop(&mut self) -> Result<bool, Stop> {
        match self.stop {
            Some(Unwind::Continue) => {
                self.stop = None;
                Ok(true)
            }
            Some(Unwind::Break) => {
                self.stop = None;
                Ok(false)
            }
            _ => Err(Stop),
        }
    }

    #[inline(never)]
    fn run_loop(&mut self, id: NodeId, count: NodeId, body: NodeId) -> R {
        let n = self.num(count)?;
        // Fractional counts round up; negative and NaN counts run nothing.
        let mut n = if n > 0.0 {
            n.ceil().min(u32::MAX as f32) as u64
        } else {
            0
        };
        if let Some(cap) = self.options.loop_cap {
            n = n.min(cap as u64);
        }
        for _ in 0..n {
            self.spend(1, id)?;
            if self.eval(body).is_err() && !self.body_stop()? {
                break;
            }
        }
        Ok(Value::Num(0.0))
    }

    #[inline(never)]
    fn for_each(&mut self, id: NodeId, f: ForEach) -> R {
        let list = match self.eval(f.array)? {
            Value::EntityList(l) => self.host.entity_list(l),
            _ => Vec::new(),
        };
        for e in list {
            self.spend(1, id)?;
            self.storage.set(f.scope, f.slot, Value::Entity(e));
            if self.eval(f.body).is_err() && !self.body_stop()? {
                break;
            }
        }
        Ok(Value::Num(0.0))
    }

    /// The queries computed from their arguments ([`queries`] has the rules and the order).
    #[inline(never)]
    fn pure_query(&mut self, func: PureQuery, args: &[NodeId]) -> R {
        let hit = match func {
            PureQuery::All | PureQuery::Any => {
                let first = self.eval(args[0])?;
                let want = func == PureQuery::Any;
                let mut hit = !want;
                for &a in &args[1..] {
                    if self.eval(a)?.equals(first) == want {
                        hit = want;
                        break;
                    }
                }
                hit
            }
            PureQuery::InRange => {
                let v = self.num(args[0])?;
                let lo = self.num(args[1])?;
                let hi = self.num(args[2])?;
                queries::in_range(v, lo, hi)
            }
            PureQuery::ApproxEq => {
                let first = self.num(args[0])?;
                let mut all = true;
                for &a in &args[1..] {
                    if !queries::approx_eq(first, self.num(a)?) {
                        all = false;
                        break;
                    }
                }
                all
            }
            PureQuery::Count => {
                let mut n = 0.0f32;
                for &a in args {
                    n += match self.eval(a)? {
                        Value::EntityList(l) => self.host.entity_list(l).len() as f32,
                        Value::Array(name) => self.host.array_len(name) as f32,
                        _ => 1.0,
                    };
                }
                return Ok(Value::Num(n));
            }
        };
        Ok(bool_value(hit))
    }

    fn spend(&mut self, n: u64, node: NodeId) -> Result<(), Stop> {
        self.iterations += n;
        if self.iterations > self.options.iteration_budget {
            return Err(self.abort(AbortKind::Budget, node));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::math::DefaultRng;
    use crate::{compile, CheckOptions};

    /// Answers every query with the sum of its numeric arguments and keeps what it was given.
    struct Recorder {
        calls: Vec<(Slot, Vec<Value>)>,
        rng: DefaultRng,
    }

    impl Host for Recorder {
        fn query(&mut self, query: Slot, args: &[Value]) -> Value {
            self.calls.push((query, args.to_vec()));
            Value::Num(args.iter().map(|a| a.as_num()).sum())
        }
        fn rng(&mut self) -> &mut dyn MolangRng {
            &mut self.rng
        }
    }

    fn run_text(text: &str, storage: &mut Storage) -> (Outcome, Vec<(Slot, Vec<Value>)>) {
        let check = CheckOptions {
            warn_unknown_queries: false,
            ..CheckOptions::default()
        };
        let e = compile(text, &check).expect("compiles");
        storage.fit(e.names());
        let mut host = Recorder {
            calls: Vec::new(),
            rng: DefaultRng::new(0),
        };
        let out = run_keep_temps(e.program(), storage, &mut host, &EvalOptions::default());
        (out, host.calls)
    }

    /// Queries with one, two and five arguments (the three paths of `query_args`) get every
    /// argument, in order, whether literal, computed, a slot or a string.
    #[test]
    fn query_arguments_reach_the_host_in_order() {
        let mut storage = Storage::default();
        let (out, calls) = run_text(
            "t.a = 4; return q.f(t.a) + q.f(2) * q.g(t.a * 2, 'x') + q.h(1, t.a, 3, 0.5, -1);",
            &mut storage,
        );
        assert_eq!(out.abort, None);
        assert_eq!(out.value, Value::Num(4.0 + 2.0 * 8.0 + 7.5));
        let args: Vec<Vec<Value>> = calls.into_iter().map(|(_, a)| a).collect();
        let s = Value::Str(crate::ir::fnv1_64(b"x"));
        assert_eq!(
            args,
            vec![
                vec![Value::Num(4.0)],
                vec![Value::Num(2.0)],
                vec![Value::Num(8.0), s],
                [1.0, 4.0, 3.0, 0.5, -1.0].map(Value::Num).to_vec(),
            ]
        );
    }

    /// An unset slot read as a direct operand (of arithmetic, a comparison, a math call, a
    /// query argument) still ends the run at that read, with value 0 and no later host call.
    #[test]
    fn unset_operands_end_the_run_at_the_read() {
        for text in [
            "return 1 + t.u + q.f(1);",
            "return (t.u < 2) + q.f(1);",
            "return math.abs(t.u) + q.f(1);",
            "return q.f(t.u) + q.f(1);",
            "return q.f(1, t.u) + q.f(1);",
        ] {
            let mut storage = Storage::default();
            let (out, calls) = run_text(text, &mut storage);
            assert_eq!(out.value, Value::Num(0.0), "{text}");
            assert!(
                matches!(
                    out.abort,
                    Some(Abort {
                        kind: AbortKind::UnsetRead {
                            scope: Scope::Temp,
                            ..
                        },
                        ..
                    })
                ),
                "{text}: {:?}",
                out.abort
            );
            assert!(calls.is_empty(), "{text}: {calls:?}");
        }
    }
}
