//! Rigs from parameters: `--params dog.json` (every field, unknown and missing fields named
//! with file:line:column), `doggoyle params --write` (never over a file without --force, no
//! folders made), impossible parameters refused before generation, the presets, and
//! `--inputs` warning about the columns it does not use.

use ik_gait::params::{bake_rest_poses, stand_vector, REST_POSES};
use ik_gait::params_file::{from_json, to_json};
use ik_gait::{presets, ErrorKind, RigParams};

mod common;
use common::{doggoyle, doggoyle_inputs, tmp_dir as tmp};

/// A params file holding `text`, refused: the library's error is of kind `ParamsFile`, and
/// `doggoyle molang --params FILE` exits 2 saying why. The file's path and that message.
fn refused(label: &str, text: &str) -> (String, String) {
    let e = from_json(text, "dog.json").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ParamsFile, "{e}");
    let dir = tmp(label);
    let file = dir.join("dog.json");
    std::fs::write(&file, text).unwrap();
    let (code, _, err) = doggoyle(&["molang", "--params", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    (file.display().to_string(), err)
}

/// 1-based line and column of the first occurrence of `needle` in `text`.
fn line_col(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap();
    let before = &text[..at];
    (
        before.matches('\n').count() + 1,
        at - before.rfind('\n').map_or(0, |i| i + 1) + 1,
    )
}

#[test]
fn default_params_round_trip_through_json() {
    let p = RigParams::default();
    let text = to_json(&p);
    // Every leg is an object under its name; the rest poses are not in the file.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for leg in ["lf", "rf", "lh", "rh"] {
        assert!(v["legs"][leg]["a"].is_number(), "{leg}");
    }
    assert!(v.get("rest").is_none());
    let back = from_json(&text, "dog.json").unwrap();
    assert_eq!(to_json(&back), text);
    assert_eq!(back.rest, REST_POSES);
    assert_eq!(back.legs[2].name, "lh");
    assert!(back.legs[1].fore && !back.legs[3].fore);
}

#[test]
fn unknown_field_is_named_with_file_line_and_column() {
    let text = to_json(&RigParams::default()).replacen("\"dwell\"", "\"dwel\"", 1);
    let (f, e) = refused("unknown-field", &text);
    let (line, _) = line_col(&text, "\"dwel\"");
    assert!(e.starts_with(&format!("error: {f}:{line}:")), "{e}");
    assert!(e.contains("unknown field `dwel`"), "{e}");
    // Inside a leg the message gives the path.
    let text = to_json(&RigParams::default()).replacen("\"tpeel\"", "\"t_peel\"", 1);
    let (f, e) = refused("unknown-leg-field", &text);
    let (line, _) = line_col(&text, "\"t_peel\"");
    assert!(e.starts_with(&format!("error: {f}:{line}:")), "{e}");
    assert!(
        e.contains("legs.lf") && e.contains("unknown field `t_peel`"),
        "{e}"
    );
}

#[test]
fn missing_field_is_named() {
    let full = to_json(&RigParams::default());
    let text: String = full
        .lines()
        .filter(|l| !l.trim_start().starts_with("\"dwell\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let (f, e) = refused("missing-field", &text);
    assert!(e.starts_with(&format!("error: {f}:")), "{e}");
    assert!(e.contains("missing field `dwell`"), "{e}");
    // A missing leg.
    let mut v: serde_json::Value = serde_json::from_str(&full).unwrap();
    v["legs"].as_object_mut().unwrap().remove("rh");
    let (_, e) = refused("missing-leg", &v.to_string());
    assert!(
        e.contains("legs") && e.contains("missing field `rh`"),
        "{e}"
    );
    // Not JSON at all.
    let (f, e) = refused("not-json", "{\"h0\": 15,");
    assert!(e.starts_with(&format!("error: {f}:1:")), "{e}");
}

#[test]
fn out_of_range_numbers_are_refused() {
    let text = to_json(&RigParams::default()).replacen("\"h0\": 15.0", "\"h0\": 1e39", 1);
    let (_, e) = refused("not-finite", &text);
    assert!(e.contains("h0") && e.contains("not a finite number"), "{e}");
}

#[test]
fn impossible_params_from_a_file_are_refused_before_generation() {
    let dir = tmp("params-bad");
    let mut p = RigParams::default();
    p.legs[2].a = 3.0;
    p.legs[2].b = 3.0;
    p.beta[1] = 1.2;
    let file = dir.join("short.json");
    std::fs::write(&file, to_json(&p)).unwrap();
    let out = dir.join("packs");
    let (code, _, err) = doggoyle(&[
        "emit",
        out.to_str().unwrap(),
        "--params",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("leg lh: too short to reach the floor"),
        "{err}"
    );
    assert!(err.contains("beta (trot duty) is 1.2"), "{err}");
    assert!(!out.exists());
    // A sit target the shoulder cannot get 13.2 px from at any pitch.
    let mut p = RigParams::default();
    p.legs[0].sit = [60.0, 2.5];
    assert_eq!(p.validate().unwrap_err().kind(), ErrorKind::ImpossibleRig);
    let e = p.problems().join("\n");
    assert!(e.contains("sit pose: no body pitch"), "{e}");
    // A fold past the lowest-hanging angle atan(7 / 2.5) = 70.35°.
    let mut p = RigParams::default();
    p.legs[1].tau_max[2] = 75.0;
    assert_eq!(p.validate().unwrap_err().kind(), ErrorKind::ImpossibleRig);
    let e = p.problems().join("\n");
    assert!(
        e.contains("rf.tau_max (gallop) is 75") && e.contains("70.35"),
        "{e}"
    );
}

#[test]
fn params_write_never_overwrites_and_makes_no_folders() {
    let dir = tmp("params-write");
    let f = dir.join("dog.json");
    let fs = f.to_str().unwrap();
    let (code, _, err) = doggoyle(&["params", "--write", fs]);
    assert_eq!(code, Some(0), "{err}");
    let written = std::fs::read_to_string(&f).unwrap();
    assert_eq!(written, to_json(&RigParams::default()));
    // Not again without --force; the file is untouched.
    let (code, _, err) = doggoyle(&["params", "--write", fs, "--preset", "terrier"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), written);
    let (code, _, err) = doggoyle(&["params", "--write", fs, "--preset", "terrier", "--force"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        to_json(&presets::terrier())
    );
    // The written file drives the tools (here: the Molang it generates is the terrier's).
    let (code, out, err) = doggoyle(&["molang", "--params", fs]);
    assert_eq!(code, Some(0), "{err}");
    let (_, terrier, _) = doggoyle(&["molang", "--preset", "terrier"]);
    assert_eq!(out, terrier);
    // No folder is created for the file.
    let deep = dir.join("no/such/dir/dog.json");
    let (code, _, err) = doggoyle(&["params", "--write", deep.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("does not exist"), "{err}");
    assert!(!dir.join("no").exists());
    // A broken file is exit 2 with file:line:col on every command that takes --params.
    std::fs::write(&f, written.replacen("\"h0\"", "\"h_0\"", 1)).unwrap();
    let (line, _) = line_col(&written, "\"h0\"");
    for args in [
        vec!["check", "--scenario", "trot-2.5", "--fps", "20"],
        vec![
            "run",
            "--scenario",
            "trot-2.5",
            "--out",
            "/nonexistent/t.csv",
        ],
        vec!["plot", "--scenario", "trot-2.5", "--out", "/nonexistent/p"],
        vec!["bench", "--seconds", "0.01"],
        vec!["emit", "/nonexistent/out"],
        vec!["molang"],
    ] {
        let mut a = args.clone();
        a.extend(["--params", fs]);
        let (code, _, err) = doggoyle(&a);
        assert_eq!(code, Some(2), "{a:?}: {err}");
        assert!(
            err.contains(&format!("{fs}:{line}:")) && err.contains(": unknown field `h_0`"),
            "{a:?}: {err}"
        );
    }
    let (code, _, err) = doggoyle(&["molang", "--preset", "beagle"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("hound, terrier, mastiff"), "{err}");
}

/// The §8 bisections run again for the given parameters, and check 11 holds for each preset
/// (their own rest poses, sit reach target and standing vector).
#[test]
fn presets_bake_their_own_rest_poses() {
    // The hound's standing vector is the §2 table.
    let sv = stand_vector(&RigParams::default());
    for (a, b) in sv.iter().zip(ik_gait::checks::STAND_VECTOR) {
        assert!((a - b as f64).abs() < 0.001, "{sv:?}");
    }
    for name in presets::NAMES {
        let p = presets::preset(name).unwrap();
        assert!(p.problems().is_empty(), "{name}: {:?}", p.problems());
        assert_eq!(bake_rest_poses(&p).rounded(), p.rest, "{name}");
        let row = ik_gait::checks::check_rest(&p, ik_gait::runner::Backend::Reference);
        assert!(row.pass(), "{name}: {row:?}");
        // Through a file too.
        let back = from_json(&to_json(&p), name).unwrap();
        assert_eq!(back.rest, p.rest, "{name}");
    }
    let (t, m) = (presets::terrier(), presets::mastiff());
    assert!(t.h0 < 15.0 && m.h0 > 15.0);
    assert_ne!(t.rest, REST_POSES);
    assert_ne!(m.rest, REST_POSES);
}

#[test]
fn inputs_warn_about_unused_columns() {
    let dir = tmp("inputs-cols");
    // A misspelt column, a long query name, and one the rig does not read.
    let profile = "t,q.ground_sped,query.is_on_ground,q.delta_time\n0,1.0,1,0.05\n2,1.0,1,0.05\n";
    let csv = dir.join("walk.csv");
    std::fs::write(&csv, profile).unwrap();
    let (code, _, err) = doggoyle_inputs("check", &csv, &["--fps", "20", "--backend", "reference"]);
    assert!(code == Some(0) || code == Some(1), "{err}");
    assert!(
        err.contains("column 2 `q.ground_sped` is not used (did you mean `q.ground_speed`?)"),
        "{err}"
    );
    assert!(err.contains("column 4 `q.delta_time` is not used"), "{err}");
    assert!(!err.contains("is_on_ground` is not used"), "{err}");
    // `run --inputs` reads the same CSV, warns the same way and writes the trace.
    let out = dir.join("trace.csv");
    let (code, _, err) = doggoyle_inputs(
        "run",
        &csv,
        &["--fps", "20", "--out", out.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("did you mean `q.ground_speed`?"), "{err}");
    let trace = std::fs::read_to_string(&out).unwrap();
    // 2 s at 20 fps.
    assert_eq!(trace.lines().count(), 1 + 40);
    // --scenario and --inputs together are refused, and one of them is required.
    let (code, _, _) = doggoyle_inputs("run", &csv, &["--scenario", "trot-2.5", "--out", "x.csv"]);
    assert_eq!(code, Some(2));
    let (code, _, _) = doggoyle(&["run", "--out", "x.csv"]);
    assert_eq!(code, Some(2));
    assert!(!std::path::Path::new("x.csv").exists());
}

/// The presets pass every check on a trot and a pose scenario at 20 and 60 fps (the README's
/// Presets table covers all scenarios; that run is `doggoyle check --preset NAME`).
#[test]
fn presets_pass_the_checks_on_a_trot_and_a_sit() {
    use ik_gait::checks::{failures, run_checks, Check, Plan};
    for name in ["terrier", "mastiff"] {
        let p = presets::preset(name).unwrap();
        let names = ["trot-2.5", "walk-stop-sit-stand-walk"];
        let plan = Plan::scenarios(&names, &[20.0, 60.0], ik_gait::runner::Backend::Jit).unwrap();
        let rows = run_checks(&p, &plan, &mut |_| {}).unwrap();
        // Every check 1-14 (4a, 4b and 4c) has a row.
        let checks: std::collections::BTreeSet<Check> = rows.iter().map(|r| r.check).collect();
        assert_eq!(
            checks,
            Check::ALL.into_iter().collect(),
            "{name}: a row for every check"
        );
        // Every row, check 14 (no drag, issue 19) included.
        let fails: Vec<String> = failures(&rows, &[])
            .iter()
            .map(|r| ik_gait::tables::text(r))
            .map(|t| format!("{}: {} ({})", t.label(), t.measured, t.threshold))
            .collect();
        assert!(fails.is_empty(), "{name}: {fails:#?}");
    }
}
