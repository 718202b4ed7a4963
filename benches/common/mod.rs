//! What the benchmarks share: the vanilla corpus they time.

use std::path::PathBuf;

/// Every vanilla Molang string of `../shared/corpus`: the records of
/// `bedrock-samples-molang.jsonl` not marked `"fragment": true`, then the joined scripts of
/// `bedrock-samples-molang-scripts.jsonl` (read at run time; missing files panic loudly).
pub fn corpus() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let read = |name: &str| -> Vec<serde_json::Value> {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "benchmark corpus file {} is missing or unreadable ({e})",
                path.display()
            )
        });
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let mut strings: Vec<String> = read("bedrock-samples-molang.jsonl")
        .iter()
        .filter(|r| r.get("fragment").and_then(|f| f.as_bool()) != Some(true))
        .map(|r| r["expr"].as_str().unwrap().to_owned())
        .collect();
    strings.extend(
        read("bedrock-samples-molang-scripts.jsonl")
            .iter()
            .map(|r| r["expr"].as_str().unwrap().to_owned()),
    );
    strings
}
