//! The `molang test` suite `doggoyle emit` writes (OUT_DIR/tests) passes on the emitted pack,
//! on both back ends, through the library `molang test` runs (`molang::test_runner`), and a
//! deliberately broken expectation of each kind fails.

use molang::test_runner::{run_test, spec, Backends, Files};
use std::path::Path;

mod common;
use common::tmp;

/// (test name, failures as text) for every test file in `dir`, read, parsed and run the way
/// `molang test` does: the files a test names (its inputs) are read for it.
fn run_suite(dir: &Path) -> Vec<(String, Vec<String>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let in_pack = dir.join("../manifest.json").is_file();
        let tests = spec::parse_file(&file, &text, in_pack).unwrap_or_else(|e| panic!("{e}"));
        for t in &tests {
            let named: Files = (t.files().iter())
                .map(|f| (f.path.clone(), Ok(std::fs::read(&f.path).unwrap())))
                .collect();
            let pack = molang::pack::load(&t.packs);
            let o = run_test(t, &pack, Backends::Both, &named, false);
            let fails = o
                .failures
                .iter()
                .map(|f| format!("{} {} @{:?}: {}", f.location, f.what, f.t, f.detail))
                .collect();
            out.push((o.name, fails));
        }
    }
    out
}

#[test]
fn emitted_pack_passes_its_molang_test_suite() {
    let dir = tmp("pack-test");
    common::emit(&dir, 7);
    let suite = dir.join(ik_gait::pack_test::TEST_DIR);
    let spec = std::fs::read_to_string(suite.join("doggoyle.test.json")).unwrap();
    // Every kind of check the suite claims is in the file.
    for needle in [
        "\"no_content_log\"",
        "\"lf_toe\"",
        "\"rh_heel\"",
        "\"chin\"",
        "v.lh_ph >= 0",
        "\"v.gait\"",
        "\"rx\"",
    ] {
        assert!(spec.contains(needle), "{needle}");
    }
    let results = run_suite(&suite);
    assert_eq!(results.len(), ik_gait::pack_test::SCENARIOS.len());
    for (name, fails) in &results {
        assert!(fails.is_empty(), "{name}:\n{}", fails.join("\n"));
    }

    // Broken on purpose, one expectation at a time: each must fail, naming what failed.
    let broken = [
        // A chin bar the standing dog (chin 16.5 px up) cannot meet.
        (
            "\"wy_between\": [\n          0.49,",
            "\"wy_between\": [\n          17.0,",
            "chin",
        ),
        // A paw never below 5 px: the planted paws are on the floor.
        (
            "\"bone\": \"lf_toe\",\n        \"wy_between\": [\n          -0.01,",
            "\"bone\": \"lf_toe\",\n        \"wy_between\": [\n          5.0,",
            "lf_toe",
        ),
        // The phase never reaches 0.5.
        ("v.lf_ph < 1 &&", "v.lf_ph < 0.5 &&", "v.lf_ph"),
    ];
    for (from, to, what) in broken {
        assert!(spec.contains(from), "{from}");
        std::fs::write(suite.join("doggoyle.test.json"), spec.replacen(from, to, 1)).unwrap();
        let results = run_suite(&suite);
        let all: Vec<&String> = results.iter().flat_map(|(_, f)| f).collect();
        assert!(!all.is_empty(), "{what}: the broken expectation passed");
        assert!(
            all.iter().all(|f| f.contains(what)),
            "{what}: other expectations failed too: {all:#?}"
        );
    }
    // A wrong reference value (parity) fails at its frame.
    let v: serde_json::Value = serde_json::from_str(&spec).unwrap();
    let mut v2 = v.clone();
    let e = v2[0]["expect"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["bone"] == "lf_upper" && e["rx"].is_number())
        .unwrap();
    let at = e["at"].as_f64().unwrap();
    e["rx"] = serde_json::json!(e["rx"].as_f64().unwrap() + 1.0);
    std::fs::write(suite.join("doggoyle.test.json"), v2.to_string()).unwrap();
    let results = run_suite(&suite);
    let fails = &results[0].1;
    assert_eq!(fails.len(), 1, "{fails:#?}");
    assert!(
        fails[0].contains("lf_upper") && fails[0].contains(&format!("{at}")),
        "{fails:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
