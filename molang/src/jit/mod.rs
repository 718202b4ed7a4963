//! The Cranelift back end: one checked [`Program`] becomes one native function over a
//! [`Frame`] record. It must agree with the interpreter bit for bit (f32, NaN included);
//! the differential tests hold it to that.
//!
//! Every name is a slot resolved at check time, so a variable read is one load of a flag
//! byte and one load of an f32 at a fixed offset: no hashing, no map lookup. Math builtins
//! are calls to the very same `extern "C"` functions the interpreter uses
//! ([`crate::builtins::math::MathFn::native`]); random draws go through [`jit_random`].
//!
//! Programs that use values other than numbers (strings, resources, arrays, `->`,
//! `for_each`) are not compiled: [`compile`] says so with
//! [`JitError::Unsupported`] and the caller keeps the interpreter, visibly.
//!
//! # Safety invariants
//! The only `unsafe` code of the crate lives here (in `abi.rs` and `module.rs`):
//! - The generated code reads and writes `vars`, `temps`, `contexts` and `queries` at
//!   `slot * 4` (values) and `slot` (flags). [`JitProgram::run`] checks before every call that
//!   each array is at least as long as the name table the program was checked with, and the
//!   checker only emits slots from those tables.
//! - The function pointer is valid while the owning `JITModule` lives; [`JitProgram`] owns the
//!   module and frees its memory only in `Drop`, after which the pointer is never used.
//! - [`Frame`] is `#[repr(C)]` and the code uses `offset_of!` offsets, so layout cannot drift.
//! - Slot offsets are `i32` immediates (`slot * 4`): every slot is a name written in the
//!   source, and `grammar::MAX_SOURCE_LEN` (4 MiB) bounds the source, so no offset overflows.
//! - The frame, the [`RngRef`] and the [`QueryHostRef`] live on `call`'s stack for the whole
//!   native call; neither the generated code nor the callbacks keep a pointer past it. The
//!   storage arrays are borrowed `&mut` by `call`, so nothing else can touch them meanwhile;
//!   `ctx`, `ctx_set` and `queries` are only read.
//! - A query with arguments passes a pointer to a stack slot of exactly `n` f32s made at that
//!   call site; [`jit_query`] reads `n` of them. With no host it reads `queries[slot]`, in
//!   bounds by the first invariant.
//! - Callbacks are `extern "C"`: a panic in a host or builtin aborts the process instead of
//!   unwinding through generated frames.
//! - Every loop iteration passes the budget check (and `die_roll` spends one per roll), so
//!   a run ends after at most `budget` iterations whatever the program.
//!
//! `unsafe` appears nowhere else in the workspace (`grep -rn unsafe molang/src grammar/src`).
//!
//! Files by job: `module.rs` builds the Cranelift module and owns the machine code
//! ([`compile`], [`JitProgram`]); `lower/` turns IR nodes into Cranelift instructions (one
//! function per family of nodes); `abi.rs` is the calling convention: the [`Frame`] record,
//! the storage layout and the `extern "C"` callbacks into the host.

mod abi;
mod lower;
mod module;

pub use abi::{Frame, HostRef, JitOutcome, JitStorage, QueryArgs};
pub use module::{compile, supports, JitError, JitProgram};
