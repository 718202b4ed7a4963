//! The input timeline bound to one runtime: what `molang run`, `molang test`, `molang bench`
//! and `molang fuzz` replays all drive a [`Runtime`] with.

use super::inputs::{self, Timeline};
use super::play::{ArgInput, Pose, Runtime};
use crate::ir::Slot;

/// The time of frame `frame` at `fps` frames per second: `frame / fps` in f64, then f32,
/// so that frame 20 at 20 fps is exactly 1 (the one formula every front end uses).
pub fn frame_time(frame: u64, fps: f32) -> f32 {
    (frame as f64 / fps as f64) as f32
}

/// What binding a timeline assumes about its inputs, for a `note:` line: not a problem of the
/// pack (those are [`crate::diagnostics::PackDiagnostic`]s), and with no place in it.
#[derive(Clone, Debug, PartialEq)]
pub enum InputNote {
    /// A query column names a query the game does not know; `suggestion` is the closest name.
    UnknownQuery {
        query: String,
        suggestion: Option<String>,
    },
    /// A variable column names a variable no expression of the entity uses.
    UnusedVariable { name: String },
    /// An engine variable the entity reads that no column gives, held at `rest`.
    EngineVariableAtRest { name: String, rest: f32 },
    /// A distance query the entity reads, integrated from `query.ground_speed`.
    IntegratedDistance { query: String },
}

impl std::fmt::Display for InputNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputNote::UnknownQuery { query, suggestion } => {
                write!(f, "input column q.{query} is not a query the game knows")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean q.{s}?"),
                    None => Ok(()),
                }
            }
            InputNote::UnusedVariable { name } => write!(
                f,
                "variable.{name} is in the inputs but no expression of the entity uses it"
            ),
            InputNote::EngineVariableAtRest { name, rest } => write!(
                f,
                "variable.{name} is set by the game; it is held at its rest value {rest} (a v.{name} column sets it)"
            ),
            InputNote::IntegratedDistance { query } => write!(
                f,
                "query.{query} is not in the inputs; integrating query.ground_speed (m/s) over time"
            ),
        }
    }
}

/// The input timeline bound to one runtime's query slots, with the engine variables at
/// their rest values and distances integrated from `q.ground_speed` (what `molang run` does;
/// public for tests and tools that drive a [`Runtime`] the same way).
pub struct Driver {
    timeline: Timeline,
    /// Per column: the query slot, or `None` for variable columns and columns with arguments.
    slots: Vec<Option<Slot>>,
    /// Query columns with arguments: (column, input).
    arg_cols: Vec<(usize, ArgInput)>,
    /// Variable columns: (column, slot); columns no expression reads are dropped.
    var_slots: Vec<(usize, Slot)>,
    /// Engine variables the entity reads that no column supplies, with the value the game
    /// gives them at rest ([`crate::engine_vars`]): set before every frame, as the game does.
    var_defaults: Vec<(Slot, f32)>,
    vars_buf: Vec<(Slot, f32)>,
    values: Vec<f32>,
    /// Queries integrated from `ground_speed` when the timeline lacks them.
    derived: Vec<Slot>,
    speed: Option<usize>,
    distance: f32,
    buf: Vec<(Slot, f32)>,
    /// The time of the last [`Driver::sample`], for the string columns.
    t: f32,
}

impl Driver {
    pub fn new(timeline: &Timeline, rt: &mut Runtime) -> (Driver, Vec<InputNote>) {
        let mut notes = Vec::new();
        let mut var_slots = Vec::new();
        let mut arg_cols = Vec::new();
        let no_args: Box<[crate::interp::Value]> = Box::new([]);
        let slots: Vec<Option<Slot>> = (timeline.queries.iter().zip(&timeline.kinds))
            .enumerate()
            .map(|(i, (q, k))| match k {
                inputs::Kind::Query => {
                    if crate::query_table::lookup(q).is_none()
                        && !super::play::PROVIDED_QUERIES.contains(&q.as_str())
                    {
                        notes.push(InputNote::UnknownQuery {
                            query: q.clone(),
                            suggestion: crate::query_table::suggest(q).map(|s| s.to_string()),
                        });
                    }
                    // A timeline built in code may leave `args` short: plain columns then.
                    let args = timeline.args.get(i).unwrap_or(&no_args);
                    if args.is_empty() {
                        Some(rt.input_slot(q))
                    } else {
                        arg_cols.push((i, rt.input_args_slot(q, args)));
                        None
                    }
                }
                inputs::Kind::Variable => {
                    match rt.variable_slot(q) {
                        Some(s) => var_slots.push((i, s)),
                        None => notes.push(InputNote::UnusedVariable { name: q.clone() }),
                    }
                    None
                }
            })
            .collect();
        let supplied = |name: &str| {
            (timeline.queries.iter().zip(&timeline.kinds))
                .any(|(q, k)| *k == inputs::Kind::Variable && q == name)
        };
        let mut var_defaults = Vec::new();
        let id = rt.model.identifier.clone();
        let engine: Vec<(Slot, String, f32)> = rt
            .scripts
            .names()
            .variables
            .iter()
            .filter(|(_, n)| !supplied(n))
            .filter_map(|(s, n)| Some((s, n.to_string(), crate::engine_vars::rest_value(&id, n)?)))
            .collect();
        for (s, n, rest) in engine {
            var_defaults.push((s, rest));
            notes.push(InputNote::EngineVariableAtRest { name: n, rest });
        }
        let speed = (timeline.queries.iter().zip(&timeline.kinds))
            .enumerate()
            .position(|(i, (q, k))| {
                *k == inputs::Kind::Query
                    && q == "ground_speed"
                    && timeline.args.get(i).is_none_or(|a| a.is_empty())
            });
        let mut derived = Vec::new();
        if speed.is_some() {
            let read: Vec<String> = rt.unsupplied_queries();
            for q in ["modified_distance_moved", "walk_distance"] {
                if read.iter().any(|r| r == &format!("query.{q}")) {
                    derived.push(rt.input_slot(q));
                    notes.push(InputNote::IntegratedDistance {
                        query: q.to_string(),
                    });
                }
            }
        }
        let n = slots.len();
        let mut timeline = timeline.clone();
        // A timeline built in code (`bench --set`) has no angle flags: wrapped angles are
        // known by name, whoever built it.
        timeline.angles = inputs::angle_columns(&timeline.queries, &timeline.kinds);
        (
            Driver {
                timeline,
                slots,
                arg_cols,
                var_slots,
                var_defaults,
                vars_buf: Vec::new(),
                values: vec![0.0; n],
                derived,
                speed,
                distance: 0.0,
                buf: Vec::new(),
                t: 0.0,
            },
            notes,
        )
    }

    /// Samples the frame at `t`: query values (distance integrated up to the previous frame)
    /// and variable values, with the engine variables nobody supplies at their defaults.
    /// Read them with [`queries`](Self::queries); [`apply`](Self::apply) hands the rest over.
    pub fn sample(&mut self, t: f32, dt: f32) {
        self.timeline.sample(t, &mut self.values);
        self.t = t;
        self.vars_buf.clear();
        self.vars_buf.extend(self.var_defaults.iter().copied());
        let values = &self.values;
        self.vars_buf
            .extend(self.var_slots.iter().map(|&(i, s)| (s, values[i])));
        self.buf.clear();
        self.buf
            .extend((self.slots.iter().zip(&self.values)).filter_map(|(s, v)| s.map(|s| (s, *v))));
        for &d in &self.derived {
            self.buf.push((d, self.distance));
        }
        if let Some(s) = self.speed {
            self.distance += self.values[s] * dt;
        }
    }

    /// Plays one frame at time `t` (`dt` seconds after the previous one): samples the
    /// inputs, hands them to `rt` and steps it. The frame protocol of every timeline player
    /// (`molang run`, `test`, `bench`, [`crate::Player`]) in one place.
    pub fn step<'r>(&mut self, rt: &'r mut Runtime, t: f32, dt: f32) -> &'r Pose {
        self.sample(t, dt);
        self.apply(rt);
        rt.step(t, &self.buf)
    }

    pub fn queries(&self) -> &[(Slot, f32)] {
        &self.buf
    }

    /// Hands the sampled variables and query inputs with arguments to the runtime (before
    /// its `step`, which takes the plain query inputs).
    pub fn apply(&self, rt: &mut Runtime) {
        for &(s, v) in self.variables() {
            rt.set_variable(s, v);
        }
        for &(i, input) in &self.arg_cols {
            match self.timeline.string_at(i, self.t) {
                Some(h) => rt.set_query_input_value(input, crate::interp::Value::Str(h)),
                None => rt.set_query_input(input, self.values[i]),
            }
        }
    }

    fn variables(&self) -> &[(Slot, f32)] {
        &self.vars_buf
    }
}
