//! Compile latency (issue 17, item 3), one pass, no criterion: every vanilla Molang string
//! (the corpus of `benches/parse_check.rs`) checked and JIT-compiled one at a time, with the
//! distribution of the per-expression time; and the whole Doggoyle rig (check of the
//! generated scripts + `enable_jit`), best of `ROUNDS`.
//!
//! One pass is small enough to run under `valgrind --tool=callgrind` (instruction counts,
//! repeatable on a loaded machine), which is how BENCHMARKS.md measures it:
//!
//! ```text
//! cargo test --bench compile_latency --no-run   # test profile: opt-level 1, deps 2
//! valgrind --tool=callgrind --toggle-collect='*jit*module*compile*' target/debug/deps/compile_latency-HASH
//! ```
//!
//! `cargo bench --bench compile_latency` runs the same in release.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ik_gait::generate::generate;
use ik_gait::RigParams;
use molang::entity::{EntityScripts, ScriptSource};
use molang::{CheckOptions, EvalOptions};

mod common;
use common::corpus;

const ROUNDS: usize = 5;

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here is filtered.
    let strings = corpus();
    let options = EvalOptions::default();
    let checked: Vec<_> = (strings.iter())
        .filter_map(|s| molang::compile(s, &CheckOptions::default()).ok())
        .collect();
    let mut jit: Vec<Duration> = Vec::with_capacity(checked.len());
    let mut refused = 0;
    for e in &checked {
        let start = Instant::now();
        let native = e.compile_native(&options);
        jit.push(start.elapsed());
        refused += native.is_err() as usize;
        black_box(native.ok());
    }
    let total: Duration = jit.iter().sum();
    jit.sort();
    println!(
        "corpus: {} strings, {} checked, {} JIT-compiled ({refused} refused)",
        strings.len(),
        checked.len(),
        checked.len() - refused
    );
    println!(
        "JIT compile per expression: mean {:.1} us, p50 {:.1} us, p90 {:.1} us, p99 {:.1} us, max {:.1} us; all {:.1} ms",
        micros(total) / jit.len().max(1) as f64,
        micros(percentile(&jit, 0.5)),
        micros(percentile(&jit, 0.9)),
        micros(percentile(&jit, 0.99)),
        micros(*jit.last().unwrap()),
        total.as_secs_f64() * 1e3
    );

    let p = RigParams::default();
    let g = generate(&p);
    let src = ScriptSource {
        initialize: g.initialize.clone(),
        pre_animation: g.pre_animation.clone(),
        ..Default::default()
    };
    let (mut check, mut both) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let mut s = EntityScripts::compile(black_box(&src)).expect("the rig loads");
        let checked = start.elapsed();
        s.enable_jit().expect("the rig compiles");
        let all = start.elapsed();
        black_box(&s);
        check = check.min(checked);
        both = both.min(all);
    }
    println!(
        "Doggoyle rig ({} bytes of Molang), best of {ROUNDS}: check {:.2} ms, check + JIT {:.2} ms (JIT {:.2} ms)",
        (src.initialize.iter().chain(&src.pre_animation))
            .map(String::len)
            .sum::<usize>(),
        check.as_secs_f64() * 1e3,
        both.as_secs_f64() * 1e3,
        (both - check).as_secs_f64() * 1e3
    );
}
