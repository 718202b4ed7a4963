//! Molang checker, diagnostics and reference interpreter; the `molang` CLI lives in
//! `src/bin/molang.rs`.
//!
//! Pipeline: source → tokens → AST (`grammar` crate) → checked IR ([`check()`]) →
//! interpreter ([`interp`]). The checker is the only code that reads names; the
//! interpreter never sees an AST. Only [`pack`] and the binary touch files.
//!
//! ```
//! use molang::{compile, Expression};
//! let expr = compile("math.clamp(q.anger_level / 80 * 1.5, 0, 1.5)", &Default::default()).unwrap();
//! assert_eq!(expr.eval_with(&[("query.anger_level", 40.0)]).value.as_num(), 0.75);
//! ```

pub mod builtins;
pub mod check;
pub mod diagnostics;
pub mod engine_vars;
pub mod entity;
pub mod expression;
pub mod fmt;
pub mod fuzz;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod lint;
pub mod lsp;
pub mod pack;
pub mod queries;
pub mod runtime;
pub mod testing;

pub use check::{check, CheckOptions, Checked};
pub use diagnostics::{Code, Diagnostic, Severity};
pub use expression::{compile, Backend, Cache, CompileError, EvalResult, Expression, Tiered};
pub use interp::{EvalOptions, Host, Value};
