//! The two parsers generated from the one grammar (recursive ascent for shallow programs,
//! table-driven for deep ones, see build.rs) must build the same tree and the same
//! diagnostics for every program. Reads the vanilla corpus from `../shared/corpus`.

use grammar::{parse, parse_with, Engine, ParseErrorKind, ParseOptions, MAX_ASCENT_NESTERS};

fn same(src: &str, version: i16) {
    let options = ParseOptions { version };
    let auto = parse(src, options);
    let table = parse_with(src, options, Engine::TableDriven);
    assert_eq!(
        format!("{:?}", auto.ast),
        format!("{:?}", table.ast),
        "trees differ for {src:?} at version {version}"
    );
    assert_eq!(
        auto.diagnostics, table.diagnostics,
        "diagnostics differ for {src:?} at version {version}"
    );
}

fn corpus() -> Vec<String> {
    // `../shared` next to the workspace, or MOLANG_SHARED_DIR, as in the workspace's tests.
    let shared = std::env::var_os("MOLANG_SHARED_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")
        });
    let dir = shared.join("corpus");
    let mut out = Vec::new();
    for name in [
        "bedrock-samples-molang.jsonl",
        "bedrock-samples-molang-scripts.jsonl",
    ] {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "this test needs the vanilla corpus at {} ({e})",
                path.display()
            )
        });
        // Each record is one JSON object with an "expr" string; only that field is needed,
        // and it is the first string-valued "expr" key of the line.
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            out.push(expr_field(line).unwrap_or_else(|| panic!("{name}: no expr in {line}")));
        }
    }
    assert!(out.len() > 1000, "the corpus is unexpectedly small");
    out
}

/// The `"expr"` string of one JSON line, unescaped (the corpus uses `\"`, `\\`, `\n`, `\t`,
/// `\uXXXX`).
fn expr_field(line: &str) -> Option<String> {
    let start = line.find("\"expr\":")? + 7;
    let rest = line[start..].trim_start().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

#[test]
fn both_engines_agree_on_the_vanilla_corpus_at_every_version() {
    let corpus = corpus();
    let mut deep = 0;
    for src in &corpus {
        for version in [-1, 4, 5, 6, grammar::LATEST_VERSION] {
            same(src, version);
        }
        let open = grammar::max_open_nesting(&grammar::lexer::lex(src));
        deep += usize::from(open > MAX_ASCENT_NESTERS);
    }
    println!(
        "{} vanilla strings, both engines agree; {deep} go to the table-driven parser",
        corpus.len()
    );
}

#[test]
fn both_engines_agree_around_the_switch_and_on_errors() {
    for n in [
        0,
        1,
        MAX_ASCENT_NESTERS - 1,
        MAX_ASCENT_NESTERS,
        MAX_ASCENT_NESTERS + 1,
    ] {
        for (unit, tail) in [
            ("!", "1"),
            ("-!", "1"),
            ("v.a ? 1 : ", "0"),
            ("v.a ? ", "1"),
            ("(", ""),
            ("math.abs(", "1"),
            ("1 - ", "2"),
            ("v.x = -", "1;"),
            ("--", "1"),
            ("1 ? ", ":"),
        ] {
            for version in [4, grammar::LATEST_VERSION] {
                same(&format!("{}{tail}", unit.repeat(n)), version);
            }
        }
    }
}

#[test]
fn the_recursive_ascent_parser_fits_a_small_stack_at_its_limit() {
    // The worst shallow-enough programs, on a 512 KiB thread (a quarter of a test thread's
    // stack): a debug build's frames are the largest this parser ever uses.
    let n = MAX_ASCENT_NESTERS;
    let programs = [
        "!".repeat(n) + "1",
        "-!".repeat(n / 2) + "1",
        "v.a ? 1 : ".repeat(n) + "0",
        "v.a ? ".repeat(n) + "1",
        "(".repeat(n) + "1" + &")".repeat(n),
        // Levels as fat as the grammar makes them: each bracket holding a `return`, an
        // assignment, a coalesce, a conditional and a prefix open (three levels counted).
        "(return v.a = v.b ?? v.c ? !".repeat(n / 3) + "1" + &")".repeat(n / 3),
    ];
    for p in &programs {
        assert!(
            grammar::max_open_nesting(&grammar::lexer::lex(p)) <= n,
            "{p}"
        );
    }
    let parsed = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            programs
                .iter()
                .map(|p| parse(p, ParseOptions::default()).has_errors())
                .collect::<Vec<_>>()
        })
        .unwrap()
        .join()
        .expect("parsing the deepest shallow programs overflowed a 512 KiB stack");
    assert_eq!(parsed, vec![false; 6]);
}

#[test]
fn open_nesting_counts_what_is_open_at_once() {
    let open = |src: &str| grammar::max_open_nesting(&grammar::lexer::lex(src));
    assert_eq!(open("1"), 0);
    // Closed brackets and finished operands give their levels back.
    assert_eq!(open(&"(1) + !v.a - -1 + ".repeat(1000)), 1);
    assert_eq!(open(&"v.a ? 1 : 2; ".repeat(1000)), 1);
    assert_eq!(open(&"f(!1, -2) * ".repeat(1000)), 2);
    // What stays open adds up: prefixes, `?`s (else-if chains), brackets.
    assert_eq!(open("!-!1"), 3);
    assert_eq!(open("!(!(1))"), 4);
    assert_eq!(open("v.a ? 1 : v.b ? 2 : v.c ? 3 : 4"), 3);
    assert_eq!(open("v.a ? (v.b ? [-1] : 2) : 3"), 5);
    // A minus after an operand is binary.
    assert_eq!(open("1 - 2 - 3 - -4"), 1);
    // Counted up to one past the limit, which decides the engine.
    assert_eq!(open(&"!".repeat(1000)), MAX_ASCENT_NESTERS + 1);
}

#[test]
fn deep_programs_parse_on_a_small_stack() {
    // Past the switch the table-driven parser keeps its stack on the heap: 100,000 levels of
    // every right-nesting shape on a 256 KiB thread.
    let parsed = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            [
                ("!", "1"),
                ("-!", "1"),
                ("v.a ? 1 : ", "0"),
                ("v.a ? ", "1"),
            ]
            .iter()
            .map(|(unit, tail)| {
                let p = parse(
                    &format!("{}{tail}", unit.repeat(100_000)),
                    ParseOptions::default(),
                );
                p.ast.len()
            })
            .collect::<Vec<_>>()
        })
        .unwrap()
        .join()
        .expect("a deep program overflowed the stack");
    assert!(parsed.iter().all(|&n| n >= 100_000), "{parsed:?}");
}

#[test]
fn errors_quote_the_grammars_own_states() {
    // The fast parser inlines nonterminals, which moves where it notices an error and what it
    // lists as expected (for `1 ,` it would add `=`); every error is read again without that
    // inlining, so the list is the grammar's, as it was before the inlining.
    let expected = |src: &str| match &parse(src, ParseOptions::default()).diagnostics[..] {
        [d] => match &d.kind {
            ParseErrorKind::UnexpectedToken { expected, .. }
            | ParseErrorKind::UnexpectedEnd { expected } => expected.clone(),
            other => panic!("{src}: {other:?}"),
        },
        other => panic!("{src}: {other:?}"),
    };
    assert_eq!(expected("1 ,"), [")", "}", "]", ";"]);
    assert_eq!(expected("q.f( 1"), [")", ","]);
}
