//! The cost of `molang::check` per vanilla string, for instruction counts (issue 17 item 1).
//!
//! Each pass runs `molang::check(s, &CheckOptions::default(), &mut Names::default())` over
//! every string of the benchmark corpus (`common::corpus`, the same 3,237 strings as
//! `parse_check`), like `parse_check`'s `ours_check`. No timing: run it under callgrind and
//! read the inclusive counts of `molang::check::check` and of `grammar::parse` inside it:
//!
//! ```text
//! cargo bench --bench check_cost --no-run
//! valgrind --tool=callgrind --callgrind-out-file=cg.out target/release/deps/check_cost-* [passes]
//! callgrind_annotate --inclusive=yes cg.out | grep -E 'check::check|grammar::parse::parse'
//! ```
//!
//! Divide by `passes` (default 1) × the string count the program prints. With the argument
//! `nolana` it parses the same strings with nolana instead (its `Parser::parse` count).
//! Results: BENCHMARKS.md, "Parse and check, next to `nolana`".

mod common;

use std::hint::black_box;

fn main() {
    // `cargo bench` passes `--bench`; the first numeric argument is the pass count.
    let passes: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1);
    let strings = common::corpus();
    // `nolana`: the published parser on the same strings, for the ratio (read the inclusive
    // count of `nolana::parser::Parser::parse`).
    if std::env::args().any(|a| a == "nolana") {
        // Reused and reset once per pass, as in `parse_check`.
        let mut allocator = nolana::allocator::Allocator::default();
        for _ in 0..passes {
            for s in &strings {
                black_box(nolana::parser::Parser::new(&allocator, black_box(s)).parse());
            }
            allocator.reset();
        }
        println!(
            "check_cost: nolana, {} strings x {passes} passes",
            strings.len()
        );
        return;
    }
    let mut diagnostics = 0usize;
    for _ in 0..passes {
        for s in &strings {
            let checked = molang::check(
                black_box(s),
                &molang::CheckOptions::default(),
                &mut molang::ir::Names::default(),
            );
            diagnostics += checked.diagnostics.len();
            black_box(checked);
        }
    }
    println!(
        "check_cost: {} strings x {passes} passes, {diagnostics} diagnostics",
        strings.len()
    );
}
