//! `molang test` end to end: every kind of expectation passing and failing (with the failure
//! text), snapshots (bless, pass, change, fail at the right frame), bad test files (exit 2
//! with file:line:col), JUnit XML, and `--backend both` on the examples.

use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::{
    assert_contains, assert_contains_all, molang, molang_on, stdout_with_code, text, Scratch,
};

fn test_in(dir: &Path, extra: &[&str]) -> Output {
    molang().arg("test").arg(dir).args(extra).output().unwrap()
}

/// A pack with one entity: v.phase = q.anim_time-free counter, a leg swinging 30·sin(t·90),
/// plus the test file given.
fn fixture(name: &str, amplitude: &str, test: &str) -> Scratch {
    let dir = Scratch::new(&format!("test-cmd-{name}"));
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
    let stdout = stdout_with_code(&out, 0);
    assert!(stdout.starts_with("ok     swing passes ("), "{stdout}");
    assert_contains(&stdout, "test result: 1 passed, 0 failed");
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
    let stdout = stdout_with_code(&out, 1);
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
}

/// `molang test TESTS` fails (exit 1) and its report holds each of `lines`.
#[track_caller]
fn assert_fails_with(tests: &Path, lines: &[&str]) {
    let out = test_in(tests, &[]);
    assert_contains_all(&stdout_with_code(&out, 1), lines);
}

#[test]
fn content_log_lines_fail_no_content_log() {
    let test = r#"{"name": "log", "entity": "t:swing", "packs": ["../pack"], "seconds": 1,
        "expect": [{ "no_content_log": true }]}"#;
    let dir = fixture("log", "v.never_set", test);
    assert_fails_with(
        &dir.join("tests"),
        &[
            "expected no content-log lines (frame 0, t = 0)",
            "variable.never_set",
        ],
    );
}

/// A [`fixture`] (amplitude 30) whose test compares `seconds` of its trace at 20 fps with
/// the snapshot `swing.trace.csv`; the folder and its `tests`.
fn snapshot_fixture(name: &str, seconds: u32) -> (Scratch, PathBuf) {
    let test = format!(
        r#"{{"name": "snap", "entity": "t:swing", "packs": ["../pack"], "fps": 20, "seconds": {seconds},
        "expect": [{{ "snapshot": "swing.trace.csv" }}]}}"#
    );
    let dir = fixture(name, "30", &test);
    let tests = dir.join("tests");
    (dir, tests)
}

#[test]
fn snapshot_bless_then_pass_then_fail_at_the_changed_frame() {
    let (dir, tests) = snapshot_fixture("snap", 2);
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
    assert_fails_with(
        &tests,
        &[
            "first difference: frame 1, bone `leg`, rx",
            "(frame 1, t = 0.05)",
        ],
    );
}

/// `--bless` writes a snapshot as every `molang` write goes: never through a symbolic link,
/// even one that stays inside the test's folder (before, snapshots were written through
/// links while pictures were not).
#[test]
fn bless_refuses_a_symlinked_snapshot() {
    let (_dir, tests) = snapshot_fixture("snap-link", 1);
    std::fs::write(tests.join("real.csv"), "keep").unwrap();
    std::os::unix::fs::symlink(tests.join("real.csv"), tests.join("swing.trace.csv")).unwrap();
    let out = test_in(&tests, &["--bless"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert_contains(&stdout, "expected snapshot");
    assert_contains(&stdout, "cannot write it: is a symbolic link");
    assert!(!stdout.contains(", wrote "), "{stdout}");
    assert_eq!(std::fs::read(tests.join("real.csv")).unwrap(), b"keep");
    // A plain file is blessed (replaced) as before.
    std::fs::remove_file(tests.join("swing.trace.csv")).unwrap();
    std::fs::write(tests.join("swing.trace.csv"), "old").unwrap();
    let out = test_in(&tests, &["--bless"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_contains(&text(&out.stdout), ", wrote ");
    assert!(std::fs::read_to_string(tests.join("swing.trace.csv"))
        .unwrap()
        .starts_with("frame,t,bone"));
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
}

#[test]
fn examples_pass_on_both_back_ends_identically() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = molang_on("test", &examples, &["--backend", "both"]);
    let stdout = stdout_with_code(&out, 0);
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
    let stdout = stdout_with_code(&out, 1);
    assert_contains_all(&stdout, &["ok     phones (", "FAILED pcs (", "wanted 30, got NaN", "expected x86-64 and arm64 agree from t = 0.5 to 2 (frame 10, t = 0.5)\n    frame 10: leg.rx: x86-64 NaN, arm64 ", "test result: 1 passed, 2 failed"]);
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
    let stdout = stdout_with_code(&out, 1);
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
}

#[test]
fn run_platform_both_prints_the_first_difference() {
    let dir = fixture("run-both", NAN_AMPLITUDE, "[]");
    let both = ["--platform", "both", "--fps", "20", "--seconds", "1"];
    let out = molang_on("run", dir.join("pack"), &both);
    let stdout = stdout_with_code(&out, 1);
    assert_contains(
        &stdout,
        "t:swing: frame 0 (t = 0): bone leg rx: x86-64 NaN, arm64 0\n",
    );
    assert_contains(&stdout, "1 of 1 entities differ between x86-64 and arm64");
    // Amplitude 30 everywhere: the platforms agree.
    let same = fixture("run-same", "30", "[]");
    let both = [
        "--platform",
        "both",
        "--entity",
        "t:swing",
        "--seconds",
        "1",
    ];
    let out = molang_on("run", same.join("pack"), &both);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "t:swing: the platforms agree over 60 frames\n"
    );
    // And the trace of one platform: arm64 swings where x86-64 gives NaN.
    let arm64 = [
        "--platform",
        "arm64",
        "--entity",
        "t:swing",
        "--fps",
        "20",
        "--seconds",
        "1.05",
    ];
    let out = molang_on("run", dir.join("pack"), &arm64);
    let trace = text(&out.stdout);
    let row = trace
        .lines()
        .find(|l| l.starts_with("20,1,leg,"))
        .unwrap_or_else(|| panic!("no frame 20 of leg in\n{trace}"));
    let rx: f32 = row.split(',').nth(3).unwrap().parse().unwrap();
    assert!((rx - 30.0).abs() < 1e-3, "{row}");
}

/// A pack with a textured block whose arm turns `speed` degrees a second (a render
/// controller picks the geometry and the 32 × 32 texture, each texel its own colour), and the
/// test file `test` in `tests/`.
fn picture_fixture(name: &str, speed: &str, test: &str) -> Scratch {
    let dir = Scratch::new(&format!("test-pic-{name}"));
    let files = [
        (
            "pack/entity/block.entity.json",
            r#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:block",
                "materials":{"default":"entity"},"textures":{"default":"textures/entity/block"},
                "geometry":{"default":"geometry.block"},"render_controllers":["controller.render.block"],
                "animations":{"spin":"animation.t.spin"},"scripts":{"animate":["spin"]}}}}"#
                .to_string(),
        ),
        (
            "pack/render_controllers/block.render_controllers.json",
            r#"{"format_version":"1.8.0","render_controllers":{"controller.render.block":{
                "geometry":"Geometry.default","materials":[{"*":"Material.default"}],
                "textures":["Texture.default"]}}}"#
                .to_string(),
        ),
        (
            "pack/animations/spin.animation.json",
            format!(
                r#"{{"format_version":"1.8.0","animations":{{"animation.t.spin":{{"loop":true,
                "bones":{{"arm":{{"rotation":[0,"q.life_time * {speed}",0]}}}}}}}}}}"#
            ),
        ),
        (
            "pack/models/entity/block.geo.json",
            r#"{"format_version":"1.12.0","minecraft:geometry":[{"description":{"identifier":"geometry.block",
                "texture_width":32,"texture_height":32},"bones":[
                {"name":"body","pivot":[0,0,0],"cubes":[{"origin":[-2,0,-2],"size":[4,4,4],"uv":[0,0]}]},
                {"name":"arm","parent":"body","pivot":[0,4,0],"cubes":[{"origin":[-1,4,-3],"size":[2,6,2],"uv":[0,16]}]}]}]}"#
                .to_string(),
        ),
        ("tests/block.test.json", test.to_string()),
    ];
    for (rel, body) in files {
        support::write_in(&dir, rel, body);
    }
    let texture = image::RgbaImage::from_fn(32, 32, |x, y| {
        image::Rgba([(x * 8) as u8, (y * 8) as u8, 128 + ((x + y) * 2) as u8, 255])
    });
    std::fs::create_dir_all(dir.join("pack/textures/entity")).unwrap();
    texture
        .save(dir.join("pack/textures/entity/block.png"))
        .unwrap();
    dir
}

/// A test file with one image expectation; `extra`: more keys of it.
fn image_test(extra: &str) -> String {
    format!(
        r#"{{"name": "block picture", "entity": "t:block", "packs": ["../pack"], "seconds": 1,
  "expect": [
    {{ "image": "spin.png", "frame": 10, "camera": "three-quarter", "size": 64{extra} }}
  ]}}"#
    )
}

fn read_rgba(path: &Path) -> image::RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

#[test]
fn image_expectation_bless_pass_and_fail_with_actual_and_diff() {
    let dir = picture_fixture("bless", "90", &image_test(""));
    let tests = dir.join("tests");
    let (expected, actual, diff) = (
        tests.join("spin.png"),
        tests.join("spin.actual.png"),
        tests.join("spin.diff.png"),
    );
    // No image yet: a failure that says how to write it; the picture drawn is kept.
    let out = test_in(&tests, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_contains(
        &stdout,
        "no image yet: run `molang test --bless` to write it",
    );
    assert_contains(&stdout, "spin.actual.png");
    assert!(!expected.exists() && actual.exists());
    std::fs::remove_file(&actual).unwrap();

    let out = test_in(&tests, &["--bless"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_contains(&text(&out.stdout), "wrote ");
    let blessed = read_rgba(&expected);
    assert_eq!(blessed.dimensions(), (64, 64));
    // Something textured is drawn: more than the background's one colour.
    let colours: std::collections::HashSet<_> = blessed.pixels().collect();
    assert!(colours.len() > 10, "{} colours", colours.len());

    // The same picture on both back ends, and nothing written on a pass.
    let out = test_in(&tests, &["--backend", "both"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(!actual.exists() && !diff.exists());

    // The arm turns twice as fast: frame 10 differs; the picture and a difference are written.
    let changed = picture_fixture("bless-changed", "180", &image_test(""));
    std::fs::copy(&expected, changed.join("tests/spin.png")).unwrap();
    let tests = changed.join("tests");
    let out = test_in(&tests, &["--backend", "both"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_contains_all(
        &stdout,
        &[
            "picture ",
            "of frame 10 (three-quarter camera, 64 px)",
            "pixels differ by more than 0",
            "the largest difference is",
            "spin.diff.png",
        ],
    );
    let (actual, diff) = (tests.join("spin.actual.png"), tests.join("spin.diff.png"));
    let (drawn, marks) = (read_rgba(&actual), read_rgba(&diff));
    let differing = blessed
        .pixels()
        .zip(drawn.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert!(differing > 0);
    // The count reported is the pixels that differ, each marked red in the difference image.
    assert_contains(&stdout, &format!("{differing} of 4096 pixels differ"));
    let red = marks.pixels().filter(|p| p.0 == [255, 0, 0, 255]).count();
    assert_eq!(red, differing);
    // Blessing the new picture makes it pass.
    assert_eq!(test_in(&tests, &["--bless"]).status.code(), Some(0));
    assert_eq!(read_rgba(&tests.join("spin.png")), drawn);
    assert_eq!(test_in(&tests, &[]).status.code(), Some(0));
}

#[test]
fn image_tolerance_is_per_channel_and_a_share_of_pixels() {
    let dir = picture_fixture("tolerance", "90", &image_test(""));
    let tests = dir.join("tests");
    assert_eq!(test_in(&tests, &["--bless"]).status.code(), Some(0));
    // Every drawn texel one step of 6 brighter in red: the same shapes, small differences.
    let tex = dir.join("pack/textures/entity/block.png");
    let mut t = read_rgba(&tex);
    for p in t.pixels_mut() {
        p.0[0] += 6;
    }
    t.save(&tex).unwrap();
    let run = |extra: &str| {
        std::fs::write(tests.join("block.test.json"), image_test(extra)).unwrap();
        let out = test_in(&tests, &[]);
        (out.status.code(), text(&out.stdout))
    };
    let (code, stdout) = run("");
    assert_eq!(code, Some(1), "{stdout}");
    // Shading scales the 6 by 0.55 to 1: the largest difference is 3 to 6.
    let largest: u32 = stdout
        .split("the largest difference is ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!((3..=6).contains(&largest), "{stdout}");
    assert_eq!(run(&format!(r#", "tolerance": {largest}"#)).0, Some(0));
    let (code, stdout) = run(&format!(r#", "tolerance": {}"#, largest - 1));
    assert_eq!(code, Some(1), "{stdout}");
    assert_contains(&stdout, &format!("differ by more than {}", largest - 1));
    // The share of pixels allowed to differ: all of them passes, none fails.
    assert_eq!(run(r#", "max_differing": 1"#).0, Some(0));
    assert_eq!(run(r#", "max_differing": 0"#).0, Some(1));
}

#[test]
fn hostile_image_names_and_bad_image_keys_exit_2() {
    let dir = picture_fixture("hostile", "90", &image_test(""));
    let tests = dir.join("tests");
    let outside = dir.join("outside.png");
    std::fs::write(&outside, b"keep").unwrap();
    std::os::unix::fs::symlink(&outside, tests.join("link.png")).unwrap();
    let abs = outside.display().to_string();
    for (expect, message) in [
        (
            r#""image": "../spin.png", "frame": 1"#,
            "has a folder in it",
        ),
        (
            r#""image": "sub/spin.png", "frame": 1"#,
            "has a folder in it",
        ),
        (
            r#""image": "..\\spin.png", "frame": 1"#,
            "has a folder in it",
        ),
        (
            &format!(r#""image": "{abs}", "frame": 1"#),
            "has a folder in it",
        ),
        (r#""image": "..", "frame": 1"#, "starts with a dot"),
        (r#""image": ".png", "frame": 1"#, "starts with a dot"),
        (
            r#""image": "C:spin.png", "frame": 1"#,
            "not allowed in a file name",
        ),
        (
            r#""image": "spin.txt", "frame": 1"#,
            "is not a `.png` file name",
        ),
        (
            r#""image": "spin.diff.png", "frame": 1"#,
            "ends like the files",
        ),
        (r#""image": "link.png", "frame": 1"#, "symbolic link"),
        (r#""image": "spin.png""#, "needs \"frame\""),
        (
            r#""image": "spin.png", "frame": 20"#,
            "past the test's last frame",
        ),
        (
            r#""image": "spin.png", "frame": 1, "tolerance": 1.5"#,
            "whole number from 0 to 255",
        ),
        (
            r#""image": "spin.png", "frame": 1, "tolerance": 256"#,
            "whole number from 0 to 255",
        ),
        (
            r#""image": "spin.png", "frame": 1, "camera": "back""#,
            "camera is",
        ),
        (
            r#""image": "spin.png", "frame": 1, "size": 4096"#,
            "size must be",
        ),
        (
            r#""image": "spin.png", "frame": 1, "max_differing": 2"#,
            "max_differing must be",
        ),
        (
            r#""at": 0.5, "v.x": 1, "frame": 1"#,
            "applies to an image expectation only",
        ),
    ] {
        let test = format!(
            r#"{{"entity": "t:block", "packs": ["../pack"], "seconds": 1, "expect": [{{ {expect} }}]}}"#
        );
        std::fs::write(tests.join("block.test.json"), &test).unwrap();
        for bless in [&[][..], &["--bless"][..]] {
            let out = test_in(&tests, bless);
            let stderr = text(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{test}\n{stderr}{}",
                text(&out.stdout)
            );
            assert_contains(&stderr, message);
            assert_contains(&stderr, "block.test.json:1:");
        }
    }
    assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
    // A failure's picture is not written through a symbolic link either.
    std::fs::write(tests.join("block.test.json"), image_test("")).unwrap();
    std::os::unix::fs::symlink(&outside, tests.join("spin.actual.png")).unwrap();
    let out = test_in(&tests, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_contains(&text(&out.stdout), "cannot write");
    assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
    let listed: Vec<_> = std::fs::read_dir(&tests)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !listed
            .iter()
            .any(|n| n == "spin.png" || n == "spin.diff.png"),
        "{listed:?}"
    );
}
