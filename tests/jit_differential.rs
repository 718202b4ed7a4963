//! The JIT must agree with the interpreter bit for bit (f32, NaN included): on random
//! well-formed programs (strings, `->`, `for_each` over entity lists and `array.name[i]`
//! included, against the test world `molang::fuzz::world::World`), on every builtin,
//! comparison and computed query with edge values (NaN, infinities, `-0`, ...) in every
//! argument position, and on every value row of the engine conformance tables (needs
//! `../shared/conformance/`).
//!
//! The random programs are reproducible: `JIT_CASES` (default 5,000) cases from `JIT_SEED`
//! (default 13); a failure prints the shrunk program, its inputs and both results with
//! their bit patterns. A long run, in chunks so that partial runs count:
//!
//! ```text
//! JIT_SEED=1 JIT_CASES=100000 nice -n 10 cargo test --release --test jit_differential \
//!     jit_matches_interpreter_on_random_programs -- --nocapture
//! ```
//!
//! Long run after the `fneg` fix (2026-12-01, 14:06-14:34 UTC, 2 cores shared by 6 jobs): the
//! test-profile binary (opt-level 1, dependencies 2; a release build did not fit the time),
//! `JIT_SEED=<seed> JIT_CASES=10000 nice -n 10 <jit_differential binary>
//! jit_matches_interpreter_on_random_programs`, seeds 1001 to 1018 one after the other:
//! 180,000 cases, all agree, 1,669 s wall in total (56-143 s per chunk under load). The
//! 1,000,000 cases were not reached there. Before the fix, seed 2 failed (kept in
//! `random_run_regressions`).
//!
//! The recorded 1,000,000-case run, on main after the JIT's string and execution-seam merge
//! (2026-12-01, 15:20-15:47 UTC, idle 2 cores, same test-profile binary and command): seeds
//! 1019 to 1118, 10,000 cases each, two chunks at a time: 1,000,000 cases, all agree
//! (about 30 s per chunk). That run predates the generator's `->`, `for_each`, arrays and
//! strings (issue 21).
//!
//! The recorded 1,000,000-case run with that generator (issue 21), on main at `5b1c0ef`
//! (2026-12-01, 19:16-20:58 UTC, 2 cores shared with three helpers' builds, so slow): same
//! test-profile binary and command, seeds 2001 to 2100, 10,000 cases each, two chunks at a
//! time: 1,000,000 cases, all agree (39-40 s per chunk when the machine was idle, up to
//! 1,287 s under load).
//!
//! Both platforms: the random case's seed picks the float rules with its second bit, so half
//! the cases run arm64's (`EvalOptions::platform`), and the edge sweep runs every program on
//! both (arm64 results compared bit for bit, payloads included). Recorded run (2026-12-05,
//! same test-profile binary and command): seed 41, 15,000 cases, all agree (109 s).
// Test tables are tuples on purpose: each row reads as one case.
#![allow(clippy::type_complexity)]

mod common;

use molang::builtins::math::MathFn;
use molang::builtins::platform::Platform;
use molang::fuzz::oracle::{self, same, show, show_vars, Verdict};
use molang::fuzz::strategies::{self, ProgramConfig};
use molang::fuzz::world::World;
use molang::{CheckOptions, EvalOptions, EvalResult, Value};
use proptest::prelude::*;

/// Compares everything observable (the library's oracle): `Ok(false)` when the program does
/// not load, `Ok(true)` when both back ends agree, the difference otherwise.
fn agree(
    src: &str,
    inputs: &[(String, Value)],
    seed: u64,
    options: &EvalOptions,
) -> Result<bool, String> {
    match oracle::interp_vs_jit(src, inputs, seed, options) {
        Verdict::Refused => Ok(false),
        Verdict::Agree => Ok(true),
        Verdict::Differ(why) => Err(why),
    }
}

/// Well-formed programs: every builtin with its arity, conditionals, loops with
/// `break`/`continue`, `??`, structs, strings, assignments, temps, queries with arguments,
/// `->`, `for_each`, arrays and `return` (the crate's public generator).
fn program() -> impl Strategy<Value = String> {
    strategies::program(&ProgramConfig::jit())
}

/// Up to 6 of the program's inputs plus a temp and an unused context, any f32 bits, then the
/// entity and list references (which win when both set a name).
fn inputs() -> impl Strategy<Value = Vec<(String, Value)>> {
    let cfg = ProgramConfig::jit();
    let mut names = cfg.input_names();
    names.push("t.t".to_string());
    names.push("c.unused".to_string());
    (
        strategies::inputs(names, 6),
        strategies::reference_inputs(&cfg),
    )
        .prop_map(|(mut n, r)| {
            n.extend(r);
            n
        })
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={s:?} is not a whole number")),
        Err(_) => default,
    }
}

/// The seed CI uses (any fixed value: a run is reproducible from its seed and case count).
const DEFAULT_SEED: u64 = 13;

/// One random case: program, inputs, random seed, loop cap and Molang version.
type Case = (String, Vec<(String, Value)>, u64, Option<u32>, i16);

fn case() -> impl Strategy<Value = Case> {
    (
        program(),
        inputs(),
        any::<u64>(),
        prop::option::of(0u32..4),
        // Division by a negative run-time value changed at version 7.
        prop::sample::select(&[13i16, 6, 4][..]),
    )
}

/// Runs `cases` random cases from `seed` and panics with the shrunk failure, printed as
/// the Molang source with its inputs and both results' bit patterns. Reproduce a failure
/// with the same `JIT_SEED` and `JIT_CASES`.
fn run_random(seed: u64, cases: u32) {
    use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
    use std::sync::atomic::{AtomicU64, Ordering};
    println!("JIT_SEED={seed} JIT_CASES={cases}");
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        max_shrink_iters: 100_000,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key));
    let started = std::time::Instant::now();
    let ran = AtomicU64::new(0);
    let result = runner.run(&case(), |(src, ins, rng_seed, cap, version)| {
        let n = ran.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(50_000) {
            eprintln!("  {n} cases, {:.0} s", started.elapsed().as_secs_f64());
        }
        let options = oracle::case_options(version, cap, rng_seed);
        agree(&src, &ins, rng_seed, &options)
            .map(|_| ())
            .map_err(TestCaseError::fail)
    });
    match result {
        Ok(()) => println!(
            "{cases} random programs from seed {seed}: interpreter and JIT agree ({:.0} s)",
            started.elapsed().as_secs_f64()
        ),
        Err(TestError::Fail(why, (_, ins, rng_seed, cap, version))) => panic!(
            "interpreter and JIT disagree (JIT_SEED={seed} JIT_CASES={cases}; shrunk case: \
             version {version}, loop cap {cap:?}, math.random seed {rng_seed}, inputs {})\n{why}",
            show_vars(&ins)
        ),
        Err(e) => panic!("JIT_SEED={seed}: {e}"),
    }
}

/// `JIT_CASES` (default 5,000) random cases from `JIT_SEED` (default [`DEFAULT_SEED`]).
#[test]
fn jit_matches_interpreter_on_random_programs() {
    let cases = env_u64("JIT_CASES", 5_000);
    let seed = env_u64("JIT_SEED", DEFAULT_SEED);
    run_random(
        seed,
        u32::try_from(cases).expect("JIT_CASES fits in 32 bits"),
    );
}

#[test]
fn random_programs_reach_both_back_ends() {
    // Guards the generator: programs that do not load or compile test nothing.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = program();
    let mut native = 0;
    let mut refused = Vec::new();
    for _ in 0..500 {
        let src = strategy.new_tree(&mut runner).unwrap().current();
        let options = EvalOptions {
            iteration_budget: 2_000,
            ..EvalOptions::default()
        };
        if agree(&src, &[], 0, &options).unwrap() {
            native += 1;
        } else if refused.len() < 5 {
            let check = CheckOptions {
                warn_unknown_queries: false,
                ..CheckOptions::default()
            };
            let why = molang::compile(&src, &check).err().map(|e| {
                let d: Vec<String> = e.diagnostics.iter().map(|d| d.message.clone()).collect();
                d.join("; ")
            });
            refused.push(format!("{src}\n  {why:?}"));
        }
    }
    println!("random programs through both back ends: {native}/500");
    for r in &refused {
        println!("refused: {r}");
    }
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
    use molang::jit::JitStorage;

    struct Sum(DefaultRng);
    impl Host for Sum {
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
        .eval_in(&mut Sum(DefaultRng::new(0)), &[], &options)
        .value;
    let mut storage = JitStorage::for_names(expr.names());
    let queries = vec![0.0; expr.names().queries.len()];
    let got = native.run_with_host(&mut storage, &queries, &mut Sum(DefaultRng::new(0)), 1000);
    assert_eq!(got, molang::jit::JitOutcome::Value(want.as_num()));
    // position_delta is slot 0, head_x_rotation slot 1: (0 + 0)·2 + (0 + 2) + (100 + 1 + 2 + 0).
    assert_eq!(want.as_num(), 105.0);
}

/// Edge arguments: zeros of both signs, NaNs of both signs (a quiet one, the x86 default
/// NaN that `math.sqrt(-1)` makes, a signalling payload), infinities, extremes, subnormals,
/// the division guard's threshold and everyday values (angles, fractions).
const EDGES: &[u32] = &[
    0x0000_0000, // 0
    0x8000_0000, // -0
    0x7fc0_0000, // NaN
    0xffc0_0000, // -NaN (x86 default NaN)
    0x7fa0_0001, // signalling NaN payload
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x4060_0000, // 3.5
    0xc2b4_0000, // -90
    0x4334_0000, // 180
    0x7f7f_ffff, // f32::MAX
    0x0000_0001, // smallest subnormal
    0x3400_0000, // 2^-23, the division guard
];

/// Fewer values for three-argument positions (the full product would be 4,096 per builtin).
const EDGES3: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0000,
    0xff80_0000,
    0x3f80_0000,
    0xc060_0000, // -3.5
    0x3f00_0000,
];

/// NaN's sign is observable (`math.copy_sign`), so here two NaNs agree only with equal signs.
fn same_observable(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits()
        || (a.is_nan() && b.is_nan() && a.is_sign_negative() == b.is_sign_negative())
}

/// `src` checked (unknown queries allowed) and compiled for the JIT, with default options.
fn both_back_ends(src: &str) -> (molang::Expression, molang::jit::JitProgram, EvalOptions) {
    both_back_ends_on(Platform::X86_64, src)
}

/// [`both_back_ends`] following `platform`'s float rules.
fn both_back_ends_on(
    platform: Platform,
    src: &str,
) -> (molang::Expression, molang::jit::JitProgram, EvalOptions) {
    let check = CheckOptions {
        warn_unknown_queries: false,
        ..CheckOptions::default()
    };
    let expr = molang::compile(src, &check).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    let options = EvalOptions {
        platform,
        ..EvalOptions::default()
    };
    let native = expr
        .compile_native(&options)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    (expr, native, options)
}

/// Every assignment of `values` (f32 bits) to the inputs `names`, the first name changing
/// fastest.
fn combinations<'a>(
    names: &'a [&str],
    values: &'a [u32],
) -> impl Iterator<Item = Vec<(String, Value)>> + 'a {
    (0..values.len().pow(names.len() as u32)).map(move |k| {
        let mut rest = k;
        names
            .iter()
            .map(|n| {
                let x = f32::from_bits(values[rest % values.len()]);
                rest /= values.len();
                (n.to_string(), Value::Num(x))
            })
            .collect()
    })
}

/// Runs `src` on both back ends for every combination of `values` in the inputs `names`;
/// returns the number of runs and the first disagreement.
fn sweep(src: &str, names: &[&str], values: &[u32]) -> (usize, Option<String>) {
    sweep_on(Platform::X86_64, src, names, values)
}

/// [`sweep`] on `platform`. On arm64 every NaN is chosen in software (`builtins::platform`),
/// so there the two back ends must give the same bits, payloads included.
fn sweep_on(
    platform: Platform,
    src: &str,
    names: &[&str],
    values: &[u32],
) -> (usize, Option<String>) {
    let (expr, native, options) = both_back_ends_on(platform, src);
    let mut runs = 0;
    for ins in combinations(names, values) {
        let a = expr.eval(&ins, 7, &options);
        let b = expr.eval_native(&native, &ins, 7, &options);
        runs += 1;
        let (x, y) = (a.value.as_num(), b.value.as_num());
        let same = match platform {
            Platform::X86_64 => same_observable(x, y),
            Platform::Arm64 => x.to_bits() == y.to_bits(),
        };
        if !same || a.abort != b.abort {
            return (
                runs,
                Some(format!(
                    "{src} on {} with {}: interp {}, jit {}",
                    platform.name(),
                    show_vars(&ins),
                    show(&a.value),
                    show(&b.value)
                )),
            );
        }
    }
    (runs, None)
}

/// Every builtin, operator, comparison and computed query, with every edge value (NaN of both
/// signs included) in every argument position, read from variables so that nothing folds.
#[test]
fn every_builtin_comparison_and_query_agrees_on_edge_arguments() {
    let args = ["v.a", "v.b", "v.c"];
    let mut programs: Vec<(String, usize)> = MathFn::ALL
        .iter()
        .filter(|f| f.arity() > 0)
        .map(|f| {
            let n = f.arity();
            (format!("math.{}({})", f.name(), args[..n].join(", ")), n)
        })
        .collect();
    programs.push(("math.pow(v.a, 2)".to_string(), 1));
    for op in [
        "+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=", "&&", "||", "??",
    ] {
        programs.push((format!("v.a {op} v.b"), 2));
    }
    programs.push(("-v.a".to_string(), 1));
    programs.push(("!v.a".to_string(), 1));
    programs.push(("v.a ? v.b : v.c".to_string(), 3));
    programs.push(("v.a ? v.b".to_string(), 2));
    for q in ["all", "any", "in_range"] {
        programs.push((format!("q.{q}(v.a, v.b, v.c)"), 3));
    }
    programs.push(("q.approx_eq(v.a, v.b)".to_string(), 2));
    programs.push(("q.approx_eq(v.a, v.b, v.c)".to_string(), 3));
    programs.push(("q.count(v.a, v.b)".to_string(), 2));
    let mut runs = 0;
    let mut failures = Vec::new();
    for (body, arity) in &programs {
        // The result itself, and its sign through `copy_sign` (a NaN's sign included).
        for src in [body.clone(), format!("math.copy_sign(1, {body})")] {
            let values = if *arity == 3 { EDGES3 } else { EDGES };
            for platform in Platform::ALL {
                let (n, failure) = sweep_on(platform, &src, &args[..*arity], values);
                runs += n;
                failures.extend(failure);
            }
        }
    }
    println!(
        "{} programs on both platforms, {runs} runs with edge arguments: {} disagreements",
        programs.len() * 2,
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same operators with operands from every kind of storage: a variable (kept in a
/// register), a temp, a query (loaded where it is used, which the code generator may fold
/// into the instruction and so reorder a commutative operation) and `this`. With two NaNs of
/// different signs the result's sign depends on the operand order.
#[test]
fn operators_agree_whatever_storage_their_operands_come_from() {
    let sources = ["v.a", "t.a", "q.a", "this"];
    let second = ["v.b", "t.b", "q.b", "this"];
    let nans = &[0x7fc0_0000, 0xffc0_0000, 0x3f80_0000, 0x8000_0000];
    let mut runs = 0;
    let mut failures = Vec::new();
    for a in sources {
        for b in second {
            let names = if a == b { vec![a] } else { vec![a, b] };
            let mut bodies: Vec<String> = ["+", "-", "*", "/", "<", ">=", "==", "!="]
                .iter()
                .map(|op| format!("{a} {op} {b}"))
                .collect();
            for f in ["min", "max", "atan2", "mod", "pow", "copy_sign"] {
                bodies.push(format!("math.{f}({a}, {b})"));
            }
            bodies.push(format!("-({a}) * -({b})"));
            bodies.push(format!("-({a}) + -({b})"));
            bodies.push(format!("math.lerp({a}, {b}, 0.5)"));
            bodies.push(format!("math.clamp({a}, {b}, 1)"));
            bodies.push(format!("q.in_range({a}, {b}, 1)"));
            for body in bodies {
                for src in [body.clone(), format!("math.copy_sign(1, {body})")] {
                    let (n, failure) = sweep(&src, &names, nans);
                    runs += n;
                    failures.extend(failure);
                }
            }
        }
    }
    println!(
        "{runs} runs of operators over mixed storage: {} disagreements",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Cranelift's mid-end rewrites `(-x) * (-y)` to `x * y` (rule `fmul_fneg_fneg`). With a NaN
/// factor that flips the sign of the NaN the product carries (x86 returns the NaN operand,
/// negated or not), which `math.copy_sign` makes visible: the interpreter, which negates and
/// then multiplies, gives -1 for `-(NaN) * -(2)` and the rewritten native code gave 1. Found
/// by reading Cranelift's rewrite rules after a 100,000-case random run failed unrecorded.
#[test]
fn product_of_negated_nan_keeps_its_sign() {
    // The game's compiler turns `-x` of a run-time `x` into the post-operation `x·(−1) + 0`
    // (molang/src/fold.rs), and x86's multiply returns a NaN operand with its sign: every
    // product below carries `v.a`'s positive NaN. Both back ends must still agree.
    for (src, want) in [
        ("math.copy_sign(1, -(v.a) * -(v.b))", 1.0f32),
        ("math.copy_sign(1, -(v.b) * -(v.a))", 1.0),
        ("math.copy_sign(1, -(v.a) * -(v.a))", 1.0),
        ("math.copy_sign(1, -(-(v.a)) * -(v.b))", 1.0),
    ] {
        let expr = molang::compile(src, &CheckOptions::default()).unwrap();
        let options = EvalOptions::default();
        let native = expr.compile_native(&options).unwrap();
        // v.a is the quiet NaN with the sign bit clear, v.b an ordinary number.
        let ins = [
            ("v.a".to_string(), Value::Num(f32::from_bits(0x7fc0_0000))),
            ("v.b".to_string(), Value::Num(2.0)),
        ];
        let a = expr.eval(&ins, 0, &options).value;
        let b = expr.eval_native(&native, &ins, 0, &options).value;
        assert_eq!(a, Value::Num(want), "{src}: interpreter");
        assert_eq!(b, Value::Num(want), "{src}: JIT");
    }
}

/// Shrunk failures of the random run, kept as they were printed (`JIT_SEED`, program, inputs).
/// Each must load, compile natively and agree.
#[test]
fn random_run_regressions() {
    let cases: &[(&str, &str)] = &[
        // JIT_SEED=2 JIT_CASES=100000, version 13, no inputs: `pow(x, 2)` becomes `x * x`, and
        // with `x = -(NaN)` Cranelift turned `fneg(n) * fneg(n)` into `n * n`, so the square's
        // NaN had the other sign and `copy_sign` gave -0 instead of 0
        // (see `product_of_negated_nan_keeps_its_sign`).
        (
            "seed 2",
            "v.x = 0; (((1) ? (1))) ? { v.x = math.copy_sign(((0) ? (0)), math.pow(-(math.sqrt(-1)), 2)); };",
        ),
    ];
    for (origin, src) in cases {
        let options = EvalOptions {
            iteration_budget: 2_000,
            ..EvalOptions::default()
        };
        assert_eq!(agree(src, &[], 0, &options), Ok(true), "{origin}: {src}");
    }
}

/// A program of [`arrows_entity_lists_and_arrays_give_the_rules_values_on_both_back_ends`],
/// its inputs, the value it gives and whether it aborts (then its value is 0).
struct WorldCase {
    src: &'static str,
    inputs: Vec<(String, Value)>,
    want: Value,
    aborts: bool,
}

/// `src` gives the number `want` without inputs.
fn gives(src: &'static str, want: f32) -> WorldCase {
    WorldCase {
        src,
        inputs: Vec::new(),
        want: Value::Num(want),
        aborts: false,
    }
}

impl WorldCase {
    /// With one more input.
    fn on(mut self, input: (String, Value)) -> WorldCase {
        self.inputs.push(input);
        self
    }

    /// With the input `name` = `value`.
    fn with(self, name: &str, value: Value) -> WorldCase {
        self.on((name.to_string(), value))
    }

    /// The run aborts (its value is then 0, whatever `want` says).
    fn aborting(mut self) -> WorldCase {
        self.aborts = true;
        self
    }
}

/// `->`, `for_each` and `array.name[i]` against the test world (`molang::fuzz::world`), with
/// the values the rules give: both back ends must produce them.
#[test]
fn arrows_entity_lists_and_arrays_give_the_rules_values_on_both_back_ends() {
    use molang::interp::AbortKind;
    let entity = |e| ("c.e".to_string(), Value::Entity(e));
    let nan_neg = f32::from_bits(0xffc0_0000);
    let cases: Vec<WorldCase> = vec![
        // Remote variables: slot 0 (`x`) of entity 1 is (1 + 0) % 5 = 1 → 1·10 + 0.
        gives("c.e->v.x", 10.0).on(entity(1)),
        // Entity 2: (2 + 0) % 5 = 2 → -0; entity 3 → the NaN with the sign bit set.
        gives("c.e->v.x", -0.0).on(entity(2)),
        gives("c.e->v.x", nan_neg).on(entity(3)),
        // Entity 4 does not exist, nor does 7: 0, and the run goes on.
        gives("c.e->v.x + 1", 1.0).on(entity(7)),
        // A string, compared as one: `y` is slot 1, (3 + 1) % 5 = 4 → 'warm'; `x` is the NaN.
        gives("(c.e->v.x == 0) + (c.e->v.y == 'warm') * 2", 2.0).on(entity(3)),
        // A variable the other entity does not have ((3 + 2) % 5 = 0) reads 0, no abort.
        gives("t.a = c.e->v.a; t.b = c.e->v.b; return (c.e->v.c) + 2;", 2.0).on(entity(3)),
        // Remote queries: 100·entity + slot + Σ args (`q.f` is query slot 0).
        gives("c.e->q.f(1, 2)", 203.0).on(entity(2)),
        // Not an entity: 0, and the arguments are not evaluated (no unset-read abort).
        gives("c.e->q.f(t.unset)", 0.0).with("c.e", Value::Num(1.0)),
        gives("c.e->q.f(t.unset)", 0.0).on(entity(1)).aborting(),
        // for_each over list 2 = [1, 2, 3]: q.a is query slot 1 → 101 + 201 + 301.
        gives(
            "t.s = 0; for_each(v.e, q.entities(2), { t.s = t.s + v.e->q.a; }); return t.s;",
            603.0,
        ),
        // List 3 = [3, 7, 1, 1]; q.entity(3) is entity 7: break there, continue past it.
        gives(
            "v.n = 0; for_each(v.e, q.entities(3), { (v.e == q.entity(3)) ? break; v.n = v.n + 1; }); return v.n;",
            1.0,
        ),
        gives(
            "v.n = 0; for_each(v.e, q.entities(3), { (v.e == q.entity(3)) ? continue; v.n = v.n + 1; }); return v.n;",
            3.0,
        ),
        // A list from a context, counted; a number is no list (nothing runs, count 1).
        gives(
            "v.n = 0; for_each(v.e, c.list, { v.n = v.n + 1; }); return v.n * 10 + q.count(c.list);",
            44.0,
        )
        .with("c.list", Value::EntityList(3)),
        gives(
            "v.n = 0; for_each(v.e, c.list, { v.n = v.n + 1; }); return v.n * 10 + q.count(c.list);",
            1.0,
        )
        .with("c.list", Value::Num(3.0)),
        // The loop budget, 100: 4 per outer round (the round and 3 entities), so the 26th
        // round ends the run with v.n = 75.
        gives(
            "v.n = 0; loop(100, { for_each(v.e, q.entities(2), { v.n = v.n + 1; }); });",
            0.0,
        )
        .aborting(),
        // The index rule on `array.a` (3 elements): max(0, i), truncated, modulo 3.
        gives(
            "(array.a[4.7] == array.a[1]) + (array.a[-2] == array.a[0]) * 2 + (array.a[3] == array.a[0]) * 4 + (array.a[2.999] == array.a[2]) * 8 + (array.a[1.9] != array.a[2]) * 16",
            31.0,
        ),
        // NaN and +inf: NaN is 0; inf saturates to 2^64 - 1, which 3 divides.
        gives(
            "(array.a[math.sqrt(-1)] == array.a[0]) + (array.a[1e39] == array.a[0]) * 2 + (array.a[-1e39] == array.a[0]) * 4",
            7.0,
        ),
        // `array.b` (slot 1) is empty: every index is element 0; `q.count` counts the sizes.
        gives(
            "(array.a[0] == array.a[0]) + (array.b[5] == array.b[0]) * 2 + q.count(array.a, array.b, array.c) * 4",
            19.0,
        ),
        // Elements, arrays and resources are values: stored, compared by identity, true.
        gives(
            "t.g = array.a[1]; return (t.g == array.a[4]) + (t.g != geometry.default) * 2 + (array.a[1] ? 4 : 0);",
            7.0,
        ),
    ];
    let check = CheckOptions {
        warn_unknown_queries: false,
        ..CheckOptions::default()
    };
    let options = EvalOptions {
        iteration_budget: 100,
        ..EvalOptions::default()
    };
    for case in cases {
        let WorldCase {
            src,
            inputs,
            want,
            aborts,
        } = case;
        let expr =
            molang::compile(src, &check).unwrap_or_else(|e| panic!("{src}: {:?}", e.diagnostics));
        let native = expr
            .compile_native(&options)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let world = || World::new(expr.names(), &inputs, 0);
        let a = expr.eval_in(&mut world(), &inputs, &options);
        let b = expr.eval_native_in(&native, &mut world(), &inputs, &options);
        for (who, r) in [("interpreter", &a), ("JIT", &b)] {
            let value = if aborts { Value::Num(0.0) } else { want };
            assert!(
                same(&r.value, &value),
                "{src}: {who} gives {}, want {}",
                show(&r.value),
                show(&value)
            );
            assert_eq!(
                r.abort.is_some(),
                aborts,
                "{src}: {who} abort {:?}",
                r.abort
            );
        }
        assert_eq!(a.abort, b.abort, "{src}");
        assert_eq!(a.variables, b.variables, "{src}");
        if src.starts_with("v.n = 0; loop(100") {
            assert_eq!(a.abort.map(|x| x.kind), Some(AbortKind::Budget), "{src}");
            assert_eq!(a.variable("n"), Some(Value::Num(75.0)), "{src}");
        }
    }
}

/// Two quiet NaNs of distinct payloads and signs, and three numbers (±, and +0).
const NAN_PAYLOADS_AND_NUMBERS: &[u32] = &[
    0x7fc0_0001,
    0xffc0_0002,
    0x3fc0_0000,
    0xc060_0000,
    0x0000_0000,
];

/// Quiet NaNs with distinct payloads and both signs, a signalling one (x86 quiets it to
/// `0x7fe0_0003` when it goes through arithmetic), and a number.
const PAYLOADS: &[u32] = &[0x7fc0_0001, 0xffc0_0002, 0x7fa0_0003, 0x3fc0_0000];

/// Runs `src` on both back ends for every combination of `PAYLOADS` in `names` and returns
/// the runs and the first disagreement in the exact bits of the value or of any variable or
/// temp the run leaves (two NaNs agree only with the same payload and sign).
fn sweep_bits(src: &str, names: &[&str]) -> (usize, Option<String>) {
    sweep_bits_over(src, names, PAYLOADS)
}

/// [`sweep_bits`] over the inputs `values` instead of `PAYLOADS`.
fn sweep_bits_over(src: &str, names: &[&str], values: &[u32]) -> (usize, Option<String>) {
    let (expr, native, options) = both_back_ends(src);
    let bits = |r: &EvalResult| -> Vec<(String, u32)> {
        let num = |(n, v): &(String, Value)| (n.clone(), v.as_num().to_bits());
        std::iter::once(("value".to_string(), r.value.as_num().to_bits()))
            .chain(r.variables.iter().map(num))
            .chain(r.temps.iter().map(num))
            .collect()
    };
    let mut runs = 0;
    for ins in combinations(names, values) {
        runs += 1;
        let a = expr.eval(&ins, 7, &options);
        let b = expr.eval_native(&native, &ins, 7, &options);
        if bits(&a) != bits(&b) || a.abort != b.abort {
            let show_bits = |v: Vec<(String, u32)>| {
                let parts: Vec<String> = v.iter().map(|(n, x)| format!("{n} 0x{x:08x}")).collect();
                parts.join(", ")
            };
            return (
                runs,
                Some(format!(
                    "{src} with {}:\n  interp {}\n  jit    {}",
                    show_vars(&ins),
                    show_bits(bits(&a)),
                    show_bits(bits(&b))
                )),
            );
        }
    }
    (runs, None)
}

/// Every program agrees bit for bit on both back ends for each pair of `values` (f32 bits) in
/// `v.a` and `v.b`; prints the run count.
fn agree_on_values_of_a_and_b(programs: &[&str], values: &[u32]) {
    agree_on_values(programs, |_| vec!["v.a", "v.b"], values);
}

/// Every program agrees bit for bit on both back ends for each combination of `values` (f32
/// bits) in the inputs `inputs` names for it; prints the run count.
fn agree_on_values(programs: &[&str], inputs: impl Fn(&str) -> Vec<&'static str>, values: &[u32]) {
    let mut runs = 0;
    let mut failures = Vec::new();
    for src in programs {
        let (n, failure) = sweep_bits_over(src, &inputs(src), values);
        runs += n;
        failures.extend(failure);
    }
    println!(
        "{} programs, {runs} runs: {} disagreements",
        programs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// NaN payloads, not just signs, agree bit for bit whichever side of an operator or argument
/// list each operand is on and wherever it comes from: a variable (an SSA value), a temp, a
/// query and a context (plain loads at their use, which x86 lowering may fold into the
/// instruction as its memory operand), `this`, a constant, a NaN constant, a slot assigned
/// earlier in the program, and a computed value. x86's `addss`/`mulss`/... return the first
/// source operand's NaN when both are NaN, so an operand order swapped behind our back shows
/// as the other payload (Cranelift's rule `(fadd $F32 (sinkable_load_32 x) y)` in
/// `x64/lower.isle` does exactly that).
#[test]
fn nan_payloads_agree_bit_for_bit_whatever_side_and_storage() {
    // (operand, the inputs it reads, statements that must run before it)
    let side = |s: char| -> Vec<(String, Vec<String>, String)> {
        let n = |p: &str| format!("{p}.{s}");
        vec![
            (n("v"), vec![n("v")], String::new()),
            (n("t"), vec![n("t")], String::new()),
            (n("q"), vec![n("q")], String::new()),
            (n("c"), vec![n("c")], String::new()),
            ("this".into(), vec!["this".into()], String::new()),
            ("2.5".into(), vec![], String::new()),
            ("math.sqrt(-1)".into(), vec![], String::new()),
            // A variable stored earlier in the same program (its SSA value is the store).
            (
                format!("v.s{s}"),
                vec![n("q")],
                format!("v.s{s} = {};", n("q")),
            ),
            (format!("({} * 1)", n("v")), vec![n("v")], String::new()),
        ]
    };
    let (left, right) = (side('a'), side('b'));
    let binary: Vec<&dyn Fn(&str, &str) -> String> = vec![
        &|a, b| format!("{a} + {b}"),
        &|a, b| format!("{a} - {b}"),
        &|a, b| format!("{a} * {b}"),
        &|a, b| format!("{a} / {b}"),
        &|a, b| format!("({a} + {b}) * {a}"),
        &|a, b| format!("{b} * ({a} - {b})"),
        &|a, b| format!("math.min({a}, {b})"),
        &|a, b| format!("math.max({a}, {b})"),
        &|a, b| format!("math.clamp({a}, {b}, 3)"),
        &|a, b| format!("math.clamp({a}, -3, {b})"),
        &|a, b| format!("math.clamp(0.5, {a}, {b})"),
        &|a, b| format!("math.lerp({a}, {b}, 0.25)"),
        &|a, b| format!("math.inverse_lerp({a}, {b}, 0.25)"),
        &|a, b| format!("math.hermite_blend({a}) + {b}"),
        &|a, b| format!("math.abs({a}) * {b}"),
        &|a, b| format!("math.sqrt({a}) - {b}"),
        &|a, b| format!("math.floor({a}) + {b}"),
        &|a, b| format!("math.mod({a}, {b})"),
        &|a, b| format!("math.pow({a}, {b})"),
        &|a, b| format!("math.atan2({a}, {b})"),
        &|a, b| format!("math.copy_sign({a}, {b})"),
        &|a, b| format!("math.pow({a}, 2) + {b}"),
        &|a, b| format!("-{a} * {b}"),
    ];
    let mut programs = 0;
    let mut runs = 0;
    let mut failures = Vec::new();
    for (a, a_in, a_pre) in &left {
        for (b, b_in, b_pre) in &right {
            let mut names: Vec<&str> = a_in.iter().chain(b_in).map(String::as_str).collect();
            names.dedup();
            for op in &binary {
                let body = op(a, b);
                // As the value, and stored into a variable (a store of the result).
                for src in [
                    format!("{a_pre}{b_pre}return {body};"),
                    format!("{a_pre}{b_pre}v.out = {body}; return 0;"),
                ] {
                    programs += 1;
                    let (n, failure) = sweep_bits(&src, &names);
                    runs += n;
                    failures.extend(failure);
                }
            }
        }
    }
    println!(
        "{programs} programs, {runs} runs with NaN payloads: {} disagreements",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagreements, the first 40:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}

/// A division by a value whose numerator can neither abort nor change anything is computed
/// before the tiny-divisor test (`select(tiny, 0, n / d)`) and shared like `+ - *`, with the
/// pure calls on it; one whose numerator may abort (an unset read) or draw a random number
/// still evaluates it only when the divisor is not tiny. Divisors on both sides of 2^-23,
/// zeros, infinities and NaNs of distinct payloads; the exact bits of the value, of every
/// variable and temp, and the abort must agree.
#[test]
fn division_shared_by_value_keeps_the_tiny_divisor_rule() {
    const DIVISORS: &[u32] = &[
        0x0000_0000, // 0
        0x8000_0000, // -0
        0x33ff_ffff, // just under 2^-23: tiny
        0xb400_0000, // -2^-23: not tiny (the test is strict)
        0x7fc0_0001, // NaN
        0xffc0_0002, // -NaN, another payload
        0x7f80_0000, // inf
        0x3fc0_0000, // 1.5
        0xc060_0000, // -3.5
    ];
    let programs = [
        "return v.a / v.b;",
        "t.x = v.a / v.b; t.y = v.a / v.b; return t.x - t.y;",
        "return math.cos(180 * (v.a / v.b)) + math.sin(v.a / v.b) * math.cos(180 * (v.a / v.b));",
        "return (v.a + 1) / v.b - (v.a + 1) / v.b;",
        "return (v.a / v.b) / v.b;",
        "return v.a / math.abs(v.b) + v.a / math.abs(v.b);",
        "t.u = v.a; return math.cos(t.u / v.b) * math.cos(t.u / v.b);",
        "return v.b ? (v.a / v.b) : (v.a / v.b) + v.a / v.b;",
        "return v.a / 0.25 + v.a / 0.25 + v.a / 0;",
        "t.n = q.a / v.b; return t.n + q.a / v.b;",
        "t.s = 0; loop(2, { t.s = t.s + v.a / v.b; }); return t.s + v.a / v.b;",
        "v.o = -v.a / v.b; return -v.a / v.b;",
        // The numerator reads an unset variable: the run aborts only when the divisor is not
        // tiny (the interpreter never reads it otherwise).
        "v.o = v.unset / v.b; return 1;",
        "v.o = (v.a + v.unset) / v.b; return v.a / v.b;",
        // A random draw in the numerator happens only when the divisor is not tiny, which the
        // next draw shows.
        "t.r = math.random(0, 1) / v.b; return math.random(0, 1);",
        // An assignment in the numerator (a nested block) runs only then too.
        "t.r = ({ v.k = v.a; v.k; }) / v.b; return v.k ?? 7;",
    ];
    let inputs = |src: &str| {
        if src.contains("q.a") {
            vec!["q.a", "v.b"]
        } else {
            vec!["v.a", "v.b"]
        }
    };
    agree_on_values(&programs, inputs, DIVISORS);
}

/// A slot read after a call is loaded again from storage instead of kept live across the
/// call (`SlotState` in `jit/lower/mod.rs`), and memo keys name the load by the value it
/// repeats, so what was computed from the slot before the call is shared after it. That
/// naming must end where the slot may hold another value: an assignment, one in a branch arm
/// (after the merge), a loop body's. Each program computes something from a slot, makes a
/// call, maybe changes the slot, makes another call and computes the same thing again; a
/// stale sharing gives the old value. The reload is a load, so it also sits on the left of
/// `+` and `*` with NaNs of distinct payloads on both sides.
#[test]
fn reload_after_a_call_shares_only_while_the_slot_is_unchanged() {
    let programs = [
        // Shared across the call: the same bits either way.
        "t.p = v.a * 3; t.c = math.cos(v.b); return v.a * 3 + t.p + t.c;",
        "t.c = math.cos(v.b); return v.a + v.b;",
        "t.c = math.cos(v.b); return v.a * v.b - v.b * v.a;",
        "t.p = math.sin(v.a); t.c = math.cos(v.b); return math.sin(v.a) + t.c;",
        // Assigned after the first computation: the second must see the new value.
        "t.p = v.a * 3; t.c = math.cos(v.b); v.a = v.b + 1; t.s = math.sin(v.b); return v.a * 3 - t.p;",
        "t.p = v.a * 3; v.a = v.b; t.s = math.sin(v.b); return v.a * 3 + t.p;",
        // Assigned in one arm only.
        "t.p = v.a * 2; t.c = math.cos(v.b); v.b > 0 ? { v.a = v.b; }; t.d = math.sin(v.b); return v.a * 2 + t.p;",
        "t.p = v.a * 2; t.c = math.cos(v.b); v.b > 0 ? { v.a = v.b; t.e = math.sin(v.a); }; return v.a * 2 + t.p;",
        "t.p = v.a * 2; v.a = v.b > 0 ? math.cos(v.a) : v.a; t.d = math.sin(v.b); return v.a * 2 + t.p;",
        "t.p = v.a * 2; t.c = math.cos(v.b); v.b > 0 ? { v.b < 9 ? { v.a = v.b; }; }; t.d = math.sin(v.b); return v.a * 2 + t.p;",
        // Reloaded in one arm, read after the merge.
        "t.p = v.a * 2; t.c = math.cos(v.b); t.q = v.b > 0 ? v.a * 2 : 1; t.d = math.sin(v.b); return v.a * 2 + t.p + t.q;",
        // Through temps and struct-like copies of a slot.
        "t.u = v.a; t.p = t.u * 5; t.c = math.cos(v.b); t.u = t.u + 1; t.d = math.sin(t.u); return t.u * 5 - t.p;",
        "t.u = v.a; t.c = math.cos(v.b); v.a = t.u; t.d = math.cos(v.b); return v.a + t.u;",
        // A loop body: a later iteration sees what the body stored.
        "t.s = 0; loop(3, { t.s = t.s + math.cos(v.a); v.a = v.a + 1; }); return t.s + v.a * 2;",
        "t.p = v.a * 2; loop(2, { t.c = math.cos(v.b); v.a = v.a * 2; }); return v.a * 2 + t.p;",
    ];
    agree_on_values_of_a_and_b(&programs, NAN_PAYLOADS_AND_NUMBERS);
}

/// Constants where x86 wants them: a constant that is not a NaN on the left of `+` or `*`
/// is emitted on the right (where the constant pool is a memory operand), and a constant
/// that must be in a register (the left of `-` and `/`, a `?:` arm, the 1 of a comparison's
/// value) is a constant-pool load of its own (`in_register`, `jit/lower/mod.rs`). The bits
/// must not move: NaNs of distinct payloads, signed zeros and infinities against constants
/// on either side, a NaN constant (`math.sqrt(-1)`, folded) included, which must stay left.
#[test]
fn constants_on_either_side_keep_the_bits() {
    const VALUES: &[u32] = &[
        0x7fc0_0001, // NaN
        0xffc0_0002, // -NaN, another payload
        0x8000_0000, // -0
        0x0000_0000, // 0
        0x7f80_0000, // inf
        0xff80_0000, // -inf
        0x3fc0_0000, // 1.5
    ];
    let constants = [
        "2.5",
        "-0",
        "0",
        "1",
        "math.sqrt(-1)",
        "-math.sqrt(-1)",
        "3e38",
    ];
    let shapes: [&dyn Fn(&str) -> String; 15] = [
        &|c| format!("return {c} + v.a;"),
        &|c| format!("return v.a + {c};"),
        &|c| format!("return {c} * v.a;"),
        &|c| format!("return v.a * {c};"),
        &|c| format!("return {c} - v.a;"),
        &|c| format!("return {c} / v.a;"),
        &|c| format!("return {c} * (v.a + v.b) + {c} * v.b;"),
        &|c| format!("t.x = math.cos(v.b); return {c} * v.a + t.x;"),
        &|c| format!("return v.a > v.b ? {c} : v.b;"),
        &|c| format!("return math.clamp(v.a, {c}, v.b) + (v.a < v.b);"),
        &|c| format!("return math.hermite_blend(v.a) * {c};"),
        &|c| format!("return ({c} + {c}) * v.a - {c} / 4;"),
        // Comparisons with the constant in a register on either side, and `|x|`'s mask.
        &|c| format!("return (v.a < {c}) + (v.a <= {c}) * 2 + (v.a > {c}) * 4 + (v.a >= {c}) * 8;"),
        &|c| format!("return ({c} < v.a) + ({c} <= v.a) * 2 + ({c} > v.a) * 4 + ({c} >= v.a) * 8;"),
        &|c| {
            format!(
                "return math.abs(v.a) + math.abs({c}) * v.b + (math.abs(v.a) < {c}) + v.a / v.b;"
            )
        },
    ];
    let programs: Vec<String> = constants
        .iter()
        .flat_map(|c| shapes.iter().map(move |shape| shape(c)))
        .collect();
    let programs: Vec<&str> = programs.iter().map(String::as_str).collect();
    agree_on_values_of_a_and_b(&programs, VALUES);
}

/// `x = c ? a : x` as a statement stores only on the arm that changes `x`
/// (`conditional_store`, `jit/lower/storage.rs`); the other arm still ends the run when `x`
/// is unset (the interpreter reads it), and what is known after it (set, a number, shared
/// values computed from `x`) must hold on both paths. Kinds other than numbers, a loop, reads
/// after calls, and both arm orders.
#[test]
fn conditional_store_keeps_the_read_and_the_kinds() {
    let programs = [
        "v.x = v.a > 0 ? v.b : v.x; return v.x;",
        "v.x = v.a > 0 ? v.x : v.b; return v.x;",
        "v.x = v.a; v.x = v.b > 0 ? v.x * 2 : v.x; return v.x + v.x;",
        "v.x = v.a; v.x = v.b > 0 ? v.x : math.cos(v.x); t.y = math.sin(v.b); return v.x * 3;",
        "v.x = 'abc'; v.x = v.a > 0 ? 2 : v.x; return (v.x == 'abc') + v.x;",
        "v.x = 1; v.x = v.a > 0 ? 'q' : v.x; return (v.x == 'q') + v.x;",
        "t.x = v.a; t.p = t.x * 2; t.x = v.b > 0 ? t.x + 1 : t.x; return t.x * 2 + t.p;",
        "t.x = v.a; t.p = t.x * 2; t.c = math.cos(v.b); t.x = v.b > 0 ? t.x + 1 : t.x; t.d = math.sin(v.a); return t.x * 2 + t.p;",
        "t.s = 0; loop(3, { t.s = v.a > t.s ? t.s + 1 : t.s; }); return t.s;",
        "v.x = v.a < 0 ? v.b : v.x; v.x = v.b < 0 ? v.x : v.a; return v.x;",
        "v.a > 0 ? { v.x = v.b; }; v.x = v.b > 0 ? v.x + 1 : v.x; return v.x ?? 9;",
    ];
    agree_on_values_of_a_and_b(&programs, NAN_PAYLOADS_AND_NUMBERS);
}

/// Every variable of `e` as bits (`None` for an unset one), the rig's whole state.
fn state_bits(
    scripts: &molang::entity::EntityScripts,
    e: &molang::entity::EntityInstance,
) -> Vec<Option<u32>> {
    (0..scripts.names().variables.len())
        .map(|i| {
            e.variable_by_slot(scripts, molang::ir::Slot(i as u32))
                .map(|v| v.as_num().to_bits())
        })
        .collect()
}

/// The tiered start: the Doggoyle rig runs interpreted while its native code compiles on
/// another thread, and natively once it is ready. Whatever frame the switch comes at, every
/// variable after every frame has the bits of an interpreter-only rig run in lockstep:
/// switches forced at frames 0, 1, 2, 17 and 45 (the compile started and waited for there),
/// and one left to the thread's own timing (frames go on, the inputs cycling, until 20
/// frames ran natively).
#[test]
fn tier_switch_at_any_frame_keeps_the_interpreters_bits() {
    use ik_gait::runner::MolangRig;
    let p = ik_gait::RigParams::default();
    let g = ik_gait::generate::generate(&p);
    let sc = ik_gait::scenarios::find("trot-2.5").expect("scenario trot-2.5");
    let inputs = ik_gait::scenarios::inputs(&sc, 60.0, false);
    // Returns (frames run, of which interpreted on the tiered rig).
    let run = |switch: usize, wait: bool| -> (usize, usize) {
        let reference = MolangRig::from_generated(&p, &g, false).expect("the rig loads");
        let mut tiered = MolangRig::from_generated(&p, &g, false).expect("the rig loads");
        let (mut a, mut b) = (reference.instantiate(), tiered.instantiate());
        let (mut native, mut interpreted) = (0, 0);
        let mut handle = None;
        for f in 0..1_000_000 {
            if f == switch {
                let h = tiered.scripts.enable_jit_in_background();
                if wait {
                    h.join().expect("the compile thread ends");
                    assert!(tiered.scripts.is_native(), "native once the compile ended");
                } else {
                    handle = Some(h);
                }
            }
            if tiered.scripts.is_native() {
                native += 1;
            } else {
                interpreted += 1;
            }
            let inp = &inputs[f % inputs.len()];
            reference.frame(&mut a, inp).expect("the rig runs");
            tiered.frame(&mut b, inp).expect("the rig runs");
            assert_eq!(
                state_bits(&reference.scripts, &a),
                state_bits(&tiered.scripts, &b),
                "switch at frame {switch} (wait {wait}): frame {f} differs"
            );
            if native >= 20 && f >= 60 {
                break;
            }
        }
        assert!(native >= 20, "the compile thread never finished");
        if let Some(h) = handle {
            h.join().expect("the compile thread ends");
        }
        (native + interpreted, interpreted)
    };
    for k in [0, 1, 2, 17, 45] {
        let (_, interpreted) = run(k, true);
        assert_eq!(interpreted, k, "switch at frame {k}");
    }
    let (frames, interpreted) = run(0, false);
    println!("compile left to its thread: {interpreted} of {frames} frames interpreted");
}

/// `math.sin` and `math.cos` of arguments written alike are one call for both
/// (`sin_cos_pairs`, `jit/lower/builtins.rs`), whose results are shared by value: each half
/// must be its own function's bits (NaN payloads, infinities, huge angles), and the partner
/// must not be shared where the argument's value changed or where the call did not run (a
/// branch arm).
#[test]
fn sin_and_cos_of_one_argument_share_one_call() {
    const VALUES: &[u32] = &[
        0x7fc0_0001, // NaN
        0xffc0_0002, // -NaN, another payload
        0x8000_0000, // -0
        0x7f80_0000, // inf
        0x41f0_0000, // 30
        0x42b4_0000, // 90
        0x4974_2400, // 1e6
        0x7149_f2ca, // 1e30
    ];
    let programs = [
        "return math.sin(v.a) + math.cos(v.a);",
        "return math.cos(v.a) * 2 - math.sin(v.a);",
        "t.s = math.sin(v.a); t.c = math.cos(v.a); return t.c - t.s * 4;",
        "return math.sin(v.a * 2 + v.b) - math.cos(v.a * 2 + v.b);",
        "return math.cos(math.max(v.a, v.b)) / math.sin(math.max(v.a, v.b));",
        // The argument's value changes between the two.
        "t.c = math.cos(v.a); v.a = v.b; return math.sin(v.a) + t.c;",
        "t.c = math.cos(v.a); v.a = v.a + 1; return math.sin(v.a) - t.c + math.cos(v.a);",
        // The first of the pair runs in one arm only.
        "v.b > 0 ? { t.s = math.sin(v.a); }; return math.cos(v.a) + (t.s ?? 0);",
        "t.x = v.b > 0 ? math.cos(v.a) : 1; return math.sin(v.a) * t.x;",
        // Three of one function, one of the other, and a loop.
        "return math.sin(v.a) + math.sin(v.b) + math.cos(v.b) + math.sin(v.a + 0);",
        "t.s = 0; loop(3, { t.s = t.s + math.sin(v.a) * math.cos(v.a); v.a = v.a + v.b; }); return t.s;",
    ];
    agree_on_values_of_a_and_b(&programs, VALUES);
}

/// Where the C math library is glibc, the JIT calls `sin`, `cos`, `sincos`, `atan`, `atan2`,
/// `exp`, `log` and `pow` itself and does the builtin wrapper's work around the call inline
/// (`Libm`, `jit/abi.rs`): the `f32` product with `DEG_TO_RAD` before `sin` and `cos`, with
/// `RAD_TO_DEG` after `atan` and `atan2`, the widening to `f64` and the narrowing back. Each
/// gives the wrapper's bits: one-argument builtins over 4,096 spread `f32`s (both signs, NaN
/// payloads, infinities, subnormals) and the angles next to each multiple of 90° in ±5760°,
/// a sin/cos pair (one `sincos` call, both halves kept in temps), and the two-argument ones
/// over a 64 × 64 grid.
#[test]
fn c_math_calls_give_the_builtins_bits() {
    let mut one: Vec<u32> = (0..4096u32)
        .map(|i| (i << 20) | ((i * 0x101) & 0xf_ffff))
        .collect();
    for k in -64i32..=64 {
        let x = (k as f32 * 90.0).to_bits();
        one.extend([x, x + 1, x.wrapping_sub(1)]);
    }
    let two: Vec<u32> = (0..64u32)
        .map(|i| (i << 26) | ((i * 0x3_0507) & 0x3ff_ffff))
        .collect();
    let mut runs = 0;
    let mut failures = Vec::new();
    for (src, names, values) in [
        ("return math.sin(v.a);", &["v.a"][..], &one),
        ("return math.cos(v.a);", &["v.a"][..], &one),
        ("return math.atan(v.a);", &["v.a"][..], &one),
        ("return math.exp(v.a);", &["v.a"][..], &one),
        ("return math.ln(v.a);", &["v.a"][..], &one),
        (
            "t.c = math.cos(v.a); return math.sin(v.a);",
            &["v.a"][..],
            &one,
        ),
        (
            "t.s = math.sin(v.a); return math.cos(v.a);",
            &["v.a"][..],
            &one,
        ),
        ("return math.atan2(v.a, v.b);", &["v.a", "v.b"][..], &two),
        ("return math.pow(v.a, v.b);", &["v.a", "v.b"][..], &two),
    ] {
        let (n, failure) = sweep_bits_over(src, names, values);
        runs += n;
        failures.extend(failure);
    }
    println!("{runs} runs: {} disagreements", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(runs > 9 * 4096, "{runs}");
}

/// A load on the left of `+` or `*` is kept out of the instruction's memory operand (which
/// would swap the operands and, with two NaNs, the payload that wins) by an integer round trip
/// (`not_a_load`), dropped again where the load also feeds a store, a call or a branch
/// (`drop_needless_round_trips`, `jit/lower/ops.rs`): such a load has several uses and is never
/// folded. Both sides with NaN payloads, the load used once (the round trip must stay) or also
/// stored, passed to a call or carried out of a branch arm.
#[test]
fn a_load_used_elsewhere_keeps_its_operand_place() {
    const VALUES: &[u32] = &[
        0x7fc0_0001,
        0xffc0_0002,
        0x7fa0_0003,
        0x3fc0_0000,
        0x8000_0000,
    ];
    // `v.b - 1` on the right: a computed value, not a load that lowering would fold first.
    let programs = [
        "return q.a + (v.b - 1);",
        "return q.a * (v.b - 1);",
        "return this + (v.b - 1);",
        "return c.a * (v.b - 1);",
        "t.k = q.a; return q.a + (v.b - 1);",
        "t.k = q.a; return q.a * (v.b - 1);",
        "t.k = q.a; t.m = q.a * (v.b - 1); return t.m + q.a;",
        "t.k = math.cos(q.a); return q.a + (v.b - 1) + t.k;",
        "t.k = v.b > 0 ? q.a : 2; return q.a * (v.b - 1) + t.k;",
        "t.k = this; return this + (v.b - 1);",
        "t.k = c.a; return c.a * (v.b - 1);",
    ];
    let inputs = |src: &str| {
        ["q.a", "v.b", "c.a", "this"]
            .into_iter()
            .filter(|n| src.contains(n))
            .collect()
    };
    agree_on_values(&programs, inputs, VALUES);
}

/// A program that reads at least 8 variables has a second body that assumes each of them
/// holds a number (no unset test at its reads, no tag store at its numeric assignments),
/// entered only when a guard at entry finds every one of their tags to be a number's
/// (`guard`, `jit/lower/mod.rs`). Eleven variables (guard loads of 8, 2 and 1 tags), each in
/// turn unset, a string, an entity, a NaN, -0 or a number, the others numbers: both back ends
/// give the same value, end and variables, kinds and NaN payloads included; the program
/// also stores a string in a guarded variable and reads it back in the guarded body.
#[test]
fn guarded_body_runs_only_when_every_variable_read_is_a_number() {
    let names: Vec<String> = (0..11).map(|i| format!("v.x{i}")).collect();
    let src = "t.s = v.x0 + v.x1 * v.x2 - v.x3 + v.x4 + v.x5 * v.x6 + v.x7 - v.x8; \
               v.x4 = 'abc'; v.x5 = v.x5 + 1; v.x6 = v.x9 > 0 ? v.x6 : 3; \
               return t.s + (v.x4 == 'abc') + (v.x10 ? 2 : 3) + (v.x3 == v.x2) + v.x5 + v.x6 + v.x9;";
    let (expr, native, options) = both_back_ends(src);
    let kinds = [
        None,
        Some(Value::Str(0x1234_5678_9abc)),
        Some(Value::Entity(3)),
        Some(Value::Num(f32::from_bits(0x7fc0_0005))),
        Some(Value::Num(-0.0)),
        Some(Value::Num(2.5)),
    ];
    let bits = |v: &Value| match v {
        Value::Num(x) => format!("{:#010x}", x.to_bits()),
        other => format!("{other:?}"),
    };
    let observe = |r: &EvalResult| -> String {
        let vars: Vec<String> = r
            .variables
            .iter()
            .map(|(n, v)| format!("{n}={}", bits(v)))
            .collect();
        format!("{} {:?} {}", bits(&r.value), r.abort, vars.join(" "))
    };
    let mut runs = 0;
    let mut failures = Vec::new();
    for i in 0..names.len() {
        for kind in &kinds {
            let inputs: Vec<(String, Value)> = names
                .iter()
                .enumerate()
                .filter_map(|(j, n)| {
                    let v = if i == j {
                        (*kind)?
                    } else {
                        Value::Num(j as f32 + 0.5)
                    };
                    Some((n.clone(), v))
                })
                .collect();
            let a = observe(&expr.eval(&inputs, 7, &options));
            let b = observe(&expr.eval_native(&native, &inputs, 7, &options));
            runs += 1;
            if a != b {
                failures.push(format!(
                    "{} as {kind:?}:\n  interp {a}\n  jit    {b}",
                    names[i]
                ));
            }
        }
    }
    println!("{runs} runs: {} disagreements", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `?:` whose arms are numbers where they start (a read of a slot known to hold a number
/// counts: `numeric_now`, `jit/lower/values.rs`) merges the number alone; an arm reading a
/// slot of another kind, or one whose kind is not known, keeps the kind. Strings, a slot
/// made a number or a string earlier, both arm orders and a missing `else`.
#[test]
fn conditional_of_numeric_reads_merges_the_number_alone() {
    const VALUES: &[u32] = &[0x7fc0_0001, 0xffc0_0002, 0x3fc0_0000, 0x8000_0000];
    let programs = [
        "v.x = 'abc'; t.y = v.a > 0 ? v.x : v.b; return (t.y == 'abc') + t.y;",
        "v.x = 'abc'; t.y = v.a > 0 ? v.b : v.x; return (t.y == 'abc') * 2 + t.y;",
        "v.x = v.a * 2; t.y = v.b > 0 ? v.x : v.a; return t.y + (t.y == v.a);",
        "v.x = 1; v.x = v.b > 0 ? 'q' : v.x; t.y = v.a > 0 ? v.x : v.a; return (t.y == 'q') + t.y;",
        "t.y = v.a > 0 ? v.b : v.a; return t.y * 3;",
        "v.x = v.a; t.y = v.b > 0 ? v.x; return t.y - 1;",
        "v.x = 'abc'; t.y = v.b > 0 ? v.x; return (t.y == 'abc') + t.y;",
    ];
    agree_on_values_of_a_and_b(&programs, VALUES);
}

/// `JitProgram::run` gives programs that make no callback reaching the host no host (a null
/// pointer), and programs that touch no slot no storage pointers (`enter`, `jit/abi.rs`):
/// each program here, with or without host calls (random draws, die rolls, queries with
/// arguments) and slots, gives through `run` what the full entry (`eval_native`, which always
/// passes a host and the storage) gives with the same generator, bit for bit. A program whose
/// needs were misjudged would read through a null pointer.
#[test]
fn lean_entry_gives_what_the_full_entry_gives() {
    use molang::builtins::math::DefaultRng;
    use molang::jit::{JitOutcome, JitStorage};
    let programs = [
        "1 + 2",
        "q.a * 2 - q.b",
        "math.clamp(q.a / 80 * 1.5, 0, 1.5)",
        "math.random(1, 2) + q.a",
        "math.die_roll(3, 1, 6)",
        "math.random_integer(0, 100) * q.b",
        "v.x = q.a; return v.x * 2 + (v.y ?? 4);",
        "t.y = 3; return t.y + q.a;",
        "t.y = math.random(0, 1); v.z = t.y * q.b; return v.z;",
    ];
    let inputs = vec![
        ("q.a".to_string(), Value::Num(12.5)),
        ("q.b".to_string(), Value::Num(-3.0)),
    ];
    for src in programs {
        let (expr, native, options) = both_back_ends(src);
        let full = expr.eval_native(&native, &inputs, 11, &options);
        let names = expr.names();
        let mut storage = JitStorage::for_names(names);
        let queries: Vec<f32> = (0..names.queries.len())
            .map(|i| match names.queries.name(molang::ir::Slot(i as u32)) {
                "a" => 12.5,
                "b" => -3.0,
                _ => 0.0,
            })
            .collect();
        let mut rng = DefaultRng::new(11);
        let lean = native.run(
            &mut storage,
            &queries,
            0.0,
            &mut rng,
            options.iteration_budget,
        );
        let JitOutcome::Value(v) = lean else {
            panic!("{src}: {lean:?}");
        };
        assert_eq!(
            v.to_bits(),
            full.value.as_num().to_bits(),
            "{src}: run {v} against eval_native {:?}",
            full.value
        );
    }
}

/// The shapes the code generator lowers to x86's own instructions, and a program large
/// enough that its constants come from the constant table (at least 16 in the IR), agree bit
/// for bit with the interpreter on the edge values: `math.max` / `min` / `clamp` (`maxss` /
/// `minss`, the clamp's upper bound only when it is a non-zero constant above the lower),
/// `==` against a constant (compared as integer bits unless the constant is ±0 or NaN),
/// truth (the bits without the sign), a `select` between ready values, constants stored and
/// compared on either side. Each program runs alone and after a statement with 16 constants.
#[test]
fn lowered_shapes_and_tabled_constants_agree_bit_for_bit() {
    let shapes = [
        "math.clamp(v.a, 0, 1)",
        "math.clamp(v.a, -1, 1)",
        "math.clamp(v.a, -30, 30)",
        "math.clamp(v.a, -1, 0)",
        "math.clamp(v.a, -1, -0)",
        "math.clamp(v.a, 1, 0)",
        "math.clamp(v.a, 0.5, 0.5)",
        "math.clamp(v.a, -0, 0)",
        "math.clamp(v.a, v.b, 1)",
        "math.clamp(v.a, 0, v.b)",
        "math.max(v.a, 0)",
        "math.max(0, v.a)",
        "math.max(v.a, -0)",
        "math.min(v.a, 1)",
        "math.min(1, v.a)",
        "math.max(v.a, v.b)",
        "math.min(v.a, v.b)",
        "v.a == 1",
        // `v.a - 0` is a number at compile time (a variable may hold a string): the numeric
        // `==`. It keeps -0 and every NaN payload.
        "(v.a - 0) == 1",
        "1 == (v.a - 0)",
        "(v.a - 0) == -1",
        "(v.a - 0) != 3.5",
        "(v.a - 0) == 0",
        "(v.a - 0) == -0",
        "(v.a - 0) == 1e-45",
        "(v.a - 0) == math.sqrt(-1)",
        "(v.a - 0) == (v.b - 0)",
        "v.a ? 1 : 2",
        "!v.a",
        "v.a ? v.b : 3.5",
        "v.a ? 2.5 : v.b",
        "v.c = v.a > 0 ? 1.5 : -1.5; return v.c;",
        "v.c = 2.5; v.d = -0; v.e = 0; return v.c + v.d + v.e + v.a;",
        "v.a < 0.5",
        "0.5 < v.a",
        "v.a <= 0.5",
        "0.5 >= v.a",
        "v.a > 0.5 ? v.a * 1.5 : v.b - 2.5",
    ];
    let padding: String = (0..16)
        .map(|i| format!("v.a * {}.75", i + 2))
        .collect::<Vec<_>>()
        .join(" + ");
    let mut programs = Vec::new();
    for shape in shapes {
        let body = if shape.contains(';') {
            shape.to_string()
        } else {
            format!("return {shape};")
        };
        programs.push(body.clone());
        programs.push(format!("t.pad = {padding}; {body}"));
    }
    let programs: Vec<&str> = programs.iter().map(String::as_str).collect();
    agree_on_values_of_a_and_b(&programs, EDGES);
}

/// Programs naming 100 variables and 100 temps, the last ten of one array far more often
/// than the rest: the code addresses each array from a pointer biased towards the slots the
/// program names most (a one-byte displacement for 64 of them), and every slot, near that
/// window or far from it, reads back what was stored, as in the interpreter. The inputs are
/// read through the other array, so that they do not draw its window to themselves.
#[test]
fn slots_far_from_the_biased_window_read_what_was_stored() {
    let program = |hot: &str, cold: &str| {
        let mut src = format!("{cold}.a = v.a; {cold}.b = v.b; ");
        for i in 0..100 {
            src.push_str(&format!("{hot}.x{i} = {cold}.a * {i}.5 + {cold}.b; "));
        }
        for k in 0..8 {
            for i in 90..100 {
                src.push_str(&format!("{hot}.x{i} = {hot}.x{i} * 0.{k}5 + 1; "));
            }
        }
        let all: Vec<String> = (0..100).map(|i| format!("{hot}.x{i} * {i}")).collect();
        src.push_str(&format!("return {};", all.join(" + ")));
        src
    };
    let (vars, temps) = (program("v", "t"), program("t", "v"));
    agree_on_values_of_a_and_b(&[vars.as_str(), temps.as_str()], EDGES);
}

/// With `private_temps` (entity scripts), the JIT leaves out the stores of temps that the run
/// never reads back from storage: the value and the variables stay the interpreter's, bit for
/// bit, and only those temps' storage differs after the run. A loop body reads `t.a` (and
/// `??` its tag) from storage, so its stores stay; `t.b` and `t.c` are only read through
/// their SSA values, so theirs go. Without the option every temp is stored.
#[test]
fn private_temps_drop_only_the_stores_nothing_reads_back() {
    let src = "t.a = v.x * 2; loop(2, { t.a = (t.a ?? 0) + 1; }); t.b = math.sin(t.a); \
               v.y = t.a + t.b; t.c = v.y - 1; v.z = t.c * t.c; return t.b;";
    let expr = molang::compile(src, &CheckOptions::default()).unwrap();
    let inputs = [("v.x".to_string(), Value::Num(0.75))];
    let interp = expr.eval(&inputs, 0, &EvalOptions::default());
    let temps =
        |r: &EvalResult| -> Vec<String> { r.temps.iter().map(|(n, _)| n.clone()).collect() };
    assert_eq!(temps(&interp), ["a", "b", "c"]);
    for private in [false, true] {
        let options = EvalOptions {
            private_temps: private,
            ..EvalOptions::default()
        };
        let native = expr.compile_native(&options).unwrap();
        let jit = expr.eval_native(&native, &inputs, 0, &options);
        assert!(same(&jit.value, &interp.value), "private {private}: value");
        assert_eq!(jit.abort, interp.abort);
        assert_eq!(
            jit.variables.len(),
            3,
            "private {private}: {:?}",
            jit.variables
        );
        for ((n1, v1), (n2, v2)) in interp.variables.iter().zip(&jit.variables) {
            assert!(
                n1 == n2 && same(v1, v2),
                "private {private}: {n1} {v1:?} / {n2} {v2:?}"
            );
        }
        let expected: &[&str] = if private { &["a"] } else { &["a", "b", "c"] };
        assert_eq!(
            temps(&jit),
            expected,
            "private {private}: the temps left in storage"
        );
    }
}
