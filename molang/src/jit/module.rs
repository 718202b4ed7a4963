//! Module and memory: Cranelift settings, one module per program, the finalized function
//! pointer, and freeing the machine code when the [`JitProgram`] drops.

use std::cell::RefCell;
use std::sync::OnceLock;

use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
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
    /// What the code touches: a program without slots or host calls gets a leaner entry.
    pub(super) needs: lower::Needs,
    /// The constants the code reads through [`Frame::consts`](super::abi::Frame).
    pub(super) consts: Box<[u32]>,
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

/// The host's target with our flags, built once per process (it is immutable and `Sync`).
/// Building it per program was a small part of a compile (profiled on the Doggoyle rig); almost all of a compile is Cranelift's own passes.
fn isa() -> Result<OwnedTargetIsa, JitError> {
    static ISA: OnceLock<Result<OwnedTargetIsa, String>> = OnceLock::new();
    let build = || -> Result<OwnedTargetIsa, String> {
        let mut flags = settings::builder();
        let e = |e: settings::SetError| e.to_string();
        // `speed` and the backtracking register allocator (the default): `none` and
        // `single_pass` were measured on the Doggoyle rig (383.6 M instructions for the rig with these settings):
        // neither brings the rig's compile near a frame, and both make every frame slower;
        // the rig's first frames run interpreted while it compiles instead
        // (`EntityScripts::enable_jit_in_background`).
        flags.set("opt_level", "speed").map_err(e)?;
        flags.set("use_colocated_libcalls", "false").map_err(e)?;
        flags.set("is_pic", "false").map_err(e)?;
        // The checker's invariants make the IR we emit well formed; the verifier costs ~11% of
        // compile time (profiled), and the differential tests catch a malformed function.
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        flags.set("enable_verifier", verify).map_err(e)?;
        let isa_builder = cranelift_native::builder().map_err(|e| e.to_string())?;
        isa_builder
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())
    };
    ISA.get_or_init(build).clone().map_err(JitError::Codegen)
}

struct Scratch {
    ctx: Context,
    fctx: FunctionBuilderContext,
    /// Set while a translation runs: still set on entry means the last one unwound half-way
    /// and left the builder context dirty.
    translating: bool,
}

thread_local! {
    /// Cranelift's per-function scratch (the IR, the compiled-code buffers, the builder's
    /// SSA maps), reused by every compile on this thread: clearing keeps their allocations.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch {
        ctx: Context::new(),
        fctx: FunctionBuilderContext::new(),
        translating: false,
    });
}

/// Compiles `program` (checked against `names`) to native code.
pub fn compile(
    program: &Program,
    names: &Names,
    options: &EvalOptions,
) -> Result<JitProgram, JitError> {
    SCRATCH.with_borrow_mut(|s| compile_with(program, names, options, s))
}

fn compile_with(
    program: &Program,
    names: &Names,
    options: &EvalOptions,
    scratch: &mut Scratch,
) -> Result<JitProgram, JitError> {
    // One module per program: each program owns (and frees) its own machine code.
    let mut module = JITModule::new(JITBuilder::with_isa(isa()?, default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let call_conv = module.target_config().default_call_conv;
    let frontend_config = module.target_config();

    if scratch.translating {
        scratch.fctx = FunctionBuilderContext::new();
    }
    let Scratch {
        ctx,
        fctx,
        translating,
    } = scratch;
    module.clear_context(ctx);
    *translating = true;
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let (needs, consts) = lower::translate(
        FunctionBuilder::new(&mut ctx.func, fctx),
        program,
        options,
        ptr,
        call_conv,
        frontend_config,
    );
    // `translate` finalizes the builder, which clears its context for the next function.
    *translating = false;
    let id = module
        .declare_function("molang_program", Linkage::Local, &ctx.func.signature)
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    module
        .define_function(id, ctx)
        .map_err(|e| JitError::Codegen(format!("{e:?}")))?;
    module.clear_context(ctx);
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
        needs,
        consts: consts.into_boxed_slice(),
    })
}
