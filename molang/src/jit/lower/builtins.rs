//! Builtins: `math.*` (inline lowerings, pure calls shared by value, random draws) and the
//! queries computed from their arguments (`query.all`, `any`, `in_range`, `approx_eq`, `count`).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value as CValue,
};

use super::{MemoKey, Translator};
use crate::builtins::math::{Lowering, MathFn};
use crate::builtins::platform::Platform;
use crate::ir::{Node, NodeId, Program, PureQuery};

use super::super::abi::{jit_count, jit_sin_cos, libm, libm_sincos, Libm};
use crate::builtins::math::{DEG_TO_RAD, RAD_TO_DEG};

/// The `math.sin` and `math.cos` nodes whose argument is written the same way as the
/// argument of a node of the other function (`same_value`): each of them makes one `sincos`
/// call (`Translator::sin_cos`), and the first of a pair to run shares both results by value
/// (`MemoKey::Call`), so the other costs nothing where it is dominated. One libm `sincos` costs
/// about 83 instructions against 52–75 for each of `sin` and `cos`. A pair whose second half
/// does not run (another branch, another value) pays the difference, hence the pairing.
pub(super) fn sin_cos_pairs(program: &Program) -> Vec<bool> {
    let mut paired = vec![false; program.len()];
    let trig = |f: MathFn| -> Vec<(usize, NodeId)> {
        (0..program.len())
            .filter_map(|i| match program.node(NodeId(i as u32)) {
                Node::Math { func, args } if *func == f => Some((i, args[0])),
                _ => None,
            })
            .collect()
    };
    let (sines, cosines) = (trig(MathFn::Sin), trig(MathFn::Cos));
    for &(s, a) in &sines {
        for &(c, b) in &cosines {
            if same_value(program, a, b, 0) {
                paired[s] = true;
                paired[c] = true;
            }
        }
    }
    paired
}

/// Whether `a` and `b` are written the same way from constants, reads, plain queries,
/// arithmetic and pure builtins (only a guess that they give the same value: sharing is by
/// value, so a wrong guess costs time, never bits).
fn same_value(program: &Program, a: NodeId, b: NodeId, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth > 8 {
        return false;
    }
    let same = |x: NodeId, y: NodeId| same_value(program, x, y, depth + 1);
    match (program.node(a), program.node(b)) {
        (Node::Const(x), Node::Const(y)) => x.to_bits() == y.to_bits(),
        (Node::This, Node::This) => true,
        (Node::Read { scope: s, slot: l }, Node::Read { scope: t, slot: m }) => s == t && l == m,
        (Node::Query { query: q, args: x }, Node::Query { query: r, args: y }) => {
            q == r && x.is_empty() && y.is_empty()
        }
        (Node::Neg(x), Node::Neg(y)) => same(*x, *y),
        (
            Node::Arith { op, lhs, rhs },
            Node::Arith {
                op: op2,
                lhs: lhs2,
                rhs: rhs2,
            },
        ) => op == op2 && same(*lhs, *lhs2) && same(*rhs, *rhs2),
        (Node::Math { func, args }, Node::Math { func: f2, args: a2 }) => {
            func == f2
                && !func.is_random()
                && args.len() == a2.len()
                && args.iter().zip(a2.iter()).all(|(x, y)| same(*x, *y))
        }
        _ => false,
    }
}

impl Translator<'_> {
    pub(super) fn math(&mut self, id: NodeId, func: MathFn, args: &[NodeId]) -> CValue {
        let program = self.program;
        let vals: Vec<CValue> = args.iter().map(|&a| self.node(a)).collect();
        if func.is_random() {
            return self.call_random(id, func, &vals);
        }
        // Pure: the same builtin on the same values gives the same bits, whether it is a
        // call or an inline lowering (sharing the inline ones lets what is computed from
        // them be shared too).
        let key = MemoKey::Call(func, vals.iter().map(|&v| self.canon(v)).collect());
        if let Some(v) = self.shared(&key) {
            return v;
        }
        let v = if self.options.platform == Platform::Arm64 && func.differs_on_arm64() {
            // The arm64 body, called: the x86-64 inline forms and libm wrappers do not apply.
            let native = func
                .native_on(Platform::Arm64)
                .expect("non-random builtins are native");
            self.call_native(native, &vals)
        } else if func.lowering() == Lowering::PowSquare
            && matches!(program.node(args[1]), Node::Const(c) if *c == 2.0)
        {
            // pow(x, 2) is the exact square rounded once, which is what `x * x` computes:
            // same bits (NaN, infinities and -0 included) without the libm call.
            self.b.ins().fmul(vals[0], vals[0])
        } else if let Some(v) = self.inline_math(func, &vals) {
            v
        } else if self.sin_cos_paired[id.0 as usize] {
            let (sin, cos) = self.sin_cos(vals[0]);
            let other = if func == MathFn::Sin {
                MathFn::Cos
            } else {
                MathFn::Sin
            };
            self.remember(
                MemoKey::Call(other, vec![self.canon(vals[0])]),
                sin_or(func, cos, sin),
            );
            sin_or(func, sin, cos)
        } else if let Some(c) = libm(func) {
            self.call_libm(c, &vals)
        } else {
            let native = func.native().expect("non-random builtins are native");
            self.call_native(native, &vals)
        };
        let v = if self.options.platform == Platform::Arm64
            && !crate::builtins::math::arm64_keeps_nan_bits(func)
        {
            self.quiet_nan(v)
        } else {
            v
        };
        self.remember(key, v);
        v
    }

    /// `v` with a NaN quietened, as [`crate::builtins::math::arm64_result`].
    fn quiet_nan(&mut self, v: CValue) -> CValue {
        let raw = MemFlagsData::new();
        let bits = self.b.ins().bitcast(types::I32, raw, v);
        let quiet = self.b.ins().bor_imm_s(bits, 0x0040_0000);
        let quiet = self.b.ins().bitcast(types::F32, raw, quiet);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, v, v);
        self.b.ins().select(nan, quiet, v)
    }

    /// The builtin's wrapper inlined around a direct call of its C function ([`Libm`]): the
    /// same `f32` product before or after, the same widening and narrowing.
    fn call_libm(&mut self, c: Libm, vals: &[CValue]) -> CValue {
        debug_assert_eq!(c.arity, vals.len());
        let wide: Vec<CValue> = vals
            .iter()
            .map(|&v| {
                let v = if c.degrees_in {
                    let k = self.f32c(DEG_TO_RAD);
                    self.b.ins().fmul(v, k)
                } else {
                    v
                };
                self.b.ins().fpromote(types::F64, v)
            })
            .collect();
        let params = vec![types::F64; wide.len()];
        let r = self.call_extern(c.addr, &params, &wide, types::F64);
        let r = self.b.ins().fdemote(types::F32, r);
        if c.degrees_out {
            let k = self.f32c(RAD_TO_DEG);
            self.b.ins().fmul(r, k)
        } else {
            r
        }
    }

    /// `(sin x, cos x)` from one call: C's `sincos` where [`libm_sincos`] has it (the results
    /// in a stack slot, narrowed as the wrappers narrow), else [`jit_sin_cos`].
    fn sin_cos(&mut self, x: CValue) -> (CValue, CValue) {
        if let Some(addr) = libm_sincos() {
            let slot = *self.sincos_slot.get_or_insert_with(|| {
                self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    16,
                    3,
                ))
            });
            let k = self.f32c(DEG_TO_RAD);
            let r = self.b.ins().fmul(x, k);
            let r = self.b.ins().fpromote(types::F64, r);
            let sin_at = self.b.ins().stack_addr(self.ptr, slot, 0);
            let cos_at = self.b.ins().stack_addr(self.ptr, slot, 8);
            self.call_extern_void(
                addr,
                &[types::F64, self.ptr, self.ptr],
                &[r, sin_at, cos_at],
            );
            let sin = self.b.ins().stack_load(self.ptr, types::F64, slot, 0);
            let cos = self.b.ins().stack_load(self.ptr, types::F64, slot, 8);
            let sin = self.b.ins().fdemote(types::F32, sin);
            let cos = self.b.ins().fdemote(types::F32, cos);
            return (sin, cos);
        }
        let bits = self.call_extern(jit_sin_cos as *const (), &[types::F32], &[x], types::I64);
        let raw = MemFlagsData::new();
        let lo = self.b.ins().ireduce(types::I32, bits);
        let sin = self.b.ins().bitcast(types::F32, raw, lo);
        let hi = self.b.ins().ushr_imm_u(bits, 32);
        let hi = self.b.ins().ireduce(types::I32, hi);
        let cos = self.b.ins().bitcast(types::F32, raw, hi);
        (sin, cos)
    }

    /// The builtins whose table row ([`Lowering`]) says they are a few instructions, emitted
    /// in place of the call; the row's doc has the rule that keeps the bits equal.
    pub(super) fn inline_math(&mut self, f: MathFn, v: &[CValue]) -> Option<CValue> {
        Some(match f.lowering() {
            // `f32::floor` rounds toward -inf exactly and keeps -0; a NaN comes back quiet with
            // its payload from both (roundss, libm floorf).
            Lowering::Call if f == MathFn::Floor => self.b.ins().floor(v[0]),
            Lowering::Abs => self.fabs(v[0]),
            Lowering::Sqrt => self.b.ins().sqrt(v[0]),
            // `a > b ? a : b` and `a < b ? a : b`, as `max_raw` / `min_raw`: exactly x86's
            // `maxss a, b` and `minss a, b` (the second operand when either is NaN or they
            // are equal), which Cranelift emits for these very shapes (a `select` of an `fcmp
            // lt` of the same two values), instead of a compare, a branch and a move.
            Lowering::Max => self.max_raw(v[0], v[1]),
            Lowering::Min => self.min_raw(v[0], v[1]),
            // `v > hi ? hi : max_raw(v, lo)`.
            Lowering::Clamp => {
                let m = self.max_raw(v[0], v[1]);
                if self.ordered_bounds(v[1], v[2]) {
                    // Equal to `min_raw(m, hi)` when `lo < hi` and `hi` is not zero: above `hi`,
                    // `m` is `v`; otherwise `m` is at most `hi` and equal to it only with the
                    // same bits; and a NaN `v` gives `m = lo`, below `hi`.
                    return Some(self.min_raw(m, v[2]));
                }
                let gt_hi = self.b.ins().fcmp(FloatCC::GreaterThan, v[0], v[2]);
                let hi = self.in_register(v[2]);
                self.b.ins().select(gt_hi, hi, m)
            }
            // `3.0 * t * t - (t + t) * t * t`, left to right.
            Lowering::HermiteBlend => {
                // `t * 3.0`: the same bits as `3.0 * t` (3 is not a NaN), with the constant
                // where x86 takes it as a memory operand.
                let three = self.f32c(3.0);
                let a = self.b.ins().fmul(v[0], three);
                let a = self.b.ins().fmul(a, v[0]);
                let b = self.b.ins().fadd(v[0], v[0]);
                let b = self.b.ins().fmul(b, v[0]);
                let b = self.b.ins().fmul(b, v[0]);
                self.b.ins().fsub(a, b)
            }
            _ => return None,
        })
    }

    /// `a > b ? a : b` in the shape Cranelift makes a `maxss` of.
    fn max_raw(&mut self, a: CValue, b: CValue) -> CValue {
        let c = self.b.ins().fcmp(FloatCC::LessThan, b, a);
        self.b.ins().select(c, a, b)
    }

    /// `a < b ? a : b` in the shape Cranelift makes a `minss` of.
    fn min_raw(&mut self, a: CValue, b: CValue) -> CValue {
        let c = self.b.ins().fcmp(FloatCC::LessThan, a, b);
        self.b.ins().select(c, a, b)
    }

    /// Whether `lo` and `hi` are constants with `lo < hi` and `hi` not zero.
    fn ordered_bounds(&self, lo: CValue, hi: CValue) -> bool {
        match (self.const_value(lo), self.const_value(hi)) {
            (Some(lo), Some(hi)) => lo < hi && hi != 0.0,
            _ => false,
        }
    }

    /// `query.all` / `any` / `in_range` / `approx_eq` / `count` in place, in the interpreter's
    /// order: `all`, `any` and `approx_eq` jump out at the first argument that decides.
    pub(super) fn pure_query(&mut self, func: PureQuery, args: &[NodeId]) -> CValue {
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
                // Numbers and strings count 1; a value that may be a list asks the host.
                let mut n = self.f32c(0.0);
                for &a in args {
                    let c = if self.numeric(a) || matches!(self.program.node(a), Node::Str(_)) {
                        self.node(a);
                        self.f32c(1.0)
                    } else {
                        let v = self.value(a);
                        let params = [self.ptr, types::I32, types::F32, types::I64];
                        let args = [self.frame, v.tag, v.num, v.bits];
                        self.call_extern(jit_count as *const (), &params, &args, types::F32)
                    };
                    n = self.b.ins().fadd(n, c);
                }
                n
            }
            PureQuery::All | PureQuery::Any | PureQuery::ApproxEq => {
                let (stop_value, end_value) = match func {
                    PureQuery::Any => (1.0, 0.0),
                    _ => (0.0, 1.0),
                };
                // `all`/`any` compare as `==` does: by kind when some argument may not be a number.
                let tagged = func != PureQuery::ApproxEq && !args.iter().all(|&a| self.numeric(a));
                let first_t = if tagged {
                    Some(self.value(args[0]))
                } else {
                    None
                };
                let first = match first_t {
                    Some(t) => t.num,
                    None => self.node(args[0]),
                };
                let done = self.b.create_block();
                self.b.append_block_param(done, types::F32);
                let mark = self.region();
                for &a in &args[1..] {
                    if let Some(f) = first_t {
                        let x = self.value(a);
                        let eq = self.equal_tagged(x, f);
                        let stop = if func == PureQuery::Any {
                            eq
                        } else {
                            self.b.ins().bxor_imm_s(eq, 1)
                        };
                        let sv = self.f32c(stop_value);
                        let next = self.b.create_block();
                        self.b.ins().brif(stop, done, &[sv.into()], next, &[]);
                        self.b.seal_block(next);
                        self.b.switch_to_block(next);
                        continue;
                    }
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
}

/// `a` for `math.sin`, `b` for `math.cos`.
fn sin_or(func: MathFn, a: CValue, b: CValue) -> CValue {
    if func == MathFn::Sin {
        a
    } else {
        b
    }
}
