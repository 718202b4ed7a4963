//! `molang fuzz` on small packs (tests/fixtures/fuzz/): it finds a planted NaN, a planted
//! abort that only some inputs reach, a violated invariant, and nothing on a clean entity;
//! every finding is shrunk to a CSV input timeline that replays it. (The files and the replay
//! command line are `molang fuzz`'s: molang/cli/tests/cli_robustness.rs.)
//!
//! Script-only entities (`nan`, `abort`, `invariant`, `clean`: no geometry, no animations)
//! are fuzzed in scripts-only mode; `anim_nan` and `anim_clean` run through the runtime,
//! and their reproducers are replayed with `molang run`'s own library code (load, driver,
//! trace).

mod support;

use std::path::PathBuf;

use molang::entity::{EntityScripts, ScriptSource};
use molang::fuzz::{BadSetting, Config, Finding, FindingKind, FuzzError};
use molang::runtime::inputs::{self, Kind};
use molang::runtime::trace::{Columns, Format, Trace};
use molang::runtime::{frame_time, load_entity, Backend, Driver, LogLine, Pose, Runtime};

/// What `molang fuzz` takes: the pack layers and the settings.
struct FuzzArgs {
    packs: Vec<PathBuf>,
    config: Config,
}

/// `molang fuzz` without its printing and its files.
fn run(a: &FuzzArgs) -> Result<Vec<Finding>, FuzzError> {
    let pack = molang::pack::load(&a.packs);
    molang::fuzz::run(&pack, &a.config, &mut ())
}

/// The settings with a ranges file's text.
fn with_ranges(a: &mut FuzzArgs, json: &str) {
    a.config.ranges = molang::fuzz::parse_ranges(json).unwrap();
}

/// The `molang run` options a replay command uses.
struct RunArgs {
    packs: Vec<PathBuf>,
    entity: Option<String>,
    inputs: String,
    fps: f32,
    seconds: f32,
    backend: Backend,
    vars: bool,
    seed: u64,
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(name)
}

fn args(pack: &str, backend: Backend) -> FuzzArgs {
    FuzzArgs {
        packs: vec![fixture(pack)],
        config: Config {
            entity: format!("fuzz:{pack}"),
            cases: 100,
            frames: 30,
            seed: 1,
            backend,
            fps: 20.0,
            ..Config::default()
        },
    }
}

/// Reads a reproducer CSV back: column names and rows.
fn read_csv(text: &str) -> (Vec<String>, Vec<Vec<f32>>) {
    let (header, rows) = support::csv::split(text);
    let number = |v: &String| v.parse::<f32>().unwrap();
    (
        header,
        rows.iter()
            .map(|r| r.iter().map(number).collect())
            .collect(),
    )
}

/// Replays a reproducer on the entity scripts (what `molang run` will do with it) and
/// returns the aborts and the variables after the last frame.
fn replay(pack: &str, f: &Finding) -> (Vec<String>, Vec<(String, f32)>) {
    let (header, rows) = read_csv(&f.timeline);
    assert_eq!(header[0], "t");
    assert_eq!(rows.len(), f.frames, "one row per frame");
    let text = std::fs::read_to_string(fixture(pack).join("entity/test.entity.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let scripts = &json["minecraft:client_entity"]["description"]["scripts"];
    let list = |k: &str| -> Vec<String> {
        scripts[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let source = ScriptSource {
        initialize: list("initialize"),
        pre_animation: list("pre_animation"),
        ..ScriptSource::default()
    };
    let compiled = EntityScripts::compile(&source).unwrap();
    let mut inst = compiled.instantiate(0);
    let mut aborts = Vec::new();
    for (n, row) in rows.iter().enumerate() {
        assert_eq!(
            row[0],
            (n as f64 / 20.0) as f32,
            "frame times as `molang run` computes them"
        );
        for (col, v) in header[1..].iter().zip(&row[1..]) {
            inst.set_query(&compiled, col.strip_prefix("q.").unwrap(), *v);
        }
        aborts.extend(inst.run_frame(&compiled).into_iter().map(|a| a.message));
    }
    let vars = compiled
        .names()
        .variables
        .iter()
        .filter_map(|(s, n)| Some((n.to_string(), inst.variable_by_slot(&compiled, s)?.as_num())))
        .collect();
    (aborts, vars)
}

const BACKENDS: [Backend; 2] = [Backend::Jit, Backend::Interp];

#[test]
fn finds_a_planted_nan() {
    for backend in BACKENDS {
        let mut a = args("nan", backend);
        with_ranges(&mut a, r#"{"q.ground_speed": [0, 2]}"#);
        let found = run(&a).expect("runs");
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!(f.kind, FindingKind::NotFinite("x".into()));
        // Shrunk: one frame, and every query at its default (ground_speed 0 < 1 is enough).
        assert_eq!(f.frames, 1);
        assert!(f.queries.is_empty(), "{:?}", f.queries);
        assert_eq!(f.frame, 0);
        let (_, vars) = replay("nan", f);
        assert!(vars.iter().any(|(n, v)| n == "x" && v.is_nan()), "{vars:?}");
    }
}

#[test]
fn nan_needs_the_range_to_reach_it() {
    // With ground_speed kept in [1, 2] the square root never sees a negative number.
    let mut a = args("nan", Backend::Jit);
    with_ranges(&mut a, r#"{"ground_speed": [1, 2]}"#);
    assert!(run(&a).expect("runs").is_empty());
}

#[test]
fn finds_an_abort_only_some_inputs_reach() {
    for backend in BACKENDS {
        let found = run(&args("abort", backend)).expect("runs");
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        let FindingKind::Abort(msg) = &f.kind else {
            panic!("{f:?}")
        };
        assert!(msg.contains("variable.stride"), "{msg}");
        assert_eq!(f.frames, 1);
        // Both conditions of the planted branch are needed, and nothing else.
        let names: Vec<&str> = f.queries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["is_on_ground", "ground_speed"]);
        assert_eq!(f.queries[0].1, vec![1.0]);
        assert!(f.queries[1].1[0] > 1.5);
        let (aborts, _) = replay("abort", f);
        assert!(
            aborts.iter().any(|a| a.contains("variable.stride")),
            "{aborts:?}"
        );
    }
}

#[test]
fn finds_a_violated_invariant() {
    for backend in BACKENDS {
        let mut a = args("invariant", backend);
        a.config.invariants = vec!["v.paw_y >= -4".into(), "v.paw_y <= 5".into()];
        let found = run(&a).expect("runs");
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!(f.kind, FindingKind::Invariant("v.paw_y >= -4".into()));
        assert_eq!(f.frames, 1);
        let (_, vars) = replay("invariant", f);
        let paw = vars.iter().find(|(n, _)| n == "paw_y").unwrap().1;
        assert!(paw < -4.0, "replayed paw_y = {paw}");
    }
}

#[test]
fn reports_nothing_on_a_clean_entity() {
    assert_clean("clean", "v.swing >= -30 && v.swing <= 30");
}

/// Fuzzing `pack` under `invariant` finds nothing, on both back ends.
fn assert_clean(pack: &str, invariant: &str) {
    for backend in BACKENDS {
        let mut a = args(pack, backend);
        a.config.invariants = vec![invariant.into()];
        let found = run(&a).expect("runs");
        assert!(found.is_empty(), "{found:#?}");
    }
}

#[test]
fn bad_settings_are_errors_about_their_values() {
    let mut a = args("clean", Backend::Jit);
    a.config.entity = "fuzz:nope".into();
    match run(&a).unwrap_err() {
        FuzzError::UnknownEntity { known } => assert_eq!(known, ["fuzz:clean"]),
        e => panic!("{e}"),
    }
    let invariant = |text: &str| {
        let mut a = args("clean", Backend::Jit);
        a.config.invariants = vec![text.into()];
        match run(&a).unwrap_err() {
            FuzzError::Setting(BadSetting::Invariant { text: t, why }) => {
                assert_eq!(t, text);
                why
            }
            e => panic!("{e}"),
        }
    };
    // The variable the entity never mentions is named.
    assert!(invariant("v.not_there > 0").contains("variable.not_there"));
    assert!(invariant("v.swing >").starts_with("does not load"));
    let mut a = args("clean", Backend::Jit);
    a.config.frames = 0;
    let e = run(&a).unwrap_err();
    assert_eq!(e, FuzzError::Setting(BadSetting::Frames));
    // Said about the value: the front end names its flag.
    assert_eq!(e.to_string(), "frames must be at least 1");
    a.config.frames = 1;
    for fps in [0.0, -1.0, f32::NAN, 10_001.0] {
        a.config.fps = fps;
        assert!(matches!(a.config.check(), Err(BadSetting::Fps(_))), "{fps}");
    }
}

// ---- runtime mode ------------------------------------------------------------------------

/// The `molang run` arguments that replay a finding (what `molang fuzz` prints).
fn replay_args(fz: &FuzzArgs, f: &Finding) -> RunArgs {
    RunArgs {
        packs: fz.packs.clone(),
        entity: Some(fz.config.entity.clone()),
        inputs: f.timeline.clone(),
        fps: fz.config.fps,
        seconds: f.frames as f32 / fz.config.fps,
        backend: fz.config.backend,
        vars: true,
        seed: f.seed,
    }
}

/// Replays a finding with `molang run` (its library entry point, as the binary calls it):
/// the trace rows as (frame, bone, fields).
fn replay_trace(fz: &FuzzArgs, f: &Finding) -> Vec<(usize, String, Vec<String>)> {
    let a = replay_args(fz, f);
    assert_eq!(
        (a.seconds as f64 * a.fps as f64).round() as usize,
        f.frames,
        "the replay runs the shrunk frames"
    );
    let loaded = load_entity(&a.packs[0], a.entity.as_deref().unwrap()).unwrap();
    let mut rt = Runtime::new(loaded, a.backend, a.fps, a.seed);
    let tl = inputs::parse(&a.inputs, "replay.csv").unwrap();
    let (mut driver, _) = Driver::new(&tl, &mut rt);
    let columns = Columns {
        format: Format::Csv,
        world: false,
        locators: false,
        vars: a.vars,
        render: false,
    };
    let mut trace = Trace::new(&rt, columns);
    let mut text = trace.header().unwrap();
    for frame in 0..f.frames as u64 {
        let t = frame_time(frame, a.fps);
        driver.step(&mut rt, t, 1.0 / a.fps);
        rt.take_log();
        trace.frame(&rt, frame, t, &mut text);
    }
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz"));
    lines
        .map(|l| {
            let cells: Vec<String> = l.split(',').map(str::to_string).collect();
            (cells[0].parse().unwrap(), cells[2].clone(), cells)
        })
        .collect()
}

/// Replays a finding through the runtime API the way `molang run` binds an input CSV (query
/// columns as input slots, `v.` columns set before each frame): the content log.
fn replay_log(fz: &FuzzArgs, f: &Finding) -> Vec<LogLine> {
    let a = replay_args(fz, f);
    let loaded = load_entity(&a.packs[0], a.entity.as_deref().unwrap()).unwrap();
    let mut rt = Runtime::new(loaded, a.backend, a.fps, a.seed);
    let tl = inputs::parse(&a.inputs, "replay.csv").unwrap();
    let cols: Vec<(Kind, molang::ir::Slot)> = (tl.queries.iter().zip(&tl.kinds))
        .map(|(n, k)| match k {
            Kind::Query => (Kind::Query, rt.input_slot(n)),
            Kind::Variable => (Kind::Variable, rt.variable_slot(n).unwrap()),
        })
        .collect();
    let mut values = vec![0.0; cols.len()];
    let mut log = Vec::new();
    for frame in 0..f.frames {
        let t = (frame as f64 / a.fps as f64) as f32;
        tl.sample(t, &mut values);
        let mut queries = Vec::new();
        for (&(k, slot), &v) in cols.iter().zip(&values) {
            match k {
                Kind::Query => queries.push((slot, v)),
                Kind::Variable => rt.set_variable(slot, v),
            }
        }
        rt.step(t, &queries);
        log.extend(rt.take_log());
    }
    log
}

fn bone_nan(bone: &str) -> FindingKind {
    FindingKind::NotFiniteBone {
        bone: bone.into(),
        channel: "rotation".into(),
        axis: 'x',
    }
}

#[test]
fn finds_a_bone_nan_in_an_animation_and_replays_it() {
    for backend in BACKENDS {
        let a = args("anim_nan", backend);
        let found = run(&a).expect("runs");
        assert_eq!(found.len(), 3, "{found:#?}");
        // `math.sqrt(1 - q.ground_speed)` on the tail, `math.sqrt(0.5 - v.attack_time)` on
        // the arm: one input each, and nothing else away from its default.
        for (bone, input, above) in [("tail", "ground_speed", 1.0), ("arm", "v.attack_time", 0.5)] {
            let f = found
                .iter()
                .find(|f| f.kind == bone_nan(bone))
                .unwrap_or_else(|| panic!("no NaN on {bone}: {found:#?}"));
            assert_eq!(f.frames, 1, "{f:?}");
            assert_eq!(f.queries.len(), 1, "{f:?}");
            assert_eq!(f.queries[0].0, input);
            assert!(f.queries[0].1[0] > above, "{f:?}");
            assert!(
                f.detail.contains(&format!("bone {bone} rotation x is NaN")),
                "{}",
                f.detail
            );
            // The reproducer through `molang run`: NaN on that bone at the reported frame,
            // finite before it.
            let rows = replay_trace(&a, f);
            let last = f.frames - 1;
            let rx = |frame: usize| -> f32 {
                let row = rows
                    .iter()
                    .find(|(fr, b, _)| *fr == frame && b == bone)
                    .unwrap_or_else(|| panic!("no row for {bone} at frame {frame}"));
                row.2[3].parse().unwrap()
            };
            assert!(rx(last).is_nan(), "replayed {bone}.rx = {}", rx(last));
            for frame in 0..last {
                assert!(rx(frame).is_finite());
            }
        }
    }
}

#[test]
fn finds_an_abort_in_a_controller_state_and_replays_it() {
    for backend in BACKENDS {
        let a = args("anim_nan", backend);
        let found = run(&a).expect("runs");
        let f = found
            .iter()
            .find(
                |f| matches!(&f.kind, FindingKind::Abort(m) if m.contains("variable.jump_height")),
            )
            .unwrap_or_else(|| panic!("no abort: {found:#?}"));
        // `crouching` goes to `jumping` on q.state_time (the runtime's), three frames after
        // one frame of q.vertical_speed > 5; every other frame and input shrinks away.
        assert_eq!(f.frames, 4, "{f:?}");
        assert_eq!(f.queries.len(), 1, "{f:?}");
        assert_eq!(f.queries[0].0, "vertical_speed");
        let v = &f.queries[0].1;
        assert!(v[0] > 5.0 && v[1..].iter().all(|&x| x == 0.0), "{v:?}");
        let (header, rows) = read_csv(&f.timeline);
        assert_eq!(rows.len(), 4);
        assert!(
            !header
                .iter()
                .any(|h| h.contains("state_time") || h.contains("life_time")),
            "the runtime provides those: {header:?}"
        );
        let log = replay_log(&a, f);
        let hit = log
            .iter()
            .find(|l| l.message.contains("variable.jump_height"))
            .unwrap_or_else(|| panic!("the replay does not abort: {log:?}"));
        assert_eq!(hit.frame, 3);
    }
}

#[test]
fn engine_variables_take_their_range_from_the_ranges_file() {
    let mut a = args("anim_nan", Backend::Jit);
    with_ranges(
        &mut a,
        r#"{"variable.attack_time": [0, 0.4], "q.ground_speed": [0, 1]}"#,
    );
    let found = run(&a).expect("runs");
    let kinds: Vec<&FindingKind> = found.iter().map(|f| &f.kind).collect();
    assert_eq!(found.len(), 1, "only the abort is left: {kinds:?}");
    assert!(matches!(kinds[0], FindingKind::Abort(_)));
}

#[test]
fn reports_nothing_on_a_clean_animated_entity() {
    assert_clean("anim_clean", "v.speed >= 0 && v.speed <= 4");
}

#[test]
fn invariants_see_the_runtime_variables() {
    // `v.speed` is set by pre_animation to q.ground_speed * 2: a bound it breaks.
    let mut a = args("anim_nan", Backend::Interp);
    a.config.invariants = vec!["v.speed <= 10".into()];
    let found = run(&a).expect("runs");
    let f = found
        .iter()
        .find(|f| f.kind == FindingKind::Invariant("v.speed <= 10".into()))
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert_eq!(f.frames, 1);
    assert_eq!(f.queries[0].0, "ground_speed");
    assert!(f.queries[0].1[0] > 5.0);
}

/// Frames of the quadruped fixture driven by one speed, with everything the runtime hands
/// out per frame.
fn dog_frames(
    rt: &mut Runtime,
    speed: f32,
    frames: usize,
) -> Vec<(Pose, Vec<LogLine>, Vec<Option<f32>>)> {
    let slots = [
        rt.input_slot("ground_speed"),
        rt.input_slot("modified_distance_moved"),
        rt.input_slot("modified_move_speed"),
    ];
    let vars: Vec<_> = rt
        .scripts
        .names()
        .variables
        .iter()
        .map(|(s, _)| s)
        .collect();
    (0..frames)
        .map(|n| {
            let t = n as f32 / 20.0;
            let q = [(slots[0], speed), (slots[1], speed * t), (slots[2], 1.0)];
            let pose = rt.step(t, &q).clone();
            (
                pose,
                rt.take_log(),
                vars.iter().map(|&s| rt.variable(s)).collect(),
            )
        })
        .collect()
}

#[test]
fn reset_restarts_a_runtime_like_a_new_one() {
    let pack = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime/quadruped");
    for backend in [Backend::Jit, Backend::Interp] {
        let fresh =
            |seed| Runtime::new(load_entity(&pack, "test:dog").unwrap(), backend, 20.0, seed);
        let mut a = fresh(3);
        let want = dog_frames(&mut a, 2.0, 40);
        // Dirty every kind of state (controller state, animation times, variables, pose,
        // frame counter), then start over.
        let mut b = fresh(9);
        dog_frames(&mut b, 1.0, 25);
        b.reset(3);
        assert_eq!(b.frame(), 0);
        assert_eq!(*b.pose(), *fresh(3).pose());
        let got = dog_frames(&mut b, 2.0, 40);
        for (n, (w, g)) in want.iter().zip(&got).enumerate() {
            assert_eq!(
                w, g,
                "frame {n} after reset differs from a new runtime ({backend:?})"
            );
        }
    }
}

#[test]
fn animated_fixtures_pass_molang_check() {
    // The planted problems are runtime ones: the packs themselves are valid.
    for name in ["anim_nan", "anim_clean"] {
        let pack = molang::pack::load(&[fixture(name)]);
        let (diagnostics, summary) = molang::pack_check::check_pack(&pack);
        assert_eq!(summary.errors, 0, "{name}: {diagnostics:#?}");
        assert!(summary.expressions >= 10, "{name}: every file was read");
        assert!(load_entity(&fixture(name), &format!("fuzz:{name}")).is_ok());
    }
}

/// `v.x = math.max(0, math.sqrt(q.ground_speed - 1))`: NaN on x86-64 below speed 1 (`max`
/// returns its NaN second operand there), never on arm64 (which ignores the NaN). The
/// fuzzer finds it on the one platform only.
#[test]
fn fuzz_follows_the_platform() {
    let pack = std::env::temp_dir().join(format!("molang-fuzz-platform-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&pack);
    std::fs::create_dir_all(pack.join("entity")).unwrap();
    std::fs::write(
        pack.join("entity/e.entity.json"),
        r#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"fuzz:platform",
            "scripts":{"initialize":["v.x = 0;"],
            "pre_animation":["v.x = math.max(0, math.sqrt(q.ground_speed - 1));"]}}}}"#,
    )
    .unwrap();
    let mut a = args("nan", Backend::Interp);
    a.packs = vec![pack.clone()];
    a.config.entity = "fuzz:platform".into();
    let found = run(&a).expect("runs");
    assert!(
        found
            .iter()
            .any(|f| f.detail.contains("v.x") || f.detail.contains("variable.x")),
        "{found:#?}"
    );
    a.config.platform = molang::Platform::Arm64;
    let found = run(&a).expect("runs");
    assert!(found.is_empty(), "{found:#?}");
    let _ = std::fs::remove_dir_all(&pack);
}
