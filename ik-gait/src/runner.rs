//! Runs the rig frame by frame on one of four back ends: the Rust reference in `f32` or in
//! `f64`, or the generated Molang through `molang::entity` on the interpreter or the JIT.

use crate::error::{Error, ErrorKind};
use crate::generate::{generate, Generated};
use crate::params::RigParams;
use crate::reference::{step, Inputs, Outputs, RigStateT};
use molang::entity::{EntityInstance, EntityScripts, ScriptSource};
use molang::ir::Slot;
use molang::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The Rust reference in `f32`: bit-identical to the Molang.
    Reference,
    /// The same Rust reference in `f64` (spec §13: checks 1–12 run in f64 too). Its outputs
    /// are rounded to `f32` once, at the end of each frame, for FK and the checks.
    Reference64,
    Interp,
    Jit,
}

impl Backend {
    pub fn parse(s: &str) -> Option<Backend> {
        match s {
            "reference" | "ref" | "rust" | "reference-f32" => Some(Backend::Reference),
            "reference-f64" | "ref-f64" | "ref64" | "rust-f64" => Some(Backend::Reference64),
            "interp" | "interpreter" => Some(Backend::Interp),
            "jit" => Some(Backend::Jit),
            _ => None,
        }
    }
    /// Every back end, for help texts.
    pub const ALL: [Backend; 4] = [
        Backend::Jit,
        Backend::Interp,
        Backend::Reference,
        Backend::Reference64,
    ];
    /// `true` for the back end whose arithmetic is `f64` (the Molang ones are `f32` by
    /// definition).
    pub fn is_f64(self) -> bool {
        self == Backend::Reference64
    }
    pub fn name(self) -> &'static str {
        match self {
            Backend::Reference => "reference",
            Backend::Reference64 => "reference-f64",
            Backend::Interp => "interp",
            Backend::Jit => "jit",
        }
    }
}

/// Compiled Molang rig (one entity type).
pub struct MolangRig {
    pub scripts: EntityScripts,
    /// The output slots in [`OutputSlots::flat`] order, read in one pass a frame.
    reads: [Slot; OUT],
    /// Which legs' joint slots exist (`OutputSlots::legs`).
    legs: [[bool; 4]; 4],
    /// Slots of the per-frame queries, in [`QUERIES`] order (`None`: the rig never reads it).
    queries: [Option<Slot>; 9],
}

/// The queries the runner sets every frame, in the order of [`query_values`].
pub const QUERIES: [&str; 9] = [
    "delta_time",
    "ground_speed",
    "modified_distance_moved",
    "is_on_ground",
    "vertical_speed",
    "is_in_water",
    "is_sitting",
    "is_sleeping",
    "body_y_rotation",
];

/// One frame's query values, in [`QUERIES`] order.
pub fn query_values(i: &Inputs) -> [f32; 9] {
    [
        i.dt,
        i.ground_speed,
        i.mdm,
        i.on_ground,
        i.vertical_speed,
        i.in_water,
        i.sit,
        i.lie,
        i.body_yaw,
    ]
}

/// The number of output slots a frame reads.
const OUT: usize = 48;

struct OutputSlots {
    body: [Slot; 5],
    legs: [[Option<Slot>; 4]; 4],
    gait: Slot,
    ph: [Slot; 4],
    sw: [Slot; 4],
    rem: [Slot; 4],
    ry: [Slot; 4],
    dyaw: Slot,
    omega: Slot,
    settle: Slot,
    epose: [Slot; 5],
    dt: Slot,
    spd: Slot,
}

impl OutputSlots {
    /// Every slot at a fixed place: body 0..5, gait, omega, settle, dt, spd, dyaw 5..11, ph,
    /// sw, rem, ry 11..27, epose 27..32, legs 32..48 (a missing leg joint reads `body[0]` there,
    /// and [`MolangRig::frame`] does not use it).
    fn flat(&self) -> [Slot; OUT] {
        let mut f = [self.body[0]; OUT];
        f[..5].copy_from_slice(&self.body);
        f[5..11].copy_from_slice(&[
            self.gait,
            self.omega,
            self.settle,
            self.dt,
            self.spd,
            self.dyaw,
        ]);
        for (k, a) in [self.ph, self.sw, self.rem, self.ry].iter().enumerate() {
            f[11 + 4 * k..15 + 4 * k].copy_from_slice(a);
        }
        f[27..32].copy_from_slice(&self.epose);
        for i in 0..4 {
            for j in 0..4 {
                if let Some(s) = self.legs[i][j] {
                    f[32 + 4 * i + j] = s;
                }
            }
        }
        f
    }
}

impl MolangRig {
    pub fn new(p: &RigParams, jit: bool) -> Result<MolangRig, Error> {
        Self::from_generated(p, &generate(p), jit)
    }

    pub fn from_generated(p: &RigParams, g: &Generated, jit: bool) -> Result<MolangRig, Error> {
        let src = ScriptSource {
            initialize: g.initialize.clone(),
            pre_animation: g.pre_animation.clone(),
            ..Default::default()
        };
        let mut scripts = EntityScripts::compile(&src).map_err(|e| {
            Error::new(
                ErrorKind::Molang,
                format!(
                    "generated Molang does not load: {:?}",
                    e.iter().map(|d| &d.message).collect::<Vec<_>>()
                ),
            )
        })?;
        if jit {
            scripts.enable_jit().map_err(|e| {
                Error::new(ErrorKind::Molang, format!("JIT refused the rig: {e:?}"))
            })?;
        }
        let sl = |n: &str| {
            scripts
                .variable_slot(n)
                .ok_or_else(|| Error::new(ErrorKind::Molang, format!("no variable v.{n}")))
        };
        let leg_slot =
            |i: usize, j: usize| scripts.variable_slot(&format!("{}_r{}", p.legs[i].name, j + 1));
        let per_leg = |f: &str| -> Result<[Slot; 4], Error> {
            Ok([
                sl(&format!("lf_{f}"))?,
                sl(&format!("rf_{f}"))?,
                sl(&format!("lh_{f}"))?,
                sl(&format!("rh_{f}"))?,
            ])
        };
        let slots = OutputSlots {
            body: [
                sl("body_p")?,
                sl("body_roll")?,
                sl("body_dy")?,
                sl("neck_x")?,
                sl("head_x")?,
            ],
            legs: std::array::from_fn(|i| std::array::from_fn(|j| leg_slot(i, j))),
            gait: sl("gait")?,
            ph: per_leg("ph")?,
            sw: per_leg("sw")?,
            rem: per_leg("rem")?,
            ry: per_leg("ry")?,
            dyaw: sl("dyaw")?,
            omega: sl("omega")?,
            settle: sl("settle")?,
            epose: [
                sl("e_sit")?,
                sl("e_lie")?,
                sl("e_leap")?,
                sl("e_land")?,
                sl("e_swim")?,
            ],
            dt: sl("dt")?,
            spd: sl("spd")?,
        };
        let queries = QUERIES.map(|q| scripts.query_slot(q));
        Ok(MolangRig {
            scripts,
            reads: slots.flat(),
            legs: slots.legs.map(|l| l.map(|s| s.is_some())),
            queries,
        })
    }

    pub fn instantiate(&self) -> EntityInstance {
        self.scripts.instantiate(0)
    }

    /// Sets this frame's queries, runs `initialize` (first frame) and `pre_animation`, and reads
    /// the outputs back.
    pub fn frame(&self, e: &mut EntityInstance, inp: &Inputs) -> Result<Outputs, Error> {
        let s = &self.scripts;
        // By slot, resolved once in `from_generated`: no name lookup per frame.
        for (slot, v) in self.queries.iter().zip(query_values(inp)) {
            if let Some(slot) = slot {
                e.queries[slot.index()] = Value::Num(v);
            }
        }
        let aborts = e.run_frame(s);
        if let Some(a) = aborts.first() {
            return Err(Error::new(
                ErrorKind::Molang,
                format!("frame {}: {}", a.frame, a.message),
            ));
        }
        // One pass over the 48 slots (`OutputSlots::flat`), then fixed places: no bounds check
        // or `Option` per output.
        let mut v = [f32::NAN; OUT];
        e.numbers_by_slots(&self.reads, &mut v, f32::NAN);
        let four = |at: usize| [v[at], v[at + 1], v[at + 2], v[at + 3]];
        let mut o = Outputs {
            body_p: v[0],
            body_roll: v[1],
            body_dy: v[2],
            neck_x: v[3],
            head_x: v[4],
            gait: v[5],
            omega: v[6],
            settle: v[7],
            dt: v[8],
            speed: v[9],
            dyaw: v[10],
            ph: four(11),
            sw: four(15),
            rem: four(19),
            ry: four(23),
            epose: [v[27], v[28], v[29], v[30], v[31]],
            ..Outputs::default()
        };
        for i in 0..4 {
            for j in 0..4 {
                if self.legs[i][j] {
                    o.legs[i][j] = v[32 + 4 * i + j];
                }
            }
        }
        Ok(o)
    }
}

/// Runs a whole input trace on one back end.
pub fn run(p: &RigParams, backend: Backend, inputs: &[Inputs]) -> Result<Vec<Outputs>, Error> {
    Engine::new(p, backend)?.run(p, inputs)
}

/// A back end compiled once and run many times.
#[allow(clippy::large_enum_variant)] // one per run; boxing buys nothing
pub enum Engine {
    Reference,
    Reference64,
    Molang(MolangRig),
}

/// One run of an [`Engine`], stepped a frame at a time (what streaming tools use: `doggoyle
/// run` and the checks hold one frame, not the whole run). The first frame's inputs set the
/// initial state, as `initialize` sees them in the Molang.
#[allow(clippy::large_enum_variant)] // one per run
pub enum Stepper<'a> {
    Reference(RigStateT<f32>),
    Reference64(RigStateT<f64>),
    Molang(&'a MolangRig, EntityInstance),
}

impl Stepper<'_> {
    /// The same per-frame calls as a whole-trace run, so the outputs are identical.
    pub fn step(&mut self, p: &RigParams, i: &Inputs) -> Result<Outputs, Error> {
        match self {
            Stepper::Reference(s) => Ok(step(s, i, p).to_f32()),
            Stepper::Reference64(s) => Ok(step(s, i, p).to_f32()),
            Stepper::Molang(rig, e) => rig.frame(e, i),
        }
    }
}

impl Engine {
    pub fn new(p: &RigParams, backend: Backend) -> Result<Engine, Error> {
        Ok(match backend {
            Backend::Reference => Engine::Reference,
            Backend::Reference64 => Engine::Reference64,
            Backend::Interp => Engine::Molang(MolangRig::new(p, false)?),
            Backend::Jit => Engine::Molang(MolangRig::new(p, true)?),
        })
    }
    /// A fresh run whose first frame has the inputs `first`.
    pub fn start(&self, p: &RigParams, first: &Inputs) -> Stepper<'_> {
        match self {
            Engine::Reference => {
                Stepper::Reference(RigStateT::new_at(p, first.mdm, first.body_yaw))
            }
            Engine::Reference64 => {
                Stepper::Reference64(RigStateT::new_at(p, first.mdm, first.body_yaw))
            }
            Engine::Molang(rig) => Stepper::Molang(rig, rig.instantiate()),
        }
    }
    pub fn run(&self, p: &RigParams, inputs: &[Inputs]) -> Result<Vec<Outputs>, Error> {
        let Some(first) = inputs.first() else {
            return Ok(Vec::new());
        };
        let mut s = self.start(p, first);
        inputs.iter().map(|i| s.step(p, i)).collect()
    }
}
