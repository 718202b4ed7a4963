//! `molang check` in CI: `molang.toml` (codes, exclude, lower layers, version), inline
//! `molang-ignore` comments, `--context` layers, `--baseline`, the SARIF and GitHub formats
//! and the per-code summary; and the CI-facing outputs of `run` (labelled lines, `--quiet`),
//! `test` (`no_content_log`) and `eval --batch` (the variable an abort read). Packs are
//! written to scratch folders by each test.

mod support;
use support::{
    assert_code, assert_contains, assert_contains_all, batch_answers, molang, molang_on, scratch,
    text, write_entity, write_in,
};

use std::path::{Path, PathBuf};
use std::process::Output;

const MANIFEST: &str = r#"{"format_version": 2,
  "header": {"name": "t", "uuid": "00000000-0000-0000-0000-000000000001", "version": [1, 0, 0], "min_engine_version": [1, 21, 0]},
  "modules": [{"type": "resources", "uuid": "00000000-0000-0000-0000-000000000002", "version": [1, 0, 0]}]}"#;

/// An animation file whose bone `body` rotates by `x`.
fn animation(id: &str, x: &str) -> String {
    format!(
        "{{\n  \"format_version\": \"1.8.0\",\n  \"animations\": {{\n    \"{id}\": {{\n      \"bones\": {{\n        \"body\": {{\n          \"rotation\": [{x}, 0, 0]\n        }}\n      }}\n    }}\n  }}\n}}\n"
    )
}

/// A resource pack at `dir` with an unknown query (W0205) in `a.animation.json` and an
/// unknown math function (E0202) in `b.animation.json`.
fn pack(dir: &Path) {
    write_in(dir, "manifest.json", MANIFEST);
    write_animation(dir, "a", "animation.t.a", "\"q.nope_query\"");
    write_animation(dir, "b", "animation.t.b", "\"math.nope(1)\"");
}

/// Writes `animations/FILE.animation.json` in `dir`: the animation `id`, its bone `body`
/// rotating by `x`.
fn write_animation(dir: &Path, file: &str, id: &str, x: &str) {
    let rel = format!("animations/{file}.animation.json");
    write_in(dir, &rel, animation(id, x));
}

/// A scratch folder `name` and in it the [`pack`] `folder`.
fn scratch_pack(name: &str, folder: &str) -> (PathBuf, PathBuf) {
    let root = scratch(name);
    let p = root.join(folder);
    pack(&p);
    (root, p)
}

/// `molang check ARGS` in `dir`.
fn check_in(dir: &Path, args: &[&str]) -> Output {
    molang()
        .current_dir(dir)
        .arg("check")
        .args(args)
        .output()
        .unwrap()
}

/// [`check_in`], asserting its exit code.
#[track_caller]
fn check_exits(dir: &Path, args: &[&str], code: i32) -> Output {
    let out = check_in(dir, args);
    assert_code(&out, code);
    out
}

/// The standard output of [`check_in`].
fn check_stdout(dir: &Path, args: &[&str]) -> String {
    text(&check_in(dir, args).stdout)
}

/// Writes `molang.toml` in `dir`.
fn write_config(dir: &Path, toml: &str) {
    write_in(dir, "molang.toml", toml);
}

/// The diagnostics of a `--format json` run: (code, severity, file).
fn json_diags(out: &Output) -> Vec<(String, String, String)> {
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("summary").is_none())
        .map(|v| {
            (
                v["code"].as_str().unwrap().to_string(),
                v["severity"].as_str().unwrap().to_string(),
                v["file"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn codes(out: &Output) -> Vec<String> {
    json_diags(out).into_iter().map(|d| d.0).collect()
}

#[test]
fn the_config_turns_codes_off_or_up_and_is_found_above_the_pack() {
    let (root, p) = scratch_pack("config-codes", "pack");
    let out = check_exits(&root, &["--format", "json", "pack"], 1);
    assert_eq!(codes(&out), ["W0205", "E0202"]);

    // In the folder above the pack: found by walking up from the checked path.
    write_config(&root, "[codes]\nW0205 = \"error\"\nE0202 = \"off\"\n");
    let out = check_exits(&root, &["--format", "json", "pack"], 1);
    let d = json_diags(&out);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), ("W0205", "error"));
    let summary = text(&out.stdout);
    assert_contains(&summary, "\"codes\":{\"W0205\":1}");

    write_config(&root, "[codes]\nW0205 = \"off\"\nE0202 = \"warning\"\n");
    let out = check_exits(&root, &["pack"], 0);
    let human = text(&out.stdout);
    // Reported as a warning; what the game does is unchanged.
    assert_contains_all(
        &human,
        &[
            "⚠ `math.nope` is not a Molang math function",
            "The game refuses to load this expression",
            "1 diagnostic of codes molang.toml turns off",
        ],
    );

    // A `.git` folder is the repository's root: the search stops there.
    std::fs::create_dir_all(p.join(".git")).unwrap();
    let out = check_in(&root, &["--format", "json", "pack"]);
    assert_eq!(codes(&out), ["W0205", "E0202"]);
    // --config names a file anywhere; --no-config reads none.
    write_in(&root, "other.toml", "[codes]\nE0202 = \"off\"\n");
    let out = check_exits(
        &root,
        &["--format", "json", "--config", "other.toml", "pack"],
        0,
    );
    assert_eq!(codes(&out), ["W0205"]);
    std::fs::remove_dir_all(p.join(".git")).unwrap();
    let out = check_in(&root, &["--format", "json", "--no-config", "pack"]);
    assert_eq!(codes(&out), ["W0205", "E0202"]);
}

#[test]
fn a_bad_config_is_reported_at_its_line_and_column() {
    let (root, _) = scratch_pack("config-bad", "pack");
    write_config(&root, "version = 8\nexlude = [\"x\"]\n");
    let out = check_exits(&root, &["pack"], 2);
    let err = text(&out.stderr);
    assert_contains(&err, "molang.toml:2:1: unknown field `exlude`");
    assert!(!err.contains("panicked"), "{err}");
    write_config(&root, "[codes]\nW0205 = \"silent\"\n");
    let out = check_exits(&root, &["pack"], 2);
    assert_contains(
        &text(&out.stderr),
        "molang.toml:2:9: `silent` is not a level",
    );
}

#[test]
fn the_config_excludes_files_sets_the_version_and_adds_lower_layers() {
    let root = scratch("config-layers");
    let p = root.join("addon");
    pack(&p);
    // An entity playing an animation only the lower layer defines.
    let plays = r#""animations": {"base": "animation.base.a"}, "scripts": {"animate": ["base"]}"#;
    write_entity(&p, "entity/e.entity.json", "t:e", plays);
    let base = root.join("base");
    write_in(&base, "manifest.json", MANIFEST);
    write_animation(&base, "base", "animation.base.a", "\"math.nope(2)\"");
    let out = check_in(&root, &["--format", "json", "addon"]);
    assert_eq!(codes(&out), ["W0205", "E0202", "W0805"]);

    write_config(
        &p,
        "lower = [\"../base\"]\nexclude = [\"animations/b.*\"]\n",
    );
    let out = check_in(&root, &["--format", "json", "addon"]);
    // The lower layer's E0202 is not reported; its animation is defined for the add-on.
    assert_code(&out, 0);
    let d = json_diags(&out);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "W0205");
    assert!(d[0].2.ends_with("a.animation.json"), "{d:?}");

    // `version`: a nested conditional is an error before Molang version 5.
    write_animation(&p, "a", "animation.t.a", "\"v.a ? v.b ? 1 : 2 : 3\"");
    let out = check_in(&root, &["--format", "json", "addon"]);
    assert_eq!(codes(&out), Vec::<String>::new());
    write_config(
        &p,
        "lower = [\"../base\"]\nexclude = [\"animations/b.*\"]\nversion = 4\n",
    );
    let out = check_exits(&root, &["--format", "json", "addon"], 1);
    assert_eq!(codes(&out), ["E0112"]);
    // --version wins over the file.
    check_exits(&root, &["--format", "json", "--version", "13", "addon"], 0);
}

#[test]
fn context_layers_are_read_but_not_reported() {
    let (root, _) = scratch_pack("context", "base");
    let top = root.join("top");
    write_in(&top, "manifest.json", MANIFEST);
    write_animation(&top, "c", "animation.t.c", "\"q.other_nope\"");
    let out = check_in(&root, &["--format", "json", "base", "top"]);
    assert_eq!(codes(&out), ["W0205", "E0202", "W0205"]);
    let out = check_exits(&root, &["--format", "json", "--context", "base", "top"], 0);
    let d = json_diags(&out);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].2.contains("c.animation.json"), "{d:?}");
    let out = check_in(&root, &["--context", "base", "top"]);
    assert_contains_all(
        &text(&out.stdout),
        &[
            "note: 2 diagnostics in the lower layers (context) not reported",
            "2 files, 1 expressions: 0 errors, 1 warnings",
        ],
    );
}

#[test]
fn molang_ignore_comments_silence_codes_on_their_line() {
    let (root, p) = scratch_pack("ignore", "pack");
    write_in(
        &p,
        "animations/a.animation.json",
        "{\n  \"animations\": {\n    \"animation.t.a\": {\"bones\": {\"body\": {\n      // molang-ignore: W0205, E0202 -- both on purpose\n      \"rotation\": [\"q.nope_query + math.nope(1)\", 0, 0],\n      \"position\": [\"q.nope_two\", 0, 0], // molang-ignore: W0205\n      \"scale\": [\"q.nope_three\", 0, 0] // molang-ignore: W0250\n    }}}\n  }\n}\n",
    );
    let out = check_in(&root, &["--format", "json", "pack"]);
    // b.animation.json's E0202 stays; W0250 is no code, so its line keeps its W0205.
    let mut got = codes(&out);
    got.sort();
    assert_eq!(got, ["E0202", "W0205", "W0901"]);
    let human = check_stdout(&root, &["pack"]);
    assert_contains_all(
        &human,
        &[
            "`molang-ignore` names `W0250`, which is not a diagnostic code",
            "3 diagnostics silenced by molang-ignore comments",
        ],
    );
}

#[test]
fn a_baseline_is_written_once_then_only_new_diagnostics_count() {
    let (root, p) = scratch_pack("baseline", "pack");
    // Two identical diagnostics: the baseline counts both.
    write_animation(&p, "b", "animation.t.b", "\"math.nope(1) + math.nope(1)\"");
    let out = check_exits(&root, &["--baseline", "base.json", "pack"], 0);
    assert_contains(
        &text(&out.stdout),
        "wrote 3 diagnostics to the baseline base.json",
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("base.json")).unwrap()).unwrap();
    let entries = written["diagnostics"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{written}");
    assert_eq!(entries[1]["file"], "pack/animations/b.animation.json");
    assert_eq!(entries[1]["count"], 2);

    let out = check_exits(
        &root,
        &["--baseline", "base.json", "--format", "json", "pack"],
        0,
    );
    assert_eq!(codes(&out), Vec::<String>::new());

    // Lines added above move every diagnostic; a third `math.nope(1)` is new.
    write_in(
        &p,
        "animations/b.animation.json",
        format!(
            "\n\n\n{}",
            animation(
                "animation.t.b",
                "\"math.nope(1) + math.nope(1) + math.nope(1)\""
            )
        ),
    );
    let out = check_exits(
        &root,
        &["--baseline", "base.json", "--format", "json", "pack"],
        1,
    );
    assert_eq!(codes(&out), ["E0202"]);
    // A fixed one is noted.
    write_animation(&p, "a", "animation.t.a", "0");
    let out = check_in(&root, &["--baseline", "base.json", "pack"]);
    assert_contains(
        &text(&out.stdout),
        "1 diagnostic of the baseline no longer occur",
    );

    // The file only: a missing folder is an error, and is not created.
    check_exits(&root, &["--baseline", "no/such/base.json", "pack"], 2);
    assert!(!root.join("no").exists());
    // A baseline that is not one says where.
    write_in(
        &root,
        "bad.json",
        "{\"molang_baseline\": 1,\n \"diagnostics\": 3}",
    );
    let out = check_exits(&root, &["--baseline", "bad.json", "pack"], 2);
    assert_contains(&text(&out.stderr), "bad.json:2:");
}

#[test]
fn sarif_output_is_a_valid_log_with_relative_uris() {
    let (root, _) = scratch_pack("sarif", "my pack");
    let out = check_exits(&root, &["--format", "sarif", "my pack"], 1);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    // The schema's required properties: version and runs; a run's tool.driver.name; a
    // result's message; a location's physicalLocation.artifactLocation and region.
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "molang");
    assert!(driver["version"].as_str().is_some());
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["E0202", "W0205"]);
    for r in rules {
        assert!(!r["shortDescription"]["text"].as_str().unwrap().is_empty());
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    let e = results.iter().find(|r| r["ruleId"] == "E0202").unwrap();
    assert_eq!(e["level"], "error");
    assert_eq!(e["ruleIndex"], 0);
    assert!(e["message"]["text"].as_str().unwrap().contains("math.nope"));
    let loc = &e["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        "my%20pack/animations/b.animation.json"
    );
    let region = &loc["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(7), Some(25))
    );
    assert_eq!(
        (region["endLine"].as_u64(), region["endColumn"].as_u64()),
        (Some(7), Some(34))
    );
    // The summary goes to stderr, beside the log.
    assert_contains(&text(&out.stderr), "1 errors, 1 warnings");
}

#[test]
fn github_format_writes_workflow_annotations() {
    let (root, _) = scratch_pack("github", "pack");
    let out = check_exits(&root, &["--format", "github", "pack"], 1);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[1].starts_with(
            "::error file=pack/animations/b.animation.json,line=7,col=25,endLine=7,endColumn=34,title=E0202 unknown math function::"
        ),
        "{}",
        lines[1]
    );
    assert!(lines[0].starts_with("::warning file=pack/animations/a.animation.json,"));
    // Newlines in the text are escaped: one line per annotation.
    assert!(lines[1].contains("%0A"), "{}", lines[1]);
}

#[test]
fn the_human_summary_counts_each_code() {
    let (root, p) = scratch_pack("per-code", "pack");
    write_animation(&p, "c", "animation.t.c", "\"q.nope_a + q.nope_b\"");
    let stdout = check_stdout(&root, &["pack"]);
    assert_contains_all(
        &stdout,
        &[
            "4 files, 3 expressions: 1 errors, 3 warnings\n",
            "\n       3 W0205 unknown query\n       1 E0202 unknown math function\n",
        ],
    );
}

/// A pack whose entity gives each kind of `molang run` stderr line: a checker diagnostic
/// (an unknown query), a note (a query not in the inputs) and a content-log line (an
/// animation no file defines).
fn run_pack(dir: &Path) {
    write_in(dir, "manifest.json", MANIFEST);
    write_in(
        dir,
        "entity/e.entity.json",
        r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {"identifier": "t:e",
            "scripts": {"pre_animation": ["v.x = q.nope_query + q.ground_speed;"], "animate": ["gone"]},
            "animations": {"gone": "animation.t.gone"}}}}"#,
    );
}

#[test]
fn run_prints_diagnostics_as_check_does_then_labelled_lines_and_quiet_keeps_the_content_log() {
    let root = scratch("run-labels");
    run_pack(&root);
    let run = |extra: &[&str]| {
        let out = molang()
            .arg("run")
            .arg(&root)
            .args(["--entity", "t:e", "--seconds", "0.1", "--fps", "10"])
            .args(extra)
            .output()
            .unwrap();
        assert_code(&out, 0);
        text(&out.stderr)
    };
    let err = run(&[]);
    fn kinds(err: &str) -> Vec<&str> {
        let mut k: Vec<&str> = err.lines().map(|l| l.split(':').next().unwrap()).collect();
        k.dedup();
        k
    }
    // First the diagnostics, each as `molang check` prints it; then labelled lines.
    let split = err.find("\nnote: ").map_or(0, |i| i + 1);
    let (reports, labelled) = err.split_at(split);
    assert_contains(reports, "W0205");
    let checked = molang_on("check", &root, &[]);
    assert_contains(&text(&checked.stdout), reports);
    for line in labelled.lines() {
        assert!(
            ["note: ", "content-log: "]
                .iter()
                .any(|p| line.starts_with(p)),
            "unlabelled line {line:?} in:\n{err}"
        );
    }
    assert_eq!(kinds(labelled), ["note", "content-log"], "{err}");
    assert_contains_all(
        &err,
        &[
            "note: query.ground_speed is not in the inputs; it reads 0",
            "content-log: frame 0: animation `animation.t.gone`",
        ],
    );
    let quiet = run(&["--quiet"]);
    assert_eq!(kinds(&quiet), ["content-log"], "{quiet}");
}

#[test]
fn no_content_log_treats_every_query_missing_from_the_inputs_alike() {
    let root = scratch("no-content-log");
    let p = root.join("pack");
    write_in(&p, "manifest.json", MANIFEST);
    let entity = |animate: &str| {
        format!(
            r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{"identifier": "t:e",
            "scripts": {{"pre_animation": ["v.a = q.property('t:a') + q.variant;"], "animate": [{animate}]}},
            "animations": {{"gone": "animation.t.gone"}}}}}}}}"#
        )
    };
    write_in(&p, "entity/e.entity.json", entity(""));
    write_in(
        &root,
        "tests/e.test.json",
        r#"{"name": "quiet", "entity": "t:e", "packs": ["../pack"], "fps": 10, "seconds": 0.5,
            "inputs": {"t": [0], "q.property('t:b')": [1]},
            "expect": [{"no_content_log": true}]}"#,
    );
    let out = molang_on("test", root.join("tests"), &[]);
    assert_code(&out, 0);
    // A line the game would log still fails it.
    write_in(&p, "entity/e.entity.json", entity("\"gone\""));
    let out = molang_on("test", root.join("tests"), &[]);
    assert_code(&out, 1);
    assert_contains(&text(&out.stdout), "animation.t.gone");
}

#[test]
fn an_aborted_batch_line_names_the_variable() {
    let input = b"{\"expr\": \"t.x = 1; return v.speed * t.x;\"}\n{\"expr\": \"1 + 1\"}\n";
    let lines = batch_answers(input);
    assert_eq!(lines[0]["aborted"], true);
    assert_eq!(lines[0]["abort"]["reason"], "unset_read");
    assert_eq!(lines[0]["abort"]["variable"], "variable.speed");
    assert!(lines[0]["abort"]["message"]
        .as_str()
        .unwrap()
        .contains("`variable.speed` is read before anything sets it"));
    assert_eq!(lines[0]["abort"]["start"], 16);
    assert_eq!(lines[1]["aborted"], false);
    assert!(lines[1]["abort"].is_null());
}
