//! Properties the fuzzers rely on, and regressions for what they found.
//!
//! - The printer: `parse(print(ast))` is `ast` again (spans aside) for well-formed programs
//!   and for near misses that still parse, at several Molang versions. Fuzz findings are
//!   printed with it, so a shrunk case reads as Molang.
//! - One test per fuzzing finding below, named after what broke.

use grammar::print::{print, same_tree};
use grammar::ParseOptions;
use molang::fuzz::strategies::{near_miss, program, ProgramConfig};
use proptest::prelude::*;

fn round_trips(src: &str, version: i16) -> Result<(), TestCaseError> {
    let options = ParseOptions { version };
    let parsed = grammar::parse(src, options);
    if parsed.has_errors() {
        return Ok(());
    }
    let text = print(&parsed.ast);
    let again = grammar::parse(&text, options);
    prop_assert!(
        !again.has_errors(),
        "printed text does not parse at v{version}:\n  {src}\n  {text}\n  {:?}",
        again.diagnostics
    );
    prop_assert!(
        same_tree(&parsed.ast, &again.ast),
        "round trip changed the tree at v{version}:\n  {src}\n  {text}"
    );
    // Printing is a fixed point after one round.
    prop_assert_eq!(print(&again.ast), text);
    Ok(())
}

fn version() -> impl Strategy<Value = i16> {
    prop::sample::select(&[13i16, 6, 5, 4, -1][..])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn printer_round_trips_well_formed_programs(src in program(&ProgramConfig::default()), v in version()) {
        prop_assert!(!grammar::parse(&src, ParseOptions::default()).has_errors(), "{}", src);
        round_trips(&src, v)?;
    }

    #[test]
    fn printer_round_trips_near_misses(m in near_miss(&ProgramConfig::default()), v in version()) {
        round_trips(&m.text, v)?;
    }
}

/// Found by profiling the `check` fuzz target (the "did you mean" search was most of its
/// time): the search for an unknown query's nearest name compared it with every query, in
/// time quadratic in its length, for every occurrence. A 1 MB name took 13 s to check and
/// 100,000 distinct unknown names 20 s. Long names now get no search, and one program gets
/// at most 1,000 searches; the warnings themselves are all still there.
#[test]
fn unknown_query_suggestions_are_bounded() {
    use molang::{CheckOptions, Code};
    let help = |src: &str| -> Vec<String> {
        let expr = molang::compile(src, &CheckOptions::default()).expect("loads");
        expr.warnings
            .iter()
            .filter(|d| d.code == Code::UnknownQuery)
            .map(|d| d.help.clone().unwrap_or_default())
            .collect()
    };
    assert!(help("q.is_babby")[0].contains("did you mean `query.is_baby`"));
    let long = format!("q.{}", "a".repeat(1_000_000));
    assert!(!help(&long)[0].contains("did you mean"));
    // 1,500 distinct names, each within 3 edits of `is_baby`.
    let letter = |n: u32| char::from(b'a' + (n % 26) as u8);
    let many: String = (0..1500u32)
        .map(|i| {
            format!(
                "t.x = q.is_bab{}{}{}; ",
                letter(i),
                letter(i / 26),
                letter(i / 676)
            )
        })
        .collect::<String>()
        + "return q.is_babby;";
    let helps = help(&many);
    assert_eq!(helps.len(), 1501);
    assert!(helps[..1000].iter().all(|h| h.contains("did you mean")));
    assert!(helps[1000..].iter().all(|h| !h.contains("did you mean")));
}
