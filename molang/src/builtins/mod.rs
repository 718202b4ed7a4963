//! Builtin function tables shared by the checker, the interpreter and (later) the JIT.

pub mod math;
