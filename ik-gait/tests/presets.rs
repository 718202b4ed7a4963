//! Preset rules that a check needs (README, Presets).

use ik_gait::checks::{find_row, run_checks, Check, Plan, Row};
use ik_gait::params::with_baked_rest;
use ik_gait::presets;
use ik_gait::runner::Backend;

fn row8(rows: &[Row]) -> &Row {
    find_row(rows, Check::ThighSpeed).expect("a check 8 row")
}

/// Check 8 (thigh speed ≤ 500·f at 240 fps, steady) in walk-1.5 and gallop-7.5: the mastiff's
/// fastest walk (its Froude-scaled walk → trot speed is 1.50 m/s) and its top gallop. With the
/// scaled stride caps (18.4 / 41.4 px) and paws 10 % deeper, as the preset had them, the hind
/// swing peaked at 563·f; the shorter walk and gallop caps and paws of the scaled depth keep it
/// under 500·f.
#[test]
fn mastiff_stride_caps_keep_check_8_in_its_fastest_walk_and_gallop() {
    let names = ["walk-1.5", "gallop-7.5"];
    let plan = Plan::scenarios(&names, &[240.0], Backend::Jit).unwrap();
    let p = presets::mastiff();
    let rows = run_checks(&p, &plan, &mut |_| {}).unwrap();
    let r = row8(&rows);
    assert!(r.pass(), "mastiff: {r:?}");

    // The preset as it was: scaled caps, paws 10 % deeper.
    let mut old = p.clone();
    let scaled = presets::scaled(1.15);
    old.stride_cap = scaled.stride_cap;
    for l in &mut old.legs {
        l.sd *= 1.1;
        l.sit[1] = l.sd;
        l.lie[1] = l.sd;
    }
    let old = with_baked_rest(old);
    let rows = run_checks(&old, &plan, &mut |_| {}).unwrap();
    let r = row8(&rows);
    assert!(!r.pass(), "the old mastiff should fail check 8: {r:?}");
}
