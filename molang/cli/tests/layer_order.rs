//! One layer order for every command: packs stack in the order written on the command line,
//! `--pack` and positional paths alike, and a later layer wins. Each test builds two packs
//! `A` and `B` that both define the client entity `t:e` (in files of different names, so
//! only the identifier rule can decide) and shows which one the command used.

mod support;
use support::{assert_code, molang, molang_on, scratch, text, write_in};

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

const MANIFEST: &str = r#"{"format_version": 2, "header": {"name": "t", "uuid": "u", "version": [1, 0, 0], "min_engine_version": [1, 21, 0]},
    "modules": [{"type": "resources", "uuid": "m", "version": [1, 0, 0]}]}"#;

/// A resource pack `dir/name` whose entity `t:e` runs `script` before each frame.
fn pack(dir: &Path, name: &str, script: &str) -> PathBuf {
    let root = dir.join(name);
    write_in(&root, "manifest.json", MANIFEST);
    write_in(
        &root,
        &format!("entity/{name}.entity.json"),
        format!(
            r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{
                "identifier": "t:e", "scripts": {{"pre_animation": ["{script}"]}}}}}}}}"#
        ),
    );
    root
}

/// A scratch folder `name` with the packs `a` and `b` of [`pack`]: the folder and the packs.
fn two_packs(name: &str, a: &str, b: &str) -> (PathBuf, PathBuf, PathBuf) {
    let d = scratch(name);
    let (a, b) = (pack(&d, "a", a), pack(&d, "b", b));
    (d, a, b)
}

/// `molang SUBCOMMAND LAYERS... FLAGS...`, `flags` as on a command line (split at white space).
fn layered(subcommand: &str, layers: &[&OsStr], flags: &str) -> Output {
    let mut cmd = molang();
    cmd.arg(subcommand).args(layers);
    cmd.args(flags.split_whitespace()).output().unwrap()
}

#[test]
fn check_stacks_pack_flags_and_paths_in_the_order_written() {
    let (_, a, b) = two_packs("order-check", "v.x = v.from_a;", "v.x = v.from_b;");
    let out = |args: &[&OsStr]| text(&layered("check", args, "").stdout);
    // `B --pack A`: A is written last, so A's entity is the one judged.
    let got = out(&[b.as_os_str(), "--pack".as_ref(), a.as_os_str()]);
    assert!(got.contains("from_a") && !got.contains("from_b"), "{got}");
    let got = out(&["--pack".as_ref(), b.as_os_str(), a.as_os_str()]);
    assert!(got.contains("from_a") && !got.contains("from_b"), "{got}");
    let got = out(&[a.as_os_str(), "--pack".as_ref(), b.as_os_str()]);
    assert!(got.contains("from_b") && !got.contains("from_a"), "{got}");
}

/// `molang run ARGS --entity t:e --vars` for one frame: the value of `v.x`.
fn run_x(args: &[&OsStr]) -> String {
    let o = layered("run", args, "--entity t:e --vars --seconds 0.05 --fps 20");
    assert_code(&o, 0);
    let out = text(&o.stdout);
    let row = out.lines().nth(1).unwrap_or_default().to_string();
    row.rsplit(',').next().unwrap_or_default().to_string()
}

#[test]
fn run_stacks_pack_flags_and_paths_in_the_order_written() {
    let (_, a, b) = two_packs("order-run", "v.x = 1;", "v.x = 2;");
    assert_eq!(run_x(&[a.as_os_str(), b.as_os_str()]), "2");
    assert_eq!(
        run_x(&["--pack".as_ref(), a.as_os_str(), b.as_os_str()]),
        "2"
    );
    assert_eq!(
        run_x(&[b.as_os_str(), "--pack".as_ref(), a.as_os_str()]),
        "1"
    );
}

#[test]
fn fuzz_takes_several_packs_in_the_order_written() {
    let (d, a, b) = two_packs(
        "order-fuzz",
        "v.x = 1;",
        "v.x = math.sqrt(-1 - q.ground_speed);",
    );
    let findings = d.join("findings");
    let fuzz = |args: &[&OsStr]| {
        let out_dir: [&OsStr; 2] = ["--out-dir".as_ref(), findings.as_os_str()];
        layered(
            "fuzz",
            &[args, &out_dir].concat(),
            "--entity t:e --cases 3 --frames 2",
        )
    };
    // B on top: its NaN is found.
    let o = fuzz(&[a.as_os_str(), b.as_os_str()]);
    assert_code(&o, 1);
    // A on top, written with --pack after B.
    let o = fuzz(&[b.as_os_str(), "--pack".as_ref(), a.as_os_str()]);
    assert_code(&o, 0);
}

#[test]
fn bench_takes_several_packs_in_the_order_written() {
    let (_, a, b) = two_packs("order-bench", "v.x = 1;", "v.x = v.unset_in_b;");
    let bench = |args: &[&OsStr]| {
        let o = layered(
            "bench",
            args,
            "--entity t:e --iterations 5 --backend interp",
        );
        assert_code(&o, 0);
        text(&o.stderr)
    };
    let err = bench(&[a.as_os_str(), b.as_os_str()]);
    assert!(err.contains("unset_in_b"), "{err}");
    let err = bench(&["--pack".as_ref(), b.as_os_str(), a.as_os_str()]);
    assert!(!err.contains("unset_in_b"), "{err}");
}

#[test]
fn test_files_stack_their_packs_in_order() {
    let d = scratch("order-test");
    pack(&d, "a", "v.x = 1;");
    pack(&d, "b", "v.x = 2;");
    let case = |packs: &str, want: u32| {
        format!(
            r#"[{{"name": "x", "entity": "t:e", "packs": {packs}, "fps": 20, "seconds": 0.1,
                "expect": [{{"at": 0, "v.x": {want}}}]}}]"#
        )
    };
    write_in(&d, "tests/ab.test.json", case(r#"["../a", "../b"]"#, 2));
    write_in(&d, "tests/ba.test.json", case(r#"["../b", "../a"]"#, 1));
    let o = molang_on("test", d.join("tests"), &[]);
    assert_code(&o, 0);
}

#[test]
fn the_language_server_stacks_workspace_folders_in_order() {
    let (_, a, b) = two_packs("order-lsp", "v.x = 1;", "v.x = 2;");
    for (roots, winner) in [([&a, &b], "b.entity.json"), ([&b, &a], "a.entity.json")] {
        let roots: Vec<PathBuf> = roots.iter().map(|p| p.to_path_buf()).collect();
        let ws = molang_cli::lsp::state::Workspace::new(&roots);
        let e: Vec<_> = ws.pack.entities.iter().collect();
        assert_eq!(e.len(), 1);
        assert!(ws.pack.files[e[0].file].path.ends_with(winner));
    }
}
