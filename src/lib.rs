//! Root package: owns the cross-crate tests in `tests/` and benchmarks in `benches/`.
