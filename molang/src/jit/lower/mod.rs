//! Lowering: IR nodes to Cranelift instructions. `node` dispatches each node kind to one
//! function per family (storage and queries, operators, control flow, builtins); this file
//! holds the translator's state and what every family shares (constants, truth, regions of
//! known facts).

mod builtins;
mod calls;
mod consts;
mod control;
mod ops;
mod storage;
mod values;

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, Block, Inst, InstBuilder, InstructionData, MemFlagsData, Value as CValue, ValueDef,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::abi::{Frame, SLOT_BIAS};
use crate::builtins::math::MathFn;
use crate::interp::EvalOptions;
use crate::ir::{ArithOp, Assign, ForEach, Node, NodeId, Program, Scope, Slot};

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
            | Node::Assign(Assign { scope: s, .. })
            | Node::Coalesce { scope: s, .. }
            | Node::ForEach(ForEach { scope: s, .. }) => scope(*s, &mut used),
            Node::Query { args, .. } if args.is_empty() => used[3] = true,
            _ => {}
        }
    }
    used
}

/// Below this many variables read, a program has one body (see [`guarded_variables`]): the
/// guarded body saves a few instructions per variable and run, and costs a second body's
/// compile.
const MIN_GUARDED: usize = 8;

/// The variables the program reads (by slot, ascending), when there are at least
/// [`MIN_GUARDED`]: the entry guard tests that each holds a number (`Translator::guard`).
fn guarded_variables(program: &Program) -> Vec<Slot> {
    let mut slots: Vec<Slot> = (0..program.len())
        .filter_map(|i| match program.node(NodeId(i as u32)) {
            Node::Read {
                scope: Scope::Variable,
                slot,
            } => Some(*slot),
            _ => None,
        })
        .collect();
    slots.sort_unstable_by_key(|s| s.index());
    slots.dedup();
    if slots.len() < MIN_GUARDED {
        slots.clear();
    }
    slots
}

/// What a shared value stands for (see `Translator::memo`). Every key is a pure function of
/// its operand values (IEEE operations are deterministic, NaN payloads included, for the same
/// operands in the same order), so one emission serves every later use it dominates.
#[derive(Clone, PartialEq, Eq, Hash)]
enum MemoKey {
    /// A pure builtin applied to these values (a libm call or its inline lowering).
    Call(MathFn, Vec<CValue>),
    /// The value of a query without arguments: queries do not change during a run.
    Query(Slot),
    /// A constant, by its bits: repeated literals become one value, so the operations on them
    /// can be shared too.
    Const(u32),
    /// `l op r`; for `/` the tiny-divisor rule included (the quotient, or 0 for a tiny `r`).
    Arith(ArithOp, CValue, CValue),
    /// `-v`.
    Neg(CValue),
}

/// A value with its kind, in storage form: tag (i32, `interp::value::tag`), number (f32, 0 for
/// non-numbers) and payload (i64).
#[derive(Clone, Copy)]
struct Tagged {
    tag: CValue,
    num: CValue,
    bits: CValue,
    /// Known at compile time to be a number (`tag` is `NUM`): truth and `==` take the number
    /// alone, and a store writes the number alone.
    is_num: bool,
}

/// Where a region's facts start: lengths of the fact logs.
#[derive(Clone, Copy)]
struct Mark {
    known: usize,
    memo: usize,
    num: usize,
    fresh: usize,
    assigned: usize,
}

/// What the translator knows of an SSA slot's current value at the emission point.
#[derive(Clone, Copy, Default)]
struct SlotState {
    /// `calls` when the SSA value was defined (a store or a load from storage); `None`:
    /// not defined on this path yet, or across a region or loop boundary. A read uses the SSA
    /// value only when no call was emitted since, else it loads the slot again: storage always
    /// holds the value, and a load costs no more than the reload of a spill, without the spill
    /// store (System V keeps no `xmm` register across a call).
    epoch: Option<u32>,
    /// A value of the same bits that dominates here, used in memo keys for every later load
    /// of the slot (see `Translator::reloaded`), so that sharing survives the reload.
    canon: Option<CValue>,
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
    /// Slots known to hold a number at the current emission point (a numeric assignment
    /// dominates it in the current region). Unlike set-ness this can be lost: a store of
    /// another kind clears it for good (not through the log), and so does entering a loop.
    known_num: [Vec<bool>; 3],
    known_num_log: Vec<(usize, usize)>,
    /// Variables and temps the program touches, as SSA values: defined by a store or by a load
    /// at a read (the first on a path, or the first after a call: [`SlotState`]), and still
    /// stored to memory at every assignment so that any exit (return, abort, budget) leaves
    /// memory up to date. Nothing else writes the storage during a run.
    ssa: [Vec<Option<Variable>>; 3],
    /// Shared values by what they compute ([`MemoKey`]: pure builtins, queries, constants,
    /// `+ - * /` and negation by operand values), valid where the emission dominates: scoped
    /// like `known`.
    memo: std::collections::HashMap<MemoKey, CValue>,
    memo_log: Vec<MemoKey>,
    /// Calls emitted so far, in emission order (see [`SlotState::epoch`]).
    calls: u32,
    /// Per SSA slot (variables, temps): its [`SlotState`], scoped like `known` through
    /// `fresh_log` (previous states).
    fresh: [Vec<SlotState>; 3],
    fresh_log: Vec<(usize, usize, SlotState)>,
    /// SSA slots stored, in order: a region's end forgets their `canon` (the value after the
    /// merge is another one). Never truncated, so that enclosing regions see them too.
    assigned_log: Vec<(usize, usize)>,
    /// Loads of a slot from storage, each to the value of the same bits it repeats: memo keys
    /// name that value (`canon`), so sharing does not depend on whether a read was a reload.
    reloaded: std::collections::HashMap<CValue, CValue>,
    /// Set by `arith` while it reads a slot as the left operand of `+` or `*`: a load made for
    /// it is an `i32` load and a bitcast (see `load_value`).
    int_load: bool,
    /// Per node: a `math.sin` or `math.cos` lowered as one call for both
    /// (`builtins::sin_cos_pairs`).
    sin_cos_paired: Vec<bool>,
    /// Each [`not_a_load`](Self::not_a_load) made: the load and the value it gave instead.
    round_trips: Vec<(CValue, CValue)>,
    /// The stack slot `sincos` writes its two results to, made at its first call.
    sincos_slot: Option<cranelift_codegen::ir::StackSlot>,
    /// Whether a callback that may reach the host was emitted (see [`Needs`]).
    uses_host: bool,
    /// Constant-pool values made so far (each use gets its own, see `in_register`).
    pooled_uses: u32,
    /// See [`Needs::biases`].
    biases: [usize; 4],
    /// With [`EvalOptions::private_temps`]: every store to a temp's number or tag (the
    /// store, the slot, whether it is the tag), and per temp slot what of it the code reads
    /// back from storage ([`storage::TEMP_NUM`] and the like), for
    /// `drop_dead_temp_stores`.
    temp_stores: Vec<(Inst, usize, bool)>,
    temp_reads: Vec<u8>,
    /// A large program: its register operands come from the constant table (see [`consts`]),
    /// so `in_register` leaves constants as they are.
    tabled: bool,
    ptr: types::Type,
    program: &'a Program,
    options: &'a EvalOptions,
    loops: Vec<LoopTarget>,
    call_conv: cranelift_codegen::isa::CallConv,
}

/// What the code of a program needs from [`JitProgram::call`](super::JitProgram): the
/// slot storage arrays (variables, temps, contexts) and the host behind [`Frame::host`].
#[derive(Clone, Copy)]
pub(super) struct Needs {
    pub(super) slots: bool,
    pub(super) host: bool,
    /// How far into the number arrays of temps, variables and contexts (indexed by `Scope`)
    /// and of the query values the frame's pointers point (see [`window_biases`]).
    pub(super) biases: [usize; 4],
}

/// The index of the query values in [`Needs::biases`] (after the three scopes).
const QUERIES: usize = 3;

/// Slots within this many of a biased pointer are a one-byte displacement away (x86 reaches
/// -128 to 127 bytes).
const WINDOW: usize = 64;

/// For each number array, a bias that puts the 64 slots the program names most often (in
/// its IR: reads, assignments, queries) within a one-byte displacement of the pointer.
fn window_biases(program: &Program) -> [usize; 4] {
    let mut counts: [Vec<u32>; 4] = Default::default();
    let mut count = |k: usize, slot: Slot| {
        let c = &mut counts[k];
        if c.len() <= slot.index() {
            c.resize(slot.index() + 1, 0);
        }
        c[slot.index()] += 1;
    };
    for i in 0..program.len() {
        match program.node(NodeId(i as u32)) {
            Node::Read { scope, slot } | Node::Assign(Assign { scope, slot, .. }) => {
                count(*scope as usize, *slot)
            }
            Node::Query { query, args } if args.is_empty() => count(QUERIES, *query),
            _ => {}
        }
    }
    counts.map(|c| {
        let mut best = (0, 0);
        let mut sum: u32 = c.iter().take(WINDOW).sum();
        for start in 0..c.len().saturating_sub(WINDOW) + 1 {
            if start > 0 {
                sum = sum - c[start - 1] + c.get(start + WINDOW - 1).copied().unwrap_or(0);
            }
            if sum > best.1 {
                best = (start, sum);
            }
        }
        best.0 * 4 + SLOT_BIAS
    })
}

/// Emits the body of the program's function into `b` (signature: frame pointer -> status).
pub(super) fn translate(
    b: FunctionBuilder<'_>,
    program: &Program,
    options: &EvalOptions,
    ptr: types::Type,
    call_conv: CallConv,
    frontend_config: TargetFrontendConfig,
) -> (Needs, Vec<u32>) {
    let mut b = b;
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
        b.ins()
            .load(ptr, Translator::entry_flags(), frame, off as i32)
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
        known_num: Default::default(),
        known_num_log: Vec::new(),
        ssa: Default::default(),
        memo: std::collections::HashMap::new(),
        memo_log: Vec::new(),
        calls: 0,
        fresh: Default::default(),
        fresh_log: Vec::new(),
        assigned_log: Vec::new(),
        reloaded: std::collections::HashMap::new(),
        pooled_uses: 0,
        biases: window_biases(program),
        temp_stores: Vec::new(),
        temp_reads: Vec::new(),
        tabled: consts::tabled(program),
        int_load: false,
        sin_cos_paired: builtins::sin_cos_pairs(program),
        uses_host: false,
        sincos_slot: None,
        round_trips: Vec::new(),
    };
    t.declare_ssa_slots();
    let guarded = guarded_variables(program);
    if guarded.is_empty() {
        t.finish_node(program.root());
    } else {
        // Two bodies: one that knows every variable it reads to be set and a number at entry
        // (no unset test at its reads, no tag store at its numeric assignments), entered when
        // the guard finds it so, and the general one.
        let fast = t.b.create_block();
        let slow = t.b.create_block();
        t.guard(&guarded, fast, slow);
        t.b.switch_to_block(fast);
        t.b.seal_block(fast);
        let mark = t.region();
        for &slot in &guarded {
            t.mark_known(Scope::Variable, slot);
            t.mark_num(Scope::Variable, slot);
        }
        t.finish_node(program.root());
        t.forget_since(mark);
        t.b.switch_to_block(slow);
        t.b.seal_block(slow);
        t.finish_node(program.root());
    }
    t.b.seal_all_blocks();
    t.drop_needless_round_trips();
    t.drop_dead_temp_stores();
    let table = if t.tabled {
        t.table_constants()
    } else {
        Vec::new()
    };
    let host = t.uses_host;
    t.b.finalize(frontend_config);
    let needs = Needs {
        slots: temps || vars || ctx,
        host,
        biases: t.biases,
    };
    (needs, table)
}

impl Translator<'_> {
    fn flags() -> MemFlagsData {
        MemFlagsData::trusted()
    }

    /// Loads of the frame's storage pointers, which never change during a run. Marked pure,
    /// Cranelift drops the unused ones and places the others where they are first used
    /// instead of keeping them live (spilled) from entry. Slot values keep plain loads
    /// ([`flags`](Self::flags)): a movable load may be folded into the second operand of a
    /// commutative `fadd`/`fmul`, which changes which NaN wins against the interpreter.
    fn entry_flags() -> MemFlagsData {
        MemFlagsData::trusted().with_readonly().with_can_move()
    }

    /// Branches to `fast` when every variable of `slots` (ascending) holds a number, else to
    /// `slow`: their tag bytes are compared with [`tag::NUM`](crate::interp::value::tag::NUM)
    /// (set and a number at once), eight, four, two or one adjacent tags per load. Tags of
    /// variables the program does not read are never tested (they may be unset).
    fn guard(&mut self, slots: &[Slot], fast: Block, slow: Block) {
        let mut pieces = Vec::new();
        let mut i = 0;
        while i < slots.len() {
            let start = slots[i].index();
            let mut end = start + 1;
            while i + 1 < slots.len() && slots[i + 1].index() == end {
                i += 1;
                end += 1;
            }
            i += 1;
            let mut at = start;
            while at < end {
                let width = [8, 4, 2, 1]
                    .into_iter()
                    .find(|w| end - at >= *w)
                    .expect("a run of at least one slot");
                pieces.push((at, width));
                at += width;
            }
        }
        let tags = self.bases.vars_set;
        let num = u64::from(crate::interp::value::tag::NUM);
        for (k, &(at, width)) in pieces.iter().enumerate() {
            let ty = match width {
                8 => types::I64,
                4 => types::I32,
                2 => types::I16,
                _ => types::I8,
            };
            // Offsets fit in i32 (see `tag_at`).
            let word = self
                .b
                .ins()
                .load(ty, Self::flags(), tags, at as i32 - SLOT_BIAS as i32);
            let expect = (0..width).fold(0u64, |e, _| e << 8 | num);
            let expect = self.b.ins().iconst(ty, expect as i64);
            let ok = self.b.ins().icmp(IntCC::Equal, word, expect);
            let next = if k + 1 == pieces.len() {
                fast
            } else {
                self.b.create_block()
            };
            self.b.ins().brif(ok, next, &[], slow, &[]);
            if next != fast {
                self.b.switch_to_block(next);
                self.b.seal_block(next);
            }
        }
    }

    fn field(&mut self, offset: usize, ty: types::Type) -> CValue {
        self.b
            .ins()
            .load(ty, Self::flags(), self.frame, offset as i32)
    }

    fn f32c(&mut self, x: f32) -> CValue {
        let key = MemoKey::Const(x.to_bits());
        if let Some(v) = self.shared(&key) {
            return v;
        }
        let v = self.b.ins().f32const(x);
        self.remember(key, v);
        v
    }

    /// `v` for an operand that x86 needs in a register (the first of `subss`, a `select`
    /// arm). x86 lowering takes an `f32const` as a memory operand of the constant pool where
    /// the instruction allows one (free), but builds it in a register through a general
    /// register elsewhere (two instructions); a constant-pool vector of its own, read at lane 0,
    /// is one load. Memo keys still name the `f32const` (`reloaded`). `+0.0` stays (`xorps`).
    pub(super) fn in_register(&mut self, v: CValue) -> CValue {
        let c = self.canon(v);
        let dfg = &self.b.func.dfg;
        let bits = match dfg.value_def(c) {
            ValueDef::Result(inst, _) => match dfg.insts[inst] {
                InstructionData::UnaryIeee32 { imm, .. } => imm.bits(),
                _ => return v,
            },
            _ => return v,
        };
        if bits == 0 || self.tabled {
            return v;
        }
        // Lane 1 numbers the use, so that value numbering cannot merge two of them into one
        // value live across blocks and calls.
        let mut data = [0u8; 16];
        data[..4].copy_from_slice(&bits.to_le_bytes());
        data[4..8].copy_from_slice(&self.pooled_uses.to_le_bytes());
        self.pooled_uses += 1;
        let handle = self.b.func.dfg.constants.insert(data.to_vec().into());
        let vec = self.b.ins().vconst(types::F32X4, handle);
        // Lane 0 of a float vector is the scalar already: no instruction on x86.
        let r = self.b.ins().extractlane(vec, 0);
        self.reloaded.insert(r, c);
        r
    }

    /// Whether `v` is a constant that is not a NaN (so the operand order of `+` and `*` with
    /// it cannot change a result's bits).
    fn non_nan_const(&self, v: CValue) -> bool {
        self.const_value(v).is_some_and(|x| !x.is_nan())
    }

    /// The number `v` is when it is a constant.
    fn const_value(&self, v: CValue) -> Option<f32> {
        consts::const_bits(self.b.func, self.canon(v)).map(f32::from_bits)
    }

    /// Where slot `slot` of number array `k` (a scope, or [`QUERIES`]) is from its biased
    /// pointer. Offsets fit in i32: slots index name tables far smaller than 2^29 entries.
    fn num_at(&self, k: usize, slot: Slot) -> i32 {
        slot.index() as i32 * 4 - self.biases[k] as i32
    }

    /// The value already emitted for `key` where the current region's facts hold.
    fn shared(&self, key: &MemoKey) -> Option<CValue> {
        self.memo.get(key).copied()
    }

    /// Shares `v` as the result of `key` where the current region's facts hold (until
    /// [`forget_since`](Self::forget_since) of an enclosing region).
    fn remember(&mut self, key: MemoKey, v: CValue) {
        self.memo.insert(key.clone(), v);
        self.memo_log.push(key);
    }

    /// `v` with Cranelift's aliases resolved and a reload named by the value it repeats, so
    /// that a memo key names the value itself.
    fn canon(&self, v: CValue) -> CValue {
        let v = self.b.func.dfg.resolve_aliases(v);
        self.reloaded.get(&v).copied().unwrap_or(v)
    }

    fn bool_to_f32(&mut self, c: CValue) -> CValue {
        self.select_consts(c, 1.0, 0.0)
    }

    /// `c ? yes : no` between two constants: one `select`, `yes` as its own constant-pool
    /// load (`in_register`).
    pub(super) fn select_consts(&mut self, c: CValue, yes: f32, no: f32) -> CValue {
        let yes = self.f32c(yes);
        let yes = self.in_register(yes);
        let no = self.f32c(no);
        self.b.ins().select(c, yes, no)
    }

    /// NaN is true; only ±0 is false: the bits without the sign are not zero. Tested on the
    /// integer bits: x86 needs two branches (`jp`, `jne`) and a constant-pool operand for a
    /// float `!= 0`, this needs one branch. The rig runs hundreds of these tests a frame, and
    /// its frame is bound by fetching its code.
    fn truthy(&mut self, v: CValue) -> CValue {
        let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), v);
        let magnitude = self.b.ins().ishl_imm_u(bits, 1);
        self.b.ins().icmp_imm_s(IntCC::NotEqual, magnitude, 0)
    }

    /// Where the current region's facts start (see [`forget_since`](Self::forget_since)).
    fn region(&self) -> Mark {
        Mark {
            known: self.known_log.len(),
            memo: self.memo_log.len(),
            num: self.known_num_log.len(),
            fresh: self.fresh_log.len(),
            assigned: self.assigned_log.len(),
        }
    }

    /// Undoes what was learnt since `mark` (the end of a conditional region): set slots and
    /// shared call results.
    fn forget_since(&mut self, mark: Mark) {
        while self.known_log.len() > mark.known {
            let (s, i) = self.known_log.pop().expect("log longer than mark");
            self.known[s][i] = false;
        }
        while self.known_num_log.len() > mark.num {
            let (s, i) = self.known_num_log.pop().expect("log longer than mark");
            self.known_num[s][i] = false;
        }
        while self.memo_log.len() > mark.memo {
            let key = self.memo_log.pop().expect("log longer than mark");
            self.memo.remove(&key);
        }
        while self.fresh_log.len() > mark.fresh {
            let (s, i, prev) = self.fresh_log.pop().expect("log longer than mark");
            self.fresh[s][i] = prev;
        }
        // A slot stored in the region holds, after it, whichever value its path left.
        for &(s, i) in &self.assigned_log[mark.assigned..] {
            self.fresh[s][i].canon = None;
        }
    }

    fn node(&mut self, id: NodeId) -> CValue {
        let program = self.program;
        match program.node(id) {
            Node::Const(c) => self.f32c(*c),
            Node::PlatformConst(c) => self.f32c(c[self.options.platform.index()]),
            Node::Post { operand, post } => {
                let post = post[self.options.platform.index()];
                self.post(*operand, post)
            }
            Node::This => self.field(offset_of!(Frame, this), types::F32),
            Node::Query { query, args } => self.query(*query, args),
            Node::PureQuery { func, args } => self.pure_query(*func, args),
            Node::Read { scope, slot } => self.read(id, *scope, *slot),
            Node::Math { func, args } => self.math(id, *func, args),
            Node::Neg(e) => self.neg(*e),
            Node::Not(e) => self.not(*e),
            Node::Arith { op, lhs, rhs } => self.arith(*op, *lhs, *rhs),
            Node::Compare { op, lhs, rhs } => self.compare(*op, *lhs, *rhs),
            Node::Equal { negate, lhs, rhs } => self.equal(*negate, *lhs, *rhs),
            // 1 or 0 from the condition (`truth` lowers `&&` and `||` as conditions).
            Node::And(..) | Node::Or(..) => {
                let c = self.truth(id);
                self.bool_to_f32(c)
            }
            Node::Cond {
                cond,
                then,
                otherwise,
            } => self.cond(*cond, *then, *otherwise),
            Node::Coalesce {
                scope,
                slot,
                lhs,
                rhs,
            } => self.coalesce(*scope, *slot, *lhs, *rhs),
            Node::Assign(a) => self.assign(a),
            Node::Discard(e) => self.node(*e),
            Node::Block { stmts, simple } => self.block(stmts, *simple),
            Node::Loop { count, body } => self.repeat(id, *count, *body),
            Node::ForEach(f) => self.for_each(id, *f),
            Node::Break => self.jump_out(true),
            Node::Continue => self.jump_out(false),
            Node::Return(v) => self.ret(*v),
            // Only the kind-aware paths (`value`) see a string's hash or a reference; as a
            // number each is 0 (`Value::as_num`), still evaluated for what it calls and reads.
            Node::Str(_)
            | Node::Resource { .. }
            | Node::Array { .. }
            | Node::Index { .. }
            | Node::Arrow { .. } => self.value(id).num,
        }
    }
}
