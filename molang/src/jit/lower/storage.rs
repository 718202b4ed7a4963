//! Storage and queries: reads with the unset-read rule, assignments (struct copies and
//! parents), `??`, query values, and the memory helpers (SSA-cached slots, known-set facts).

use cranelift_codegen::ir::{types, InstBuilder, Value as CValue};
use cranelift_frontend::Variable;

use super::{MemoKey, Translator};
use crate::ir::{Node, NodeId, Scope, Slot};

use super::super::abi::{jit_query, STATUS_UNSET};

impl Translator<'_> {
    pub(super) fn query(&mut self, query: Slot, args: &[NodeId]) -> CValue {
        if !args.is_empty() {
            return self.query_with_arguments(query, args);
        }
        {
            let key = MemoKey::Query(query);
            if let Some(&v) = self.memo.get(&key) {
                return v;
            }
            let base = self.bases.queries;
            let v = self
                .b
                .ins()
                .load(types::F32, Self::flags(), base, query.index() as i32 * 4);
            self.memo.insert(key.clone(), v);
            self.memo_log.push(key);
            v
        }
    }

    /// Arguments go to a stack slot; the host callback reads them from there.
    pub(super) fn query_with_arguments(&mut self, query: Slot, args: &[NodeId]) -> CValue {
        let vals: Vec<CValue> = args.iter().map(|&a| self.node(a)).collect();
        let slot = self
            .b
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

    pub(super) fn read(&mut self, id: NodeId, scope: Scope, slot: Slot) -> CValue {
        if !self.is_known(scope, slot) {
            let flag = self.load_flag(scope, slot);
            self.abort_when(flag, false, id, STATUS_UNSET);
            self.mark_known(scope, slot);
        }
        self.load_value(scope, slot)
    }

    /// `lhs ?? rhs`: `rhs` when the slot `lhs` reads is unset.
    pub(super) fn coalesce(
        &mut self,
        scope: Scope,
        slot: Slot,
        lhs: NodeId,
        rhs: NodeId,
    ) -> CValue {
        let flag = self.load_flag(scope, slot);
        self.branch(flag, |t| t.node(lhs), |t| t.node(rhs))
    }

    pub(super) fn assign(
        &mut self,
        scope: Scope,
        slot: Slot,
        value: NodeId,
        parents: &[Slot],
        copies: &[(Slot, Slot)],
    ) -> CValue {
        let v = self.node(value);
        for &(s, d) in copies.iter() {
            let flag = self.load_flag(scope, s);
            let yes = self.b.create_block();
            let done = self.b.create_block();
            self.b.ins().brif(flag, yes, &[], done, &[]);
            self.b.seal_block(yes);
            self.b.switch_to_block(yes);
            let m = self.load_value(scope, s);
            self.store(scope, d, m);
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
            self.b.seal_block(done);
        }
        self.store(scope, slot, v);
        self.mark_known(scope, slot);
        for &p in parents.iter() {
            let flag = self.load_flag(scope, p);
            let unset = self.b.create_block();
            let done = self.b.create_block();
            self.b.ins().brif(flag, done, &[], unset, &[]);
            self.b.seal_block(unset);
            self.b.switch_to_block(unset);
            let z = self.f32c(0.0);
            self.store(scope, p, z);
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
            self.b.seal_block(done);
        }
        v
    }

    pub(super) fn arrays(&self, scope: Scope) -> (CValue, CValue) {
        match scope {
            Scope::Variable => (self.bases.vars, self.bases.vars_set),
            Scope::Temp => (self.bases.temps, self.bases.temps_set),
            Scope::Context => (self.bases.ctx, self.bases.ctx_set),
        }
    }

    pub(super) fn load_flag(&mut self, scope: Scope, slot: Slot) -> CValue {
        let (_, set) = self.arrays(scope);
        // Offsets fit in i32: slots index name tables far smaller than 2^29 entries.
        self.b
            .ins()
            .uload8(types::I32, Self::flags(), set, slot.index() as i32)
    }

    pub(super) fn ssa_var(&self, scope: Scope, slot: Slot) -> Option<Variable> {
        self.ssa[scope as usize]
            .get(slot.index())
            .copied()
            .flatten()
    }

    /// Declares an SSA variable for every variable and temp slot the program reads,
    /// defined at entry by one load from storage.
    pub(super) fn declare_ssa_slots(&mut self) {
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

    pub(super) fn load_value(&mut self, scope: Scope, slot: Slot) -> CValue {
        if let Some(var) = self.ssa_var(scope, slot) {
            return self.b.use_var(var);
        }
        let (vals, _) = self.arrays(scope);
        self.b
            .ins()
            .load(types::F32, Self::flags(), vals, slot.index() as i32 * 4)
    }

    pub(super) fn store(&mut self, scope: Scope, slot: Slot, v: CValue) {
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

    pub(super) fn is_known(&self, scope: Scope, slot: Slot) -> bool {
        let k = &self.known[scope as usize];
        k.get(slot.index()).copied().unwrap_or(false)
    }

    /// Marks a slot as set from here on in the current region.
    pub(super) fn mark_known(&mut self, scope: Scope, slot: Slot) {
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
}
