//! The emitted pack passes our own pack checker with 0 errors and 0 warnings.

use ik_gait::RigParams;

#[test]
fn emitted_pack_checks_clean() {
    let dir = std::env::temp_dir().join(format!("doggoyle-emit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files = ik_gait::emit::emit(&RigParams::default(), &dir).unwrap();
    assert_eq!(files.len(), 4);
    let pack = molang::pack::load(std::slice::from_ref(&dir));
    assert_eq!(pack.entities.len(), 1);
    assert_eq!(pack.animations.len(), 1);
    let (diags, summary) = molang::lint::check_pack(&pack);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        diags.is_empty(),
        "{:#?}",
        diags
            .iter()
            .map(|d| &d.diagnostic.message)
            .collect::<Vec<_>>()
    );
    assert_eq!((summary.errors, summary.warnings), (0, 0));
    assert!(summary.expressions > 0);
}

#[test]
fn emit_creates_only_the_last_folder() {
    let base = std::env::temp_dir().join(format!("doggoyle-emit-parent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    // The parent is missing: nothing may be created, and the error names the missing folder.
    let err = ik_gait::emit::emit(&RigParams::default(), &base.join("x/y")).unwrap_err();
    assert!(err.contains("does not exist"), "{err}");
    assert!(!base.exists(), "emit created the missing parents");
    // The parent exists: the last folder is created and the pack written into it.
    std::fs::create_dir(&base).unwrap();
    let files = ik_gait::emit::emit(&RigParams::default(), &base.join("pack")).unwrap();
    assert!(files.iter().all(|f| f.starts_with(base.join("pack"))));
    let _ = std::fs::remove_dir_all(&base);
}
