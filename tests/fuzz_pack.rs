//! `molang fuzz` on small packs (tests/fixtures/fuzz/): it finds a planted NaN, a planted
//! abort that only some inputs reach, a violated invariant, and nothing on a clean entity;
//! every finding is shrunk and written as a CSV timeline that replays it.

use std::path::{Path, PathBuf};

use molang::entity::{EntityScripts, ScriptSource};
use molang::fuzz::cli::{run, BackendArg, FindingKind, FuzzArgs, Reported};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(name)
}

fn out_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("molang-fuzz-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn args(pack: &str, backend: BackendArg, test: &str) -> FuzzArgs {
    FuzzArgs {
        pack: fixture(pack),
        entity: format!("fuzz:{pack}"),
        cases: 100,
        frames: 30,
        seed: 1,
        ranges: None,
        invariants: Vec::new(),
        backend,
        fps: 20.0,
        out_dir: out_dir(&format!("{test}-{backend:?}")),
    }
}

/// Reads a reproducer CSV back: column names and rows.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f32>>) {
    let text = std::fs::read_to_string(path).expect("the inputs file was written");
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse::<f32>().unwrap()).collect())
        .collect();
    (header, rows)
}

/// Replays a reproducer on the entity scripts (what `molang run` will do with it) and
/// returns the aborts and the variables after the last frame.
fn replay(pack: &str, f: &Reported) -> (Vec<String>, Vec<(String, f32)>) {
    let (header, rows) = read_csv(&f.inputs_file);
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

const BACKENDS: [BackendArg; 2] = [BackendArg::Jit, BackendArg::Interp];

#[test]
fn finds_a_planted_nan() {
    for backend in BACKENDS {
        let mut a = args("nan", backend, "nan");
        let ranges = a.out_dir.with_extension("ranges.json");
        std::fs::create_dir_all(ranges.parent().unwrap()).unwrap();
        std::fs::write(&ranges, r#"{"q.ground_speed": [0, 2]}"#).unwrap();
        a.ranges = Some(ranges);
        let found = run(&a).expect("runs");
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!(f.kind, FindingKind::NotFinite("x".into()));
        // Shrunk: one frame, and every query at its default (ground_speed 0 < 1 is enough).
        assert_eq!(f.frames, 1);
        assert!(f.queries.is_empty(), "{:?}", f.queries);
        assert!(f.command.starts_with("molang run "));
        assert!(f.command.contains("--entity fuzz:nan --inputs "));
        assert!(f.command.contains("--seconds 0.05 --fps 20"));
        let (_, vars) = replay("nan", f);
        assert!(vars.iter().any(|(n, v)| n == "x" && v.is_nan()), "{vars:?}");
    }
}

#[test]
fn nan_needs_the_range_to_reach_it() {
    // With ground_speed kept in [1, 2] the square root never sees a negative number.
    let mut a = args("nan", BackendArg::Jit, "nan-clean");
    let ranges = a.out_dir.with_extension("ranges.json");
    std::fs::create_dir_all(ranges.parent().unwrap()).unwrap();
    std::fs::write(&ranges, r#"{"ground_speed": [1, 2]}"#).unwrap();
    a.ranges = Some(ranges);
    assert!(run(&a).expect("runs").is_empty());
}

#[test]
fn finds_an_abort_only_some_inputs_reach() {
    for backend in BACKENDS {
        let found = run(&args("abort", backend, "abort")).expect("runs");
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
        let mut a = args("invariant", backend, "invariant");
        a.invariants = vec!["v.paw_y >= -4".into(), "v.paw_y <= 5".into()];
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
    for backend in BACKENDS {
        let mut a = args("clean", backend, "clean");
        a.invariants = vec!["v.swing >= -30 && v.swing <= 30".into()];
        let found = run(&a).expect("runs");
        assert!(found.is_empty(), "{found:?}");
        assert!(!a.out_dir.exists(), "no files when nothing is found");
    }
}

#[test]
fn bad_usage_is_an_error() {
    let mut a = args("clean", BackendArg::Jit, "usage");
    a.entity = "fuzz:nope".into();
    assert!(run(&a).unwrap_err().contains("no entity `fuzz:nope`"));
    let mut a = args("clean", BackendArg::Jit, "usage");
    a.invariants = vec!["v.not_there > 0".into()];
    assert!(run(&a).unwrap_err().contains("variable.not_there"));
    let mut a = args("clean", BackendArg::Jit, "usage");
    a.invariants = vec!["v.swing >".into()];
    assert!(run(&a).unwrap_err().contains("does not load"));
    let mut a = args("clean", BackendArg::Jit, "usage");
    a.frames = 0;
    assert!(run(&a).is_err());
}
