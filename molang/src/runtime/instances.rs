//! Many instances of one entity type, each with its own inputs, spread over threads (issue
//! 17, "all cores"): what `molang run --bench --instances N --threads T` times.
//!
//! Every instance is a [`Runtime::fork`] of one loaded runtime: the model, the compiled
//! expressions and their native code are shared through `Arc`s, an instance owns only its
//! state ([`Runtime::instance_bytes`]). Instances never touch each other, so a thread runs
//! all the frames of the instances it is given, start to end, with no synchronisation per
//! frame; the results do not depend on the number of threads.

use super::driver::{frame_time, Driver};
use super::inputs::Timeline;
use super::play::{Pose, Runtime};
use rayon::prelude::*;

/// One instance: its runtime, its inputs and how far ahead of instance 0 they run.
struct Instance {
    rt: Runtime,
    driver: Driver,
    offset: f32,
}

/// N instances of one entity type.
pub struct Instances {
    list: Vec<Instance>,
    fps: f32,
}

/// The golden ratio's fraction: successive multiples spread evenly over [0, 1).
const SPREAD: f64 = 0.618_033_988_749_894_8;

impl Instances {
    /// `n` forks of `base`, driven by `timeline` at `fps`. Instance `i` is seeded with
    /// `seed + i` and runs the timeline `offset(i)` seconds ahead (`t + offset` for the inputs
    /// and the entity's clock): offsets are the fractions of `i × 0.618…` times `span`
    /// seconds, so instance 0 runs exactly what `molang run` runs and the others see other
    /// parts of the timeline. Returns the driver's notes (of instance 0; the others are the
    /// same).
    pub fn new(
        mut base: Runtime,
        timeline: &Timeline,
        n: usize,
        fps: f32,
        seed: u64,
        span: f32,
    ) -> (Instances, Vec<super::driver::InputNote>) {
        // This driver adds the input slots to `base`, so every fork has them and the forks'
        // own drivers find them without copying the shared scripts.
        let (_, notes) = Driver::new(timeline, &mut base);
        let mut list = Vec::with_capacity(n);
        for i in 0..n {
            let mut rt = base.fork(seed.wrapping_add(i as u64));
            let (driver, _) = Driver::new(timeline, &mut rt);
            let offset = ((i as f64 * SPREAD).fract() * span as f64) as f32;
            list.push(Instance { rt, driver, offset });
        }
        (Instances { list, fps }, notes)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Runs `frames` frames of every instance on `threads` threads (0: one per core) and
    /// returns each instance's digest of its poses (see [`pose_digest`]), in instance order.
    /// The same instances give the same digests on any number of threads.
    pub fn run(&mut self, frames: u64, threads: usize) -> Result<Vec<u64>, String> {
        self.run_timed(frames, threads).map(|(d, _)| d)
    }

    /// [`Instances::run`], with the time the frames took (starting the threads not counted).
    pub fn run_timed(
        &mut self,
        frames: u64,
        threads: usize,
    ) -> Result<(Vec<u64>, std::time::Duration), String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
        let fps = self.fps;
        let start = std::time::Instant::now();
        let digests = pool.install(|| {
            (self.list.par_iter_mut())
                .with_max_len(1)
                .map(|inst| inst.run(frames, fps))
                .collect()
        });
        Ok((digests, start.elapsed()))
    }

    /// Runs the instances one after another on the calling thread (what [`Instances::run`]
    /// must agree with).
    pub fn run_sequential(&mut self, frames: u64) -> Vec<u64> {
        let fps = self.fps;
        self.list.iter_mut().map(|i| i.run(frames, fps)).collect()
    }

    /// [`Runtime::instance_bytes`] of each instance.
    pub fn instance_bytes(&self) -> Vec<usize> {
        self.list.iter().map(|i| i.rt.instance_bytes()).collect()
    }

    /// Whether every expression runs as native code.
    pub fn is_native(&self) -> bool {
        self.list.first().is_some_and(|i| i.rt.is_native())
    }

    /// The runtime of instance `i`.
    pub fn runtime(&self, i: usize) -> &Runtime {
        &self.list[i].rt
    }
}

impl Instance {
    fn run(&mut self, frames: u64, fps: f32) -> u64 {
        let dt = 1.0 / fps;
        let mut digest = FNV_OFFSET;
        for frame in 0..frames {
            let t = frame_time(frame, fps) + self.offset;
            digest = pose_digest(digest, self.driver.step(&mut self.rt, t, dt));
            // The content log is not part of the pose; dropping it keeps memory flat.
            self.rt.take_log();
        }
        digest
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Folds the bits of every bone channel and world position of `pose` into `h` (FNV-1a over
/// the f32 bit patterns, so `-0`, `0` and NaNs differ).
pub fn pose_digest(mut h: u64, pose: &Pose) -> u64 {
    let all = (pose.rot.iter())
        .chain(&pose.pos)
        .chain(&pose.scale)
        .chain(&pose.world)
        .chain(&pose.locators);
    for v in all.flatten() {
        h ^= v.to_bits() as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
