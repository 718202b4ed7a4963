//! The execution seam: a checked program and the code that runs it, behind one `run`
//! whatever the back end. Both back ends read and write the same [`Storage`] and ask the same
//! [`Host`], so an entity can run each expression natively or interpreted, expression by
//! expression, and a caller never branches on which.

use std::sync::{Arc, OnceLock};

use super::{EvalOptions, Host, Outcome, Storage};
use crate::ir::{Names, Program};
use crate::jit::{self, JitError, JitProgram};

/// Which back end runs a program (the one back-end enum of the library).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The reference interpreter (the executable specification).
    Interp,
    Jit,
}

/// Native code being compiled on another thread: empty until the compile ends, then its
/// result. Every clone of the [`Executable`] sees the same slot.
pub type PendingNative = Arc<OnceLock<Result<Arc<JitProgram>, JitError>>>;

/// A program ready to run: interpreted, or compiled to native code.
#[derive(Clone, Debug)]
pub struct Executable {
    /// Shared, so that a compile on another thread takes it without a copy.
    program: Arc<Program>,
    native: Option<Arc<JitProgram>>,
    /// Why the JIT left it to the interpreter, once compiling was tried.
    fallback: Option<JitError>,
    /// Code compiled off the caller's thread ([`Executable::compile_later`]): the interpreter
    /// runs the program until the slot is filled, native code from the next run on. Both
    /// back ends agree bit for bit on the same storage, so the switch between two runs
    /// changes no result.
    pending: Option<PendingNative>,
}

impl Executable {
    /// Interpreted until [`Executable::compile`] succeeds.
    pub fn new(program: Program) -> Executable {
        Executable {
            program: Arc::new(program),
            native: None,
            fallback: None,
            pending: None,
        }
    }

    /// An empty slot for native code another thread will compile (with
    /// [`compile_pending`]); until it is filled, runs are interpreted.
    /// Returns the program to compile with it.
    pub fn compile_later(&mut self) -> (Arc<Program>, PendingNative) {
        let slot = PendingNative::default();
        self.native = None;
        self.fallback = None;
        self.pending = Some(slot.clone());
        (self.program.clone(), slot)
    }

    /// The native code to run now: compiled here, or compiled elsewhere and ready.
    fn ready(&self) -> Option<&Arc<JitProgram>> {
        self.native
            .as_ref()
            .or_else(|| self.pending.as_ref()?.get()?.as_ref().ok())
    }

    /// Compiles to native code (checked against `names`); on `Err` the interpreter keeps
    /// running it and [`Executable::fallback`] says why.
    // Native code is shared by every instance of the entity type, on any thread
    // (`JitProgram` is Send + Sync, see jit/module.rs).
    pub fn compile(&mut self, names: &Names, options: &EvalOptions) -> Result<(), JitError> {
        match jit::compile(&self.program, names, options) {
            Ok(n) => {
                self.native = Some(Arc::new(n));
                self.fallback = None;
                self.pending = None;
                Ok(())
            }
            Err(e) => {
                self.native = None;
                self.fallback = Some(e.clone());
                self.pending = None;
                Err(e)
            }
        }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The back end the next run takes (the interpreter while a compile elsewhere runs).
    pub fn backend(&self) -> Backend {
        match self.ready() {
            Some(_) => Backend::Jit,
            None => Backend::Interp,
        }
    }

    /// Why the JIT left this program to the interpreter, if it did.
    pub fn fallback(&self) -> Option<&JitError> {
        self.fallback
            .as_ref()
            .or_else(|| self.pending.as_ref()?.get()?.as_ref().err())
    }

    /// Whether a compile on another thread is still running.
    pub fn is_pending(&self) -> bool {
        self.pending.as_ref().is_some_and(|p| p.get().is_none())
    }

    /// Runs once on `storage` with the temps it has. Queries without arguments read `queries`
    /// on native code and `host` on the interpreter: callers keep the two equal (see
    /// [`crate::entity::EntityInstance`]).
    pub fn run(
        &self,
        storage: &mut Storage,
        queries: &[f32],
        host: &mut dyn Host,
        options: &EvalOptions,
    ) -> Outcome {
        match self.ready() {
            Some(n) => n.run_in(
                &self.program,
                storage,
                queries,
                host,
                options.iteration_budget,
            ),
            None => super::run_keep_temps(&self.program, storage, host, options),
        }
    }
}

/// Compiles `program` (checked against `names`) into the slot an [`Executable::compile_later`]
/// made: what the thread that compiles runs.
pub fn compile_pending(
    program: &Program,
    names: &Names,
    options: &EvalOptions,
    slot: &PendingNative,
) {
    let _ = slot.set(jit::compile(program, names, options).map(Arc::new));
}
