//! Hostile input to the `molang` binary: files written only where asked, names that cannot
//! drive a terminal or break a CSV, and bounded memory and time for every input a stranger's
//! pack or an editor can give. Memory-bound cases run the binary under an address-space
//! limit (`ulimit -v` in `sh -c`) and assert a clean refusal.
//!
//! | input                                              | limit / outcome                                      |
//! |----------------------------------------------------|------------------------------------------------------|
//! | test `"snapshot"`/`"inputs"` absolute, `..`, link  | refused, exit 2: `file:line:col: snapshot ... leads out of the test file's folder` |
//! | names with `,` `"` line breaks in a trace          | quoted per RFC 4180, read back by `molang test`      |
//! | control characters in names (`ESC ] 0 ; … BEL`)    | printed as `\u{1b}` in every human output            |
//! | LSP `Content-Length` above 64 MiB                  | refused unread: error response (id seen) or log; server goes on |
//! | LSP framing errors, messages after `shutdown`      | answered or logged, never fatal; `exit` without `shutdown`: code 1 |
//! | `fuzz --frames`                                    | 1 to 100000                                          |
//! | `run --bench --instances` / `--threads`            | 1 to 100000 / 1 to 256                               |
//! | `run --seconds × --fps`                            | at most 1e8 frames, message names both flags          |
//! | a CSV line (inputs, snapshots)                     | at most 1 MiB and 4096 fields                        |
//! | a bad CSV cell in a message                        | first 60 characters, then `… (N more bytes)`         |
//! | `eval --batch` line / compiled expressions kept    | 16 MiB / 10000 (then the cache starts over)          |
//! | `eval --batch` line that is not UTF-8              | an error line naming the line, the batch goes on     |
//! | `fmt --write` that cannot write                    | not counted as reformatted                           |
//! | inline test inputs of different lengths            | refused naming the column                            |
//! | test file `seconds` × `fps`                        | at most 1e6 frames, at the later key's line:col      |
//! | a pack file (check, fmt, run, lsp)                 | 32 MiB (`[limits] file_size_mib`): E0706, not read   |
//! | JSON files in one walk (check, fmt, run, lsp)      | 20000 (`[limits] files`): E0706 at the next one, walk stops |
//! | `molang check` of the generated 50,000-expression pack | address space 64 MB + 4x its JSON bytes (was >11x) |

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{
    assert_code, assert_contains, batch_answers, molang, molang_limited, scratch, text, write_in,
    Scratch,
};

const EVIL: &str = "\u{1b}]0;x\u{7}\u{1b}[2J";

/// No byte a terminal acts on: C0 but line feed and tab, DEL, and C1 (as UTF-8).
#[track_caller]
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    let s = text(bytes);
    let bad: Vec<char> = s
        .chars()
        .filter(|&c| matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}'))
        .collect();
    assert!(
        bad.is_empty(),
        "{what}: control characters {bad:?} in:\n{s}"
    );
}

/// A pack whose entity, bones and variables are named by a stranger: a bone that would be a
/// CSV line of its own, one with a comma and a quote, one holding terminal escapes; a
/// variable likewise; an animation whose id holds escapes and is missing.
fn hostile_pack(name: &str) -> Scratch {
    let dir = Scratch::new(name);
    let j = |s: &str| serde_json::to_string(s).unwrap();
    let bones = ["body", "b\ntouch x #", "a,b\"q", &format!("z{EVIL}")];
    let geo_bones: Vec<String> = bones
        .iter()
        .map(|b| format!(r#"{{"name":{},"pivot":[0,1,0]}}"#, j(b)))
        .collect();
    write_in(
        &dir,
        "pack/models/entity/g.geo.json",
        format!(
            r#"{{"format_version":"1.12.0","minecraft:geometry":[{{"description":{{"identifier":"geometry.h"}},"bones":[{}]}}]}}"#,
            geo_bones.join(",")
        ),
    );
    write_in(
        &dir,
        "pack/animations/a.animation.json",
        format!(
            r#"{{"format_version":"1.8.0","animations":{{"animation.h.move":{{"loop":true,"bones":{{{}:{{"rotation":["q.life_time * 10",0,0]}}}}}}}}}}"#,
            j(bones[1])
        ),
    );
    write_in(
        &dir,
        "pack/entity/e.entity.json",
        format!(
            r#"{{"format_version":"1.10.0","minecraft:client_entity":{{"description":{{"identifier":{},
            "geometry":{{"default":"geometry.h"}},
            "scripts":{{"pre_animation":["v.speed = q.ground_speed;"],"animate":["move","gone"]}},
            "animations":{{"move":"animation.h.move","gone":{}}}}}}}}}"#,
            j(&format!("h:e{EVIL}")),
            j(&format!("animation.gone{EVIL}"))
        ),
    );
    dir
}

/// `s` as a JSON string (control characters as `\u001b`).
/// Asserts that `out` is a refusal (exit 2) whose error names `file`, then `at`
/// (`line:column: message`).
fn assert_refused_at(out: &Output, file: &Path, at: &str) {
    assert_code(out, 2);
    assert_contains(&text(&out.stderr), &format!("{}:{at}", file.display()));
}

/// `molang run` of the classic spider with the inputs file `inputs`.
fn run_spider_with(inputs: &Path) -> Output {
    let pack = support::examples().join("classic_mobs");
    run(&[
        "run",
        pack.to_str().unwrap(),
        "--entity",
        "classic:spider",
        "--inputs",
        inputs.to_str().unwrap(),
    ])
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn run(args: &[&str]) -> Output {
    molang().args(args).output().unwrap()
}

// ---- 1. `molang test`: files only inside the test's folder; CSV fields quoted ----------

fn test_dir_with(name: &str, test: &str) -> (Scratch, PathBuf) {
    let dir = hostile_pack(name);
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    let file = dir.join("tests/h.test.json");
    std::fs::write(&file, test).unwrap();
    (dir, file)
}

#[test]
fn bless_writes_nothing_outside_the_test_folder() {
    let outside = scratch("bless-outside");
    let target = outside.join("evil.sh");
    let link_dir = scratch("bless-link");
    let cases = [
        (target.display().to_string(), "is an absolute path"),
        (
            "../../bless-evil.sh".to_string(),
            "leads out of the test file's folder",
        ),
        ("link/evil.sh".to_string(), "through a symbolic link"),
        ("dangling.csv".to_string(), "leads nowhere"),
    ];
    for (i, (snapshot, why)) in cases.iter().enumerate() {
        let test = format!(
            "{{\"entity\": {},\n \"packs\": [\"../pack\"], \"seconds\": 0.1,\n \"expect\": [{{\"snapshot\": {}}}]}}",
            json_str(&format!("h:e{EVIL}")),
            json_str(snapshot)
        );
        let (dir, file) = test_dir_with(&format!("bless{i}"), &test);
        std::os::unix::fs::symlink(&link_dir, dir.join("tests/link")).unwrap();
        std::os::unix::fs::symlink(outside.join("nowhere.csv"), dir.join("tests/dangling.csv"))
            .unwrap();
        let out = run(&["test", "--bless", dir.join("tests").to_str().unwrap()]);
        assert_code(&out, 2);
        let stderr = text(&out.stderr);
        assert_contains(&stderr, &format!("{}:3:", file.display()));
        assert_contains(&stderr, why);
        assert!(!target.exists() && !link_dir.join("evil.sh").exists());
        assert!(!outside.join("nowhere.csv").exists());
        assert!(!dir.parent().unwrap().join("bless-evil.sh").exists());
    }
}

#[test]
fn a_test_never_echoes_a_file_it_does_not_own() {
    let secret = scratch("secret").join("secret.csv");
    std::fs::write(&secret, "root:x:0:0:SECRET-LINE\n").unwrap();
    for key in ["inputs", "snapshot"] {
        let expect = if key == "snapshot" {
            format!(
                r#"[{{"snapshot": {}}}]"#,
                serde_json::to_string(&secret).unwrap()
            )
        } else {
            "[]".into()
        };
        let inputs = if key == "inputs" {
            format!(r#""inputs": {},"#, serde_json::to_string(&secret).unwrap())
        } else {
            String::new()
        };
        let test = format!(
            r#"{{"entity": "h:e", "packs": ["../pack"], {inputs} "seconds": 0.1, "expect": {expect}}}"#
        );
        let (dir, _) = test_dir_with(&format!("echo-{key}"), &test);
        let out = run(&["test", dir.join("tests").to_str().unwrap()]);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_code(&out, 2);
        assert_contains(&all, "is an absolute path");
        assert!(!all.contains("SECRET-LINE"), "{all}");
    }
}

#[test]
fn inputs_may_come_from_the_pack_the_tests_sit_in() {
    // PACK/tests/x.test.json reads PACK/inputs/x.csv (the examples' layout) but nothing above.
    let (dir, file) = test_dir_with("inputs-up", "");
    std::fs::write(dir.join("pack/manifest.json"), "{}").unwrap();
    std::fs::create_dir_all(dir.join("pack/tests")).unwrap();
    std::fs::create_dir_all(dir.join("pack/inputs")).unwrap();
    std::fs::write(dir.join("pack/inputs/in.csv"), "t,q.ground_speed\n0,1\n").unwrap();
    let _ = std::fs::remove_file(file);
    let ok = format!(
        r#"{{"entity": {}, "packs": [".."], "inputs": "../inputs/in.csv", "seconds": 0.1, "expect": [{{"at": 0, "v.speed": 1}}]}}"#,
        json_str(&format!("h:e{EVIL}"))
    );
    std::fs::write(dir.join("pack/tests/ok.test.json"), &ok).unwrap();
    let out = run(&["test", dir.join("pack/tests").to_str().unwrap()]);
    assert_code(&out, 0);
    let far = ok.replace("../inputs/in.csv", "../../pack/inputs/in.csv");
    std::fs::write(dir.join("pack/tests/ok.test.json"), far).unwrap();
    let out = run(&["test", dir.join("pack/tests").to_str().unwrap()]);
    assert_code(&out, 2);
    assert_contains(
        &text(&out.stderr),
        "leads out of the test file's folder or the pack it is in",
    );
}

/// The CSV records of a trace, fields unquoted.
fn records(csv: &str) -> Vec<Vec<String>> {
    molang::text::csv_lines(csv)
        .map(|r| {
            molang::text::csv_split(r.unwrap().1)
                .unwrap()
                .into_iter()
                .map(|(_, f)| f.into_owned())
                .collect()
        })
        .collect()
}

#[test]
fn trace_fields_are_quoted_and_read_back() {
    let dir = hostile_pack("csv-quote");
    let pack = dir.join("pack");
    let out = run(&[
        "run",
        pack.to_str().unwrap(),
        "--entity",
        &format!("h:e{EVIL}"),
        "--seconds",
        "0.05",
        "--fps",
        "20",
        "--vars",
    ]);
    assert_code(&out, 0);
    let csv = text(&out.stdout);
    let rows = records(&csv);
    // Header and one row per bone: the names did not start rows or columns of their own.
    assert_eq!(rows.len(), 5, "{csv}");
    assert!(rows.iter().all(|r| r.len() == rows[0].len()), "{rows:?}");
    let names: Vec<&str> = rows[1..].iter().map(|r| r[2].as_str()).collect();
    assert_eq!(
        names,
        ["body", "b\ntouch x #", "a,b\"q", &format!("z{EVIL}")]
    );

    // `molang test` writes the same quoting and reads it back.
    let test = r#"{"entity": "h:e\u001b]0;x\u0007\u001b[2J", "packs": ["../pack"], "seconds": 0.5, "expect": [{"snapshot": "h.csv"}]}"#;
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("tests/h.test.json"), test).unwrap();
    let tests = dir.join("tests");
    assert_code(&run(&["test", "--bless", tests.to_str().unwrap()]), 0);
    let snap = std::fs::read_to_string(tests.join("h.csv")).unwrap();
    assert_eq!(records(&snap).len(), 1 + 10 * 4, "{snap}");
    let out = run(&["test", tests.to_str().unwrap()]);
    assert_code(&out, 0);
}

#[test]
fn inline_inputs_of_different_lengths_are_refused() {
    let test = r#"{"entity": "h:e", "packs": ["../pack"], "seconds": 1,
  "inputs": {"t": [0, 0.5, 1], "q.ground_speed": [1]}}"#;
    // (The entity is not looked up: the file is refused first.)
    let (dir, file) = test_dir_with("inline-len", test);
    let out = run(&["test", dir.join("tests").to_str().unwrap()]);
    assert_refused_at(
        &out,
        &file,
        "2:32: inputs.q.ground_speed has 1 values but inputs.t has 3",
    );
}

/// `seconds` × `fps` of a test file is bounded like `molang run --seconds/--fps`, and
/// lower: a test keeps every frame. 3600 s at 10000 fps (each in range on its own) asked for
/// 36,000,000 recorded frames, gigabytes before the first expectation was checked.
#[test]
fn a_test_files_frame_count_is_refused_at_its_line() {
    let pack = support::examples().join("classic_mobs");
    let test = format!(
        "{{\"entity\": \"classic:spider\", \"packs\": [{}],\n  \"fps\": 10000,\n  \"seconds\": 3600}}",
        json_str(pack.to_str().unwrap())
    );
    let dir = Scratch::new("frames");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("long.test.json");
    std::fs::write(&file, test).unwrap();
    let start = Instant::now();
    let out = molang_limited(1024, &["test", file.to_str().unwrap()]);
    assert_refused_at(
        &out,
        &file,
        "3:14: seconds 3600 at fps 10000 is 36000000 frames; a test has at most 1000000",
    );
    assert!(start.elapsed() < Duration::from_secs(20));
}

// ---- 6. Terminal escapes -------------------------------------------------------------

#[test]
fn names_cannot_drive_the_terminal() {
    let dir = hostile_pack("escapes");
    let pack = dir.join("pack");
    let p = pack.to_str().unwrap();
    let id = format!("h:e{EVIL}");
    let findings = dir.join("findings").display().to_string();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("check", vec!["check", p]),
        ("run --list", vec!["run", p, "--list"]),
        (
            "run",
            vec![
                "run",
                p,
                "--entity",
                &id,
                "--seconds",
                "0.1",
                "--out",
                "/dev/null",
            ],
        ),
        (
            "run --bench",
            vec!["run", p, "--bench", "--seconds", "0.05"],
        ),
        (
            "run --channels",
            vec![
                "run",
                p,
                "--entity",
                &id,
                "--plot",
                "/dev/null",
                "--channels",
                "nope.rx",
            ],
        ),
        (
            "fuzz",
            vec![
                "fuzz",
                p,
                "--entity",
                &id,
                "--cases",
                "2",
                "--frames",
                "3",
                "--out-dir",
                &findings,
            ],
        ),
        (
            "bench",
            vec!["bench", p, "--entity", &id, "--iterations", "10"],
        ),
    ];
    for (what, args) in &cases {
        let out = run(args);
        assert_terminal_safe(what, &out.stdout);
        assert_terminal_safe(what, &out.stderr);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(
            all.contains("\\u{1b}]0;x\\u{7}\\u{1b}[2J")
                || *what == "bench" && all.contains("ns/frame"),
            "{what}: the name is not shown escaped:\n{all}"
        );
    }
    // `molang test`, human output, with a failing expectation naming the bone.
    let test = r#"{"name": "t\u001b[2J", "entity": "h:e\u001b]0;x\u0007\u001b[2J", "packs": ["../pack"], "seconds": 0.1,
        "expect": [{"at": 0, "bone": "z\u001b]0;x\u0007\u001b[2J", "rx": 5}]}"#;
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("tests/e.test.json"), test).unwrap();
    let out = run(&["test", dir.join("tests").to_str().unwrap()]);
    assert_code(&out, 1);
    assert_terminal_safe("test", &out.stdout);
    assert_terminal_safe("test", &out.stderr);
    assert_contains(&text(&out.stdout), "t\\u{1b}[2J");
}

// ---- 10, 11. Flags -------------------------------------------------------------------

#[test]
fn huge_counts_in_flags_are_refused_up_front() {
    let pack = support::examples().join("classic_mobs");
    let p = pack.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["fuzz", p, "--entity", "classic:spider", "--frames", "10000000000"],
            "invalid value '10000000000' for '--frames <FRAMES>': must be between 1 and 100000",
        ),
        (
            &["run", p, "--bench", "--entity", "classic:spider", "--instances", "1000000000000"],
            "invalid value '1000000000000' for '--instances <N>': must be between 1 and 100000",
        ),
        (
            &["run", p, "--bench", "--entity", "classic:spider", "--instances", "2", "--threads", "1000000"],
            "invalid value '1000000' for '--threads <T>': must be between 1 and 256",
        ),
        (
            &["run", p, "--entity", "classic:spider", "--seconds", "1e8"],
            "--seconds 100000000 at --fps 60 is 6000000000 frames; a run has at most 100000000 (1e8)",
        ),
        (
            &["run", p, "--entity", "classic:spider", "--fps", "-1"],
            "--fps must be above 0 and at most 100000, got -1",
        ),
    ];
    for (args, message) in cases {
        let start = Instant::now();
        let out = molang_limited(1024, args);
        assert_code(&out, 2);
        assert_contains(&text(&out.stderr), message);
        assert!(start.elapsed() < Duration::from_secs(20), "{args:?}");
    }
}

#[test]
fn fmt_counts_only_files_it_wrote() {
    let dir = Scratch::new("fmt-fail");
    write_in(
        &dir,
        "pack/animations/a.animation.json",
        r#"{"format_version":"1.8.0","animations":{"animation.a":{"bones":{"b":{"rotation":["q.life_time*2",0,0]}}}}}"#,
    );
    // No file may grow past 0 bytes (and the signal that would kill the process is
    // ignored): every write fails, even as root.
    let bin = env!("CARGO_BIN_EXE_molang");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 0 && exec '{bin}' fmt --write '{}'",
            dir.join("pack").display()
        ))
        .output()
        .unwrap();
    assert_code(&out, 2);
    let stdout = text(&out.stdout);
    assert_contains(&stdout, "0 files reformatted, 1 could not be written");
    assert_contains(&text(&out.stderr), "a.animation.json: cannot write it");
}

// ---- 9, 11. Input files --------------------------------------------------------------

#[test]
fn a_line_of_fifty_million_commas_is_refused_in_bounded_memory() {
    let dir = Scratch::new("commas");
    let inputs = dir.join("in.csv");
    support::write_fifty_million_commas(&inputs);
    let pack = support::examples().join("classic_mobs");
    let start = Instant::now();
    let inputs_arg = inputs.to_str().unwrap();
    let spider = [
        "--entity",
        "classic:spider",
        "--inputs",
        inputs_arg,
        "--seconds",
        "0.1",
    ];
    let out = limited_on(600, "run", &pack, &spider);
    assert_refused_at(&out, &inputs, "2:1: the line is longer than 1048576 bytes");
    assert!(start.elapsed() < Duration::from_secs(30));
    // Many short fields: counted before anything is split.
    std::fs::write(
        &inputs,
        format!("t,q.ground_speed\n0{}\n", ",1".repeat(5000)),
    )
    .unwrap();
    let out = run_spider_with(&inputs);
    assert_code(&out, 2);
    assert_contains(
        &text(&out.stderr),
        "2:1: 5001 fields; a CSV line holds at most 4096",
    );
}

#[test]
fn a_huge_bad_cell_is_not_echoed_whole() {
    let dir = Scratch::new("bigcell");
    let inputs = dir.join("in.csv");
    let cell = "x".repeat(900_000);
    std::fs::write(&inputs, format!("t,q.ground_speed\n0,{cell}\n")).unwrap();
    let out = run_spider_with(&inputs);
    assert_code(&out, 2);
    let stderr = text(&out.stderr);
    assert!(stderr.len() < 1_000, "{} bytes of message", stderr.len());
    assert_contains(&stderr, "… (899940 more bytes)` is not a number");
}

#[test]
fn a_line_that_is_not_utf8_is_named_and_the_batch_goes_on() {
    let lines =
        batch_answers(b"{\"expr\": \"1+1\"}\n{\"expr\": \"\xff\xfe\"}\n{\"expr\": \"2*3\"}\n");
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["value"], 2.0);
    assert_eq!(
        lines[1]["diagnostics"][0]["message"],
        "line 2 is not UTF-8 text (invalid byte at column 11)"
    );
    assert_eq!(lines[2]["value"], 6.0);
}

#[test]
fn eval_batch_memory_stays_bounded_over_many_distinct_expressions() {
    // 200,000 distinct expressions kept 760 MB before the cache was capped.
    let mut input = Vec::new();
    for i in 0..200_000 {
        writeln!(input, "{{\"expr\": \"q.x * {i} + math.sin({i})\"}}").unwrap();
    }
    let bin = env!("CARGO_BIN_EXE_molang");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {} && exec '{bin}' eval --batch - --backend interp",
            500 * 1024
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_code(&out, 0);
    assert_eq!(stdout.lines().count(), 200_000);
    assert!(stdout.lines().last().unwrap().contains("\"value\""));
}

// ---- Pack walks: file size and count, memory that follows the Molang -----------------

/// `molang SUBCOMMAND PACK EXTRA...` with its address space limited to `mb` megabytes.
fn limited_on(mb: u64, subcommand: &str, pack: &Path, extra: &[&str]) -> Output {
    let mut args = vec![subcommand, pack.to_str().unwrap()];
    args.extend_from_slice(extra);
    molang_limited(mb, &args)
}

/// A resource pack folder `name` with a manifest, and the path of its one client entity file
/// (its folder made, the file not written).
fn entity_pack(name: &str) -> (Scratch, PathBuf) {
    let dir = Scratch::new(name);
    write_in(
        &dir,
        "rp/manifest.json",
        r#"{"format_version":2,"header":{"name":"p","uuid":"00000000-0000-4000-8000-000000000001","version":[1,0,0]},"modules":[{"type":"resources","uuid":"00000000-0000-4000-8000-000000000002","version":[1,0,0]}]}"#,
    );
    let big = dir.join("rp/entity/big.entity.json");
    std::fs::create_dir_all(big.parent().unwrap()).unwrap();
    (dir, big)
}

/// A resource pack with one client entity and `pad` bytes of spaces in it.
fn padded_pack(name: &str, pad: usize) -> (Scratch, PathBuf) {
    let (dir, big) = entity_pack(name);
    let mut f = std::fs::File::create(&big).unwrap();
    f.write_all(br#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:big","scripts":{"pre_animation":["v.x = 1;"]}}}}"#).unwrap();
    f.write_all(&vec![b' '; pad]).unwrap();
    (dir, big)
}

/// The diagnostics of `molang check --format json` (one object per line).
fn json_diagnostics(out: &Output) -> Vec<serde_json::Value> {
    text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|d| d.get("code").is_some())
        .collect()
}

#[test]
fn a_file_past_the_size_limit_is_not_read() {
    // 33 MiB: past the default limit. Read, its tree alone would take far more than the
    // address space given.
    let (dir, big) = padded_pack("bigfile", 33 << 20);
    let out = limited_on(400, "check", &dir.join("rp"), &["--format", "json"]);
    assert_code(&out, 1);
    let diags = json_diagnostics(&out);
    let d = diags
        .iter()
        .find(|d| d["code"] == "E0706")
        .unwrap_or_else(|| panic!("no E0706 in {diags:?}\n{}", text(&out.stderr)));
    assert_eq!(d["file"], big.to_str().unwrap(), "{d}");
    assert_contains(
        d["message"].as_str().unwrap(),
        "the file is 33.0 MiB, larger than the 32 MiB a file may have; it is not read or checked",
    );
    // `[limits]` in molang.toml sets it: the same file under 64 MiB is read and checked.
    std::fs::write(dir.join("rp/molang.toml"), "[limits]\nfile_size_mib = 64\n").unwrap();
    let out = run(&[
        "check",
        dir.join("rp").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_code(&out, 0);
    assert!(json_diagnostics(&out).iter().all(|d| d["code"] != "E0706"));
}

#[test]
fn a_walk_stops_past_the_file_count_limit_in_bounded_memory() {
    // 100,000 JSON files once grew past 20 GB; the walk now stops after 20,000.
    let dir = Scratch::new("manyfiles");
    let ui = dir.join("p/animations");
    std::fs::create_dir_all(&ui).unwrap();
    for i in 0..20_010 {
        std::fs::write(
            ui.join(format!("f{i:05}.json")),
            r#"{"format_version":"1.8.0","animations":{}}"#,
        )
        .unwrap();
    }
    let start = Instant::now();
    let out = limited_on(600, "check", &dir.join("p"), &["--format", "json"]);
    assert_code(&out, 1);
    let limit: Vec<_> = json_diagnostics(&out)
        .into_iter()
        .filter(|d| d["code"] == "E0706")
        .collect();
    assert_eq!(limit.len(), 1, "{limit:?}");
    // Folders are walked in name order: the 20,001st file is where it stopped.
    assert_eq!(
        limit[0]["file"],
        ui.join("f20000.json").to_str().unwrap(),
        "{limit:?}"
    );
    assert_contains(
        limit[0]["message"].as_str().unwrap(),
        "the packs hold more than 20000 JSON files; the walk stopped at this one and read no more",
    );
    assert!(start.elapsed() < Duration::from_secs(60));
    // A lower limit from molang.toml.
    std::fs::write(dir.join("p/molang.toml"), "[limits]\nfiles = 100\n").unwrap();
    let out = run(&["check", dir.join("p").to_str().unwrap(), "--format", "json"]);
    let limit: Vec<_> = json_diagnostics(&out)
        .into_iter()
        .filter(|d| d["code"] == "E0706")
        .collect();
    assert_eq!(limit.len(), 1, "{limit:?}");
    // A folder of far more entries than that is not even listed whole.
    assert_eq!(limit[0]["file"], ui.to_str().unwrap());
    assert_contains(
        limit[0]["message"].as_str().unwrap(),
        "the folder holds more than 1024 entries, past what a walk of at most 100 JSON files lists",
    );
}

#[allow(dead_code)]
#[path = "../../../benches/support/gen_pack.rs"]
mod gen_pack;

#[test]
fn check_memory_follows_the_json_read() {
    // The benchmark's generated add-on: 50,000 expressions, 4,076 files, 39.5 MB of JSON.
    // `molang check` once read every file before parsing and let the parse run ahead of the
    // walk without bound: it needed more than 450 MB of address space here (peak resident
    // 261 MB); now a group of files at a time, about 180 MB (peak resident ~110 MB).
    let dir = Scratch::new("genpack");
    let out_dir = dir.join("gen");
    let stats = gen_pack::generate(&out_dir, 50_000, 1).unwrap();
    let json_mb = stats.bytes / 1_000_000;
    assert!(json_mb >= 35, "{stats:?}");
    // Address space, not resident memory (74 MB at peak): the binary, its thread stacks and
    // the allocator's reservations (glibc reserves 64 MB of address space per thread arena)
    // take a fixed share whatever the input (a tiny pack checks within it).
    let out = molang_limited(
        128 + 4 * json_mb,
        &[
            "check",
            out_dir.join("resource_pack").to_str().unwrap(),
            out_dir.join("behavior_pack").to_str().unwrap(),
        ],
    );
    let stdout = text(&out.stdout);
    assert_code(&out, 0);
    assert_contains(&stdout, &format!("{} files", stats.files));
}

// ---- 3. The language server: framing ---------------------------------------------------

struct Lsp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl Lsp {
    fn start() -> Lsp {
        let bin = env!("CARGO_BIN_EXE_molang");
        // 1 GB of address space: a server that believed a Content-Length would abort.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {} && exec '{bin}' lsp", 1024 * 1024))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        Lsp { child, stdin, out }
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, v: serde_json::Value) {
        let body = v.to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// The next message the server writes.
    fn recv(&mut self) -> serde_json::Value {
        use std::io::BufRead;
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            assert!(
                self.out.read_line(&mut line).unwrap() > 0,
                "the server ended"
            );
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some(v) = l.strip_prefix("Content-Length: ") {
                len = v.parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        self.out.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// The next response (log notifications on the way are collected).
    fn response(&mut self, logs: &mut Vec<String>) -> serde_json::Value {
        loop {
            let m = self.recv();
            if m.get("id").is_some() {
                return m;
            }
            if m["method"] == "window/logMessage" {
                logs.push(m["params"]["message"].as_str().unwrap().to_string());
            }
        }
    }

    /// A server started and initialized without a workspace.
    fn initialized() -> Lsp {
        let mut s = Lsp::start();
        s.initialize();
        s
    }

    fn initialize(&mut self) {
        self.initialize_with(
            serde_json::json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
    }

    /// `initialize` with these parameters, answered with capabilities, then `initialized`.
    fn initialize_with(&mut self, params: serde_json::Value) {
        self.send(
            serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}),
        );
        let r = self.response(&mut Vec::new());
        assert!(r["result"]["capabilities"].is_object(), "{r}");
        self.send(serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    }

    /// Sends `exit`; the code the server exits with.
    fn exit(mut self) -> Option<i32> {
        self.send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
        self.exit_code()
    }

    fn ping(&mut self, id: i64, logs: &mut Vec<String>) -> serde_json::Value {
        self.send(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": "file:///nowhere.json"}, "position": {"line": 0, "character": 0}}}));
        self.response(logs)
    }

    fn exit_code(mut self) -> Option<i32> {
        drop(self.stdin);
        let start = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code();
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the server did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Issue item 4 for the language server: a FIFO (and a link to `/dev/zero`) in the workspace
/// folder made it read forever, and `initialize` was never answered. A watchdog ends the
/// server after 60 s, so a hang fails the test instead of stalling it.
#[cfg(unix)]
#[test]
fn lsp_answers_initialize_over_a_pack_holding_a_fifo() {
    let dir = Scratch::new("lsp-fifo");
    std::fs::create_dir_all(dir.join("animations")).unwrap();
    std::fs::write(
        dir.join("animations/a.json"),
        r#"{"animations": {"animation.t.a": {"anim_time_update": "q.anim_time"}}}"#,
    )
    .unwrap();
    assert!(Command::new("mkfifo")
        .arg(dir.join("animations/pipe.json"))
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink("/dev/zero", dir.join("animations/zero.json")).unwrap();
    let mut s = Lsp::start();
    let pid = s.child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(60) {
                if done.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        })
    };
    let uri = format!("file://{}", dir.display());
    s.initialize_with(
        serde_json::json!({"processId": null, "rootUri": uri, "capabilities": {},
        "workspaceFolders": [{"uri": uri, "name": "p"}]}),
    );
    // Answered once the workspace is read.
    s.send(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
    let r = s.response(&mut Vec::new());
    assert_eq!(r["id"], 1, "{r}");
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    watchdog.join().unwrap();
    assert_eq!(s.exit(), Some(0));
}

#[test]
fn lsp_refuses_huge_content_lengths_and_keeps_serving() {
    let mut s = Lsp::initialized();
    let mut logs = Vec::new();
    for (i, n) in ["18446744073709551615", "1000000000000", "67108865"]
        .iter()
        .enumerate()
    {
        let id = 100 + i as i64;
        s.raw(format!("Content-Length: {n}\r\n\r\n{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"textDocument/hover\"}}").as_bytes());
        let r = s.response(&mut logs);
        assert_eq!(r["id"], id, "{r}");
        assert_eq!(r["error"]["code"], -32600, "{r}");
        assert_contains(
            r["error"]["message"].as_str().unwrap(),
            "larger than the 64 MiB",
        );
        let r = s.ping(i as i64 + 1, &mut logs);
        assert_eq!(r["id"], i as i64 + 1, "the server still answers: {r}");
    }
    s.send(serde_json::json!({"jsonrpc": "2.0", "id": 50, "method": "shutdown"}));
    assert_eq!(s.response(&mut logs)["result"], serde_json::Value::Null);
    assert_eq!(s.exit(), Some(0));
}

#[test]
fn lsp_framing_errors_are_answered_or_logged_never_fatal() {
    let mut s = Lsp::initialized();
    let mut logs = Vec::new();
    let broken: [&[u8]; 4] = [
        b"Content-Length: 10\r\n\r\n{not json}",
        b"Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}",
        b"Content-Length: abc\r\n\r\n{}",
        b"Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}",
    ];
    for (i, b) in broken.iter().enumerate() {
        s.raw(b);
        let r = s.ping(i as i64 + 1, &mut logs);
        assert_eq!(r["id"], i as i64 + 1, "after {:?}: {r}", text(b));
    }
    assert_eq!(logs.len(), 4, "{logs:?}");
    assert_contains(&logs[0], "not JSON");
    assert_contains(&logs[1], "without Content-Length");
    assert_contains(&logs[2], "`Content-Length: abc` is not a length");
    assert_contains(&logs[3], "not a JSON-RPC request");
    // With an id, the client gets an answer.
    s.send(serde_json::json!({"jsonrpc": "2.0", "id": 77}));
    s.send(serde_json::json!({"jsonrpc": "2.0", "id": "a", "params": 1}));
    for id in [serde_json::json!(77), serde_json::json!("a")] {
        let r = s.response(&mut logs);
        assert_eq!(r["id"], id, "{r}");
        assert_eq!(r["error"]["code"], -32600, "{r}");
    }
    // After shutdown: requests are refused, exit ends with 0.
    s.send(serde_json::json!({"jsonrpc": "2.0", "id": 90, "method": "shutdown"}));
    assert_eq!(s.response(&mut logs)["id"], 90);
    let r = s.ping(91, &mut logs);
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert_eq!(s.exit(), Some(0));
}

#[test]
fn lsp_exit_without_shutdown_is_code_1() {
    let s = Lsp::initialized();
    assert_eq!(s.exit(), Some(1));
}

#[test]
fn run_refuses_a_huge_script_array_in_bounded_memory() {
    // Defect 9's reproduction: a client entity whose `pre_animation` is a huge array of
    // entries (86 MB once needed 5 GB in `run`). Past the file-size limit it is not read:
    // `run` names the file and the limit inside a 400 MB address space.
    let (dir, big) = entity_pack("bigscripts");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&big).unwrap());
    f.write_all(br#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:big","scripts":{"pre_animation":["#).unwrap();
    for i in 0..3_000_000u32 {
        if i > 0 {
            f.write_all(b",").unwrap();
        }
        f.write_all(b"\"v.a = v.a + 1;\"").unwrap();
    }
    f.write_all(b"]}}}}").unwrap();
    drop(f);
    assert!(std::fs::metadata(&big).unwrap().len() > 33 << 20);
    let out = limited_on(
        400,
        "run",
        &dir.join("rp"),
        &["--entity", "t:big", "--seconds", "1"],
    );
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert_contains(&err, "E0706");
    assert_contains(&err, "larger than the 32 MiB a file may have");
}
