//! Fuzzing support.
//!
//! - `strategies` (feature `proptest`): proptest strategies for well-formed Molang programs
//!   and for near-miss malformed text, for this crate's tests and for anyone who wants to
//!   fuzz their own Molang implementation against ours.
//! - [`runner`]: the fuzzer behind `molang fuzz`, which plays an entity (through the runtime
//!   when it animates, else its scripts alone) with random inputs and shrinks what it finds
//!   to an input timeline `molang run` replays.
//! - [`oracle`]: the interpreter-vs-JIT oracle the cargo-fuzz `differential` target and
//!   `tests/jit_differential.rs` share.
//! - [`world`]: a fixed host with other entities, entity lists and arrays, so differential
//!   tests reach `->`, `for_each` and `array.name[i]` on both back ends.

pub mod oracle;
pub mod runner;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod world;

/// NaN of both signs as Molang operands (x86's default NaN has the sign bit set; `-` and
/// `abs` clear it): what the strategies and the cargo-fuzz differential target draw.
pub const NAN_OPERANDS: &[&str] = &[
    "math.sqrt(-1)",
    "(1e39 - 1e39)",
    "(0 * 1e39)",
    "-(math.sqrt(-1))",
    "math.abs(1e39 - 1e39)",
];

/// Edge operands besides NaN: infinities, zeros of both signs, the division guard's
/// threshold 2^-23, `approx_eq`'s tolerance `f32::EPSILON` and the smallest subnormal.
pub const EDGE_OPERANDS: &[&str] = &[
    "(1e39)",
    "(-1e39)",
    "(0)",
    "(-0)",
    "(0.00000011920929)",
    "(-0.00000011920929)",
    "(1e-45)",
    "(0.00000023841858)",
];

pub use runner::{
    parse_ranges, run, BadSetting, Config, Finding, FindingKind, FuzzError, Observer, Range,
    MAX_FPS,
};
