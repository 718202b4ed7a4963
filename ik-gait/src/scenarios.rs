//! The §10 scenarios as per-frame input traces, the hitch modifier and the random soak.

use crate::error::{Error, ErrorKind};
use crate::reference::Inputs;
use molang::runtime::inputs::{lerp_angle, wrap_deg};

/// What the host reports at time t (s).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub speed: f32,
    pub on_ground: bool,
    pub vy: f32,
    pub in_water: bool,
    pub sit: bool,
    pub lie: bool,
    /// `q.body_y_rotation`, degrees (issue 19).
    pub yaw: f32,
}

fn ground(speed: f32) -> Sample {
    Sample {
        speed,
        on_ground: true,
        ..Sample::default()
    }
}

fn swimming(speed: f32) -> Sample {
    Sample {
        speed,
        in_water: true,
        ..Sample::default()
    }
}

/// Linear interpolation helper over (t, value) knots.
fn knots(t: f32, k: &[(f32, f32)]) -> f32 {
    if t <= k[0].0 {
        return k[0].1;
    }
    for w in k.windows(2) {
        let ((t0, v0), (t1, v1)) = (w[0], w[1]);
        if t <= t1 {
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
        }
    }
    k[k.len() - 1].1
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Constant speed (steady-gait checks apply after warm-up).
    Steady,
    Transition,
    Pose,
}

pub struct Scenario {
    pub name: &'static str,
    pub duration: f32,
    pub kind: Kind,
    /// Per-frame random speed jitter amplitude (m/s).
    pub jitter: f32,
    pub sample: fn(f32) -> Sample,
    /// Rows of a user's CSV (t, speed, on_ground, vy, in_water, sit, lie, yaw); when set it
    /// replaces `sample`.
    pub table: Option<Vec<[f32; 8]>>,
}

/// The columns [`Scenario::from_csv`] reads, in this order (after `query.` → `q.`,
/// case-insensitive).
pub const CSV_COLUMNS: [&str; 8] = [
    "t",
    "q.ground_speed",
    "q.is_on_ground",
    "q.vertical_speed",
    "q.is_in_water",
    "q.is_sitting",
    "q.is_sleeping",
    "q.body_y_rotation",
];

impl Scenario {
    /// Inputs at time t (and the body yaw, which only a CSV supplies).
    pub fn at(&self, t: f32) -> (Sample, f32) {
        let Some(rows) = &self.table else {
            let x = (self.sample)(t);
            return (x, x.yaw);
        };
        let k = rows.partition_point(|r| r[0] <= t);
        let mut r = if k == 0 {
            rows[0]
        } else if k >= rows.len() {
            rows[rows.len() - 1]
        } else {
            let (a, b) = (rows[k - 1], rows[k]);
            let w = if b[0] > a[0] {
                (t - a[0]) / (b[0] - a[0])
            } else {
                0.0
            };
            let mut r: [f32; 8] = std::array::from_fn(|i| a[i] + (b[i] - a[i]) * w);
            // The game reports yaw wrapped, so a recorded turn crosses ±180 between rows:
            // the shorter arc, as `molang run` reads the same column.
            r[7] = lerp_angle(a[7], b[7], w);
            r
        };
        r[7] = wrap_deg(r[7]);
        // Flags are interpolated too, then read as set from 0.5 (a Molang flag is 0 or 1).
        let flag = |x: f32| x >= 0.5;
        (
            Sample {
                speed: r[1],
                on_ground: flag(r[2]),
                vy: r[3],
                in_water: flag(r[4]),
                sit: flag(r[5]),
                lie: flag(r[6]),
                yaw: r[7],
            },
            r[7],
        )
    }

    /// A scenario from CSV text: header with `t` then the query columns in any order
    /// (`q.ground_speed`, `q.is_on_ground`, `q.vertical_speed`, `q.is_in_water`,
    /// `q.is_sitting`, `q.is_sleeping`, `q.body_y_rotation`; `query.` also accepted).
    /// Missing columns default to 0 (`is_on_ground` to 1).
    pub fn from_csv(name: &'static str, text: &str) -> Result<Scenario, Error> {
        Scenario::from_csv_text(name, text).map_err(|e| Error::new(ErrorKind::Inputs, e))
    }

    fn from_csv_text(name: &'static str, text: &str) -> Result<Scenario, String> {
        use molang::text::{csv_lines, csv_split, excerpt};
        // A byte-order mark (spreadsheets write one) is not part of the first column's name.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // Records (quoted fields may hold line breaks), each line and cell length bounded.
        let mut lines = csv_lines(text)
            .map(|r| r.map_err(|e| format!("line {}: {}", e.line, e.message)))
            .filter(|r| r.as_ref().map_or(true, |(_, l)| !l.trim().is_empty()));
        let (_, head) = lines.next().transpose()?.ok_or("empty CSV")?;
        let header: Vec<String> = csv_split(head)
            .map_err(|e| format!("line 1: {e}"))?
            .into_iter()
            .map(|(_, h)| h.trim().to_ascii_lowercase().replace("query.", "q."))
            .collect();
        let idx: Vec<Option<usize>> = CSV_COLUMNS
            .iter()
            .map(|c| header.iter().position(|h| h == c))
            .collect();
        if idx[0].is_none() {
            return Err("CSV needs a `t` column".into());
        }
        let mut rows = Vec::new();
        for r in lines {
            let (line, raw) = r?;
            let cells = csv_split(raw).map_err(|e| format!("line {line}: {e}"))?;
            let mut r = [0.0f32, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
            for (i, ix) in idx.iter().enumerate() {
                if let Some(ix) = ix {
                    let (at, c) = cells
                        .get(*ix)
                        .ok_or_else(|| format!("line {line}: missing column {}", CSV_COLUMNS[i]))?;
                    let c = c.trim();
                    let where_ = format!("line {line}, column {} ({})", at + 1, CSV_COLUMNS[i]);
                    let x: f32 = c
                        .parse()
                        .map_err(|_| format!("{where_}: `{}` is not a number", excerpt(c, 60)))?;
                    // NaN or an infinity would drive the rig with nonsense, silently.
                    if !x.is_finite() {
                        return Err(format!(
                            "{where_}: `{}` is not a finite number",
                            excerpt(c, 60)
                        ));
                    }
                    r[i] = x;
                }
            }
            rows.push(r);
        }
        if rows.is_empty() {
            return Err("CSV has no rows".into());
        }
        rows.sort_by(|a, b| a[0].total_cmp(&b[0]));
        let duration = rows[rows.len() - 1][0];
        Ok(Scenario {
            name,
            duration,
            kind: Kind::Transition,
            jitter: 0.0,
            sample: |_| Sample::default(),
            table: Some(rows),
        })
    }
}

pub fn named() -> Vec<Scenario> {
    let s = |name, duration, kind, sample: fn(f32) -> Sample| Scenario {
        name,
        duration,
        kind,
        jitter: 0.0,
        sample,
        table: None,
    };
    vec![
        s("walk-1.0", 8.0, Kind::Steady, |_| ground(1.0)),
        s("walk-1.5", 8.0, Kind::Steady, |_| ground(1.5)),
        s("trot-2.5", 8.0, Kind::Steady, |_| ground(2.5)),
        s("trot-3.8", 8.0, Kind::Steady, |_| ground(3.8)),
        s("gallop-5.0", 8.0, Kind::Steady, |_| ground(5.0)),
        s("gallop-7.5", 8.0, Kind::Steady, |_| ground(7.5)),
        s("accel-decel", 8.0, Kind::Transition, |t| {
            ground(knots(t, &[(0.0, 0.0), (2.0, 7.5), (4.0, 7.5), (5.5, 0.0)]))
        }),
        s("sine-gaits", 9.0, Kind::Transition, |t| {
            ground(2.8 + 1.6 * (std::f32::consts::TAU * t / 3.0).sin())
        }),
        s("sine-walk-trot", 9.0, Kind::Transition, |t| {
            ground(1.5 + 0.3 * (std::f32::consts::TAU * t / 3.0).sin())
        }),
        s("ramp-20s", 20.0, Kind::Transition, |t| {
            ground(knots(t, &[(0.0, 0.0), (20.0, 8.0)]))
        }),
        Scenario {
            name: "jitter",
            duration: 8.0,
            kind: Kind::Transition,
            jitter: 0.6,
            sample: |_| ground(2.0),
            table: None,
        },
        s("walk-stop-sit-stand-walk", 12.0, Kind::Pose, |t| {
            let mut x = ground(if !(3.0..9.0).contains(&t) { 1.0 } else { 0.0 });
            x.sit = (4.5..7.5).contains(&t);
            x
        }),
        s("walk-stop-lie-stand", 10.0, Kind::Pose, |t| {
            let mut x = ground(if t < 3.0 { 1.0 } else { 0.0 });
            x.lie = (4.5..8.0).contains(&t);
            x
        }),
        s("run-jump", 7.0, Kind::Pose, |t| {
            let mut x = ground(5.0);
            if (3.0..3.6).contains(&t) {
                x.on_ground = false;
                x.vy = 5.0 + (-4.6 - 5.0) * (t - 3.0) / 0.6;
            }
            x
        }),
        s("trot-stop-sit-lie", 11.0, Kind::Pose, |t| {
            let mut x = ground(if t < 3.0 { 2.5 } else { 0.0 });
            x.sit = (3.5..6.5).contains(&t);
            x.lie = (5.0..8.5).contains(&t);
            x
        }),
        s("swim-walk-out", 8.0, Kind::Pose, |t| {
            if t < 4.0 {
                swimming(0.8)
            } else {
                ground(1.0)
            }
        }),
        s("swim-sit-lie", 9.0, Kind::Pose, |t| {
            let mut x = if t < 5.0 { swimming(0.6) } else { ground(0.0) };
            x.sit = (1.0..3.0).contains(&t);
            x.lie = (2.0..7.0).contains(&t);
            x
        }),
        // Issue 19: turning. Yaw grows for a right turn (the game's q.body_y_rotation).
        s("circle-walk-left", 8.0, Kind::Transition, |t| {
            turning(1.0, -45.0 * t)
        }),
        s("circle-walk-right", 8.0, Kind::Transition, |t| {
            turning(1.0, 45.0 * t)
        }),
        s("circle-trot-left", 8.0, Kind::Transition, |t| {
            turning(2.5, -60.0 * t)
        }),
        s("circle-trot-right", 8.0, Kind::Transition, |t| {
            turning(2.5, 60.0 * t)
        }),
        // A chase: 7.5 m/s, heading swinging ±25° every 1.2 s (peak 131°/s).
        s("zigzag-gallop", 8.0, Kind::Transition, |t| {
            turning(7.5, 25.0 * (std::f32::consts::TAU * t / 1.2).sin())
        }),
        // Turn in place: 180° over 1 s at no speed, then stand.
        s("turn-in-place", 5.0, Kind::Transition, |t| {
            turning(0.0, 180.0 * ((t - 1.0).clamp(0.0, 1.0)))
        }),
    ]
}

fn turning(speed: f32, yaw: f32) -> Sample {
    Sample {
        yaw,
        ..ground(speed)
    }
}

/// The frame rates the rig tools accept: finite, 1 to 1000 fps (the checks use up to 960).
pub const FPS_RANGE: (f32, f32) = (1.0, 1000.0);

/// Validates a frame rate; the message says what is accepted.
pub fn check_fps(fps: f32) -> Result<f32, Error> {
    if fps.is_finite() && fps >= FPS_RANGE.0 && fps <= FPS_RANGE.1 {
        Ok(fps)
    } else {
        Err(Error::new(
            ErrorKind::Config,
            format!(
                "--fps {fps}: a frame rate must be a finite number from {} to {} frames per second",
                FPS_RANGE.0, FPS_RANGE.1
            ),
        ))
    }
}

pub fn find(name: &str) -> Option<Scenario> {
    named().into_iter().find(|s| s.name == name)
}

/// Small deterministic generator (SplitMix64) for jitter and soaks.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

fn to_inputs_yaw(x: Sample, dt: f32, mdm: f32, yaw: f32) -> Inputs {
    let f = |b: bool| if b { 1.0 } else { 0.0 };
    Inputs {
        dt,
        ground_speed: x.speed.max(0.0),
        mdm,
        on_ground: f(x.on_ground),
        vertical_speed: x.vy,
        in_water: f(x.in_water),
        sit: f(x.sit),
        lie: f(x.lie),
        // As the game reports it (the scenarios and soaks turn past ±180 on their own).
        body_yaw: wrap_deg(yaw),
    }
}

/// The time of frame `k` at a fixed `fps`: k / fps, the `molang run` clock (frame 0 at t = 0),
/// so that `doggoyle`'s frame k reads the scenario at the same time as `molang run`'s frame k.
pub fn frame_time(k: usize, fps: f32) -> f32 {
    molang::runtime::driver::frame_time(k as u64, fps)
}

/// Frame inputs at a fixed frame rate; `hitch` inserts a 0.25 s frame every 37 frames.
/// Frame k reads the scenario at t = k / fps ([`frame_time`], the `molang run` clock: frame 0
/// at t = 0), and its dt is the time since the frame before (1/fps, the first frame
/// included, as in `molang run`). A scenario of T seconds at F fps has T·F frames (rounded)
/// at every F: the count is fixed up front, so no sum of frame times can add or drop a frame.
/// With hitches frame k is at the sum of the frame times after frame 0 (in f64), and the run
/// ends before T − 0.5/F.
pub fn inputs(sc: &Scenario, fps: f32, hitch: bool) -> Vec<Inputs> {
    frames(sc, fps, hitch).collect()
}

/// The frames of [`inputs`], made one at a time (a long run need not be held in memory).
pub fn frames(sc: &Scenario, fps: f32, hitch: bool) -> impl Iterator<Item = Inputs> + '_ {
    let mut t_hitch = 0.0f64;
    let mut mdm = 0.0f32;
    let mut rng = Rng::new(0x5eed ^ fps as u64);
    let mut k = 0usize;
    let end = (sc.duration - 0.5 / fps) as f64;
    let count = (sc.duration as f64 * fps as f64).round() as usize;
    std::iter::from_fn(move || {
        if !(if hitch { t_hitch < end } else { k < count }) {
            return None;
        }
        let dt = if hitch && k % 37 == 36 {
            0.25
        } else {
            1.0 / fps
        };
        // A frame's dt is the time since the frame before (the game's `q.delta_time`), so a
        // hitch frame comes 0.25 s after the previous one.
        if hitch && k > 0 {
            t_hitch += dt as f64;
        }
        let t = if hitch {
            t_hitch as f32
        } else {
            frame_time(k, fps)
        };
        let (mut x, yaw) = sc.at(t);
        if sc.jitter > 0.0 {
            x.speed = (x.speed + sc.jitter * (2.0 * rng.unit() - 1.0)).max(0.0);
        }
        // The counter runs at about 4× distance [W]; the rig reads it only as a fallback.
        mdm += 4.0 * x.speed * dt;
        k += 1;
        Some(to_inputs_yaw(x, dt, mdm, yaw))
    })
}

/// The start time of every frame of a run (s): the sum of the frame times before it, so the
/// first frame is at 0 (for a fixed-rate run, k / fps up to rounding; see [`frame_time`]).
pub fn start_times(inputs: &[Inputs]) -> impl Iterator<Item = f64> + '_ {
    inputs.iter().scan(0.0f64, |t, i| {
        let now = *t;
        *t += i.dt as f64;
        Some(now)
    })
}

/// One soak run: 60 s of random 0.3–2.5 s segments (speed from {0, 0.6, …, 7.5}, random
/// sit/lie/swim/jump flags), frame times random in {1/144, 1/120, 1/60, 1/30, 1/20}.
pub fn soak(seed: u64, duration: f32) -> Vec<Inputs> {
    soak_frames(seed, duration, false).collect()
}

/// The soak with random yaw rates (issue 19): the same segments and frames as [`soak`] with
/// the same seed, and in each segment a yaw rate, 0 in a quarter of them, else uniform in
/// ±150°/s, drawn from a second generator so that the rest of the run is unchanged.
pub fn soak_yaw(seed: u64, duration: f32) -> Vec<Inputs> {
    soak_frames(seed, duration, true).collect()
}

/// One soak segment: its start and length, and what the dog does in it.
struct Segment {
    t0: f32,
    len: f32,
    x: Sample,
    jump: bool,
    rate: f32,
}

/// The frames of [`soak`] (or [`soak_yaw`]) made one at a time. A frame's dt is the time
/// since the frame before, and the frame reads its segment (and the heading) at the end of it.
pub fn soak_frames(seed: u64, duration: f32, with_yaw: bool) -> impl Iterator<Item = Inputs> {
    let mut rng = Rng::new(seed);
    let mut yrng = Rng::new(seed ^ 0x7a3e_51d0_c0ff_ee00);
    let mut yaw = 0.0f32;
    let dts = [
        1.0 / 144.0,
        1.0 / 120.0,
        1.0 / 60.0,
        1.0 / 30.0,
        1.0 / 20.0f32,
    ];
    let (mut t, mut mdm) = (0.0f32, 0.0f32);
    let mut seg: Option<Segment> = None;
    std::iter::from_fn(move || {
        if t >= duration {
            return None;
        }
        if seg.as_ref().is_none_or(|s| t >= s.t0 + s.len) {
            let len = 0.3 + 2.2 * rng.unit();
            let speed = 0.6 * rng.below(13) as f32 * if rng.unit() < 0.25 { 0.0 } else { 1.0 };
            let r = rng.unit();
            // One state per segment: plain, sit, lie, swim or jump.
            let (sit, lie, swim, jump) = (
                r < 0.12,
                (0.12..0.22).contains(&r),
                (0.22..0.32).contains(&r),
                (0.32..0.42).contains(&r),
            );
            let rate = if !with_yaw || yrng.unit() < 0.25 {
                0.0
            } else {
                150.0 * (2.0 * yrng.unit() - 1.0)
            };
            let x = Sample {
                speed: if sit || lie { 0.0 } else { speed },
                on_ground: !swim,
                in_water: swim,
                sit,
                lie,
                ..Sample::default()
            };
            seg = Some(Segment {
                t0: t,
                len,
                x,
                jump,
                rate,
            });
        }
        let s = seg.as_ref()?;
        // As in the game, a frame's dt is the time since the frame before, so the frame is
        // at the end of it.
        let dt = dts[rng.below(dts.len())];
        t += dt;
        let mut x = s.x;
        let jump_len = s.len.min(0.6);
        if s.jump && t - s.t0 < jump_len {
            x.on_ground = false;
            x.vy = 5.0 + (-4.6 - 5.0) * (t - s.t0) / jump_len;
        }
        mdm += 4.0 * x.speed * dt;
        yaw += s.rate * dt;
        Some(to_inputs_yaw(x, dt, mdm, yaw))
    })
}
