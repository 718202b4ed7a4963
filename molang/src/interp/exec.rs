//! The execution seam: a checked program and the code that runs it, behind one `run`
//! whatever the back end. Both back ends read and write the same [`Storage`] and ask the same
//! [`Host`], so an entity can run each expression natively or interpreted, expression by
//! expression, and a caller never branches on which.

use std::sync::Arc;

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

/// A program ready to run: interpreted, or compiled to native code.
#[derive(Clone, Debug)]
pub struct Executable {
    program: Program,
    native: Option<Arc<JitProgram>>,
    /// Why the JIT left it to the interpreter, once compiling was tried.
    fallback: Option<JitError>,
}

impl Executable {
    /// Interpreted until [`Executable::compile`] succeeds.
    pub fn new(program: Program) -> Executable {
        Executable {
            program,
            native: None,
            fallback: None,
        }
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
                Ok(())
            }
            Err(e) => {
                self.native = None;
                self.fallback = Some(e.clone());
                Err(e)
            }
        }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    pub fn backend(&self) -> Backend {
        match self.native {
            Some(_) => Backend::Jit,
            None => Backend::Interp,
        }
    }

    /// Why the JIT left this program to the interpreter, if it did.
    pub fn fallback(&self) -> Option<&JitError> {
        self.fallback.as_ref()
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
        match &self.native {
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
