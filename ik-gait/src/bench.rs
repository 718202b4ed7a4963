//! `doggoyle bench`: rig frames per second on each back end, and how many dogs one core
//! animates at 60 fps. A quick, self-contained measurement for users; the criterion benchmark
//! (`benches/backends.rs`, `doggoyle_frame`) is the careful one.

use crate::error::{Error, ErrorKind};
use crate::math::Real;
use crate::reference::{step, Inputs, Outputs, OutputsT, RigStateT};
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
) -> Result<BenchRow, Error> {
    if inputs.len() <= warm {
        return Err(Error::new(
            ErrorKind::Config,
            format!(
                "need more than {warm} frames of input, got {}",
                inputs.len()
            ),
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

/// `doggoyle bench --dogs N --threads T`: one measurement of N dogs on T threads.
#[derive(Clone, Debug)]
pub struct HerdRow {
    pub backend: Backend,
    pub dogs: usize,
    pub threads: usize,
    /// Rig frames run, all dogs together.
    pub frames: u64,
    pub elapsed: Duration,
    /// Per dog, in dog order: a digest of every output of every frame (bits, see
    /// [`outputs_digest`]); the same dogs give the same digests on any number of threads.
    pub digests: Vec<u64>,
    /// Bytes of one dog's own state (its slots and the instance around them; the reference's
    /// state struct). The compiled rig is shared by every dog.
    pub bytes_per_dog: usize,
}

impl HerdRow {
    pub fn frames_per_second(&self) -> f64 {
        self.frames as f64 / self.elapsed.as_secs_f64().max(1e-12)
    }
}

/// The golden ratio's fraction: successive multiples spread evenly over [0, 1).
const SPREAD: f64 = 0.618_033_988_749_894_8;

/// Where dog `i` starts in `len` frames of input: dog 0 at the start, the others spread over
/// the whole trace.
pub fn dog_offset(i: usize, len: usize) -> usize {
    ((i as f64 * SPREAD).fract() * len as f64) as usize % len.max(1)
}

/// How fast dog `i` goes, as a factor of the scenario's speed: 1 for dog 0, between 0.75
/// and 1.25 for the others (a steady scenario is the same from any starting frame, so the
/// speed is what makes the dogs differ).
pub fn dog_speed(i: usize) -> f32 {
    if i == 0 {
        1.0
    } else {
        (0.75 + 0.5 * (i as f64 * SPREAD).fract()) as f32
    }
}

/// Dog `i`'s inputs: `inputs` from [`dog_offset`] on, cyclically, with the ground speed and
/// the distance moved scaled by [`dog_speed`].
pub fn dog_inputs(i: usize, inputs: &[Inputs]) -> impl Iterator<Item = Inputs> + '_ {
    let k = dog_speed(i);
    let start = dog_offset(i, inputs.len());
    (inputs.iter().cycle().skip(start)).map(move |x| Inputs {
        ground_speed: x.ground_speed * k,
        mdm: x.mdm * k,
        ..*x
    })
}

/// Runs `dogs` independent rigs for `frames` frames each on `threads` threads (rayon; 0: one
/// per core). Dog `i` reads [`dog_inputs`]. The Molang back ends
/// compile the rig once and share it (native code included); each dog is one
/// [`molang::entity::EntityInstance`]. Compiling happens before the clock starts.
pub fn measure_herd(
    p: &RigParams,
    backend: Backend,
    inputs: &[Inputs],
    dogs: usize,
    threads: usize,
    frames: u64,
) -> Result<HerdRow, Error> {
    use rayon::prelude::*;
    if inputs.is_empty() || dogs == 0 {
        return Err(Error::new(
            ErrorKind::Config,
            "need at least one frame of input and one dog",
        ));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| {
            Error::new(
                ErrorKind::Config,
                format!("cannot start {threads} threads: {e}"),
            )
        })?;
    let threads = pool.current_num_threads();
    let frames_of = |i: usize| dog_inputs(i, inputs).take(frames as usize);
    let (elapsed, digests, bytes_per_dog) = match backend {
        Backend::Reference | Backend::Reference64 => {
            let f64_ = backend.is_f64();
            let run = |i: usize| -> u64 {
                if f64_ {
                    reference_dog::<f64>(p, frames_of(i))
                } else {
                    reference_dog::<f32>(p, frames_of(i))
                }
            };
            let start = Instant::now();
            let d: Vec<u64> =
                pool.install(|| (0..dogs).into_par_iter().with_max_len(1).map(run).collect());
            let bytes = if f64_ {
                std::mem::size_of::<RigStateT<f64>>()
            } else {
                std::mem::size_of::<RigStateT<f32>>()
            };
            (start.elapsed(), d, bytes)
        }
        Backend::Interp | Backend::Jit => {
            let rig = MolangRig::new(p, backend == Backend::Jit)?;
            let mut herd: Vec<_> = (0..dogs).map(|_| rig.instantiate()).collect();
            let run = |(i, e): (usize, &mut molang::entity::EntityInstance)| {
                let mut h = FNV_OFFSET;
                for inp in frames_of(i) {
                    h = outputs_digest(h, &rig.frame(e, black_box(&inp))?);
                }
                Ok::<u64, Error>(h)
            };
            let start = Instant::now();
            let d: Result<Vec<u64>, Error> = pool.install(|| {
                (herd.par_iter_mut().enumerate())
                    .with_max_len(1)
                    .map(run)
                    .collect()
            });
            let elapsed = start.elapsed();
            let bytes = herd.iter().map(|e| e.state_bytes()).max().unwrap_or(0);
            (elapsed, d?, bytes)
        }
    };
    Ok(HerdRow {
        backend,
        dogs,
        threads,
        frames: frames * dogs as u64,
        elapsed,
        digests,
        bytes_per_dog,
    })
}

/// One reference dog over its frames: the digest of its outputs.
fn reference_dog<T: Real>(p: &RigParams, frames: impl Iterator<Item = Inputs>) -> u64 {
    let mut frames = frames.peekable();
    let Some(first) = frames.peek() else {
        return FNV_OFFSET;
    };
    let mut s = RigStateT::<T>::new(p, first.mdm);
    let mut h = FNV_OFFSET;
    for i in frames {
        let o: OutputsT<T> = step(&mut s, black_box(&i), p);
        h = outputs_digest(h, &o.to_f32());
    }
    h
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Folds the bits of every field of `o` into `h` (FNV-1a over the f32 bit patterns, so `-0`,
/// `0` and NaNs differ).
pub fn outputs_digest(mut h: u64, o: &Outputs) -> u64 {
    let scalars = [
        o.body_p,
        o.body_roll,
        o.body_dy,
        o.neck_x,
        o.head_x,
        o.gait,
        o.omega,
        o.settle,
        o.dt,
        o.speed,
        o.dyaw,
    ];
    let all = (scalars.iter())
        .chain(o.legs.iter().flatten())
        .chain(&o.ry)
        .chain(&o.ph)
        .chain(&o.sw)
        .chain(&o.rem)
        .chain(&o.epose);
    for v in all {
        h ^= v.to_bits() as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
