//! `molang test` at scale: a suite of 100 tests over Mojang's resource pack (needs
//! `../shared/vanilla` beside the repository; fails loudly without it).
//!
//! The suite is written into a temporary folder: one test per vanilla client entity (the first
//! 100 identifiers in sorted order), each walking 2 s at 20 fps with a snapshot of every bone
//! channel and no content-log line. `--bless` writes the snapshots, then the same suite runs
//! on both back ends, which must agree frame for frame and with the snapshots. This proves the
//! runner loads the layered pack once for all tests and runs 100 entities in one invocation;
//! the wall time of each step is printed (the time is recorded in BENCHMARKS.md, not asserted).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const TESTS: usize = 100;

mod support;

fn vanilla_rp() -> PathBuf {
    support::vanilla_rp().canonicalize().unwrap()
}

/// Client-entity identifiers of the pack's entity files, sorted and distinct.
fn identifiers(rp: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for e in std::fs::read_dir(rp.join("entity")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        if let Some(at) = text.find("\"identifier\"") {
            let rest = &text[at + "\"identifier\"".len()..];
            let start = rest.find('"').unwrap() + 1;
            let end = start + rest[start..].find('"').unwrap();
            ids.push(rest[start..end].to_string());
        }
    }
    ids.sort();
    ids.dedup();
    ids
}

fn summary(stdout: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(stdout);
    let line = text
        .lines()
        .rev()
        .find(|l| l.contains("\"summary\""))
        .unwrap_or_else(|| panic!("no JSON summary in:\n{text}"));
    serde_json::from_str::<serde_json::Value>(line).unwrap()["summary"].clone()
}

#[test]
fn a_hundred_vanilla_tests_bless_then_pass_on_both_back_ends() {
    let rp = vanilla_rp();
    let ids = identifiers(&rp);
    assert!(
        ids.len() >= TESTS,
        "the vanilla pack has {} client entities, the suite needs {TESTS}",
        ids.len()
    );
    let dir = std::env::temp_dir().join(format!("molang-vanilla-suite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("snapshots")).unwrap();
    let tests: Vec<serde_json::Value> = ids[..TESTS]
        .iter()
        .map(|id| {
            let file = id.replace(':', "_");
            serde_json::json!({
                "name": format!("{id} walks"),
                "entity": id,
                "packs": [rp],
                "fps": 20,
                "seconds": 2,
                "inputs": {
                    "t": [0, 2],
                    "q.modified_distance_moved": [0, 4],
                    "q.modified_move_speed": 0.7,
                    "q.ground_speed": 2,
                },
                "expect": [
                    { "no_content_log": true },
                    { "snapshot": format!("snapshots/{file}.csv") },
                ],
            })
        })
        .collect();
    std::fs::write(
        dir.join("vanilla.test.json"),
        serde_json::to_string_pretty(&tests).unwrap(),
    )
    .unwrap();

    let run = |extra: &[&str]| {
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_molang"))
            .arg("test")
            .arg(&dir)
            .args(["--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        (out, started.elapsed())
    };

    let (blessed, bless_time) = run(&["--bless"]);
    let s = summary(&blessed.stdout);
    assert_eq!(s["tests"], TESTS, "bless: {s}");
    let snapshots = std::fs::read_dir(dir.join("snapshots")).unwrap().count();
    assert_eq!(snapshots, TESTS, "one snapshot per test");

    let (checked, check_time) = run(&["--backend", "both"]);
    let s = summary(&checked.stdout);
    assert_eq!(
        (s["passed"].as_u64(), s["failed"].as_u64()),
        (Some(TESTS as u64), Some(0)),
        "every blessed vanilla test passes on both back ends:\n{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    assert!(checked.status.success());
    println!(
        "{TESTS} vanilla tests: bless {:.2} s, run on both back ends {:.2} s (this build, this machine)",
        bless_time.as_secs_f64(),
        check_time.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
