//! The game's edge semantics (issue 13), one table per category, each row run on both back
//! ends (the interpreter, and the Cranelift JIT wherever it compiles the program: then the two
//! must agree bit for bit). Every row names where its expected value comes from:
//!
//! * `vector #N`: a molangx parse vector (engine-measured), by 0-based index;
//! * `parity #N` / `language #N` / `grouping #N`: a molang-go row of that conformance file;
//! * `doc`: Mojang's Molang documentation (query descriptions);
//! * `spec §x`: `../shared/spec/molang.md`;
//! * `rule`: the builtin's rule table in `molang/src/builtins/math.rs` or
//!   `molang/src/builtins/queries.rs` (how the engine's C++ is written: `a < b ? a : b`, a
//!   guard tested before the other, ...), derived from the sources those tables cite.
// Test tables are tuples on purpose: each row reads as one case.
// Folding rows spell out the game's arithmetic (`3.0 / 3.0 - 1.0` is arm64's quotient form).
#![allow(clippy::type_complexity, clippy::eq_op)]

use molang::builtins::platform::Platform;
use molang::{compile, CheckOptions, Code, EvalOptions, Value};

/// Expected outcome of one row.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// This number, bit for bit (`0.0` and `-0.0` differ).
    Num(f32),
    /// Some NaN.
    NaN,
    /// A number of this magnitude (its sign follows a NaN's sign bit, which is not modelled).
    Abs(f32),
}

fn options() -> CheckOptions {
    CheckOptions {
        warn_unknown_queries: false,
        ..CheckOptions::default()
    }
}

/// Evaluates `src` with `inputs` and the float rules of `platform` on the interpreter and, when
/// it compiles natively, on the JIT; returns the interpreter's value and whether the JIT ran.
fn run_on(platform: Platform, src: &str, inputs: &[(&str, f32)]) -> (f32, bool) {
    let expr = compile(src, &options()).unwrap_or_else(|e| {
        panic!(
            "{src:?} does not load: {:?}",
            e.diagnostics
                .iter()
                .map(|d| (d.code.as_str(), &d.message))
                .collect::<Vec<_>>()
        )
    });
    let inputs: Vec<(String, Value)> = inputs
        .iter()
        .map(|(n, v)| (n.to_string(), Value::Num(*v)))
        .collect();
    let eval = EvalOptions {
        platform,
        ..EvalOptions::default()
    };
    let a = expr.eval(&inputs, 7, &eval);
    let Value::Num(x) = a.value else {
        panic!("{src:?}: not a number: {:?}", a.value)
    };
    let jit = match expr.compile_native(&eval) {
        Ok(native) => {
            let b = expr.eval_native(&native, &inputs, 7, &eval);
            let y = b.value.as_num();
            assert!(
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                "{src:?} on {}: interpreter {x:?} ({:#x}) but JIT {y:?} ({:#x})",
                platform.name(),
                x.to_bits(),
                y.to_bits()
            );
            assert_eq!(a.abort, b.abort, "{src:?}: the runs end differently");
            true
        }
        Err(molang::jit::JitError::Unsupported(_)) => false,
        Err(e) => panic!("{src:?}: JIT error {e}"),
    };
    (x, jit)
}

impl Want {
    /// Whether `got` is this outcome.
    fn holds(self, got: f32) -> bool {
        match self {
            Want::Num(w) => got.to_bits() == w.to_bits(),
            Want::NaN => got.is_nan(),
            Want::Abs(w) => got.abs() == w,
        }
    }
}

/// Runs `src` with `inputs` on `platform` ([`run_on`]) and asserts it gives `want` (from
/// `source`); whether the JIT ran it too.
#[track_caller]
fn check_row(
    platform: Platform,
    src: &str,
    inputs: &[(&str, f32)],
    want: Want,
    source: &str,
) -> bool {
    let (got, native) = run_on(platform, src, inputs);
    assert!(
        want.holds(got),
        "{src:?} {inputs:?} on {}: got {got:?} ({:#x}), want {want:?} ({source})",
        platform.name(),
        got.to_bits()
    );
    native
}

#[track_caller]
fn check_rows(rows: &[(&str, Want, &str)]) -> (usize, usize) {
    check_rows_on(Platform::X86_64, rows)
}

#[track_caller]
fn check_rows_on(platform: Platform, rows: &[(&str, Want, &str)]) -> (usize, usize) {
    let mut jit = 0;
    for &(src, want, source) in rows {
        jit += check_row(platform, src, &[], want, source) as usize;
    }
    (rows.len(), jit)
}

/// Which diagnostics a text gets and whether it loads.
fn outcome(src: &str) -> (bool, Vec<Code>) {
    let c = molang::check(src, &options(), &mut molang::ir::Names::default());
    (c.loads(), c.diagnostics.iter().map(|d| d.code).collect())
}

const N: &str = "math.sqrt(-1)";

/// Substitutes `N` (a NaN) into a template's `#` holes.
fn nan_rows() -> Vec<(String, Want, &'static str)> {
    use Want::*;
    let rows: Vec<(&str, Want, &str)> = vec![
        // Truthiness and logic.
        ("# ? 111 : 222", Num(111.0), "parity #0: NaN is true"),
        ("!#", Num(0.0), "parity #2"),
        ("# && 1", Num(1.0), "parity #3"),
        ("# || 0", Num(1.0), "parity #4"),
        ("0 || #", Num(1.0), "spec §4.3: NaN is true"),
        ("1 && #", Num(1.0), "spec §4.3: NaN is true"),
        // Comparisons: C++ `a < b` as written, false whenever an operand is NaN.
        ("# < 1", Num(0.0), "grouping #35"),
        ("1 < #", Num(0.0), "rule: ordered compare"),
        ("# <= 1", Num(0.0), "rule: ordered compare"),
        ("1 <= #", Num(0.0), "rule: ordered compare"),
        ("# > 1", Num(0.0), "rule: ordered compare"),
        ("1 > #", Num(0.0), "rule: ordered compare"),
        ("# >= 1", Num(0.0), "rule: ordered compare"),
        ("1 >= #", Num(0.0), "rule: ordered compare"),
        ("# == #", Num(0.0), "grouping #36"),
        ("# == 1", Num(0.0), "rule: f32 equality"),
        ("1 != #", Num(1.0), "rule: f32 inequality"),
        ("# != #", Num(1.0), "rule: f32 inequality"),
        // Arithmetic and the division guard: |d| < 2^-23 is false for NaN, so it divides.
        ("# + 1", NaN, "rule: IEEE"),
        ("1 - #", NaN, "rule: IEEE"),
        ("# * 0", NaN, "rule: IEEE"),
        (
            "1 / #",
            Num(0.0),
            "molangx numeric: a constant NaN divisor folds to 0 on both platforms (a run-time one divides on x86-64: `1/v.k` in the folding rows)",
        ),
        ("# / 2", NaN, "rule: IEEE"),
        (
            "# / 0",
            Num(0.0),
            "spec preface: the guard skips the numerator",
        ),
        ("-#", NaN, "rule: IEEE"),
        // min / max / clamp: `a > b ? a : b`, `a < b ? a : b`, upper bound tested first.
        ("math.max(#, 4)", Num(4.0), "parity #15"),
        ("math.min(#, 4)", Num(4.0), "parity #16"),
        ("math.max(4, #)", NaN, "parity #17"),
        ("math.min(4, #)", NaN, "parity #18"),
        (
            "math.clamp(#, 0, 1)",
            Num(0.0),
            "rule: `v > hi ? hi : max(v, lo)` gives lo",
        ),
        ("math.clamp(0.5, #, 1)", NaN, "rule: max(0.5, NaN) is NaN"),
        (
            "math.clamp(0.5, 0, #)",
            Num(0.5),
            "rule: `0.5 > NaN` is false",
        ),
        (
            "math.clamp(2, 0, #)",
            Num(2.0),
            "rule: the upper bound never wins",
        ),
        // acos / asin: NaN passes the clamp window and the call gives NaN.
        ("math.acos(#)", NaN, "rule: inverse-trig guard"),
        ("math.asin(#)", NaN, "rule: inverse-trig guard"),
        ("math.atan(#)", NaN, "rule: IEEE"),
        ("math.atan2(#, 1)", NaN, "rule: IEEE"),
        ("math.atan2(1, #)", NaN, "rule: IEEE"),
        // sign: `x < 0 ? -1 : 1`, so NaN gives 1.
        ("math.sign(#)", Num(1.0), "rule: `x < 0` is false for NaN"),
        ("math.copy_sign(#, 1)", NaN, "rule: copysign"),
        (
            "math.copy_sign(2, #)",
            Abs(2.0),
            "rule: the sign bit of the NaN",
        ),
        ("math.abs(#)", NaN, "rule: IEEE"),
        ("math.sqrt(#)", NaN, "rule: IEEE"),
        ("math.floor(#)", NaN, "rule: IEEE"),
        ("math.ceil(#)", NaN, "rule: IEEE"),
        ("math.round(#)", NaN, "rule: IEEE"),
        ("math.trunc(#)", NaN, "rule: IEEE"),
        ("math.exp(#)", NaN, "rule: IEEE"),
        ("math.ln(#)", NaN, "rule: IEEE"),
        ("math.sin(#)", NaN, "rule: IEEE"),
        ("math.cos(#)", NaN, "rule: IEEE"),
        ("math.pow(#, 0)", Num(1.0), "rule: C pow(x, 0) = 1"),
        ("math.pow(1, #)", Num(1.0), "rule: C pow(1, y) = 1"),
        ("math.pow(#, 2)", NaN, "rule: C pow"),
        ("math.pow(2, #)", NaN, "rule: C pow"),
        ("math.mod(#, 2)", NaN, "rule: fmodf"),
        (
            "math.mod(2, #)",
            NaN,
            "rule: `b == 0` is false for NaN, fmodf",
        ),
        ("math.hermite_blend(#)", NaN, "rule: arithmetic"),
        ("math.min_angle(#)", NaN, "rule: arithmetic"),
        ("math.lerp(#, 1, 0.5)", NaN, "rule: arithmetic"),
        ("math.lerp(0, #, 0.5)", NaN, "rule: arithmetic"),
        ("math.lerp(0, 1, #)", NaN, "rule: arithmetic"),
        ("math.lerprotate(#, 1, 0.5)", NaN, "rule: arithmetic"),
        ("math.lerprotate(0, #, 0.5)", NaN, "rule: arithmetic"),
        ("math.lerprotate(0, 90, #)", NaN, "rule: arithmetic"),
        ("math.inverse_lerp(#, 1, 0.5)", NaN, "rule: arithmetic"),
        ("math.inverse_lerp(0, #, 0.5)", NaN, "rule: arithmetic"),
        ("math.inverse_lerp(0, 1, #)", NaN, "rule: arithmetic"),
        ("math.ease_in_out_bounce(0, 1, #)", NaN, "parity #21"),
        (
            "math.ease_in_quad(#, 1, 0.5)",
            NaN,
            "rule: start + (end - start)·E(t)",
        ),
        (
            "math.ease_in_quad(0, #, 0.5)",
            NaN,
            "rule: start + (end - start)·E(t)",
        ),
        ("math.ease_in_quad(0, 1, #)", NaN, "rule: arithmetic"),
        (
            "math.ease_out_sine(1, 5, #)",
            Num(1.0),
            "rule: a NaN angle reads table entry 0 (sin 0)",
        ),
        // Random family: bounds sorted with `b < a ? b : a` and `a > b ? a : b`.
        (
            "math.random(#, 1)",
            NaN,
            "rule: the NaN bound survives as lo",
        ),
        (
            "math.random(1, #)",
            NaN,
            "rule: the NaN bound survives as hi",
        ),
        (
            "math.random_integer(#, 1)",
            NaN,
            "rule: floor(NaN), then max(NaN, lo = NaN)",
        ),
        (
            "math.random_integer(1, #)",
            Num(1.0),
            "rule: `NaN > hi` false, max(NaN, 1) = 1",
        ),
        (
            "math.die_roll(#, 1, 2)",
            Num(0.0),
            "rule: a NaN count rolls nothing",
        ),
        (
            "math.die_roll(1, #, 2)",
            NaN,
            "rule: the NaN bound survives",
        ),
        (
            "math.die_roll(1, 1, #)",
            NaN,
            "rule: the NaN bound survives",
        ),
        (
            "math.die_roll_integer(#, 1, 6)",
            Num(0.0),
            "rule: a NaN count rolls nothing",
        ),
        (
            "math.die_roll_integer(1, #, 2)",
            NaN,
            "rule: max(NaN, lo = NaN)",
        ),
        (
            "math.die_roll_integer(1, 1, #)",
            Num(1.0),
            "rule: max(NaN, 1) = 1",
        ),
        // The computed queries.
        ("q.all(#, #, #)", Num(0.0), "rule: `==` never holds for NaN"),
        ("q.all(1, 1, #)", Num(0.0), "rule: `==` never holds for NaN"),
        ("q.any(#, #, 1)", Num(0.0), "rule: `==` never holds for NaN"),
        ("q.any(1, #, 1)", Num(1.0), "rule: a later argument matches"),
        (
            "q.in_range(#, 0, 1)",
            Num(0.0),
            "rule: `v >= lo && v <= hi`",
        ),
        (
            "q.in_range(0.5, #, 1)",
            Num(0.0),
            "rule: `v >= lo && v <= hi`",
        ),
        (
            "q.in_range(0.5, 0, #)",
            Num(0.0),
            "rule: `v >= lo && v <= hi`",
        ),
        (
            "q.approx_eq(#, #)",
            Num(0.0),
            "rule: `|x - a| < ε` is false for NaN",
        ),
        (
            "q.approx_eq(1, #)",
            Num(0.0),
            "rule: `|x - a| < ε` is false for NaN",
        ),
        ("q.count(#)", Num(1.0), "doc: non-arrays count as 1"),
    ];
    rows.into_iter()
        .map(|(t, w, s)| (t.replace('#', N), w, s))
        .collect()
}

/// The NaN rows whose outcome is another on arm64, with the arm64 value and its source
/// (molangx `numeric/arch/arm64.rs` and `stdlib/math/arch/arm64/mod.rs`, commit ffa4a42: the
/// engine's arm64 build; `M` below). Every other row of [`nan_rows`] holds on both platforms.
fn arm64_nan_rows() -> Vec<(&'static str, Want, &'static str)> {
    use Want::*;
    vec![
        ("# < 1", Num(1.0), "M: `<` is `!(a >= b)`, true with a NaN"),
        ("1 < #", Num(1.0), "M: `<` is `!(a >= b)`"),
        ("# <= 1", Num(1.0), "M: `<=` is `!(a > b)`"),
        ("1 <= #", Num(1.0), "M: `<=` is `!(a > b)`"),
        ("math.max(4, #)", Num(4.0), "M: fmaxnm ignores a NaN"),
        ("math.min(4, #)", Num(4.0), "M: fminnm ignores a NaN"),
        ("math.clamp(0.5, #, 1)", Num(0.5), "M: max(0.5, NaN) = 0.5"),
        (
            "math.acos(#)",
            Num(180.0),
            "M: NaN reads as -1 through max(x, -1)",
        ),
        (
            "math.asin(#)",
            Num(-90.0),
            "M: NaN reads as -1 through max(x, -1)",
        ),
        ("math.sign(#)", Num(-1.0), "M: `x < 0` is true for NaN"),
        (
            "math.copy_sign(2, #)",
            Num(2.0),
            "M: sqrt(-1) is +NaN (0x7fc00000) on arm64",
        ),
        (
            "math.random(#, 1)",
            Num(1.0),
            "M: bounds sorted by min/max drop the NaN",
        ),
        (
            "math.random(1, #)",
            Num(1.0),
            "M: bounds sorted by min/max drop the NaN",
        ),
        ("math.random_integer(#, 1)", Num(1.0), "M: bounds (1, 1)"),
        ("math.die_roll(1, #, 2)", Num(2.0), "M: bounds (2, 2)"),
        ("math.die_roll(1, 1, #)", Num(1.0), "M: bounds (1, 1)"),
        (
            "math.die_roll_integer(1, #, 2)",
            Num(2.0),
            "M: bounds (2, 2)",
        ),
    ]
}

/// [`nan_rows`] as they read on `platform`, and how many of them are arm64's own.
fn nan_rows_on(platform: Platform) -> (Vec<(String, Want, &'static str)>, usize) {
    let mut rows = nan_rows();
    if platform == Platform::X86_64 {
        return (rows, 0);
    }
    let arm = arm64_nan_rows();
    for (template, want, source) in &arm {
        let src = template.replace('#', N);
        let row = rows
            .iter_mut()
            .find(|(t, _, _)| *t == src)
            .unwrap_or_else(|| panic!("{template}: no such NaN row"));
        row.1 = *want;
        row.2 = source;
    }
    (rows, arm.len())
}

#[test]
fn nan_through_operators_builtins_and_queries() {
    for platform in Platform::ALL {
        let (rows, own) = nan_rows_on(platform);
        let borrowed: Vec<(&str, Want, &str)> =
            rows.iter().map(|(t, w, s)| (t.as_str(), *w, *s)).collect();
        let (n, jit) = check_rows_on(platform, &borrowed);
        println!(
            "NaN rows on {}: {n} pass ({own} with a value of their own there), {jit} of them also on the JIT",
            platform.name()
        );
        assert!(jit * 10 >= n * 9, "most NaN rows must reach the JIT");
    }
}

#[test]
fn arm64_nan_rows_differ_from_x86_64() {
    // Each arm64 row must say something the x86-64 row does not, or it is no test.
    let x86 = nan_rows();
    for (template, want, _) in arm64_nan_rows() {
        let src = template.replace('#', N);
        let (_, x86_want, _) = x86.iter().find(|(t, _, _)| *t == src).unwrap();
        let same = match (want, *x86_want) {
            (Want::Num(a), Want::Num(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        };
        assert!(!same, "{template}: the same on both platforms");
        let (got, _) = run_on(Platform::X86_64, &src, &[]);
        assert!(
            !matches!(want, Want::Num(w) if w.to_bits() == got.to_bits()),
            "{template}: x86-64 already gives the arm64 value"
        );
    }
}

#[test]
fn arm64_arithmetic_picks_its_own_nans_and_fuses_lerp() {
    // Invalid operations: 0xffc00000 on x86-64, 0x7fc00000 on arm64 (molangx arch files).
    for (src, x86, arm) in [
        // Not `v.i - v.i`: the game merges the two terms of one variable, which cancel (0).
        ("v.i + v.n", 0xffc0_0000u32, 0x7fc0_0000u32),
        ("v.i * 0", 0xffc0_0000, 0x7fc0_0000),
        ("math.sqrt(-1)", 0xffc0_0000, 0x7fc0_0000),
        ("v.i / v.i", 0xffc0_0000, 0x7fc0_0000),
    ] {
        for (platform, want) in [(Platform::X86_64, x86), (Platform::Arm64, arm)] {
            let inputs = [("v.i", f32::INFINITY), ("v.n", f32::NEG_INFINITY)];
            let (got, jit) = run_on(platform, src, &inputs);
            assert!(jit, "{src}");
            assert_eq!(got.to_bits(), want, "{src} on {}", platform.name());
        }
    }
    // A NaN operand keeps its payload, quietened; of two, the left one on both platforms.
    let (got, _) = run_on(
        Platform::Arm64,
        "v.a + v.b",
        &[
            ("v.a", f32::from_bits(0xffc0_0002)),
            ("v.b", f32::from_bits(0x7fc0_0001)),
        ],
    );
    assert_eq!(got.to_bits(), 0xffc0_0002);
    // A signalling NaN wins on arm64 even on the right.
    let (got, _) = run_on(
        Platform::Arm64,
        "v.a + v.b",
        &[
            ("v.a", f32::from_bits(0x7fc0_0001)),
            ("v.b", f32::from_bits(0xff80_0004)),
        ],
    );
    assert_eq!(got.to_bits(), 0xffc0_0004);
    // lerp is one multiply-add on arm64: `0.3·10.5 − 3` rounded once.
    let (x86, _) = run_on(Platform::X86_64, "math.lerp(-3, 7.5, v.t)", &[("v.t", 0.3)]);
    let (arm, _) = run_on(Platform::Arm64, "math.lerp(-3, 7.5, v.t)", &[("v.t", 0.3)]);
    assert_eq!(arm.to_bits(), 0.3f32.mul_add(10.5, -3.0).to_bits());
    assert_eq!(x86.to_bits(), (10.5f32 * 0.3 + -3.0).to_bits());
    assert_ne!(
        x86.to_bits(),
        arm.to_bits(),
        "the pin must tell fused from unfused"
    );
}

#[test]
fn every_builtin_sees_nan_in_every_argument() {
    // Beyond the table: each builtin, each position, NaN there and 0.5 elsewhere. Both back
    // ends must agree (checked by `run`); the value is the rule table's.
    use molang::builtins::math::MathFn;
    let mut n = 0;
    for f in MathFn::ALL {
        for pos in 0..f.arity() {
            let args: Vec<&str> = (0..f.arity())
                .map(|i| if i == pos { N } else { "0.5" })
                .collect();
            let src = format!("math.{}({})", f.name(), args.join(", "));
            for platform in Platform::ALL {
                let (_, jit) = run_on(platform, &src, &[]);
                assert!(jit, "{src} must compile natively");
            }
            n += 1;
        }
    }
    assert!(n >= 140, "{n} argument positions");
}

#[test]
fn nan_inputs_reach_comparisons_and_builtins_on_both_back_ends() {
    // The same rules with the NaN coming from a variable at run time (not folded).
    use Want::*;
    for (src, want, arm) in [
        ("math.max(v.n, 4)", Num(4.0), Num(4.0)),
        ("math.max(4, v.n)", NaN, Num(4.0)),
        ("math.clamp(v.n, -1, 1)", Num(-1.0), Num(-1.0)),
        ("math.clamp(4, v.n, 5)", NaN, Num(4.0)),
        ("math.random(v.n, 5)", NaN, Num(5.0)),
        ("v.n < 1 || v.n >= 1", Num(0.0), Num(1.0)),
        ("v.n > 1 || v.n >= 1", Num(0.0), Num(0.0)),
        ("1 / v.n", NaN, Num(0.0)),
        ("v.n ? 3 : 4", Num(3.0), Num(3.0)),
        ("q.in_range(v.n, -1, 1)", Num(0.0), Num(0.0)),
        ("math.sign(v.n)", Num(1.0), Num(-1.0)),
        ("math.asin(v.n)", NaN, Num(-90.0)),
        ("math.acos(v.n)", NaN, Num(180.0)),
    ] {
        for (platform, want) in [(Platform::X86_64, want), (Platform::Arm64, arm)] {
            let (got, jit) = run_on(platform, src, &[("v.n", f32::NAN)]);
            assert!(jit, "{src}");
            let ok = match want {
                Num(w) => got.to_bits() == w.to_bits(),
                _ => got.is_nan(),
            };
            assert!(
                ok,
                "{src} on {}: {got:?}, want {want:?} (rule)",
                platform.name()
            );
        }
    }
}

// ---- Queries the engine computes ------------------------------------------------------

#[test]
fn computed_queries_need_no_host() {
    use Want::Num;
    let rows: &[(&str, Want, &str)] = &[
        ("q.in_range(10, 0, 10)", Num(1.0), "spec §6.4 test"),
        ("q.in_range(0, 0, 10)", Num(1.0), "doc: inclusive"),
        ("q.in_range(10.5, 0, 10)", Num(0.0), "doc: inclusive"),
        (
            "q.in_range(5, 10, 0)",
            Num(0.0),
            "rule: `v >= lo && v <= hi`",
        ),
        ("q.all(1, 1, 1)", Num(1.0), "spec §6.4 test"),
        ("q.all(1, 1, 2)", Num(0.0), "doc"),
        (
            "q.all(2, 1, 1, 1)",
            Num(0.0),
            "doc: the first is the reference",
        ),
        ("q.any(2, 0, 2)", Num(1.0), "spec §6.4 test"),
        ("q.any(1, 0, 2)", Num(0.0), "spec §6.4 test"),
        ("q.any(0, -0, 5)", Num(1.0), "rule: f32 `==` (0 == -0)"),
        ("q.approx_eq(1, 1)", Num(1.0), "doc"),
        (
            "q.approx_eq(0.1 + 0.2, 0.3)",
            Num(1.0),
            "doc: f32 arithmetic",
        ),
        ("q.approx_eq(1, 1.001)", Num(0.0), "doc: smallest unit"),
        (
            "q.approx_eq(1, 1, 1, 2)",
            Num(0.0),
            "doc: all of the arguments",
        ),
        ("q.count(1, 2, 3)", Num(3.0), "doc: non-arrays count as 1"),
        ("q.count", Num(0.0), "doc: nothing passed"),
        (
            "q.all('a', 'a', 'a')",
            Num(1.0),
            "rule: strings compare by hash",
        ),
        (
            "q.any('a', 'b', 'A')",
            Num(0.0),
            "rule: strings are case-sensitive",
        ),
        (
            "q.any('a', 'b', 'a')",
            Num(1.0),
            "rule: strings compare by hash",
        ),
        ("q.count('a', 1)", Num(2.0), "doc: non-arrays count as 1"),
        (
            "t.a = 3; return q.all(t.a, 3, 1 + 2);",
            Num(3.0 / 3.0),
            "doc",
        ),
    ];
    let (n, jit) = check_rows(rows);
    println!("computed query rows: {n} pass, {jit} of them also on the JIT");
    // Ignoring host values: an input named like the query does not change it.
    let expr = compile("q.in_range(2, 0, 1)", &options()).unwrap();
    let r = expr.eval(
        &[("q.in_range".to_string(), Value::Num(1.0))],
        0,
        &EvalOptions::default(),
    );
    assert_eq!(r.value, Value::Num(0.0));
}

#[test]
fn computed_queries_evaluate_their_arguments_in_order_and_stop_when_decided() {
    // rule (builtins/queries.rs): `all` stops at the first mismatch, `any` at the first match,
    // `in_range` and `count` evaluate everything. Assignments inside the arguments show it.
    for (src, x, y) in [
        ("q.all(1, (v.x = 2), (v.y = 1)); return v.y ?? 0;", 2.0, 0.0),
        ("q.all(1, (v.x = 1), (v.y = 1)); return v.y ?? 0;", 1.0, 1.0),
        ("q.any(1, (v.x = 1), (v.y = 5)); return v.y ?? 0;", 1.0, 0.0),
        ("q.any(1, (v.x = 3), (v.y = 5)); return v.y ?? 0;", 3.0, 5.0),
        (
            "q.approx_eq(1, (v.x = 2), (v.y = 1)); return v.y ?? 0;",
            2.0,
            0.0,
        ),
        ("q.count((v.x = 4), (v.y = 6)); return v.y ?? 0;", 4.0, 6.0),
        (
            "q.in_range((v.x = 4), 0, (v.y = 6)); return v.y ?? 0;",
            4.0,
            6.0,
        ),
    ] {
        let src = format!("v.x = 0; {src}");
        let expr = compile(&src, &options()).unwrap();
        let eval = EvalOptions::default();
        let a = expr.eval(&[], 0, &eval);
        assert_eq!(a.variable("x"), Some(Value::Num(x)), "{src}");
        assert_eq!(a.value, Value::Num(y), "{src}");
        let native = expr.compile_native(&eval).expect("numbers only");
        let b = expr.eval_native(&native, &[], 0, &eval);
        assert_eq!(b.variable("x"), Some(Value::Num(x)), "{src} (JIT)");
        assert_eq!(b.value, Value::Num(y), "{src} (JIT)");
    }
}

#[test]
fn computed_queries_argument_rules() {
    // Arity from Mojang's metadata (spec §3.7): all/any ≥ 3, approx_eq ≥ 2, in_range = 3.
    for src in [
        "q.all(1, 1)",
        "q.any(1)",
        "q.approx_eq(1)",
        "q.in_range(1, 2)",
        "q.in_range(1, 2, 3, 4)",
    ] {
        let (loads, codes) = outcome(src);
        assert!(
            !loads && codes.contains(&Code::QueryArity),
            "{src}: {codes:?}"
        );
    }
    // A string where a number is needed does not load (E0506).
    for src in [
        "q.in_range('a', 0, 1)",
        "q.in_range(0, 'a', 1)",
        "q.approx_eq(1, 'a')",
        "q.in_range(geometry.default, 0, 1)",
    ] {
        let (loads, codes) = outcome(src);
        assert!(
            !loads && codes.contains(&Code::QueryNeedsNumber),
            "{src}: {codes:?}"
        );
    }
    // Strings are fine where `==` decides.
    for src in [
        "q.all('a', 'a', 'b')",
        "q.any(v.s ?? 'a', 'a', 'b')",
        "q.count('x')",
    ] {
        assert!(outcome(src).0, "{src}");
    }
}

// ---- `??` ----------------------------------------------------------------------------

#[test]
fn coalesce_as_the_game_parses_it() {
    // Refused: the left side of a chain is itself a `??` (vector #363, #449), a member
    // (vector #445: `v.a.b ?? 1`), anything but a variable or its folded linear form.
    for (src, source) in [
        ("v.a ?? v.b ?? 5", "vector #449"),
        ("v.x ?? 1 ?? 2", "vector #363"),
        ("v.a.b ?? 1", "vector #445"),
        ("v.a.b ?? 1 ?? 2", "vector #445"),
        ("!v.x ?? 1", "vector #442"),
        ("(v.a ? 1 : 2) ?? 3", "vector #453"),
        ("c.o->v.x ?? 1", "vector #447"),
    ] {
        let (loads, codes) = outcome(src);
        assert!(
            !loads && codes.contains(&Code::CoalesceLhs),
            "{src} ({source}): {codes:?}"
        );
    }
    // Loads with a logged error: an assignment on the left (vector #448); it still runs.
    let (loads, codes) = outcome("return (v.a = 1) ?? 2;");
    assert!(loads && codes.contains(&Code::CoalesceLhs), "{codes:?}");
    let r = compile("return (v.a = 1) ?? 2;", &options()).unwrap();
    let r = r.eval(&[], 0, &EvalOptions::default());
    assert_eq!(
        r.variable("a"),
        Some(Value::Num(1.0)),
        "the assignment runs"
    );
    // In a complex expression the game logs the same error for a member or a `??` on the
    // left and runs the text (molangx `tests/measured_*.rs`, engine server logs, rows 20 and
    // 26 of their groups): ours loads with the game's wording as a warning.
    for (src, want) in [
        ("v.a = 1; return v.a.b ?? 7;", 7.0),
        ("v.a = 1; v.b = 2; return v.a ?? v.b ?? 5;", 1.0),
        ("v.b = 2; return v.a ?? v.b ?? 5;", 2.0),
        ("return v.a ?? v.b ?? 5;", 5.0),
    ] {
        let (loads, codes) = outcome(src);
        assert!(
            loads && codes.contains(&Code::CoalesceLhs),
            "{src}: {codes:?}"
        );
        check_rows(&[(src, Want::Num(want), "molangx measured rows (engine logs)")]);
    }
    // The linear forms the game folds before it checks the left side (vectors #359..#361,
    // #441, #443): they load, and fall back exactly when the variable is unset.
    use Want::Num;
    let rows: &[(&str, Want, &str)] = &[
        ("-v.x ?? 1", Num(1.0), "vector #441, unset"),
        ("v.x = 3; return -v.x ?? 1;", Num(-3.0), "vector #441, set"),
        ("v.x * 2 ?? 1", Num(1.0), "vector #360, unset"),
        (
            "v.x = 3; return v.x * 2 ?? 1;",
            Num(6.0),
            "vector #360, set",
        ),
        ("v.x - 3 ?? 1", Num(1.0), "vector #361, unset"),
        (
            "v.x = 3; return v.x - 3 ?? 1;",
            Num(0.0),
            "vector #361, set",
        ),
        ("v.x + 0 ?? 1", Num(1.0), "vector #443"),
        ("(v.x) ?? 1", Num(1.0), "vector #362"),
        ("v.a ?? (v.b ?? 3)", Num(3.0), "language #74"),
        (
            "v.b = 4; return v.a ?? (v.b ?? 3);",
            Num(4.0),
            "language #75",
        ),
        ("v.a ?? 1 + 2", Num(3.0), "vector #463: `??` binds loosest"),
        (
            "v.a = 0; return v.a ?? 1 ? 2 : 3;",
            Num(0.0),
            "language #67",
        ),
        (
            "v.x = math.sqrt(-1); return v.x ?? 5;",
            Want::NaN,
            "language #23: NaN is a value",
        ),
    ];
    check_rows(rows);
}

// ---- Unreachable statements, `break`, `continue` -------------------------------------

#[test]
fn unreachable_statements_are_worded_as_the_game_logs_them() {
    // The game's content log (molang-go-language.json rows, Bedrock 1.26.50.24).
    for (src, words) in [
        (
            "return 1; v.x = 5;",
            "unreachable statements after Return 'return'",
        ),
        (
            "v.x = 0; loop(3, {continue; v.x = v.x + 1;});",
            "unreachable statements after Continue 'continue'",
        ),
        (
            "v.x = 0; loop(3, {break; v.x = v.x + 1;});",
            "unreachable statements after Break 'break'",
        ),
    ] {
        let c = molang::check(src, &options(), &mut molang::ir::Names::default());
        assert!(
            c.diagnostics
                .iter()
                .any(|d| d.code == Code::Unreachable && d.message.starts_with(words)),
            "{src}: {:?}",
            c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
}

#[test]
fn unreachable_statements_and_jumps() {
    // (text, loads, the code we report, source): what the game refuses, logs or accepts.
    let rows: &[(&str, bool, Option<Code>, &str)] = &[
        (
            "return 0; return 0;",
            false,
            Some(Code::Unreachable),
            "vector #598",
        ),
        (
            "return 1; v.x = 5;",
            false,
            Some(Code::Unreachable),
            "vector #599",
        ),
        (
            "return 1; return 2;",
            false,
            Some(Code::Unreachable),
            "vector #158",
        ),
        (
            "{return 1; v.x = 2;};",
            true,
            Some(Code::Unreachable),
            "vector #603 (logged)",
        ),
        (
            "v.x = 0; loop(3, {continue; v.x = v.x + 1;});",
            true,
            Some(Code::Unreachable),
            "vector #600 (logged)",
        ),
        (
            "v.x = 0; loop(3, {break; v.x = v.x + 1;});",
            true,
            Some(Code::Unreachable),
            "vector #601 (logged)",
        ),
        (
            "loop(3, {v.i ? {break; v.i = 1;};});",
            true,
            Some(Code::Unreachable),
            "vector #602 (logged)",
        ),
        (
            "1 ? {return 9;}; v.x = 5;",
            true,
            None,
            "vector #604: a branch does not end the list",
        ),
        ("loop(3, {return 1;});", true, None, "vector #314"),
        ("break", false, Some(Code::BreakOutsideLoop), "vector #172"),
        (
            "break;",
            true,
            Some(Code::BreakOutsideLoop),
            "vector #173 (logged)",
        ),
        (
            "v.x ? break;",
            true,
            Some(Code::BreakOutsideLoop),
            "vector #615 (logged)",
        ),
        (
            "continue",
            true,
            Some(Code::ContinueOutsideLoop),
            "vector #626 (silent: our lint)",
        ),
        (
            "continue;",
            true,
            Some(Code::ContinueOutsideLoop),
            "vector #627 (silent: our lint)",
        ),
        (
            "v.x ? {continue;};",
            true,
            Some(Code::ContinueOutsideLoop),
            "vector #629",
        ),
        ("loop(2, {v.x ? break;});", true, None, "vector #620"),
    ];
    for &(src, loads, code, source) in rows {
        let (got_loads, codes) = outcome(src);
        assert_eq!(got_loads, loads, "{src} ({source}): {codes:?}");
        if let Some(c) = code {
            assert!(codes.contains(&c), "{src} ({source}): {codes:?}");
        }
        if code == Some(Code::ContinueOutsideLoop) {
            // The game logs nothing, so nothing of ours may stand for a game message.
            assert!(
                codes.iter().all(|c| *c == Code::ContinueOutsideLoop),
                "{src}: {codes:?}"
            );
        }
    }
    // What the loaded ones do.
    use Want::Num;
    check_rows(&[
        (
            "v.x = 0; loop(3, {continue; v.x = v.x + 1;}); return v.x;",
            Num(0.0),
            "vector #600: the unreachable statement never runs",
        ),
        (
            "v.x = 1; 1 ? {continue;}; v.x = 2; return v.x;",
            Num(2.0),
            "language #310: `continue` outside a loop does nothing",
        ),
        (
            "v.x = 1; 1 ? {break;}; v.x = 2; return v.x;",
            Num(2.0),
            "vector #618: logged and ignored",
        ),
        (
            "{return 1; v.x = 2;}; return 5;",
            Num(1.0),
            "vector #603: return ends the program",
        ),
    ]);
}

#[test]
fn jumps_as_operands_refused_from_version_3() {
    // molangx measured rows (engine logs): evaluated at version 2, refused from version 3.
    for src in [
        "v.count = 0; loop(3, {v.count = v.count + 1; (v.count == 2) ? break + 1; }); return v.count;",
        "v.count = 0; loop(3, {(v.count == 1) ? continue + 1; v.count = v.count + 1;}); return v.count;",
    ] {
        for (version, loads) in [(2, true), (3, false), (13, false)] {
            let o = CheckOptions {
                version,
                ..options()
            };
            let c = molang::check(src, &o, &mut molang::ir::Names::default());
            let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
            assert_eq!(c.loads(), loads, "{src} at version {version}: {codes:?}");
            if !loads {
                assert!(codes.contains(&Code::NonNumericOperand), "{codes:?}");
            }
        }
    }
    // Version 2 runs them: `break + 1` breaks (2), `continue + 1` skips the rest (1).
    for (src, want) in [
        ("v.count = 0; loop(3, {v.count = v.count + 1; (v.count == 2) ? break + 1; }); return v.count;", 2.0),
        ("v.count = 0; loop(3, {(v.count == 1) ? continue + 1; v.count = v.count + 1;}); return v.count;", 1.0),
    ] {
        let o = CheckOptions {
            version: 2,
            ..options()
        };
        let e = compile(src, &o).unwrap();
        let r = e.eval(&[], 0, &EvalOptions { version: 2, ..EvalOptions::default() });
        assert_eq!(r.value, Value::Num(want), "{src}");
    }
}

// ---- `->` targets ----------------------------------------------------------------------

#[test]
fn arrow_targets() {
    // (text, loads, code, source)
    let rows: &[(&str, bool, Option<Code>, &str)] = &[
        ("v.e->v.hp", true, None, "vector #519"),
        ("1->v.hp", true, None, "vector #522"),
        ("'a'->v.hp", true, None, "vector #523"),
        ("this->v.hp", true, None, "vector #524"),
        ("(v.a + 1)->v.hp", true, None, "vector #526"),
        (
            "c.owner->temp.x",
            false,
            Some(Code::ArrowRhs),
            "vector #533: not into a temp",
        ),
        (
            "c.owner->c.other",
            false,
            Some(Code::ArrowRhs),
            "vector #535",
        ),
        (
            "c.owner->math.pi",
            false,
            Some(Code::ArrowRhs),
            "vector #534",
        ),
        ("c.owner->1", false, Some(Code::ArrowRhs), "vector #538"),
        ("c.owner->this", false, Some(Code::ArrowRhs), "vector #540"),
        (
            "c.owner->v.a.b",
            false,
            Some(Code::ArrowRhs),
            "vector #542: not on a member",
        ),
        ("c.owner->(v.x)", true, None, "vector #539"),
        (
            "(c.a->v.b)->v.c",
            false,
            Some(Code::NestedArrow),
            "vector #543",
        ),
        (
            "v.owner->v.x = 1;",
            true,
            Some(Code::AssignThroughArrow),
            "vector #544 (logged)",
        ),
        (
            "v.x->v.y = 1;",
            true,
            Some(Code::AssignThroughArrow),
            "vector #504 (logged)",
        ),
        (
            "c.owner->v.x ?? 0",
            false,
            Some(Code::CoalesceLhs),
            "vector #546",
        ),
        (
            "v.x->temp.x = 0;",
            false,
            Some(Code::BadAssignTarget),
            "molangx measured reject row 28: assignment to non-variable ... Pointer '->'",
        ),
        (
            "c.owner->q.hp = 1;",
            false,
            Some(Code::BadAssignTarget),
            "molang-go arrow refusals",
        ),
    ];
    for &(src, loads, code, source) in rows {
        let (got, codes) = outcome(src);
        assert_eq!(got, loads, "{src} ({source}): {codes:?}");
        if let Some(c) = code {
            assert!(codes.contains(&c), "{src} ({source}): {codes:?}");
        }
    }
    // An assignment through an arrow is not performed: the other entity is untouched and
    // nothing is written here (vector #544, E43 "writing to another entity").
    let expr = compile("v.owner->v.x = 1; return v.x ?? 7;", &options()).unwrap();
    let r = expr.eval(
        &[("v.owner".into(), Value::Num(0.0))],
        0,
        &EvalOptions::default(),
    );
    assert_eq!(r.value, Value::Num(7.0));
}

// ---- Folding (category 6): the game's own compiler ------------------------------------

/// One folding row: source, inputs, the value on x86-64 and on arm64, and where it comes from
/// (`measured`: molangx `tests/measured_*.rs`, a value the game returned; `molangx numeric`: the
/// folded-vs-run-time list in molangx `src/numeric/mod.rs`; `vector #N`: a tree the game
/// printed; `rule`: molangx's optimiser and instruction forms, `src/compile/sema/` and
/// `src/numeric/`).
type FoldRow = (
    &'static str,
    &'static [(&'static str, f32)],
    Want,
    Want,
    &'static str,
);

/// `1 / 3` as the game folds it.
const THIRD: f32 = 1.0 / 3.0;

/// x86-64's default NaN, as `math.sqrt(-1)` gives it there.
const NEG_NAN: f32 = f32::from_bits(0xffc0_0000);

fn folding_rows() -> Vec<FoldRow> {
    use Want::*;
    vec![
        // The sign of a zero: a folded constant keeps it, the run-time form's `x·S + O` does not.
        (
            "-v.x",
            &[("v.x", 0.0)],
            Num(0.0),
            Num(0.0),
            "vector #1270: [v.x*-1+0]",
        ),
        (
            "-(0 * 1)",
            &[],
            Num(-0.0),
            Num(-0.0),
            "molangx numeric: a folded negation",
        ),
        (
            "-(v.a * v.b)",
            &[("v.a", 0.0), ("v.b", 1.0)],
            Num(0.0),
            Num(0.0),
            "molangx numeric",
        ),
        (
            "((-1) * (0)) + 0",
            &[],
            Num(0.0),
            Num(0.0),
            "molangx numeric",
        ),
        (
            "(v.a * v.b) + 0",
            &[("v.a", -1.0), ("v.b", 0.0)],
            Num(-0.0),
            Num(-0.0),
            "molangx numeric: (1, 0) applies nothing",
        ),
        (
            "v.a - v.b",
            &[("v.a", -0.0), ("v.b", 0.0)],
            Num(0.0),
            Num(0.0),
            "vector #40: (Add v.a [v.b*-1+0])",
        ),
        (
            "v.a - 0",
            &[("v.a", -0.0)],
            Num(-0.0),
            Num(-0.0),
            "rule: the offset 0 + (-0) is the identity",
        ),
        (
            "v.m = math.ceil(-0.5); return math.atan2(v.m, -1);",
            &[],
            Num(180.0),
            Num(180.0),
            "measured run_13 g02: assigned, -0 is +0",
        ),
        (
            "v.c = 1; v.m = v.c ? math.ceil(-0.5) : 7; return math.atan2(v.m, -1);",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g03: a branch keeps -0",
        ),
        (
            "v.c = 1; v.m = v.c ? (0 * -1) : 7; return math.atan2(v.m, -1);",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g07",
        ),
        (
            "v.c = 1; v.m = v.c ? -0 : 7; return math.atan2(v.m, -1);",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g08",
        ),
        (
            "v.c = 1; v.m = v.c ? math.copy_sign(0, -1) : 7; return math.atan2(v.m, -1);",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g06",
        ),
        (
            "v.h = -0.5; v.c = 1; v.m = v.c ? math.ceil(v.h) : 7; return math.atan2(v.m, -1);",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g01",
        ),
        // math.mod: folded, a 0 divisor is NaN and a -0 remainder stays; at run time 0 and +0.
        (
            "math.atan2(math.mod(-4, 2), -1)",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g09",
        ),
        (
            "v.c = 1; v.m = v.c ? math.mod(-4, 2) : 7; return math.atan2(v.m, -1);",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g04",
        ),
        (
            "v.c = 1; v.m = v.c ? math.mod(-3, 3) : 7; return math.atan2(v.m, -1);",
            &[],
            Num(-180.0),
            Num(-180.0),
            "measured run_13 g05",
        ),
        (
            "math.atan2(math.mod(v.a, 2), -1)",
            &[("v.a", -4.0)],
            Num(180.0),
            Num(180.0),
            "molangx numeric: run time +0",
        ),
        (
            "math.mod(3, 0)",
            &[],
            NaN,
            NaN,
            "molangx numeric: folded NaN",
        ),
        (
            "math.mod(3, v.k)",
            &[("v.k", 0.0)],
            Num(0.0),
            Num(0.0),
            "molangx numeric: run time 0",
        ),
        // A literal divisor is a multiplication by its reciprocal.
        (
            "v.x/0",
            &[("v.x", -2.0)],
            Num(-0.0),
            Num(-0.0),
            "vector #252: (Mul v.x 0)",
        ),
        (
            "v.k/0",
            &[("v.k", f32::NAN)],
            NaN,
            NaN,
            "molangx numeric: NaN times 0",
        ),
        (
            "math.sqrt(-1)/0",
            &[],
            Num(0.0),
            Num(0.0),
            "molangx numeric: folded 0",
        ),
        (
            "(1/3)/3",
            &[],
            Num(f32::from_bits(0x3de3_8e39)),
            Num(f32::from_bits(0x3de3_8e39)),
            "molangx numeric",
        ),
        (
            "v.k/3",
            &[("v.k", THIRD)],
            Num(f32::from_bits(0x3de3_8e3a)),
            Num(f32::from_bits(0x3de3_8e3a)),
            "molangx numeric: times 1/3",
        ),
        (
            "v.x / -2",
            &[("v.x", 3.0)],
            Num(-1.5),
            Num(-1.5),
            "rule: a literal divisor keeps its sign in every version",
        ),
        // A NaN divisor folds to 0 on both platforms; at run time x86-64 divides.
        (
            "1/math.sqrt(-1)",
            &[],
            Num(0.0),
            Num(0.0),
            "molangx numeric",
        ),
        (
            "1/v.k",
            &[("v.k", f32::NAN)],
            NaN,
            Num(0.0),
            "molangx numeric",
        ),
        // The constant terms of a sum are added first.
        (
            "1 * 1 + (1/3) + 2",
            &[],
            Num(f32::from_bits(0x4055_5556)),
            Num(f32::from_bits(0x4055_5556)),
            "molangx numeric",
        ),
        (
            "v.a * v.b + (1/3) + 2",
            &[("v.a", 1.0), ("v.b", 1.0)],
            Num(f32::from_bits(0x4055_5555)),
            Num(f32::from_bits(0x4055_5555)),
            "molangx numeric",
        ),
        (
            "v.a + v.b + 0.1 + 0.2",
            &[("v.a", 1.0), ("v.b", 0.0)],
            Num(1.0f32 + (0.1f32 + 0.2f32)),
            Num(1.0f32 + (0.1f32 + 0.2f32)),
            "rule: flattened, 0.1 + 0.2 first",
        ),
        (
            "v.x = 1.23; v.y = 2.34; return v.x + v.y + math.pi;",
            &[],
            Num(6.711_592_7),
            Num(6.711_592_7),
            "measured evaluation-002; vector #766",
        ),
        // Chained constant factors are multiplied first.
        (
            "(0.1*3)*(1/3)",
            &[],
            Num(f32::from_bits(0x3dcc_ccce)),
            Num(f32::from_bits(0x3dcc_ccce)),
            "molangx numeric",
        ),
        (
            "(v.k*3)*(1/3)",
            &[("v.k", 0.1)],
            Num(f32::from_bits(0x3dcc_cccd)),
            Num(f32::from_bits(0x3dcc_cccd)),
            "molangx numeric",
        ),
        (
            "3.4e38*3.4e38*1e-45+1",
            &[],
            Num(f32::INFINITY),
            Num(f32::INFINITY),
            "molangx numeric: folded overflow",
        ),
        (
            "v.k*3.4e38*1e-45+1",
            &[("v.k", 3.4e38)],
            Num(3.4e38f32 * (3.4e38f32 * 1e-45f32) + 1.0),
            Num(3.4e38f32.mul_add(3.4e38f32 * 1e-45f32, 1.0)),
            "molangx numeric: no overflow",
        ),
        // An infinite factor: the offset becomes ∞·0, a NaN.
        (
            "v.x * math.exp(1000)",
            &[("v.x", 2.0)],
            NaN,
            NaN,
            "molangx numeric",
        ),
        (
            "(v.x < 2) * math.exp(1000)",
            &[("v.x", 1.0)],
            NaN,
            NaN,
            "molangx numeric",
        ),
        // The post-operation is rounded once on arm64.
        (
            "(-1/3) * 3 + 1",
            &[],
            Num(0.0),
            Num(0.0),
            "molangx numeric: folded",
        ),
        (
            "v.d * 3 + 1",
            &[("v.d", -THIRD)],
            Num(0.0),
            Num(-(2f32.powi(-25))),
            "molangx numeric",
        ),
        (
            "v.x * 3 - 1",
            &[("v.x", THIRD)],
            Num(0.0),
            Num(2.980_232_2e-8),
            "rule: post_op.rs",
        ),
        // math.sign applies ±(S + O).
        (
            "v.x = -1; return math.sign(v.x) + 1;",
            &[],
            Num(-2.0),
            Num(-2.0),
            "molangx arithmetic.rs sign (issue 39)",
        ),
        (
            "v.x = -1; return math.sign(v.x) * -2 + 1;",
            &[],
            Num(1.0),
            Num(1.0),
            "molangx arithmetic.rs sign (issue 39)",
        ),
        (
            "v.x = 1; return math.sign(v.x) * -2 + 1;",
            &[],
            Num(-1.0),
            Num(-1.0),
            "rule",
        ),
        (
            "math.sign(-1) + 1",
            &[],
            Num(0.0),
            Num(0.0),
            "vector #1206-#1210: folded calls are plain",
        ),
        (
            "math.sign(v.n) + 1",
            &[("v.n", f32::NAN)],
            Num(2.0),
            Num(-2.0),
            "rule: sign(NaN) per platform",
        ),
        // A comparison or logic node picks S + O or O.
        (
            "(v.x > 1) * 2 + 1",
            &[("v.x", 2.0)],
            Num(3.0),
            Num(3.0),
            "rule",
        ),
        (
            "(v.x > 1) * 2 + 1",
            &[("v.x", 0.0)],
            Num(1.0),
            Num(1.0),
            "rule",
        ),
        ("1 - !v.x", &[("v.x", 0.0)], Num(0.0), Num(0.0), "rule"),
        // A division the guard stops is 0 without its post-operation.
        (
            "v.a / v.b + 1",
            &[("v.a", 1.0), ("v.b", 0.0)],
            Num(0.0),
            Num(0.0),
            "rule: instr.rs div_guard",
        ),
        (
            "v.a / v.b * 2 + 1",
            &[("v.a", 1.0), ("v.b", 4.0)],
            Num(1.5),
            Num(1.5),
            "rule",
        ),
        // Which NaN survives: a folded negation flips the sign, the run-time form keeps it.
        (
            "math.copy_sign(1, -math.sqrt(-1))",
            &[],
            Num(1.0),
            Num(-1.0),
            "molangx numeric: folded sign flip",
        ),
        (
            "math.copy_sign(1, -v.k)",
            &[("v.k", NEG_NAN)],
            Num(-1.0),
            Num(-1.0),
            "molangx numeric: k·(-1) keeps k's NaN",
        ),
        // arm64 scales the left factor of a product and the dividend of a quotient.
        (
            "v.k * v.j * 7",
            &[("v.k", 1.4), ("v.j", 0.75)],
            Num((1.4f32 * 0.75) * 7.0),
            Num(0.75f32 * (1.4 * 7.0)),
            "rule: instr.rs mul",
        ),
        (
            "v.k * v.j * 7 + 0.25",
            &[("v.k", 1.4), ("v.j", 0.75)],
            Num((1.4f32 * 0.75) * 7.0 + 0.25),
            Num((1.4f32 * 7.0).mul_add(0.75, 0.25)),
            "rule: instr.rs mul",
        ),
        (
            "v.a / v.b * 3 - 1",
            &[("v.a", 1.0), ("v.b", 3.0)],
            Num((1.0f32 / 3.0) * 3.0 - 1.0),
            Num(3.0f32 / 3.0 - 1.0),
            "rule: instr.rs div",
        ),
        (
            "v.x / 3 * 3 - 1",
            &[("v.x", 1.0)],
            Num(0.0),
            Num(THIRD.mul_add(3.0, -1.0)),
            "rule: (x·1/3)·3 − 1 as one post-operation",
        ),
        // Unchanged where the form agrees with left-to-right evaluation.
        (
            "v.x = 1.23; return v.x * 2 + 1;",
            &[],
            Num(1.23f32 * 2.0 + 1.0),
            Num(1.23f32.mul_add(2.0, 1.0)),
            "vector #770",
        ),
        (
            "v.x = 1.23; return v.x * -2 - 1;",
            &[],
            Num(1.23f32 * -2.0 - 1.0),
            Num(1.23f32.mul_add(-2.0, -1.0)),
            "vector #772",
        ),
        (
            "v.x = 1.23; return -v.x;",
            &[],
            Num(-1.23),
            Num(-1.23),
            "vector #1270, nonzero",
        ),
        (
            "return -!!0;",
            &[],
            Num(-0.0),
            Num(-0.0),
            "vector #1253: a constant keeps -0",
        ),
        (
            "v.a - -v.b",
            &[("v.a", 1.0), ("v.b", 2.0)],
            Num(3.0),
            Num(3.0),
            "vector #368: (Add v.a v.b)",
        ),
        (
            "v.x = 3; v.r = (v.x + 1) - v.x; return v.r;",
            &[],
            Num(0.0),
            Num(0.0),
            "measured run_10 o01: terms of one variable merge; a cancelled term takes its offset",
        ),
        (
            "v.x = 3; v.y = 4; v.r = (v.x + v.y + 1) - v.x - v.y; return v.r;",
            &[],
            Num(0.0),
            Num(0.0),
            "measured run_10 o02: every variable term cancels, one `-` at a time",
        ),
        (
            "v.x = 3; v.r = (v.x + 1) + (v.x + 2); return v.r;",
            &[],
            Num(9.0),
            Num(9.0),
            "measured run_10 o03: merged post-operations added: v.x*2+3",
        ),
        (
            "v.x = 2; v.r = (v.x == 1) + (v.x == 2); return v.r;",
            &[],
            Num(0.0),
            Num(0.0),
            "measured run_10 o04: terms that print alike (the constant each comparison took in is not printed) merge into twice the first",
        ),
        (
            "v.x = 2; v.r = math.max(v.x, 1) + math.max(v.x, 5); return v.r;",
            &[],
            Num(4.0),
            Num(4.0),
            "measured run_10 o05: print alike: twice math.max(v.x, 1)",
        ),
        (
            "v.x = 2; v.r = math.pow(v.x, 2) + math.pow(v.x, 3); return v.r;",
            &[],
            Num(8.0),
            Num(8.0),
            "measured run_10 o06: print alike: twice math.pow(v.x, 2)",
        ),
        (
            "v.x = 2; v.r = (v.x < 1) + (v.x < 3); return v.r;",
            &[],
            Num(0.0),
            Num(0.0),
            "measured run_10 o07: print alike: twice v.x < 1",
        ),
        (
            "v.a = 1; v.b = 1; v.c = 1; v.r = v.a && ((v.b && v.c) - 1); return v.r;",
            &[],
            Num(1.0),
            Num(1.0),
            "measured run_10 o08: a nested && is flattened, its post-operation dropped",
        ),
        (
            "v.z = 0; v.b = 1; v.c = 1; v.r = v.z || ((v.b || v.c) - 1); return v.r;",
            &[],
            Num(1.0),
            Num(1.0),
            "measured run_10 o09: a nested || is flattened, its post-operation dropped",
        ),
        (
            "v.a = 1; v.b = 1; v.c = 1; v.r = v.a && (1 - (v.b && v.c)); return v.r;",
            &[],
            Num(1.0),
            Num(1.0),
            "measured run_10 o10: flattened: 1 - x is x*-1+1, dropped",
        ),
        (
            "v.a = 1; v.b = 1; v.c = 1; v.r = v.a && -((v.b && v.c) - 1); return v.r;",
            &[],
            Num(1.0),
            Num(1.0),
            "measured run_10 o11: flattened: the negated post-operation dropped",
        ),
        (
            "v.x = 2; v.y = 3; v.r = ((v.x + v.y + 1) + (-v.x - v.y)); return v.r;",
            &[],
            Num(2.0),
            Num(2.0),
            "measured run_10 o12: every term cancels: the constant 1 keeps the sum's post-operation (1, 1), applied where it is assigned",
        ),
        (
            "v.x = 2; v.y = 3; v.z = 5; v.r = v.z * ((v.x + v.y + 1) + (-v.x - v.y)); return v.r;",
            &[],
            Num(10.0),
            Num(10.0),
            "measured run_10 o13: the cancelled sum as a factor: 1*1+1",
        ),
        (
            "v.x = 2; v.y = 3; v.z = 5; v.r = v.z + ((v.x + v.y + 1) + (-v.x - v.y)); return v.r;",
            &[],
            Num(7.0),
            Num(7.0),
            "measured run_10 o14: the cancelled sum as a term: 1*1+1",
        ),
        (
            "v.x = 2; v.y = 3; v.z = 5; v.r = math.max(v.z, ((v.x + v.y + 1) + (-v.x - v.y))); return v.r;",
            &[],
            Num(5.0),
            Num(5.0),
            "measured run_10 o15: the cancelled sum moved into math.max",
        ),
        (
            "v.x = 2; v.y = 3; v.w = 0.5; v.r = math.max(v.w, ((v.x + v.y + 1) + (-v.x - v.y))); return v.r;",
            &[],
            Num(2.0),
            Num(2.0),
            "measured run_10 o16: moved into math.max as 1*1+1",
        ),
        (
            "v.x = 2; v.y = 3; v.c = 1; v.r = v.c ? ((v.x + v.y + 1) + (-v.x - v.y)) : 7; return v.r;",
            &[],
            Num(1.0),
            Num(1.0),
            "measured run_13 g10: a branch of ?: takes the cancelled sum's value without its post-operation",
        ),
    ]
}

#[test]
fn folding_as_the_game_compiles() {
    for platform in Platform::ALL {
        let mut jit = 0;
        let rows = folding_rows();
        for &(src, inputs, x86, arm, source) in &rows {
            let want = if platform == Platform::X86_64 {
                x86
            } else {
                arm
            };
            jit += check_row(platform, src, inputs, want, source) as usize;
        }
        println!(
            "folding rows on {}: {} pass, {jit} of them also on the JIT",
            platform.name(),
            rows.len()
        );
        assert!(
            jit * 10 >= rows.len() * 9,
            "most folding rows must reach the JIT"
        );
    }
}

#[test]
fn folded_and_run_time_forms_differ_where_the_measurements_say() {
    // Each pair: the folded text and its run-time twin give different bits (the rows above
    // hold the values); a pair that agreed would test nothing.
    for (folded, run_time, inputs) in [
        (
            "-(0 * 1)",
            "-(v.a * v.b)",
            &[("v.a", 0.0), ("v.b", 1.0)][..],
        ),
        (
            "math.atan2(math.mod(-4, 2), -1)",
            "math.atan2(math.mod(v.a, 2), -1)",
            &[("v.a", -4.0)][..],
        ),
        ("math.sqrt(-1)/0", "v.k/0", &[("v.k", f32::NAN)][..]),
        ("(1/3)/3", "v.k/3", &[("v.k", THIRD)][..]),
        (
            "1 * 1 + (1/3) + 2",
            "v.a * v.b + (1/3) + 2",
            &[("v.a", 1.0), ("v.b", 1.0)][..],
        ),
        ("(0.1*3)*(1/3)", "(v.k*3)*(1/3)", &[("v.k", 0.1)][..]),
        (
            "math.sign(-1) + 1",
            "math.sign(v.x) + 1",
            &[("v.x", -1.0)][..],
        ),
    ] {
        for platform in Platform::ALL {
            let (a, _) = run_on(platform, folded, &[]);
            let (b, _) = run_on(platform, run_time, inputs);
            assert_ne!(
                a.to_bits(),
                b.to_bits(),
                "{folded} and {run_time} on {}",
                platform.name()
            );
        }
    }
}

#[test]
fn known_folding_divergences_still_differ() {
    // (key in edge-semantics.tsv, source, the value the game gave)
    let cases: &[(&str, &str, f32)] = &[];
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/divergences/edge-semantics.tsv");
    let listed = std::fs::read_to_string(&path).expect("tests/divergences/edge-semantics.tsv");
    for &(key, src, game) in cases {
        assert!(
            listed.lines().any(|l| l.starts_with(&format!("{key}\t"))),
            "{key} is not listed in {}",
            path.display()
        );
        for platform in Platform::ALL {
            let (ours, _) = run_on(platform, src, &[]);
            assert_ne!(
                ours.to_bits(),
                game.to_bits(),
                "{key} {src:?} now gives the game's {game:?} on {}: remove it from edge-semantics.tsv",
                platform.name()
            );
        }
    }
    // Every listed key has a case here.
    for line in listed
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let key = line.split('\t').next().unwrap_or_default();
        assert!(
            cases.iter().any(|c| c.0 == key),
            "{key} has no case in this test"
        );
    }
}
