//! The `molang` binary end to end: the README's quick start and the eval interfaces.

mod support;
use support::{
    assert_contains, check_as_json, eval_batch, fixture, json_lines, molang, molang_on, vanilla_rp,
    write_in,
};

fn example_pack() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mistakes_pack")
}

#[test]
fn check_example_pack_reports_every_mistake_and_exits_1() {
    let out = check_as_json(&example_pack());
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l.get("summary").is_none())
        .collect();
    let codes: Vec<&str> = lines.iter().map(|l| l["code"].as_str().unwrap()).collect();
    for want in [
        "E0108", "E0202", "E0102", "E0203", "W0205", "E0601", "E0105", "W0604",
    ] {
        assert!(codes.contains(&want), "missing {want} in {codes:?}");
    }
    // Positions point into the JSON file: math.max(...) in the entity's pre_animation.
    let arity = lines.iter().find(|l| l["code"] == "E0203").unwrap();
    assert!(arity["file"]
        .as_str()
        .unwrap()
        .ends_with("walker.entity.json"));
    assert_eq!(
        (arity["line"].as_u64(), arity["column"].as_u64()),
        (Some(16), Some(21))
    );
    assert_eq!(
        arity["message"],
        "math.max takes exactly 2 arguments, found 3"
    );
}

#[test]
fn check_human_output_has_summary_line() {
    let out = molang_on("check", example_pack(), &[]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_contains(&stdout, "4 files, 13 expressions: 7 errors, 5 warnings");
}

#[test]
fn check_expr_and_usage_errors() {
    let ok = molang()
        .args(["check", "--expr", "math.cos(q.anim_time * 38.17) * 80"])
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let bad = molang()
        .args(["check", "--expr", "math.max(1, 2, 3)"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let legacy = molang()
        .args(["check", "--expr", "v.a ? v.b ? 1 : 2 : 3", "--version", "4"])
        .output()
        .unwrap();
    assert_eq!(legacy.status.code(), Some(1));
    let missing = molang()
        .args(["check", "/nonexistent/pack"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn eval_prints_shortest_f32() {
    let run = |args: &[&str]| {
        let out = molang().arg("eval").args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap().trim().to_string(),
        )
    };
    assert_eq!(run(&["7 * 3 / 9"]), (Some(0), "2.3333335".into()));
    assert_eq!(
        run(&[
            "math.clamp(q.anger_level / 80 * 1.5, 0, 1.5)",
            "--set",
            "query.anger_level=40"
        ]),
        (Some(0), "0.75".into())
    );
    assert_eq!(run(&["v.x * 2", "--set", "v.x=2.5"]), (Some(0), "5".into()));
    assert_eq!(
        run(&["1 || 0 && 0", "--version", "5"]),
        (Some(0), "0".into())
    );
    assert_eq!(run(&["math.max(1, 2, 3)"]).0, Some(1));
}

#[test]
fn eval_batch_keeps_going_after_bad_lines() {
    let out = eval_batch(&[], b"{\"expr\": \"v.x = 2; return v.x * q.a;\", \"set\": {\"q.a\": 1.5}}\nnot json\n{\"expr\": \"math.sqrt(-1)\"}\n{\"expr\": \"t.x\"}\n");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["value"], 3.0);
    assert!(lines[1]["value"].is_null());
    assert_eq!(lines[2]["value"], "NaN");
    assert_eq!(lines[3]["aborted"], true);
}

#[test]
fn bench_prints_one_line_per_backend() {
    let out = molang()
        .args([
            "bench",
            "--expr",
            "math.clamp(q.anger_level / 80 * 1.5, 0, 1.5)",
            "--set",
            "q.anger_level=40",
            "--iterations",
            "2000",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("interp: ") && lines[0].ends_with(" ns/eval"));
    assert!(lines[1].starts_with("jit: ") && lines[1].ends_with(" ns/eval"));
}

#[test]
fn bench_entity_times_per_frame_scripts() {
    let dir = std::env::temp_dir().join(format!("molang-bench-entity-{}", std::process::id()));
    write_in(
        &dir,
        "entity/e.json",
        r#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:e","scripts":{
            "initialize":["v.t = 0;"],
            "pre_animation":["v.t = v.t + q.delta_time;","v.bob = math.sin(v.t * 90) * 2;"]}}}}"#,
    );
    let out = molang_on(
        "bench",
        &dir,
        &[
            "--entity",
            "t:e",
            "--iterations",
            "1000",
            "--set",
            "q.delta_time=0.05",
        ],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for part in ["interp: ", "jit: ", " ns/frame"] {
        assert_contains(&stdout, part);
    }
    let missing = molang_on("bench", &dir, &["--entity", "t:nope"]);
    assert_eq!(missing.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// JSON lines of `molang check ARGS` that concern files under `under`.
/// `check --format json --pack VANILLA --pack ADDON`: the add-on layered over vanilla.
fn check_over_vanilla(addon: &std::path::Path) -> Vec<serde_json::Value> {
    let layers = [
        "--pack".into(),
        vanilla_rp().into(),
        "--pack".into(),
        addon.into(),
    ];
    check_json(&layers, addon)
}

fn check_json(args: &[std::ffi::OsString], under: &std::path::Path) -> Vec<serde_json::Value> {
    let out = molang()
        .args(["check", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let under = under.display().to_string();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        // The last line is the {"summary": ...} object.
        .filter(|l| l["file"].as_str().is_some_and(|f| f.starts_with(&under)))
        .collect()
}

/// Asserts that `diagnostics` is one diagnostic `code`, in a file whose path ends with `file`.
#[track_caller]
fn assert_only(diagnostics: &[serde_json::Value], code: &str, file: &str) {
    let codes: Vec<&str> = diagnostics
        .iter()
        .map(|l| l["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, [code], "{diagnostics:?}");
    let path = diagnostics[0]["file"].as_str().unwrap();
    assert!(path.ends_with(file), "{path}");
}

#[test]
fn check_pack_flags_layer_an_addon_over_vanilla() {
    let addon = fixture("addon_over_vanilla/RP");
    let alone = check_json(&[addon.clone().into()], &addon);
    assert!(
        alone.iter().any(|l| l["code"] == "W0805"
            && l["message"]
                .as_str()
                .unwrap()
                .contains("animation.common.look_at_target")),
        "{alone:?}"
    );
    let layered = check_over_vanilla(&addon);
    assert_only(&layered, "W0806", "bouncer.animation.json");
    assert_eq!(
        (layered[0]["line"].as_u64(), layered[0]["column"].as_u64()),
        (Some(8), Some(9))
    );
}

#[test]
fn check_positional_paths_are_layers_too() {
    let addon = fixture("addon_over_vanilla/RP");
    let positional = check_json(&[vanilla_rp().into(), addon.clone().into()], &addon);
    let flags = check_over_vanilla(&addon);
    assert_eq!(positional, flags);
    // In the other order vanilla is on top, and the add-on still sees its names.
    let reversed = check_json(&[addon.clone().into(), vanilla_rp().into()], &addon);
    assert_eq!(reversed.len(), 1, "{reversed:?}");
}

#[test]
fn check_keeps_client_and_server_namespaces_apart() {
    let root = fixture("namespaces");
    let got = check_json(&[root.join("RP").into(), root.join("BP").into()], &root);
    // No W0604: neither entity is judged against the other side's controller variables.
    assert_only(&got, "W0805", "BP/entities/walker.json");
    assert!(
        got[0]["message"]
            .as_str()
            .unwrap()
            .contains("defined only in a resource pack"),
        "{got:?}"
    );
    let out = molang()
        .arg("check")
        .arg(root.join("RP"))
        .arg(root.join("BP"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_contains(&stdout, "0 errors, 1 warnings");
}
