//! The `molang` binary on the inputs a new user gives it: every case here was a crash, a
//! silent wrong answer or a surprising exit code once. Each test runs the built binary.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::{
    assert_contains, assert_contains_all, check_as_json, eval_batch, examples, json_lines, molang,
    molang_on, scratch as temp_dir, stderr_with_code, stdout_with_code, text, write_in,
};

fn run(args: &[&str]) -> Output {
    molang().args(args).output().unwrap()
}

/// A minified one-line animation file of about 300 kB whose only mistake sits near its end.
fn long_line_pack() -> PathBuf {
    let dir = temp_dir("long-line");
    std::fs::create_dir_all(dir.join("animations")).unwrap();
    let mut bones = String::new();
    for i in 0..4_000 {
        bones.push_str(&format!(
            "\"bone{i}\":{{\"rotation\":[\"math.cos(q.anim_time*{i})*20\",0,0]}},"
        ));
    }
    bones.push_str("\"last\":{\"rotation\":[\"math.max(1, 2, 3)\",0,0]}");
    let json = format!(
        "{{\"format_version\":\"1.8.0\",\"animations\":{{\"animation.long\":{{\"loop\":true,\"bones\":{{{bones}}}}}}}}}"
    );
    assert!(json.len() > 200_000 && !json.contains('\n'));
    std::fs::write(dir.join("animations/long.animation.json"), json).unwrap();
    dir
}

#[test]
fn check_long_minified_line_reports_without_panicking() {
    let dir = long_line_pack();
    let out = molang_on("check", &dir, &[]);
    let stdout = stdout_with_code(&out, 1);
    assert_contains(
        &stdout,
        "error[E0203]: math.max takes exactly 2 arguments, found 3",
    );
    // The position is the real column of the call on line 1, and the excerpt is short.
    let json = std::fs::read_to_string(dir.join("animations/long.animation.json")).unwrap();
    let col = json.find("math.max(1, 2, 3)").unwrap() + 1;
    assert!(col > 65_535);
    assert_contains(&stdout, &format!("long.animation.json:1:{col}"));
    assert!(
        stdout.lines().all(|l| l.chars().count() < 400),
        "excerpt not windowed"
    );
    assert_contains(&stdout, "^^^^^^^^^^^^^^^^^");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_human_output_and_summary_go_to_stdout() {
    let out = molang_on("check", examples().join("mistakes_pack"), &[]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert_contains(&stdout, "E0203");
    assert_contains(&stdout, "4 files, 13 expressions");
    assert_eq!(
        text(&out.stderr),
        "",
        "only failures of the tool itself go to stderr"
    );
}

#[test]
fn check_json_ends_with_summary_and_gives_game_effect_apart() {
    let out = check_as_json(&examples().join("mistakes_pack"));
    let lines = json_lines(&out);
    let last = lines.last().unwrap();
    assert_eq!(last["summary"]["files"], 4);
    assert_eq!(last["summary"]["expressions"], 13);
    assert_eq!(last["summary"]["errors"], 7);
    assert_eq!(last["summary"]["warnings"], 5);
    let arity = lines.iter().find(|l| l["code"] == "E0203").unwrap();
    assert!(arity["game"]
        .as_str()
        .unwrap()
        .starts_with("The game refuses to load"));
    assert!(!arity["help"]
        .as_str()
        .unwrap_or("")
        .contains("The game refuses"));
}

#[test]
fn check_json_positions_are_one_based_for_whole_file_problems() {
    let dir = temp_dir("not-utf8");
    std::fs::create_dir_all(dir.join("entity")).unwrap();
    std::fs::write(dir.join("entity/bad.entity.json"), b"{\"a\": \"\xff\xfe\"}").unwrap();
    let out = check_as_json(&dir);
    let stdout = text(&out.stdout);
    let d: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(d["code"], "E0702", "{stdout}");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(1))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_empty_folder_says_nothing_was_found() {
    let dir = temp_dir("empty");
    let out = molang_on("check", &dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no pack files found"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_refuses_paths_together_with_expr() {
    let out = molang_on("check", examples().join("mistakes_pack"), &["--expr", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not both"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn eval_unset_read_names_the_variable_in_words() {
    let out = run(&["eval", "v.y"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).trim(), "0");
    assert_contains(&stderr, "`variable.y` is read before anything sets it");
    assert!(
        !stderr.contains("UnsetRead") && !stderr.contains("Slot("),
        "{stderr}"
    );
}

#[test]
fn eval_warns_about_unknown_queries_and_unread_sets() {
    let out = run(&[
        "eval",
        "q.anger_levl * 2",
        "--set",
        "q.anger_level=3",
        "--set",
        "foo.x=1",
    ]);
    let stderr = text(&out.stderr);
    assert_contains_all(
        &stderr,
        &[
            "W0205",
            "did you mean `query.anger_level`",
            "--set q.anger_level: the expression never reads `query.anger_level`",
            "`foo` is not a Molang namespace",
        ],
    );
}

#[test]
fn negative_numbers_work_as_written() {
    let out = run(&["check", "--expr", "1 ? 2 : 3", "--version", "-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = run(&["eval", "-1 - 2"]);
    assert_eq!(
        (out.status.code(), text(&out.stdout).trim()),
        (Some(0), "-3"),
        "{}",
        text(&out.stderr)
    );
    let out = run(&["eval", "q.x * 2", "--set", "q.x=-1.5", "--version", "-1"]);
    assert_eq!(text(&out.stdout).trim(), "-3", "{}", text(&out.stderr));
}

#[test]
fn versions_the_game_does_not_have_are_refused_with_the_list() {
    for v in ["99", "14", "-2", "abc"] {
        let out = run(&["eval", "1", "--version", v]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{v}");
        assert!(stderr.contains("versions are -1"), "{v}: {stderr}");
    }
}

#[test]
fn zero_counts_are_refused() {
    let out = run(&["bench", "--expr", "1", "--iterations", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stdout).contains("inf"));
    let out = molang_on(
        "fuzz",
        examples().join("classic_mobs"),
        &["--entity", "classic:humanoid", "--cases", "0"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stdout).contains("nothing found"));
}

#[test]
fn eval_batch_answers_blank_lines_and_reads_nan_back() {
    let out = eval_batch(&[], b"{\"expr\": \"q.x\", \"set\": {\"q.x\": \"NaN\"}}\n\n{\"expr\": \"q.x\", \"set\": {\"q.x\": \"-inf\"}}\n");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 3, "one output line per input line");
    assert_eq!(lines[0]["value"], "NaN");
    assert!(lines[1]["value"].is_null());
    assert_eq!(lines[1]["diagnostics"][0]["message"], "empty input line");
    assert_eq!(lines[2]["value"], "-inf");
    let out = run(&["eval", "q.x", "--set", "q.x=inf"]);
    assert_eq!(text(&out.stdout).trim(), "inf");
}

#[test]
fn help_texts_state_the_real_defaults() {
    let help = text(&run(&["eval", "--help"]).stdout);
    assert!(!help.contains("on the reference interpreter"), "{help}");
    assert_contains(&help, "[default: jit]");
    // And the default really is the JIT: a batch that compiles at once reports it.
    let out = eval_batch(&["--tier-after", "0"], b"{\"expr\": \"1 + 1\"}\n");
    let line: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(line["backend"], "jit");
    let help = text(&run(&["bench", "--help"]).stdout);
    assert_contains(&help, "[default: both]");
    assert_contains(&help, "[default: 1000000]");
    let help = text(&run(&["fuzz", "--help"]).stdout);
    assert_contains(&help, "[default: fuzz-findings]");
    assert_contains(&help, "[default: 200]");
}

/// A pack whose entity uses a `t.` temp and reads a variable, for the fuzz tests.
fn temp_entity_pack(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    write_in(
        &dir,
        "pack/entity/e.entity.json",
        r#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:e","scripts":{
            "pre_animation":["t.s = q.ground_speed * 2;","v.speed = t.s;"]}}}}"#,
    );
    dir
}

/// `molang fuzz DIR/pack --entity t:e ARGS... [--out-dir OUT]` run in `dir` (a pack of
/// [`temp_entity_pack`]), so that the default findings folder is in there too.
fn fuzz_entity(dir: &Path, args: &[&str], out: Option<&Path>) -> Output {
    let mut cmd = molang();
    cmd.arg("fuzz")
        .arg(dir.join("pack"))
        .args(["--entity", "t:e"]);
    if let Some(out) = out {
        cmd.arg("--out-dir").arg(out);
    }
    cmd.args(args).current_dir(dir).output().unwrap()
}

#[test]
fn fuzz_invariant_works_on_entities_with_temps() {
    let dir = temp_entity_pack("fuzz-temps");
    let findings = dir.join("findings");
    let out = fuzz_entity(
        &dir,
        &[
            "--invariant",
            "1",
            "--invariant",
            "v.speed >= 0",
            "--cases",
            "5",
        ],
        Some(&findings),
    );
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("may only read"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}{}", text(&out.stdout));
    // An invariant naming a temp is still refused: the entity's temps are gone after a frame.
    let out = fuzz_entity(&dir, &["--invariant", "t.s >= 0", "--cases", "5"], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzz_out_dir_is_created_like_mkdir_and_never_inside_the_pack() {
    let dir = temp_entity_pack("fuzz-out");
    // v.speed < 1 fails as soon as the speed is fuzzed above 0.5, so reproducers are written.
    // With `--out-dir` when `out` is given.
    let fuzz = |out: Option<&Path>| {
        fuzz_entity(&dir, &["--invariant", "v.speed < 1", "--cases", "20"], out)
    };
    let out = fuzz(Some(&dir.join("missing/parent/findings")));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(!dir.join("missing").exists(), "created the missing parents");
    let out = fuzz(Some(&dir.join("pack/findings")));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("inside the pack"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.join("pack/findings").exists());
    let out = fuzz(Some(&dir.join("findings")));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(std::fs::read_dir(dir.join("findings")).unwrap().count() > 0);
    // The default folder is fuzz-findings/ in the current directory, named in the output.
    let out = fuzz(None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("fuzz-findings/"),
        "{}",
        text(&out.stdout)
    );
    assert!(dir.join("fuzz-findings").is_dir());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzz_ranges_typos_get_a_suggestion() {
    let dir = temp_entity_pack("fuzz-ranges");
    std::fs::write(
        dir.join("ranges.json"),
        r#"{"ground_sped": [0, 2], "ground_speed": [0, 1]}"#,
    )
    .unwrap();
    let ranges = dir.join("ranges.json");
    let ranges = ["--cases", "2", "--ranges", ranges.to_str().unwrap()];
    let out = fuzz_entity(&dir, &ranges, Some(&dir.join("f")));
    let stderr = text(&out.stderr);
    assert_contains(
        &stderr,
        "query.ground_sped; its range is unused (did you mean `ground_speed`?)",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `molang fuzz` writes each finding's timeline and prints the `molang run` command that
/// replays it (built by the front end from the finding): run as printed, it shows the
/// broken invariant on the finding's last frame, on the back end and platform fuzzed.
#[test]
fn fuzz_replay_command_replays_the_finding() {
    let dir = temp_entity_pack("fuzz-replay");
    let invariant = ["--invariant", "v.speed < 1", "--cases", "20"];
    let target = ["--backend", "interp", "--platform", "arm64"];
    let out = fuzz_entity(
        &dir,
        &[invariant, target].concat(),
        Some(&dir.join("found")),
    );
    let stdout = stdout_with_code(&out, 1);
    assert_contains(
        &stdout,
        "found: invariant `v.speed < 1` is false after frame",
    );
    assert_contains(&stdout, "  q.ground_speed = ");
    let command = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: molang "))
        .unwrap_or_else(|| panic!("no replay line: {stdout}"));
    assert!(
        !command.contains('\''),
        "plain temp paths need no quoting: {command}"
    );
    assert!(
        command.ends_with("--vars --backend interp --platform arm64"),
        "{command}"
    );
    let file = dir.join("found/fuzz-t_e-1.csv");
    assert_contains(command, &format!("--inputs {}", file.display()));
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .starts_with("t,q.ground_speed"));
    let words: Vec<&str> = command.split_whitespace().collect();
    let replay = molang().args(&words).output().unwrap();
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay.stderr));
    let trace = text(&replay.stdout);
    let mut rows = trace.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    let speed = header.iter().position(|h| *h == "v.speed").unwrap();
    let last = rows.last().unwrap().split(',').nth(speed).unwrap();
    assert!(last.parse::<f32>().unwrap() >= 1.0, "{trace}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checks and files the library left to `molang fuzz`: option values worded with their
/// flags, packs that do not exist, and a reproducer never written through a symbolic link.
#[test]
fn fuzz_front_end_checks_flags_paths_and_links() {
    let dir = temp_entity_pack("fuzz-front");
    let fuzz = |extra: &[&str]| {
        let args = [&["--invariant", "v.speed < 1", "--cases", "20"], extra].concat();
        fuzz_entity(&dir, &args, None)
    };
    let out = fuzz(&["--fps", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert_contains(
        &text(&out.stderr),
        "error: --fps must be above 0 and at most 10000, got 0",
    );
    let out = fuzz(&["--invariant", "v.nope > 0"]);
    assert_eq!(out.status.code(), Some(2));
    assert_contains(
        &text(&out.stderr),
        "error: --invariant `v.nope > 0` reads variable.nope, which the entity's scripts never mention",
    );
    let out = molang_on("fuzz", dir.join("pack"), &["--entity", "t:nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert_contains(&text(&out.stderr), "no entity `t:nope` in ");
    assert_contains(&text(&out.stderr), "(entities: t:e)");
    let out = molang_on("fuzz", dir.join("no-such-pack"), &["--entity", "t:e"]);
    assert_eq!(out.status.code(), Some(2));
    assert_contains(&text(&out.stderr), "no-such-pack does not exist");
    // A reproducer that is a symbolic link is not written through.
    std::fs::create_dir_all(dir.join("found")).unwrap();
    std::fs::write(dir.join("elsewhere.csv"), "keep").unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere.csv"), dir.join("found/fuzz-t_e-1.csv"))
        .unwrap();
    let out = fuzz(&["--out-dir", "found"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert_contains(&text(&out.stderr), "fuzz-t_e-1.csv: is a symbolic link");
    assert_eq!(std::fs::read(dir.join("elsewhere.csv")).unwrap(), b"keep");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Values a user might give a flag: bad numbers, expressions, paths, non-ASCII text.
const FLAG_VALUES: &[&str] = &[
    "-1",
    "0",
    "NaN",
    "inf",
    "1e39",
    "99999999999999999999999",
    "q.x=NaN",
    "foo.x=1",
    "v.y",
    "-1/0",
    "math.max(1, 2, 3)",
    "/nonexistent/dir",
    "ünï©ødé",
    "",
];
const SUBCOMMANDS: &[&str] = &["check", "eval", "bench", "run", "fuzz", "nope"];
const FLAGS: &[&str] = &[
    "--version",
    "--expr",
    "--set",
    "--format",
    "--iterations",
    "--entity",
    "--cases",
    "--frames",
    "--fps",
    "--seconds",
    "--backend",
    "--seed",
    "--tier-after",
    "--bogus",
    "--inputs",
];

// Random argument vectors: whatever a user types, no subcommand panics, and the exit code is
// 0 (fine), 1 (problems found) or 2 (usage or I/O failure).
fn flag_value() -> impl Strategy<Value = String> {
    let weight = FLAG_VALUES.len() as u32;
    prop_oneof![
        weight => proptest::sample::select(FLAG_VALUES).prop_map(String::from),
        1 => "[a-z:._-]{0,8}",
    ]
}

fn arg_vector() -> impl Strategy<Value = Vec<String>> {
    let sub = proptest::sample::select(SUBCOMMANDS);
    let flag = proptest::sample::select(FLAGS);
    let pack = prop_oneof![
        Just(examples().join("classic_mobs").display().to_string()),
        Just(examples().join("mistakes_pack").display().to_string()),
        Just("/nonexistent".to_string()),
    ];
    (
        sub,
        proptest::collection::vec((flag, flag_value()), 0..4),
        proptest::option::of(pack),
    )
        .prop_map(|(sub, flags, pack)| {
            let mut v = vec![sub.to_string()];
            v.extend(pack);
            for (f, val) in flags {
                // Small counts only: a valid huge --iterations would just take long.
                let val = if matches!(f, "--iterations" | "--cases" | "--frames" | "--seconds")
                    && val.parse::<f64>().is_ok_and(|x| x > 100.0)
                {
                    "3".to_string()
                } else {
                    val
                };
                v.push(f.to_string());
                v.push(val);
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn no_subcommand_panics_on_random_arguments(args in arg_vector()) {
        let dir = std::env::temp_dir().join(format!("molang-cli-prop-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let out = molang().args(&args).current_dir(&dir).stdin(std::process::Stdio::null()).output().unwrap();
        let code = out.status.code();
        let stderr = text(&out.stderr);
        prop_assert!(matches!(code, Some(0..=2)), "{args:?} exited {code:?}: {stderr}");
        prop_assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn bench_entity_times_what_run_runs_with_the_same_defaults() {
    // pre_animation reads an engine variable (the game sets v.attack_time): `molang run`
    // gives it its default, so the frame never aborts; bench must time that same frame.
    let dir = temp_dir("bench-run");
    write_in(
        &dir,
        "entity/e.entity.json",
        r#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:swing","scripts":{
            "pre_animation":["v.swing = v.attack_time * 2 + q.ground_speed;"]}}}}"#,
    );
    let out = molang_on(
        "bench",
        &dir,
        &[
            "--entity",
            "t:swing",
            "--iterations",
            "500",
            "--set",
            "q.ground_speed=1",
        ],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_contains(&stdout, "interp: ");
    assert_contains(&stdout, "jit: ");
    assert!(
        !stderr.contains("abort") && !stderr.contains("content-log"),
        "{stderr}"
    );
    let run = molang_on(
        "run",
        &dir,
        &["--entity", "t:swing", "--seconds", "1", "--vars"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_dot_inside_a_pack_counts_each_file_once() {
    let pack = examples().join("classic_mobs");
    let summary = |out: Output| {
        text(&out.stdout)
            .lines()
            .last()
            .unwrap_or_default()
            .to_string()
    };
    let inside = summary(
        molang()
            .args(["check", "."])
            .current_dir(&pack)
            .output()
            .unwrap(),
    );
    let outside = summary(molang_on("check", &pack, &[]));
    assert_contains(&inside, "files,");
    assert_eq!(
        inside, outside,
        "manifest.json counted twice from inside the pack"
    );
}

#[test]
fn run_plot_to_an_unwritable_path_is_an_io_failure_naming_the_file() {
    let out = molang_on(
        "run",
        examples().join("classic_mobs"),
        &[
            "--entity",
            "classic:humanoid",
            "--seconds",
            "0.5",
            "--channels",
            "rightleg.rx",
            "--plot",
            "/nonexistent/dir/plot.svg",
            "--out",
            "/dev/null",
        ],
    );
    let stderr = stderr_with_code(&out, 2);
    assert_contains(&stderr, "cannot write the plot /nonexistent/dir/plot.svg");
}

#[test]
fn broken_json_is_reported_where_the_fault_is() {
    let dir = temp_dir("broken-json");
    std::fs::create_dir_all(dir.join("entity")).unwrap();
    let check = |body: &str| {
        std::fs::write(dir.join("entity/bad.entity.json"), body).unwrap();
        let out = check_as_json(&dir);
        let first: serde_json::Value =
            serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
        assert_eq!(first["code"], "E0701");
        (
            first["line"].as_u64().unwrap(),
            first["column"].as_u64().unwrap(),
        )
    };
    // A missing comma: at the end of the line that lacks it, not at 1:1.
    assert_eq!(
        check("{\n  \"format_version\": \"1.10.0\",\n  \"a\": 1\n  \"b\": 2\n}\n"),
        (3, 9)
    );
    // An object left open at the end of the file: at the end, not at its start.
    let (line, _) = check("{\n  \"format_version\": \"1.10.0\",\n  \"a\": {\n");
    assert!(line >= 3, "reported at line {line}");
    let _ = std::fs::remove_dir_all(&dir);
}
