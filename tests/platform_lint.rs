//! The platform lint (W0507, `molang/src/check/nan.rs`): a value that can be NaN reaching an
//! operator whose result then differs between x86-64 and arm64 is reported there with both
//! outcomes; a NaN that cannot arise, or that gives the same result on both, is not.

use molang::ir::Names;
use molang::{CheckOptions, Code};

fn warnings(src: &str) -> Vec<String> {
    let checked = molang::check(src, &CheckOptions::default(), &mut Names::default());
    checked
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::PlatformNan)
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn a_nan_reaching_a_sink_is_reported_with_both_outcomes() {
    let w = warnings("t.x = math.sqrt(v.x); return t.x < 1;");
    assert_eq!(
        w,
        ["on arm64 `t.x < 1` is true when `t.x` is NaN; on x86-64 it is false"]
    );
    assert_eq!(warnings("math.sign(math.ln(q.a))").len(), 1);
    assert_eq!(warnings("1 / math.acos(v.x * 2)").len(), 1);
    assert_eq!(warnings("math.max(0, math.sqrt(v.x))").len(), 1);
    assert_eq!(warnings("math.clamp(1, math.sqrt(v.x), 2)").len(), 1);
    assert_eq!(warnings("math.asin(math.sqrt(v.x))").len(), 1);
}

#[test]
fn no_warning_where_both_platforms_agree_or_no_nan_is_possible() {
    for src in [
        // Never negative: no NaN.
        "math.sqrt(math.max(v.x, 0)) < 1",
        "math.sqrt(math.pow(v.x, 2) + math.pow(v.y, 2)) < 1",
        "math.sqrt(math.abs(v.x)) < 1",
        // A distance: a square is never negative (the Doggoyle's IK writes it so).
        "t.dx = v.x - 1; t.d = math.sqrt(t.dx * t.dx + v.y * v.y); return t.d < 14;",
        "math.asin(math.clamp(v.x, -1, 1)) < 1",
        "math.acos(math.sin(v.x)) < 1",
        // `>` and `>=` are false with a NaN on both platforms.
        "math.sqrt(v.x) > 1",
        // The first operand of max: both platforms return the second.
        "math.max(math.sqrt(v.x), 0)",
        // Not reaching a sink.
        "math.sin(math.sqrt(v.x) * 360) * 11.46",
        // Inputs are numbers.
        "v.x < 1",
    ] {
        assert_eq!(warnings(src), Vec::<String>::new(), "{src}");
    }
}

#[test]
fn branches_and_loops_carry_the_nan() {
    assert_eq!(
        warnings("v.a = v.c ? math.sqrt(v.x) : 1; return v.a <= 2;").len(),
        1
    );
    assert_eq!(
        warnings("t.i = 0; loop(3, { t.i = math.ln(t.i - 1); }); return t.i < 0;").len(),
        1
    );
    // Reassigned before the comparison: no NaN any more.
    assert!(warnings("v.a = math.sqrt(v.x); v.a = 1; return v.a < 2;").is_empty());
}
