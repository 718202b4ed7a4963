//! The JIT must agree with the interpreter bit for bit (f32, NaN included): on random
//! well-formed programs (proptest; `JIT_CASES` sets the count, default 5,000) and on every
//! value row of the engine conformance tables (needs `../shared/conformance/`).

mod common;

use molang::fuzz::strategies::{self, ProgramConfig};
use molang::{CheckOptions, EvalOptions, EvalResult, Value};
use proptest::prelude::*;

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// Compares everything observable: value, how the run ended, and the final variables.
fn agree(
    src: &str,
    inputs: &[(String, Value)],
    seed: u64,
    options: &EvalOptions,
) -> Result<bool, String> {
    let check = CheckOptions {
        warn_unknown_queries: false,
        ..CheckOptions::default()
    };
    let Ok(expr) = molang::compile(src, &check) else {
        return Ok(false);
    };
    let native = match expr.compile_native(options) {
        Ok(n) => n,
        Err(molang::jit::JitError::Unsupported(_)) => return Ok(false),
        Err(e) => return Err(format!("{src}: {e}")),
    };
    let a: EvalResult = expr.eval(inputs, seed, options);
    let b: EvalResult = expr.eval_native(&native, inputs, seed, options);
    let vars_agree = a.variables.len() == b.variables.len()
        && a.variables
            .iter()
            .zip(&b.variables)
            .all(|((n1, v1), (n2, v2))| n1 == n2 && same(v1, v2));
    if !same(&a.value, &b.value) || a.abort != b.abort || !vars_agree {
        return Err(format!(
            "{src}\n  interp: {:?} abort {:?} vars {:?}\n  jit:    {:?} abort {:?} vars {:?}",
            a.value, a.abort, a.variables, b.value, b.abort, b.variables
        ));
    }
    Ok(true)
}

/// Well-formed programs the JIT compiles (no strings, no `->`): every builtin with its
/// arity, conditionals, loops with `break`/`continue`, `??`, structs, assignments, temps,
/// queries with arguments and `return` (the crate's public generator).
fn program() -> impl Strategy<Value = String> {
    strategies::program(&ProgramConfig::jit())
}

/// Up to 6 of the program's inputs plus a temp and an unused context, any f32 bits.
fn inputs() -> impl Strategy<Value = Vec<(String, Value)>> {
    let mut names = ProgramConfig::jit().input_names();
    names.push("t.t".to_string());
    names.push("c.unused".to_string());
    strategies::inputs(names, 6)
}

fn cases() -> u32 {
    std::env::var("JIT_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn jit_matches_interpreter_on_random_programs(src in program(), ins in inputs(), seed in any::<u64>(), cap in prop::option::of(0u32..4)) {
        let options = EvalOptions { loop_cap: cap, iteration_budget: 2_000, ..EvalOptions::default() };
        if let Err(e) = agree(&src, &ins, seed, &options) {
            prop_assert!(false, "{}", e);
        }
    }
}

#[test]
fn random_programs_reach_both_back_ends() {
    // Guards the generator: programs that do not load or compile test nothing.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = program();
    let mut native = 0;
    for _ in 0..500 {
        let src = strategy.new_tree(&mut runner).unwrap().current();
        let options = EvalOptions {
            iteration_budget: 2_000,
            ..EvalOptions::default()
        };
        if agree(&src, &[], 0, &options).unwrap() {
            native += 1;
        }
    }
    println!("random programs through both back ends: {native}/500");
    assert!(
        native >= 490,
        "only {native}/500 random programs compiled natively"
    );
}

#[test]
fn jit_matches_interpreter_on_conformance_values() {
    let mut compiled = 0;
    let mut total = 0;
    let mut rows: Vec<String> = Vec::new();
    for file in [
        "molang-go-vanilla.json",
        "molang-go-language.json",
        "molang-go-parity.json",
        "molang-go-mathlib.json",
        "molang-go-grouping.json",
    ] {
        let data = common::read_json(&format!("conformance/{file}"));
        for row in data.as_array().unwrap() {
            if let Some(e) = row["expr"].as_str() {
                rows.push(e.to_string());
            }
        }
    }
    for version in [13i16, 6, 4] {
        for src in &rows {
            total += 1;
            let options = EvalOptions {
                version,
                ..EvalOptions::default()
            };
            let check = CheckOptions {
                version,
                warn_unknown_queries: false,
                ..CheckOptions::default()
            };
            let Ok(expr) = molang::compile(src, &check) else {
                continue;
            };
            let Ok(native) = expr.compile_native(&options) else {
                continue;
            };
            compiled += 1;
            let a = expr.eval(&[], 1, &options);
            let b = expr.eval_native(&native, &[], 1, &options);
            assert!(
                same(&a.value, &b.value) && a.abort == b.abort,
                "v{version} {src}: interp {:?} {:?}, jit {:?} {:?}",
                a.value,
                a.abort,
                b.value,
                b.abort
            );
        }
    }
    println!("conformance expressions through the JIT: {compiled} of {total} compiled natively, all bit-identical to the interpreter");
    assert!(compiled > total / 2);
}

#[test]
fn jit_budget_stops_endless_loops() {
    let expr = molang::compile(
        "loop(1e9, { v.x = (v.x ?? 0) + 1; });",
        &CheckOptions::default(),
    )
    .unwrap();
    let options = EvalOptions {
        iteration_budget: 100_000,
        ..EvalOptions::default()
    };
    let native = expr.compile_native(&options).unwrap();
    let r = expr.eval_native(&native, &[], 0, &options);
    assert!(matches!(
        r.abort.map(|a| a.kind),
        Some(molang::interp::AbortKind::Budget)
    ));
    assert_eq!(r.variable("x"), Some(Value::Num(100_000.0)));
}

/// The JIT lowers `math.pow(x, 2)` to `x * x`; that is only sound if the builtin gives the same
/// bits for every f32, which this checks over a spread of bit patterns and the special values.
#[test]
fn pow_two_is_the_rounded_square() {
    use molang::builtins::math::{eval, MathFn};
    let mut bits: u32 = 0x9e37_79b9;
    let specials = [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::MAX,
        1e-45,
        -3.5,
    ];
    let samples = specials.into_iter().chain((0..2_000_000).map(|_| {
        bits ^= bits << 13;
        bits ^= bits >> 17;
        bits ^= bits << 5;
        f32::from_bits(bits)
    }));
    for x in samples {
        let p = eval(MathFn::Pow, &[x, 2.0]);
        let m = x * x;
        assert!(
            p.to_bits() == m.to_bits() || (p.is_nan() && m.is_nan()),
            "pow({x:e}, 2) = {p:e} but x*x = {m:e}"
        );
    }
}

/// Queries with arguments: native code passes the evaluated arguments to the host, as the
/// interpreter does.
#[test]
fn jit_queries_with_arguments_reach_the_host() {
    use molang::builtins::math::{DefaultRng, MolangRng};
    use molang::interp::Host;
    use molang::ir::Slot;
    use molang::jit::{JitStorage, QueryArgs};

    struct Sum;
    impl QueryArgs for Sum {
        fn query(&mut self, q: Slot, args: &[f32]) -> f32 {
            q.0 as f32 * 100.0 + args.iter().sum::<f32>()
        }
    }
    struct InterpSum(DefaultRng);
    impl Host for InterpSum {
        fn query(&mut self, q: Slot, args: &[Value]) -> Value {
            Value::Num(q.0 as f32 * 100.0 + args.iter().map(|a| a.as_num()).sum::<f32>())
        }
        fn rng(&mut self) -> &mut dyn MolangRng {
            &mut self.0
        }
    }
    let src =
        "t.a = q.position_delta(0) * 2; return t.a + q.position_delta(2) + q.head_x_rotation(1, 2, 0);";
    let expr = molang::compile(src, &CheckOptions::default()).unwrap();
    let options = EvalOptions::default();
    let native = expr.compile_native(&options).unwrap();
    let want = expr
        .eval_in(&mut InterpSum(DefaultRng::new(0)), &[], &options)
        .value;
    let mut storage = JitStorage::for_names(expr.names());
    let queries = vec![0.0; expr.names().queries.len()];
    let got = native.run_with_queries(
        &mut storage,
        &queries,
        0.0,
        &mut DefaultRng::new(0),
        1000,
        &mut Sum,
    );
    assert_eq!(got, molang::jit::JitOutcome::Value(want.as_num()));
    // position_delta is slot 0, head_x_rotation slot 1: (0 + 0)·2 + (0 + 2) + (100 + 1 + 2 + 0).
    assert_eq!(want.as_num(), 105.0);
}
