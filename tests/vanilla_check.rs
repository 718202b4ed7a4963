//! `molang check` over Mojang's vanilla packs (../shared/vanilla): the game loads all of it and
//! every mob animates, so an error is a false alarm, and every warning must be explained in
//! tests/divergences/vanilla-warnings.tsv. A new warning, or a listed one that disappears,
//! fails this test; so does any error (the engine variables the game sets per entity type,
//! the shulker's `variable.shulker.peekamount` among them, come from molang::engine_vars).

use std::collections::BTreeSet;
use std::path::PathBuf;

use molang::diagnostics::Severity;

fn vanilla() -> PathBuf {
    let dir = std::env::var_os("MOLANG_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"))
        .join("vanilla");
    assert!(
        dir.join("resource_pack/manifest.json").is_file()
            && dir.join("behavior_pack/manifest.json").is_file(),
        "this test needs Mojang's vanilla packs at {} (resource_pack/ and behavior_pack/); set MOLANG_SHARED_DIR",
        dir.display()
    );
    dir
}

type Row = (String, String, usize, usize, String);

fn listed() -> BTreeSet<Row> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/divergences/vanilla-warnings.tsv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = BTreeSet::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 6, "bad row (want 6 columns): {line}");
        assert!(!cols[5].trim().is_empty(), "row without a reason: {line}");
        out.insert((
            cols[0].to_string(),
            cols[1].to_string(),
            cols[2].parse().expect("line"),
            cols[3].parse().expect("col"),
            cols[4].to_string(),
        ));
    }
    out
}

#[test]
fn vanilla_checks_clean_and_every_warning_is_listed() {
    let dir = vanilla();
    let pack = molang::pack::load(&[dir.join("resource_pack"), dir.join("behavior_pack")]);
    assert!(pack.problems.is_empty(), "{:?}", pack.problems);
    let (diagnostics, summary) = molang::pack_check::check_pack(&pack);
    let rel = |p: &std::path::Path| {
        p.strip_prefix(&dir)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut errors = Vec::new();
    let mut warnings = BTreeSet::new();
    for d in &diagnostics {
        let row = (
            d.diagnostic.code.as_str().to_string(),
            rel(&d.path),
            d.line,
            d.column,
            d.diagnostic.message.clone(),
        );
        match d.diagnostic.severity {
            Severity::Error => errors.push(row),
            Severity::Warning => {
                warnings.insert(row);
            }
        }
    }
    let unexplained = &errors;
    let want = listed();
    let new: Vec<_> = warnings.difference(&want).collect();
    let gone: Vec<_> = want.difference(&warnings).collect();
    println!(
        "vanilla: {} files, {} expressions, {} entities ({} overridden definitions); {} errors, {} warnings ({} listed)",
        summary.files,
        summary.expressions,
        pack.entities.len(),
        pack.shadowed.len(),
        errors.len(),
        warnings.len(),
        want.len()
    );
    let mut by_code = std::collections::BTreeMap::new();
    for w in &warnings {
        *by_code.entry(w.0.as_str()).or_insert(0) += 1;
    }
    println!("warnings by code: {by_code:?}");
    assert!(
        unexplained.is_empty(),
        "errors on vanilla: {unexplained:#?}"
    );
    assert!(
        new.is_empty() && gone.is_empty(),
        "tests/divergences/vanilla-warnings.tsv is out of step:\nnew warnings (explain them or fix the check): {new:#?}\nlisted but gone (remove the rows): {gone:#?}"
    );
}

#[test]
fn addon_over_vanilla_resolves_vanilla_names() {
    let dir = vanilla();
    let addon =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/addon_over_vanilla/RP");
    let alone = molang::pack::load(std::slice::from_ref(&addon));
    let layered = molang::pack::load(&[dir.join("resource_pack"), addon.clone()]);
    let of_addon = |pack: &molang::pack::Pack| -> Vec<(String, String)> {
        molang::pack_check::check_pack(pack)
            .0
            .iter()
            .filter(|d| d.path.starts_with(&addon))
            .map(|d| {
                (
                    d.diagnostic.code.as_str().to_string(),
                    d.diagnostic.message.clone(),
                )
            })
            .collect()
    };
    // Alone, vanilla's `animation.common.look_at_target` does not exist.
    let got = of_addon(&alone);
    assert!(
        got.iter()
            .any(|(c, m)| c == "W0805" && m.contains("animation.common.look_at_target")),
        "{got:?}"
    );
    // Over vanilla it does, and `geometry.slime` gives the bones: only the deliberate
    // `antenna` mistake is left.
    let got = of_addon(&layered);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "W0806");
    assert!(got[0].1.contains("`antenna`"), "{got:?}");
}
