//! What `check` and `fmt` read from a pack (only the game's folders, regular files, links that
//! stay inside), the missing references `check` reports, and `fmt --write` never writing
//! through a link.

mod support;
use support::{
    assert_code, check_as_json, json_lines, molang, molang_on, output_within, scratch, text,
    write_in,
};

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

const MANIFEST: &str = r#"{"format_version": 2, "header": {"name": "t", "uuid": "u", "version": [1, 0, 0], "min_engine_version": [1, 21, 0]},
    "modules": [{"type": "resources", "uuid": "m", "version": [1, 0, 0]}]}"#;

/// Runs `molang ARGS` and kills it after a minute: these inputs used to hang.
fn molang_within_a_minute(args: &[&std::ffi::OsStr]) -> Output {
    let child = molang()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    output_within(child, Duration::from_secs(60), &format!("molang {args:?}"))
}

/// A scratch folder `name` and in it a resource pack `rp` holding only its manifest.
fn manifest_only(name: &str) -> (PathBuf, PathBuf) {
    let d = scratch(name);
    let rp = d.join("rp");
    write_in(&rp, "manifest.json", MANIFEST);
    (d, rp)
}

#[test]
fn check_and_fmt_read_the_game_folders_only_and_count_alike() {
    let d = scratch("folders-cli");
    write_in(&d, "manifest.json", MANIFEST);
    write_in(&d, "ui/empty.json", "");
    write_in(&d, "texts/languages.json", "[\"en_US\"]");
    write_in(
        &d,
        "animations/a.json",
        r#"{"animations": {"animation.t.a": {"anim_time_update": "q.anim_time+q.delta_time"}}}"#,
    );
    write_in(&d, "rendrr_controllers/r.json", "{}");
    let check = check_as_json(&d);
    assert_code(&check, 0);
    let lines = json_lines(&check);
    let typo: Vec<_> = lines.iter().filter(|l| l["code"] == "W0810").collect();
    assert_eq!(typo.len(), 1, "{lines:?}");
    assert!(typo[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("rendrr_controllers"));
    assert!(typo[0]["message"]
        .as_str()
        .unwrap()
        .contains("render_controllers"));
    let summary = &lines.last().unwrap()["summary"];
    assert_eq!(summary["files"], 2, "{summary}");
    let err = text(&check.stderr);
    assert!(err.contains("3 JSON files outside the folders"), "{err}");

    let fmt = molang().args(["fmt", "--check"]).arg(&d).output().unwrap();
    assert_code(&fmt, 1);
    let out = text(&fmt.stdout);
    assert!(
        out.contains("2 files, 1 expressions formatted: 1 file would be reformatted"),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn check_finishes_on_a_fifo_and_links_out_of_the_pack() {
    use std::os::unix::fs::symlink;
    let (d, rp) = manifest_only("fifo-cli");
    write_in(
        &rp,
        "animations/a.json",
        r#"{"animations": {"animation.t.a": {"anim_time_update": "q.anim_time"}}}"#,
    );
    let fifo = rp.join("animations/pipe.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    symlink("/dev/zero", rp.join("animations/zero.json")).unwrap();
    symlink("/", rp.join("animations/everything")).unwrap();
    symlink(d.join("missing.tga"), rp.join("animations/gone.tga")).unwrap();
    for sub in ["check", "fmt"] {
        let out = molang_within_a_minute(&[sub.as_ref(), rp.as_os_str()]);
        assert_code(&out, 0);
        let err = text(&out.stderr);
        assert!(
            err.contains("pipe.json: not a regular file"),
            "{sub}: {err}"
        );
        assert!(
            err.contains("zero.json: symbolic link leaves the pack folder"),
            "{err}"
        );
        assert!(
            err.contains("everything: symbolic link leaves the pack folder"),
            "{err}"
        );
        assert!(!err.contains("gone.tga"), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn fmt_write_never_writes_through_a_link() {
    use std::os::unix::fs::symlink;
    let (_, rp) = manifest_only("fmt-link");
    let ugly =
        r#"{"animations": {"animation.t.a": {"anim_time_update": "q.anim_time+q.delta_time"}}}"#;
    write_in(&rp, "shared/a.json", ugly);
    // A link inside the pack: read (its target stays inside), never written through.
    symlink(rp.join("shared"), rp.join("animations")).unwrap();
    let out = molang().args(["fmt", "--write"]).arg(&rp).output().unwrap();
    assert_code(&out, 0);
    assert!(
        text(&out.stderr).contains("reached through a symbolic link; not written"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(rp.join("shared/a.json")).unwrap(),
        ugly
    );
    assert!(
        text(&out.stdout).contains("0 files reformatted"),
        "{}",
        text(&out.stdout)
    );
}

/// A resource pack with one entity naming what `description` gives.
fn entity_pack(d: &Path, description: &str) {
    write_in(d, "manifest.json", MANIFEST);
    write_in(
        d,
        "entity/e.json",
        format!(
            r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{
                "identifier": "t:e", {description}}}}}}}"#
        ),
    );
    write_in(
        d,
        "models/entity/g.json",
        r#"{"format_version": "1.12.0", "minecraft:geometry": [{"description": {"identifier": "geometry.T.here"}, "bones": [{"name": "b"}]}]}"#,
    );
    write_in(
        d,
        "render_controllers/r.json",
        r#"{"format_version": "1.8.0", "render_controllers": {"controller.render.Here": {"geometry": "Geometry.default"}}}"#,
    );
    write_in(
        d,
        "animations/a.json",
        r#"{"format_version": "1.8.0", "animations": {"animation.Vibrava.idle": {"anim_time_update": "q.anim_time"}}}"#,
    );
    write_in(d, "textures/entity/present.png", "not read");
}

#[test]
fn check_reports_missing_references_at_their_value() {
    let d = scratch("refs");
    entity_pack(
        &d,
        r#""geometry": {"default": "geometry.t.here", "other": "geometry.t.gone"},
           "render_controllers": ["controller.render.Here", "controller.render.here", {"controller.render.gone": "1"}],
           "textures": {"default": "textures/entity/present", "bad": "textures/entity/absent", "block": "textures/blocks/stone"},
           "animations": {"idle": "animation.vibrava.idle"}"#,
    );
    let out = check_as_json(&d);
    let lines = json_lines(&out);
    let with = |code: &str| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l["code"] == code)
            .map(|l| l["message"].as_str().unwrap().to_string())
            .collect()
    };
    // Each code with the words of its messages, in order.
    let want: [(&str, &[&str]); 4] = [
        ("W0811", &["geometry.t.gone"]),
        (
            "W0812",
            &[
                "did you mean `controller.render.Here`",
                "controller.render.gone",
            ],
        ),
        ("W0813", &["textures/entity/absent"]),
        ("W0805", &["did you mean `animation.Vibrava.idle`"]),
    ];
    for (code, words) in want {
        let messages = with(code);
        assert_eq!(messages.len(), words.len(), "{code}: {lines:?}");
        for (message, word) in messages.iter().zip(words) {
            assert!(message.contains(word), "{code}: {message}");
        }
    }
    // At the JSON value: the line of `geometry.t.gone`.
    let at = lines.iter().find(|l| l["code"] == "W0811").unwrap();
    let src = std::fs::read_to_string(d.join("entity/e.json")).unwrap();
    let line = src
        .lines()
        .position(|l| l.contains("geometry.t.gone"))
        .unwrap()
        + 1;
    assert_eq!(at["line"].as_u64(), Some(line as u64));
}

/// A UTF-16 entity file (with a byte-order mark): `check` and `run` give the one diagnostic,
/// E0702 naming UTF-16 and UTF-8 (the language server too: `tests/lsp.rs`). `run` used to say
/// the pack has no such entity.
#[test]
fn run_names_a_utf16_entity_file() {
    let d = scratch("utf16-run");
    write_in(&d, "manifest.json", MANIFEST);
    let json = r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {"identifier": "t:e"}}}"#;
    let mut bytes = vec![0xFF, 0xFE];
    for u in json.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    write_in(&d, "entity/e.json", bytes);
    let out = molang_on("run", &d, &["--entity", "t:e"]);
    assert_code(&out, 2);
    let err = text(&out.stderr);
    assert!(err.contains("UTF-16") && err.contains("e.json"), "{err}");
    assert!(!err.contains("it has none"), "{err}");
    let message =
        "the file is UTF-16 (little-endian, with a byte-order mark); the game reads UTF-8 only";
    assert!(err.contains(&format!("error[E0702]: {message}")), "{err}");
    let out = check_as_json(&d);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains("\"code\"")).collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let diag: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(diag["code"], "E0702", "{stdout}");
    assert!(
        diag["message"].as_str().unwrap().contains(message),
        "{stdout}"
    );
}
