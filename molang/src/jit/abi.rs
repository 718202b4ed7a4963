//! The calling convention: the [`Frame`] record the generated function receives, the storage
//! layout it reads and writes ([`crate::interp::Storage`], shared with the interpreter), and
//! the `extern "C"` callbacks it makes into the host (the interpreter's [`Host`] trait).

use crate::builtins::math::{self, MathFn, MolangRng};
use crate::builtins::platform::Platform;
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
    /// Answers queries with arguments, `->`, entity lists, array sizes and random draws.
    pub(super) host: *mut HostRef<'static>,
    pub(super) iterations: u64,
    pub(super) budget: u64,
    pub(super) this: f32,
    pub(super) result: f32,
    pub(super) abort_node: u32,
    pub(super) result_tag: u32,
    pub(super) result_bits: u64,
    /// The elements of the entity list [`jit_list_push`] fetched last.
    pub(super) list_data: *const u32,
    /// The program's constant table (see `lower::consts`), `CONST_BIAS` bytes in.
    pub(super) consts: *const u8,
}

/// How far into its array each tag pointer points, as [`CONST_BIAS`] for the constants: the
/// first 256 tags are a one-byte displacement away. The number arrays and the query values
/// are biased by at least this, towards the 64 slots the program names most (see
/// `lower::Needs::biases`); the `*_bits` arrays, read on slow paths only, are not biased.
pub(super) const SLOT_BIAS: usize = 128;

/// How far into the constant table [`Frame::consts`] points: x86 reaches the bytes from
/// `-128` to `127` around a base register with a one-byte displacement.
pub(super) const CONST_BIAS: usize = 128;

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

/// A `&mut dyn Host` behind a thin pointer, for the callbacks, with the entity lists of the
/// `for_each` loops running now (innermost last).
pub struct HostRef<'a> {
    host: &'a mut dyn Host,
    /// Made by the first `for_each` of a run only: most programs have none, and an empty
    /// `Vec`'s drop still cost every call a dozen instructions.
    lists: Option<Vec<Vec<u32>>>,
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
    let f = MathFn::ALL[(func & 0xff) as usize];
    let platform = if func & 0x100 != 0 {
        Platform::Arm64
    } else {
        Platform::X86_64
    };
    let args = [a, b, c];
    if let Some(n) = f.budget_cost_on(platform, a) {
        frame.iterations += n;
        if frame.iterations > frame.budget {
            return 0.0;
        }
    }
    let host = unsafe { &mut *frame.host };
    math::eval_random_on(platform, f, &args[..f.arity()], host.host.rng())
}

/// `math.sin(x)` and `math.cos(x)` of the same `x` in one call, for the JIT's pairs
/// (`lower/builtins.rs`, `sin_cos_pairs`): sine's bits in the low half, cosine's in the high
/// half (an integer return, so every calling convention passes it in one register). Each half
/// is what the builtin alone returns: the same `f32` product, the same `f64` function of it
/// (LLVM makes the two one libm `sincos`, which gives the same bits as `sin` and `cos`;
/// `sin_cos_gives_the_bits_of_sin_and_of_cos` checks that).
pub(super) extern "C" fn jit_sin_cos(x: f32) -> u64 {
    let (s, c) = (math::molang_sin(x), math::molang_cos(x));
    u64::from(s.to_bits()) | (u64::from(c.to_bits()) << 32)
}

/// A C math library function that generated code calls itself, in `f64`, instead of through
/// the builtin's `extern "C"` wrapper (the wrapper's call, return and stack adjustment were 4
/// of its instructions, on 34 calls a rig frame). The code around the call is the wrapper's:
/// the `f32` arguments widened (`fpromote` is `f64::from`), the result narrowed (`fdemote` is
/// `as f32`), with the wrapper's `f32` product before ([`DEG_TO_RAD`](math::DEG_TO_RAD)) or
/// after ([`RAD_TO_DEG`](math::RAD_TO_DEG)). Only where the wrappers are known to call these
/// very symbols (glibc: `f64::cos` is a call to `cos`, and so on); elsewhere the wrappers stay.
#[derive(Clone, Copy)]
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
pub(super) struct Libm {
    pub(super) addr: *const (),
    pub(super) arity: usize,
    /// The argument is in degrees: multiplied by `DEG_TO_RAD` in `f32` first.
    pub(super) degrees_in: bool,
    /// The result is in radians: multiplied by `RAD_TO_DEG` in `f32` after narrowing.
    pub(super) degrees_out: bool,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod c_math {
    extern "C" {
        pub(super) fn sin(x: f64) -> f64;
        pub(super) fn cos(x: f64) -> f64;
        pub(super) fn sincos(x: f64, sin: *mut f64, cos: *mut f64);
        pub(super) fn atan(x: f64) -> f64;
        pub(super) fn atan2(y: f64, x: f64) -> f64;
        pub(super) fn exp(x: f64) -> f64;
        pub(super) fn log(x: f64) -> f64;
        pub(super) fn pow(x: f64, y: f64) -> f64;
    }
}

/// The C function `f`'s wrapper calls, for the builtins whose wrapper is exactly the shape
/// [`Libm`] describes (their bodies in `builtins/math.rs`; `libm_calls_give_the_wrappers_bits`
/// holds each to it).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(super) fn libm(f: MathFn) -> Option<Libm> {
    let (addr, arity, degrees_in, degrees_out) = match f {
        MathFn::Sin => (c_math::sin as *const (), 1, true, false),
        MathFn::Cos => (c_math::cos as *const (), 1, true, false),
        MathFn::Atan => (c_math::atan as *const (), 1, false, true),
        MathFn::Atan2 => (c_math::atan2 as *const (), 2, false, true),
        MathFn::Exp => (c_math::exp as *const (), 1, false, false),
        MathFn::Ln => (c_math::log as *const (), 1, false, false),
        MathFn::Pow => (c_math::pow as *const (), 2, false, false),
        _ => return None,
    };
    Some(Libm {
        addr,
        arity,
        degrees_in,
        degrees_out,
    })
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(super) fn libm(_: MathFn) -> Option<Libm> {
    None
}

/// glibc's `sincos(x, &sin, &cos)`, which [`jit_sin_cos`] calls (LLVM makes its two calls one):
/// generated code calls it itself, with its two results in a stack slot.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(super) fn libm_sincos() -> Option<*const ()> {
    Some(c_math::sincos as *const ())
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(super) fn libm_sincos() -> Option<*const ()> {
    None
}

/// Decodes the `n` values at `args` and hands them to `f`.
///
/// SAFETY (caller): `args` points at `n` values in the generated code's stack slot.
unsafe fn with_values<R>(args: *const JitValue, n: u32, f: impl FnOnce(&[Value]) -> R) -> R {
    let raw = unsafe { std::slice::from_raw_parts(args, n as usize) };
    // Queries take one to three arguments: decode exactly those into an array on the stack
    // (filling a longer array first was a third of a query call's cost).
    match *raw {
        [] => f(&[]),
        [a] => f(&[decode(a)]),
        [a, b] => f(&[decode(a), decode(b)]),
        [a, b, c] => f(&[decode(a), decode(b), decode(c)]),
        [a, b, c, d] => f(&[decode(a), decode(b), decode(c), decode(d)]),
        _ => f(&raw.iter().map(|r| decode(*r)).collect::<Vec<Value>>()),
    }
}

/// Writes `v` in storage form to `out`.
///
/// SAFETY (caller): `out` points at one value in the generated code's stack slot.
unsafe fn write_value(out: *mut JitValue, v: Value) {
    let (t, num, bits) = v.encode();
    unsafe {
        *out = JitValue {
            tag: t as u32,
            num,
            bits,
        }
    };
}

/// What [`jit_ask`] asks the host.
pub(super) const ASK_QUERY: u32 = 0;
pub(super) const ASK_REMOTE_VARIABLE: u32 = 1;
pub(super) const ASK_REMOTE_QUERY: u32 = 2;

/// Called by generated code for a query with arguments (`what` = [`ASK_QUERY`]; `entity` is
/// unused), `entity->v.name` ([`ASK_REMOTE_VARIABLE`], no values) and `entity->q.name(args)`
/// ([`ASK_REMOTE_QUERY`]): `n` values at `args`, the host's answer written to `out`, 0 when
/// the other entity has none, as the interpreter reads it.
pub(super) extern "C" fn jit_ask(
    frame: *mut Frame,
    what: u32,
    entity: u32,
    slot: u32,
    args: *const JitValue,
    n: u32,
    out: *mut JitValue,
) {
    // SAFETY: `frame` is the live frame of this run; `args` points at `n` values and `out` at
    // one, in the caller's stack slots; `host` points at a live `HostRef`.
    let frame = unsafe { &mut *frame };
    let host = unsafe { &mut *frame.host };
    let slot = Slot(slot);
    let v = unsafe {
        with_values(args, n, |vals| match what {
            ASK_QUERY => Some(host.host.query(slot, vals)),
            ASK_REMOTE_VARIABLE => host.host.remote_variable(entity, slot),
            _ => host.host.remote_query(entity, slot, vals),
        })
    };
    unsafe { write_value(out, v.unwrap_or(Value::Num(0.0))) };
}

/// Called by generated code for `array.name[i]`: the array's size.
pub(super) extern "C" fn jit_array_len(frame: *mut Frame, array: u32) -> u32 {
    // SAFETY: `frame` is the live frame of this run and `host` points at a live `HostRef`.
    let frame = unsafe { &mut *frame };
    let host = unsafe { &mut *frame.host };
    host.host.array_len(Slot(array))
}

/// Called by generated code when a `for_each` starts: the entities of the list the value
/// stands for (none for anything else), kept until [`jit_list_pop`]; returns their number
/// and leaves a pointer to them in [`Frame::list_data`].
pub(super) extern "C" fn jit_list_push(frame: *mut Frame, t: u32, num: f32, bits: u64) -> u64 {
    // SAFETY: `frame` is the live frame of this run and `host` points at a live `HostRef`.
    let frame = unsafe { &mut *frame };
    let host = unsafe { &mut *frame.host };
    let list = match decode(JitValue { tag: t, num, bits }) {
        Value::EntityList(l) => host.host.entity_list(l),
        _ => Vec::new(),
    };
    // The elements stay where they are while the list is on the stack: pushing more lists
    // moves the `Vec`s, not their buffers.
    frame.list_data = list.as_ptr();
    let len = list.len() as u64;
    host.lists.get_or_insert_default().push(list);
    len
}

/// Called by generated code when a `for_each` ends (not on a `return` or an abort, which
/// end the run: [`JitProgram::call`] drops every list then).
pub(super) extern "C" fn jit_list_pop(frame: *mut Frame) {
    // SAFETY: `frame` is the live frame of this run and `host` points at a live `HostRef`.
    let frame = unsafe { &mut *frame };
    let host = unsafe { &mut *frame.host };
    if let Some(lists) = &mut host.lists {
        lists.pop();
    }
}

/// Called by generated code for an argument of `query.count` that may be a list: what it
/// counts (a list's or an array's length, 1 for anything else), as the interpreter counts.
pub(super) extern "C" fn jit_count(frame: *mut Frame, t: u32, num: f32, bits: u64) -> f32 {
    // SAFETY: `frame` is the live frame of this run and `host` points at a live `HostRef`.
    let frame = unsafe { &mut *frame };
    let host = unsafe { &mut *frame.host };
    match decode(JitValue { tag: t, num, bits }) {
        Value::EntityList(l) => host.host.entity_list(l).len() as f32,
        Value::Array(name) => host.host.array_len(name) as f32,
        _ => 1.0,
    }
}

fn decode(v: JitValue) -> Value {
    Value::decode(v.tag as u8, v.num, v.bits).unwrap_or(Value::Num(0.0))
}

/// The host of the callers that give query values as an array.
struct ArrayHost<'a> {
    queries: &'a [f32],
    rng: &'a mut dyn MolangRng,
    this: f32,
}

impl Host for ArrayHost<'_> {
    fn query(&mut self, query: Slot, _args: &[Value]) -> Value {
        Value::Num(self.queries.get(query.index()).copied().unwrap_or(0.0))
    }
    fn this(&mut self) -> f32 {
        self.this
    }
    fn rng(&mut self) -> &mut dyn MolangRng {
        self.rng
    }
}

/// How the generated function ended, read back from its frame.
struct Ended {
    status: u32,
    result: f32,
    abort_node: u32,
    result_tag: u32,
    result_bits: u64,
    iterations: u64,
}

impl Ended {
    /// The outcome without decoding the value's kind (callers that want numbers).
    #[inline]
    fn outcome(&self) -> JitOutcome {
        match self.status {
            s if s == STATUS_OK as u32 => JitOutcome::Value(self.result),
            s if s == STATUS_UNSET as u32 => JitOutcome::UnsetRead(NodeId(self.abort_node)),
            _ => JitOutcome::Budget(NodeId(self.abort_node)),
        }
    }
}

impl JitProgram {
    /// Runs the program once. Temps are cleared first. `queries` holds the value of each
    /// query slot; `budget` caps loop iterations as in
    /// [`EvalOptions::iteration_budget`](crate::interp::EvalOptions::iteration_budget).
    #[inline]
    pub fn run(
        &self,
        storage: &mut JitStorage,
        queries: &[f32],
        this: f32,
        rng: &mut dyn MolangRng,
        budget: u64,
    ) -> JitOutcome {
        storage.clear_temps();
        if !self.needs.host {
            // No callback reads the host: none is built (`enter`'s safety comment).
            return self
                .enter(storage, queries, this, std::ptr::null_mut(), budget)
                .outcome();
        }
        let mut host = ArrayHost { queries, rng, this };
        self.call(storage, queries, this, &mut host, budget)
            .outcome()
    }

    /// Like [`run`](Self::run), with `host` answering everything but the queries without
    /// arguments (which read `queries`).
    pub fn run_with_host(
        &self,
        storage: &mut JitStorage,
        queries: &[f32],
        host: &mut dyn Host,
        budget: u64,
    ) -> JitOutcome {
        storage.clear_temps();
        let this = host.this();
        self.call(storage, queries, this, host, budget).outcome()
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
        let this = host.this();
        let end = self.call(storage, queries, this, host, budget);
        let iterations = end.iterations;
        let abort = |kind, node| Outcome {
            value: Value::Num(0.0),
            abort: Some(Abort { kind, node }),
            iterations,
        };
        match end.outcome() {
            JitOutcome::Value(_) => Outcome {
                value: Value::decode(end.result_tag as u8, end.result, end.result_bits)
                    .unwrap_or(Value::Num(0.0)),
                abort: None,
                iterations,
            },
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

    /// One call of the generated function; `this` is the host's (asked once by the caller,
    /// or given). Returns what the frame holds at the end; only [`run_in`](Self::run_in)
    /// decodes a value's kind from it.
    #[inline]
    fn call(
        &self,
        storage: &mut Storage,
        queries: &[f32],
        this: f32,
        host: &mut dyn Host,
        budget: u64,
    ) -> Ended {
        let mut host_ref = HostRef { host, lists: None };
        // The reference only lives for this call; the erased lifetime never escapes.
        let host = (&mut host_ref as *mut HostRef<'_>).cast();
        self.enter(storage, queries, this, host, budget)
    }

    /// Builds the frame and runs the code. `host` points at a `HostRef` that lives for the
    /// whole call, or is null for a program that makes no callback reaching the host
    /// (`needs.host` false: no such call was emitted, so the code never reads it). The
    /// storage pointers are null for a program that touches no slot (`needs.slots` false: its
    /// code loads none of them), and then only the query values are checked.
    #[inline(always)]
    fn enter(
        &self,
        storage: &mut Storage,
        queries: &[f32],
        this: f32,
        host: *mut HostRef<'static>,
        budget: u64,
    ) -> Ended {
        // The bounds the generated code relies on (see the module's safety invariants).
        assert!(queries.len() >= self.queries, "query values too short");
        let mut frame = Frame {
            vars: std::ptr::null_mut(),
            vars_set: std::ptr::null_mut(),
            vars_bits: std::ptr::null_mut(),
            temps: std::ptr::null_mut(),
            temps_set: std::ptr::null_mut(),
            temps_bits: std::ptr::null_mut(),
            ctx: std::ptr::null(),
            ctx_set: std::ptr::null(),
            ctx_bits: std::ptr::null(),
            // The code's offsets are from these biased pointers, as for every array below.
            queries: queries.as_ptr().wrapping_byte_add(self.needs.biases[3]),
            host,
            iterations: 0,
            budget,
            this,
            result: 0.0,
            abort_node: 0,
            result_tag: tag::NUM as u32,
            result_bits: 0,
            list_data: std::ptr::null(),
            // Never read below the table: the code's offsets start at `-CONST_BIAS`.
            consts: self.consts.as_ptr().cast::<u8>().wrapping_add(CONST_BIAS),
        };
        if self.needs.slots {
            assert!(
                storage.vars.len() >= self.vars,
                "variable storage too small"
            );
            assert!(storage.temps.len() >= self.temps, "temp storage too small");
            assert!(storage.ctx.len() >= self.ctx, "context storage too small");
            let (v, t, c) = (&mut storage.vars, &mut storage.temps, &storage.ctx);
            // Indexed by `Scope` (temps, variables, contexts), then the query values.
            let [bt, bv, bc, _] = self.needs.biases;
            frame.vars = v.nums.as_mut_ptr().wrapping_byte_add(bv);
            frame.vars_set = v.tags.as_mut_ptr().wrapping_byte_add(SLOT_BIAS);
            frame.vars_bits = v.bits.as_mut_ptr();
            frame.temps = t.nums.as_mut_ptr().wrapping_byte_add(bt);
            frame.temps_set = t.tags.as_mut_ptr().wrapping_byte_add(SLOT_BIAS);
            frame.temps_bits = t.bits.as_mut_ptr();
            frame.ctx = c.nums.as_ptr().wrapping_byte_add(bc);
            frame.ctx_set = c.tags.as_ptr().wrapping_byte_add(SLOT_BIAS);
            frame.ctx_bits = c.bits.as_ptr();
        }
        let status = (self.func)(&mut frame);
        Ended {
            status,
            result: frame.result,
            abort_node: frame.abort_node,
            result_tag: frame.result_tag,
            result_bits: frame.result_bits,
            iterations: frame.iterations,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::jit_sin_cos;
    use crate::builtins::math::{molang_cos, molang_sin};

    /// The JIT's one call for a `sin`/`cos` pair gives each builtin's own bits: every 4096th
    /// `f32` (both signs, NaN payloads, infinities, subnormals) and the angles near the
    /// multiples of 90° where the two functions reduce their argument differently.
    #[test]
    fn sin_cos_gives_the_bits_of_sin_and_of_cos() {
        let mut inputs: Vec<f32> = (0..=u32::MAX >> 12)
            .map(|i| f32::from_bits(i << 12 | i & 0xfff))
            .collect();
        for k in -64i32..=64 {
            let x = k as f32 * 90.0;
            inputs.extend([
                x,
                f32::from_bits(x.to_bits() + 1),
                f32::from_bits(x.to_bits().wrapping_sub(1)),
            ]);
        }
        let mut compared = 0;
        for x in inputs {
            let both = jit_sin_cos(x);
            let (s, c) = (both as u32, (both >> 32) as u32);
            assert_eq!(
                s,
                molang_sin(x).to_bits(),
                "sin of {x:e} (bits {:#010x})",
                x.to_bits()
            );
            assert_eq!(
                c,
                molang_cos(x).to_bits(),
                "cos of {x:e} (bits {:#010x})",
                x.to_bits()
            );
            compared += 1;
        }
        assert!(compared > 1 << 20);
    }
}
