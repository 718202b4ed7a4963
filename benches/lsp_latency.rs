//! Language-server latency on Mojang's vanilla resource pack (../shared/vanilla):
//!
//! - `open_workspace`: reading and analysing the whole pack, as on `initialize`;
//! - `edit_animation`: the diagnostics after one change to an animation file (the whole
//!   pack is re-analysed from memory, then the LSP diagnostics are built).
//!
//! Run: `cargo bench --bench lsp_latency -- --warm-up-time 1 --measurement-time 5`.
//! Numbers and their caveats (a shared, loaded machine): BENCHMARKS.md.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use molang::lsp::{handlers, state::Workspace};

fn vanilla() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vanilla/resource_pack");
    assert!(
        dir.join("manifest.json").is_file(),
        "the benchmark needs the vanilla resource pack at {}",
        dir.display()
    );
    dir
}

fn bench(c: &mut Criterion) {
    let roots = vec![vanilla()];
    let mut g = c.benchmark_group("lsp");
    g.sample_size(10);
    g.bench_function("open_workspace", |b| {
        b.iter(|| {
            let ws = Workspace::new(&roots);
            handlers::diagnostics(&ws).len()
        })
    });
    let path = roots[0].join("animations/pig.animation.json");
    let text = std::fs::read_to_string(&path).expect("pig.animation.json");
    let edits = [
        text.replace("\"90.0 - this\"", "\"90.0 - (this\""),
        text.clone(),
    ];
    let mut ws = Workspace::new(&roots);
    let mut i = 0;
    g.bench_function("edit_animation", |b| {
        b.iter(|| {
            i += 1;
            ws.set_text(&path, edits[i % 2].clone());
            handlers::diagnostics(&ws).len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
