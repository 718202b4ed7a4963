//! The calling convention: the [`Frame`] record the generated function receives, the storage
//! layout it reads and writes, and the `extern "C"` callbacks it makes into the host.

use crate::builtins::math::{self, MathFn, MolangRng};
use crate::ir::{Names, NodeId, Scope, Slot};

use super::JitProgram;

/// What the generated function reads and writes. Built per run by [`JitProgram::run`].
#[repr(C)]
pub struct Frame {
    pub(super) vars: *mut f32,
    pub(super) vars_set: *mut u8,
    pub(super) temps: *mut f32,
    pub(super) temps_set: *mut u8,
    pub(super) ctx: *const f32,
    pub(super) ctx_set: *const u8,
    pub(super) queries: *const f32,
    pub(super) rng: *mut RngRef<'static>,
    /// Answers queries with arguments; null means "the value of the query's slot".
    pub(super) query_host: *mut QueryHostRef<'static>,
    pub(super) iterations: u64,
    pub(super) budget: u64,
    pub(super) this: f32,
    pub(super) result: f32,
    pub(super) abort_node: u32,
}

/// A `&mut dyn MolangRng` behind a thin pointer, for [`jit_random`].
pub struct RngRef<'a>(pub(super) &'a mut dyn MolangRng);

/// A host for queries with arguments (`q.position_delta(0)`), called from native code.
pub trait QueryArgs {
    fn query(&mut self, query: Slot, args: &[f32]) -> f32;
}

/// A `&mut dyn QueryArgs` behind a thin pointer, for [`jit_query`].
pub struct QueryHostRef<'a>(pub(super) &'a mut dyn QueryArgs);

/// Storage in the JIT's layout: an f32 and a "set" flag per slot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JitStorage {
    pub vars: Vec<f32>,
    pub vars_set: Vec<u8>,
    pub temps: Vec<f32>,
    pub temps_set: Vec<u8>,
    pub ctx: Vec<f32>,
    pub ctx_set: Vec<u8>,
}

impl JitStorage {
    /// Storage sized for every name in `names`, all unset.
    pub fn for_names(names: &Names) -> JitStorage {
        let mut s = JitStorage::default();
        s.fit(names);
        s
    }
    /// Grows the arrays to cover every name in `names` (entity scripts add names over time).
    pub fn fit(&mut self, names: &Names) {
        let (v, t, c) = (
            names.variables.len(),
            names.temps.len(),
            names.contexts.len(),
        );
        if self.vars.len() < v {
            self.vars.resize(v, 0.0);
            self.vars_set.resize(v, 0);
        }
        if self.temps.len() < t {
            self.temps.resize(t, 0.0);
            self.temps_set.resize(t, 0);
        }
        if self.ctx.len() < c {
            self.ctx.resize(c, 0.0);
            self.ctx_set.resize(c, 0);
        }
    }
    pub fn get(&self, scope: Scope, slot: Slot) -> Option<f32> {
        let (vals, set) = match scope {
            Scope::Variable => (&self.vars, &self.vars_set),
            Scope::Temp => (&self.temps, &self.temps_set),
            Scope::Context => (&self.ctx, &self.ctx_set),
        };
        (set.get(slot.index()).copied().unwrap_or(0) != 0).then(|| vals[slot.index()])
    }
    pub fn set(&mut self, scope: Scope, slot: Slot, v: f32) {
        let (vals, set) = match scope {
            Scope::Variable => (&mut self.vars, &mut self.vars_set),
            Scope::Temp => (&mut self.temps, &mut self.temps_set),
            Scope::Context => (&mut self.ctx, &mut self.ctx_set),
        };
        if vals.len() <= slot.index() {
            vals.resize(slot.index() + 1, 0.0);
            set.resize(slot.index() + 1, 0);
        }
        vals[slot.index()] = v;
        set[slot.index()] = 1;
    }
    pub fn clear_temps(&mut self) {
        self.temps_set.iter_mut().for_each(|f| *f = 0);
    }
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

/// Status the generated function returns (see [`JitProgram::run`]).
pub(super) const STATUS_OK: i64 = 0;
pub(super) const STATUS_UNSET: i64 = 1;
pub(super) const STATUS_BUDGET: i64 = 2;

/// Called by generated code for `math.random*` and `math.die_roll*`.
pub(super) extern "C" fn jit_random(frame: *mut Frame, func: u32, a: f32, b: f32, c: f32) -> f32 {
    // SAFETY: generated code passes the frame it was given by `run`, whose `rng` points at a
    // live `RngRef` for the duration of the call.
    let frame = unsafe { &mut *frame };
    let f = MathFn::ALL[func as usize];
    let args = [a, b, c];
    if matches!(f, MathFn::DieRoll | MathFn::DieRollInteger) {
        frame.iterations += math::die_roll_count(a) as u64;
        if frame.iterations > frame.budget {
            return 0.0;
        }
    }
    let rng = unsafe { &mut *frame.rng };
    math::eval_random(f, &args[..f.arity()], rng.0)
}

/// Called by generated code for a query with arguments.
pub(super) extern "C" fn jit_query(frame: *mut Frame, query: u32, args: *const f32, n: u32) -> f32 {
    // SAFETY: `frame` is the live frame of this run; `args` points at `n` f32s in the
    // caller's stack slot; `query_host`, when set, points at a live `QueryHostRef`.
    let frame = unsafe { &mut *frame };
    if frame.query_host.is_null() {
        return unsafe { *frame.queries.add(query as usize) };
    }
    let args = unsafe { std::slice::from_raw_parts(args, n as usize) };
    let host = unsafe { &mut *frame.query_host };
    host.0.query(Slot(query), args)
}

impl JitProgram {
    /// Runs the program once. Temps are cleared first. `queries` holds the value of each
    /// query slot; `budget` caps loop iterations as in [`EvalOptions::iteration_budget`].
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

    /// Like [`run`](Self::run), with a host answering queries that take arguments.
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
        let mut href = QueryHostRef(host);
        self.call(
            storage,
            queries,
            this,
            rng,
            budget,
            (&mut href as *mut QueryHostRef<'_>).cast(),
        )
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
        self.call(storage, queries, this, rng, budget, std::ptr::null_mut())
    }

    fn call(
        &self,
        storage: &mut JitStorage,
        queries: &[f32],
        this: f32,
        rng: &mut dyn MolangRng,
        budget: u64,
        query_host: *mut QueryHostRef<'static>,
    ) -> JitOutcome {
        // The bounds the generated code relies on (see the module's safety invariants).
        assert!(
            storage.vars.len() >= self.vars && storage.vars_set.len() >= self.vars,
            "variable storage too small"
        );
        assert!(
            storage.temps.len() >= self.temps && storage.temps_set.len() >= self.temps,
            "temp storage too small"
        );
        assert!(
            storage.ctx.len() >= self.ctx && storage.ctx_set.len() >= self.ctx,
            "context storage too small"
        );
        assert!(queries.len() >= self.queries, "query values too short");
        let mut rng_ref = RngRef(rng);
        let mut frame = Frame {
            vars: storage.vars.as_mut_ptr(),
            vars_set: storage.vars_set.as_mut_ptr(),
            temps: storage.temps.as_mut_ptr(),
            temps_set: storage.temps_set.as_mut_ptr(),
            ctx: storage.ctx.as_ptr(),
            ctx_set: storage.ctx_set.as_ptr(),
            queries: queries.as_ptr(),
            // The reference only lives for this call; the erased lifetime never escapes.
            rng: (&mut rng_ref as *mut RngRef<'_>).cast(),
            query_host,
            iterations: 0,
            budget,
            this,
            result: 0.0,
            abort_node: 0,
        };
        let status = (self.func)(&mut frame);
        match status {
            s if s == STATUS_OK as u32 => JitOutcome::Value(frame.result),
            s if s == STATUS_UNSET as u32 => JitOutcome::UnsetRead(NodeId(frame.abort_node)),
            _ => JitOutcome::Budget(NodeId(frame.abort_node)),
        }
    }
}
