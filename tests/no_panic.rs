//! No input makes the checker or the interpreter panic, overflow the stack or hang.
//!
//! Proptests feed random bytes and random token soups to `molang::check` at a random
//! version, and run whatever loads through the interpreter. The deterministic tests push
//! hostile shapes (100,000 nested brackets, a 10 MB expression, a million-term chain) and
//! run each on a thread with the default 2 MiB test stack, so deep recursion anywhere in
//! lexer, grammar, checker, flow analysis, interpreter or `Drop` shows up as a crash here.

use std::time::{Duration, Instant};

use molang::fuzz::strategies::{self, ProgramConfig};
use molang::ir::Names;
use molang::{CheckOptions, Code, EvalOptions};
use proptest::prelude::*;

/// Stack size of a test thread when `RUST_MIN_STACK` is not set.
const DEFAULT_TEST_STACK: usize = 2 * 1024 * 1024;

/// Checks `src`; when it loads, also compiles and runs it. Returns the diagnostic codes.
fn check_and_run(src: &str, version: i16) -> Vec<Code> {
    check_and_run_within(src, version, EvalOptions::default().iteration_budget)
}

/// [`check_and_run`] with an iteration budget: generated programs may loop `1e38` times,
/// and 10,000 cases at the default budget would take minutes.
fn check_and_run_within(src: &str, version: i16, budget: u64) -> Vec<Code> {
    let options = CheckOptions {
        version,
        ..CheckOptions::default()
    };
    let checked = molang::check(src, &options, &mut Names::default());
    if checked.loads() {
        let expr = molang::compile(src, &options).expect("check said it loads, compile must agree");
        let eval = EvalOptions {
            version,
            iteration_budget: budget,
            ..EvalOptions::default()
        };
        let result = expr.eval(&[], 7, &eval);
        let _ = result.value.as_num();
    }
    checked.diagnostics.iter().map(|d| d.code).collect()
}

/// Runs `f` on a thread with the default test stack and a time limit.
fn on_small_stack<T: Send + 'static>(
    what: &str,
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let start = Instant::now();
    let out = std::thread::Builder::new()
        .name(what.to_string())
        .stack_size(DEFAULT_TEST_STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|_| panic!("{what}: panicked"));
    let took = start.elapsed();
    println!("{what}: {took:?}");
    assert!(took < limit, "{what} took {took:?}, limit {limit:?}");
    out
}

/// Asserts the source is refused with one of `codes` (a diagnostic, not a crash).
fn refused_with(what: &'static str, src: String, codes: &'static [Code]) {
    let got = on_small_stack(what, Duration::from_secs(20), move || {
        let checked = molang::check(&src, &CheckOptions::default(), &mut Names::default());
        assert!(!checked.loads(), "{what} should not load");
        let got: Vec<Code> = checked.diagnostics.iter().map(|d| d.code).collect();
        drop(checked);
        drop(src);
        got
    });
    assert!(
        got.iter().any(|c| codes.contains(c)),
        "{what}: expected one of {codes:?}, got {got:?}"
    );
}

#[test]
fn nested_parentheses_100k() {
    let src = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    refused_with("100,000 nested parentheses", src, &[Code::TooDeep]);
}

#[test]
fn nested_mixed_brackets_100k() {
    let src = format!("{}1{}", "({[".repeat(33_334), "]})".repeat(33_334));
    refused_with("100,000 nested mixed brackets", src, &[Code::TooDeep]);
}

#[test]
fn unclosed_parentheses_100k() {
    refused_with(
        "100,000 unclosed parentheses",
        "(".repeat(100_000),
        &[Code::TooDeep, Code::UnexpectedEnd],
    );
}

#[test]
fn ten_megabyte_expression() {
    // Past `grammar::MAX_SOURCE_LEN` (4 MiB) nothing is lexed: one clear diagnostic.
    refused_with(
        "10 MB of `1+`",
        "1+".repeat(5 * 1024 * 1024),
        &[Code::SourceTooLong],
    );
    // Just under it, "1+1+...+1+" ends in an operator: a syntax error at the end.
    refused_with(
        "4 MiB of `1+`",
        "1+".repeat(grammar::MAX_SOURCE_LEN / 2),
        &[Code::UnexpectedEnd],
    );
}

#[test]
fn ten_megabyte_valid_chain() {
    let src = format!("1{}", "+1".repeat(5 * 1024 * 1024));
    refused_with("10 MB chain of additions", src, &[Code::SourceTooLong]);
    // A complete left-deep chain of 2 million additions: too deep for the game.
    let src = format!("1{}", "+1".repeat((grammar::MAX_SOURCE_LEN - 1) / 2));
    refused_with("4 MiB chain of additions", src, &[Code::TooDeep]);
}

#[test]
fn half_million_term_chains_of_every_operator() {
    // 500,000 terms keep each chain under the 4 MiB source limit.
    for op in ["-", "*", "/", "<", "==", "&&", "||", "??", "->"] {
        let src = format!("v.x{}", format!(" {op} v.x").repeat(500_000));
        let what: &'static str = Box::leak(format!("500,000 x `{op}`").into_boxed_str());
        // `->` does not chain in the grammar: `a->b->c` is a syntax error.
        refused_with(what, src, &[Code::TooDeep, Code::UnexpectedToken]);
    }
}

#[test]
fn prefix_and_coalesce_chains_nest_too_deep() {
    for (what, src) in [
        ("100,000 `!`", format!("{}1", "!".repeat(100_000))),
        ("100,000 `-!`", format!("{}1", "-!".repeat(50_000))),
        // `??` groups to the left; 1,000 of them nest past the game's limit.
        (
            "1,000-deep `??` chain",
            format!("v.a{}", " ?? v.a".repeat(1000)),
        ),
    ] {
        refused_with(what, src, &[Code::TooDeep]);
    }
}

#[test]
fn coalesce_over_long_constant_sum() {
    // The `??` left-side test looks into `v.x * 2 + 1`-style arithmetic; it must not
    // recurse over a million-term operand.
    let src = format!("(v.x{}) ?? 1", " + 1".repeat(1_000_000));
    refused_with("`??` over a million-term sum", src, &[Code::TooDeep]);
    let src = format!("({}v.x) ?? 1", "1 + ".repeat(1_000_000));
    refused_with(
        "`??` over a million-term right sum",
        src,
        &[Code::TooDeep, Code::CoalesceLhs],
    );
}

#[test]
fn conditional_chains_100k() {
    // Right-nested `?:` (else-if chains), at the latest version and before version 5,
    // where the grammar regroups them to the left.
    for version in [grammar::LATEST_VERSION, 4, -1] {
        let src = format!("{}0", "v.a ? 1 : ".repeat(100_000));
        let what: &'static str =
            Box::leak(format!("100,000 `?:` at version {version}").into_boxed_str());
        let got = on_small_stack(what, Duration::from_secs(20), move || {
            let options = CheckOptions {
                version,
                ..CheckOptions::default()
            };
            let checked = molang::check(&src, &options, &mut Names::default());
            checked
                .diagnostics
                .iter()
                .map(|d| d.code)
                .collect::<Vec<_>>()
        });
        assert!(got.contains(&Code::TooDeep), "{what}: {got:?}");
        let src = format!("{}1{}", "v.a ? (".repeat(100), ")".repeat(100));
        let _ = check_and_run(&src, version);
    }
}

#[test]
fn many_statements() {
    // Wide, not deep: 200,000 statements load and run.
    let src = "t.x = 1; t.y = t.x + 1; ".repeat(100_000) + "return t.y;";
    let value = on_small_stack("200,000 statements", Duration::from_secs(30), move || {
        let expr = molang::compile(&src, &CheckOptions::default()).expect("loads");
        expr.eval(&[], 0, &EvalOptions::default()).value.as_num()
    });
    assert_eq!(value, 2.0);
}

#[test]
fn deepest_loadable_expression_runs() {
    // Just under the limit: the checker, flow analysis and interpreter all recurse this deep.
    let mut deepest = None;
    for n in (200..260).rev() {
        let src = format!("{}1{}", "(".repeat(n), ")".repeat(n));
        let checked = molang::check(&src, &CheckOptions::default(), &mut Names::default());
        if checked.loads() {
            deepest = Some(n);
            break;
        }
    }
    let n = deepest.expect("some depth loads");
    for shape in [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1", "!".repeat(250)),
        format!(
            "t.x = 1; return {}t.x{};",
            "math.abs(".repeat(120),
            ")".repeat(120)
        ),
        format!(
            "v.x = 0; {}; return v.x;",
            "loop(2, {".repeat(60) + "v.x = v.x + 1;" + &"});".repeat(60)
        ),
        format!("t.x = 1; return {}t.x;", "t.x + ".repeat(250)),
    ] {
        on_small_stack(
            "deep loadable expression",
            Duration::from_secs(20),
            move || check_and_run(&shape, grammar::LATEST_VERSION),
        );
    }
}

#[test]
fn hostile_runtime() {
    // Loads, but would run for ever without the interpreter's iteration budget.
    for src in [
        "loop(1e9, {t.x = 1;});",
        "loop(1000, {loop(1000, {loop(1000, {loop(1000, {t.x = 1;});});});});",
    ] {
        on_small_stack("unbounded loop", Duration::from_secs(60), move || {
            check_and_run(src, grammar::LATEST_VERSION)
        });
    }
}

// ---- Property tests -------------------------------------------------------------------

/// Pieces of Molang, valid and not, that random sequences are built from.
const FRAGMENTS: &[&str] = &[
    "0",
    "1",
    "2.5",
    ".5",
    "5.",
    "1e3",
    "1e",
    "1.0f",
    "-",
    "+",
    "*",
    "/",
    "!",
    "&&",
    "||",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "?",
    ":",
    "??",
    "->",
    "=",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    "v.x",
    "v.y",
    "variable.a.b",
    "t.x",
    "t.y",
    "temp.z",
    "c.other",
    "context.item",
    "q.anim_time",
    "query.is_baby",
    "q.position",
    "q.is_babby",
    "q.get_name",
    "math.cos",
    "math.max",
    "math.pi",
    "math.tan",
    "math.random",
    "math.die_roll",
    "geometry.default",
    "texture.default",
    "material.default",
    "array.skins",
    "this",
    "true",
    "false",
    "return",
    "loop",
    "for_each",
    "break",
    "continue",
    "'str'",
    "'",
    "'unterminated",
    "%",
    "#",
    "\"",
    ".",
    "ż",
    " ",
    "\n",
    "\t",
    "xyz",
    "foo.bar",
    "q.get_nearby_entities",
    "1000000",
    "-1",
    "1e38",
    "0.0000001",
];

fn fragment_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60).prop_map(|parts| {
        let mut s = String::new();
        for p in parts {
            s.push_str(p);
            // Keep most fragments apart so that `v.x` `(` does not always become `v.x(`.
            if p.len() > 1 {
                s.push(' ');
            }
        }
        s
    })
}

/// Well-formed programs (the crate's public generator, everything on: strings, `->`,
/// contexts, structs, loops...), so that the checker's happy path and the interpreter run.
fn statement_soup() -> impl Strategy<Value = String> {
    strategies::program(&ProgramConfig::default())
}

fn version() -> impl Strategy<Value = i16> {
    prop_oneof![Just(grammar::LATEST_VERSION), -2i16..=14]
}

proptest! {
    // 10,000 cases each, as CI runs them. A failure prints its shrunk input; nothing is
    // written to a regressions file (the suite has no src/ to put it beside).
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), v in version()) {
        let src = String::from_utf8_lossy(&bytes);
        check_and_run(&src, v);
    }

    #[test]
    fn random_ascii_never_panics(src in "[ -~\n]{0,120}", v in version()) {
        check_and_run(&src, v);
    }

    #[test]
    fn random_token_sequences_never_panic(src in fragment_soup(), v in version()) {
        check_and_run(&src, v);
    }

    #[test]
    fn random_programs_never_panic(src in statement_soup(), v in version()) {
        check_and_run_within(&src, v, 100_000);
    }

    #[test]
    fn near_miss_programs_never_panic(m in strategies::near_miss(&ProgramConfig::default()), v in version()) {
        check_and_run_within(&m.text, v, 100_000);
    }
}

#[test]
fn random_programs_mostly_load() {
    // Guards the generator: if the program soup stopped loading, the interpreter half of
    // the property tests would test nothing.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = statement_soup();
    let mut loaded = 0;
    for _ in 0..1000 {
        let src = strategy.new_tree(&mut runner).unwrap().current();
        if molang::check(&src, &CheckOptions::default(), &mut Names::default()).loads() {
            loaded += 1;
        }
    }
    println!("random programs that load: {loaded}/1000");
    assert!(loaded >= 990, "only {loaded}/1000 random programs load");
}

#[test]
fn many_temps_with_branches() {
    // Every `&&`, `?:` and `??` forks the flow state; with 20,000 temps live, copying the
    // state at each fork would be quadratic.
    let mut src = String::new();
    for i in 0..20_000u32 {
        src.push_str(&format!(
            "t.a{i} = q.is_baby && t.a{} > 1 ? 1 : 2; ",
            i.saturating_sub(1)
        ));
    }
    src.insert_str(0, "t.a0 = 0; ");
    src.push_str("return t.a19999;");
    on_small_stack(
        "20,000 temps with branches",
        Duration::from_secs(20),
        move || check_and_run(&src, grammar::LATEST_VERSION),
    );
}
