//! Guard for refactors that must not change behaviour (issue 20): `molang run` on a set of
//! varied vanilla entities and attachables, under the walking timeline, on both back ends,
//! with every trace column (world, locators, variables, render); and `molang check` on the
//! vanilla packs. Each output (stdout, then stderr) is hashed with the game's 64-bit FNV-1 hash and compared
//! with `tests/fixtures/trace_digests.tsv`, generated on the code before the refactor.
//! Only the digests are committed, never the shared data.
//!
//! `MOLANG_BLESS_DIGESTS=1 cargo test -p molang-cli --test trace_digests` rewrites the file
//! (only when a change of behaviour is intended).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const ENTITIES: [&str; 20] = [
    "minecraft:pig",
    "minecraft:zombie",
    "minecraft:skeleton",
    "minecraft:ender_dragon",
    "minecraft:shulker",
    "minecraft:bee",
    "minecraft:horse",
    "minecraft:villager_v2",
    "minecraft:player",
    "minecraft:parrot",
    "minecraft:armor_stand",
    "minecraft:fox",
    "minecraft:axolotl",
    "minecraft:warden",
    "minecraft:sniffer",
    "minecraft:wolf",
    "minecraft:camel",
    "minecraft:llama",
    "minecraft:bow",
    "minecraft:shield",
];

fn shared() -> PathBuf {
    let dir = std::env::var_os("MOLANG_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    assert!(
        dir.join("vanilla/resource_pack").is_dir(),
        "this test needs the shared vanilla packs at {}; set MOLANG_SHARED_DIR",
        dir.display()
    );
    dir
}

fn digest_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/trace_digests.tsv")
}

/// The game's 64-bit FNV-1 (molang's string hash) of stdout, a separator, stderr and the
/// exit code; and the length of stdout.
///
/// Where the shared data and the checkout lie is not part of the output: their paths are
/// replaced by `<shared>` and `<repo>` first, so a clone anywhere has the same digests.
fn digest(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    let shared = shared().display().to_string();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .display()
        .to_string();
    let neutral = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .replace(&shared, "<shared>")
            .replace(&repo, "<repo>")
            .into_bytes()
    };
    let stdout = neutral(&out.stdout);
    let mut all = stdout.clone();
    all.extend_from_slice(b"\0--stderr--\0");
    all.extend_from_slice(&neutral(&out.stderr));
    all.extend_from_slice(format!("\0{:?}", out.status.code()).as_bytes());
    format!("{:016x} {}", molang::ir::fnv1_64(&all), stdout.len())
}

fn current() -> BTreeMap<String, String> {
    let shared = shared();
    let rp = shared.join("vanilla/resource_pack");
    let walk = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/runtime/walking/walk.csv");
    let mut got = BTreeMap::new();
    for id in ENTITIES {
        for backend in ["interp", "jit"] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_molang"));
            cmd.arg("run")
                .arg(&rp)
                .args(["--entity", id, "--fps", "20", "--seconds", "4"])
                .args(["--backend", backend, "--locators", "--vars", "--render"])
                .arg("--inputs")
                .arg(&walk);
            got.insert(format!("run\t{id}\t{backend}"), digest(cmd));
        }
    }
    for (name, packs) in [
        ("resource_pack", vec![rp.clone()]),
        (
            "resource_pack+behavior_pack",
            vec![rp.clone(), shared.join("vanilla/behavior_pack")],
        ),
    ] {
        for format in ["human", "json"] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_molang"));
            cmd.arg("check").args(&packs).args(["--format", format]);
            got.insert(format!("check\t{name}\t{format}"), digest(cmd));
        }
    }
    got
}

#[test]
fn vanilla_traces_and_check_output_are_unchanged() {
    let got = current();
    if std::env::var_os("MOLANG_BLESS_DIGESTS").is_some() {
        let mut text = String::from(
            "# molang run / molang check output digests (FNV-1 64, stdout bytes); see tests/trace_digests.rs\n",
        );
        for (k, v) in &got {
            text.push_str(&format!("{k}\t{v}\n"));
        }
        std::fs::write(digest_file(), text).unwrap();
        return;
    }
    let text = std::fs::read_to_string(digest_file()).expect("tests/fixtures/trace_digests.tsv");
    let want: BTreeMap<String, String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l.rsplit_once('\t').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    assert_eq!(
        want.len(),
        got.len(),
        "the digest file lists other cases than the test runs"
    );
    let changed: Vec<String> = got
        .iter()
        .filter(|(k, v)| want.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}: now {v}, saved {:?}", want.get(k)))
        .collect();
    println!(
        "{} of {} outputs unchanged",
        got.len() - changed.len(),
        got.len()
    );
    assert!(
        changed.is_empty(),
        "outputs changed:\n{}",
        changed.join("\n")
    );
}
