//! The JIT skips the "is it set?" test on reads that every path has already checked or
//! stored. These programs set or check a slot only on some paths, then read it: the test
//! must still happen there, so both back ends end the run at the same read.

use molang::{compile, EvalOptions, Value};

fn both(src: &str, inputs: &[(&str, f32)]) -> (molang::EvalResult, molang::EvalResult) {
    let expr = compile(src, &Default::default())
        .unwrap_or_else(|e| panic!("{src}: does not load: {:?}", e.diagnostics));
    let options = EvalOptions::default();
    let inputs: Vec<(String, Value)> = inputs
        .iter()
        .map(|(n, v)| (n.to_string(), Value::Num(*v)))
        .collect();
    let native = expr
        .compile_native(&options)
        .unwrap_or_else(|e| panic!("{src}: JIT: {e:?}"));
    let a = expr.eval(&inputs, 0, &options);
    let b = expr.eval_native(&native, &inputs, 0, &options);
    (a, b)
}

/// Runs on both back ends and requires the same outcome; returns whether the run aborted.
fn agree(src: &str, inputs: &[(&str, f32)]) -> bool {
    let (a, b) = both(src, inputs);
    assert_eq!(a.abort, b.abort, "{src} {inputs:?}: abort differs");
    assert_eq!(
        a.value.as_num().to_bits(),
        b.value.as_num().to_bits(),
        "{src} {inputs:?}: value differs"
    );
    a.abort.is_some()
}

#[test]
fn set_in_one_arm_only_is_still_tested_after_the_merge() {
    let src = "q.x ? { t.a = 1; }; return t.a + 1;";
    assert!(agree(src, &[("q.x", 0.0)]), "unset t.a must abort");
    assert!(!agree(src, &[("q.x", 1.0)]));
}

#[test]
fn a_loop_body_may_run_zero_times() {
    let src = "loop(q.n, { t.a = 1; }); return t.a;";
    assert!(agree(src, &[("q.n", 0.0)]));
    assert!(!agree(src, &[("q.n", 2.0)]));
}

#[test]
fn a_read_skipped_by_a_tiny_divisor_does_not_vouch_for_later_reads() {
    // With q.d = 0 the numerator is never evaluated, so the second read is the first test.
    let src = "t.b = v.a / q.d; return t.b + v.a;";
    assert!(agree(src, &[("q.d", 0.0)]));
    assert!(!agree(src, &[("q.d", 2.0), ("v.a", 3.0)]));
}

#[test]
fn short_circuit_operands_do_not_vouch_for_later_reads() {
    let src = "t.c = q.x && v.a; t.d = q.x || v.b; return v.a + v.b;";
    assert!(agree(src, &[("q.x", 0.0), ("v.b", 1.0)]));
    assert!(agree(src, &[("q.x", 1.0), ("v.a", 1.0)]));
    assert!(!agree(src, &[("q.x", 1.0), ("v.a", 1.0), ("v.b", 2.0)]));
}

#[test]
fn a_checked_read_vouches_for_the_reads_it_dominates() {
    // Same outcome either way; the second and third reads need no test of their own.
    let src = "t.s = v.a; t.s = t.s + v.a * v.a; return t.s;";
    assert!(!agree(src, &[("v.a", 0.0)]));
    assert!(agree(src, &[]));
    let (a, _) = both(src, &[("v.a", 2.0)]);
    assert_eq!(a.value.as_num(), 6.0);
}

/// The builtins the JIT emits in place (abs, sqrt, min, max, clamp, hermite_blend), and
/// lerp, which stays a call,
/// against the interpreter's calls, over edge values: both zeros, infinities, NaNs of both
/// signs, tiny and huge numbers.
#[test]
fn inlined_builtins_match_the_interpreter_bit_for_bit() {
    let edges = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.5,
        -3.75,
        1e-40,
        3.4e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
    ];
    let unary = ["math.abs(q.a)", "math.sqrt(q.a)", "math.hermite_blend(q.a)"];
    let binary = ["math.min(q.a, q.b)", "math.max(q.a, q.b)"];
    let ternary = ["math.clamp(q.a, q.b, q.c)", "math.lerp(q.a, q.b, q.c)"];
    let options = EvalOptions::default();
    let mut cases = 0;
    let mut check = |src: &str, vals: &[f32]| {
        let expr = compile(src, &Default::default()).expect("loads");
        let native = expr.compile_native(&options).expect("JIT");
        let inputs: Vec<(String, Value)> = ["q.a", "q.b", "q.c"]
            .iter()
            .zip(vals)
            .map(|(n, v)| (n.to_string(), Value::Num(*v)))
            .collect();
        let a = expr.eval(&inputs, 0, &options).value.as_num();
        let b = expr
            .eval_native(&native, &inputs, 0, &options)
            .value
            .as_num();
        assert_eq!(a.to_bits(), b.to_bits(), "{src} at {vals:?}: {a} vs {b}");
        cases += 1;
    };
    for src in unary {
        for &a in &edges {
            check(src, &[a]);
        }
    }
    for src in binary {
        for &a in &edges {
            for &b in &edges {
                check(src, &[a, b]);
            }
        }
    }
    for src in ternary {
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    check(src, &[a, b, c]);
                }
            }
        }
    }
    assert_eq!(cases, 3 * 13 + 2 * 169 + 2 * 2197);
}

/// The JIT shares the result of a pure builtin called twice on the same values, but only where
/// the first call dominates the second: a call made in one arm, or in a loop body that may not
/// run, must not be reused after it.
#[test]
fn shared_builtin_results_stay_in_their_region() {
    let srcs = [
        "q.c ? { t.x = math.cos(q.a); }; t.y = math.cos(q.a); return t.y;",
        "t.x = q.c ? math.sin(q.a) : 0; return math.sin(q.a) + t.x;",
        "loop(q.n, { t.x = math.cos(q.a); }); return math.cos(q.a);",
        "t.x = q.c && math.cos(q.a); return math.cos(q.a) * 2 + t.x;",
        "t.s = math.cos(q.a) + math.cos(q.a); return t.s;",
    ];
    for src in srcs {
        for c in [0.0, 1.0] {
            for n in [0.0, 3.0] {
                assert!(
                    !agree(src, &[("q.c", c), ("q.n", n), ("q.a", 30.0)]),
                    "{src}"
                );
            }
        }
    }
    let (a, _) = both(srcs[0], &[("q.c", 0.0), ("q.a", 60.0)]);
    assert!((a.value.as_num() - 0.5).abs() < 1e-6);
}

/// Division by a constant is decided when compiling (no run-time test of the divisor); the
/// tiny-divisor rule and the numerator's evaluation must still match the interpreter.
#[test]
fn constant_divisors_match_the_interpreter() {
    for src in [
        "q.a / 0.45",
        "q.a / -0.45",
        "q.a / 0",
        "q.a / 0.0000001",
        "q.a / 0.00000012",
        "(q.a * 3) / 1e30",
        "t.x = 1; return v.unset / 0;",
        "t.x = 1; return v.unset / 2;",
    ] {
        for a in [0.0f32, -0.0, 1.0, -7.5, 3.4e38, f32::INFINITY, f32::NAN] {
            agree(src, &[("q.a", a)]);
        }
    }
}
