//! The formatter never changes what an expression means: parse(format(x)) checks to the
//! same IR (same nodes, same names, same diagnostics) as x, and formatting is idempotent,
//! in both styles, over the vanilla corpus and over generated programs.

mod common;

use molang::format::{format_expr, Skip, Style};
use molang::fuzz::strategies::{near_miss, program, ProgramConfig};
use molang::ir::{Names, NodeId};
use molang::{check, CheckOptions};
use proptest::prelude::*;

/// The checked IR and the diagnostics, spans aside. Nodes compare by their printed form: the
/// game's compiler folds constant subtrees, so a node can hold a NaN, which `==` never equals.
fn meaning(src: &str, version: i16) -> (Option<Vec<String>>, String, Vec<&'static str>) {
    let mut names = Names::default();
    let options = CheckOptions {
        version,
        ..CheckOptions::default()
    };
    let checked = check(src, &options, &mut names);
    let nodes = checked.program.as_ref().map(|p| {
        let mut v: Vec<_> = (0..p.len() as u32)
            .map(|i| format!("{:?}", p.node(NodeId(i))))
            .collect();
        v.push(format!("{:?}", p.node(p.root())));
        v
    });
    let codes = checked
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    // Slots in order, per table (the interners' hash maps have no stable order).
    let tables = [
        &names.temps,
        &names.variables,
        &names.contexts,
        &names.queries,
        &names.symbols,
    ];
    let names = tables
        .iter()
        .map(|t| {
            t.iter()
                .map(|(_, n)| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";");
    (nodes, names, codes)
}

/// Checks one text; returns whether it was formatted (false: it does not parse).
fn holds(src: &str, version: i16) -> Result<bool, String> {
    for style in [Style::Pretty, Style::Minify] {
        let out = match format_expr(src, version, style) {
            Ok(out) => out,
            Err(Skip::Syntax) => return Ok(false),
            Err(Skip::Unstable) => {
                return Err(format!("{style:?} refused its own output for {src:?}"))
            }
        };
        if meaning(&out, version) != meaning(src, version) {
            return Err(format!("{style:?} changed the meaning of {src:?}: {out:?}"));
        }
        let again = format_expr(&out, version, style).map_err(|e| format!("{e:?} on {out:?}"))?;
        if again != out {
            return Err(format!(
                "{style:?} is not idempotent on {src:?}: {out:?} then {again:?}"
            ));
        }
    }
    Ok(true)
}

#[test]
fn fmt_keeps_meaning_of_the_vanilla_corpus() {
    let mut formatted = 0;
    let mut total = 0;
    for file in [
        "corpus/bedrock-samples-molang.jsonl",
        "corpus/bedrock-samples-molang-scripts.jsonl",
    ] {
        for rec in common::read_lines(file) {
            let src = rec["expr"].as_str().expect("expr");
            for version in [grammar::LATEST_VERSION, 5] {
                total += 1;
                if holds(src, version).unwrap_or_else(|e| panic!("{e}")) {
                    formatted += 1;
                }
            }
        }
    }
    println!("fmt corpus: {formatted} of {total} (text, version) pairs formatted, meaning and idempotence held");
    // Vanilla parses; only a few strings with syntax errors are left alone.
    assert!(
        total > 6000 && formatted * 100 >= total * 99,
        "{formatted} of {total}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn fmt_keeps_meaning_of_generated_programs(src in program(&ProgramConfig::default()), version in prop_oneof![Just(13i16), Just(4i16), Just(0i16)]) {
        let formatted = holds(&src, version).map_err(TestCaseError::fail)?;
        // Generated programs are well formed at the latest version.
        if version == 13 {
            prop_assert!(formatted, "not formatted: {}", src);
        }
    }

    #[test]
    fn fmt_never_touches_meaning_of_near_misses(case in near_miss(&ProgramConfig::default())) {
        holds(&case.text, 13).map_err(TestCaseError::fail)?;
    }
}
