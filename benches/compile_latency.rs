//! Compile latency (issue 17, item 3), one pass, no criterion: every vanilla Molang string
//! (the corpus of `benches/parse_check.rs`) checked and JIT-compiled one at a time, with the
//! distribution of the per-expression time; the whole Doggoyle rig (check of the
//! generated scripts + `enable_jit`), best of `ROUNDS`; and the rig's tiered start
//! (`enable_jit_in_background`): how long the call takes, how many frames run interpreted
//! until the code is ready, and the slowest of those frames next to an interpreted one.
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
use ik_gait::runner::MolangRig;
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

    tiered_start(&p);
}

/// The rig started on the interpreter with its compile on another thread: frames run (the
/// trot scenario, cycled) until it is native.
fn tiered_start(p: &RigParams) {
    let g = generate(p);
    let sc = ik_gait::scenarios::find("trot-2.5").expect("scenario trot-2.5");
    let inputs = ik_gait::scenarios::inputs(&sc, 60.0, false);
    // An interpreted frame on its own, for comparison (median of the scenario's frames).
    let interp = MolangRig::from_generated(p, &g, false).expect("the rig loads");
    let mut e = interp.instantiate();
    let mut alone: Vec<Duration> = (inputs.iter())
        .map(|inp| {
            let start = Instant::now();
            interp.frame(&mut e, inp).expect("the rig runs");
            start.elapsed()
        })
        .collect();
    alone.sort();
    let mut rig = MolangRig::from_generated(p, &g, false).expect("the rig loads");
    let mut e = rig.instantiate();
    let start = Instant::now();
    let handle = rig.scripts.enable_jit_in_background();
    let call = start.elapsed();
    let (mut frames, mut slowest) = (0usize, Duration::ZERO);
    while !rig.scripts.is_native() {
        let t = Instant::now();
        rig.frame(&mut e, &inputs[frames % inputs.len()])
            .expect("the rig runs");
        slowest = slowest.max(t.elapsed());
        frames += 1;
    }
    let ready = start.elapsed();
    handle.join().expect("the compile thread ends");
    println!(
        "Doggoyle rig, tiered start: enable_jit_in_background returned in {:.1} us; {frames} frames interpreted until native at {:.2} ms; slowest of them {:.1} us, an interpreted frame alone: median {:.1} us, max {:.1} us",
        micros(call),
        ready.as_secs_f64() * 1e3,
        micros(slowest),
        micros(percentile(&alone, 0.5)),
        micros(*alone.last().unwrap())
    );
}
