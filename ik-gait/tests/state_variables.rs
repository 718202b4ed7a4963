//! ik-gait/README.md's "State variables" table names every `v.*` the generated scripts set in
//! `initialize` (`generate::initial_values`), and nothing else, each with a unit and a meaning.

use ik_gait::generate::initial_values;
use ik_gait::{RigParams, LEG_NAMES};
use std::collections::BTreeSet;
use std::path::Path;

/// The table's rows: (variable names, unit, meaning).
fn table_rows(readme: &str) -> Vec<(Vec<String>, String, String)> {
    let at = readme
        .find("\n## State variables\n")
        .expect("README.md has a State variables section");
    let section = &readme[at + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    section
        .lines()
        .filter(|l| l.starts_with("| `v."))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 3, "three cells: {l}");
            let names = cells[0]
                .split(", ")
                .map(|n| {
                    let n = n.trim_matches('`');
                    assert!(n.starts_with("v.") && !n.contains(' '), "a variable: {n}");
                    n.to_string()
                })
                .collect();
            (names, cells[1].to_string(), cells[2].to_string())
        })
        .collect()
}

#[test]
fn the_state_variables_table_lists_every_variable_initialize_sets() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let rows = table_rows(&readme);
    assert!(rows.len() >= 20, "{} rows", rows.len());
    let p = RigParams::default();
    let set: BTreeSet<String> = initial_values(&p)
        .into_iter()
        .map(|(n, _)| format!("v.{n}"))
        .collect();
    let mut listed = BTreeSet::new();
    for (names, unit, meaning) in &rows {
        assert!(!unit.is_empty() && !meaning.is_empty(), "{names:?}");
        for n in names {
            // `xx` is each leg; a per-leg variable exists for at least one of them (fore legs
            // have no r4).
            let each: Vec<String> = if n.starts_with("v.xx_") {
                LEG_NAMES.iter().map(|l| n.replacen("xx", l, 1)).collect()
            } else {
                vec![n.clone()]
            };
            let found: Vec<&String> = each.iter().filter(|v| set.contains(*v)).collect();
            assert!(
                !found.is_empty(),
                "README lists `{n}`, which initialize does not set"
            );
            listed.extend(found.into_iter().cloned());
        }
    }
    let missing: Vec<&String> = set.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "not in README's State variables: {missing:?}"
    );
}
