//! Calls from generated code into Rust: the indirect-call signature, pure builtins by
//! address, random draws through [`jit_random`](super::super::abi::jit_random).

use std::mem::offset_of;

use cranelift_codegen::ir::{types, AbiParam, Inst, InstBuilder, Signature, Value as CValue};

use super::Translator;
use crate::builtins::math::{MathFn, NativeFn};
use crate::builtins::platform::Platform;
use crate::ir::NodeId;

use super::super::abi::{jit_random, Frame};

impl Translator<'_> {
    /// An indirect call to a Rust `extern "C"` function returning one value of type `ret`.
    pub(super) fn call_extern(
        &mut self,
        addr: *const (),
        params: &[types::Type],
        args: &[CValue],
        ret: types::Type,
    ) -> CValue {
        let call = self.emit_call(addr, params, args, Some(ret));
        self.b.inst_results(call)[0]
    }

    /// An indirect call to a Rust `extern "C"` function returning nothing.
    pub(super) fn call_extern_void(
        &mut self,
        addr: *const (),
        params: &[types::Type],
        args: &[CValue],
    ) {
        self.emit_call(addr, params, args, None);
    }

    fn emit_call(
        &mut self,
        addr: *const (),
        params: &[types::Type],
        args: &[CValue],
        ret: Option<types::Type>,
    ) -> Inst {
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let sigref = self.b.import_signature(sig);
        let callee = self.b.ins().iconst(self.ptr, addr as i64);
        // SSA slot values read after this point are loaded again (`SlotState::epoch`).
        self.calls += 1;
        // Every callback that reaches the host takes the frame first; pure builtins take
        // numbers only.
        if args.first() == Some(&self.frame) {
            self.uses_host = true;
        }
        self.b.ins().call_indirect(sigref, callee, args)
    }

    pub(super) fn call_native(&mut self, f: NativeFn, args: &[CValue]) -> CValue {
        let params = vec![types::F32; f.arity()];
        self.call_extern(f.addr().cast(), &params, args, types::F32)
    }

    pub(super) fn call_random(&mut self, id: NodeId, f: MathFn, args: &[CValue]) -> CValue {
        let index = MathFn::ALL
            .iter()
            .position(|g| *g == f)
            .expect("builtin in table");
        // Bit 8 asks for the arm64 rules ([`jit_random`] decodes it).
        let arm = u32::from(self.options.platform == Platform::Arm64) << 8;
        let fi = self
            .b
            .ins()
            .iconst(types::I32, i64::from(index as u32 | arm));
        let mut all = vec![self.frame, fi];
        for i in 0..3 {
            all.push(match args.get(i) {
                Some(v) => *v,
                None => self.f32c(0.0),
            });
        }
        let params = [self.ptr, types::I32, types::F32, types::F32, types::F32];
        let v = self.call_extern(jit_random as *const (), &params, &all, types::F32);
        if f.budget_cost(0.0).is_some() {
            // A die roll spends one iteration per roll; past the budget the run ends.
            let it = self.field(offset_of!(Frame, iterations), types::I64);
            self.check_budget(id, it);
        }
        v
    }
}
