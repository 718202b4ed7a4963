//! Many instances of one entity on several threads (`molang run --bench --instances N
//! --threads T`, issue 17 "all cores"): the same outputs, bit for bit, as running each
//! instance alone; compiled code shared; per-instance memory bounded by its slots.

use molang::entity::{EntityInstance, EntityScripts};
use molang::jit::JitProgram;
use molang::runtime::instances::{pose_digest, Instances};
use molang::runtime::{frame_time, inputs, load_entity, Backend, Driver, Runtime};
use std::path::PathBuf;
use std::sync::Arc;

fn quadruped() -> (Runtime, inputs::Timeline) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime/quadruped");
    let text = std::fs::read_to_string(dir.join("inputs.csv")).unwrap();
    let timeline = inputs::parse(&text, "inputs.csv").unwrap();
    let rt = Runtime::new(
        load_entity(&dir, "test:dog").unwrap(),
        Backend::Jit,
        20.0,
        7,
    );
    assert!(rt.is_native(), "the fixture runs natively");
    (rt, timeline)
}

const FPS: f32 = 20.0;
const FRAMES: u64 = 120;
/// The fixture's timeline changes over its first 4 s (it ends sitting).
const SPAN: f32 = 4.0;

/// Instance `i` alone, built from scratch as `Instances::new` describes it (seed `7 + i`,
/// the timeline `offset` seconds ahead), on this thread.
fn alone(i: usize, offset: f32) -> u64 {
    let (mut rt, timeline) = quadruped();
    rt.reset(7 + i as u64);
    let (mut driver, _) = Driver::new(&timeline, &mut rt);
    let mut h = 0xcbf2_9ce4_8422_2325;
    for frame in 0..FRAMES {
        let t = frame_time(frame, FPS) + offset;
        h = pose_digest(h, driver.step(&mut rt, t, 1.0 / FPS));
        rt.take_log();
    }
    h
}

#[test]
fn instances_on_two_threads_match_each_instance_run_alone() {
    let (base, timeline) = quadruped();
    let n = 7;
    let (mut on_two, _) = Instances::new(base.fork(7), &timeline, n, FPS, 7, SPAN);
    let (mut one_by_one, _) = Instances::new(base.fork(7), &timeline, n, FPS, 7, SPAN);
    let parallel = on_two.run(FRAMES, 2).unwrap();
    let sequential = one_by_one.run_sequential(FRAMES);
    assert_eq!(parallel, sequential);
    // Each against a runtime loaded and driven on its own (the offsets as documented).
    for (i, d) in parallel.iter().enumerate() {
        let offset = ((i as f64 * 0.618_033_988_749_894_8).fract() * SPAN as f64) as f32;
        assert_eq!(*d, alone(i, offset), "instance {i}");
    }
    // The inputs differ per instance, so the poses do.
    let mut distinct = parallel.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), n, "{parallel:?}");
    // More threads than instances, and the interpreter: the same bits.
    let (mut wide, _) = Instances::new(base.fork(7), &timeline, n, FPS, 7, SPAN);
    assert_eq!(wide.run(FRAMES, 16).unwrap(), parallel);
    let loaded = load_entity(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime/quadruped"),
        "test:dog",
    )
    .unwrap();
    let interp = Runtime::new(loaded, Backend::Interp, FPS, 7);
    let (mut interp, _) = Instances::new(interp, &timeline, n, FPS, 7, SPAN);
    assert_eq!(interp.run(FRAMES, 2).unwrap(), parallel);
}

#[test]
fn instances_share_compiled_code_and_own_only_their_state() {
    fn shareable<T: Send + Sync>() {}
    shareable::<JitProgram>();
    shareable::<EntityScripts>();
    fn sendable<T: Send>() {}
    sendable::<Runtime>();
    sendable::<EntityInstance>();

    let (base, timeline) = quadruped();
    let (mut set, _) = Instances::new(base.fork(7), &timeline, 5, FPS, 7, SPAN);
    for i in 0..set.len() {
        assert!(Arc::ptr_eq(&set.runtime(i).scripts, &base.scripts));
        assert!(Arc::ptr_eq(&set.runtime(i).model, &base.model));
    }
    let fresh = set.instance_bytes();
    set.run(FRAMES, 2).unwrap();
    let before = set.instance_bytes();
    set.run(FRAMES, 2).unwrap();
    let after = set.instance_bytes();
    // The first frames fill the pose's render choices; after that an instance no longer
    // grows, and every instance is the same size.
    assert!(fresh.iter().zip(&before).all(|(a, b)| a <= b));
    assert_eq!(before, after);
    assert!(after.iter().all(|b| *b == after[0]), "{after:?}");
    // Its slots (13 bytes each: f32, tag, payload; a query as f32 and Value), per bone the
    // pose (5 vectors of 12 bytes), per play node its animation and controller state
    // (under 128 bytes), and a small constant.
    let names = base.scripts.names();
    let slots = names.variables.len() + names.temps.len() + names.contexts.len();
    let queries = names.queries.len();
    let bones = base.model.bones.len();
    let nodes = base.model.nodes.len();
    let bound = 13 * slots + (4 + 24) * queries + 60 * bones + 128 * nodes + 4096;
    assert!(
        after[0] <= bound,
        "{} bytes per instance, bound {bound} ({slots} slots, {queries} queries, {bones} bones)",
        after[0]
    );
    assert!(after[0] >= 13 * slots, "counts at least the slots");
}
