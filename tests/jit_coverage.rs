//! How much of Mojang's vanilla resource pack the JIT compiles: every client entity's
//! scripts, animation channels, controller transitions and render-controller expressions,
//! counted natively compiled vs interpreted. A program falls back alone (never its whole
//! entity), and only for a reason ARCHITECTURE.md lists (needs `../shared/vanilla/`).
//! `tests/vanilla_runtime.rs` holds the traces of both back ends to bit-for-bit equality.

mod common;

use molang::runtime::load::{client_entities, load_from_pack};
use molang::runtime::{Backend, Runtime};

/// The constructs ARCHITECTURE.md documents as left to the interpreter.
const DOCUMENTED: [&str; 3] = ["resources and arrays", "`->`", "`for_each`"];

#[test]
fn vanilla_programs_compile_natively_except_the_documented_constructs() {
    let rp = common::shared_dir().join("vanilla/resource_pack");
    assert!(rp.is_dir(), "needs {}", rp.display());
    let pack = molang::pack::load(&[rp]);
    let ids = client_entities(&pack);
    let (mut native, mut total, mut whole) = (0, 0, 0);
    let mut undocumented = Vec::new();
    for id in &ids {
        let Ok(loaded) = load_from_pack(&pack, id) else {
            continue;
        };
        let rt = Runtime::new(loaded, Backend::Jit, 20.0, 0);
        let (n, t) = rt.scripts.native_count();
        native += n;
        total += t;
        whole += rt.scripts.is_native() as usize;
        for (label, why) in rt.scripts.fallbacks() {
            let molang::jit::JitError::Unsupported(what) = why else {
                panic!("{id}: {label}: {why}");
            };
            println!("{id}: {label}: {what}");
            if !DOCUMENTED.contains(what) {
                undocumented.push(format!("{id}: {label}: {what}"));
            }
        }
    }
    println!(
        "vanilla: {native}/{total} programs native, {} interpreted; {whole}/{} entities wholly native",
        total - native,
        ids.len()
    );
    assert!(ids.len() >= 100, "expected the whole vanilla pack");
    assert!(total > 1000, "expected thousands of programs, got {total}");
    assert!(
        undocumented.is_empty(),
        "fallbacks for reasons ARCHITECTURE.md does not list:\n{}",
        undocumented.join("\n")
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
