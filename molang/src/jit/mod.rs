//! The Cranelift back end: one checked [`Program`] becomes one native function over a
//! [`Frame`] record. It must agree with the interpreter bit for bit (f32, NaN included);
//! the differential tests hold it to that.
//!
//! Every name is a slot resolved at check time, so a variable read is one load of a flag
//! byte and one load of an f32 at a fixed offset: no hashing, no map lookup. Math builtins
//! are calls to the very same `extern "C"` functions the interpreter uses
//! ([`crate::builtins::math::MathFn::native`]); random draws go through [`jit_random`].
//!
//! Programs that use values other than numbers (strings, resources, arrays, `->`,
//! `for_each`) are not compiled: [`compile`] says so with
//! [`JitError::Unsupported`] and the caller keeps the interpreter, visibly.
//!
//! # Safety invariants
//! The only `unsafe` code of the crate lives here:
//! - The generated code reads and writes `vars`, `temps`, `contexts` and `queries` at
//!   `slot * 4` (values) and `slot` (flags). [`JitProgram::run`] checks before every call that
//!   each array is at least as long as the name table the program was checked with, and the
//!   checker only emits slots from those tables.
//! - The function pointer is valid while the owning `JITModule` lives; [`JitProgram`] owns the
//!   module and frees its memory only in `Drop`, after which the pointer is never used.
//! - [`Frame`] is `#[repr(C)]` and the code uses `offset_of!` offsets, so layout cannot drift.
//! - Slot offsets are `i32` immediates (`slot * 4`): every slot is a name written in the
//!   source, and `grammar::MAX_SOURCE_LEN` (4 MiB) bounds the source, so no offset overflows.
//! - The frame, the [`RngRef`] and the [`QueryHostRef`] live on `call`'s stack for the whole
//!   native call; neither the generated code nor the callbacks keep a pointer past it. The
//!   storage arrays are borrowed `&mut` by `call`, so nothing else can touch them meanwhile;
//!   `ctx`, `ctx_set` and `queries` are only read.
//! - A query with arguments passes a pointer to a stack slot of exactly `n` f32s made at that
//!   call site; [`jit_query`] reads `n` of them. With no host it reads `queries[slot]`, in
//!   bounds by the first invariant.
//! - Callbacks are `extern "C"`: a panic in a host or builtin aborts the process instead of
//!   unwinding through generated frames.
//! - Every loop iteration passes the budget check (and `die_roll` spends one per roll), so
//!   a run ends after at most `budget` iterations whatever the program.
//!
//! `unsafe` appears nowhere else in the workspace (`grep -rn unsafe molang/src grammar/src`).

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Block, InstBuilder, MemFlagsData, Signature, Value as CValue,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use crate::builtins::math::{self, MathFn, MolangRng, NativeFn};
use crate::interp::{folds_to_constant, EvalOptions, DIVISION_EPSILON};
use crate::ir::{ArithOp, CmpOp, Names, Node, NodeId, Program, PureQuery, Scope, Slot};

/// What the generated function reads and writes. Built per run by [`JitProgram::run`].
#[repr(C)]
pub struct Frame {
    vars: *mut f32,
    vars_set: *mut u8,
    temps: *mut f32,
    temps_set: *mut u8,
    ctx: *const f32,
    ctx_set: *const u8,
    queries: *const f32,
    rng: *mut RngRef<'static>,
    /// Answers queries with arguments; null means "the value of the query's slot".
    query_host: *mut QueryHostRef<'static>,
    iterations: u64,
    budget: u64,
    this: f32,
    result: f32,
    abort_node: u32,
}

/// A `&mut dyn MolangRng` behind a thin pointer, for [`jit_random`].
pub struct RngRef<'a>(&'a mut dyn MolangRng);

/// A host for queries with arguments (`q.position_delta(0)`), called from native code.
pub trait QueryArgs {
    fn query(&mut self, query: Slot, args: &[f32]) -> f32;
}

/// A `&mut dyn QueryArgs` behind a thin pointer, for [`jit_query`].
pub struct QueryHostRef<'a>(&'a mut dyn QueryArgs);

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

/// Why a program was not compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JitError {
    /// The program uses something the JIT leaves to the interpreter.
    Unsupported(&'static str),
    /// Cranelift refused the function (a bug of ours; reported, never a panic).
    Codegen(String),
}

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JitError::Unsupported(what) => write!(
                f,
                "the JIT does not compile {what}; the interpreter runs it"
            ),
            JitError::Codegen(e) => write!(f, "code generation failed: {e}"),
        }
    }
}

impl std::error::Error for JitError {}

/// How a native run ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JitOutcome {
    Value(f32),
    /// A read of an unset name at this node ended the program (value 0).
    UnsetRead(NodeId),
    /// The iteration budget ran out at this node.
    Budget(NodeId),
}

/// A compiled program. Dropping it frees its machine code.
pub struct JitProgram {
    module: Option<JITModule>,
    func: extern "C" fn(*mut Frame) -> u32,
    temps: usize,
    vars: usize,
    ctx: usize,
    queries: usize,
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `func` points into this module and is never called after drop.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for JitProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitProgram").finish_non_exhaustive()
    }
}

/// Called by generated code for `math.random*` and `math.die_roll*`.
extern "C" fn jit_random(frame: *mut Frame, func: u32, a: f32, b: f32, c: f32) -> f32 {
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
extern "C" fn jit_query(frame: *mut Frame, query: u32, args: *const f32, n: u32) -> f32 {
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

/// Whether the JIT compiles `program`; `Err` names the first construct it leaves to the
/// interpreter.
pub fn supports(program: &Program) -> Result<(), JitError> {
    for i in 0..program.len() {
        let what = match program.node(NodeId(i as u32)) {
            Node::Str(_) => "strings",
            Node::Resource { .. } | Node::Array { .. } | Node::Index { .. } => {
                "resources and arrays"
            }
            Node::Arrow { .. } => "`->`",
            Node::ForEach { .. } => "`for_each`",
            _ => continue,
        };
        return Err(JitError::Unsupported(what));
    }
    Ok(())
}

/// Compiles `program` (checked against `names`) to native code.
pub fn compile(
    program: &Program,
    names: &Names,
    options: &EvalOptions,
) -> Result<JitProgram, JitError> {
    supports(program)?;
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v).map_err(|e| JitError::Codegen(e.to_string()))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    // The checker's invariants make the IR we emit well formed; the verifier costs ~11% of
    // compile time (profiled), and the differential tests catch a malformed function anyway.
    set(
        &mut flags,
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    let isa_builder = cranelift_native::builder().map_err(|e| JitError::Codegen(e.to_string()))?;
    let isa = isa_builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let call_conv = module.target_config().default_call_conv;
    let frontend_config = module.target_config();

    let mut ctx = module.make_context();
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        // Blocks are sealed as soon as all their predecessors exist, so variable reads find
        // their dominating definition instead of growing block parameters everywhere.
        b.seal_block(entry);
        let frame = b.block_params(entry)[0];
        // The storage pointers never change during a run: load them once in the entry block,
        // which dominates every use.
        // Only the arrays the program touches: Cranelift keeps even unused loads, and small
        // expressions pay for every instruction of the prologue.
        let used = used_storage(program);
        let base = |b: &mut FunctionBuilder<'_>, off: usize, used: bool| {
            if !used {
                return b.ins().iconst(ptr, 0);
            }
            b.ins().load(
                ptr,
                MemFlagsData::trusted().with_readonly(),
                frame,
                off as i32,
            )
        };
        let [temps, vars, ctx, queries] = used;
        let bases = Bases {
            vars: base(&mut b, offset_of!(Frame, vars), vars),
            vars_set: base(&mut b, offset_of!(Frame, vars_set), vars),
            temps: base(&mut b, offset_of!(Frame, temps), temps),
            temps_set: base(&mut b, offset_of!(Frame, temps_set), temps),
            ctx: base(&mut b, offset_of!(Frame, ctx), ctx),
            ctx_set: base(&mut b, offset_of!(Frame, ctx_set), ctx),
            queries: base(&mut b, offset_of!(Frame, queries), queries),
        };
        let mut t = Translator {
            b,
            frame,
            ptr,
            program,
            options,
            loops: Vec::new(),
            call_conv,
            bases,
            known: Default::default(),
            known_log: Vec::new(),
            ssa: Default::default(),
            memo: std::collections::HashMap::new(),
            memo_log: Vec::new(),
        };
        t.declare_ssa_slots();
        let v = t.node(program.root());
        t.finish(v);
        t.b.seal_all_blocks();
        t.b.finalize(frontend_config);
    }
    let id = module
        .declare_function("molang_program", Linkage::Local, &ctx.func.signature)
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    module
        .define_function(id, &mut ctx)
        .map_err(|e| JitError::Codegen(format!("{e:?}")))?;
    module.clear_context(&mut ctx);
    module
        .finalize_definitions()
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let code = module.get_finalized_function(id);
    // SAFETY: the function was declared with exactly this signature (pointer) -> i32.
    let func = unsafe { std::mem::transmute::<*const u8, extern "C" fn(*mut Frame) -> u32>(code) };
    Ok(JitProgram {
        module: Some(module),
        func,
        temps: names.temps.len(),
        vars: names.variables.len(),
        ctx: names.contexts.len(),
        queries: names.queries.len(),
    })
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
            0 => JitOutcome::Value(frame.result),
            1 => JitOutcome::UnsetRead(NodeId(frame.abort_node)),
            _ => JitOutcome::Budget(NodeId(frame.abort_node)),
        }
    }
}

struct LoopTarget {
    latch: Block,
    exit: Block,
    /// The iteration counter (the header's block parameter).
    counter: CValue,
}

/// Which storage arrays a program touches: temps, variables, contexts, query values.
fn used_storage(program: &Program) -> [bool; 4] {
    let mut used = [false; 4];
    let scope = |s: Scope, used: &mut [bool; 4]| match s {
        Scope::Temp => used[0] = true,
        Scope::Variable => used[1] = true,
        Scope::Context => used[2] = true,
    };
    for i in 0..program.len() {
        match program.node(NodeId(i as u32)) {
            Node::Read { scope: s, .. }
            | Node::Assign { scope: s, .. }
            | Node::Coalesce { scope: s, .. } => scope(*s, &mut used),
            Node::Query { args, .. } if args.is_empty() => used[3] = true,
            _ => {}
        }
    }
    used
}

/// What a shared value stands for (see `Translator::memo`).
#[derive(Clone, PartialEq, Eq, Hash)]
enum MemoKey {
    /// A pure builtin applied to these values.
    Call(MathFn, Vec<CValue>),
    /// The value of a query without arguments: queries do not change during a run.
    Query(Slot),
}

/// The storage pointers of the [`Frame`], loaded once at entry.
struct Bases {
    vars: CValue,
    vars_set: CValue,
    temps: CValue,
    temps_set: CValue,
    ctx: CValue,
    ctx_set: CValue,
    queries: CValue,
}

struct Translator<'a> {
    b: FunctionBuilder<'a>,
    frame: CValue,
    bases: Bases,
    /// Slots known to be set at the current emission point, per scope (variables, temps,
    /// contexts): a read there needs no flag test. Flags only ever go from unset to set
    /// during a run, so a slot checked or stored on every path to a point stays set there.
    /// Conditional code undoes its marks through `known_log` when its region ends.
    known: [Vec<bool>; 3],
    known_log: Vec<(usize, usize)>,
    /// Variables and temps the program touches, as SSA values: loaded once at entry, kept in
    /// registers, and still stored to memory at every assignment so that any exit (return,
    /// abort, budget) leaves memory up to date. Nothing else writes the storage during a run.
    ssa: [Vec<Option<Variable>>; 3],
    /// Results of pure builtin calls by (builtin, argument values), valid where the call
    /// dominates: scoped like `known`.
    memo: std::collections::HashMap<MemoKey, CValue>,
    memo_log: Vec<MemoKey>,
    ptr: types::Type,
    program: &'a Program,
    options: &'a EvalOptions,
    loops: Vec<LoopTarget>,
    call_conv: cranelift_codegen::isa::CallConv,
}

const STATUS_OK: i64 = 0;
const STATUS_UNSET: i64 = 1;
const STATUS_BUDGET: i64 = 2;

impl Translator<'_> {
    fn flags() -> MemFlagsData {
        MemFlagsData::trusted()
    }

    fn field(&mut self, offset: usize, ty: types::Type) -> CValue {
        self.b
            .ins()
            .load(ty, Self::flags(), self.frame, offset as i32)
    }

    fn f32c(&mut self, x: f32) -> CValue {
        self.b.ins().f32const(x)
    }

    fn bool_to_f32(&mut self, c: CValue) -> CValue {
        let one = self.f32c(1.0);
        let zero = self.f32c(0.0);
        self.b.ins().select(c, one, zero)
    }

    /// NaN is true; only ±0 is false.
    fn truthy(&mut self, v: CValue) -> CValue {
        let zero = self.f32c(0.0);
        self.b.ins().fcmp(FloatCC::NotEqual, v, zero)
    }

    fn arrays(&self, scope: Scope) -> (CValue, CValue) {
        match scope {
            Scope::Variable => (self.bases.vars, self.bases.vars_set),
            Scope::Temp => (self.bases.temps, self.bases.temps_set),
            Scope::Context => (self.bases.ctx, self.bases.ctx_set),
        }
    }

    fn load_flag(&mut self, scope: Scope, slot: Slot) -> CValue {
        let (_, set) = self.arrays(scope);
        // Offsets fit in i32: slots index name tables far smaller than 2^29 entries.
        self.b
            .ins()
            .uload8(types::I32, Self::flags(), set, slot.index() as i32)
    }

    fn ssa_var(&self, scope: Scope, slot: Slot) -> Option<Variable> {
        self.ssa[scope as usize]
            .get(slot.index())
            .copied()
            .flatten()
    }

    /// Declares an SSA variable for every variable and temp slot the program reads,
    /// defined at entry by one load from storage.
    fn declare_ssa_slots(&mut self) {
        let program = self.program;
        let touch = |t: &mut Self, scope: Scope, slot: Slot| {
            if scope == Scope::Context || t.ssa_var(scope, slot).is_some() {
                return;
            }
            let (vals, _) = t.arrays(scope);
            let v =
                t.b.ins()
                    .load(types::F32, Self::flags(), vals, slot.index() as i32 * 4);
            let var = t.b.declare_var(types::F32);
            t.b.def_var(var, v);
            let list = &mut t.ssa[scope as usize];
            if list.len() <= slot.index() {
                list.resize(slot.index() + 1, None);
            }
            list[slot.index()] = Some(var);
        };
        for i in 0..program.len() {
            match program.node(NodeId(i as u32)) {
                Node::Read { scope, slot } => touch(self, *scope, *slot),
                // Slots only ever written stay in memory: no load at entry for them.
                Node::Assign { scope, copies, .. } => {
                    for &(a, _) in copies.iter() {
                        touch(self, *scope, a);
                    }
                }
                _ => {}
            }
        }
    }

    fn load_value(&mut self, scope: Scope, slot: Slot) -> CValue {
        if let Some(var) = self.ssa_var(scope, slot) {
            return self.b.use_var(var);
        }
        let (vals, _) = self.arrays(scope);
        self.b
            .ins()
            .load(types::F32, Self::flags(), vals, slot.index() as i32 * 4)
    }

    fn store(&mut self, scope: Scope, slot: Slot, v: CValue) {
        let (vals, set) = self.arrays(scope);
        self.b
            .ins()
            .store(Self::flags(), v, vals, slot.index() as i32 * 4);
        let one = self.b.ins().iconst(types::I8, 1);
        self.b
            .ins()
            .store(Self::flags(), one, set, slot.index() as i32);
        if let Some(var) = self.ssa_var(scope, slot) {
            self.b.def_var(var, v);
        }
    }

    fn is_known(&self, scope: Scope, slot: Slot) -> bool {
        let k = &self.known[scope as usize];
        k.get(slot.index()).copied().unwrap_or(false)
    }

    /// Marks a slot as set from here on in the current region.
    fn mark_known(&mut self, scope: Scope, slot: Slot) {
        let (s, i) = (scope as usize, slot.index());
        let k = &mut self.known[s];
        if k.len() <= i {
            k.resize(i + 1, false);
        }
        if !k[i] {
            k[i] = true;
            self.known_log.push((s, i));
        }
    }

    /// Where the current region's facts start (see [`forget_since`](Self::forget_since)).
    fn region(&self) -> (usize, usize) {
        (self.known_log.len(), self.memo_log.len())
    }

    /// Undoes what was learnt since `mark` (the end of a conditional region): set slots and
    /// shared call results.
    fn forget_since(&mut self, mark: (usize, usize)) {
        while self.known_log.len() > mark.0 {
            let (s, i) = self.known_log.pop().expect("log longer than mark");
            self.known[s][i] = false;
        }
        while self.memo_log.len() > mark.1 {
            let key = self.memo_log.pop().expect("log longer than mark");
            self.memo.remove(&key);
        }
    }

    /// Continues in a fresh block with no predecessors, after a jump or return, so the caller
    /// can keep emitting (that code is unreachable).
    fn dead_block(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        self.b.seal_block(dead);
    }

    /// Stores `v` in the frame field at `offset` and returns `status` from the current block.
    fn leave(&mut self, offset: usize, v: CValue, status: i64) {
        self.b
            .ins()
            .store(Self::flags(), v, self.frame, offset as i32);
        let s = self.b.ins().iconst(types::I32, status);
        self.b.ins().return_(&[s]);
    }

    /// Records `node` and returns `status` from the current block.
    fn abort(&mut self, node: NodeId, status: i64) {
        let n = self.b.ins().iconst(types::I32, node.0 as i64);
        self.leave(offset_of!(Frame, abort_node), n, status);
    }

    fn finish(&mut self, v: CValue) {
        self.leave(offset_of!(Frame, result), v, STATUS_OK);
    }

    /// `if cond { then() } else { otherwise() }` yielding an f32.
    fn branch(
        &mut self,
        cond: CValue,
        then: impl FnOnce(&mut Self) -> CValue,
        otherwise: impl FnOnce(&mut Self) -> CValue,
    ) -> CValue {
        let tb = self.b.create_block();
        let eb = self.b.create_block();
        let merge = self.b.create_block();
        self.b.append_block_param(merge, types::F32);
        self.b.ins().brif(cond, tb, &[], eb, &[]);
        self.b.seal_block(tb);
        self.b.seal_block(eb);
        let mark = self.region();
        self.b.switch_to_block(tb);
        let tv = then(self);
        self.forget_since(mark);
        self.b.ins().jump(merge, &[tv.into()]);
        self.b.switch_to_block(eb);
        let ev = otherwise(self);
        self.forget_since(mark);
        self.b.ins().jump(merge, &[ev.into()]);
        self.b.switch_to_block(merge);
        self.b.seal_block(merge);
        self.b.block_params(merge)[0]
    }

    /// Budget check at a loop back-edge: one iteration spent.
    fn spend(&mut self, node: NodeId) {
        let off = offset_of!(Frame, iterations) as i32;
        let it = self
            .b
            .ins()
            .load(types::I64, Self::flags(), self.frame, off);
        let it = self.b.ins().iadd_imm_s(it, 1);
        self.b.ins().store(Self::flags(), it, self.frame, off);
        self.check_budget(node, it);
    }

    /// Ends the run with the budget status when `iterations` is past the budget.
    fn check_budget(&mut self, node: NodeId, iterations: CValue) {
        let budget = self.field(offset_of!(Frame, budget), types::I64);
        let over = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThan, iterations, budget);
        self.abort_when(over, true, node, STATUS_BUDGET);
    }

    /// Ends the run with `status` at `node` when `cond` (a non-zero test) equals `when`;
    /// otherwise carries on. Branching on the raw value avoids a compare.
    fn abort_when(&mut self, cond: CValue, when: bool, node: NodeId, status: i64) {
        let bad = self.b.create_block();
        let ok = self.b.create_block();
        if when {
            self.b.ins().brif(cond, bad, &[], ok, &[]);
        } else {
            self.b.ins().brif(cond, ok, &[], bad, &[]);
        }
        self.b.seal_block(bad);
        self.b.seal_block(ok);
        self.b.switch_to_block(bad);
        self.abort(node, status);
        self.b.switch_to_block(ok);
    }

    /// An indirect call to a Rust `extern "C"` function returning f32.
    fn call_extern(&mut self, addr: *const (), params: &[types::Type], args: &[CValue]) -> CValue {
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns.push(AbiParam::new(types::F32));
        let sigref = self.b.import_signature(sig);
        let callee = self.b.ins().iconst(self.ptr, addr as i64);
        let call = self.b.ins().call_indirect(sigref, callee, args);
        self.b.inst_results(call)[0]
    }

    fn call_native(&mut self, f: NativeFn, args: &[CValue]) -> CValue {
        let params = vec![types::F32; f.arity()];
        self.call_extern(f.addr().cast(), &params, args)
    }

    fn call_random(&mut self, id: NodeId, f: MathFn, args: &[CValue]) -> CValue {
        let index = MathFn::ALL
            .iter()
            .position(|g| *g == f)
            .expect("builtin in table");
        let fi = self.b.ins().iconst(types::I32, index as i64);
        let mut all = vec![self.frame, fi];
        for i in 0..3 {
            all.push(match args.get(i) {
                Some(v) => *v,
                None => self.f32c(0.0),
            });
        }
        let params = [self.ptr, types::I32, types::F32, types::F32, types::F32];
        let v = self.call_extern(jit_random as *const (), &params, &all);
        if matches!(f, MathFn::DieRoll | MathFn::DieRollInteger) {
            // A die roll spends one iteration per roll; past the budget the run ends.
            let it = self.field(offset_of!(Frame, iterations), types::I64);
            self.check_budget(id, it);
        }
        v
    }

    /// The builtins that are a few arithmetic instructions, emitted in place of the call.
    /// Each follows its `extern "C"` twin in `builtins::math` operation for operation (same
    /// rounding steps, same comparison and select on NaN), so the bits agree. Only builtins
    /// whose NaN result cannot depend on operand order qualify: the compiler may commute an
    /// `a + b` in the Rust twin, and with two NaN operands x86 keeps the first one's payload
    /// (that is why `lerp` stays a call).
    fn inline_math(&mut self, f: MathFn, v: &[CValue]) -> Option<CValue> {
        Some(match f {
            MathFn::Abs => self.b.ins().fabs(v[0]),
            MathFn::Sqrt => self.b.ins().sqrt(v[0]),
            // `a > b ? a : b` and `a < b ? a : b`, as `max_raw` / `min_raw`.
            MathFn::Max => {
                let c = self.b.ins().fcmp(FloatCC::GreaterThan, v[0], v[1]);
                self.b.ins().select(c, v[0], v[1])
            }
            MathFn::Min => {
                let c = self.b.ins().fcmp(FloatCC::LessThan, v[0], v[1]);
                self.b.ins().select(c, v[0], v[1])
            }
            // `v > hi ? hi : max_raw(v, lo)`.
            MathFn::Clamp => {
                let gt_lo = self.b.ins().fcmp(FloatCC::GreaterThan, v[0], v[1]);
                let m = self.b.ins().select(gt_lo, v[0], v[1]);
                let gt_hi = self.b.ins().fcmp(FloatCC::GreaterThan, v[0], v[2]);
                self.b.ins().select(gt_hi, v[2], m)
            }
            // `3.0 * t * t - (t + t) * t * t`, left to right.
            MathFn::HermiteBlend => {
                let three = self.f32c(3.0);
                let a = self.b.ins().fmul(three, v[0]);
                let a = self.b.ins().fmul(a, v[0]);
                let b = self.b.ins().fadd(v[0], v[0]);
                let b = self.b.ins().fmul(b, v[0]);
                let b = self.b.ins().fmul(b, v[0]);
                self.b.ins().fsub(a, b)
            }
            _ => return None,
        })
    }

    /// `query.all` / `any` / `in_range` / `approx_eq` / `count` in place, in the interpreter's
    /// order: `all`, `any` and `approx_eq` jump out at the first argument that decides.
    fn pure_query(&mut self, func: PureQuery, args: &[NodeId]) -> CValue {
        match func {
            PureQuery::InRange => {
                let v = self.node(args[0]);
                let lo = self.node(args[1]);
                let hi = self.node(args[2]);
                let a = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, v, lo);
                let b = self.b.ins().fcmp(FloatCC::LessThanOrEqual, v, hi);
                let both = self.b.ins().band(a, b);
                self.bool_to_f32(both)
            }
            PureQuery::Count => {
                // Only numbers reach native code, and each counts 1.
                for &a in args {
                    self.node(a);
                }
                self.f32c(args.len() as f32)
            }
            PureQuery::All | PureQuery::Any | PureQuery::ApproxEq => {
                let (stop_value, end_value) = match func {
                    PureQuery::Any => (1.0, 0.0),
                    _ => (0.0, 1.0),
                };
                let first = self.node(args[0]);
                let done = self.b.create_block();
                self.b.append_block_param(done, types::F32);
                let mark = self.region();
                for &a in &args[1..] {
                    let x = self.node(a);
                    let stop = match func {
                        PureQuery::All => self.b.ins().fcmp(FloatCC::NotEqual, x, first),
                        PureQuery::Any => self.b.ins().fcmp(FloatCC::Equal, x, first),
                        _ => {
                            let d = self.b.ins().fsub(x, first);
                            let d = self.b.ins().fabs(d);
                            let eps = self.f32c(f32::EPSILON);
                            self.b
                                .ins()
                                .fcmp(FloatCC::UnorderedOrGreaterThanOrEqual, d, eps)
                        }
                    };
                    let sv = self.f32c(stop_value);
                    let next = self.b.create_block();
                    self.b.ins().brif(stop, done, &[sv.into()], next, &[]);
                    self.b.seal_block(next);
                    self.b.switch_to_block(next);
                }
                let ev = self.f32c(end_value);
                self.b.ins().jump(done, &[ev.into()]);
                // What the later arguments taught holds only on the paths that ran them.
                self.forget_since(mark);
                self.b.switch_to_block(done);
                self.b.seal_block(done);
                self.b.block_params(done)[0]
            }
        }
    }

    fn node(&mut self, id: NodeId) -> CValue {
        let program = self.program;
        match program.node(id) {
            Node::Const(c) => self.f32c(*c),
            Node::This => self.field(offset_of!(Frame, this), types::F32),
            Node::Query { query, args } if args.is_empty() => {
                let key = MemoKey::Query(*query);
                if let Some(&v) = self.memo.get(&key) {
                    return v;
                }
                let base = self.bases.queries;
                let v =
                    self.b
                        .ins()
                        .load(types::F32, Self::flags(), base, query.index() as i32 * 4);
                self.memo.insert(key.clone(), v);
                self.memo_log.push(key);
                v
            }
            Node::Query { query, args } => {
                // Arguments go to a stack slot; the host callback reads them from there.
                let vals: Vec<CValue> = args.iter().map(|&a| self.node(a)).collect();
                let slot =
                    self.b
                        .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                            cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                            (vals.len() * 4) as u32,
                            2,
                        ));
                for (i, v) in vals.iter().enumerate() {
                    self.b.ins().stack_store(self.ptr, *v, slot, (i * 4) as i32);
                }
                let addr = self.b.ins().stack_addr(self.ptr, slot, 0);
                let q = self.b.ins().iconst(types::I32, query.index() as i64);
                let n = self.b.ins().iconst(types::I32, vals.len() as i64);
                let params = [self.ptr, types::I32, self.ptr, types::I32];
                self.call_extern(jit_query as *const (), &params, &[self.frame, q, addr, n])
            }
            Node::PureQuery { func, args } => self.pure_query(*func, args),
            Node::Read { scope, slot } => {
                let (scope, slot) = (*scope, *slot);
                if !self.is_known(scope, slot) {
                    let flag = self.load_flag(scope, slot);
                    self.abort_when(flag, false, id, STATUS_UNSET);
                    self.mark_known(scope, slot);
                }
                self.load_value(scope, slot)
            }
            Node::Math {
                func: MathFn::Pow,
                args,
            } if matches!(program.node(args[1]), Node::Const(c) if *c == 2.0) => {
                // pow(x, 2) is the exact square rounded once, which is what `x * x` computes:
                // same bits (NaN, infinities and -0 included) without the libm call.
                let x = self.node(args[0]);
                self.b.ins().fmul(x, x)
            }
            Node::Math { func, args } => {
                let vals: Vec<CValue> = args.iter().map(|&a| self.node(a)).collect();
                if let Some(v) = self.inline_math(*func, &vals) {
                    return v;
                }
                if func.is_random() {
                    self.call_random(id, *func, &vals)
                } else {
                    // Pure: the same builtin on the same values gives the same bits.
                    let key = MemoKey::Call(*func, vals.clone());
                    if let Some(&v) = self.memo.get(&key) {
                        return v;
                    }
                    let native = func.native().expect("non-random builtins are native");
                    let v = self.call_native(native, &vals);
                    self.memo.insert(key.clone(), v);
                    self.memo_log.push(key);
                    v
                }
            }
            Node::Neg(e) => {
                // The sign bit flipped as integer bits, which is what `fneg` does, but out of
                // the optimiser's sight: Cranelift rewrites `fneg(a) * fneg(b)` to `a * b`,
                // and with a NaN factor that flips the sign of the NaN the product carries
                // (visible through `math.copy_sign`). The interpreter negates, then multiplies.
                let v = self.node(*e);
                let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), v);
                let sign = self.b.ins().iconst(types::I32, 0x8000_0000);
                let flipped = self.b.ins().bxor(bits, sign);
                self.b
                    .ins()
                    .bitcast(types::F32, MemFlagsData::new(), flipped)
            }
            Node::Not(e) => {
                let v = self.node(*e);
                let t = self.truthy(v);
                let one = self.f32c(0.0);
                let zero = self.f32c(1.0);
                self.b.ins().select(t, one, zero)
            }
            Node::Arith { op, lhs, rhs } => {
                if *op == ArithOp::Div {
                    if let Node::Const(c) = program.node(*rhs) {
                        // A constant divisor decides the tiny-divisor rule at compile time.
                        // (Constants are never the legacy runtime-negative case.)
                        if c.abs() < DIVISION_EPSILON {
                            return self.f32c(0.0);
                        }
                        let n = self.node(*lhs);
                        let d = self.f32c(*c);
                        return self.b.ins().fdiv(n, d);
                    }
                    let mut d = self.node(*rhs);
                    if self.options.version < 7 && !folds_to_constant(program, *rhs) {
                        d = self.b.ins().fabs(d);
                    }
                    let mag = self.b.ins().fabs(d);
                    let eps = self.f32c(DIVISION_EPSILON);
                    let tiny = self.b.ins().fcmp(FloatCC::LessThan, mag, eps);
                    let lhs = *lhs;
                    return self.branch(
                        tiny,
                        |t| t.f32c(0.0),
                        |t| {
                            let n = t.node(lhs);
                            t.b.ins().fdiv(n, d)
                        },
                    );
                }
                let l = self.node(*lhs);
                let r = self.node(*rhs);
                match op {
                    ArithOp::Add => self.b.ins().fadd(l, r),
                    ArithOp::Sub => self.b.ins().fsub(l, r),
                    _ => self.b.ins().fmul(l, r),
                }
            }
            Node::Compare { op, lhs, rhs } => {
                let l = self.node(*lhs);
                let r = self.node(*rhs);
                let cc = match op {
                    CmpOp::Lt => FloatCC::LessThan,
                    CmpOp::Le => FloatCC::LessThanOrEqual,
                    CmpOp::Gt => FloatCC::GreaterThan,
                    CmpOp::Ge => FloatCC::GreaterThanOrEqual,
                };
                let c = self.b.ins().fcmp(cc, l, r);
                self.bool_to_f32(c)
            }
            Node::Equal { negate, lhs, rhs } => {
                let l = self.node(*lhs);
                let r = self.node(*rhs);
                let c = self.b.ins().fcmp(FloatCC::Equal, l, r);
                let one = self.f32c(1.0);
                let zero = self.f32c(0.0);
                if *negate {
                    self.b.ins().select(c, zero, one)
                } else {
                    self.b.ins().select(c, one, zero)
                }
            }
            Node::And(l, r) => {
                let lv = self.node(*l);
                let lt = self.truthy(lv);
                let r = *r;
                self.branch(
                    lt,
                    |t| {
                        let rv = t.node(r);
                        let rt = t.truthy(rv);
                        t.bool_to_f32(rt)
                    },
                    |t| t.f32c(0.0),
                )
            }
            Node::Or(l, r) => {
                let lv = self.node(*l);
                let lt = self.truthy(lv);
                let r = *r;
                self.branch(
                    lt,
                    |t| t.f32c(1.0),
                    |t| {
                        let rv = t.node(r);
                        let rt = t.truthy(rv);
                        t.bool_to_f32(rt)
                    },
                )
            }
            Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                let c = self.node(*cond);
                let ct = self.truthy(c);
                let (then, otherwise) = (*then, *otherwise);
                self.branch(
                    ct,
                    |t| t.node(then),
                    |t| match otherwise {
                        Some(o) => t.node(o),
                        None => t.f32c(0.0),
                    },
                )
            }
            Node::Coalesce {
                scope,
                slot,
                lhs,
                rhs,
            } => {
                let flag = self.load_flag(*scope, *slot);
                let (lhs, rhs) = (*lhs, *rhs);
                self.branch(flag, |t| t.node(lhs), |t| t.node(rhs))
            }
            Node::Assign {
                scope,
                slot,
                value,
                parents,
                copies,
            } => {
                let v = self.node(*value);
                for &(s, d) in copies.iter() {
                    let flag = self.load_flag(*scope, s);
                    let yes = self.b.create_block();
                    let done = self.b.create_block();
                    self.b.ins().brif(flag, yes, &[], done, &[]);
                    self.b.seal_block(yes);
                    self.b.switch_to_block(yes);
                    let m = self.load_value(*scope, s);
                    self.store(*scope, d, m);
                    self.b.ins().jump(done, &[]);
                    self.b.switch_to_block(done);
                    self.b.seal_block(done);
                }
                self.store(*scope, *slot, v);
                self.mark_known(*scope, *slot);
                for &p in parents.iter() {
                    let flag = self.load_flag(*scope, p);
                    let unset = self.b.create_block();
                    let done = self.b.create_block();
                    self.b.ins().brif(flag, done, &[], unset, &[]);
                    self.b.seal_block(unset);
                    self.b.switch_to_block(unset);
                    let z = self.f32c(0.0);
                    self.store(*scope, p, z);
                    self.b.ins().jump(done, &[]);
                    self.b.switch_to_block(done);
                    self.b.seal_block(done);
                }
                v
            }
            Node::Discard(e) => self.node(*e),
            Node::Block { stmts, simple } => {
                let mut last = None;
                for &s in stmts.iter() {
                    last = Some(self.node(s));
                }
                match (simple, last) {
                    (true, Some(v)) => v,
                    _ => self.f32c(0.0),
                }
            }
            Node::Loop { count, body } => {
                let n = self.node(*count);
                // Fractional counts round up; negative and NaN counts run nothing.
                let zero = self.f32c(0.0);
                let positive = self.b.ins().fcmp(FloatCC::GreaterThan, n, zero);
                let up = self.b.ins().ceil(n);
                let max = self.f32c(u32::MAX as f32);
                // `min` as the interpreter does it: f32::min (neither is NaN here when positive).
                let lt = self.b.ins().fcmp(FloatCC::LessThan, up, max);
                let clamped = self.b.ins().select(lt, up, max);
                let as_int = self.b.ins().fcvt_to_uint_sat(types::I64, clamped);
                let zero_i = self.b.ins().iconst(types::I64, 0);
                let mut count_i = self.b.ins().select(positive, as_int, zero_i);
                if let Some(cap) = self.options.loop_cap {
                    let cap = self.b.ins().iconst(types::I64, cap as i64);
                    count_i = self.b.ins().umin(count_i, cap);
                }
                let header = self.b.create_block();
                let body_b = self.b.create_block();
                let latch = self.b.create_block();
                let exit = self.b.create_block();
                self.b.append_block_param(header, types::I64);
                self.b.append_block_param(latch, types::I64);
                self.b.ins().jump(header, &[zero_i.into()]);
                self.b.switch_to_block(header);
                let i = self.b.block_params(header)[0];
                let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, count_i);
                self.b.ins().brif(more, body_b, &[], exit, &[]);
                self.b.seal_block(body_b);
                self.b.switch_to_block(body_b);
                self.spend(id);
                self.loops.push(LoopTarget {
                    latch,
                    exit,
                    counter: i,
                });
                // The body may run zero times: what it sets is not known after the loop.
                let mark = self.region();
                self.node(*body);
                self.forget_since(mark);
                self.loops.pop();
                self.b.ins().jump(latch, &[i.into()]);
                // Every `continue` and `break` of the body has been emitted by now.
                self.b.seal_block(latch);
                self.b.switch_to_block(latch);
                let li = self.b.block_params(latch)[0];
                let next = self.b.ins().iadd_imm_s(li, 1);
                self.b.ins().jump(header, &[next.into()]);
                self.b.seal_block(header);
                self.b.switch_to_block(exit);
                self.b.seal_block(exit);
                self.f32c(0.0)
            }
            Node::Break | Node::Continue => {
                let is_break = matches!(program.node(id), Node::Break);
                if let Some(target) = self.loops.last() {
                    let (latch, exit, counter) = (target.latch, target.exit, target.counter);
                    if is_break {
                        self.b.ins().jump(exit, &[]);
                    } else {
                        self.b.ins().jump(latch, &[counter.into()]);
                    }
                    self.dead_block();
                }
                self.f32c(0.0)
            }
            Node::Return(v) => {
                let v = self.node(*v);
                self.finish(v);
                self.dead_block();
                self.f32c(0.0)
            }
            Node::Str(_)
            | Node::Resource { .. }
            | Node::Array { .. }
            | Node::Index { .. }
            | Node::Arrow { .. }
            | Node::ForEach { .. } => {
                unreachable!("rejected by `supports`")
            }
        }
    }
}
