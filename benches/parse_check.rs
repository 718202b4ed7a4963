//! Parse and check every vanilla Molang string, side by side with the published `nolana`
//! parser on the same strings in the same run.
//!
//! Strings: every record of `shared/corpus/bedrock-samples-molang.jsonl` except those marked
//! `"fragment": true`, plus the `expr` of every record of
//! `shared/corpus/bedrock-samples-molang-scripts.jsonl`.
//!
//! One iteration handles every string once; the groups use `Throughput::Elements(n)`, so
//! the time per string is the reported time divided by n (criterion also prints elem/s).
//!
//! Run: `cargo bench --bench parse_check -- --warm-up-time 1 --measurement-time 5`.
//! Results and the machine they came from: BENCHMARKS.md.
//!
//! Instruction counts (what a loaded machine cannot spoil): `PARSE_CHECK_COUNT=ours` (or
//! `nolana`) makes the binary parse the corpus `PARSE_CHECK_PASSES` times (default 3) with
//! that parser alone and exit before criterion, for `valgrind --tool=callgrind`; the inclusive
//! cost of `grammar::parse` (or nolana's `Parser::parse`) divided by passes × strings is the
//! cost per string. Built with `--features bench-mimalloc`, the binary uses mimalloc as its
//! global allocator (as the `molang` command does) instead of the system's. The exact
//! commands are in BENCHMARKS.md.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nolana::{allocator::Allocator, parser::Parser, semantic::SemanticChecker};

#[cfg(feature = "bench-mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

fn read_jsonl(name: &str) -> Vec<serde_json::Value> {
    let path = corpus_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "benchmark corpus file {} is missing or unreadable ({e}); the benchmark needs the \
             vanilla corpus in ../shared/corpus next to the workspace",
            path.display()
        )
    });
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}: line {} is not JSON: {e}", path.display(), i + 1))
        })
        .collect()
}

fn expr_of(record: &serde_json::Value, file: &str) -> String {
    record["expr"]
        .as_str()
        .unwrap_or_else(|| panic!("{file}: a record has no string `expr`: {record}"))
        .to_owned()
}

/// Every vanilla string the benchmark runs over.
fn corpus() -> Vec<String> {
    const SINGLES: &str = "bedrock-samples-molang.jsonl";
    const SCRIPTS: &str = "bedrock-samples-molang-scripts.jsonl";
    let mut strings: Vec<String> = read_jsonl(SINGLES)
        .iter()
        .filter(|r| r.get("fragment").and_then(|f| f.as_bool()) != Some(true))
        .map(|r| expr_of(r, SINGLES))
        .collect();
    strings.extend(read_jsonl(SCRIPTS).iter().map(|r| expr_of(r, SCRIPTS)));
    assert!(!strings.is_empty(), "the benchmark corpus is empty");
    strings
}

fn ours_parse(s: &str) -> grammar::Parsed {
    grammar::parse(s, Default::default())
}

fn ours_check(s: &str) -> molang::Checked {
    molang::check(
        s,
        &molang::CheckOptions::default(),
        &mut molang::ir::Names::default(),
    )
}

/// How many strings each side accepts; printed once so the report can quote it.
fn report_acceptance(strings: &[String]) {
    let n = strings.len();
    let parsed = strings
        .iter()
        .filter(|s| !ours_parse(s).has_errors())
        .count();
    let loads = strings.iter().filter(|s| ours_check(s).loads()).count();
    let no_errors = strings
        .iter()
        .filter(|s| !ours_check(s).has_errors())
        .count();

    let allocator = Allocator::default();
    let mut nolana_ok = 0;
    let mut nolana_semantic_ok = 0;
    let mut rejected = Vec::new();
    for s in strings {
        let ret = Parser::new(&allocator, s).parse();
        if ret.errors.is_empty() && !ret.panicked {
            nolana_ok += 1;
            if SemanticChecker::default().check(&ret.program).is_empty() {
                nolana_semantic_ok += 1;
            }
        } else {
            rejected.push((
                s,
                ret.errors
                    .first()
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
            ));
        }
    }

    eprintln!("parse_check corpus: {n} strings");
    eprintln!("  ours   grammar::parse without syntax errors : {parsed}/{n}");
    eprintln!("  ours   molang::check, loads in the game      : {loads}/{n}");
    eprintln!("  ours   molang::check, no error diagnostics   : {no_errors}/{n}");
    eprintln!("  nolana Parser::parse without errors          : {nolana_ok}/{n}");
    eprintln!("  nolana parse + SemanticChecker without errors: {nolana_semantic_ok}/{n}");
    if !rejected.is_empty() {
        let mut by_error: std::collections::BTreeMap<&str, usize> = Default::default();
        for (_, e) in &rejected {
            *by_error.entry(e.as_str()).or_default() += 1;
        }
        eprintln!(
            "  nolana rejected {} strings; first error of each:",
            rejected.len()
        );
        for (e, count) in &by_error {
            eprintln!("    {count:4}  {e}");
        }
        // PARSE_CHECK_ALL_REJECTED=1 lists every string nolana rejects.
        let shown = if std::env::var_os("PARSE_CHECK_ALL_REJECTED").is_some() {
            rejected.len()
        } else {
            8
        };
        eprintln!("  examples:");
        for (s, e) in rejected.iter().take(shown) {
            let short: String = s
                .chars()
                .take(if shown > 8 { 400 } else { 90 })
                .collect::<String>()
                .replace('\n', "\\n");
            eprintln!("    {e}: {short}");
        }
    }
}

/// Interleaved timing printed before criterion runs: each round times one pass over the
/// corpus per workload, in rotating order, and the summary uses the fastest pass of each.
/// On a shared machine other processes slow criterion's back-to-back groups by different
/// amounts; the minimum over interleaved passes is far less sensitive to that, so the ratios
/// here are the ones to trust when the two disagree.
fn report_interleaved(strings: &[String]) {
    const ROUNDS: usize = 40;
    let n = strings.len() as f64;
    let mut allocator = Allocator::default();
    let names = [
        "ours_parse",
        "ours_check",
        "nolana_parse",
        "nolana_parse_semantic",
    ];
    let mut times: [Vec<f64>; 4] = Default::default();
    for round in 0..ROUNDS {
        for k in 0..4 {
            let which = (round + k) % 4;
            let start = std::time::Instant::now();
            match which {
                0 => {
                    for s in strings {
                        black_box(ours_parse(black_box(s)));
                    }
                }
                1 => {
                    for s in strings {
                        black_box(ours_check(black_box(s)));
                    }
                }
                2 => {
                    for s in strings {
                        black_box(Parser::new(&allocator, black_box(s)).parse());
                    }
                    allocator.reset();
                }
                _ => {
                    for s in strings {
                        let ret = Parser::new(&allocator, black_box(s)).parse();
                        black_box(SemanticChecker::default().check(&ret.program));
                        black_box(ret);
                    }
                    allocator.reset();
                }
            }
            times[which].push(start.elapsed().as_secs_f64() * 1e6 / n);
        }
    }
    let mut min = [0.0; 4];
    eprintln!("interleaved passes ({ROUNDS} rounds), µs per string:");
    for k in 0..4 {
        times[k].sort_by(|a, b| a.total_cmp(b));
        min[k] = times[k][0];
        eprintln!(
            "  {:<22} min {:7.3}   median {:7.3}",
            names[k],
            times[k][0],
            times[k][ROUNDS / 2]
        );
    }
    eprintln!("  ratios of minima: ours_parse/nolana_parse {:.2}, ours_check/nolana_parse {:.2}, ours_check/nolana_parse_semantic {:.2}",
        min[0] / min[2], min[1] / min[2], min[1] / min[3]);
}

/// The parse passes alone, for an instruction count under callgrind: `PARSE_CHECK_COUNT` names
/// the parser (`ours` or `nolana`), `PARSE_CHECK_PASSES` how many passes (default 3). Returns
/// whether it ran (then criterion is skipped).
fn count_mode(strings: &[String]) -> bool {
    let Some(which) = std::env::var_os("PARSE_CHECK_COUNT") else {
        return false;
    };
    let passes: usize = std::env::var("PARSE_CHECK_PASSES")
        .ok()
        .map(|p| p.parse().expect("PARSE_CHECK_PASSES is a number"))
        .unwrap_or(3);
    match which.to_str() {
        Some("ours") => {
            for _ in 0..passes {
                for s in strings {
                    black_box(ours_parse(black_box(s)));
                }
            }
        }
        Some("nolana") => {
            let mut allocator = Allocator::default();
            for _ in 0..passes {
                for s in strings {
                    black_box(Parser::new(&allocator, black_box(s)).parse());
                }
                allocator.reset();
            }
        }
        _ => panic!("PARSE_CHECK_COUNT is `ours` or `nolana`"),
    }
    eprintln!(
        "parsed {} strings {passes} times with {}",
        strings.len(),
        which.to_string_lossy()
    );
    true
}

fn bench(c: &mut Criterion) {
    let strings = corpus();
    if count_mode(&strings) {
        return;
    }
    report_acceptance(&strings);
    report_interleaved(&strings);
    let n = strings.len() as u64;

    let mut group = c.benchmark_group("vanilla_corpus");
    group.throughput(Throughput::Elements(n));

    group.bench_function("ours_parse", |b| {
        b.iter(|| {
            for s in &strings {
                black_box(ours_parse(black_box(s)));
            }
        })
    });

    group.bench_function("ours_check", |b| {
        b.iter(|| {
            for s in &strings {
                black_box(ours_check(black_box(s)));
            }
        })
    });

    // nolana allocates its AST in an arena; as in its own benchmark, the arena is reused and
    // reset (here once per pass over the corpus).
    let mut allocator = Allocator::default();
    group.bench_function("nolana_parse", |b| {
        b.iter(|| {
            for s in &strings {
                black_box(Parser::new(&allocator, black_box(s)).parse());
            }
            allocator.reset();
        })
    });

    // For reference next to `ours_check`: nolana's parse plus its (much smaller) semantic pass.
    group.bench_function("nolana_parse_semantic", |b| {
        b.iter(|| {
            for s in &strings {
                let ret = Parser::new(&allocator, black_box(s)).parse();
                black_box(SemanticChecker::default().check(&ret.program));
                black_box(ret);
            }
            allocator.reset();
        })
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
