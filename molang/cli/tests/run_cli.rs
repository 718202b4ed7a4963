//! `molang run` end to end on the runtime fixtures (tests/fixtures/runtime): the trace
//! contract (header, rows, frame numbering), JSON lines, the plot, and exit 2 with a
//! position on bad input.

use std::path::PathBuf;

mod support;
use support::{
    assert_code, assert_contains, assert_contains_all, csv, molang, molang_on, molang_to,
    run_inputs, scratch, stderr_with_code, text, vanilla_rp, walk, write_entity, write_in,
};

/// A pack of `tests/fixtures/runtime`.
fn fixture(name: &str) -> PathBuf {
    support::fixture(&format!("runtime/{name}"))
}

/// `molang run` of the quadruped fixture with its own inputs and `flags`.
fn run_quadruped(flags: &str) -> std::process::Output {
    let pack = fixture("quadruped");
    run_inputs(&pack, &pack.join("inputs.csv"), flags)
}

#[test]
fn run_writes_the_trace_contract() {
    let out = run_quadruped("--entity test:dog --fps 20 --seconds 5 --world --vars");
    assert_code(&out, 0);
    let rows = csv::rows_under(
        &text(&out.stdout),
        "frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz,wx,wy,wz,v.entered_moving,v.speed_scaled",
    );
    // 5 s × 20 fps = 100 frames × 6 bones, geometry order.
    assert_eq!(rows.len(), 600);
    let bones: Vec<&str> = rows[..6].iter().map(|r| r[2].as_str()).collect();
    assert_eq!(bones, ["body", "head", "leg0", "leg1", "leg2", "leg3"]);
    assert_eq!(&rows[6][..2], ["1", "0.05"]);
    // Frame 21 (t = 1.05): walking at distance 0 → leg0.rx = cos(0) · 80.
    let leg0 = rows
        .iter()
        .find(|r| r[0] == "21" && r[2] == "leg0")
        .unwrap();
    assert_eq!(leg0[3], "80");
    // The one query the inputs do not give and the runtime does not provide is reported.
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("query.ground_speed is not"), "{err}");
}

#[test]
fn run_writes_jsonl_and_a_plot() {
    let dir = scratch("jsonl");
    let svg = dir.join("legs.svg");
    let trace = dir.join("trace.jsonl");
    let flags = [
        "--entity",
        "test:keys",
        "--fps",
        "20",
        "--seconds",
        "1",
        "--format",
        "jsonl",
    ];
    let plot = [
        "--plot",
        svg.to_str().unwrap(),
        "--channels",
        "lin.rx,cat.rx",
    ];
    let out = molang_to(
        "run",
        &fixture("keyframes"),
        &trace,
        &[&flags[..], &plot].concat(),
    );
    assert_code(&out, 0);
    let text = std::fs::read_to_string(&trace).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["frame"], 0);
    assert_eq!(first["bone"], "lin");
    assert_eq!(first["sx"], 1.0);
    let row5 = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["frame"] == 5 && v["bone"] == "lin")
        .unwrap();
    assert_eq!(row5["rx"], 22.5);
    // The plot draws the two requested channels: a line each, named in the legend.
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg"), "{}", &plot[..plot.len().min(80)]);
    let texts: Vec<&str> = plot
        .split("</text>")
        .filter_map(|piece| piece.rsplit_once('>').map(|(_, t)| t.trim()))
        .collect();
    for channel in ["lin.rx", "cat.rx"] {
        assert!(
            texts.contains(&channel),
            "no legend for {channel}: {texts:?}"
        );
    }
    assert!(
        plot.matches("<polyline").count() >= 2,
        "fewer than two lines"
    );
    // The missing animation is a content-log line with its frame.
    let err = String::from_utf8(out.stderr).unwrap();
    assert_contains(&err, "frame 0: animation `animation.keys.does_not_exist`");
}

#[test]
fn run_bad_input_exits_2_with_a_position() {
    // Missing entity.
    let out = molang_on("run", fixture("quadruped"), &["--entity", "test:nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("test:dog"));

    // Bad CSV cell: line 3, column 3.
    let dir = scratch("bad");
    let csv = write_in(&dir, "in.csv", "t,q.ground_speed\n0,1\n1,fast\n");
    let out = molang()
        .arg("run")
        .arg(fixture("quadruped"))
        .args(["--entity", "test:dog", "--inputs"])
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_contains(&err, "in.csv:3:3:");

    // Broken JSON in the pack.
    let pack = dir.join("pack");
    write_in(&pack, "entity/x.entity.json", "{\n  \"minecraft:client_entity\": {\n    \"description\": { \"identifier\": \"a:b\" \n  }\n");
    let out = molang_on("run", &pack, &["--entity", "a:b"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_contains(&err, "x.entity.json:");
    assert!(!err.contains("panicked"), "{err}");
}

/// A pack whose animation reads `variable.attack_time`, which the game sets on the entity.
fn attack_pack() -> PathBuf {
    let d = scratch("attack");
    std::fs::create_dir_all(d.join("entity")).unwrap();
    std::fs::create_dir_all(d.join("animations")).unwrap();
    std::fs::write(
        d.join("entity/swing.entity.json"),
        r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {
            "identifier": "test:swing",
            "animations": {"swing": "animation.test.swing"},
            "scripts": {"animate": ["swing"]}}}}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("animations/swing.animation.json"),
        r#"{"format_version": "1.8.0", "animations": {"animation.test.swing": {"loop": true,
            "bones": {"arm": {"rotation": ["v.attack_time * 90", 0, 0]}}}}}"#,
    )
    .unwrap();
    d
}

#[test]
fn variable_columns_drive_engine_variables() {
    let pack = attack_pack();
    let csv = write_in(&pack, "in.csv", "t,v.attack_time\n0,0\n1,1\n");
    let out = run_inputs(&pack, &csv, "--entity test:swing --fps 10 --seconds 1.5");
    let err = stderr_with_code(&out, 0);
    assert!(!err.contains("attack_time"), "supplied, so no note: {err}");
    let text = String::from_utf8(out.stdout).unwrap();
    let rx: Vec<f32> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap().parse().unwrap())
        .collect();
    // Linear from 0 at t = 0 to 90 at t = 1, held after the last row.
    assert_eq!(rx.len(), 15);
    for (f, v) in rx.iter().enumerate() {
        let want = (f as f32 / 10.0).min(1.0) * 90.0;
        assert!((v - want).abs() < 1e-3, "frame {f}: {v} vs {want}");
    }
}

#[test]
fn an_unsupplied_engine_variable_reads_zero_with_a_note() {
    let pack = attack_pack();
    let out = molang_on(
        "run",
        &pack,
        &["--entity", "test:swing", "--fps", "10", "--seconds", "0.3"],
    );
    let err = stderr_with_code(&out, 0);
    assert_contains(&err, "variable.attack_time is set by the game");
    assert!(!err.contains("unset"), "no abort: {err}");
    let text = String::from_utf8(out.stdout).unwrap();
    for l in text.lines().skip(1) {
        assert_eq!(l.split(',').nth(3), Some("0"), "{l}");
    }
}

/// A script-only entity (no geometry, no animations) still shows its variables with `--vars`:
/// one row per frame with an empty bone name, so a `molang fuzz` replay shows the NaN.
#[test]
fn bone_less_entities_write_one_row_per_frame_with_vars() {
    let d = scratch("boneless");
    let scripts = r#""scripts": {"initialize": ["v.x = 0;"], "pre_animation": ["v.x = math.sqrt(q.ground_speed - 1);"]}"#;
    write_entity(&d, "entity/s.entity.json", "test:scripts", scripts);
    let out = molang_on(
        "run",
        &d,
        &[
            "--entity",
            "test:scripts",
            "--fps",
            "10",
            "--seconds",
            "0.2",
            "--vars",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz,v.x");
    assert_eq!(
        lines[1..],
        ["0,0,,0,0,0,0,0,0,1,1,1,NaN", "1,0.1,,0,0,0,0,0,0,1,1,1,NaN"]
    );
}

/// Runs `molang run` on the `query_args` fixture: (exit code, stdout, stderr).
fn run_args(
    entity: &str,
    inputs: &std::path::Path,
    backend: &str,
) -> (Option<i32>, String, String) {
    let out = run_inputs(
        &fixture("query_args"),
        inputs,
        &format!("--entity {entity} --fps 10 --seconds 1.5 --backend {backend}"),
    );
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `bone` row of `frame` in a CSV trace, as numbers from `rx` on.
fn trace_row(trace: &str, frame: u32, bone: &str) -> Vec<f32> {
    let line = trace
        .lines()
        .find(|l| l.starts_with(&format!("{frame},")) && l.split(',').nth(2) == Some(bone))
        .unwrap_or_else(|| panic!("no row {frame} {bone}"));
    line.split(',')
        .skip(3)
        .map(|c| c.parse().unwrap())
        .collect()
}

#[test]
fn input_columns_with_arguments_drive_queries_on_both_back_ends() {
    let csv = fixture("query_args").join("inputs.csv");
    let (jc, jit, jerr) = run_args("test:args", &csv, "jit");
    let (ic, interp, ierr) = run_args("test:args", &csv, "interp");
    assert_eq!(jc, Some(0), "{jerr}");
    assert_eq!(ic, Some(0), "{ierr}");
    assert!(!jerr.contains("JIT does not cover"), "{jerr}");
    assert_eq!(jit, interp, "the back ends agree to the last digit");
    // t = 0.5: position_delta(0) = 2, (1) = 15, head_y_rotation (plain column) = 45.
    let close = |got: &[f32], want: &[f32]| {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-4, "{got:?} vs {want:?}");
        }
    };
    close(&trace_row(&jit, 5, "a")[..3], &[2.0, 15.0, 45.0]);
    // v.pd = position_delta(1) * 2 in pre_animation; armor_color_slot(1, 0) from the quoted
    // column; position_delta(2) has no column: 0.
    close(&trace_row(&jit, 5, "b")[..3], &[30.0, 5.0, 0.0]);
    // Position: is_item_equipped(0) = 0.5, is_item_equipped(1) → 0, position_delta(-0) = (0).
    close(&trace_row(&jit, 5, "c")[3..6], &[0.5, 0.0, 2.0]);
    // Past the last row the values hold: t = 1.4.
    close(&trace_row(&jit, 14, "a")[..3], &[3.0, 20.0, 60.0]);
    for err in [&jerr, &ierr] {
        assert_contains(
            err,
            "frame 0: query.position_delta(2) is not in the inputs; it reads 0",
        );
        assert_eq!(
            err.matches("is_item_equipped(1)").count(),
            1,
            "noted once: {err}"
        );
        assert!(
            !err.contains("query.head_y_rotation"),
            "the plain column answers: {err}"
        );
    }
}

#[test]
fn string_arguments_run_natively_and_agree_with_the_interpreter() {
    let csv = fixture("query_args").join("strings.csv");
    let (ic, interp, ierr) = run_args("test:arg_strings", &csv, "interp");
    assert_eq!(ic, Some(0), "{ierr}");
    for f in 0..15 {
        let t = (f as f32 / 10.0).min(1.0);
        let r = trace_row(&interp, f, "s");
        // 'minecraft:has_nectar' has its column; 'minecraft:other' and the differently cased
        // 'Minecraft:Has_Nectar' read the plain `q.property` column.
        assert!((r[0] - 10.0 * (1.0 - t)).abs() < 1e-4, "frame {f}: {r:?}");
        assert_eq!(r[1..3], [7.0, 7.0], "frame {f}");
    }
    assert!(!ierr.contains("not in the inputs"), "{ierr}");
    // The JIT compiles strings (issue 21): no fallback note, the same trace.
    let (jc, jit, jerr) = run_args("test:arg_strings", &csv, "jit");
    assert_eq!(jc, Some(0), "{jerr}");
    assert!(!jerr.contains("JIT does not cover"), "{jerr}");
    assert_eq!(jit, interp);

    // Without the plain column, the other strings read 0, each named once with its text.
    let dir = scratch("strings");
    let only = write_in(
        &dir,
        "in.csv",
        "t,q.property('minecraft:has_nectar')\n0,1\n",
    );
    let (code, trace, err) = run_args("test:arg_strings", &only, "interp");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(trace_row(&trace, 3, "s")[..3], [10.0, 0.0, 0.0]);
    for arg in ["'minecraft:other'", "'Minecraft:Has_Nectar'"] {
        let note = format!("frame 0: query.property({arg}) is not in the inputs; it reads 0");
        assert_eq!(err.matches(&note).count(), 1, "{err}");
    }
}

#[test]
fn bad_argument_columns_exit_2_naming_the_column() {
    let dir = scratch("badargs");
    for (header, at, want) in [
        (
            "t,q.position_delta(1",
            "1:3:",
            "column `q.position_delta(1` has bad arguments: missing `)`",
        ),
        (
            "t,q.position_delta(x)",
            "1:3:",
            "argument 1 `x` is not a number",
        ),
        ("t,q.property('a)", "1:3:", "the string has no closing `'`"),
        ("t,v.attack_time(1)", "1:3:", "variables take no arguments"),
        (
            "t,q.position_delta(1),q.position_delta(1.0)",
            "1:23:",
            "`q.position_delta(1.0)` appears twice",
        ),
    ] {
        let csv = dir.join("in.csv");
        std::fs::write(&csv, format!("{header}\n0,1\n")).unwrap();
        let (code, _, err) = run_args("test:args", &csv, "jit");
        assert_eq!(code, Some(2), "{header}: {err}");
        assert!(
            err.contains(&format!("in.csv:{at}")) && err.contains(want),
            "{header}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

// ---- vanilla, layers, attachables, friendlier misses ----

/// An add-on layered over vanilla: its entity uses vanilla's `geometry.slime` and
/// `animation.common.look_at_target` next to its own animation, and `scripts.scale = 2`.
#[test]
fn layered_packs_an_addon_over_vanilla() {
    let out = molang()
        .arg("run")
        .arg("--pack")
        .arg(vanilla_rp())
        .arg("--pack")
        .arg(fixture("addon"))
        .args([
            "--entity",
            "addon:blob",
            "--fps",
            "20",
            "--seconds",
            "1.05",
            "--world",
        ])
        .output()
        .unwrap();
    let err = stderr_with_code(&out, 0);
    assert!(
        !err.contains("is not in the pack"),
        "vanilla's geometry.slime is found: {err}"
    );
    assert!(
        !err.contains("does not exist"),
        "vanilla's look_at_target is found: {err}"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // geometry.slime's bones, in geometry order.
    let bones: Vec<&str> = text
        .lines()
        .skip(1)
        .take(4)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(bones, ["cube", "eye0", "eye1", "mouth"]);
    // Frame 20 (t = 1): cube.rx = sin(1 × 90) × 10 = 10; the pivot (0, 24, 0) × scale 2.
    let row = trace_row(&text, 20, "cube");
    assert!((row[0] - 10.0).abs() < 1e-4, "{row:?}");
    assert_eq!(&row[9..12], &[0.0, 48.0, 0.0], "{row:?}");
}

#[test]
fn a_vanilla_mob_walks_from_a_short_identifier_with_no_extra_columns() {
    let out = run_inputs(
        &vanilla_rp(),
        &fixture("walking").join("walk.csv"),
        "--entity zombie --fps 20 --seconds 1",
    );
    let err = stderr_with_code(&out, 0);
    assert!(!err.contains("nested deeper"), "{err}");
    assert!(!err.contains("ended the script"), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    let a = trace_row(&text, 0, "rightLeg")[0];
    let b = trace_row(&text, 5, "rightLeg")[0];
    assert!((a - b).abs() > 1.0, "the leg swings: {a} then {b}");
}

#[test]
fn an_unknown_entity_gets_did_you_mean_not_a_list() {
    let out = molang_on(
        "run",
        vanilla_rp(),
        &["--entity", "pgi", "--seconds", "0.1"],
    );
    let err = stderr_with_code(&out, 2);
    assert_contains(&err, "did you mean `minecraft:pig`?");
    assert!(err.len() < 300, "no dump of every identifier: {err}");
}

#[test]
fn an_unknown_query_column_gets_a_note_with_a_suggestion() {
    let dir = scratch("typo");
    let csv = write_in(&dir, "in.csv", "t,q.ground_sped\n0,1\n");
    let out = run_inputs(
        &fixture("quadruped"),
        &csv,
        "--entity test:dog --seconds 0.1",
    );
    let err = stderr_with_code(&out, 0);
    assert_contains(
        &err,
        "q.ground_sped is not a query the game knows; did you mean q.ground_speed?",
    );
}

/// A broken JSON file the entity does not use is skipped with check's E0701; one that names the
/// entity stops the run with its position. A UI file is not read at all.
#[test]
fn a_broken_unrelated_file_does_not_stop_the_run() {
    let dir = scratch("broken");
    let copy = |from: &std::path::Path, to: &std::path::Path| {
        for e in walk(from) {
            let rel = e.strip_prefix(from).unwrap();
            let dst = to.join(rel);
            std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
            std::fs::copy(&e, &dst).unwrap();
        }
    };
    copy(&fixture("quadruped"), &dir);
    write_in(&dir, "ui/hud_screen.json", "{ \"test:dog\": oops }");
    write_in(
        &dir,
        "animations/hud_screen.json",
        "{ \"namespace\": \"hud\", oops }",
    );
    let run = || molang_on("run", &dir, &["--entity", "test:dog", "--seconds", "0.1"]);
    let out = run();
    let err = stderr_with_code(&out, 0);
    // Check's diagnostic of the file, and why the run goes on.
    assert_contains_all(
        &err,
        &[
            "error[E0701]: ",
            "hud_screen.json:1:",
            "test:dog does not need it, so it plays without it",
        ],
    );
    assert!(!err.contains("ui/hud_screen.json"), "{err}");
    std::fs::write(
        dir.join("animations/hud_screen.json"),
        "{ \"test:dog\": oops }",
    )
    .unwrap();
    let out = run();
    let err = stderr_with_code(&out, 2);
    assert_contains(&err, "hud_screen.json:1:");
}

/// The vanilla bow runs as an entity: its `v.charge_amount` (which humanoid animations of
/// the holder read) from the item queries given as columns.
#[test]
fn an_attachable_runs_like_an_entity() {
    let dir = scratch("bow");
    let csv = write_in(
        &dir,
        "in.csv",
        "t,q.main_hand_item_max_duration,q.main_hand_item_use_duration\n0,72000,71995\n",
    );
    let out = run_inputs(
        &vanilla_rp(),
        &csv,
        "--entity minecraft:bow --fps 10 --seconds 0.2 --vars",
    );
    let err = stderr_with_code(&out, 0);
    assert!(!err.contains("ended the script"), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "v.charge_amount")
        .expect("v.charge_amount column");
    let first = text.lines().nth(1).unwrap().split(',').nth(col).unwrap();
    // clamp((72000 − (71995 − frame_alpha 0 + 1)) / 10, 0, 1) = 0.4
    assert_eq!(first.parse::<f32>().unwrap(), 0.4);
}

#[test]
fn render_columns_show_visibility_geometry_and_textures() {
    let out = molang_on(
        "run",
        vanilla_rp(),
        &[
            "--entity",
            "horse",
            "--fps",
            "10",
            "--seconds",
            "0.1",
            "--render",
        ],
    );
    assert_code(&out, 0);
    let rows = csv::rows_under(
        &text(&out.stdout),
        "frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz,visible,geometry,textures",
    );
    let saddle = rows.iter().find(|r| r[2] == "Saddle").unwrap();
    assert_eq!(saddle[12], "0", "no saddle without q.is_saddled");
    let head = rows.iter().find(|r| r[2] == "Head").unwrap();
    assert_eq!(head[12], "1");
    assert_eq!(head[13], "geometry.horse.v3");
    assert_eq!(
        head[14],
        "textures/entity/horse2/horse_white|textures/entity/horse2/horse_markings_none|textures/entity/horse2/armor/horse_armor_none"
    );
}

/// `--bench --instances N --threads T`: a row per thread count with frames/s that agree
/// with the time, the scaling, and the memory per instance; without --entity, exit 2.
#[test]
fn run_bench_instances_prints_rates_scaling_and_memory() {
    let out =
        run_quadruped("--entity test:dog --fps 20 --seconds 2 --bench --instances 6 --threads 2");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("test:dog: 6 instances x 40 frames at 20 fps, jit backend"),
        "{text}"
    );
    let rows: Vec<Vec<&str>> = (text.lines())
        .filter(|l| l.starts_with("threads"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for (r, t) in rows.iter().zip(["1:", "2:"]) {
        assert_eq!(r[1], t);
        let ms: f64 = r[2].parse().unwrap();
        let fps: f64 = r[4].parse().unwrap();
        assert!((fps - 240.0 / (ms / 1e3)).abs() / fps < 0.02, "{r:?}");
    }
    assert_contains(&text, "scaling 1 -> 2 threads: ");
    assert_contains(&text, "outputs: identical");
    let mem = text
        .lines()
        .find(|l| l.starts_with("memory per instance: "))
        .unwrap();
    let bytes: usize = mem["memory per instance: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(bytes > 0 && bytes < 64 * 1024, "{mem}");

    let out = molang_on(
        "run",
        fixture("quadruped"),
        &["--bench", "--instances", "2"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--instances needs --entity"));
}

/// A controller transition to a state the controller does not have: `molang run` reports
/// W0801 at the file, line and column `molang check` gives, with the same report (human and
/// JSON), and plays on without the transition.
#[test]
fn run_reports_a_transition_to_no_state_as_check_does() {
    let root = scratch("run-w0801");
    let plays =
        r#""animations": {"ctrl": "controller.animation.t"}, "scripts": {"animate": ["ctrl"]}"#;
    write_entity(&root, "entity/e.entity.json", "t:e", plays);
    write_in(
        &root,
        "animation_controllers/t.json",
        r#"{"format_version": "1.10.0", "animation_controllers": {
  "controller.animation.t": {
    "initial_state": "default",
    "states": {
      "default": {
        "transitions": [
          {"walking": "1"}
        ]
      }
    }
  }
}}"#,
    );
    let check = |format: &str| {
        let out = molang()
            .arg("check")
            .arg(&root)
            .args(["--format", format])
            .output()
            .unwrap();
        text(&out.stdout)
    };
    let run = |format: &str| {
        let out = molang()
            .arg("run")
            .arg(&root)
            .args(["--entity", "t:e", "--seconds", "0.1", "--format", format])
            .output()
            .unwrap();
        assert_code(&out, 0);
        text(&out.stderr)
    };
    // JSON: the same object, at the `"walking"` key (line 7, column 12).
    let w0801 = |out: &str| -> serde_json::Value {
        let found: Vec<serde_json::Value> = (out.lines())
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["code"] == "W0801")
            .collect();
        assert_eq!(found.len(), 1, "{out}");
        found[0].clone()
    };
    let (checked, ran) = (w0801(&check("json")), w0801(&run("jsonl")));
    assert_eq!(ran, checked);
    assert_eq!(
        (&ran["line"], &ran["column"], &ran["severity"]),
        (&7.into(), &12.into(), &"warning".into())
    );
    assert!(ran["file"].as_str().unwrap().ends_with("t.json"), "{ran}");
    // Human: check's report, byte for byte.
    let err = run("csv");
    let report = err.split("\nnote: ").next().unwrap();
    assert_contains(report, "W0801");
    assert_contains(report, "t.json:7:12");
    assert_contains(&check("human"), report);
}
