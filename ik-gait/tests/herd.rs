//! `doggoyle bench --dogs N --threads T` (issue 17, "all cores"): N dogs spread over threads
//! give, bit for bit, what each dog gives run alone; the rig is compiled once and shared;
//! a dog's own state is its slots plus a small constant.

use ik_gait::bench::{dog_inputs, measure_herd, outputs_digest};
use ik_gait::runner::{Backend, MolangRig};
use ik_gait::scenarios::{find, inputs};
use ik_gait::RigParams;

#[test]
fn dogs_on_two_threads_match_each_dog_run_alone() {
    let p = RigParams::default();
    let inp = inputs(&find("trot-2.5").unwrap(), 60.0, false);
    let (dogs, frames) = (5, 90u64);
    let jit2 = measure_herd(&p, Backend::Jit, &inp, dogs, 2, frames).unwrap();
    let jit1 = measure_herd(&p, Backend::Jit, &inp, dogs, 1, frames).unwrap();
    let interp2 = measure_herd(&p, Backend::Interp, &inp, dogs, 2, frames).unwrap();
    assert_eq!(jit2.threads, 2);
    assert_eq!(jit2.frames, dogs as u64 * frames);
    assert_eq!(jit2.digests, jit1.digests);
    assert_eq!(interp2.digests, jit2.digests);
    // Each dog alone: its own instance of a freshly compiled rig, on its own inputs.
    let rig = MolangRig::new(&p, true).unwrap();
    for (i, d) in jit2.digests.iter().enumerate() {
        let mut e = rig.instantiate();
        let mut h = 0xcbf2_9ce4_8422_2325;
        for f in dog_inputs(i, &inp).take(frames as usize) {
            h = outputs_digest(h, &rig.frame(&mut e, &f).unwrap());
        }
        assert_eq!(*d, h, "dog {i}");
    }
    // Dogs run at other speeds, so their outputs differ.
    let mut distinct = jit2.digests.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), dogs);
    // The reference on threads repeats itself too.
    let r1 = measure_herd(&p, Backend::Reference, &inp, dogs, 1, frames).unwrap();
    let r2 = measure_herd(&p, Backend::Reference, &inp, dogs, 2, frames).unwrap();
    assert_eq!(r1.digests, r2.digests);
}

#[test]
fn a_dog_owns_its_slots_and_a_small_constant() {
    let p = RigParams::default();
    let rig = MolangRig::new(&p, true).unwrap();
    let names = rig.scripts.names();
    let slots = names.variables.len() + names.temps.len() + names.contexts.len();
    let queries = names.queries.len();
    let inp = inputs(&find("trot-2.5").unwrap(), 60.0, false);
    let row = measure_herd(&p, Backend::Jit, &inp, 3, 2, 30).unwrap();
    // 13 bytes a slot (f32, tag byte, 64 payload bits), a query as an f32 and a Value (24),
    // and the instance record itself.
    let bound = 13 * slots + 28 * queries + 1024;
    assert!(
        row.bytes_per_dog >= 13 * slots && row.bytes_per_dog <= bound,
        "{} bytes per dog, {slots} slots, {queries} queries, bound {bound}",
        row.bytes_per_dog
    );
}
