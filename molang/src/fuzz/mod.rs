//! Fuzzing support.
//!
//! - [`strategies`] (feature `proptest`): proptest strategies for well-formed Molang programs
//!   and for near-miss malformed text, for this crate's tests and for anyone who wants to
//!   fuzz their own Molang implementation against ours.
//! - [`cli`]: `molang fuzz`, which drives an entity's scripts with random query inputs and
//!   shrinks what it finds to a `molang run` reproducer.

pub mod cli;
#[cfg(feature = "proptest")]
pub mod strategies;
