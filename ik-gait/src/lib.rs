//! The Doggoyle: a procedural dog gait rig written in Molang (spec `shared/rig/rig-spec.md`).
//!
//! * [`params`]: `RigParams` (model §2, parameters §6) and the rest-pose bisections (§8).
//! * [`reference`](mod@reference): the Rust reference `step` (§7), generic over [`math::Real`]: `f32` (bit-identical
//!   to the Molang) and `f64` (the §13 f64 runs of checks 1–12).
//! * [`generate`]: the same maths written as Molang `initialize` / `pre_animation` entries.
//! * [`runner`]: runs the generated scripts through `molang::entity` (interpreter or JIT).
//! * `fk` (in [`model`]), [`scenarios`], [`checks`]: forward kinematics, the §10 scenarios and checks.
//! * [`params_file`], [`presets`]: `RigParams` from a JSON file, and the hound, terrier and
//!   mastiff presets.
//! * [`plot`]: SVG charts of one scenario run (`doggoyle plot`).
//! * [`tables`]: README's measured tables as the checks compute them (`doggoyle table`).
//! * [`emit`], [`pack_test`], [`trace`]: the emitted packs and their `molang test` suite as
//!   (relative path, bytes) lists, and the per-frame CSV trace into a caller's writer.
//! * [`Error`]: the library's one error type; [`Error::kind`] says what went wrong.
//!
//! Invariants, as absences: no module of this library touches the file system (no
//! `std::fs`, no `File`, no output folder is created here), prints, or returns an exit code.
//! The library computes (text, bytes, in-memory file lists) and the `doggoyle` front end
//! (`src/bin/doggoyle/`) reads the files the user names, writes where the user asked and
//! keeps the no-overwrite rules. No `unsafe` either (below).

// The rig is plain arithmetic; only molang's JIT needs `unsafe`.
#![forbid(unsafe_code)]

mod error;

pub mod generate;
pub mod math;
pub mod params;
pub mod params_file;
pub mod presets;
pub mod reference;

pub use error::{Error, ErrorKind};
pub use math::Real;
pub use params::{RigParams, LEG_NAMES};
pub use reference::{step, Inputs, Outputs, OutputsT, RigState, RigStateT};
pub mod bench;
pub mod checks;
pub mod emit;
pub mod inputs_file;
pub mod model;
pub mod pack_test;
pub mod plot;
pub mod plot_top;
pub mod runner;
pub mod scenarios;
pub mod tables;
pub mod trace;
