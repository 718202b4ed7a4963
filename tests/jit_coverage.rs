//! How much of Mojang's vanilla resource pack the JIT compiles: every client entity's and
//! attachable's scripts, animation channels, controller transitions and render-controller
//! expressions, counted natively compiled vs interpreted. A program would fall back alone
//! (never its whole entity); ARCHITECTURE.md lists no construct the JIT leaves to the
//! interpreter, so none may (needs `../shared/vanilla/`). `tests/vanilla_runtime.rs` holds
//! the traces of both back ends to bit-for-bit equality.

mod common;

use molang::runtime::load::{attachables, client_entities, load_from_pack};
use molang::runtime::{Backend, Runtime};

#[test]
fn every_vanilla_program_compiles_natively() {
    let pack = common::vanilla_rp_pack();
    let entities = client_entities(&pack);
    let items = attachables(&pack);
    let (mut native, mut total, mut whole, mut loaded) = (0, 0, 0, 0);
    let mut fallbacks = Vec::new();
    for id in entities.iter().chain(&items) {
        let Ok(model) = load_from_pack(&pack, id) else {
            continue;
        };
        loaded += 1;
        let rt = Runtime::new(model, Backend::Jit, 20.0, 0);
        let (n, t) = rt.scripts.native_count();
        native += n;
        total += t;
        whole += rt.scripts.is_native() as usize;
        for (label, why) in rt.scripts.fallbacks() {
            fallbacks.push(format!("{id}: {label}: {why}"));
        }
    }
    println!(
        "vanilla: {native}/{total} programs native, {} interpreted; {whole}/{loaded} client \
         entities and attachables wholly native ({} entities, {} attachables in the pack)",
        total - native,
        entities.len(),
        items.len()
    );
    assert!(entities.len() >= 100, "expected the whole vanilla pack");
    assert!(total > 1000, "expected thousands of programs, got {total}");
    assert!(
        fallbacks.is_empty(),
        "programs the JIT left to the interpreter (ARCHITECTURE.md lists none):\n{}",
        fallbacks.join("\n")
    );
}

/// Strings are compiled: a string-valued query compared with `==`/`!=`, stored in a temp and a
/// variable, and passed as a query argument, gives the interpreter's values bit for bit.
#[test]
fn strings_compile_and_agree_with_the_interpreter() {
    use molang::builtins::math::{DefaultRng, MolangRng};
    use molang::interp::Host;
    use molang::ir::{fnv1_64, Slot};
    use molang::{CheckOptions, EvalOptions, Value};
    struct Props(DefaultRng);
    impl Host for Props {
        fn query(&mut self, _q: Slot, args: &[Value]) -> Value {
            match args.first() {
                Some(Value::Str(h)) if *h == fnv1_64(b"ns:variant") => Value::Str(fnv1_64(b"warm")),
                Some(Value::Str(_)) => Value::Num(3.0),
                Some(v) => Value::Num(v.as_num() + 1.0),
                None => Value::Num(0.0),
            }
        }
        fn rng(&mut self) -> &mut dyn MolangRng {
            &mut self.0
        }
    }
    let cases = [
        ("q.property('ns:variant') == 'warm'", 1.0),
        ("q.property('ns:variant') != 'warm'", 0.0),
        ("q.property('ns:variant') == 'WARM'", 0.0),
        (
            "t.v = q.property('ns:variant'); return t.v == 'warm' ? 7 : 8;",
            7.0,
        ),
        (
            "v.s = 'cold'; return (v.s == 'warm') + (v.s == 'cold') * 2;",
            2.0,
        ),
        (
            "v.s = 'a'; v.t = v.s; return v.t == 'a' && !(v.t == 0);",
            1.0,
        ),
        // Truth: a string is true (its number, 0, is not what counts).
        ("t.s = q.property('ns:variant'); return t.s ? 5 : 6;", 5.0),
        ("return !q.property('ns:variant');", 0.0),
        (
            "q.property('ns:variant') && q.property('ns:variant') || 0",
            1.0,
        ),
        ("q.property('other') + q.property(2)", 6.0),
        (
            "q.all('a', 'a', 'a') + q.any('a', 'b', 'c') * 2 + q.count('a', 1) * 4",
            9.0,
        ),
    ];
    for (src, want) in cases {
        let expr = molang::compile(src, &CheckOptions::default()).unwrap();
        let options = EvalOptions::default();
        let native = expr
            .compile_native(&options)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let a = expr.eval_in(&mut Props(DefaultRng::new(0)), &[], &options);
        assert_eq!(a.value, Value::Num(want), "{src}: interpreter");
        // Through the same host as the interpreter (eval_native's answers every query with 0).
        let mut storage = molang::interp::Storage::for_names(expr.names());
        let queries = vec![0.0; expr.names().queries.len()];
        let out = native.run_in(
            expr.program(),
            &mut storage,
            &queries,
            &mut Props(DefaultRng::new(0)),
            1000,
        );
        assert_eq!(out.value, a.value, "{src}: JIT");
        assert_eq!(out.abort, a.abort, "{src}: JIT abort");
    }
    // A string result comes back as the string.
    let expr = molang::compile("t.x = 'warm'; return t.x;", &CheckOptions::default()).unwrap();
    let native = expr.compile_native(&EvalOptions::default()).unwrap();
    let b = expr.eval_native(&native, &[], 0, &EvalOptions::default());
    assert_eq!(b.value, Value::Str(fnv1_64(b"warm")));
}

// ---- random string programs: both back ends through one test host ----

mod strings {
    use molang::builtins::math::{DefaultRng, MolangRng};
    use molang::interp::Host;
    use molang::ir::{fnv1_64, Scope, Slot};
    use molang::{CheckOptions, EvalOptions, Value};
    use proptest::prelude::*;

    const WORDS: [&str; 4] = ["warm", "cold", "WARM", ""];

    /// `q.property(k)`: a string for `'a'` and `'b'`, a number for other strings, the number
    /// plus one for numbers; any other query reads its slot number.
    struct TestHost(DefaultRng);
    impl Host for TestHost {
        fn query(&mut self, q: Slot, args: &[Value]) -> Value {
            match args.first() {
                Some(Value::Str(h)) if *h == fnv1_64(b"a") => Value::Str(fnv1_64(b"warm")),
                Some(Value::Str(h)) if *h == fnv1_64(b"b") => Value::Str(fnv1_64(b"cold")),
                Some(Value::Str(h)) => Value::Num((*h % 7) as f32),
                Some(v) => Value::Num(v.as_num() + 1.0),
                None => Value::Num(q.0 as f32),
            }
        }
        fn rng(&mut self) -> &mut dyn MolangRng {
            &mut self.0
        }
    }

    /// A value-producing expression: strings, string queries, slots that may hold either kind.
    fn atom() -> impl Strategy<Value = String> {
        prop_oneof![
            (0..WORDS.len()).prop_map(|i| format!("'{}'", WORDS[i])),
            prop_oneof![Just("a"), Just("b"), Just("c")].prop_map(|k| format!("q.property('{k}')")),
            (0..4i32).prop_map(|n| format!("q.property({n})")),
            prop_oneof![Just("t.x"), Just("t.y"), Just("v.s"), Just("v.u")].prop_map(String::from),
            (-2..3i32).prop_map(|n| n.to_string()),
        ]
    }

    fn expr() -> impl Strategy<Value = String> {
        atom().prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} == {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} != {b})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} && {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} || {b})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("q.any({a}, {b}, {c})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("q.all({a}, {b}, {c})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("q.count({a}, {b})")),
                inner.clone().prop_map(|a| format!("q.property({a})")),
                (inner.clone(), inner).prop_map(|(a, b)| format!("({a} ?? {b})")),
            ]
        })
    }

    /// A few assignments (each slot may get a string or a number), then a result.
    fn program() -> impl Strategy<Value = String> {
        let slot = prop_oneof![Just("t.x"), Just("t.y"), Just("v.s"), Just("v.u")];
        (prop::collection::vec((slot, expr()), 0..4), expr()).prop_map(|(sets, ret)| {
            let mut s: String = sets.iter().map(|(n, e)| format!("{n} = {e}; ")).collect();
            s.push_str(&format!("return {ret};"));
            s
        })
    }

    fn cases() -> u32 {
        std::env::var("JIT_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5_000)
    }

    fn same(a: Value, b: Value) -> bool {
        match (a, b) {
            (Value::Num(x), Value::Num(y)) => x.to_bits() == y.to_bits(),
            _ => a == b,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn string_programs_agree_bit_for_bit(src in program(), preset in prop::option::of(0..WORDS.len())) {
            let check = CheckOptions { warn_unknown_queries: false, ..CheckOptions::default() };
            let Ok(expr) = molang::compile(&src, &check) else { return Ok(()) };
            let options = EvalOptions::default();
            let native = expr.compile_native(&options).map_err(|e| TestCaseError::fail(format!("{src}: {e}")))?;
            // `v.u` may be set before the run, to a string.
            let inputs: Vec<(String, Value)> = preset
                .map(|i| vec![("v.u".to_string(), Value::Str(fnv1_64(WORDS[i].as_bytes())))])
                .unwrap_or_default();
            let a = expr.eval_in(&mut TestHost(DefaultRng::new(0)), &inputs, &options);
            let mut storage = molang::interp::Storage::for_names(expr.names());
            if let Some(slot) = expr.names().variables.get("u") {
                if let Some((_, v)) = inputs.first() {
                    storage.set(Scope::Variable, slot, *v);
                }
            }
            let queries: Vec<f32> = (0..expr.names().queries.len()).map(|i| i as f32).collect();
            let b = native.run_in(expr.program(), &mut storage, &queries, &mut TestHost(DefaultRng::new(0)), options.iteration_budget);
            prop_assert!(same(a.value, b.value), "{}: interpreter {:?}, JIT {:?}", src, a.value, b.value);
            prop_assert_eq!(a.abort, b.abort, "{}", src);
            for (slot, name) in expr.names().variables.iter() {
                let (x, y) = (a.variable(name), storage.get(Scope::Variable, slot));
                prop_assert!(match (x, y) { (Some(x), Some(y)) => same(x, y), (None, None) => true, _ => false },
                    "{}: v.{} interpreter {:?}, JIT {:?}", src, name, x, y);
            }
        }
    }

    #[test]
    fn string_programs_load_often_enough() {
        // Guards the generator: programs the checker refuses test nothing. The checker refuses
        // a string where a number is needed (`'a' && 1`), so about 40% load (126/300 today).
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let strategy = program();
        let check = CheckOptions {
            warn_unknown_queries: false,
            ..CheckOptions::default()
        };
        let loads = (0..300)
            .filter(|_| {
                let src = strategy.new_tree(&mut runner).unwrap().current();
                molang::compile(&src, &check).is_ok()
            })
            .count();
        println!("random string programs that load: {loads}/300");
        assert!(loads >= 100, "only {loads}/300 string programs load");
    }
}
