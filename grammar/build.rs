//! Generates three parsers from the one grammar in `src/molang.lalrpop`:
//! - `ascent`: recursive ascent (each LR state a function: about twice as fast, but its depth
//!   is the call stack's), with the nonterminals marked `#[inline] // ascent only` inlined
//!   (fewer unit reductions), for the short programs that are nearly all real Molang;
//! - `plain`: the same without that inlining, which reads again every program `ascent`
//!   rejects: an error is noticed in the grammar's own LR states, so its expected-token list
//!   is the grammar's and does not depend on what was inlined;
//! - `table`: table-driven, without that inlining (its LR stack on the heap) for anything
//!   that nests too deeply for the call stack.
//!
//! Same grammar, same actions, same trees.

use std::path::PathBuf;

fn main() {
    let grammar = "src/molang.lalrpop";
    println!("cargo:rerun-if-changed={grammar}");
    let text = std::fs::read_to_string(grammar).expect("src/molang.lalrpop is readable");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dir = out.join("grammars");
    std::fs::create_dir_all(&dir).expect("OUT_DIR is writable");
    let header = "grammar<";
    assert!(
        text.contains(header),
        "the grammar declares its parameters with `grammar<`"
    );
    // Nonterminals inlined for speed in the recursive-ascent parser only: the table-driven one
    // keeps the grammar's own LR states, whose expected-token lists the diagnostics quote.
    let marker = "#[inline] // ascent only";
    assert!(
        text.lines().any(|l| l.trim() == marker),
        "the grammar marks its ascent-only inlining with `{marker}`"
    );
    let table: String = text
        .lines()
        .filter(|l| l.trim() != marker)
        .map(|l| format!("{l}\n"))
        .collect();
    let ascent = |text: &str| text.replacen(header, &format!("#[recursive_ascent]\n{header}"), 1);
    std::fs::write(dir.join("plain.lalrpop"), ascent(&table)).expect("OUT_DIR is writable");
    std::fs::write(dir.join("table.lalrpop"), table).expect("OUT_DIR is writable");
    std::fs::write(dir.join("ascent.lalrpop"), ascent(&text)).expect("OUT_DIR is writable");
    lalrpop::Configuration::new()
        .set_in_dir(&dir)
        .set_out_dir(&out)
        .process()
        .expect("LALRPOP grammar failed to build");
}
