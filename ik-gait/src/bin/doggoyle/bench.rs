//! `doggoyle bench`: the measurements of `ik_gait::bench`, as tables on stdout.

use crate::{backend_arg, scenario_arg};
use ik_gait::runner::Backend;
use ik_gait::scenarios;
use ik_gait::RigParams;
use std::process::ExitCode;

/// The back ends of a comma-separated `--backend` list.
fn backend_list(backends: &str) -> Result<Vec<Backend>, ExitCode> {
    backends.split(',').map(|b| backend_arg(b.trim())).collect()
}

/// `bench --dogs N [--threads T]`: N dogs on one thread and on T, per back end, best of 3,
/// with frames/s, the scaling, bytes per dog and whether every run gave the same outputs.
pub fn herd(
    p: &RigParams,
    scenario: &str,
    fps: f32,
    backends: &str,
    dogs: usize,
    threads: Option<usize>,
) -> ExitCode {
    let sc = match scenario_arg(scenario) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let list = match backend_list(backends) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if dogs == 0 || threads == 0 {
        eprintln!("--dogs and --threads must be at least 1");
        return ExitCode::from(2);
    }
    let inputs = scenarios::inputs(&sc, fps, false);
    let frames = inputs.len() as u64;
    println!(
        "{}: {dogs} dogs x {frames} frames at {fps} fps (each from its own frame, at its own speed), best of 3",
        sc.name
    );
    println!(
        "{:13} {:>7} {:>12} {:>14} {:>9} {:>14}",
        "backend", "threads", "ms", "frames/s", "scaling", "bytes/dog"
    );
    // Per kind of back end (each reference, the Molang ones together: the interpreter and
    // the JIT agree to the bit), the digests of the first run: every run must repeat them.
    let mut first: [Option<Vec<u64>>; 3] = [None, None, None];
    for b in list {
        let kind = match b {
            Backend::Reference => 0,
            Backend::Reference64 => 1,
            Backend::Interp | Backend::Jit => 2,
        };
        let mut one_fps = None;
        let counts: Vec<usize> = if threads == 1 {
            vec![1]
        } else {
            vec![1, threads]
        };
        for t in counts {
            let mut best: Option<ik_gait::bench::HerdRow> = None;
            for _ in 0..3 {
                let row = match ik_gait::bench::measure_herd(p, b, &inputs, dogs, t, frames) {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("error: {}: {e}", b.name());
                        return ExitCode::from(1);
                    }
                };
                match &first[kind] {
                    None => first[kind] = Some(row.digests.clone()),
                    Some(d) if *d != row.digests => {
                        eprintln!(
                            "error: {} on {t} threads gave other outputs than the first run (a bug)",
                            b.name()
                        );
                        return ExitCode::from(1);
                    }
                    Some(_) => {}
                }
                if best.as_ref().is_none_or(|r| row.elapsed < r.elapsed) {
                    best = Some(row);
                }
            }
            let row = best.expect("three runs");
            let fps_now = row.frames_per_second();
            let one = *one_fps.get_or_insert(fps_now);
            println!(
                "{:13} {:>7} {:>12.2} {:>14.0} {:>8.2}x {:>14}",
                b.name(),
                row.threads,
                row.elapsed.as_secs_f64() * 1e3,
                fps_now,
                fps_now / one,
                row.bytes_per_dog
            );
        }
    }
    println!(
        "outputs: bit-identical on every run and thread count, interp and jit alike (digests of every frame)"
    );
    ExitCode::SUCCESS
}

pub fn bench(p: &RigParams, scenario: &str, fps: f32, backends: &str, seconds: f64) -> ExitCode {
    let sc = match scenario_arg(scenario) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if !(fps.is_finite() && fps > 0.0 && seconds.is_finite() && seconds > 0.0) {
        eprintln!("--fps and --seconds must be positive");
        return ExitCode::from(2);
    }
    let list = match backend_list(backends) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let inputs = scenarios::inputs(&sc, fps, false);
    // Two seconds of warm-up: the gait has settled and the branch predictors have too.
    let warm = ((2.0 * fps) as usize).min(inputs.len().saturating_sub(1));
    let min_time = std::time::Duration::from_secs_f64(seconds);
    println!(
        "{} at {fps} fps, {} timed frames cycled for {seconds} s per back end",
        sc.name,
        inputs.len() - warm
    );
    println!(
        "{:13} {:>12} {:>14} {:>16} {:>12} {:>10}",
        "backend", "ns/frame", "frames/s", "dogs/core@60fps", "vs reference", "frames"
    );
    let mut reference_ns = None;
    for b in list {
        match ik_gait::bench::measure(p, b, &inputs, warm, min_time) {
            Ok(row) => {
                let ns = row.ns_per_frame();
                if b == Backend::Reference {
                    reference_ns = Some(ns);
                }
                let ratio = reference_ns.map_or("-".to_string(), |r| format!("{:.2}x", ns / r));
                println!(
                    "{:13} {:>12.0} {:>14.0} {:>16.0} {:>12} {:>10}",
                    b.name(),
                    ns,
                    row.frames_per_second(),
                    row.dogs_per_core(60.0),
                    ratio,
                    row.frames
                );
            }
            Err(e) => {
                eprintln!("error: {}: {e}", b.name());
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
