//! Molang checker, diagnostics, reference interpreter, JIT, pack loader and entity runtime.
//! The `molang` command is a front end in `src/bin/molang/` (one file per subcommand).
//!
//! Pipeline: source → tokens → AST (`grammar` crate) → checked IR ([`check()`]) →
//! interpreter ([`interp`]) or JIT ([`jit`]). The checker is the only code that reads
//! names; the interpreter never sees an AST. Only [`pack`] and the front ends touch files;
//! no library module prints or returns an exit code; what stops an operation is an
//! [`Error`] with an [`ErrorKind`]. Only [`jit`] may use `unsafe`: every
//! other module forbids it.
//!
//! ```
//! use molang::{compile, Expression};
//! let expr = compile("math.clamp(q.anger_level / 80 * 1.5, 0, 1.5)", &Default::default()).unwrap();
//! assert_eq!(expr.eval_with(&[("query.anger_level", 40.0)]).value.as_num(), 0.75);
//! ```

#[forbid(unsafe_code)]
pub mod bbmodel;
#[forbid(unsafe_code)]
pub mod builtins;
#[forbid(unsafe_code)]
pub mod check;
#[forbid(unsafe_code)]
pub mod config;
#[forbid(unsafe_code)]
pub mod diagnostics;
#[forbid(unsafe_code)]
pub mod engine_vars;
#[forbid(unsafe_code)]
pub mod entity;
#[forbid(unsafe_code)]
pub mod error;
#[forbid(unsafe_code)]
pub mod expression;
#[forbid(unsafe_code)]
pub mod fmt;
#[forbid(unsafe_code)]
pub mod fuzz;
#[forbid(unsafe_code)]
pub mod interp;
#[forbid(unsafe_code)]
pub mod ir;
// Native code through Cranelift: the one module allowed `unsafe` (calling the compiled
// function), with its invariants at the top of the module.
pub mod jit;
#[forbid(unsafe_code)]
pub mod lint;
#[forbid(unsafe_code)]
pub mod lsp;
#[forbid(unsafe_code)]
pub mod pack;
#[forbid(unsafe_code)]
pub mod queries;
#[forbid(unsafe_code)]
pub mod report;
#[forbid(unsafe_code)]
pub mod runtime;
#[forbid(unsafe_code)]
pub mod testing;
#[forbid(unsafe_code)]
pub mod text;

pub use check::{check, CheckOptions, Checked};
pub use diagnostics::{Code, Diagnostic, Severity};
pub use error::{Error, ErrorKind};
pub use expression::{compile, Backend, Cache, CompileError, EvalResult, Expression, Tiered};
pub use interp::{EvalOptions, Host, Platform, Value};
