//! Molang checker, diagnostics and reference interpreter.
