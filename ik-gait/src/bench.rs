//! `doggoyle bench`: rig frames per second on each back end, and how many dogs one core
//! animates at 60 fps. A quick, self-contained measurement for users; the criterion benchmark
//! (`benches/backends.rs`, `doggoyle_frame`) is the careful one.

use crate::math::Real;
use crate::reference::{step, Inputs, OutputsT, RigStateT};
use crate::runner::{Backend, MolangRig};
use crate::RigParams;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// One back end's measurement.
#[derive(Clone, Debug)]
pub struct BenchRow {
    pub backend: Backend,
    pub frames: u64,
    pub elapsed: Duration,
}

impl BenchRow {
    pub fn ns_per_frame(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / self.frames.max(1) as f64
    }
    pub fn frames_per_second(&self) -> f64 {
        1e9 / self.ns_per_frame()
    }
    /// Dogs one core keeps at `fps` when it does nothing else.
    pub fn dogs_per_core(&self, fps: f64) -> f64 {
        self.frames_per_second() / fps
    }
}

/// Runs `warm` frames untimed, then cycles over `frames` for at least `min_time`.
///
/// Every back end runs the same frames; the Molang back ends set the same nine queries by
/// slot and read the same outputs back as the reference returns, so the work compared is
/// the same.
pub fn measure(
    p: &RigParams,
    backend: Backend,
    inputs: &[Inputs],
    warm: usize,
    min_time: Duration,
) -> Result<BenchRow, String> {
    if inputs.len() <= warm {
        return Err(format!(
            "need more than {warm} frames of input, got {}",
            inputs.len()
        ));
    }
    let timed = &inputs[warm..];
    let mut frames = 0u64;
    let start;
    match backend {
        Backend::Reference => {
            (start, frames) = time_reference::<f32>(p, inputs, warm, min_time);
        }
        Backend::Reference64 => {
            (start, frames) = time_reference::<f64>(p, inputs, warm, min_time);
        }
        Backend::Interp | Backend::Jit => {
            let rig = MolangRig::new(p, backend == Backend::Jit)?;
            let mut e = rig.instantiate();
            for i in &inputs[..warm] {
                rig.frame(&mut e, i)?;
            }
            start = Instant::now();
            while start.elapsed() < min_time {
                for i in timed {
                    let o = rig.frame(&mut e, black_box(i))?;
                    black_box(&o);
                }
                frames += timed.len() as u64;
            }
        }
    }
    Ok(BenchRow {
        backend,
        frames,
        elapsed: start.elapsed(),
    })
}

/// The reference's timed loop in `T` (outputs kept in `T`, as the caller of `step` gets them).
fn time_reference<T: Real>(
    p: &RigParams,
    inputs: &[Inputs],
    warm: usize,
    min_time: Duration,
) -> (Instant, u64) {
    let timed = &inputs[warm..];
    let mut frames = 0u64;
    let mut s = RigStateT::<T>::new(p, inputs[0].mdm);
    for i in &inputs[..warm] {
        black_box(step(&mut s, i, p));
    }
    let start = Instant::now();
    while start.elapsed() < min_time {
        // The timed frames loop back to the warm state's successor: the rig does not mind a
        // jump in the input clock, and the loop stays allocation-free.
        for i in timed {
            let o: OutputsT<T> = step(&mut s, black_box(i), p);
            black_box(&o);
        }
        frames += timed.len() as u64;
    }
    (start, frames)
}
