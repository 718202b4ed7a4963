//! Fuzzing support.
//!
//! - `strategies` (feature `proptest`): proptest strategies for well-formed Molang programs
//!   and for near-miss malformed text, for this crate's tests and for anyone who wants to
//!   fuzz their own Molang implementation against ours.
//! - [`runner`]: the fuzzer behind `molang fuzz`, which plays an entity (through the runtime
//!   when it animates, else its scripts alone) with random inputs and shrinks what it finds
//!   to a `molang run` reproducer.
//! - [`world`]: a fixed host with other entities, entity lists and arrays, so differential
//!   tests reach `->`, `for_each` and `array.name[i]` on both back ends.

pub mod runner;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod world;

pub use runner::{parse_ranges, run, Config, FindingKind, Observer, Range, Reported};
