//! Operators: negation, `!`, arithmetic (the tiny-divisor rule), comparisons, `==`, `&&`, `||`.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::Value as CValue;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Opcode, ValueDef};

use super::{MemoKey, Translator};
use crate::builtins::math::{MathFn, NativeFn};
use crate::builtins::platform::{arm64, Platform};
use crate::interp::{folds_to_constant, DIVISION_EPSILON};
use crate::ir::{ArithOp, CmpOp, Node, NodeId, PostOp};

impl Translator<'_> {
    /// `operand` with the game's post-operation (see [`crate::fold`]), as the interpreter's
    /// `post` computes it on this platform.
    pub(super) fn post(&mut self, operand: NodeId, post: PostOp) -> CValue {
        if post.is_identity() {
            return self.node(operand);
        }
        let p = self.options.platform;
        let PostOp { scale, offset } = post;
        let program = self.program;
        match program.node(operand) {
            Node::Compare { .. }
            | Node::Equal { .. }
            | Node::And(..)
            | Node::Or(..)
            | Node::Not(_) => {
                let c = self.truth(operand);
                self.select_consts(c, p.add(scale, offset), offset)
            }
            Node::Math {
                func: MathFn::Sign,
                args,
            } => {
                let x = self.node(args[0]);
                let zero = self.f32c(0.0);
                let cc = match p {
                    Platform::X86_64 => FloatCC::LessThan,
                    Platform::Arm64 => FloatCC::UnorderedOrLessThan,
                };
                let negative = self.b.ins().fcmp(cc, x, zero);
                let k = p.add(scale, offset);
                self.select_consts(negative, -k, k)
            }
            Node::Arith {
                op: ArithOp::Div,
                lhs,
                rhs,
            } => {
                let d = self.divisor(*rhs);
                self.guarded_div(d, *lhs, |t, n| match p {
                    Platform::X86_64 => {
                        let q = t.fdiv(n, d);
                        t.scale_offset(q, scale, offset)
                    }
                    Platform::Arm64 => {
                        let s = t.f32c(scale);
                        let m = t.call_native(NativeFn::A2(arm64::molang_arm64_mul), &[n, s]);
                        let q = t.call_native(NativeFn::A2(arm64::molang_arm64_div), &[m, d]);
                        let o = t.f32c(offset);
                        t.call_native(NativeFn::A2(arm64::molang_arm64_add), &[q, o])
                    }
                })
            }
            Node::Arith {
                op: ArithOp::Mul,
                lhs,
                rhs,
            } if p == Platform::Arm64 => {
                let l = self.node(*lhs);
                let r = self.node(*rhs);
                let s = self.f32c(scale);
                let m = self.call_native(NativeFn::A2(arm64::molang_arm64_mul), &[l, s]);
                let o = self.f32c(offset);
                self.call_native(NativeFn::A3(arm64::molang_arm64_mul_add), &[m, r, o])
            }
            _ => {
                let raw = self.node(operand);
                self.scale_offset(raw, scale, offset)
            }
        }
    }

    /// `raw·S + O` on this platform: two roundings on x86-64 (the NaN of `raw`, then of the
    /// product, winning as in Rust's `raw * S + O`), one on arm64.
    fn scale_offset(&mut self, raw: CValue, scale: f32, offset: f32) -> CValue {
        if self.options.platform == Platform::Arm64 {
            let s = self.f32c(scale);
            let o = self.f32c(offset);
            return self.call_native(NativeFn::A3(arm64::molang_arm64_mul_add), &[raw, s, o]);
        }
        let raw = self.in_register(raw);
        let raw = if scale.is_nan() {
            self.not_a_load(raw)
        } else {
            raw
        };
        let s = self.f32c(scale);
        let m = self.b.ins().fmul(raw, s);
        let o = self.f32c(offset);
        self.b.ins().fadd(m, o)
    }

    pub(super) fn neg(&mut self, e: NodeId) -> CValue {
        // The sign bit flipped by `xorps` with the sign mask (one load from the constant pool,
        // `in_register`), which is what `fneg` does, but out of the optimiser's sight:
        // Cranelift rewrites `fneg(a) * fneg(b)` to `a * b`, and with a NaN factor that flips
        // the sign of the NaN the product carries (visible through `math.copy_sign`). The
        // interpreter negates, then multiplies. (The integer route, `bitcast` + `bxor`, cost
        // two `movd`s more.) A constant is negated here, as Rust's `-` does: the sign bit
        // alone, a NaN's payload kept.
        if let Node::Const(c) = self.program.node(e) {
            return self.f32c(-*c);
        }
        let v = self.node(e);
        let key = MemoKey::Neg(self.canon(v));
        if let Some(n) = self.shared(&key) {
            return n;
        }
        let sign = self.f32c(f32::from_bits(0x8000_0000));
        let sign = self.in_register(sign);
        let n = self.b.ins().bxor(v, sign);
        self.remember(key, n);
        n
    }

    pub(super) fn not(&mut self, e: NodeId) -> CValue {
        let t = self.truth(e);
        let zero = self.f32c(0.0);
        let one = self.f32c(1.0);
        self.b.ins().select(t, zero, one)
    }

    /// `lhs op rhs`, shared by operand values (see [`MemoKey::Arith`]). A division by a
    /// value tests the tiny-divisor rule first (`|d| < 2^-23` gives 0, and the interpreter
    /// then never evaluates the numerator); see [`divide`](Self::divide).
    pub(super) fn arith(&mut self, op: ArithOp, lhs: NodeId, rhs: NodeId) -> CValue {
        if op == ArithOp::Div {
            return self.divide(lhs, rhs);
        }
        let program = self.program;
        // A slot read on the left of `+` or `*` whose right operand may be a NaN must not be a
        // load (see `not_a_load`): ask for it in a register.
        self.int_load = op != ArithOp::Sub
            && matches!(program.node(lhs), Node::Read { .. })
            && !matches!(program.node(rhs), Node::Const(_));
        let l = self.node(lhs);
        self.int_load = false;
        let r = self.node(rhs);
        let key = self.arith_key(op, l, r);
        if let Some(v) = self.shared(&key) {
            return v;
        }
        if self.options.platform == Platform::Arm64 {
            // arm64's NaN choice, computed in software (the host is x86-64).
            let f = match op {
                ArithOp::Add => arm64::molang_arm64_add,
                ArithOp::Sub => arm64::molang_arm64_sub,
                _ => arm64::molang_arm64_mul,
            };
            let v = self.call_native(NativeFn::A2(f), &[l, r]);
            self.remember(key, v);
            return v;
        }
        // A constant that is not a NaN on the left of `+` or `*` goes right, where x86 takes it
        // as a memory operand: the same bits (only the other operand can be a NaN, and IEEE
        // `+` and `*` are commutative otherwise, signed zeros included).
        let (l, r) = if op != ArithOp::Sub && self.non_nan_const(l) && !self.non_nan_const(r) {
            (r, l)
        } else {
            (l, r)
        };
        // With a right operand that is not a NaN, only `l` can give a NaN: a swap by x86
        // lowering cannot change the bits.
        let keep_first = |t: &mut Self, l: CValue| {
            if t.non_nan_const(r) {
                l
            } else {
                t.not_a_load(l)
            }
        };
        let l = self.in_register(l);
        let v = match op {
            ArithOp::Add => {
                let l = keep_first(self, l);
                self.b.ins().fadd(l, r)
            }
            ArithOp::Sub => self.b.ins().fsub(l, r),
            _ => {
                let l = keep_first(self, l);
                self.b.ins().fmul(l, r)
            }
        };
        self.remember(key, v);
        v
    }

    fn arith_key(&self, op: ArithOp, l: CValue, r: CValue) -> MemoKey {
        MemoKey::Arith(op, self.canon(l), self.canon(r))
    }

    /// `lhs / rhs` with the tiny-divisor rule, in the interpreter's order: the divisor, then
    /// (unless it is tiny) the numerator.
    ///
    /// When the numerator can neither abort nor change anything ([`cannot_abort`]), running
    /// it whatever the divisor is invisible: it is computed before the test and the result is
    /// `select(tiny, 0, n / d)`, the same bits as the interpreter's `0.0` or `n / d` (`fdiv`
    /// keeps the operand order, so with two NaNs `n`'s payload wins as in `n / d`). Then the
    /// quotient is one value for one (numerator, divisor) pair and shared like `+ - *`, and so
    /// are the pure calls made on it (the rig's `math.cos(180 * math.clamp(v.ph / v.bt ...))`
    /// repeated per leg). Otherwise the numerator runs in a branch arm, as the rule says.
    fn divide(&mut self, lhs: NodeId, rhs: NodeId) -> CValue {
        let program = self.program;
        if let Node::Const(c) = program.node(rhs) {
            // A constant divisor decides the tiny-divisor rule at compile time.
            // (Constants are never the legacy runtime-negative case.)
            if self.options.platform.guard_fires(*c) {
                return self.f32c(0.0);
            }
            let n = self.node(lhs);
            let d = self.f32c(*c);
            let key = self.arith_key(ArithOp::Div, n, d);
            if let Some(v) = self.shared(&key) {
                return v;
            }
            let n = self.in_register(n);
            let v = self.fdiv(n, d);
            self.remember(key, v);
            return v;
        }
        let d = self.divisor(rhs);
        if cannot_abort(self, lhs) {
            let n = self.node(lhs);
            let key = self.arith_key(ArithOp::Div, n, d);
            if let Some(v) = self.shared(&key) {
                return v;
            }
            let tiny = self.tiny(d);
            let q = self.fdiv(n, d);
            let zero = self.f32c(0.0);
            let v = self.b.ins().select(tiny, zero, q);
            self.remember(key, v);
            return v;
        }
        self.guarded_div(d, lhs, |t, n| t.fdiv(n, d))
    }

    /// The divisor `rhs` as the game divides by it: before version 7 a run-time divisor
    /// loses its sign (the interpreter's `divisor`).
    fn divisor(&mut self, rhs: NodeId) -> CValue {
        let d = self.node(rhs);
        if self.options.version < 7 && !folds_to_constant(self.program, rhs) {
            self.abs(d)
        } else {
            d
        }
    }

    /// `0` when the divisor `d` is tiny, else `quotient` of the dividend `lhs`, which only
    /// that arm evaluates.
    fn guarded_div(
        &mut self,
        d: CValue,
        lhs: NodeId,
        quotient: impl FnOnce(&mut Self, CValue) -> CValue,
    ) -> CValue {
        let tiny = self.tiny(d);
        self.branch(
            tiny,
            |t| t.f32c(0.0),
            |t| {
                let n = t.node(lhs);
                quotient(t, n)
            },
        )
    }

    /// `n / d` on the run's platform (arm64's NaN choice in software).
    fn fdiv(&mut self, n: CValue, d: CValue) -> CValue {
        if self.options.platform == Platform::Arm64 {
            return self.call_native(NativeFn::A2(arm64::molang_arm64_div), &[n, d]);
        }
        self.b.ins().fdiv(n, d)
    }

    /// `|d| < 2^-23` as an `i8`: false for NaN on x86-64, true on arm64
    /// ([`Platform::guard_fires`]).
    fn tiny(&mut self, d: CValue) -> CValue {
        let mag = self.abs(d);
        let eps = self.f32c(DIVISION_EPSILON);
        let cc = match self.options.platform {
            Platform::X86_64 => FloatCC::LessThan,
            Platform::Arm64 => FloatCC::UnorderedOrLessThan,
        };
        self.b.ins().fcmp(cc, mag, eps)
    }

    /// `|v|`, shared like `math.abs` (the same `fabs`).
    fn abs(&mut self, v: CValue) -> CValue {
        let key = MemoKey::Call(MathFn::Abs, vec![self.canon(v)]);
        if let Some(a) = self.shared(&key) {
            return a;
        }
        let a = self.fabs(v);
        self.remember(key, a);
        a
    }

    /// `fabs`, as x86 lowering does it (the sign bit cleared by `andps`) but with the mask
    /// one load from the constant pool (`in_register`) instead of a `mov` and a `movd`. The
    /// same bits for every input, NaN payloads included.
    pub(super) fn fabs(&mut self, v: CValue) -> CValue {
        let mask = self.f32c(f32::from_bits(0x7fff_ffff));
        let mask = self.in_register(mask);
        self.b.ins().band(v, mask)
    }

    /// `v` as the first operand of a commutative `fadd`/`fmul`, kept first. x86 lowering folds
    /// a load that is the first operand into the instruction as its memory operand by
    /// swapping the operands (`rule 1 (lower (fadd $F32 (sinkable_load_32 x) y))` in
    /// Cranelift 0.135's `x64/lower.isle`, and the same for `fmul`), and `addss`/`mulss` return
    /// their *first* source's NaN when both are NaN: `q.a + t.b` would then give `t.b`'s NaN
    /// where the interpreter (`l + r`, also `addss l, r`) gives `q.a`'s. A load there (a query,
    /// a context, `this`, a slot read in its own block) goes through an integer bitcast and
    /// back, which no rewrite folds and which keeps every bit, so the load is an ordinary
    /// register operand. Other values are returned as they are: the loads Cranelift's passes
    /// leave are the ones emitted here (alias analysis only replaces a load by an earlier
    /// value, which this test saw first).
    pub(super) fn not_a_load(&mut self, v: CValue) -> CValue {
        let dfg = &self.b.func.dfg;
        let v = dfg.resolve_aliases(v);
        let is_load = match dfg.value_def(v) {
            ValueDef::Result(inst, _) => dfg.insts[inst].opcode() == Opcode::Load,
            _ => false,
        };
        if !is_load {
            return v;
        }
        let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), v);
        let kept = self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits);
        self.round_trips.push((v, kept));
        kept
    }

    /// Undoes [`not_a_load`](Self::not_a_load) where it was not needed: a load that a store, a
    /// call or a branch also uses has several uses, and x86 lowering folds only a load with a
    /// single use into the instruction that uses it. Such a load is in a register anyway, so
    /// the integer round trip was two `movd`s for nothing (about 47 a rig frame). Only those
    /// uses count because no pass removes them or merges them with another (an unused or
    /// duplicate arithmetic use could disappear and leave the load single again); if a pass
    /// replaces the load by an earlier value, they use that value instead, which then has
    /// several uses too.
    pub(super) fn drop_needless_round_trips(&mut self) {
        if self.round_trips.is_empty() {
            return;
        }
        let func = &mut *self.b.func;
        let mut kept_uses = std::collections::HashMap::<CValue, u32>::new();
        for (load, _) in &self.round_trips {
            kept_uses.insert(func.dfg.resolve_aliases(*load), 0);
        }
        let blocks: Vec<_> = func.layout.blocks().collect();
        let mut insts = Vec::new();
        for &block in &blocks {
            for inst in func.layout.block_insts(block) {
                insts.push(inst);
                let op = func.dfg.insts[inst].opcode();
                if !(op.can_store() || op.is_call() || op.is_terminator()) {
                    continue;
                }
                for v in func.dfg.inst_values(inst) {
                    if let Some(n) = kept_uses.get_mut(&func.dfg.resolve_aliases(v)) {
                        *n += 1;
                    }
                }
            }
        }
        let mut replace = std::collections::HashMap::new();
        for &(load, kept) in &self.round_trips {
            let load = func.dfg.resolve_aliases(load);
            if kept_uses[&load] > 0 {
                replace.insert(kept, load);
            }
        }
        if replace.is_empty() {
            return;
        }
        for inst in insts {
            func.dfg
                .map_inst_values(inst, |v| replace.get(&v).copied().unwrap_or(v));
        }
    }

    pub(super) fn compare(&mut self, op: CmpOp, lhs: NodeId, rhs: NodeId) -> CValue {
        let c = self.compare_cond(op, lhs, rhs);
        self.bool_to_f32(c)
    }

    /// The condition of a comparison (an `i8`).
    pub(super) fn compare_cond(&mut self, op: CmpOp, lhs: NodeId, rhs: NodeId) -> CValue {
        let mut l = self.node(lhs);
        let mut r = self.node(rhs);
        // x86 lowering compares `a < b` as `b > a`: the right operand of `<` and `<=` (the
        // left of `>` and `>=`) must be in a register, which for a constant is one load from
        // the constant pool (`in_register`) instead of a `mov` and a `movd`. A comparison's
        // result does not depend on where its operands come from.
        match op {
            CmpOp::Lt | CmpOp::Le => r = self.in_register(r),
            CmpOp::Gt | CmpOp::Ge => l = self.in_register(l),
        }
        // arm64 compiles `<` and `<=` as the negation of `>=` and `>`: true with a NaN.
        let arm = self.options.platform == Platform::Arm64;
        let cc = match op {
            CmpOp::Lt if arm => FloatCC::UnorderedOrLessThan,
            CmpOp::Le if arm => FloatCC::UnorderedOrLessThanOrEqual,
            CmpOp::Lt => FloatCC::LessThan,
            CmpOp::Le => FloatCC::LessThanOrEqual,
            CmpOp::Gt => FloatCC::GreaterThan,
            CmpOp::Ge => FloatCC::GreaterThanOrEqual,
        };
        self.b.ins().fcmp(cc, l, r)
    }

    pub(super) fn equal(&mut self, negate: bool, lhs: NodeId, rhs: NodeId) -> CValue {
        let c = self.equal_cond(negate, lhs, rhs);
        self.bool_to_f32(c)
    }

    /// The condition of `==` (or `!=` when `negate`).
    pub(super) fn equal_cond(&mut self, negate: bool, lhs: NodeId, rhs: NodeId) -> CValue {
        let c = if self.numeric(lhs) && self.numeric(rhs) {
            let l = self.node(lhs);
            let r = self.node(rhs);
            self.num_equal(l, r)
        } else {
            let l = self.value(lhs);
            let r = self.value(rhs);
            self.equal_tagged(l, r)
        };
        if negate {
            self.b.ins().bxor_imm_s(c, 1)
        } else {
            c
        }
    }

    /// `l && r` as a condition: `r` is evaluated only when `l` is true.
    pub(super) fn and_cond(&mut self, l: NodeId, r: NodeId) -> CValue {
        let lt = self.truth(l);
        self.branch_of(
            types::I8,
            lt,
            |t| t.truth(r),
            |t| t.b.ins().iconst(types::I8, 0),
        )
    }

    /// `l || r` as a condition: `r` is evaluated only when `l` is false.
    pub(super) fn or_cond(&mut self, l: NodeId, r: NodeId) -> CValue {
        let lt = self.truth(l);
        self.branch_of(
            types::I8,
            lt,
            |t| t.b.ins().iconst(types::I8, 1),
            |t| t.truth(r),
        )
    }
}

/// Whether evaluating `id` here can neither abort nor change state, so that running it when
/// the interpreter would not is invisible: constants, `this`, queries without arguments,
/// reads of slots known to be set at this point (no unset-read exit), negation, arithmetic,
/// comparisons and non-random builtins of such. Anything else (assignments, random draws,
/// host calls, a read that may be unset, control flow) says no.
fn cannot_abort(t: &Translator<'_>, id: NodeId) -> bool {
    let node = t.program.node(id);
    match node {
        Node::Const(_) | Node::PlatformConst(_) | Node::This => true,
        Node::Query { args, .. } => args.is_empty(),
        Node::Read { scope, slot } => t.is_known(*scope, *slot),
        Node::Math { func, .. } if func.is_random() => false,
        Node::Post { .. }
        | Node::Neg(_)
        | Node::Arith { .. }
        | Node::Compare { .. }
        | Node::Math { .. } => node.children().all(|e| cannot_abort(t, e)),
        _ => false,
    }
}
