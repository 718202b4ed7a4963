//! Control flow: `?:`, blocks, `loop` and `for_each` with `break`/`continue` and the
//! iteration budget, `return`, and the exits (status, abort node) every family uses.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, Value as CValue};

use super::{LoopTarget, Tagged, Translator};
use crate::interp::value::tag;
use crate::ir::{ForEach, Node, NodeId};

use super::super::abi::{jit_list_pop, jit_list_push, Frame, STATUS_BUDGET, STATUS_OK};

impl Translator<'_> {
    pub(super) fn cond(&mut self, cond: NodeId, then: NodeId, otherwise: Option<NodeId>) -> CValue {
        let ct = self.truth(cond);
        if let Some(otherwise) = otherwise {
            if self.is_leaf(then) && self.is_leaf(otherwise) {
                // Both arms are ready values: a `select` (x86: one branch over a move)
                // instead of two blocks joined by a jump. Evaluating both cannot be seen.
                let a = self.node(then);
                let b = self.node(otherwise);
                return self.b.ins().select(ct, a, b);
            }
        }
        // An arm's value goes to the merge in a register: a constant one as its own
        // constant-pool load (`in_register`).
        self.branch(
            ct,
            |t| {
                let v = t.node(then);
                t.in_register(v)
            },
            |t| match otherwise {
                Some(o) => {
                    let v = t.node(o);
                    t.in_register(v)
                }
                None => t.f32c(0.0),
            },
        )
    }

    /// A constant, or a number slot known to be set here: a value with nothing to compute,
    /// whose evaluation can neither abort nor be seen.
    fn is_leaf(&self, id: NodeId) -> bool {
        match self.program.node(id) {
            Node::Const(_) => true,
            Node::Read { scope, slot } => {
                self.is_known(*scope, *slot) && self.is_known_num(*scope, *slot)
            }
            _ => false,
        }
    }

    pub(super) fn block(&mut self, stmts: &[NodeId], simple: bool) -> CValue {
        let mut last = None;
        for (i, &s) in stmts.iter().enumerate() {
            // Only the last statement of a simple block gives the block's value.
            let unused = !simple || i + 1 < stmts.len();
            if unused && self.conditional_store(s) {
                last = None;
                continue;
            }
            last = Some(self.node(s));
        }
        match (simple, last) {
            (true, Some(v)) => v,
            _ => self.f32c(0.0),
        }
    }

    pub(super) fn repeat(&mut self, id: NodeId, count: NodeId, body: NodeId) -> CValue {
        let n = self.node(count);
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
        self.counted_loop(id, count_i, |t| {
            t.node(body);
        });
        self.f32c(0.0)
    }

    /// `for_each(slot, list, body)`: the host's entities of the list (none when the value is
    /// not a list), one iteration each, the slot set to the entity before the body.
    pub(super) fn for_each(&mut self, id: NodeId, f: ForEach) -> CValue {
        let list = self.value(f.array);
        let params = [self.ptr, types::I32, types::F32, types::I64];
        let args = [self.frame, list.tag, list.num, list.bits];
        let len = self.call_extern(jit_list_push as *const (), &params, &args, types::I64);
        let data = self.field(offset_of!(Frame, list_data), self.ptr);
        self.counted_loop(id, len, |t| {
            let i = t.loops.last().expect("inside the loop").counter;
            let at = t.b.ins().imul_imm_s(i, 4);
            let at = t.b.ins().iadd(data, at);
            let e = t.b.ins().load(types::I32, Self::flags(), at, 0);
            let bits = t.b.ins().uextend(types::I64, e);
            let tag = t.b.ins().iconst(types::I32, tag::ENTITY as i64);
            let num = t.f32c(0.0);
            let is_num = false;
            t.store_tagged(
                f.scope,
                f.slot,
                Tagged {
                    tag,
                    num,
                    bits,
                    is_num,
                },
            );
            t.mark_known(f.scope, f.slot);
            t.forget_num(f.scope, f.slot);
            t.node(f.body);
        });
        self.call_extern_void(jit_list_pop as *const (), &[self.ptr], &[self.frame]);
        self.f32c(0.0)
    }

    /// Runs `body` `count` (an i64) times, each iteration first spending one of the budget,
    /// with `break` and `continue` targets for it; code after the loop starts at its exit.
    fn counted_loop(&mut self, id: NodeId, count: CValue, body: impl FnOnce(&mut Self)) {
        let header = self.b.create_block();
        let body_b = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        self.b.append_block_param(latch, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().jump(header, &[zero.into()]);
        self.b.switch_to_block(header);
        let i = self.b.block_params(header)[0];
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, count);
        self.b.ins().brif(more, body_b, &[], exit, &[]);
        self.b.seal_block(body_b);
        self.b.switch_to_block(body_b);
        self.spend(id);
        self.loops.push(LoopTarget {
            latch,
            exit,
            counter: i,
        });
        // A later iteration may see what the end of the body stored: no slot is known to
        // hold a number at its start.
        self.known_num.iter_mut().for_each(|k| k.fill(false));
        self.forget_fresh();
        // The body may run zero times: what it sets is not known after the loop.
        let mark = self.region();
        body(self);
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
    }

    /// `break` (`is_break`) or `continue`: a jump to the innermost loop's exit or latch.
    pub(super) fn jump_out(&mut self, is_break: bool) -> CValue {
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

    pub(super) fn ret(&mut self, v: NodeId) -> CValue {
        self.finish_node(v);
        self.dead_block();
        self.f32c(0.0)
    }

    /// Continues in a fresh block with no predecessors, after a jump or return, so the caller
    /// can keep emitting (that code is unreachable).
    pub(super) fn dead_block(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        self.b.seal_block(dead);
    }

    /// Stores `v` in the frame field at `offset` and returns `status` from the current block.
    pub(super) fn leave(&mut self, offset: usize, v: CValue, status: i64) {
        self.b
            .ins()
            .store(Self::flags(), v, self.frame, offset as i32);
        let s = self.b.ins().iconst(types::I32, status);
        self.b.ins().return_(&[s]);
    }

    /// Records `node` and returns `status` from the current block.
    pub(super) fn abort(&mut self, node: NodeId, status: i64) {
        let n = self.b.ins().iconst(types::I32, node.0 as i64);
        self.leave(offset_of!(Frame, abort_node), n, status);
    }

    pub(super) fn finish(&mut self, v: CValue) {
        self.leave(offset_of!(Frame, result), v, STATUS_OK);
    }

    /// `if cond { then() } else { otherwise() }` yielding an f32.
    pub(super) fn branch(
        &mut self,
        cond: CValue,
        then: impl FnOnce(&mut Self) -> CValue,
        otherwise: impl FnOnce(&mut Self) -> CValue,
    ) -> CValue {
        self.branch_of(types::F32, cond, then, otherwise)
    }

    /// `if cond { then() } else { otherwise() }` yielding one value of type `ty`.
    pub(super) fn branch_of(
        &mut self,
        ty: types::Type,
        cond: CValue,
        then: impl FnOnce(&mut Self) -> CValue,
        otherwise: impl FnOnce(&mut Self) -> CValue,
    ) -> CValue {
        let v = self.branch_values(cond, &[ty], |t| vec![then(t)], |t| vec![otherwise(t)]);
        v[0]
    }

    /// `if cond { then() } else { otherwise() }` yielding values of the types `tys`; what each
    /// arm learns is forgotten after it.
    pub(super) fn branch_values(
        &mut self,
        cond: CValue,
        tys: &[types::Type],
        then: impl FnOnce(&mut Self) -> Vec<CValue>,
        otherwise: impl FnOnce(&mut Self) -> Vec<CValue>,
    ) -> Vec<CValue> {
        let tb = self.b.create_block();
        let eb = self.b.create_block();
        let merge = self.b.create_block();
        for &ty in tys {
            self.b.append_block_param(merge, ty);
        }
        self.b.ins().brif(cond, tb, &[], eb, &[]);
        self.b.seal_block(tb);
        self.b.seal_block(eb);
        let mark = self.region();
        let end_arm = |t: &mut Self, vals: Vec<CValue>| {
            t.forget_since(mark);
            let args: Vec<BlockArg> = vals.into_iter().map(BlockArg::from).collect();
            t.b.ins().jump(merge, &args);
        };
        self.b.switch_to_block(tb);
        let vals = then(self);
        end_arm(self, vals);
        self.b.switch_to_block(eb);
        let vals = otherwise(self);
        end_arm(self, vals);
        self.b.switch_to_block(merge);
        self.b.seal_block(merge);
        self.b.block_params(merge).to_vec()
    }

    /// Budget check at a loop back-edge: one iteration spent.
    pub(super) fn spend(&mut self, node: NodeId) {
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
    pub(super) fn check_budget(&mut self, node: NodeId, iterations: CValue) {
        let budget = self.field(offset_of!(Frame, budget), types::I64);
        let over = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThan, iterations, budget);
        self.abort_when(over, true, node, STATUS_BUDGET);
    }

    /// Jumps to `taken` when `cond` (a non-zero test) equals `when`, else to `other`.
    pub(super) fn jump_when(&mut self, cond: CValue, when: bool, taken: Block, other: Block) {
        if when {
            self.b.ins().brif(cond, taken, &[], other, &[]);
        } else {
            self.b.ins().brif(cond, other, &[], taken, &[]);
        }
    }

    /// Ends the run with `status` at `node` when `cond` (a non-zero test) equals `when`;
    /// otherwise carries on. Branching on the raw value avoids a compare.
    pub(super) fn abort_when(&mut self, cond: CValue, when: bool, node: NodeId, status: i64) {
        let bad = self.b.create_block();
        let ok = self.b.create_block();
        self.jump_when(cond, when, bad, ok);
        self.b.seal_block(bad);
        self.b.seal_block(ok);
        self.b.switch_to_block(bad);
        self.abort(node, status);
        self.b.switch_to_block(ok);
    }
}
