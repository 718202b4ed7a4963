//! `molang fmt` on real files: the vanilla resource pack keeps its meaning through
//! formatting (the JSON rewritten, reloaded and checked again), and the command's modes
//! (diff, `--check`, `--write`, `--minify`) do what they say and write nowhere else.

use std::path::{Path, PathBuf};

use molang::format::{format_pack, Skip, Style};
use molang::ir::{Names, NodeId};
use molang::pack::{self, Pack};
use molang::pack_check::molang_version;
use molang::{check, CheckOptions};

mod support;
use support::{assert_code, assert_contains, molang, molang_on, vanilla_rp as vanilla, write_in};

fn meaning(pack: &Pack, site: usize) -> (Option<Vec<molang::ir::Node>>, Vec<&'static str>) {
    let s = &pack.sites[site];
    let options = CheckOptions {
        version: molang_version(pack.files[s.file].min_engine_version),
        ..CheckOptions::default()
    };
    let checked = check(&s.text, &options, &mut Names::default());
    let nodes = checked.program.map(|p| {
        (0..p.len() as u32)
            .map(|i| p.node(NodeId(i)).clone())
            .collect()
    });
    (
        nodes,
        checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect(),
    )
}

#[test]
fn fmt_vanilla_resource_pack_keeps_meaning() {
    for style in [Style::Pretty, Style::Minify] {
        let pack = pack::load(&[vanilla()]);
        let formats = format_pack(&pack, style);
        let unstable: Vec<_> = formats
            .iter()
            .flat_map(|f| &f.skipped)
            .filter(|(_, s)| *s == Skip::Unstable)
            .collect();
        assert!(unstable.is_empty(), "{unstable:?}");
        // Rewrite every file in memory (manifests included) and load the result.
        let mut changed_files = 0;
        let mut layers = pack::read_layers(&[vanilla()]);
        for (path, text) in &mut layers[0].1 {
            let i = pack
                .files
                .iter()
                .position(|f| &f.path == path)
                .expect("a file of the pack");
            if let Some(x) = formats.iter().find(|x| x.file == i && !x.edits.is_empty()) {
                assert_eq!(
                    *text, pack.files[i].source,
                    "no byte-order marks in vanilla"
                );
                changed_files += 1;
                *text = x.apply(&pack.files[i].source);
            }
        }
        let again = pack::load_layered_sources(layers);
        assert!(again.problems.is_empty(), "{:?}", again.problems);
        // Same sites at the same pointers, each checking to the same IR.
        let key = |p: &Pack, i: usize| {
            (
                p.files[p.sites[i].file].path.clone(),
                p.sites[i].pointer.clone(),
            )
        };
        assert_eq!(pack.sites.len(), again.sites.len());
        let mut reformatted = 0;
        for i in 0..pack.sites.len() {
            assert_eq!(key(&pack, i), key(&again, i));
            if pack.sites[i].text != again.sites[i].text {
                reformatted += 1;
            }
            assert_eq!(
                again.files[again.sites[i].file].min_engine_version,
                pack.files[pack.sites[i].file].min_engine_version
            );
            assert_eq!(
                meaning(&pack, i),
                meaning(&again, i),
                "{:?}: {:?} became {:?}",
                key(&pack, i),
                pack.sites[i].text,
                again.sites[i].text
            );
        }
        println!(
            "fmt {style:?}: {} sites of {} files; {reformatted} sites changed in {changed_files} files; meaning kept",
            pack.sites.len(),
            pack.files.len()
        );
        assert!(reformatted > 0);
        // Formatting the formatted pack changes nothing.
        let twice = format_pack(&again, style);
        assert!(twice.iter().all(|f| f.edits.is_empty()), "not idempotent");
    }
}

#[test]
fn fmt_check_runs_over_the_vanilla_resource_pack() {
    let out = molang()
        .arg("fmt")
        .arg("--check")
        .arg(vanilla())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = stdout.lines().last().unwrap();
    assert_contains(summary, "files would be reformatted");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn fixture(dir: &Path) -> PathBuf {
    let text = "\u{feff}{\n  // comments stay\n  \"format_version\": \"1.8.0\",\n  \"animations\": {\n    \"animation.pig.walk\": {\n      \"bones\": { \"leg\": { \"rotation\": [\"math.cos(q.anim_time*38.17)*80\", 0, 0] } },\n      \"timeline\": { \"0.0\": [\"v.a=1;\", \"v.b=v.a+1;\"] }\n    }\n  }\n}\n";
    write_in(dir, "pig.animation.json", text)
}

#[test]
fn fmt_modes_diff_check_write_minify() {
    let dir = std::env::temp_dir().join(format!("molang-fmt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = fixture(&dir);
    let before = std::fs::read(&path).unwrap();

    // Default: a diff on stdout, the file untouched.
    let out = molang_on("fmt", &path, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout.contains(
            "-      \"bones\": { \"leg\": { \"rotation\": [\"math.cos(q.anim_time*38.17)*80\""
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "+      \"bones\": { \"leg\": { \"rotation\": [\"math.cos(q.anim_time * 38.17) * 80\""
        ),
        "{stdout}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // --check: exit 1, the file named, untouched.
    let out = molang_on("fmt", &path, &["--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("pig.animation.json"));
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // --write: only the strings change; the byte-order mark and comments stay.
    let out = molang_on("fmt", &path, &["--write"]);
    assert_code(&out, 0);
    let after = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
    let expected = String::from_utf8(before.clone())
        .unwrap()
        .replace("q.anim_time*38.17)*80", "q.anim_time * 38.17) * 80")
        .replace(
            "\"v.a=1;\", \"v.b=v.a+1;\"",
            "\"v.a = 1;\", \"v.b = v.a + 1;\"",
        );
    assert_eq!(after, expected);
    let out = molang_on("fmt", &path, &["--check"]);
    assert_eq!(out.status.code(), Some(0));

    // --minify --write, then --check in the pretty style wants it back.
    let out = molang_on("fmt", &path, &["--write", "--minify"]);
    assert_eq!(out.status.code(), Some(0));
    let after = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
    assert_contains(&after, "\"math.cos(q.anim_time*38.17)*80\"");
    assert_contains(&after, "\"v.b=v.a+1;\"");
    // Nothing else was written in the folder.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
