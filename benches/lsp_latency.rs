//! Language-server latency on Mojang's vanilla resource pack (../shared/vanilla):
//!
//! - `open_workspace`: reading and analysing the whole pack, as on `initialize`;
//! - `edit_animation`: the diagnostics after one change to an animation file (only that
//!   file is re-extracted and re-checked, then the entities that use it).
//!
//! Run: `cargo bench --bench lsp_latency -- --warm-up-time 1 --measurement-time 5`.
//!
//! On a loaded machine wall time means little; `--probe N` (any profile, e.g. the test
//! profile's `cargo test --bench lsp_latency --no-run` binary) opens the workspace once,
//! makes N edits and prints the thread's CPU time for each step; under
//! `valgrind --tool=callgrind` the difference of `--probe 0` and `--probe N` gives the
//! instructions per edit. Numbers and their caveats: BENCHMARKS.md.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::Criterion;
use molang_cli::lsp::{handlers, state::Workspace};

#[path = "../tests/common.rs"]
mod common;

fn vanilla() -> PathBuf {
    let dir = common::shared_dir().join("vanilla/resource_pack");
    assert!(
        dir.join("manifest.json").is_file(),
        "the benchmark needs {}",
        dir.display()
    );
    dir
}

/// The edited file and its two texts: with an error introduced, and as shipped.
fn edits(root: &Path) -> (PathBuf, [String; 2]) {
    let path = root.join("animations/pig.animation.json");
    let text = std::fs::read_to_string(&path).expect("pig.animation.json");
    let broken = text.replace("\"90.0 - this\"", "\"90.0 - (this\"");
    assert_ne!(broken, text, "the edit applies");
    (path, [broken, text])
}

fn bench(c: &mut Criterion) {
    let roots = vec![vanilla()];
    let mut g = c.benchmark_group("lsp");
    g.sample_size(10);
    g.bench_function("open_workspace", |b| {
        b.iter(|| {
            let ws = Workspace::new(&roots);
            handlers::diagnostics(&ws, None).len()
        })
    });
    let (path, texts) = edits(&roots[0]);
    let mut ws = Workspace::new(&roots);
    let mut i = 0;
    g.bench_function("edit_animation", |b| {
        b.iter(|| {
            i += 1;
            ws.set_text(&path, texts[i % 2].clone());
            publishable(&mut ws)
        })
    });
    g.finish();
}

/// What the server sends after an update: the diagnostics of the files it touched.
fn publishable(ws: &mut Workspace) -> usize {
    let only = ws.take_changed();
    handlers::diagnostics(ws, only.as_ref()).len()
}

/// CPU time of this process so far (every thread's Linux `schedstat`, nanoseconds), if the
/// system says.
fn cpu() -> Option<Duration> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let s = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += s.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

fn probe(n: usize) {
    let roots = vec![vanilla()];
    let (path, texts) = edits(&roots[0]);
    let t0 = cpu();
    let ws = &mut Workspace::new(&roots);
    let files = publishable(ws);
    let t1 = cpu();
    let mut per_edit = Vec::new();
    for i in 0..n {
        let a = cpu();
        ws.set_text(&path, texts[i % 2].clone());
        std::hint::black_box(publishable(ws));
        per_edit.push(cpu().zip(a).map(|(b, a)| b - a));
    }
    println!(
        "open: {files} files with diagnostics, cpu {:?}",
        t1.zip(t0).map(|(b, a)| b - a)
    );
    for (i, t) in per_edit.iter().enumerate() {
        println!("edit {i}: cpu {t:?}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--probe") {
        let n = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(10);
        return probe(n);
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
