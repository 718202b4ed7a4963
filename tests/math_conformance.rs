//! The math library against the engine-measured tables in `../shared/conformance`: molang-go's
//! mathlib rows (values, ranges and scripted random draws), the math calls of its vanilla
//! rows, and molangx's evaluated math calls, each run through the crate's own pipeline
//! (parse, check, interpret) and compared by the conformance README's rules.

// Expected values are written with all the digits that pin their f32 bits.
#![allow(clippy::excessive_precision)]

mod common;

use molang::builtins::math::{eval_random, MathFn, MolangRng};
use molang::builtins::platform::Platform;
use serde_json::Value as Json;

/// The fields of a data row.
trait Row {
    fn str(&self, key: &str) -> Option<&str>;
    fn num(&self, key: &str) -> Option<f64>;
    fn flag(&self, key: &str) -> bool;
    fn arr(&self) -> &[Json];
}

impl Row for Json {
    fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Json::as_str)
    }
    fn num(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(Json::as_f64)
    }
    fn flag(&self, key: &str) -> bool {
        self.get(key).and_then(Json::as_bool) == Some(true)
    }
    fn arr(&self) -> &[Json] {
        self.as_array().expect("expected a JSON array")
    }
}

/// The README's check for a molangx folded constant printed with `digits` significant digits.
fn matches_digits(got: f32, tree: f64, digits: i32) -> bool {
    let got = f64::from(got);
    if tree == 0.0 {
        return got == 0.0;
    }
    let half_unit = 0.5 * 10f64.powi(tree.abs().log10().floor() as i32 - digits + 1);
    (got - tree).abs() <= half_unit
}

/// A data row's program, checked and run on the interpreter: its number, or why not.
fn run_molang(src: &str) -> Result<f32, String> {
    run_molang_on(Platform::X86_64, src)
}

/// [`run_molang`] following `platform`'s float rules.
fn run_molang_on(platform: Platform, src: &str) -> Result<f32, String> {
    let e = molang::compile(src, &molang::CheckOptions::default())
        .map_err(|e| format!("does not compile: {e:?}"))?;
    let options = molang::EvalOptions {
        platform,
        ..molang::EvalOptions::default()
    };
    match e.eval(&[], 0, &options).value {
        molang::Value::Num(v) => Ok(v),
        other => Err(format!("not a number: {other:?}")),
    }
}

/// Rows whose recorded value we knowingly do not reproduce, each with its reason.
#[test]
fn molang_go_mathlib_rows() {
    for platform in Platform::ALL {
        mathlib_rows_on(platform);
    }
}

/// The mathlib rows on `platform`. A row we do not reproduce on either platform is listed with
/// its reason in `tests/divergences/eval-molang-go-mathlib.tsv` (key: `#` and the row's index);
/// the rows were measured on x86-64, so an arm64-only failure is listed in
/// `tests/divergences/math-arm64.tsv` (key: the expression).
fn mathlib_rows_on(platform: Platform) {
    let rows = common::read_json("conformance/molang-go-mathlib.json");
    let (mut passed, mut total, mut diverged) = (0, 0, 0);
    let mut failures = Vec::new();
    let arm64_known = match platform {
        Platform::X86_64 => Default::default(),
        Platform::Arm64 => common::divergences("math-arm64.tsv"),
    };
    let known = common::divergences("eval-molang-go-mathlib.tsv");
    let mut fixed = Vec::new();
    let run_molang = |src: &str| run_molang_on(platform, src);
    for (index, row) in rows.arr().iter().enumerate() {
        let key = format!("#{index}");
        let kind = row.str("kind").unwrap();
        let expr = row.str("expr").unwrap();
        match kind {
            "eval" => {
                total += 1;
                let got = run_molang(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
                let ok = common::matches(
                    got,
                    row.num("want"),
                    row.str("want_special"),
                    row.num("tol"),
                );
                if ok {
                    passed += 1;
                    if arm64_known.contains_key(expr) || known.contains_key(&key) {
                        fixed.push(format!("{key} {expr}"));
                    }
                } else if let Some(why) = known.get(&key) {
                    diverged += 1;
                    eprintln!("mathlib: known divergence {expr} = {got}: {why}");
                } else if let Some(why) = arm64_known.get(expr) {
                    diverged += 1;
                    eprintln!("mathlib on arm64: {expr} = {got}: {why}");
                } else {
                    failures.push(format!("{expr}: got {got:e}, want {:?}", row.num("want")));
                }
            }
            "range" => {
                total += 1;
                let got = run_molang(expr).unwrap();
                let range = row.get("range").unwrap().arr();
                let (Some(lo), Some(hi)) = (range[0].as_f64(), range[1].as_f64()) else {
                    panic!("range")
                };
                // The row's note also requires a non-zero value (the table holds -8.74e-8).
                if f64::from(got) >= lo && f64::from(got) <= hi && got != 0.0 {
                    passed += 1;
                } else {
                    failures.push(format!("{expr}: {got:e} not in [{lo}, {hi}] or zero"));
                }
            }
            _ => {}
        }
    }
    eprintln!(
        "mathlib on {}: {passed}/{total} passed, {diverged} known divergence(s)",
        platform.name()
    );
    assert_none_failed("mathlib", &failures);
    common::assert_listed("listed mathlib divergences", &fixed, &[]);
    assert_eq!(passed + diverged, total);
}

/// The stub-RNG rows, reproduced with scripted words: floats 0.25, 0.5, 0.75 come out as
/// those samples, and molang-go's integers `k` (offset by `lo`) as the sample
/// `(k + 0.5) / (hi − lo + 1)`, which our integer draw floors to `lo + k`.
#[test]
fn molang_go_stub_rng_rows() {
    struct Words(Vec<u32>, usize);
    impl MolangRng for Words {
        fn next_u32(&mut self) -> u32 {
            self.1 += 1;
            self.0[self.1 - 1]
        }
    }
    let word = |r: f64| (r * 2_147_483_648.0).round() as u32;
    let int_word = |k: f64, span: f64| word((k + 0.5) / span);
    let cases: [(MathFn, [f32; 3], Vec<u32>, f32); 5] = [
        (MathFn::Random, [0.0, 1.0, 0.0], vec![word(0.25)], 0.25),
        (MathFn::Random, [10.0, 20.0, 0.0], vec![word(0.25)], 12.5),
        (
            MathFn::RandomInteger,
            [1.0, 6.0, 0.0],
            vec![int_word(1.0, 6.0)],
            2.0,
        ),
        (
            MathFn::DieRoll,
            [2.0, 0.0, 10.0],
            vec![word(0.25), word(0.5)],
            7.5,
        ),
        (
            MathFn::DieRollInteger,
            [2.0, 1.0, 6.0],
            vec![int_word(1.0, 6.0), int_word(2.0, 6.0)],
            5.0,
        ),
    ];
    let rows = common::read_json("conformance/molang-go-mathlib.json");
    let stub_rows: Vec<&Json> = rows
        .arr()
        .iter()
        .filter(|r| r.str("kind") == Some("stub_rng"))
        .collect();
    assert_eq!(stub_rows.len(), cases.len());
    for (row, (f, args, words, want)) in stub_rows.iter().zip(cases) {
        assert_eq!(
            row.num("want"),
            Some(f64::from(want)),
            "{}",
            row.str("expr").unwrap()
        );
        let draws = words.len();
        let mut rng = Words(words, 0);
        let got = eval_random(f, &args[..f.arity()], &mut rng);
        // Every scripted want is a finite number: its bits are the answer.
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{f:?}: got {got:e}, want {want:e}"
        );
        assert_eq!(rng.1, draws, "{f:?} draw count");
    }
    eprintln!("mathlib stub_rng: 5/5 reproduced with scripted draws");
}

#[test]
fn molang_go_vanilla_math_rows() {
    let rows = common::read_json("conformance/molang-go-vanilla.json");
    let (mut passed, mut total, mut exact) = (0, 0, 0);
    let mut failures = Vec::new();
    for row in rows.arr() {
        let expr = row.str("expr").unwrap();
        if !expr.contains("math.") {
            continue;
        }
        total += 1;
        match run_molang(expr) {
            Ok(got) if common::matches(got, row.num("want"), None, None) => {
                passed += 1;
                exact += usize::from(got.to_bits() == (row.num("want").unwrap() as f32).to_bits());
            }
            Ok(got) => failures.push(format!(
                "[{}] {expr}: got {got:e} ({:#010x}), want {:?}",
                row.str("group").unwrap(),
                got.to_bits(),
                row.num("want")
            )),
            Err(e) => failures.push(format!("{expr}: not evaluated: {e}")),
        }
    }
    eprintln!("vanilla math rows: {passed}/{total} passed, {exact} of them bit-exact");
    assert_none_failed("vanilla", &failures);
}

/// molangx `evaluated_math_calls` rows whose tree folded to one number, minus the rows the
/// README marks as untrustworthy (`tree_value_unchecked`) or arm64-only (810, 852, 900, 936).
#[test]
fn molangx_evaluated_math_calls() {
    let data = common::read_json("conformance/molangx-parse-vectors.json");
    let digits = data
        .get("groups")
        .and_then(|g| g.get("evaluated_math_calls"))
        .and_then(|g| g.num("tree_float_digits"))
        .expect("tree_float_digits") as i32;
    let arm64_only = [810, 852, 900, 936];
    let (mut passed, mut total, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for (index, v) in data.get("vectors").unwrap().arr().iter().enumerate() {
        if v.str("group") != Some("evaluated_math_calls") {
            continue;
        }
        let Some(tree) = v.str("tree").and_then(|t| t.parse::<f64>().ok()) else {
            continue;
        };
        if v.flag("tree_value_unchecked") || arm64_only.contains(&index) {
            skipped += 1;
            continue;
        }
        total += 1;
        let expr = v.str("expr").unwrap();
        match run_molang(expr) {
            Ok(got) if matches_digits(got, tree, digits) => passed += 1,
            Ok(got) => failures.push(format!("#{index} {expr}: got {got:.9e}, tree {tree}")),
            Err(e) => failures.push(format!("#{index} {expr}: not evaluated: {e}")),
        }
    }
    eprintln!("molangx evaluated_math_calls: {passed}/{total} passed ({skipped} skipped)");
    assert_none_failed("molangx", &failures);
}

/// Fails with every failure listed, one a line, under `what`.
#[track_caller]
fn assert_none_failed(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{what} failures:\n{}",
        failures.join("\n")
    );
}
