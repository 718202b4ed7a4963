//! Molang checker, diagnostics, reference interpreter, JIT, pack loader and entity runtime.
//! The `molang` command and the language server are front ends in the `molang-cli` package
//! (`molang/cli/`); this library has none of their dependencies.
//!
//! Pipeline: source → tokens → AST (`grammar` crate) → checked IR ([`check()`]) →
//! interpreter ([`interp`]) or JIT ([`jit`]). The checker is the only code that reads
//! names; the interpreter never sees an AST. Only [`pack`] and the front ends touch files;
//! no library module prints or returns an exit code; what stops an operation is an
//! [`Error`] with an [`ErrorKind`]. Only [`jit`] may use `unsafe`: every
//! other module forbids it.
//!
//! Three entry points cover what an embedding program needs; everything else is reached
//! through them.
//!
//! **One expression**: compile and evaluate ([`compile`], [`Expression`]).
//!
//! ```
//! use molang::{compile, Expression};
//! let expr = compile("math.clamp(q.anger_level / 80 * 1.5, 0, 1.5)", &Default::default()).unwrap();
//! assert_eq!(expr.eval_with(&[("query.anger_level", 40.0)]).value.as_num(), 0.75);
//! ```
//!
//! **Packs**: load layered packs into one model ([`load_packs`] for folders, lowest layer
//! first; [`load_sources`] for files in memory) and check every Molang string and reference
//! in them ([`check_pack`]), as `molang check` does.
//!
//! ```
//! use molang::{check_pack, load_sources, Severity};
//! let pack = load_sources(vec![(
//!     "rp/animations/a.animation.json".into(),
//!     r#"{"format_version": "1.8.0", "animations": {"animation.t.a": {"loop": true,
//!         "bones": {"b": {"rotation": ["math.sin(q.anim_time * 90", 0, 0]}}}}}"#.into(),
//! )]);
//! let (diagnostics, summary) = check_pack(&pack);
//! assert_eq!(summary.errors, 1);
//! let d = &diagnostics[0];
//! assert_eq!((d.diagnostic.severity, d.line), (Severity::Error, 2));
//! ```
//!
//! **Entities**: play one over a timeline of inputs as an iterator of poses ([`Player`]; see
//! [`runtime::player`] for an example, and `examples/play_entity.rs`).

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
pub mod fold;
#[forbid(unsafe_code)]
pub mod format;
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
pub mod pack;
#[forbid(unsafe_code)]
pub mod pack_check;
#[forbid(unsafe_code)]
pub mod picture;
#[forbid(unsafe_code)]
pub mod query_table;
#[forbid(unsafe_code)]
pub mod report;
#[forbid(unsafe_code)]
pub mod runtime;
#[forbid(unsafe_code)]
pub mod test_runner;
#[forbid(unsafe_code)]
pub mod text;

pub use check::{check, CheckOptions, Checked};
pub use diagnostics::{Code, Diagnostic, Severity};
pub use error::{Error, ErrorKind};
pub use expression::{compile, Backend, Cache, CompileError, EvalResult, Expression, Tiered};
pub use interp::{EvalOptions, Host, Platform, Value};
pub use pack::{load as load_packs, load_sources, Pack};
pub use pack_check::{check_pack, PackDiagnostic, Summary};
pub use runtime::inputs::{parse as parse_timeline, Timeline};
pub use runtime::{Frame, PlayOptions, Player, Pose};
