//! Module and memory: Cranelift settings, one module per program, the finalized function
//! pointer, and freeing the machine code when the [`JitProgram`] drops.

use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use super::abi::Frame;
use super::lower;
use crate::interp::EvalOptions;
use crate::ir::{Names, Program};

/// Why a program was not compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JitError {
    /// The program uses something the JIT leaves to the interpreter. No construct does
    /// today (ARCHITECTURE.md keeps the list); callers still handle it, per expression.
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

/// A compiled program. Dropping it frees its machine code.
///
/// `Send` and `Sync`: one compiled program serves every instance of an entity type, on any
/// thread (`Arc<JitProgram>`); each call gets its own [`Frame`] and storage.
pub struct JitProgram {
    module: Option<CodeOwner>,
    pub(super) func: extern "C" fn(*mut Frame) -> u32,
    pub(super) temps: usize,
    pub(super) vars: usize,
    pub(super) ctx: usize,
    pub(super) queries: usize,
}

/// The module that owns the machine code, kept only to free it when the program drops.
struct CodeOwner(JITModule);

// SAFETY: `JITModule` is `Send` but not `Sync` (its symbol cache is a `RefCell`, filled while
// functions are defined and finalized). A `CodeOwner` is made after `finalize_definitions`,
// and no method of the module is ever called through a shared reference after that: the
// only use left is `free_memory` in `JitProgram::drop`, which owns it. So sharing
// `&CodeOwner` between threads shares nothing that is touched. The machine code itself is
// reentrant: it keeps no state of its own (everything it writes goes through the `Frame`
// pointer of the call, into that call's storage) and only reads its constants, so any number
// of threads may run `func` at once, each with its own frame.
unsafe impl Sync for CodeOwner {}

impl Drop for JitProgram {
    fn drop(&mut self) {
        if let Some(CodeOwner(m)) = self.module.take() {
            // SAFETY: `func` points into this module and is never called after drop (the
            // last `Arc` of a shared program is gone, so no thread is running it).
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for JitProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitProgram").finish_non_exhaustive()
    }
}

/// Compiles `program` (checked against `names`) to native code.
pub fn compile(
    program: &Program,
    names: &Names,
    options: &EvalOptions,
) -> Result<JitProgram, JitError> {
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
    lower::translate(
        FunctionBuilder::new(&mut ctx.func, &mut fctx),
        program,
        options,
        ptr,
        call_conv,
        frontend_config,
    );
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
        module: Some(CodeOwner(module)),
        func,
        temps: names.temps.len(),
        vars: names.variables.len(),
        ctx: names.contexts.len(),
        queries: names.queries.len(),
    })
}
