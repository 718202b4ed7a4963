//! The §10 checks on a few scenarios, on the JIT (the checks also run check 13 against the
//! reference). `doggoyle check` runs the full set.

use ik_gait::checks::{check_rest, failures, run_checks, Plan};
use ik_gait::runner::Backend;
use ik_gait::scenarios::find;
use ik_gait::{ErrorKind, RigParams};

#[test]
fn checks_pass_on_selected_scenarios() {
    let p = RigParams::default();
    let names = [
        "trot-2.5",
        "accel-decel",
        "run-jump",
        "walk-stop-lie-stand",
        "swim-walk-out",
    ];
    let plan = Plan::scenarios(&names, &[20.0, 60.0, 240.0], Backend::Jit).unwrap();
    let rows = run_checks(&p, &plan, &mut |_| {}).unwrap();
    assert!(rows.len() >= 14);
    // Every row, check 14 (no drag, issue 19) included.
    let failed = failures(&rows, &[]);
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn rest_bake_matches_the_baked_constants() {
    let row = check_rest(&RigParams::default(), Backend::Reference);
    assert!(row.pass(), "{row:?}");
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

/// §7.2 (decided 2026-12-01): a gait change waits until no leg owes a shift. Every switch, on
/// the reference and on the generated Molang (JIT), comes on a frame whose previous frame left
/// every rem at 0; and switches do happen, with shifts owed afterwards.
#[test]
fn gait_change_is_deferred_while_a_shift_is_owed() {
    use ik_gait::runner::run;
    use ik_gait::scenarios::{inputs, soak};
    let p = RigParams::default();
    let runs = [
        inputs(&find("sine-gaits").unwrap(), 60.0, false),
        inputs(&find("sine-gaits").unwrap(), 20.0, false),
        soak(1, 20.0),
    ];
    for inp in &runs {
        for be in [Backend::Reference, Backend::Jit] {
            let out = run(&p, be, inp).unwrap();
            let mut switches = 0;
            let mut owed_after = 0;
            for k in 1..out.len() {
                if out[k].gait != out[k - 1].gait {
                    switches += 1;
                    assert!(
                        out[k - 1].rem.iter().all(|&r| r == 0.0),
                        "{be:?}: switch at frame {k} while rem = {:?}",
                        out[k - 1].rem
                    );
                    owed_after += out[k].rem.iter().any(|&r| r > 0.0) as usize;
                }
            }
            assert!(
                switches >= 3 && owed_after >= 3,
                "{be:?}: {switches} switches"
            );
        }
    }
}

/// §10 check 6's bars: 3 cycles in the named scenarios, 3.5 in the soak, and the rows say so.
#[test]
fn check6_bars_are_three_and_three_and_a_half() {
    use ik_gait::checks::{check6_bar, Bar, Check, Scope};
    assert_eq!((check6_bar(false), check6_bar(true)), (3.0, 3.5));
    let plan = Plan {
        soak_runs: 1,
        ..Plan::scenarios(&["trot-2.5"], &[60.0], Backend::Reference).unwrap()
    };
    let rows = run_checks(&RigParams::default(), &plan, &mut |_| {}).unwrap();
    let bars: Vec<(Scope, Option<Bar>)> = rows
        .iter()
        .filter(|r| r.check == Check::GaitSwitch)
        .map(|r| (r.scope, r.measurements[0].bar))
        .collect();
    // Scenarios, the §10 soak and the soak with yaw (issue 19).
    assert_eq!(
        bars,
        [
            (Scope::Scenarios, Some(Bar::AtMost(3.0))),
            (Scope::Soak, Some(Bar::AtMost(3.5))),
            (Scope::SoakWithYaw, Some(Bar::AtMost(3.5)))
        ]
    );
    // And the tables say so.
    let th: Vec<String> = (rows.iter())
        .filter(|r| r.check == Check::GaitSwitch)
        .map(|r| ik_gait::tables::text(r).threshold)
        .collect();
    assert_eq!(
        th,
        [
            "<= 3, new timing to 1e-4",
            "<= 3.5, new timing to 1e-4",
            "<= 3.5, new timing to 1e-4"
        ]
    );
}

/// Parameters no rig can satisfy are refused before generation, saying what is wrong; the
/// default hound is fine.
#[test]
fn impossible_parameters_are_refused() {
    let ok = RigParams::default();
    assert!(ok.problems().is_empty(), "{:?}", ok.problems());
    // Fore legs too short to reach the floor from a 15 px shoulder.
    let mut p = RigParams::default();
    p.legs[0].a = 4.0;
    p.legs[0].b = 4.0;
    assert_eq!(p.validate().unwrap_err().kind(), ErrorKind::ImpossibleRig);
    let e = p.problems().join("\n");
    assert!(e.contains("leg lf") || e.contains("leg LF"), "{e}");
    assert!(e.contains("too short to reach the floor"), "{e}");
    // A gallop stride cap whose stance sweep is longer than the leg's whole reach.
    let mut p = RigParams::default();
    p.stride_cap[2] = 200.0;
    assert_eq!(p.validate().unwrap_err().kind(), ErrorKind::ImpossibleRig);
    let e = p.problems().join("\n");
    assert!(e.contains("stride cap 200") && e.contains("gallop"), "{e}");
    // Refused before anything is generated (`doggoyle emit` then writes nothing: the
    // params_file tests run it).
    let e = ik_gait::emit::emit(&p, Some(1)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ImpossibleRig);
    let plan = Plan::scenarios(&["trot-2.5"], &[60.0], Backend::Reference).unwrap();
    let e = run_checks(&p, &plan, &mut |_| {}).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ImpossibleRig);
}
