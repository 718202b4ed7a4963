//! Every vanilla client entity of `../shared/vanilla/resource_pack` played on x86-64 and on
//! arm64 for 4 s at 20 fps under the walking timeline (`tests/fixtures/runtime/walking/walk.csv`),
//! as `molang run PACK --platform both --inputs walk.csv --fps 20 --seconds 4` does, on the
//! interpreter (the JIT gives the same bits: tests/vanilla_runtime.rs).
//!
//! Asserts: the entities whose frames differ between the platforms, with their first
//! difference (frame, bone and channel or variable, both values), are exactly the rows of
//! `tests/divergences/vanilla-platforms.tsv`, each with its reason.

mod common;

use molang::runtime::inputs;
use molang::runtime::load::client_entities;
use molang::runtime::platforms::{first_difference, Play};
use molang::runtime::Backend;
use std::collections::BTreeMap;
use std::path::PathBuf;

const LIST: &str = "tests/divergences/vanilla-platforms.tsv";

fn walking() -> inputs::Timeline {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime/walking/walk.csv");
    let text = std::fs::read_to_string(&p).unwrap();
    inputs::parse(&text, "walk.csv").unwrap()
}

/// entity → (first difference, why).
fn listed() -> BTreeMap<String, (String, String)> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(LIST);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{LIST}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1) // the header
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(
                cols.len(),
                3,
                "{LIST}: `{l}` is not entity, difference, why"
            );
            assert!(
                !cols[2].trim().is_empty(),
                "{LIST}: {} has no reason",
                cols[0]
            );
            (
                cols[0].to_string(),
                (cols[1].to_string(), cols[2].to_string()),
            )
        })
        .collect()
}

#[test]
fn vanilla_entities_walking_on_both_platforms() {
    let pack = common::vanilla_rp_pack();
    let ids = client_entities(&pack);
    assert!(
        ids.len() >= 100,
        "expected the whole vanilla pack, got {}",
        ids.len()
    );
    let timeline = walking();
    let play = Play {
        backend: Backend::Interp,
        fps: 20.0,
        frames: 80,
        seed: 0,
    };
    let mut found = BTreeMap::new();
    for id in &ids {
        match first_difference(&pack, id, &timeline, &play) {
            Ok(None) => {}
            Ok(Some(d)) => {
                println!("{id}: {d}");
                found.insert(id.clone(), d.to_string());
            }
            Err(e) => panic!("{id} does not load: {e}"),
        }
    }
    println!(
        "{} of {} vanilla client entities differ between x86-64 and arm64 walking",
        found.len(),
        ids.len()
    );
    let list = listed();
    let mut problems = Vec::new();
    for (id, d) in &found {
        match list.get(id) {
            None => problems.push(format!("new: {id}\t{d}")),
            Some((want, _)) if want != d => {
                problems.push(format!("changed: {id}: listed `{want}`, now `{d}`"))
            }
            Some(_) => {}
        }
    }
    for id in list.keys() {
        if !found.contains_key(id) {
            problems.push(format!(
                "{id} is listed but the platforms agree now: remove it"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{LIST} is out of step:\n{}",
        problems.join("\n")
    );
}
