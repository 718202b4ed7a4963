use ik_gait::generate::{generate, lint};
use ik_gait::RigParams;

#[test]
fn generated_scripts_lint_clean() {
    let p = RigParams::default();
    let g = generate(&p);
    let findings = lint(&p, &g);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn the_strict_lint_catches_a_read_before_write() {
    let p = RigParams::default();
    let mut g = generate(&p);
    // Move the body entry after the leg IK entries: they read v.fr_f before it is written.
    let body = g.pre_animation.remove(9);
    g.pre_animation.push(body);
    assert!(lint(&p, &g).iter().any(|f| f.contains("strict order")));
}
