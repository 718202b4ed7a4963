//! One entity played on both platforms ([`Platform::X86_64`] and [`Platform::Arm64`]) in
//! lockstep, from the same inputs and seed, to find the first frame where a player on a phone
//! would see something else than a player on a PC (`molang run --platform both`).
//!
//! Compared after each frame, in this order: every bone's channels (rotation, position, scale,
//! then world pivot), the entity's variables, then the content log. Two numbers agree when
//! their bits are equal or both are NaN (a NaN's payload is not visible in a pose).

use super::inputs::Timeline;
use super::trace::CHANNELS;
use super::{frame_time, load_from_pack, Backend, Driver, LogKind, Runtime};
use crate::interp::value::format_f32;
use crate::interp::Platform;
use crate::pack::Pack;

/// What is compared where the platforms first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A bone's channel (`rx` ... `sz`, `wx` `wy` `wz`, as in the trace).
    Channel { bone: String, channel: &'static str },
    /// An entity variable (without prefix).
    Variable(String),
    /// The content log (a line one platform printed and the other did not).
    ContentLog,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Channel { bone, channel } => write!(f, "bone {bone} {channel}"),
            Place::Variable(v) => write!(f, "variable.{v}"),
            Place::ContentLog => f.write_str("content log"),
        }
    }
}

/// The first place, in the first frame, where the two platforms differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub frame: u64,
    pub t: f32,
    pub place: Place,
    /// The value (or log line) on x86-64, then on arm64, as the trace writes them.
    pub x86_64: String,
    pub arm64: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "frame {} (t = {}): {}: x86-64 {}, arm64 {}",
            self.frame,
            format_f32(self.t),
            self.place,
            self.x86_64,
            self.arm64
        )
    }
}

/// How the entity is played: as `molang run` would, `frames` frames at `fps`.
#[derive(Clone, Copy, Debug)]
pub struct Play {
    pub backend: Backend,
    pub fps: f32,
    pub frames: u64,
    pub seed: u64,
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn shown(v: Option<f32>) -> String {
    v.map_or_else(|| "unset".into(), format_f32)
}

/// Plays entity `id` of `pack` on both platforms; `None` when they agree on every frame.
/// The error is the entity's load error.
pub fn first_difference(
    pack: &Pack,
    id: &str,
    timeline: &Timeline,
    play: &Play,
) -> Result<Option<Difference>, crate::Error> {
    let mut runs = Vec::with_capacity(2);
    for platform in Platform::ALL {
        let mut loaded = load_from_pack(pack, id)?;
        loaded.scripts.set_platform(platform);
        let mut rt = Runtime::new(loaded, play.backend, play.fps, play.seed);
        let (driver, _) = Driver::new(timeline, &mut rt);
        runs.push((rt, driver));
    }
    let [(mut x, mut dx), (mut a, mut da)]: [(Runtime, Driver); 2] = runs
        .try_into()
        .unwrap_or_else(|_| unreachable!("one run per platform"));
    // Variables by name: each run interned its own, in the same order, but a name is the
    // safe key.
    let vars: Vec<(String, crate::ir::Slot, Option<crate::ir::Slot>)> = (x.scripts.names())
        .variables
        .iter()
        .map(|(s, n)| (n.to_string(), s, a.variable_slot(n)))
        .collect();
    let dt = if play.fps > 0.0 { 1.0 / play.fps } else { 0.0 };
    for frame in 0..play.frames {
        let t = frame_time(frame, play.fps);
        for (rt, d) in [(&mut x, &mut dx), (&mut a, &mut da)] {
            d.step(rt, t, dt);
        }
        let diff = |place: Place, x86_64: String, arm64: String| {
            Some(Difference {
                frame,
                t,
                place,
                x86_64,
                arm64,
            })
        };
        let (px, pa) = (x.pose(), a.pose());
        for (b, bone) in x.model.bones.iter().enumerate() {
            for (k, (cx, ca)) in [
                (&px.rot, &pa.rot),
                (&px.pos, &pa.pos),
                (&px.scale, &pa.scale),
                (&px.world, &pa.world),
            ]
            .into_iter()
            .enumerate()
            {
                let (vx, va) = (cx.get(b).copied(), ca.get(b).copied());
                for axis in 0..3 {
                    let (u, w) = (vx.map(|v| v[axis]), va.map(|v| v[axis]));
                    let agree = match (u, w) {
                        (Some(u), Some(w)) => same(u, w),
                        (u, w) => u.is_none() && w.is_none(),
                    };
                    if !agree {
                        let place = Place::Channel {
                            bone: bone.name.clone(),
                            channel: CHANNELS[k * 3 + axis],
                        };
                        return Ok(diff(place, shown(u), shown(w)));
                    }
                }
            }
        }
        for (name, sx, sa) in &vars {
            let u = x.variable(*sx);
            let w = sa.and_then(|s| a.variable(s));
            let agree = match (u, w) {
                (Some(u), Some(w)) => same(u, w),
                (u, w) => u.is_none() && w.is_none(),
            };
            if !agree {
                return Ok(diff(Place::Variable(name.clone()), shown(u), shown(w)));
            }
        }
        let content = |rt: &mut Runtime| -> Vec<String> {
            (rt.take_log().into_iter())
                .filter(|l| l.kind == LogKind::Content)
                .map(|l| l.message)
                .collect()
        };
        let (lx, la) = (content(&mut x), content(&mut a));
        if lx != la {
            let at = (0..).find(|&i| lx.get(i) != la.get(i)).unwrap_or(0);
            let line = |l: &[String]| l.get(at).cloned().unwrap_or_else(|| "(nothing)".into());
            return Ok(diff(Place::ContentLog, line(&lx), line(&la)));
        }
    }
    Ok(None)
}
