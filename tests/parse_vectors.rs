//! Accept/reject conformance against the engine-measured molangx parse vectors
//! (needs `../shared/conformance/molangx-parse-vectors.json`). Prints the pass count;
//! every remaining divergence is listed with its reason in `tests/divergences/parse-vectors.tsv`.

mod common;

use molang::ir::Names;
use molang::CheckOptions;

#[test]
fn molangx_parse_vectors_accept_reject() {
    let data = common::read_json("conformance/molangx-parse-vectors.json");
    let vectors = data["vectors"].as_array().expect("vectors");
    let known = common::divergences("parse-vectors.tsv");
    let mut pass = 0;
    let mut unexpected = Vec::new();
    let mut fixed = Vec::new();
    for (i, v) in vectors.iter().enumerate() {
        let src = match v.get("input_bytes_hex").and_then(|h| h.as_str()) {
            Some(hex) => {
                let bytes: Vec<u8> = (0..hex.len())
                    .step_by(2)
                    .map(|j| u8::from_str_radix(&hex[j..j + 2], 16).unwrap())
                    .collect();
                String::from_utf8(bytes).unwrap()
            }
            None => v["expr"].as_str().unwrap().to_string(),
        };
        let version = v["version"].as_i64().unwrap() as i16;
        let want_ok = v["result"] == "OK";
        let options = CheckOptions {
            version,
            warn_unknown_queries: false,
            ..CheckOptions::default()
        };
        let checked = molang::check(&src, &options, &mut Names::default());
        let got_ok = checked.loads();
        let key = format!("#{i}");
        if common::tally(got_ok == want_ok, &key, &known, &mut pass, &mut fixed) {
            let first = checked
                .diagnostics
                .iter()
                .find(|d| d.refuses_load())
                .map(|d| d.message.clone());
            unexpected.push(format!(
                "{key} v{version} {:?}: game {} ({:?}), we {} {:?}",
                src.chars().take(80).collect::<String>(),
                v["result"],
                v["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["error_id"].as_str().unwrap())
                    .collect::<Vec<_>>(),
                if got_ok { "accept" } else { "reject" },
                first
            ));
        }
    }
    let total = vectors.len();
    println!(
        "molangx parse vectors: {pass}/{total} accept/reject decisions match the game ({:.2}%)",
        100.0 * pass as f64 / total as f64
    );
    println!("known divergences listed: {}", known.len());
    common::assert_listed("divergences", &fixed, &unexpected);
    assert!(pass * 100 >= total * 99, "below 99%");
}

/// Our diagnostics that stand for nothing the game logs: lints of this tool. Every other
/// diagnostic on a loaded expression stands for a message the game logs (`ok_with_log`).
fn our_lint(code: molang::Code) -> bool {
    use molang::Code::*;
    matches!(
        code,
        UnknownQuery
            | DeprecatedQuery
            | NoFinalSemicolonInBlock
            | ContinueOutsideLoop
            | ReadBeforeSet
            | MaybeReadBeforeSet
            | ReadBeforeSetFirstFrame
            | NeverSet
    )
}

/// The three-way outcome of every vector (`ok`, `ok_with_log`, `error`): whether the game
/// loads the text and whether it logs anything while doing so. Divergences are listed in
/// `tests/divergences/parse-vectors-outcome.tsv`.
#[test]
fn molangx_parse_vectors_outcomes() {
    let data = common::read_json("conformance/molangx-parse-vectors.json");
    let vectors = data["vectors"].as_array().expect("vectors");
    let known = common::divergences("parse-vectors-outcome.tsv");
    let (mut pass, mut unexpected, mut fixed) = (0, Vec::new(), Vec::new());
    for (i, v) in vectors.iter().enumerate() {
        let src = match v.get("input_bytes_hex").and_then(|h| h.as_str()) {
            Some(hex) => String::from_utf8(
                (0..hex.len())
                    .step_by(2)
                    .map(|j| u8::from_str_radix(&hex[j..j + 2], 16).unwrap())
                    .collect(),
            )
            .unwrap(),
            None => v["expr"].as_str().unwrap().to_string(),
        };
        let version = v["version"].as_i64().unwrap() as i16;
        let options = CheckOptions {
            version,
            warn_unknown_queries: false,
            ..CheckOptions::default()
        };
        let checked = molang::check(&src, &options, &mut Names::default());
        let got = if !checked.loads() {
            "error"
        } else if checked.diagnostics.iter().any(|d| !our_lint(d.code)) {
            "ok_with_log"
        } else {
            "ok"
        };
        let want = v["outcome"].as_str().unwrap();
        let key = format!("#{i}");
        if common::tally(got == want, &key, &known, &mut pass, &mut fixed) {
            unexpected.push(format!(
                "{key} v{version} {:?}: game {want}, we {got} [{}]",
                src.chars().take(80).collect::<String>(),
                common::codes(&checked.diagnostics)
            ));
        }
    }
    let total = vectors.len();
    println!(
        "molangx parse vectors: {pass}/{total} outcomes (ok / ok_with_log / error) match the game ({:.2}%)",
        100.0 * pass as f64 / total as f64
    );
    common::assert_listed("outcome divergences", &fixed, &unexpected);
}
