//! Every vanilla client entity of `../shared/vanilla/resource_pack` runs for 4 s at 20 fps
//! under a walking timeline (`tests/fixtures/runtime/walking/walk.csv`: ground speed,
//! modified move speed, on the ground, moving; distances integrated by the driver, as
//! `molang run` does), on the interpreter and on the JIT. Prints a table (loaded, animates,
//! content-log lines) and the totals.
//!
//! Asserts: every entity loads; the entities that stand still are exactly those listed in
//! `tests/divergences/vanilla-still.tsv` with their reason; the runtime logs no content-log
//! line (the game prints none for its own pack); the JIT's trace equals the interpreter's
//! bit for bit. All 130 entities run on both back ends (about a minute in a debug build on
//! 2 cores; most of it is compiling each entity for the JIT).

mod common;

use molang::runtime::cli::Driver;
use molang::runtime::inputs;
use molang::runtime::load::{client_entities, load_from_pack};
use molang::runtime::{Backend, Runtime};
use std::collections::BTreeMap;
use std::path::PathBuf;

const FPS: f32 = 20.0;
const FRAMES: u64 = 80;

fn walking() -> inputs::Timeline {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime/walking/walk.csv");
    let text = std::fs::read_to_string(&p).unwrap();
    inputs::parse(&text, "walk.csv").unwrap()
}

/// Per frame, every bone's channels as bits; and the content-log lines.
fn run(
    pack: &molang::pack::Pack,
    id: &str,
    backend: Backend,
    timeline: &inputs::Timeline,
) -> Result<(Vec<Vec<u32>>, Vec<String>), String> {
    let loaded = load_from_pack(pack, id).map_err(|e| e.0)?;
    let mut rt = Runtime::new(loaded, backend, FPS, 0);
    let (mut driver, _) = Driver::new(timeline, &mut rt);
    let dt = 1.0 / FPS;
    let mut frames = Vec::new();
    let mut log = Vec::new();
    for f in 0..FRAMES {
        let t = (f as f64 / FPS as f64) as f32;
        driver.sample(t, dt, f == 0);
        driver.apply(&mut rt);
        rt.step(t, driver.queries());
        log.extend(rt.take_log().into_iter().map(|l| l.message));
        let p = rt.pose();
        let mut bits = Vec::new();
        for b in 0..p.rot.len() {
            for v in p.rot[b].iter().chain(&p.pos[b]).chain(&p.scale[b]) {
                bits.push(v.to_bits());
            }
        }
        frames.push(bits);
    }
    Ok((frames, log))
}

fn moves(frames: &[Vec<u32>]) -> bool {
    frames.windows(2).any(|w| w[0] != w[1])
}

fn still_list() -> BTreeMap<String, String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/divergences/vanilla-still.tsv");
    let text = std::fs::read_to_string(&p).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (id, why) = l.split_once('\t').unwrap_or((l, ""));
            assert!(
                !why.trim().is_empty(),
                "vanilla-still.tsv: {id} has no reason"
            );
            (id.to_string(), why.to_string())
        })
        .collect()
}

#[test]
fn every_vanilla_entity_runs_walking_on_both_back_ends() {
    let rp = common::shared_dir().join("vanilla/resource_pack");
    assert!(rp.is_dir(), "needs {}", rp.display());
    let pack = molang::pack::load(&[rp]);
    let ids = client_entities(&pack);
    let timeline = walking();
    let listed = still_list();
    let (mut loaded, mut animates, mut log_lines) = (0, 0, 0);
    let mut still = Vec::new();
    let mut failures = Vec::new();
    println!(
        "{:<40} {:>6} {:>8} {:>4}",
        "entity", "loaded", "animates", "log"
    );
    for id in &ids {
        let interp = run(&pack, id, Backend::Interp, &timeline);
        let (frames, log) = match interp {
            Ok(x) => x,
            Err(e) => {
                println!("{id:<40} {:>6} {:>8} {:>4}  {e}", "no", "-", "-");
                failures.push(format!("{id} does not load: {e}"));
                continue;
            }
        };
        loaded += 1;
        let m = moves(&frames);
        if m {
            animates += 1;
        } else {
            still.push(id.clone());
        }
        log_lines += log.len();
        println!(
            "{id:<40} {:>6} {:>8} {:>4}",
            "yes",
            if m { "yes" } else { "no" },
            log.len()
        );
        for l in &log {
            println!("    content log: {l}");
            failures.push(format!("{id}: content log: {l}"));
        }
        match run(&pack, id, Backend::Jit, &timeline) {
            Ok((jf, jl)) => {
                if jf != frames {
                    failures.push(format!(
                        "{id}: the JIT's trace differs from the interpreter's"
                    ));
                }
                if jl != log {
                    failures.push(format!(
                        "{id}: the JIT's content log differs: {jl:?} vs {log:?}"
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "{id}: loads on the interpreter but not the JIT: {e}"
            )),
        }
    }
    println!(
        "totals: {} entities, {loaded} loaded, {animates} animate, {} stand still (all listed with a reason in tests/divergences/vanilla-still.tsv), {log_lines} content-log lines",
        ids.len(),
        still.len()
    );
    assert!(
        ids.len() >= 100,
        "expected the whole vanilla pack, got {} entities",
        ids.len()
    );
    for id in &still {
        if !listed.contains_key(id) {
            failures.push(format!("{id} stands still and is not in vanilla-still.tsv"));
        }
    }
    for id in listed.keys() {
        if !still.contains(id) {
            failures.push(format!(
                "{id} is in vanilla-still.tsv but animates now: remove it"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
