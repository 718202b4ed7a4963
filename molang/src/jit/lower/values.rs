//! Values other than numbers (strings as the game's 64-bit hashes, resources, arrays and their
//! elements, what `->` reads, and whatever a slot or a query holds). A node whose kind is not a number at compile time lowers to a [`Tagged`]
//! triple in storage form ([`Value::encode`](crate::interp::Value::encode)): only the places
//! where the kind matters ask for it (`==`, truth, assignment, query arguments, the result);
//! everywhere else a value is its number (0 for non-numbers), as `Value::as_num` says.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value as CValue,
};

use super::{Tagged, Translator};
use crate::interp::value::tag;
use crate::interp::Value;
use crate::ir::{Node, NodeId, Program, Remote, Scope, Slot};

use super::super::abi::{
    jit_array_len, jit_ask, Frame, JitValue, ASK_QUERY, ASK_REMOTE_QUERY, ASK_REMOTE_VARIABLE,
    JIT_VALUE_SIZE, STATUS_OK, STATUS_UNSET,
};

impl Translator<'_> {
    /// Whether `id` is a number whatever the run (so its [`node`](Self::node) is its value).
    pub(super) fn numeric(&self, id: NodeId) -> bool {
        numeric(self.program, id)
    }

    /// Whether `id`, emitted at this point, gives a number: [`numeric`](Self::numeric), or a
    /// read of a slot known to hold one here.
    fn numeric_now(&self, id: NodeId) -> bool {
        match self.program.node(id) {
            Node::Read { scope, slot } => self.is_known_num(*scope, *slot),
            _ => self.numeric(id),
        }
    }

    fn tag_const(&mut self, t: u8) -> CValue {
        self.b.ins().iconst(types::I32, t as i64)
    }

    /// A number as a tagged value.
    pub(super) fn as_tagged(&mut self, num: CValue) -> Tagged {
        let tag = self.tag_const(tag::NUM);
        let bits = self.b.ins().iconst(types::I64, 0);
        Tagged {
            tag,
            num,
            bits,
            is_num: true,
        }
    }

    /// `id` with its kind.
    pub(super) fn value(&mut self, id: NodeId) -> Tagged {
        if self.numeric(id) {
            let v = self.node(id);
            return self.as_tagged(v);
        }
        let program = self.program;
        match program.node(id) {
            Node::Str(h) => self.constant(Value::Str(*h)),
            Node::Resource { kind, name } => self.constant(Value::Resource(*kind, *name)),
            Node::Array { name } => self.constant(Value::Array(*name)),
            Node::Index { array, index } => self.index(*array, *index),
            Node::Arrow { entity, remote } => self.arrow(*entity, remote),
            Node::Read { scope, slot } => self.read_tagged(id, *scope, *slot),
            Node::Query { query, args } => self.query_with_arguments(*query, args),
            Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                let c = self.truth(*cond);
                let (then, otherwise) = (*then, *otherwise);
                // Arms that are numbers where they start (a read of a slot known to hold a
                // number counts) merge the number alone: the tag and payload block parameters
                // would be set on every path and never read.
                if self.numeric_now(then) && otherwise.is_none_or(|o| self.numeric_now(o)) {
                    let v = self.branch(
                        c,
                        |t| t.node(then),
                        |t| match otherwise {
                            Some(o) => t.node(o),
                            None => t.f32c(0.0),
                        },
                    );
                    return self.as_tagged(v);
                }
                self.branch_tagged(
                    c,
                    |t| t.value(then),
                    |t| match otherwise {
                        Some(o) => t.value(o),
                        None => {
                            let z = t.f32c(0.0);
                            t.as_tagged(z)
                        }
                    },
                )
            }
            Node::Block { stmts, .. } => {
                let (last, rest) = stmts.split_last().expect("non-numeric blocks have a last");
                for &s in rest {
                    self.node(s);
                }
                self.value(*last)
            }
            Node::Assign(a) => self.assign_tagged(a),
            Node::Discard(e) => self.value(*e),
            Node::Coalesce {
                scope,
                slot,
                lhs,
                rhs,
            } => {
                let flag = self.load_flag(*scope, *slot);
                let (lhs, rhs) = (*lhs, *rhs);
                self.branch_tagged(flag, |t| t.value(lhs), |t| t.value(rhs))
            }
            _ => unreachable!("every other node is a number (`numeric`)"),
        }
    }

    /// A value known at compile time.
    fn constant(&mut self, v: Value) -> Tagged {
        let (t, num, bits) = v.encode();
        Tagged {
            tag: self.tag_const(t),
            num: self.f32c(num),
            bits: self.b.ins().iconst(types::I64, bits as i64),
            is_num: matches!(v, Value::Num(_)),
        }
    }

    /// `array.name[i]`, with the interpreter's index rule: `max(0, i)` truncated toward zero
    /// (saturating, NaN as 0), modulo the size the host gives (element 0 of an empty array).
    fn index(&mut self, array: Slot, index: NodeId) -> Tagged {
        let i = self.node(index);
        let slot = self.b.ins().iconst(types::I32, array.index() as i64);
        let len = self.call_extern(
            jit_array_len as *const (),
            &[self.ptr, types::I32],
            &[self.frame, slot],
            types::I32,
        );
        // `f32::max(i, 0)` is 0 for NaN, and so is `i > 0 ? i : 0`; the sign of a zero does
        // not survive the cast.
        let zero = self.f32c(0.0);
        let positive = self.b.ins().fcmp(FloatCC::GreaterThan, i, zero);
        let clamped = self.b.ins().select(positive, i, zero);
        let whole = self.b.ins().fcvt_to_uint_sat(types::I64, clamped);
        let len = self.b.ins().uextend(types::I64, len);
        // `x % 1` is 0: the empty array's element 0 without a division by zero.
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
        let one = self.b.ins().iconst(types::I64, 1);
        let divisor = self.b.ins().select(empty, one, len);
        let element = self.b.ins().urem(whole, divisor);
        let (t, num, bits) = Value::ArrayElement(array, 0).encode();
        let bits = self.b.ins().bor_imm_s(element, bits as i64);
        Tagged {
            tag: self.tag_const(t),
            num: self.f32c(num),
            bits,
            is_num: false,
        }
    }

    /// `entity->v.name` and `entity->q.name(args)`: 0 without evaluating the arguments when
    /// the left side is not an entity, else the host's answer for that entity (0 when it has
    /// none), as the interpreter reads it.
    fn arrow(&mut self, entity: NodeId, remote: &Remote) -> Tagged {
        let e = self.value(entity);
        let is_entity = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, e.tag, tag::ENTITY as i64);
        let (what, slot, args): (u32, Slot, &[NodeId]) = match remote {
            Remote::Variable(name) => (ASK_REMOTE_VARIABLE, *name, &[]),
            Remote::Query { query, args } => (ASK_REMOTE_QUERY, *query, args),
        };
        self.branch_tagged(
            is_entity,
            |t| {
                let id = t.b.ins().ireduce(types::I32, e.bits);
                t.ask(what, id, slot, args)
            },
            |t| t.constant(Value::Num(0.0)),
        )
    }

    /// The truth of `id`: NaN is true, only ±0 is false, and every non-number is true.
    pub(super) fn truth(&mut self, id: NodeId) -> CValue {
        // Operators that yield 1 or 0 are true exactly when their condition holds: take the
        // condition itself instead of its 1/0 (one select and one compare fewer).
        let program = self.program;
        match program.node(id) {
            Node::Compare { op, lhs, rhs } => return self.compare_cond(*op, *lhs, *rhs),
            Node::Equal { negate, lhs, rhs } => return self.equal_cond(*negate, *lhs, *rhs),
            Node::Not(e) => {
                let t = self.truth(*e);
                return self.b.ins().bxor_imm_s(t, 1);
            }
            Node::And(l, r) => return self.and_cond(*l, *r),
            Node::Or(l, r) => return self.or_cond(*l, *r),
            _ => {}
        }
        if self.numeric(id) {
            let v = self.node(id);
            return self.truthy(v);
        }
        let v = self.value(id);
        self.truthy_tagged(v)
    }

    pub(super) fn truthy_tagged(&mut self, v: Tagged) -> CValue {
        if v.is_num {
            return self.truthy(v.num);
        }
        // Non-numbers hold 0 as their number, so `num != 0` alone would call them false.
        let nz = self.truthy(v.num);
        let other = self
            .b
            .ins()
            .icmp_imm_s(IntCC::NotEqual, v.tag, tag::NUM as i64);
        self.b.ins().bor(nz, other)
    }

    /// `l == r` for numbers. Against a constant that is neither zero nor NaN, f32 `==` holds
    /// exactly when the bits are equal (only ±0 and NaN break that): one integer compare
    /// and one branch, where x86 needs `ucomiss` and two branches (`jp`, `je`).
    pub(super) fn num_equal(&mut self, l: CValue, r: CValue) -> CValue {
        let (x, c) = match (self.const_value(l), self.const_value(r)) {
            (_, Some(c)) => (l, c),
            (Some(c), None) => (r, c),
            (None, None) => return self.b.ins().fcmp(FloatCC::Equal, l, r),
        };
        if c == 0.0 || c.is_nan() {
            return self.b.ins().fcmp(FloatCC::Equal, l, r);
        }
        let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), x);
        self.b
            .ins()
            .icmp_imm_s(IntCC::Equal, bits, i64::from(c.to_bits() as i32))
    }

    /// `Value::equals`: numbers by f32 `==`, everything else by kind and payload.
    pub(super) fn equal_tagged(&mut self, l: Tagged, r: Tagged) -> CValue {
        if l.is_num && r.is_num {
            return self.num_equal(l.num, r.num);
        }
        let same_kind = self.b.ins().icmp(IntCC::Equal, l.tag, r.tag);
        let is_num = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, l.tag, tag::NUM as i64);
        let num_eq = self.b.ins().fcmp(FloatCC::Equal, l.num, r.num);
        let bits_eq = self.b.ins().icmp(IntCC::Equal, l.bits, r.bits);
        let same = self.b.ins().select(is_num, num_eq, bits_eq);
        self.b.ins().band(same_kind, same)
    }

    /// Like [`branch`](Self::branch), for tagged values.
    pub(super) fn branch_tagged(
        &mut self,
        cond: CValue,
        then: impl FnOnce(&mut Self) -> Tagged,
        otherwise: impl FnOnce(&mut Self) -> Tagged,
    ) -> Tagged {
        // Whether both arms are numbers is known only once both are emitted: each arm
        // passes its flag out through this cell.
        let all_num = std::cell::Cell::new(true);
        let parts = |v: Tagged| {
            all_num.set(all_num.get() && v.is_num);
            vec![v.tag, v.num, v.bits]
        };
        let p = self.branch_values(
            cond,
            &[types::I32, types::F32, types::I64],
            |t| parts(then(t)),
            |t| parts(otherwise(t)),
        );
        Tagged {
            tag: p[0],
            num: p[1],
            bits: p[2],
            is_num: all_num.get(),
        }
    }

    /// The payload array of `scope`, loaded where it is used (few programs need it).
    fn bits_base(&mut self, scope: Scope) -> CValue {
        let off = match scope {
            Scope::Variable => offset_of!(Frame, vars_bits),
            Scope::Temp => offset_of!(Frame, temps_bits),
            Scope::Context => offset_of!(Frame, ctx_bits),
        };
        self.b
            .ins()
            .load(self.ptr, Self::entry_flags(), self.frame, off as i32)
    }

    /// A read with its kind; ends the run when the slot is unset, as [`read`](Self::read).
    fn read_tagged(&mut self, id: NodeId, scope: Scope, slot: Slot) -> Tagged {
        if self.is_known_num(scope, slot) {
            // Known set too: a numeric assignment marks both.
            let num = self.load_value(scope, slot);
            return self.as_tagged(num);
        }
        let tag = self.load_flag(scope, slot);
        if !self.is_known(scope, slot) {
            self.abort_when(tag, false, id, STATUS_UNSET);
            self.mark_known(scope, slot);
        }
        self.load_tagged(scope, slot, tag)
    }

    /// The number and payload of a slot whose tag is `tag`.
    pub(super) fn load_tagged(&mut self, scope: Scope, slot: Slot, tag: CValue) -> Tagged {
        self.note_temp_read(scope, slot, super::storage::TEMP_PINNED);
        let num = self.load_value(scope, slot);
        let base = self.bits_base(scope);
        let bits = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            base,
            slot.index() as i32 * 8,
        );
        Tagged {
            tag,
            num,
            bits,
            is_num: false,
        }
    }

    /// Stores a value of any kind.
    pub(super) fn store_tagged(&mut self, scope: Scope, slot: Slot, v: Tagged) {
        self.store(scope, slot, v.num);
        if v.is_num {
            // `store` wrote the number tag; a number's payload is never read.
            return;
        }
        self.note_temp_read(scope, slot, super::storage::TEMP_PINNED);
        let (_, set) = self.arrays(scope);
        let t8 = self.b.ins().ireduce(types::I8, v.tag);
        self.b.ins().store(
            MemFlagsData::trusted(),
            t8,
            set,
            super::storage::tag_at(slot),
        );
        let base = self.bits_base(scope);
        self.b.ins().store(
            MemFlagsData::trusted(),
            v.bits,
            base,
            slot.index() as i32 * 8,
        );
    }

    /// A query with arguments, answered by the host through [`jit_ask`].
    pub(super) fn query_with_arguments(&mut self, query: Slot, args: &[NodeId]) -> Tagged {
        let no_entity = self.b.ins().iconst(types::I32, 0);
        self.ask(ASK_QUERY, no_entity, query, args)
    }

    /// Asks the host through [`jit_ask`] with the arguments' values: each with its kind goes
    /// to a stack slot, the answer comes back in another.
    fn ask(&mut self, what: u32, entity: CValue, slot: Slot, args: &[NodeId]) -> Tagged {
        let vals: Vec<Tagged> = args.iter().map(|&a| self.value(a)).collect();
        let stack = |t: &mut Self, n: usize| {
            t.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                JIT_VALUE_SIZE * n.max(1) as u32,
                3,
            ))
        };
        let args_slot = stack(self, vals.len());
        let out_slot = stack(self, 1);
        let size = JIT_VALUE_SIZE as i32;
        let (t_off, n_off, b_off) = (
            offset_of!(JitValue, tag) as i32,
            offset_of!(JitValue, num) as i32,
            offset_of!(JitValue, bits) as i32,
        );
        for (i, v) in vals.iter().enumerate() {
            let at = i as i32 * size;
            for (field, off) in [(v.tag, t_off), (v.num, n_off), (v.bits, b_off)] {
                self.b
                    .ins()
                    .stack_store(self.ptr, field, args_slot, at + off);
            }
        }
        let addr = self.b.ins().stack_addr(self.ptr, args_slot, 0);
        let out = self.b.ins().stack_addr(self.ptr, out_slot, 0);
        let what = self.b.ins().iconst(types::I32, what as i64);
        let slot = self.b.ins().iconst(types::I32, slot.index() as i64);
        let n = self.b.ins().iconst(types::I32, vals.len() as i64);
        let i32 = types::I32;
        let params = [self.ptr, i32, i32, i32, self.ptr, i32, self.ptr];
        let values = [self.frame, what, entity, slot, addr, n, out];
        self.call_extern_void(jit_ask as *const (), &params, &values);
        let p = self.ptr;
        Tagged {
            tag: self.b.ins().stack_load(p, types::I32, out_slot, t_off),
            num: self.b.ins().stack_load(p, types::F32, out_slot, n_off),
            bits: self.b.ins().stack_load(p, types::I64, out_slot, b_off),
            is_num: false,
        }
    }

    /// Ends the run with `id`'s value as the result.
    pub(super) fn finish_node(&mut self, id: NodeId) {
        if self.numeric(id) {
            let v = self.node(id);
            self.finish(v);
            return;
        }
        let v = self.value(id);
        let f = MemFlagsData::trusted();
        self.b
            .ins()
            .store(f, v.tag, self.frame, offset_of!(Frame, result_tag) as i32);
        self.b
            .ins()
            .store(f, v.bits, self.frame, offset_of!(Frame, result_bits) as i32);
        self.b
            .ins()
            .store(f, v.num, self.frame, offset_of!(Frame, result) as i32);
        let s = self.b.ins().iconst(types::I32, STATUS_OK);
        self.b.ins().return_(&[s]);
    }
}

/// Whether `id` is a number whatever the run (so `Translator::node` is its value).
pub(crate) fn numeric(program: &Program, id: NodeId) -> bool {
    let numeric = |id| numeric(program, id);
    match program.node(id) {
        Node::Str(_)
        | Node::Resource { .. }
        | Node::Array { .. }
        | Node::Index { .. }
        | Node::Arrow { .. }
        | Node::Read { .. } => false,
        // Plain queries read the host's number array (`JitProgram::run_in`).
        Node::Query { args, .. } => args.is_empty(),
        Node::Cond {
            then, otherwise, ..
        } => numeric(*then) && otherwise.is_none_or(&numeric),
        Node::Block {
            stmts,
            simple: true,
        } => stmts.last().is_none_or(|&s| numeric(s)),
        Node::Assign(a) => numeric(a.value),
        Node::Discard(e) => numeric(*e),
        Node::Coalesce { lhs, rhs, .. } => numeric(*lhs) && numeric(*rhs),
        _ => true,
    }
}
