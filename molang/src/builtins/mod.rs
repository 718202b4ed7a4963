//! Builtin function tables shared by the checker, the interpreter and the JIT.

pub mod math;
pub mod platform;
pub mod queries;
