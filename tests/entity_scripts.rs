//! Client entity scripts over many frames (`molang::entity`): variables that accumulate across
//! frames, temps that do not, a first-frame abort that goes away, and `??` guards.

use molang::entity::{EntityScripts, ScriptSource};
use molang::{Code, Value};

fn source(initialize: &[&str], pre_animation: &[&str]) -> ScriptSource {
    ScriptSource {
        initialize: initialize.iter().map(|s| s.to_string()).collect(),
        pre_animation: pre_animation.iter().map(|s| s.to_string()).collect(),
        ..ScriptSource::default()
    }
}

fn num(v: Option<Value>) -> f32 {
    match v {
        Some(Value::Num(x)) => x,
        other => panic!("expected a number, got {other:?}"),
    }
}

/// The ground speed the host reports on frame `f`.
fn speed(f: u32) -> f32 {
    (f % 7) as f32 * 0.25
}

#[test]
fn a_hundred_frames_accumulate_variables_but_not_temps() {
    let scripts = EntityScripts::compile(&source(
        &["v.frames = 0;", "v.distance = 0;"],
        &[
            "v.frames = v.frames + 1;",
            "v.distance = v.distance + q.ground_speed;",
            // A temp starts unset on every run, so this counter never passes 1.
            "t.runs = (t.runs ?? 0) + 1;",
            "v.max_temp_runs = math.max(v.max_temp_runs ?? 0, t.runs);",
            "v.peak = math.max(v.peak ?? 0, q.ground_speed);",
        ],
    ))
    .unwrap_or_else(|e| panic!("scripts should load: {e:?}"));
    let mut entity = scripts.instantiate(1);
    let mut distance = 0.0f32;
    for f in 0..100 {
        entity.set_query(&scripts, "ground_speed", speed(f));
        distance += speed(f);
        let aborts = entity.run_frame(&scripts);
        assert!(
            aborts.is_empty(),
            "frame {f}: {:?}",
            aborts.iter().map(|a| &a.message).collect::<Vec<_>>()
        );
    }
    assert_eq!(entity.frame(), 100);
    assert_eq!(num(entity.variable(&scripts, "frames")), 100.0);
    assert_eq!(num(entity.variable(&scripts, "distance")), distance);
    assert_eq!(num(entity.variable(&scripts, "max_temp_runs")), 1.0);
    assert_eq!(num(entity.variable(&scripts, "peak")), 1.5);
}

/// `v.prev_speed` is copied from the second frame on, but read on every frame: the first
/// frame's read ends `pre_animation` there, so the statements after it are skipped once.
const FIRST_FRAME_BUG: &[&str] = &[
    "v.frames = v.frames + 1;",
    "v.frames > 1 ? { v.prev_speed = v.speed; };",
    "v.speed = q.ground_speed;",
    "v.accel = v.speed - v.prev_speed;",
    "v.total_accel = v.total_accel + v.accel;",
];

#[test]
fn a_first_frame_abort_disappears_on_the_second_frame() {
    let scripts = EntityScripts::compile(&source(
        &["v.frames = 0;", "v.total_accel = 0;"],
        FIRST_FRAME_BUG,
    ))
    .unwrap_or_else(|e| panic!("the game loads these scripts: {e:?}"));
    // The checker sees that only some paths set `v.prev_speed` before the read.
    assert!(
        scripts
            .warnings
            .iter()
            .any(|d| d.message.contains("prev_speed")),
        "expected a diagnostic on v.prev_speed: {:?}",
        scripts.warnings
    );
    let mut entity = scripts.instantiate(0);

    entity.set_query(&scripts, "ground_speed", 2.0);
    let aborts = entity.run_frame(&scripts);
    assert_eq!(aborts.len(), 1, "frame 1 must abort once");
    assert_eq!(aborts[0].script, "pre_animation");
    assert_eq!(aborts[0].frame, 0);
    assert!(
        aborts[0].message.contains("variable.prev_speed"),
        "{}",
        aborts[0].message
    );
    let read_at =
        &FIRST_FRAME_BUG.join("\n")[aborts[0].span.start as usize..aborts[0].span.end as usize];
    assert_eq!(read_at, "v.prev_speed");
    // Statements before the read ran; the ones after it did not.
    assert_eq!(num(entity.variable(&scripts, "frames")), 1.0);
    assert_eq!(num(entity.variable(&scripts, "speed")), 2.0);
    assert_eq!(entity.variable(&scripts, "accel"), None);
    assert_eq!(num(entity.variable(&scripts, "total_accel")), 0.0);

    entity.set_query(&scripts, "ground_speed", 3.5);
    let aborts = entity.run_frame(&scripts);
    assert!(
        aborts.is_empty(),
        "frame 2 must not abort: {:?}",
        aborts.iter().map(|a| &a.message).collect::<Vec<_>>()
    );
    assert_eq!(num(entity.variable(&scripts, "prev_speed")), 2.0);
    assert_eq!(num(entity.variable(&scripts, "accel")), 1.5);
    assert_eq!(num(entity.variable(&scripts, "total_accel")), 1.5);

    for f in 2..100u32 {
        entity.set_query(&scripts, "ground_speed", 3.5 + f as f32);
        assert!(entity.run_frame(&scripts).is_empty(), "frame {}", f + 1);
    }
    // Frame n ≥ 2 adds speed(n) − speed(n−1); the sum telescopes to speed(100) − speed(1).
    assert_eq!(
        num(entity.variable(&scripts, "total_accel")),
        (3.5 + 99.0) - 2.0
    );
    assert_eq!(num(entity.variable(&scripts, "frames")), 100.0);
}

#[test]
fn coalescing_guards_never_abort() {
    // The same script with `??` on the late variable: frame 1 takes the fallback.
    let scripts = EntityScripts::compile(&source(
        &["v.frames = 0;", "v.total_accel = 0;"],
        &[
            "v.frames = v.frames + 1;",
            "v.frames > 1 ? { v.prev_speed = v.speed; };",
            "v.speed = q.ground_speed;",
            "v.accel = v.speed - (v.prev_speed ?? v.speed);",
            "v.total_accel = v.total_accel + v.accel;",
            // Set at the end of the script: the first frame sees the fallback, later frames the
            // previous frame's value.
            "v.last_frame_seen = v.frame_stamp ?? -1;",
            "v.frame_stamp = v.frames;",
            // A guarded block runs once: after it `v.home` resolves, zero or not.
            "v.home ?? { v.home = 0; v.home_set_count = (v.home_set_count ?? 0) + 1; };",
        ],
    ))
    .unwrap();
    assert!(!reads_before_set(&scripts), "{:?}", scripts.warnings);
    let mut entity = scripts.instantiate(0);
    let mut seen = Vec::new();
    for f in 0..100u32 {
        entity.set_query(&scripts, "ground_speed", f as f32);
        let aborts = entity.run_frame(&scripts);
        assert!(
            aborts.is_empty(),
            "frame {f}: {:?}",
            aborts.iter().map(|a| &a.message).collect::<Vec<_>>()
        );
        seen.push(num(entity.variable(&scripts, "last_frame_seen")));
    }
    assert_eq!(seen[0], -1.0);
    assert!(
        seen.iter()
            .skip(1)
            .enumerate()
            .all(|(i, &s)| s == (i + 1) as f32),
        "{seen:?}"
    );
    assert_eq!(num(entity.variable(&scripts, "accel")), 1.0);
    assert_eq!(num(entity.variable(&scripts, "total_accel")), 99.0);
    assert_eq!(num(entity.variable(&scripts, "home")), 0.0);
    assert_eq!(num(entity.variable(&scripts, "home_set_count")), 1.0);
}

#[test]
fn initialize_runs_once_so_its_abort_is_a_first_frame_abort() {
    // `initialize` runs before any `pre_animation`, so its read of `v.late` always fails; the
    // game still loads it, and the abort is reported on the first frame only.
    let scripts = EntityScripts::compile(&source(
        &["v.a = 1;", "v.b = v.late;", "v.c = 1;"],
        &["v.late = v.a;"],
    ))
    .unwrap_or_else(|e| panic!("the game loads these scripts: {e:?}"));
    assert!(reads_before_set(&scripts), "{:?}", scripts.warnings);
    let mut entity = scripts.instantiate(0);
    let aborts = entity.run_frame(&scripts);
    assert_eq!(
        aborts.iter().map(|a| a.script).collect::<Vec<_>>(),
        ["initialize"]
    );
    assert_eq!(entity.variable(&scripts, "c"), None);
    assert_eq!(num(entity.variable(&scripts, "late")), 1.0);
    assert!(entity.run_frame(&scripts).is_empty());
    assert_eq!(entity.variable(&scripts, "b"), None);
}

#[test]
fn entries_are_joined_into_one_program() {
    // Vanilla splits one conditional block over several entries (piglin, zombie, husk).
    let scripts = EntityScripts::compile(&source(
        &["v.n = 0;"],
        &[
            "(q.is_angry) ? {",
            "v.n = v.n + 1;",
            "v.angry_frames = (v.angry_frames ?? 0) + 1;",
            "};",
        ],
    ))
    .unwrap();
    let mut entity = scripts.instantiate(0);
    for f in 0..10 {
        entity.set_query(&scripts, "is_angry", (f % 2) as f32);
        assert!(entity.run_frame(&scripts).is_empty());
    }
    assert_eq!(num(entity.variable(&scripts, "n")), 5.0);
    assert_eq!(num(entity.variable(&scripts, "angry_frames")), 5.0);
}

/// Whether the scripts warn of a read before any set.
fn reads_before_set(scripts: &EntityScripts) -> bool {
    scripts
        .warnings
        .iter()
        .any(|d| d.code == Code::ReadBeforeSet)
}
