//! The calling convention: the [`Frame`] record the generated function receives, the storage
//! layout it reads and writes ([`crate::interp::Storage`], shared with the interpreter), and
//! the `extern "C"` callbacks it makes into the host (the interpreter's [`Host`] trait).

use crate::builtins::math::{self, MathFn, MolangRng};
use crate::interp::value::tag;
use crate::interp::{Abort, AbortKind, Host, Outcome, Storage, Value};
use crate::ir::{Node, NodeId, Program, Slot};

use super::JitProgram;

/// Storage in the layout native code reads: the interpreter's own (one layout for both).
pub type JitStorage = Storage;

/// What the generated function reads and writes. Built per run by [`JitProgram::run_in`].
/// `*_set` arrays hold each slot's tag byte (0 = unset, see [`crate::interp::value::tag`]).
#[repr(C)]
pub struct Frame {
    pub(super) vars: *mut f32,
    pub(super) vars_set: *mut u8,
    pub(super) vars_bits: *mut u64,
    pub(super) temps: *mut f32,
    pub(super) temps_set: *mut u8,
    pub(super) temps_bits: *mut u64,
    pub(super) ctx: *const f32,
    pub(super) ctx_set: *const u8,
    pub(super) ctx_bits: *const u64,
    pub(super) queries: *const f32,
    /// Answers queries with arguments, random draws and `this`.
    pub(super) host: *mut HostRef<'static>,
    pub(super) iterations: u64,
    pub(super) budget: u64,
    pub(super) this: f32,
    pub(super) result: f32,
    pub(super) abort_node: u32,
    pub(super) result_tag: u32,
    pub(super) result_bits: u64,
}

/// A value as native code passes it to and from callbacks (the storage form of
/// [`Value::encode`]).
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct JitValue {
    pub(super) tag: u32,
    pub(super) num: f32,
    pub(super) bits: u64,
}

pub(super) const JIT_VALUE_SIZE: u32 = std::mem::size_of::<JitValue>() as u32;

/// A `&mut dyn Host` behind a thin pointer, for the callbacks.
pub struct HostRef<'a>(pub(super) &'a mut dyn Host);

/// A numeric-only host for queries with arguments, for callers that predate the one
/// [`Host`] trait ([`JitProgram::run_with_queries`]); string arguments reach it as 0.
pub trait QueryArgs {
    fn query(&mut self, query: Slot, args: &[f32]) -> f32;
}

/// How a native run ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JitOutcome {
    Value(f32),
    /// A read of an unset name at this node ended the program (value 0).
    UnsetRead(NodeId),
    /// The iteration budget ran out at this node.
    Budget(NodeId),
}

/// Status the generated function returns.
pub(super) const STATUS_OK: i64 = 0;
pub(super) const STATUS_UNSET: i64 = 1;
pub(super) const STATUS_BUDGET: i64 = 2;

/// Called by generated code for `math.random*` and `math.die_roll*`.
pub(super) extern "C" fn jit_random(frame: *mut Frame, func: u32, a: f32, b: f32, c: f32) -> f32 {
    // SAFETY: generated code passes the frame it was given by `call`, whose `host` points at a
    // live `HostRef` for the duration of the call.
    let frame = unsafe { &mut *frame };
    let f = MathFn::ALL[func as usize];
    let args = [a, b, c];
    if let Some(n) = f.budget_cost(a) {
        frame.iterations += n;
        if frame.iterations > frame.budget {
            return 0.0;
        }
    }
    let host = unsafe { &mut *frame.host };
    math::eval_random(f, &args[..f.arity()], host.0.rng())
}

/// Called by generated code for a query with arguments: `n` values at `args`, the answer
/// written to `out`.
pub(super) extern "C" fn jit_query(
    frame: *mut Frame,
    query: u32,
    args: *const JitValue,
    n: u32,
    out: *mut JitValue,
) {
    // SAFETY: `frame` is the live frame of this run; `args` points at `n` values and `out` at
    // one, in the caller's stack slots; `host` points at a live `HostRef`.
    let frame = unsafe { &mut *frame };
    let raw = unsafe { std::slice::from_raw_parts(args, n as usize) };
    let mut vals = [Value::Num(0.0); 8];
    let mut long = Vec::new();
    let vals: &[Value] = if raw.len() <= vals.len() {
        for (v, r) in vals.iter_mut().zip(raw) {
            *v = decode(*r);
        }
        &vals[..raw.len()]
    } else {
        long.extend(raw.iter().map(|r| decode(*r)));
        &long
    };
    let host = unsafe { &mut *frame.host };
    let (t, num, bits) = host.0.query(Slot(query), vals).encode();
    unsafe {
        *out = JitValue {
            tag: t as u32,
            num,
            bits,
        }
    };
}

/// Called by generated code for an argument of `query.count` that may be a list: what it
/// counts (a list's or an array's length, 1 for anything else), as the interpreter counts.
pub(super) extern "C" fn jit_count(frame: *mut Frame, t: u32, num: f32, bits: u64) -> f32 {
    // SAFETY: `frame` is the live frame of this run and `host` points at a live `HostRef`.
    let frame = unsafe { &mut *frame };
    let host = unsafe { &mut *frame.host };
    match decode(JitValue { tag: t, num, bits }) {
        Value::EntityList(l) => host.0.entity_list(l).len() as f32,
        Value::Array(name) => host.0.array_len(name) as f32,
        _ => 1.0,
    }
}

fn decode(v: JitValue) -> Value {
    Value::decode(v.tag as u8, v.num, v.bits).unwrap_or(Value::Num(0.0))
}

/// The host of the callers that give query values as an array (and maybe a [`QueryArgs`]).
struct ArrayHost<'a> {
    queries: &'a [f32],
    rng: &'a mut dyn MolangRng,
    args: Option<&'a mut dyn QueryArgs>,
    this: f32,
}

impl Host for ArrayHost<'_> {
    fn query(&mut self, query: Slot, args: &[Value]) -> Value {
        let plain = || self.queries.get(query.index()).copied().unwrap_or(0.0);
        match &mut self.args {
            Some(h) if !args.is_empty() => {
                let nums: Vec<f32> = args.iter().map(|a| a.as_num()).collect();
                Value::Num(h.query(query, &nums))
            }
            _ => Value::Num(plain()),
        }
    }
    fn this(&mut self) -> f32 {
        self.this
    }
    fn rng(&mut self) -> &mut dyn MolangRng {
        self.rng
    }
}

impl JitProgram {
    /// Runs the program once. Temps are cleared first. `queries` holds the value of each
    /// query slot; `budget` caps loop iterations as in
    /// [`EvalOptions::iteration_budget`](crate::interp::EvalOptions::iteration_budget).
    pub fn run(
        &self,
        storage: &mut JitStorage,
        queries: &[f32],
        this: f32,
        rng: &mut dyn MolangRng,
        budget: u64,
    ) -> JitOutcome {
        storage.clear_temps();
        self.run_keep_temps(storage, queries, this, rng, budget)
    }

    /// Like [`run`](Self::run), with a numeric host answering queries that take arguments.
    pub fn run_with_queries(
        &self,
        storage: &mut JitStorage,
        queries: &[f32],
        this: f32,
        rng: &mut dyn MolangRng,
        budget: u64,
        host: &mut dyn QueryArgs,
    ) -> JitOutcome {
        storage.clear_temps();
        let mut host = ArrayHost {
            queries,
            rng,
            args: Some(host),
            this,
        };
        self.call(storage, queries, &mut host, budget).0
    }

    /// Like [`run`](Self::run) but keeps the temps already in `storage`.
    pub fn run_keep_temps(
        &self,
        storage: &mut JitStorage,
        queries: &[f32],
        this: f32,
        rng: &mut dyn MolangRng,
        budget: u64,
    ) -> JitOutcome {
        let mut host = ArrayHost {
            queries,
            rng,
            args: None,
            this,
        };
        self.call(storage, queries, &mut host, budget).0
    }

    /// Runs `program` (the one this was compiled from) on `storage` with the temps it has:
    /// queries without arguments read `queries`, everything else asks `host`, as the
    /// interpreter does. The outcome is the interpreter's.
    pub fn run_in(
        &self,
        program: &Program,
        storage: &mut Storage,
        queries: &[f32],
        host: &mut dyn Host,
        budget: u64,
    ) -> Outcome {
        let (out, value) = self.call(storage, queries, host, budget);
        let abort = |kind, node| Outcome {
            value: Value::Num(0.0),
            abort: Some(Abort { kind, node }),
        };
        match out {
            JitOutcome::Value(_) => Outcome { value, abort: None },
            JitOutcome::UnsetRead(node) => match program.node(node) {
                Node::Read { scope, slot } => abort(
                    AbortKind::UnsetRead {
                        scope: *scope,
                        slot: *slot,
                    },
                    node,
                ),
                _ => abort(AbortKind::Budget, node),
            },
            JitOutcome::Budget(node) => abort(AbortKind::Budget, node),
        }
    }

    fn call(
        &self,
        storage: &mut Storage,
        queries: &[f32],
        host: &mut dyn Host,
        budget: u64,
    ) -> (JitOutcome, Value) {
        // The bounds the generated code relies on (see the module's safety invariants).
        assert!(
            storage.vars.len() >= self.vars,
            "variable storage too small"
        );
        assert!(storage.temps.len() >= self.temps, "temp storage too small");
        assert!(storage.ctx.len() >= self.ctx, "context storage too small");
        assert!(queries.len() >= self.queries, "query values too short");
        let this = host.this();
        let mut host_ref = HostRef(host);
        let (v, t, c) = (&mut storage.vars, &mut storage.temps, &storage.ctx);
        let mut frame = Frame {
            vars: v.nums.as_mut_ptr(),
            vars_set: v.tags.as_mut_ptr(),
            vars_bits: v.bits.as_mut_ptr(),
            temps: t.nums.as_mut_ptr(),
            temps_set: t.tags.as_mut_ptr(),
            temps_bits: t.bits.as_mut_ptr(),
            ctx: c.nums.as_ptr(),
            ctx_set: c.tags.as_ptr(),
            ctx_bits: c.bits.as_ptr(),
            queries: queries.as_ptr(),
            // The reference only lives for this call; the erased lifetime never escapes.
            host: (&mut host_ref as *mut HostRef<'_>).cast(),
            iterations: 0,
            budget,
            this,
            result: 0.0,
            abort_node: 0,
            result_tag: tag::NUM as u32,
            result_bits: 0,
        };
        let status = (self.func)(&mut frame);
        match status {
            s if s == STATUS_OK as u32 => {
                let v = Value::decode(frame.result_tag as u8, frame.result, frame.result_bits)
                    .unwrap_or(Value::Num(0.0));
                (JitOutcome::Value(frame.result), v)
            }
            s if s == STATUS_UNSET as u32 => (
                JitOutcome::UnsetRead(NodeId(frame.abort_node)),
                Value::Num(0.0),
            ),
            _ => (
                JitOutcome::Budget(NodeId(frame.abort_node)),
                Value::Num(0.0),
            ),
        }
    }
}
