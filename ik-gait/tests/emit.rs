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
