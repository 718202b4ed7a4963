//! Values other than numbers (strings as the game's 64-bit hashes, and whatever a slot or a
//! query holds). A node whose kind is not a number at compile time lowers to a [`Tagged`]
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
use crate::ir::{Node, NodeId, Program, Scope, Slot};

use super::super::abi::{jit_query, Frame, JitValue, JIT_VALUE_SIZE, STATUS_OK, STATUS_UNSET};

impl Translator<'_> {
    /// Whether `id` is a number whatever the run (so its [`node`](Self::node) is its value).
    pub(super) fn numeric(&self, id: NodeId) -> bool {
        numeric(self.program, id)
    }

    fn tag_const(&mut self, t: u8) -> CValue {
        self.b.ins().iconst(types::I32, t as i64)
    }

    /// A number as a tagged value.
    pub(super) fn as_tagged(&mut self, num: CValue) -> Tagged {
        let tag = self.tag_const(tag::NUM);
        let bits = self.b.ins().iconst(types::I64, 0);
        Tagged { tag, num, bits }
    }

    /// `id` with its kind.
    pub(super) fn value(&mut self, id: NodeId) -> Tagged {
        if self.numeric(id) {
            let v = self.node(id);
            return self.as_tagged(v);
        }
        let program = self.program;
        match program.node(id) {
            Node::Str(h) => {
                let tag = self.tag_const(tag::STR);
                let num = self.f32c(0.0);
                let bits = self.b.ins().iconst(types::I64, *h as i64);
                Tagged { tag, num, bits }
            }
            Node::Read { scope, slot } => self.read_tagged(id, *scope, *slot),
            Node::Query { query, args } => self.query_with_arguments(*query, args),
            Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                let c = self.truth(*cond);
                let (then, otherwise) = (*then, *otherwise);
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
            Node::Assign {
                scope,
                slot,
                value,
                parents,
                copies,
            } => self.assign_tagged(*scope, *slot, *value, parents, copies),
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
            _ => unreachable!("rejected by `supports`"),
        }
    }

    /// The truth of `id`: NaN is true, only ±0 is false, and every non-number is true.
    pub(super) fn truth(&mut self, id: NodeId) -> CValue {
        if self.numeric(id) {
            let v = self.node(id);
            return self.truthy(v);
        }
        let v = self.value(id);
        self.truthy_tagged(v)
    }

    pub(super) fn truthy_tagged(&mut self, v: Tagged) -> CValue {
        // Non-numbers hold 0 as their number, so `num != 0` alone would call them false.
        let nz = self.truthy(v.num);
        let other = self
            .b
            .ins()
            .icmp_imm_s(IntCC::NotEqual, v.tag, tag::NUM as i64);
        self.b.ins().bor(nz, other)
    }

    /// `Value::equals`: numbers by f32 `==`, everything else by kind and payload.
    pub(super) fn equal_tagged(&mut self, l: Tagged, r: Tagged) -> CValue {
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
        let tb = self.b.create_block();
        let eb = self.b.create_block();
        let merge = self.b.create_block();
        self.b.append_block_param(merge, types::I32);
        self.b.append_block_param(merge, types::F32);
        self.b.append_block_param(merge, types::I64);
        self.b.ins().brif(cond, tb, &[], eb, &[]);
        self.b.seal_block(tb);
        self.b.seal_block(eb);
        let mark = self.region();
        self.b.switch_to_block(tb);
        let tv = then(self);
        self.forget_since(mark);
        self.b
            .ins()
            .jump(merge, &[tv.tag.into(), tv.num.into(), tv.bits.into()]);
        self.b.switch_to_block(eb);
        let ev = otherwise(self);
        self.forget_since(mark);
        self.b
            .ins()
            .jump(merge, &[ev.tag.into(), ev.num.into(), ev.bits.into()]);
        self.b.switch_to_block(merge);
        self.b.seal_block(merge);
        let p = self.b.block_params(merge);
        Tagged {
            tag: p[0],
            num: p[1],
            bits: p[2],
        }
    }

    /// The payload array of `scope`, loaded where it is used (few programs need it).
    fn bits_base(&mut self, scope: Scope) -> CValue {
        let off = match scope {
            Scope::Variable => offset_of!(Frame, vars_bits),
            Scope::Temp => offset_of!(Frame, temps_bits),
            Scope::Context => offset_of!(Frame, ctx_bits),
        };
        self.b.ins().load(
            self.ptr,
            MemFlagsData::trusted().with_readonly(),
            self.frame,
            off as i32,
        )
    }

    /// A read with its kind; ends the run when the slot is unset, as [`read`](Self::read).
    fn read_tagged(&mut self, id: NodeId, scope: Scope, slot: Slot) -> Tagged {
        let tag = self.load_flag(scope, slot);
        if !self.is_known(scope, slot) {
            self.abort_when(tag, false, id, STATUS_UNSET);
            self.mark_known(scope, slot);
        }
        self.load_tagged(scope, slot, tag)
    }

    /// The number and payload of a slot whose tag is `tag`.
    pub(super) fn load_tagged(&mut self, scope: Scope, slot: Slot, tag: CValue) -> Tagged {
        let num = self.load_value(scope, slot);
        let base = self.bits_base(scope);
        let bits = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            base,
            slot.index() as i32 * 8,
        );
        Tagged { tag, num, bits }
    }

    /// Stores a value of any kind.
    pub(super) fn store_tagged(&mut self, scope: Scope, slot: Slot, v: Tagged) {
        self.store(scope, slot, v.num);
        let (_, set) = self.arrays(scope);
        let t8 = self.b.ins().ireduce(types::I8, v.tag);
        self.b
            .ins()
            .store(MemFlagsData::trusted(), t8, set, slot.index() as i32);
        let base = self.bits_base(scope);
        self.b.ins().store(
            MemFlagsData::trusted(),
            v.bits,
            base,
            slot.index() as i32 * 8,
        );
    }

    /// A query with arguments: each argument with its kind goes to a stack slot, the host
    /// answers through [`jit_query`] into another.
    pub(super) fn query_with_arguments(&mut self, query: Slot, args: &[NodeId]) -> Tagged {
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
            self.b
                .ins()
                .stack_store(self.ptr, v.tag, args_slot, at + t_off);
            self.b
                .ins()
                .stack_store(self.ptr, v.num, args_slot, at + n_off);
            self.b
                .ins()
                .stack_store(self.ptr, v.bits, args_slot, at + b_off);
        }
        let addr = self.b.ins().stack_addr(self.ptr, args_slot, 0);
        let out = self.b.ins().stack_addr(self.ptr, out_slot, 0);
        let q = self.b.ins().iconst(types::I32, query.index() as i64);
        let n = self.b.ins().iconst(types::I32, vals.len() as i64);
        let params = [self.ptr, types::I32, self.ptr, types::I32, self.ptr];
        self.call_extern_void(
            jit_query as *const (),
            &params,
            &[self.frame, q, addr, n, out],
        );
        let p = self.ptr;
        Tagged {
            tag: self.b.ins().stack_load(p, types::I32, out_slot, t_off),
            num: self.b.ins().stack_load(p, types::F32, out_slot, n_off),
            bits: self.b.ins().stack_load(p, types::I64, out_slot, b_off),
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
        } => numeric(*then) && otherwise.is_none_or(|o| numeric(o)),
        Node::Block {
            stmts,
            simple: true,
        } => stmts.last().is_none_or(|&s| numeric(s)),
        Node::Assign { value, .. } => numeric(*value),
        Node::Discard(e) => numeric(*e),
        Node::Coalesce { lhs, rhs, .. } => numeric(*lhs) && numeric(*rhs),
        _ => true,
    }
}
