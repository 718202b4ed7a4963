//! `molang test` end to end: every kind of expectation passing and failing (with the failure
//! text), snapshots (bless, pass, change, fail at the right frame), bad test files (exit 2
//! with file:line:col), JUnit XML, and `--backend both` on the examples.

use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::{assert_contains, molang, molang_on, text};

fn test_in(dir: &Path, extra: &[&str]) -> Output {
    molang().arg("test").arg(dir).args(extra).output().unwrap()
}

/// A pack with one entity: v.phase = q.anim_time-free counter, a leg swinging 30·sin(t·90),
/// plus the test file given.
fn fixture(name: &str, amplitude: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("molang-test-cmd-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in [
        "pack/entity",
        "pack/animations",
        "pack/models/entity",
        "tests",
    ] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(
        dir.join("pack/entity/e.entity.json"),
        r#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:swing",
            "geometry":{"default":"geometry.swing"},
            "scripts":{"initialize":["v.n = 0;"],"pre_animation":["v.n = v.n + 1;", "v.speed = q.ground_speed * 2;"],"animate":["swing"]},
            "animations":{"swing":"animation.t.swing"}}}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("pack/animations/a.animation.json"),
        format!(
            r#"{{"format_version":"1.8.0","animations":{{"animation.t.swing":{{"loop":true,"bones":{{
                "leg":{{"rotation":["math.sin(q.life_time * 90) * {amplitude}",0,0]}}}}}}}}}}"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("pack/models/entity/g.geo.json"),
        r#"{"format_version":"1.12.0","minecraft:geometry":[{"description":{"identifier":"geometry.swing"},
            "bones":[{"name":"body","pivot":[0,10,0]},{"name":"leg","parent":"body","pivot":[0,6,0]}]}]}"#,
    )
    .unwrap();
    std::fs::write(dir.join("tests/swing.test.json"), test).unwrap();
    dir
}

const PASSING: &str = r#"// every kind of expectation, all true
[{
  "name": "swing passes",
  "entity": "t:swing",
  "packs": ["../pack"],
  "fps": 20,
  "seconds": 2,
  "inputs": { "t": [0, 2], "q.ground_speed": [0, 4] },
  "expect": [
    { "at": 1.0, "bone": "leg", "rx": 30, "tolerance": 0.001 },
    { "at": 0.5, "v.n": 11 },
    { "at": 1.0, "v.speed": 4, "tolerance": 0.001 },
    { "always": "v.speed >= 0 && v.speed <= 8" },
    { "never": "v.n > 40" },
    { "from": 0, "to": 2, "bone": "leg", "rx_between": [-30.001, 30.001] },
    { "no_content_log": true }
  ]
}]"#;

#[test]
fn passing_expectations_of_every_kind() {
    let dir = fixture("pass", "30", PASSING);
    let out = test_in(&dir.join("tests"), &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.starts_with("ok     swing passes ("), "{stdout}");
    assert_contains(&stdout, "test result: 1 passed, 0 failed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failing_expectations_say_what_when_and_by_how_much() {
    let test = r#"{
  "name": "swing fails",
  "entity": "t:swing",
  "packs": ["../pack"],
  "fps": 20,
  "seconds": 2,
  "inputs": { "q.ground_speed": 5 },
  "expect": [
    { "at": 1.0, "bone": "leg", "rx": 20, "tolerance": 0.5 },
    { "at": 0.5, "v.n": 3 },
    { "always": "v.n < 10" },
    { "never": "v.speed == 10", "from": 1, "to": 2 },
    { "from": 0.5, "to": 2, "bone": "leg", "rx_between": [-10, 10] },
    { "at": 1, "bone": "tail", "rx": 0 }
  ]
}"#;
    let dir = fixture("fail", "30", test);
    let out = test_in(&dir.join("tests"), &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let file = dir.join("tests/swing.test.json").display().to_string();
    for want in [
        format!("{file}:9:5: expected leg.rx = 20 ± 0.5 at t = 1 (frame 20, t = 1)\n    wanted 20, got 30"),
        format!("{file}:10:5: expected variable.n = 3 ± 0.0001 at t = 0.5 (frame 10, t = 0.5)\n    wanted 3, got 11"),
        format!("{file}:11:5: expected always `v.n < 10` from t = 0 to 2 (frame 9, t = 0.45)\n    `v.n < 10` is false after this frame"),
        format!("{file}:12:5: expected never `v.speed == 10` from t = 1 to 2 (frame 20, t = 1)\n    `v.speed == 10` is true after this frame"),
        format!("{file}:13:5: expected leg.rx within [-10, 10] from t = 0.5 to 2 (frame 10, t = 0.5)\n    got 21.2132"),
        format!("{file}:14:5: expected tail.rx = 0 ± 0.0001 at t = 1\n    the entity has no bone `tail` (bones: body, leg)"),
    ] {
        assert!(stdout.contains(&want), "missing\n{want}\nin\n{stdout}");
    }
    assert_contains(&stdout, "test result: 0 passed, 1 failed");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tests failed (exit 1) and the report holds each of `lines`.
#[track_caller]
fn assert_fails_with(out: &std::process::Output, lines: &[&str]) {
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for line in lines {
        assert_contains(&stdout, line);
    }
}

#[test]
fn content_log_lines_fail_no_content_log() {
    let test = r#"{"name": "log", "entity": "t:swing", "packs": ["../pack"], "seconds": 1,
        "expect": [{ "no_content_log": true }]}"#;
    let dir = fixture("log", "v.never_set", test);
    let out = test_in(&dir.join("tests"), &[]);
    assert_fails_with(
        &out,
        &[
            "expected no content-log lines (frame 0, t = 0)",
            "variable.never_set",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn snapshot_bless_then_pass_then_fail_at_the_changed_frame() {
    let test = r#"{"name": "snap", "entity": "t:swing", "packs": ["../pack"], "fps": 20, "seconds": 2,
        "expect": [{ "snapshot": "swing.trace.csv" }]}"#;
    let dir = fixture("snap", "30", test);
    let tests = dir.join("tests");
    let out = test_in(&tests, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("run `molang test --bless`"));
    let out = test_in(&tests, &["--bless"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(tests.join("swing.trace.csv").is_file());
    assert_eq!(test_in(&tests, &[]).status.code(), Some(0));
    // A bigger swing: frame 0 has sin(0) = 0 either way, frame 1 differs first.
    std::fs::write(
        dir.join("pack/animations/a.animation.json"),
        r#"{"format_version":"1.8.0","animations":{"animation.t.swing":{"loop":true,"bones":{
            "leg":{"rotation":["math.sin(q.life_time * 90) * 31",0,0]}}}}}"#,
    )
    .unwrap();
    let out = test_in(&tests, &[]);
    assert_fails_with(
        &out,
        &[
            "first difference: frame 1, bone `leg`, rx",
            "(frame 1, t = 0.05)",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_test_files_exit_2_with_file_line_column() {
    let cases = [
        (r#"{"name": "x", "entity": "t:swing", "packs": ["../pack"], "expcet": []}"#, "1:58", "unknown key `expcet` (did you mean `expect`?)"),
        ("{\n  \"name\": \"x\",\n  \"entity\": \"t:swing\"\n  \"packs\": []\n}", "3:22", "not valid JSON: Expected comma"),
        ("{\"entity\": \"t:swing\", \"packs\": [\"../pack\"],\n \"expect\": [{\"at\": 1, \"bone\": \"leg\", \"rxx\": 1}]}", "2:38", "unknown key `rxx`"),
        (r#"{"entity": "t:swing", "packs": ["../pack"], "expect": [{"at": 99, "v.n": 1}]}"#, "1:56", "outside the test's 0..4 s"),
        (r#"{"entity": "t:swing", "packs": ["../pack"], "expect": [{"always": "v.n >"}]}"#, "1:56", "does not load"),
    ];
    for (i, (body, pos, msg)) in cases.iter().enumerate() {
        let dir = fixture(&format!("bad{i}"), "30", body);
        let out = test_in(&dir.join("tests"), &[]);
        let stderr = text(&out.stderr);
        let file = dir.join("tests/swing.test.json").display().to_string();
        assert_eq!(
            out.status.code(),
            if i == 4 { Some(1) } else { Some(2) },
            "{i}: {stderr}{}",
            text(&out.stdout)
        );
        let all = format!("{stderr}{}", text(&out.stdout));
        assert!(
            all.contains(&format!("{file}:{pos}")),
            "{i}: wanted {pos} in {all}"
        );
        assert!(all.contains(msg), "{i}: wanted `{msg}` in {all}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn junit_output_is_xml_with_the_right_counts() {
    let dir = fixture("junit", "30", PASSING);
    // A second file with a failing test.
    std::fs::write(
        dir.join("tests/more.test.json"),
        r#"[{"name": "a fail", "entity": "t:swing", "packs": ["../pack"], "expect": [{"at": 1, "v.n": -1}]},
            {"name": "a pass", "entity": "t:swing", "packs": ["../pack"], "expect": [{"at": 1, "v.n": 21}]}]"#,
    )
    .unwrap();
    let out = test_in(&dir.join("tests"), &["--format", "junit"]);
    assert_eq!(out.status.code(), Some(1));
    let xml = text(&out.stdout);
    let report = quick_junit::Report::deserialize_from_str(&xml).expect("valid JUnit XML");
    assert_eq!(report.tests, 3);
    assert_eq!(report.failures, 1);
    assert_eq!(report.test_suites.len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn filter_and_json_format() {
    let dir = fixture("filter", "30", PASSING);
    let out = test_in(
        &dir.join("tests"),
        &["--format", "json", "--filter", "swing"],
    );
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["status"], "ok");
    assert_eq!(lines.last().unwrap()["summary"]["passed"], 1);
    let out = test_in(&dir.join("tests"), &["--filter", "nothing matches"]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn examples_pass_on_both_back_ends_identically() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = molang_on("test", &examples, &["--backend", "both"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(!stdout.contains("FAILED"), "{stdout}");
}

/// The leg swings by `math.max(30, math.sqrt(-1))`: NaN on x86-64 (`max` returns its NaN second
/// operand there), 30 on arm64 (which ignores the NaN).
const NAN_AMPLITUDE: &str = "math.max(30, math.sqrt(-1))";

#[test]
fn a_test_file_picks_its_platform_and_can_require_both_to_agree() {
    let test = r#"[
{ "name": "phones", "entity": "t:swing", "packs": ["../pack"], "fps": 20, "seconds": 2,
  "platform": "arm64",
  "expect": [ { "at": 1.0, "bone": "leg", "rx": 30, "tolerance": 0.001 } ] },
{ "name": "pcs", "entity": "t:swing", "packs": ["../pack"], "fps": 20, "seconds": 2,
  "expect": [ { "at": 1.0, "bone": "leg", "rx": 30, "tolerance": 0.001 } ] },
{ "name": "agree", "entity": "t:swing", "packs": ["../pack"], "fps": 20, "seconds": 2,
  "expect": [ { "platforms_agree": true, "from": 0.5 } ] }
]"#;
    let dir = fixture("platform", NAN_AMPLITUDE, test);
    let out = test_in(&dir.join("tests"), &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert_contains(&stdout, "ok     phones (");
    assert_contains(&stdout, "FAILED pcs (");
    assert_contains(&stdout, "wanted 30, got NaN");
    assert_contains(
        &stdout,
        "expected x86-64 and arm64 agree from t = 0.5 to 2 (frame 10, t = 0.5)\n    frame 10: leg.rx: x86-64 NaN, arm64 ",
    );
    assert_contains(&stdout, "test result: 1 passed, 2 failed");
    // `--platform arm64` on the command line: the test without "platform" passes too.
    let out = test_in(
        &dir.join("tests"),
        &["--platform", "arm64", "--filter", "pcs"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // `--platform both`: each expectation on each platform, and a note where they differ.
    let out = test_in(
        &dir.join("tests"),
        &["--platform", "both", "--filter", "pcs"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_contains(
        &stdout,
        "note: x86-64 and arm64 first differ at frame 0: leg.rx: x86-64 NaN, arm64 0",
    );
    assert_contains(
        &stdout,
        "leg.rx = 30 ± 0.001 at t = 1 (on x86-64) (frame 20, t = 1)",
    );
    assert!(!stdout.contains("(on arm64)"), "{stdout}");
    // A bad platform name is a bad test file.
    std::fs::write(
        dir.join("tests/swing.test.json"),
        r#"{ "entity": "t:swing", "packs": ["../pack"], "platform": "ppc" }"#,
    )
    .unwrap();
    let out = test_in(&dir.join("tests"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_contains(
        &text(&out.stderr),
        "swing.test.json:1:58: platform is \"x86-64\", \"arm64\" or \"both\", got \"ppc\"",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_platform_both_prints_the_first_difference() {
    let dir = fixture("run-both", NAN_AMPLITUDE, "[]");
    let out = molang()
        .args(["run", "--platform", "both", "--fps", "20", "--seconds", "1"])
        .arg(dir.join("pack"))
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert_contains(
        &stdout,
        "t:swing: frame 0 (t = 0): bone leg rx: x86-64 NaN, arm64 0\n",
    );
    assert_contains(&stdout, "1 of 1 entities differ between x86-64 and arm64");
    // Amplitude 30 everywhere: the platforms agree.
    let same = fixture("run-same", "30", "[]");
    let out = molang()
        .args([
            "run",
            "--platform",
            "both",
            "--entity",
            "t:swing",
            "--seconds",
            "1",
        ])
        .arg(same.join("pack"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "t:swing: the platforms agree over 60 frames\n"
    );
    // And the trace of one platform: arm64 swings where x86-64 gives NaN.
    let out = molang()
        .args([
            "run",
            "--platform",
            "arm64",
            "--entity",
            "t:swing",
            "--fps",
            "20",
            "--seconds",
            "1.05",
        ])
        .arg(dir.join("pack"))
        .output()
        .unwrap();
    let trace = text(&out.stdout);
    let row = trace
        .lines()
        .find(|l| l.starts_with("20,1,leg,"))
        .unwrap_or_else(|| panic!("no frame 20 of leg in\n{trace}"));
    let rx: f32 = row.split(',').nth(3).unwrap().parse().unwrap();
    assert!((rx - 30.0).abs() < 1e-3, "{row}");
    for d in [dir, same] {
        let _ = std::fs::remove_dir_all(&d);
    }
}
