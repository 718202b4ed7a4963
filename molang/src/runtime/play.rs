//! The frame loop, in the game's order (spec §7.2): `initialize` once; then per frame the
//! queries, `pre_animation`, the `animate` list in order (conditions, controllers,
//! animations), channels accumulated per bone, channel and axis with `this` = the value so
//! far, then forward kinematics. Every expression was compiled by the loader; this file only
//! runs [`CompiledExprId`]s and constants.

use super::fk;
use super::load::Loaded;
use super::model::*;
use crate::entity::{CompiledExprId, EntityInstance, EntityScripts};
use crate::interp::Value;
use crate::ir::Slot;
use crate::pack::PropertyDefault;
use std::collections::HashSet;
use std::sync::Arc;

/// Loop iterations (and die rolls) one entity may spend in one frame, all its expressions
/// together: `initialize`, `pre_animation`, conditions, channels, controllers, render
/// controllers. Each run of an expression also has [`crate::EvalOptions::iteration_budget`]
/// (the same number), so one expression may spend the whole frame's; once it is spent, loops
/// of the frame's later expressions end at their first iteration, as an expression that runs
/// out of its own budget does (value 0, a content-log line). The game documents neither; its
/// frame would take seconds long before this (200 channels of `loop(1e9, ...)` would be 2
/// billion iterations a frame on the per-expression budget alone).
pub const FRAME_BUDGET: u64 = 10_000_000;

/// Which expression spent iterations of the frame's budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spender {
    Expr(CompiledExprId),
    /// `initialize` (0) or `pre_animation` (1).
    Script(usize),
}

/// The frame's iteration budget as it is being spent.
#[derive(Clone, Copy, Debug)]
struct Budget {
    left: u64,
    /// The expression that spent the most this frame, and how much.
    top: Option<(Spender, u64)>,
    /// The expression that spent the last of it.
    ran_out: Option<Spender>,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            left: FRAME_BUDGET,
            top: None,
            ran_out: None,
        }
    }

    fn spend(&mut self, who: Spender, n: u64) {
        if n == 0 {
            return;
        }
        self.left = self.left.saturating_sub(n);
        if self.top.is_none_or(|(_, m)| n > m) {
            self.top = Some((who, n));
        }
        if self.left == 0 && self.ran_out.is_none() {
            self.ran_out = Some(who);
        }
    }
}

/// Which back end runs the compiled expressions: the library's one back-end enum.
pub use crate::interp::exec::Backend;

/// One frame's pose: animated channels per bone (relative to the bind pose; rotations in
/// degrees, positions in pixels, scale as a factor) and world positions by FK.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pose {
    pub rot: Vec<[f32; 3]>,
    pub pos: Vec<[f32; 3]>,
    pub scale: Vec<[f32; 3]>,
    /// World-space pivot of each bone, pixels.
    pub world: Vec<[f32; 3]>,
    /// World-space locators: bones in order, each bone's locators in order.
    pub locators: Vec<[f32; 3]>,
    /// `scripts.scale` × `scaleX/Y/Z` this frame (already applied to `world` and `locators`).
    pub entity_scale: [f32; 3],
    /// The render controllers' choices this frame (see [`super::render`]).
    pub render: super::render::RenderFrame,
}

/// A line of the run's log: what the game would print (or a note on the inputs), and the
/// frame it happened in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub frame: u64,
    pub message: String,
    pub kind: LogKind,
}

/// What a [`LogLine`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    /// A content-log line the game would print (an aborted expression, a missing animation).
    Content,
    /// Not the game's: a query read with arguments the inputs do not give, which reads 0
    /// here (the same note as a query missing from the inputs at load).
    Input,
}

#[derive(Clone, Debug, Default)]
struct AnimState {
    /// Triggered (its condition or state is on).
    active: bool,
    delay: f64,
    waited: f64,
    /// Past the start delay.
    playing: bool,
    /// Frames played since the start (or the last loop delay), for the default update.
    played: u64,
    /// Seconds of whole loops already subtracted from `played × dt`.
    origin: f64,
    anim_time: f64,
    last_time: Option<f64>,
    finished: bool,
    looped: bool,
    loop_wait: f64,
}

#[derive(Clone, Debug, Default)]
struct CtrlState {
    current: Option<usize>,
    state_time: f64,
    /// The state being blended out and the seconds since the switch.
    blend_from: Option<(usize, f64)>,
}

/// Heap bytes of a frame's render choices (strings and lists).
fn render_bytes(r: &super::render::RenderFrame) -> usize {
    let text: usize = (r.geometry.iter().chain(&r.textures))
        .map(String::capacity)
        .sum();
    let materials: usize = (r.materials.iter())
        .map(|(a, b)| a.capacity() + b.capacity())
        .sum();
    text + materials
        + r.textures.capacity() * std::mem::size_of::<String>()
        + r.visible.capacity()
        + r.materials.capacity() * std::mem::size_of::<(String, String)>()
}

/// Slots of the queries the runtime provides.
#[derive(Clone, Copy, Debug)]
struct Provided {
    delta_time: Slot,
    life_time: Slot,
    time_stamp: Slot,
    anim_time: Slot,
    key_frame_lerp_time: Slot,
    state_time: Slot,
    all_finished: Slot,
    any_finished: Slot,
    is_alive: Slot,
}

/// Queries the runtime answers itself (short names).
pub const PROVIDED_QUERIES: &[&str] = &[
    "delta_time",
    "life_time",
    "time_stamp",
    "anim_time",
    "key_frame_lerp_time",
    "state_time",
    "all_animations_finished",
    "any_animation_finished",
    "is_alive",
];

/// An input for a query read with given arguments (`q.position_delta(1)`), from
/// [`Runtime::input_args_slot`]; set per frame with [`Runtime::set_query_input`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgInput {
    slot: Slot,
    index: u32,
}

/// A running entity.
pub struct Runtime {
    pub model: Arc<Model>,
    /// Shared by the instances [`Runtime::fork`] makes (native code included): an instance
    /// owns only its state.
    pub scripts: Arc<EntityScripts>,
    inst: EntityInstance,
    anim: Vec<AnimState>,
    ctrl: Vec<CtrlState>,
    q: Provided,
    /// Query slots the inputs supply; the runtime does not overwrite those.
    overridden: Vec<bool>,
    /// Inputs with arguments in the order they were added, with the value they start with,
    /// to add them again on `reset` (which keeps the indices of the [`ArgInput`]s handed
    /// out).
    arg_inputs: Vec<(Slot, Box<[Value]>, Value)>,
    /// Which queries with argument inputs to watch for misses must be worked out again
    /// (inputs were added, or the instance is new).
    watch_stale: bool,
    dt: f32,
    /// 1/fps in f64: animation times are frames × this, so they land on frame times.
    dt64: f64,
    frame: u64,
    pose: Pose,
    budget: Budget,
    logged: HashSet<String>,
    log: Vec<LogLine>,
    /// Why the JIT was not used, when it was asked for and could not be.
    pub jit_fallback: Option<String>,
}

impl Runtime {
    /// A fresh entity at frame 0. With [`Backend::Jit`], every expression of the entity is
    /// compiled to native code; one that cannot be runs on the interpreter, alone (both back
    /// ends share one storage), and [`Runtime::jit_fallback`] gives the first reason.
    pub fn new(loaded: Loaded, backend: Backend, fps: f32, seed: u64) -> Runtime {
        let Loaded {
            model, mut scripts, ..
        } = loaded;
        let q = Provided {
            delta_time: scripts.intern_query("delta_time"),
            life_time: scripts.intern_query("life_time"),
            time_stamp: scripts.intern_query("time_stamp"),
            anim_time: scripts.intern_query("anim_time"),
            key_frame_lerp_time: scripts.intern_query("key_frame_lerp_time"),
            state_time: scripts.intern_query("state_time"),
            all_finished: scripts.intern_query("all_animations_finished"),
            any_finished: scripts.intern_query("any_animation_finished"),
            is_alive: scripts.intern_query("is_alive"),
        };
        let mut jit_fallback = None;
        if backend == Backend::Jit {
            if let Err(e) = scripts.enable_jit() {
                jit_fallback = Some(e.to_string());
            }
        }
        let inst = scripts.instantiate(seed);
        let nodes = model.nodes.len();
        let mut rt = Runtime {
            pose: bind_pose(model.bones.len()),
            model: Arc::new(model),
            scripts: Arc::new(scripts),
            inst,
            anim: vec![AnimState::default(); nodes],
            ctrl: vec![CtrlState::default(); nodes],
            q,
            overridden: Vec::new(),
            arg_inputs: Vec::new(),
            watch_stale: false,
            dt: if fps > 0.0 { 1.0 / fps } else { 0.0 },
            dt64: if fps > 0.0 { 1.0 / fps as f64 } else { 0.0 },
            frame: 0,
            budget: Budget::new(),
            logged: HashSet::new(),
            log: Vec::new(),
            jit_fallback,
        };
        rt.start_properties();
        rt
    }

    /// `q.property('ns:name')` reads the default of each property the behaviour entity
    /// syncs to the client (an enum's as a string), and `q.has_property` reads 1 for it, until
    /// an input says otherwise. A default that is a Molang expression is the server's to
    /// evaluate; it is left to the inputs (the load notes say so).
    fn start_properties(&mut self) {
        let model = Arc::clone(&self.model);
        for p in model.properties.iter().filter(|p| p.client_sync) {
            let value = match &p.default {
                PropertyDefault::Num(x) => Value::Num(*x),
                PropertyDefault::Str(s) => Value::Str(crate::ir::fnv1_64(s.as_bytes())),
                PropertyDefault::Molang(_) | PropertyDefault::Missing => continue,
            };
            let name = [Value::Str(crate::ir::fnv1_64(p.name.as_bytes()))];
            self.start_input("property", &name, value);
            self.start_input("has_property", &name, Value::Num(1.0));
        }
    }

    /// An input with arguments that starts at `value` (again after every `reset`).
    fn start_input(&mut self, query: &str, args: &[Value], value: Value) {
        let input = self.input_args_slot(query, args);
        if let Some(e) = self.arg_inputs.last_mut() {
            e.2 = value;
        }
        (self.inst).set_query_input_value(input.slot, input.index as usize, value);
    }

    /// Back to frame 0 as [`Runtime::new`] leaves it, with `math.random` seeded from `seed`:
    /// a fresh entity instance (no variable set, not initialized), animations and
    /// controllers not started, the bind pose, an empty content log that logs every message
    /// again. Compiled expressions (and native code) and the input slots are kept, so a
    /// fuzzer can run many short cases without compiling the entity for each.
    pub fn reset(&mut self, seed: u64) {
        self.inst = self.scripts.instantiate(seed);
        for (slot, args, start) in &self.arg_inputs {
            let index = self.inst.add_query_input(*slot, args);
            self.inst.set_query_input_value(*slot, index, *start);
        }
        self.watch_stale = true;
        self.anim.fill(AnimState::default());
        self.ctrl.fill(CtrlState::default());
        self.frame = 0;
        self.pose = bind_pose(self.model.bones.len());
        self.logged.clear();
        self.log.clear();
    }

    /// The slot of query `name`, added to the entity's names when no expression reads it (the
    /// scripts are copied then if other instances share them; names known already copy
    /// nothing).
    fn intern_query(&mut self, name: &str) -> Slot {
        match self.scripts.query_slot(name) {
            Some(s) => s,
            None => Arc::make_mut(&mut self.scripts).intern_query(name),
        }
    }

    /// Another instance of the same entity type at frame 0, as [`Runtime::reset`] leaves it
    /// with `seed`: the model, the compiled expressions and native code are shared (no copy),
    /// the input slots are the same; variables, animation and controller state are its own.
    pub fn fork(&self, seed: u64) -> Runtime {
        let mut r = Runtime {
            model: Arc::clone(&self.model),
            scripts: Arc::clone(&self.scripts),
            inst: self.scripts.instantiate(seed),
            anim: self.anim.clone(),
            ctrl: self.ctrl.clone(),
            q: self.q,
            overridden: self.overridden.clone(),
            arg_inputs: self.arg_inputs.clone(),
            watch_stale: true,
            dt: self.dt,
            dt64: self.dt64,
            frame: 0,
            pose: self.pose.clone(),
            budget: Budget::new(),
            logged: HashSet::new(),
            log: Vec::new(),
            jit_fallback: self.jit_fallback.clone(),
        };
        r.reset(seed);
        r
    }

    /// Bytes this instance owns on the heap and inline (its state: variable, temp and context
    /// slots, query values, animation and controller state, the pose), not counting what
    /// every instance shares (model, compiled expressions, native code) nor the content log.
    pub fn instance_bytes(&self) -> usize {
        fn vec<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        let p = &self.pose;
        std::mem::size_of::<Runtime>() - std::mem::size_of::<EntityInstance>()
            + self.inst.state_bytes()
            + vec(&self.anim)
            + vec(&self.ctrl)
            + vec(&self.overridden)
            + (self.arg_inputs.iter())
                .map(|(_, a, _)| std::mem::size_of_val(&**a))
                .sum::<usize>()
            + vec(&self.arg_inputs)
            + vec(&p.rot)
            + vec(&p.pos)
            + vec(&p.scale)
            + vec(&p.world)
            + vec(&p.locators)
            + render_bytes(&p.render)
    }

    /// Slot of a query the inputs will supply (long or short prefix stripped by the
    /// caller). Marks it as overridden: the runtime's own value of it is not used.
    pub fn input_slot(&mut self, name: &str) -> Slot {
        let slot = self.intern_query(name);
        if self.overridden.len() <= slot.index() {
            self.overridden.resize(slot.index() + 1, false);
        }
        self.overridden[slot.index()] = true;
        self.watch_stale = true;
        slot
    }

    /// An input for query `name` read with exactly `args` (numbers, or strings as
    /// `Value::Str` of the game's hash); an empty `args` is the plain query, use
    /// [`Runtime::input_slot`]. Reads with other arguments fall back to the plain value.
    pub fn input_args_slot(&mut self, name: &str, args: &[Value]) -> ArgInput {
        let slot = self.intern_query(name);
        let index = self.inst.add_query_input(slot, args);
        self.arg_inputs.push((slot, args.into(), Value::Num(0.0)));
        self.watch_stale = true;
        ArgInput {
            slot,
            index: index as u32,
        }
    }

    /// Sets an input with arguments for the coming frames (like a plain input in `step`).
    pub fn set_query_input(&mut self, input: ArgInput, v: f32) {
        self.inst
            .set_query_input(input.slot, input.index as usize, v);
    }

    /// [`Runtime::set_query_input`] with a value of any kind (a string for an enum property).
    pub fn set_query_input_value(&mut self, input: ArgInput, v: Value) {
        (self.inst).set_query_input_value(input.slot, input.index as usize, v);
    }

    fn is_overridden(&self, slot: Slot) -> bool {
        self.overridden.get(slot.index()).copied().unwrap_or(false)
    }

    /// Queries the entity's expressions read that neither the runtime nor the inputs
    /// supply (they read 0), as `query.name`. A query with inputs for some arguments is
    /// listed only when it is also read without arguments; its reads with other arguments
    /// are logged as they happen (see [`Runtime::step`]).
    pub fn unsupplied_queries(&self) -> Vec<String> {
        self.scripts
            .names()
            .queries
            .iter()
            .filter(|(s, n)| {
                !PROVIDED_QUERIES.contains(n)
                    && !self.is_overridden(*s)
                    && (!self.inst.has_query_inputs(*s) || self.scripts.reads_without_arguments(*s))
            })
            .map(|(_, n)| format!("query.{n}"))
            .collect()
    }

    /// Watches reads of the queries with argument inputs that have no plain value to fall
    /// back on (neither a plain input nor one the runtime provides): those read 0, noted.
    fn update_watch(&mut self) {
        self.watch_stale = false;
        for i in 0..self.arg_inputs.len() {
            let slot = self.arg_inputs[i].0;
            let name = self.scripts.names().queries.name(slot);
            let plain = self.is_overridden(slot) || PROVIDED_QUERIES.contains(&name);
            self.inst.watch_query_misses(slot, !plain);
        }
    }

    /// Content-log lines for reads of queries with arguments no input matched (they read 0).
    fn log_query_misses(&mut self) {
        for (slot, args) in self.inst.take_query_misses() {
            let name = self.scripts.names().queries.name(slot).to_string();
            let message = match args {
                Some(args) => {
                    let args: Vec<String> = args.iter().map(|a| self.describe_arg(*a)).collect();
                    format!(
                        "query.{name}({}) is not in the inputs; it reads 0",
                        args.join(", ")
                    )
                }
                None => format!(
                    "query.{name} is read with more argument lists than are named here; those not in the inputs read 0 too"
                ),
            };
            self.log_line(message, LogKind::Input);
        }
    }

    /// An argument as Molang text: strings back from the entity's literals.
    fn describe_arg(&self, a: Value) -> String {
        match a {
            Value::Str(h) => match self.scripts.string_text(h) {
                Some(t) => format!("'{t}'"),
                None => a.display(),
            },
            _ => a.display(),
        }
    }

    pub fn is_native(&self) -> bool {
        self.scripts.is_native()
    }

    /// Frames run so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    pub fn pose(&self) -> &Pose {
        &self.pose
    }

    /// Content-log lines since the last call.
    pub fn take_log(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.log)
    }

    /// Slot of a variable some expression of the entity reads or writes (`None`: none does).
    pub fn variable_slot(&self, name: &str) -> Option<Slot> {
        self.scripts.variable_slot(name)
    }

    /// Sets a variable as the game sets its engine variables (`v.attack_time`), before a frame.
    pub fn set_variable(&mut self, slot: Slot, v: f32) {
        self.inst.set_variable_slot(slot, v);
    }

    /// A variable's current value (`None` while unset).
    pub fn variable(&self, slot: Slot) -> Option<f32> {
        self.inst
            .variable_by_slot(&self.scripts, slot)
            .map(|v| v.as_num())
    }

    /// The entity's state (variables, this frame's queries), for checks between frames.
    pub fn instance(&self) -> &EntityInstance {
        &self.inst
    }

    /// Logs a content-log line once per run (the game would repeat it every frame).
    fn content_log(&mut self, message: String) {
        self.log_line(message, LogKind::Content);
    }

    fn log_line(&mut self, message: String, kind: LogKind) {
        if self.logged.insert(message.clone()) {
            self.log.push(LogLine {
                frame: self.frame,
                message,
                kind,
            });
        }
    }

    fn set_query(&mut self, slot: Slot, v: f32) {
        if !self.overridden.get(slot.index()).copied().unwrap_or(false) {
            self.inst.set_query_slot(slot, v);
        }
    }

    fn run(&mut self, id: CompiledExprId, this: f32) -> f32 {
        let (out, spent) = self
            .inst
            .eval_within(&self.scripts, id, this, self.budget.left);
        self.budget.spend(Spender::Expr(id), spent);
        match out {
            Ok(v) => v,
            Err(a) => {
                self.content_log(a.message);
                0.0
            }
        }
    }

    fn eval(&mut self, n: Num, this: f32) -> f32 {
        match n {
            Num::Const(c) => c,
            Num::Expr(id) => self.run(id, this),
        }
    }

    /// Runs one frame at time `t` with the inputs' query values by slot.
    pub fn step(&mut self, t: f32, inputs: &[(Slot, f32)]) -> &Pose {
        let model = self.model.clone();
        let q = self.q;
        self.set_query(q.delta_time, self.dt);
        self.set_query(q.life_time, t);
        self.set_query(q.time_stamp, (t * 20.0).floor());
        // A headless entity is alive unless the inputs say otherwise.
        self.set_query(q.is_alive, 1.0);
        for &(slot, v) in inputs {
            self.inst.set_query_slot(slot, v);
        }
        if self.watch_stale {
            self.update_watch();
        }
        // Contexts the game gives every client entity and attachable: third person, and an
        // item held in the main hand (`context.item_slot` 'main_hand' is a string: 0 here).
        for (name, v) in [("is_first_person", 0.0f32)] {
            if let Some(s) = self.scripts.names().contexts.get(name) {
                self.inst.set_context_slot(s, v);
            }
        }
        self.budget = Budget::new();
        let (aborts, spent) = (self.inst).run_frame_within(&self.scripts, Some(FRAME_BUDGET));
        self.budget.spend(Spender::Script(0), spent[0]);
        self.budget.spend(Spender::Script(1), spent[1]);
        for a in aborts {
            self.content_log(a.message);
        }
        for b in 0..model.bones.len() {
            self.pose.rot[b] = [0.0; 3];
            self.pose.pos[b] = [0.0; 3];
            self.pose.scale[b] = [1.0; 3];
        }
        for &(node, cond) in &model.animate {
            let w = cond.map_or(1.0, |c| self.eval(c, 0.0));
            self.play(&model, node, w, 1.0);
        }
        let ch = fk::Channels {
            rot: &self.pose.rot,
            pos: &self.pose.pos,
            scale: &self.pose.scale,
        };
        fk::forward(
            &model.bones,
            &model.fk_order,
            &ch,
            &mut self.pose.world,
            &mut self.pose.locators,
        );
        // The entity's scale sizes the whole model about its origin (the game scales the
        // model matrix), after the bones are posed.
        let mut k = [1.0f32; 3];
        if let Some(n) = model.scale[0] {
            let s = self.eval(n, 1.0);
            k = [s; 3];
        }
        for (k, n) in k.iter_mut().zip(&model.scale[1..]) {
            if let Some(n) = *n {
                *k *= self.eval(n, 1.0);
            }
        }
        if k != [1.0; 3] {
            for w in self
                .pose
                .world
                .iter_mut()
                .chain(self.pose.locators.iter_mut())
            {
                for axis in 0..3 {
                    w[axis] *= k[axis];
                }
            }
        }
        self.pose.entity_scale = k;
        if !model.render.is_empty() {
            let mut frame = std::mem::take(&mut self.pose.render);
            super::render::evaluate(&model, &mut frame, &mut |n, this| self.eval(n, this));
            self.pose.render = frame;
        }
        self.log_query_misses();
        self.log_budget(&model);
        self.frame += 1;
        &self.pose
    }

    /// Iterations the expressions of the last frame spent of [`FRAME_BUDGET`].
    pub fn frame_iterations(&self) -> u64 {
        FRAME_BUDGET - self.budget.left
    }

    /// A content-log line when the frame's budget ran out: which expression spent the last
    /// of it and which spent the most, with where they are written.
    fn log_budget(&mut self, model: &Model) {
        let Some(last) = self.budget.ran_out else {
            return;
        };
        let name = |who: Spender| match who {
            Spender::Expr(id) => {
                let at = model
                    .expr_at
                    .get(id.0 as usize)
                    .copied()
                    .unwrap_or_default();
                format!(
                    "`{}` ({})",
                    self.scripts.expression_label(id),
                    model.describe_at(at)
                )
            }
            Spender::Script(i) => {
                let script = ["initialize", "pre_animation"][i];
                match model.script_at[i] {
                    Some(at) => format!("`{script}` ({})", model.describe_at(at)),
                    None => format!("`{script}`"),
                }
            }
        };
        let mut message = format!(
            "the frame's iteration budget ({FRAME_BUDGET} loop iterations for the whole entity) ran out in {}",
            name(last)
        );
        if let Some((top, n)) = self.budget.top.filter(|(top, _)| *top != last) {
            message.push_str(&format!(", after {} spent {n} of them", name(top)));
        }
        message.push_str("; loops of the frame's later expressions ended at their first iteration");
        self.content_log(message);
    }

    /// Plays one node with weight `w` (its condition or blend value: exactly 0 stops it,
    /// NaN is "true" as everywhere in Molang) and `fade` (controller cross-fade factor).
    fn play(&mut self, model: &Model, node: usize, w: f32, fade: f32) {
        match &model.nodes[node] {
            PlayNode::Missing(missing) => {
                if w != 0.0 {
                    self.content_log(missing.to_string());
                }
            }
            PlayNode::Cut(msg) => {
                if w != 0.0 {
                    self.content_log(msg.clone());
                }
            }
            PlayNode::Animation(a) => self.play_animation(&model.animations[*a], node, w, fade),
            PlayNode::Controller { def, children } => {
                let c = &model.controllers[*def];
                self.play_controller(model, c, children, node, w, fade)
            }
        }
    }

    fn play_animation(&mut self, def: &AnimationDef, node: usize, w: f32, fade: f32) {
        if w == 0.0 {
            // Condition off: the animation stops and restarts from 0 when it comes back on.
            self.anim[node] = AnimState::default();
            return;
        }
        let dt = self.dt64;
        if !self.anim[node].active {
            self.anim[node].active = true;
            self.set_query(self.q.anim_time, 0.0);
            // Evaluated once per start (spec §7.3).
            let delay = def.start_delay.map_or(0.0, |d| self.eval(d, 0.0));
            self.anim[node].delay = if delay.is_finite() { delay as f64 } else { 0.0 };
        }
        let st = &mut self.anim[node];
        // Compared in f32: the delay is an f32 and frame sums of 1/fps must reach it.
        if (st.waited as f32) < st.delay as f32 {
            st.waited += dt;
            return;
        }
        if st.finished && def.looping == LoopMode::Once {
            return;
        }
        let length = def.length as f64;
        let prev = st.anim_time;
        let first = !st.playing;
        let mut wrapped = false;
        let mut waiting = false;
        if st.loop_wait > 0.0 {
            // Between loops: hold the last frame, then start over from 0.
            st.loop_wait -= dt;
            if st.loop_wait as f32 <= 0.0 {
                st.loop_wait = 0.0;
                st.anim_time = 0.0;
                st.played = 0;
                st.origin = 0.0;
                st.last_time = None;
            } else {
                waiting = true;
            }
        } else {
            st.playing = true;
            if !first {
                st.played += 1;
            }
            let played = st.played;
            let start = if first { 0.0 } else { prev };
            let next = match def.anim_time_update {
                // Default `q.anim_time + q.delta_time`, as frames × delta_time so that no
                // rounding drifts across loop and end boundaries (the first frame plays at 0).
                None => played as f64 * dt - st.origin,
                Some(update) => {
                    self.set_query(self.q.anim_time, start as f32);
                    let v = self.eval(update, 0.0);
                    if v.is_finite() {
                        v as f64
                    } else {
                        0.0
                    }
                }
            };
            self.anim[node].anim_time = next;
        }
        let st = &mut self.anim[node];
        if length > 0.0 && !waiting {
            match def.looping {
                LoopMode::Loop if st.anim_time >= length => {
                    st.looped = true;
                    wrapped = true;
                    let at = st.anim_time;
                    let delay = def.loop_delay.map_or(0.0, |d| {
                        self.set_query(self.q.anim_time, at as f32);
                        self.eval(d, 0.0)
                    });
                    let st = &mut self.anim[node];
                    if delay > 0.0 && delay.is_finite() {
                        st.loop_wait = delay as f64;
                        st.anim_time = length;
                        wrapped = false;
                    } else {
                        let whole = (at / length).floor() * length;
                        st.anim_time = at - whole;
                        if def.anim_time_update.is_none() {
                            st.origin += whole;
                        }
                    }
                }
                LoopMode::Hold if st.anim_time >= length => {
                    st.finished = true;
                    st.anim_time = length;
                }
                LoopMode::Once if st.anim_time >= length => {
                    st.finished = true;
                    // A custom update may land a hair past the end on the last frame.
                    if st.anim_time > length + 1e-6 {
                        // Played through: no longer part of the pose.
                        return;
                    }
                }
                _ => {}
            }
        }
        let st = &mut self.anim[node];
        let now = st.anim_time;
        let last = st.last_time;
        st.last_time = Some(now);
        self.set_query(self.q.anim_time, now as f32);
        // Timeline scripts whose time was crossed this frame.
        if !def.timeline.is_empty() && !waiting {
            let mut fire = Vec::new();
            let crossed = |lo: Option<f64>, hi: f64, t: f64| lo.is_none_or(|lo| t > lo) && t <= hi;
            for &(t, e) in &def.timeline {
                let t = t as f64;
                let hit = if wrapped {
                    crossed(last, length, t) || crossed(None, now, t)
                } else {
                    crossed(last, now, t)
                };
                if hit {
                    fire.push(e);
                }
            }
            for e in fire {
                self.run(e, 0.0);
            }
        }
        let blend = def.blend_weight.map_or(1.0, |b| self.eval(b, 0.0));
        let weight = w * blend * fade;
        let t = now as f32;
        for track in &def.tracks {
            let b = track.bone;
            if def.override_previous {
                self.pose.rot[b] = [0.0; 3];
                self.pose.pos[b] = [0.0; 3];
                self.pose.scale[b] = [1.0; 3];
            }
            for (ci, channel) in track.channels.iter().enumerate() {
                let Some(channel) = channel else { continue };
                for axis in 0..3 {
                    let this = match ci {
                        ROTATION => self.pose.rot[b][axis],
                        POSITION => self.pose.pos[b][axis],
                        _ => self.pose.scale[b][axis],
                    };
                    let v = self.sample(channel, t, axis, this);
                    match ci {
                        ROTATION => self.pose.rot[b][axis] += v * weight,
                        POSITION => self.pose.pos[b][axis] += v * weight,
                        // Scale multiplies, blended from 1 (uncertain in the game; see mod.rs).
                        _ => self.pose.scale[b][axis] *= 1.0 + (v - 1.0) * weight,
                    }
                }
            }
        }
    }

    /// The value of one axis of a channel at animation time `t`.
    fn sample(&mut self, channel: &Channel, t: f32, axis: usize, this: f32) -> f32 {
        let keys = match channel {
            Channel::Static(v) => return self.eval(v[axis], this),
            Channel::Keys(k) => k,
        };
        let (first, last) = (&keys[0], &keys[keys.len() - 1]);
        if t < first.time {
            self.set_query(self.q.key_frame_lerp_time, 0.0);
            return self.eval(first.pre[axis], this);
        }
        if t >= last.time {
            self.set_query(self.q.key_frame_lerp_time, 0.0);
            return self.eval(last.post[axis], this);
        }
        // keys[i].time <= t < keys[i + 1].time
        let i = keys.partition_point(|k| k.time <= t) - 1;
        let (a, b) = (&keys[i], &keys[i + 1]);
        let alpha = (t - a.time) / (b.time - a.time);
        self.set_query(self.q.key_frame_lerp_time, alpha);
        if a.lerp == Lerp::Step {
            return self.eval(a.post[axis], this);
        }
        let p1 = self.eval(a.post[axis], this);
        let p2 = self.eval(b.pre[axis], this);
        if a.lerp == Lerp::CatmullRom || b.lerp == Lerp::CatmullRom {
            let p0 = match i.checked_sub(1) {
                Some(j) => self.eval(keys[j].post[axis], this),
                None => p1,
            };
            let p3 = match keys.get(i + 2) {
                Some(k) => self.eval(k.pre[axis], this),
                None => p2,
            };
            return catmull_rom(p0, p1, p2, p3, alpha);
        }
        p1 + (p2 - p1) * alpha
    }

    /// Resets the nodes of one state of a controller occurrence.
    fn reset_children(&mut self, model: &Model, kids: &[usize]) {
        for &child in kids {
            self.reset_node(model, child);
        }
    }

    fn reset_node(&mut self, model: &Model, node: usize) {
        self.anim[node] = AnimState::default();
        if let PlayNode::Controller { children, .. } = &model.nodes[node] {
            self.ctrl[node] = CtrlState::default();
            for kids in children {
                self.reset_children(model, kids);
            }
        }
    }

    fn play_controller(
        &mut self,
        model: &Model,
        c: &ControllerDef,
        children: &[Box<[usize]>],
        node: usize,
        w: f32,
        fade: f32,
    ) {
        if w == 0.0 || c.states.is_empty() {
            // Condition off: the controller keeps its state and does nothing this frame.
            return;
        }
        let dt = self.dt64;
        let cur = match self.ctrl[node].current {
            Some(s) => {
                self.ctrl[node].state_time += dt;
                s
            }
            None => {
                let s = c.initial;
                self.ctrl[node].current = Some(s);
                self.ctrl[node].state_time = 0.0;
                if let Some(e) = c.states[s].on_entry {
                    self.run(e, 0.0);
                }
                s
            }
        };
        self.controller_queries(model, &children[cur], self.ctrl[node].state_time);
        // Transitions in order; the first true one switches, at most one per frame.
        let mut now = cur;
        for &(target, cond) in &c.states[cur].transitions {
            let v = self.eval(cond, 0.0);
            if v != 0.0 {
                if let Some(e) = c.states[cur].on_exit {
                    self.run(e, 0.0);
                }
                if let Some((old, _)) = self.ctrl[node].blend_from.take() {
                    self.reset_children(model, &children[old]);
                }
                if c.states[cur].blend_transition != BlendTransition::None && target != cur {
                    self.ctrl[node].blend_from = Some((cur, 0.0));
                } else {
                    self.reset_children(model, &children[cur]);
                }
                self.reset_children(model, &children[target]);
                self.ctrl[node].current = Some(target);
                self.ctrl[node].state_time = 0.0;
                if let Some(e) = c.states[target].on_entry {
                    self.run(e, 0.0);
                }
                now = target;
                self.controller_queries(model, &children[now], 0.0);
                break;
            }
        }
        // Old state's weight while blending out: blend_transition of the state left.
        let mut old = None;
        if let Some((from, elapsed)) = self.ctrl[node].blend_from {
            let k = match &c.states[from].blend_transition {
                BlendTransition::Seconds(s) => (1.0 - (elapsed as f32) / *s).max(0.0),
                BlendTransition::Curve(curve) => piecewise(curve, elapsed as f32),
                BlendTransition::None => 0.0,
            };
            let done = match &c.states[from].blend_transition {
                BlendTransition::Curve(curve) => {
                    elapsed as f32 >= curve.last().map_or(0.0, |p| p.0)
                }
                _ => k <= 0.0,
            };
            if done {
                self.reset_children(model, &children[from]);
                self.ctrl[node].blend_from = None;
            } else {
                old = Some((from, k));
                self.ctrl[node].blend_from = Some((from, elapsed + dt));
            }
        }
        let state = &c.states[now];
        for v in &state.variables {
            let x = self.eval(v.input, 0.0);
            let y = if v.curve.is_empty() {
                x
            } else {
                piecewise(&v.curve, x)
            };
            self.inst.set_variable_slot(v.slot, y);
        }
        let new_fade = old.map_or(1.0, |(_, k)| 1.0 - k);
        for (&child, &(_, blend)) in children[now].iter().zip(&state.animations) {
            let bw = blend.map_or(1.0, |b| self.eval(b, 0.0));
            self.play(model, child, w * bw, fade * new_fade);
        }
        if let Some((from, k)) = old {
            for (&child, &(_, blend)) in children[from].iter().zip(&c.states[from].animations) {
                let bw = blend.map_or(1.0, |b| self.eval(b, 0.0));
                self.play(model, child, w * bw, fade * k);
            }
        }
    }

    /// `q.state_time`, `q.all_animations_finished`, `q.any_animation_finished` for a state.
    fn controller_queries(&mut self, model: &Model, kids: &[usize], state_time: f64) {
        self.set_query(self.q.state_time, state_time as f32);
        let (mut all, mut any) = (true, false);
        for &child in kids {
            if let PlayNode::Animation(a) = &model.nodes[child] {
                let st = &self.anim[child];
                let done = match model.animations[*a].looping {
                    LoopMode::Loop => st.looped,
                    _ => st.finished,
                };
                all &= done;
                any |= done;
            }
        }
        self.set_query(self.q.all_finished, all as u8 as f32);
        self.set_query(self.q.any_finished, any as u8 as f32);
    }
}

/// The pose before any animation: no rotation or offset, scale 1.
fn bind_pose(bones: usize) -> Pose {
    Pose {
        rot: vec![[0.0; 3]; bones],
        pos: vec![[0.0; 3]; bones],
        scale: vec![[1.0; 3]; bones],
        entity_scale: [1.0; 3],
        ..Pose::default()
    }
}

/// Uniform Catmull-Rom through p1 (α = 0) and p2 (α = 1), tangents from the neighbours.
pub fn catmull_rom(p0: f32, p1: f32, p2: f32, p3: f32, a: f32) -> f32 {
    let v0 = (p2 - p0) * 0.5;
    let v1 = (p3 - p1) * 0.5;
    let (a2, a3) = (a * a, a * a * a);
    (2.0 * p1 - 2.0 * p2 + v0 + v1) * a3 + (-3.0 * p1 + 3.0 * p2 - 2.0 * v0 - v1) * a2 + v0 * a + p1
}

/// Piecewise-linear curve through sorted points, clamped to the end values outside them.
pub fn piecewise(curve: &[(f32, f32)], x: f32) -> f32 {
    let Some(&(x0, y0)) = curve.first() else {
        return x;
    };
    if x <= x0 || x.is_nan() {
        return y0;
    }
    let &(xn, yn) = curve.last().unwrap_or(&(x0, y0));
    if x >= xn {
        return yn;
    }
    let i = curve.partition_point(|p| p.0 <= x);
    let (a, b) = (curve[i - 1], curve[i]);
    if b.0 == a.0 {
        return b.1;
    }
    a.1 + (b.1 - a.1) * (x - a.0) / (b.0 - a.0)
}
