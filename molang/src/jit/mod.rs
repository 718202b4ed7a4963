//! The Cranelift back end: one checked [`Program`](crate::ir::Program) becomes one native function over a
//! [`Frame`] record. It must agree with the interpreter bit for bit (f32, NaN included);
//! the differential tests hold it to that.
//!
//! Every name is a slot resolved at check time, so a variable read is one load of a tag
//! byte and one load of an f32 at a fixed offset: no hashing, no map lookup. Math builtins
//! are calls to the very same `extern "C"` functions the interpreter uses
//! ([`crate::builtins::math::MathFn::native`]) unless their table row gives an inline
//! lowering; random draws, queries with arguments, `->`, the entity lists of `for_each`,
//! array sizes and `query.count` of lists call back into the interpreter's
//! [`crate::interp::Host`].
//!
//! The JIT compiles all of Molang: strings (the game's 64-bit hashes; `lower/values.rs` has
//! the rule), resources, arrays and `array.name[i]`, `->` and `for_each`. One contract
//! differs from the interpreter's host use: a query without arguments is a number read from
//! the `queries` array (the entity runtime keeps plain queries numeric), where the
//! interpreter asks the host each time; callers keep the two equal. [`JitError::Unsupported`]
//! stays for whatever a later construct leaves to the interpreter, per expression.
//!
//! Operand order is kept as the interpreter evaluates: with two NaN operands, `+ - * /` give
//! the left operand's payload, quieted (x86 SSE's `addss`/`mulss`/... return their first
//! source's NaN, and the interpreter's `l + r` compiles to exactly that). Cranelift's x86
//! lowering would swap a commutative operation whose first operand is a load;
//! `lower/ops.rs` (`not_a_load`) keeps that operand in a register instead
//! (`tests/jit_differential.rs`, `nan_payloads_agree_bit_for_bit_whatever_side_and_storage`).
//!
//! Values are shared by what they compute (`lower/mod.rs`, `MemoKey`): the same `+ - * /`,
//! negation, constant or pure builtin on the same operand values is emitted once where it
//! dominates, which gives the same bits (IEEE operations are deterministic for the same
//! operands in the same order, NaN payloads included). `a / b` with a non-constant divisor
//! follows the tiny-divisor rule (`|b| < 2^-23` gives 0, and the interpreter then does not
//! evaluate `a`): a numerator that can neither abort nor change anything (constants, queries,
//! slots known to be set, arithmetic and non-random builtins of those) is computed first and
//! the result is `select(tiny, 0, a / b)`, so the quotient is shared too; any other numerator
//! runs only in the non-tiny arm (`lower/ops.rs`, `divide`;
//! `division_shared_by_value_keeps_the_tiny_divisor_rule`).
//!
//! A program that reads at least 8 variables has two bodies. A guard at entry compares the
//! tag bytes of every variable the program reads with the number tag (8, 4, 2 or 1 tags per
//! load); when all match, the first body runs, which knows each of them to be set and a
//! number: no unset test at its reads, no tag store at its numeric assignments, numeric `==`
//! and truth. Otherwise the general body runs (`lower/mod.rs`, `guard`;
//! `guarded_body_runs_only_when_every_variable_read_is_a_number`). Flags only go from unset
//! to set during a run, and a store of another kind drops the number fact as it does anywhere.
//!
//! With [`EvalOptions::private_temps`](crate::interp::EvalOptions) (entity scripts: temps
//! cleared before each run, never read after it), the stores of a temp's number or tag that
//! no code of the function loads back are removed after translation
//! (`drop_dead_temp_stores`; `private_temps_drop_only_the_stores_nothing_reads_back`): the
//! results stay the interpreter's, only those temps' storage is stale after the run.
//!
//! # Safety invariants
//! The only `unsafe` code of the crate lives here (in `abi.rs` and `module.rs`):
//! - The generated code reads and writes the storage arrays of `vars`, `temps` and `ctx`
//!   ([`crate::interp::Storage`]) at `slot * 4` (numbers), `slot` (tags) and `slot * 8`
//!   (payloads), and `queries` at `slot * 4`. `JitProgram::enter` checks before every call
//!   that each array is at least as long as the name table the program was checked with, and
//!   the checker only emits slots from those tables.
//! - The function pointer is valid while the owning `JITModule` lives; [`JitProgram`] owns the
//!   module and frees its memory only in `Drop`, after which the pointer is never used.
//! - [`JitProgram`] is `Send` and `Sync` (one `Arc` serves every instance, on any thread):
//!   after finalizing, the module is only touched by `Drop`, and the code keeps no state of
//!   its own; each call writes only through its own frame (see `CodeOwner` in `module.rs`).
//! - [`Frame`] and the callback value record are `#[repr(C)]` and the code uses `offset_of!`
//!   offsets, so layout cannot drift.
//! - Slot offsets are `i32` immediates (`slot * 8` at most): every slot is a name written in
//!   the source, and `grammar::MAX_SOURCE_LEN` (4 MiB) bounds the source, so no offset
//!   overflows.
//! - A program that makes no callback taking the frame (the only ones that reach the host)
//!   gets a null [`Frame`] `host` from `run`, and one that reads and writes
//!   no slot (`used_storage` finds no scope) gets null storage pointers, and only its query
//!   values are checked: its code loads none of them (`lower::Needs`, recorded at
//!   translation; `lean_entry_gives_what_the_full_entry_gives`).
//! - The frame and the [`HostRef`] live on `call`'s stack for the whole native call; neither
//!   the generated code nor the callbacks keep a pointer past it. The storage arrays are
//!   borrowed `&mut` by `call`, so nothing else can touch them meanwhile; `ctx` and `queries`
//!   are only read.
//! - A query with arguments (and `->`) passes a pointer to a stack slot of exactly `n`
//!   values and one for the answer, made at that call site; the callback reads `n` and
//!   writes one.
//! - `for_each` reads its entities through the pointer `jit_list_push` leaves in the frame,
//!   at indices below the length it returned, and only until its `jit_list_pop`: the list
//!   (a `Vec` owned by the [`HostRef`]) is neither dropped nor changed meanwhile (inner loops
//!   push and pop other lists; moving the outer `Vec` does not move their buffers).
//! - Callbacks are `extern "C"`: a panic in a host or builtin aborts the process instead of
//!   unwinding through generated frames.
//! - Every loop iteration (`loop` and `for_each`) passes the budget check (and `die_roll` spends one per roll), so
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

pub use abi::{Frame, HostRef, JitOutcome, JitStorage};
pub use module::{compile, JitError, JitProgram};
