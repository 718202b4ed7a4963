//! Hostile input ends in a clear diagnostic or a result, quickly, on both back ends.
//!
//! | input                               | outcome                                          |
//! |-------------------------------------|--------------------------------------------------|
//! | 100,000 nested parentheses          | E0107 too deep (bracket pre-guard, no parsing)   |
//! | a 10 MB expression                  | E0114 source too long (nothing lexed)            |
//! | `loop(1e9, {})`                     | E0110 empty group: the game refuses `{}`         |
//! | `loop(1e9, {t.x = t.x + 1;})`       | runs until the iteration budget, then aborts     |
//! | three nested `loop(1024, ...)`      | budget abort (10^9 iterations); with the 1024    |
//! |                                     | cap as well, since the cap bounds each loop only |
//! | a 1,000-deep `??` chain             | E0107 too deep                                   |
//! | a controller playing itself (three  | the closing entries play nothing: "controller    |
//! | times), four playing each other     | `c` plays itself (c -> c)"; check warns W0808    |
//! |                                     | (tests/runtime_limits.rs, under `ulimit -v`)     |
//! | controllers nested past 16 levels   | "controller `c` nested deeper than 16"           |
//! | more than 65,536 play nodes         | "the entity has more than 65536 animations and   |
//! | (`MAX_PLAY_NODES`)                  | controllers to play"; the rest play nothing      |
//! | 200 channels of `loop(1e9, ...)`    | one budget of 10,000,000 iterations per entity   |
//! |                                     | and frame (`FRAME_BUDGET`): "the frame's         |
//! |                                     | iteration budget ... ran out in `label`          |
//! |                                     | (file:line:column)" (tests/runtime_limits.rs)    |
//!
//! Refused programs never reach a back end, so one check covers both; programs that load
//! run on the interpreter and the JIT, which must end the same way. Times are printed
//! (`--nocapture`); the asserts on them are generous, the codes are the real test.

use std::time::{Duration, Instant};

use molang::interp::AbortKind;
use molang::{CheckOptions, Code, EvalOptions, EvalResult, Expression};

/// Far above anything measured (see the printed times); only a hang or a blow-up fails it.
const GENEROUS: Duration = Duration::from_secs(10);

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    println!("{what}: {took:?}");
    assert!(took < GENEROUS, "{what} took {took:?}");
    out
}

/// Asserts that `src` does not load and that `code` says why.
fn refused(what: &str, src: &str, code: Code) {
    let err = timed(what, || molang::compile(src, &CheckOptions::default()))
        .err()
        .unwrap_or_else(|| panic!("{what}: loaded"));
    let mut codes: Vec<Code> = err.diagnostics.iter().map(|d| d.code).collect();
    codes.dedup();
    assert!(
        codes.contains(&code),
        "{what}: expected {code:?}, got {codes:?}"
    );
}

/// Runs on both back ends; they must agree, and the run must end in a budget abort.
fn both(what: &str, src: &str, options: &EvalOptions) -> (EvalResult, EvalResult) {
    let expr: Expression = molang::compile(src, &CheckOptions::default()).expect("loads");
    let a = timed(&format!("{what} (interpreter)"), || {
        expr.eval(&[], 0, options)
    });
    let native = expr.compile_native(options).expect("the JIT compiles it");
    let b = timed(&format!("{what} (JIT)"), || {
        expr.eval_native(&native, &[], 0, options)
    });
    assert_eq!(a.abort, b.abort, "{what}: back ends disagree");
    assert_eq!(a.variables, b.variables, "{what}: back ends disagree");
    (a, b)
}

fn budget_abort(r: &EvalResult) -> bool {
    matches!(r.abort.map(|a| a.kind), Some(AbortKind::Budget))
}

#[test]
fn nested_parentheses_100k() {
    let src = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    refused("100,000 nested parentheses", &src, Code::TooDeep);
}

#[test]
fn ten_megabyte_expression() {
    let src = format!("1{}", "+1".repeat(5 * 1024 * 1024));
    refused("10 MB expression", &src, Code::SourceTooLong);
    // Just under the limit it is read, and refused for its depth instead.
    let n = (grammar::MAX_SOURCE_LEN - 1) / 2;
    let src = format!("1{}", "+1".repeat(n));
    refused("4 MiB expression", &src, Code::TooDeep);
}

#[test]
fn loop_with_empty_body_is_refused() {
    refused("loop(1e9, {})", "loop(1e9, {});", Code::EmptyGroup);
}

#[test]
fn billion_iteration_loop_ends_at_the_budget() {
    let options = EvalOptions::default();
    let src = "t.x = 0; loop(1e9, {t.x = t.x + 1;}); return t.x;";
    let (a, b) = both("loop(1e9, ...)", src, &options);
    assert!(budget_abort(&a) && budget_abort(&b));
    assert_eq!(a.temp("x"), b.temp("x"));
    assert_eq!(
        a.temp("x").map(|v| v.as_num()),
        Some(options.iteration_budget as f32)
    );
    // With the documented 1024 cap the same program finishes with a result.
    let capped = EvalOptions {
        loop_cap: Some(1024),
        ..EvalOptions::default()
    };
    let (a, b) = both("loop(1e9, ...) capped at 1024", src, &capped);
    assert_eq!((a.abort, b.abort), (None, None));
    assert_eq!(a.value.as_num(), 1024.0);
    assert_eq!(b.value.as_num(), 1024.0);
}

#[test]
fn nested_loops_need_the_budget() {
    let src = "t.x = 0; loop(1024, {loop(1024, {loop(1024, {t.x = t.x + 1;});});}); return t.x;";
    for cap in [None, Some(1024)] {
        let options = EvalOptions {
            loop_cap: cap,
            ..EvalOptions::default()
        };
        let (a, b) = both(&format!("1024^3 nested loops, cap {cap:?}"), src, &options);
        assert!(budget_abort(&a) && budget_abort(&b), "cap {cap:?}");
    }
}

#[test]
fn coalesce_chain_1000() {
    let src = format!("v.a{}", " ?? v.a".repeat(1000));
    refused("1,000-deep `??` chain", &src, Code::TooDeep);
    let src = format!("{}1{}", "v.a ?? (".repeat(1000), ")".repeat(1000));
    refused("1,000-deep right-nested `??`", &src, Code::TooDeep);
    // `??` groups to the left and its left side must be a variable, so a chain only loads
    // nested to the right; 100 levels (200 node levels) load and run on both back ends.
    let src = format!(
        "v.b = 2; return {}v.b{};",
        "v.a ?? (".repeat(100),
        ")".repeat(100)
    );
    let (a, b) = both("100-deep right-nested `??`", &src, &EvalOptions::default());
    assert_eq!(a.value.as_num(), 2.0);
    assert_eq!(b.value.as_num(), 2.0);
}

#[test]
fn die_rolls_spend_the_budget() {
    // One call can ask for a billion rolls; each roll counts against the budget.
    let src = "v.x = math.die_roll(1e9, 0, 1); return v.x;";
    let (a, b) = both("math.die_roll(1e9, ...)", src, &EvalOptions::default());
    assert!(budget_abort(&a) && budget_abort(&b));
}

#[test]
fn unknown_queries_stay_cheap() {
    // Every unknown query gets a "did you mean" search over the query table; a long name or
    // many distinct names must not make that search the bottleneck.
    let long = format!("return q.{};", "a".repeat(1_000_000));
    let err = timed("a 1 MB unknown query name", || {
        molang::compile(&long, &CheckOptions::default())
    });
    let expr = err.expect("unknown queries load (the game reads them as 0)");
    assert!(expr.warnings.iter().any(|d| d.code == Code::UnknownQuery));
    // Wide, so that the checker visits every one (a deep chain stops at depth 256).
    let many: String = (0..100_000)
        .map(|i| format!("t.x = q.abc{i}; "))
        .collect::<String>()
        + "return t.x;";
    let expr = timed("100,000 distinct unknown queries", || {
        molang::compile(&many, &CheckOptions::default())
    })
    .expect("loads");
    assert_eq!(expr.warnings.len(), 100_000);
}

#[test]
fn runtime_limits_are_the_documented_numbers() {
    // README's limits section and the table above give these numbers; the tests of what
    // happens at them are in tests/runtime_limits.rs.
    assert_eq!(molang::runtime::play::FRAME_BUDGET, 10_000_000);
    assert_eq!(
        molang::runtime::play::FRAME_BUDGET,
        EvalOptions::default().iteration_budget,
        "one expression may spend a whole frame's budget, no more"
    );
    assert_eq!(molang::runtime::load::MAX_NESTING, 16);
    assert_eq!(molang::runtime::load::MAX_PLAY_NODES, 65_536);
}
