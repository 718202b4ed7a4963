//! The §10 checks on a few scenarios, on the JIT (the checks also run check 13 against the
//! reference). `doggoyle check` runs the full set.

use ik_gait::checks::{check_rest, run_checks, Plan};
use ik_gait::runner::Backend;
use ik_gait::scenarios::find;
use ik_gait::RigParams;

#[test]
fn checks_pass_on_selected_scenarios() {
    let p = RigParams::default();
    let scenarios = [
        "trot-2.5",
        "accel-decel",
        "run-jump",
        "walk-stop-lie-stand",
        "swim-walk-out",
    ]
    .iter()
    .map(|n| find(n).unwrap())
    .collect();
    let plan = Plan {
        scenarios,
        fps: vec![20.0, 60.0, 240.0],
        backend: Backend::Jit,
        soak_runs: 0,
        soak_seed: 1,
    };
    let rows = run_checks(&p, &plan, &mut |_| {}).unwrap();
    assert!(rows.len() >= 13);
    let failed: Vec<_> = rows.iter().filter(|r| !r.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn rest_bake_matches_the_baked_constants() {
    let row = check_rest(&RigParams::default(), Backend::Reference);
    assert!(row.pass, "{row:?}");
}

#[test]
fn soft_reach_and_ik_test_vectors() {
    use ik_gait::params::ik_f64;
    // §7.13 soft reach: d = 15 → 14.6321, 20 → 14.9975 (dmax 15).
    let r = |d: f64| ik_f64((0.0, 0.0), (d, 0.0), 7.5, 7.5, true, 1.0).3;
    assert!(
        (r(13.5) - 13.5).abs() < 1e-9
            && (r(15.0) - 14.6321).abs() < 1e-4
            && (r(20.0) - 14.9975).abs() < 1e-4
    );
    // (10,15) → (16,2.5): θu −86.787, θl −41.931, γ 135.145.
    let (tu, tl, ga, _) = ik_f64((10.0, 15.0), (16.0, 2.5), 7.5, 7.5, true, 1.0);
    assert!(
        (tu + 86.787).abs() < 1e-3 && (tl + 41.931).abs() < 1e-3 && (ga - 135.145).abs() < 1e-3
    );
    let (tu, tl, ga, r) = ik_f64((10.0, 15.0), (20.0, 2.5), 7.5, 7.5, true, 1.0);
    assert!(
        (tu + 59.012).abs() < 1e-3
            && (tl + 43.668).abs() < 1e-3
            && (ga - 164.655).abs() < 1e-3
            && (r - 14.866).abs() < 1e-3
    );
}

#[test]
fn hermite_swing_test_vector() {
    // §7.8: x0 = −5, x1 = 5, m = 7 → −5, −4.094, 0, 4.094, 5.
    let (x0, x1, m) = (-5.0f32, 5.0f32, 7.0f32);
    let got: Vec<f32> = [0.0, 0.25, 0.5, 0.75, 1.0]
        .iter()
        .map(|&u| x0 + (x1 - x0 + m) * ik_gait::math::hb(u) - m * u)
        .collect();
    for (g, w) in got.iter().zip([-5.0, -4.094, 0.0, 4.094, 5.0]) {
        assert!((g - w).abs() < 1e-3, "{got:?}");
    }
}
