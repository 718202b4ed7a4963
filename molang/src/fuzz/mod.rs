//! Fuzzing support.
//!
//! - [`strategies`] (feature `proptest`): proptest strategies for well-formed Molang programs
//!   and for near-miss malformed text, for this crate's tests and for anyone who wants to
//!   fuzz their own Molang implementation against ours.
//! - [`cli`]: `molang fuzz`, which plays an entity (through the runtime when it animates,
//!   else its scripts alone) with random inputs and shrinks what it finds to a `molang run`
//!   reproducer.

pub mod cli;
#[cfg(feature = "proptest")]
pub mod strategies;
