//! Entity scripts: a client entity's `variables`, `initialize` and `pre_animation` compiled
//! once against one shared name table, `initialize` run once, then one `pre_animation` run
//! per frame with that frame's queries. Variables persist across frames; temps do not.
//!
//! The runtime adds every other expression of the entity (animation channels, blend
//! weights, controller transitions, ...) with [`EntityScripts::add_expression`]: all of them
//! share the same slots, so a variable set by `pre_animation` is one indexed load in a
//! channel expression, never a name lookup.

use crate::builtins::math::{DefaultRng, MolangRng};
use crate::check::{check, CheckOptions};
use crate::diagnostics::Diagnostic;
use crate::interp::exec::{Backend, Executable};
use crate::interp::{self, Abort, EvalOptions, Host, Platform, Storage, Value};
use crate::ir::{Names, Program, Scope, Slot};
use crate::jit::JitError;
use std::sync::Arc;

/// The script parts of a client entity description.
#[derive(Clone, Debug)]
pub struct ScriptSource {
    /// `initialize` entries (joined into one program).
    pub initialize: Vec<String>,
    /// `pre_animation` entries (joined into one program).
    pub pre_animation: Vec<String>,
    /// Variables pre-set by the host before `initialize` (name without prefix).
    pub preset: Vec<String>,
    /// Raw Molang version the scripts are checked and run at.
    pub version: i16,
}

// Not derived: a derived default would be version 0, the legacy rules.
impl Default for ScriptSource {
    fn default() -> Self {
        ScriptSource {
            initialize: Vec::new(),
            pre_animation: Vec::new(),
            preset: Vec::new(),
            version: grammar::LATEST_VERSION,
        }
    }
}

impl ScriptSource {
    /// The scripts of a client entity in a loaded pack, at the pack's Molang version.
    pub fn from_pack(pack: &crate::pack::Pack, entity: &crate::pack::Entity) -> ScriptSource {
        let text = |s: Option<crate::pack::SiteId>| {
            s.map(|i| vec![pack.sites[i].text.clone()])
                .unwrap_or_default()
        };
        ScriptSource {
            initialize: text(entity.initialize),
            pre_animation: text(entity.pre_animation),
            preset: entity.public_variables.clone(),
            version: crate::pack_check::molang_version(pack.files[entity.file].min_engine_version),
        }
    }
}

/// Compiled scripts of one entity type.
#[derive(Clone, Debug)]
pub struct EntityScripts {
    /// Whether [`EntityScripts::enable_jit`] was called: every program, including those added
    /// later, is then compiled to native code where the JIT covers it.
    jit: bool,
    names: Names,
    initialize: Option<Executable>,
    pre_animation: Option<Executable>,
    /// Diagnostics of scripts that still load: warnings, and reads that fail at run time.
    pub warnings: Vec<Diagnostic>,
    version: i16,
    /// Whose float rules the scripts follow (x86-64 unless [`EntityScripts::set_platform`]).
    platform: Platform,
    /// Expressions added after the scripts, indexed by [`CompiledExprId`].
    extras: Vec<Extra>,
}

/// One expression compiled with [`EntityScripts::add_expression`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompiledExprId(pub u32);

#[derive(Clone, Debug)]
struct Extra {
    exec: Executable,
    /// Where it came from, for abort messages (e.g. `animation.pig.walk leg0.rotation`).
    label: Arc<str>,
}

/// A runtime abort reported like a content-log line: which script, which frame, what.
#[derive(Clone, Debug)]
pub struct ScriptAbort {
    pub script: &'static str,
    pub frame: u64,
    pub abort: Abort,
    pub message: String,
    pub span: grammar::Span,
}

/// Joins script array entries the way the game does (vanilla splits a block over entries).
pub fn join_entries(entries: &[String]) -> String {
    entries.join("\n")
}

impl EntityScripts {
    /// Compiles the scripts; diagnostics that make the game refuse a script come back as the
    /// error (nothing loads). The rest, including reads that always fail at run time, are kept
    /// in `warnings`: the game loads those scripts and the failure shows when they run.
    pub fn compile(src: &ScriptSource) -> Result<EntityScripts, Vec<Diagnostic>> {
        let mut names = Names::default();
        let mut warnings = Vec::new();
        let mut errors = Vec::new();
        let mut compile_one =
            |text: &[String], preset: Vec<String>, later: Vec<String>, names: &mut Names| {
                if text.is_empty() {
                    return None;
                }
                let options = CheckOptions {
                    version: src.version,
                    judge_variables: true,
                    preset_variables: preset,
                    later_variables: later,
                    warn_unknown_queries: true,
                };
                let checked = check(&join_entries(text), &options, names);
                for d in checked.diagnostics {
                    if d.refuses_load() {
                        errors.push(d);
                    } else {
                        warnings.push(d);
                    }
                }
                checked.program
            };
        let init_sets = assigned_names(&src.initialize);
        let pre_sets = assigned_names(&src.pre_animation);
        // `initialize` runs once, before any `pre_animation`: nothing is set "later" for it.
        let initialize = compile_one(&src.initialize, src.preset.clone(), Vec::new(), &mut names);
        let mut preset = src.preset.clone();
        preset.extend(init_sets);
        let pre_animation = compile_one(&src.pre_animation, preset, pre_sets, &mut names);
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(EntityScripts {
            jit: false,
            names,
            initialize: initialize.map(Executable::new),
            pre_animation: pre_animation.map(Executable::new),
            warnings,
            version: src.version,
            platform: Platform::X86_64,
            extras: Vec::new(),
        })
    }

    /// Compiles one more expression against the entity's name table. Returns its id when
    /// the game would load it (`None` otherwise) and every diagnostic. Variable reads are not
    /// judged here: an animation reads what any script of the entity may have set, and an
    /// unset read still ends the expression at run time, as in the game.
    pub fn add_expression(
        &mut self,
        text: &str,
        label: &str,
    ) -> (Option<CompiledExprId>, Vec<Diagnostic>) {
        let options = CheckOptions {
            version: self.version,
            judge_variables: false,
            preset_variables: Vec::new(),
            later_variables: Vec::new(),
            warn_unknown_queries: true,
        };
        let checked = check(text, &options, &mut self.names);
        let loads = checked.loads();
        let (Some(program), true) = (checked.program, loads) else {
            return (None, checked.diagnostics);
        };
        let mut exec = Executable::new(program);
        if self.jit {
            // Added after `enable_jit`: compiled too; what the JIT leaves stays interpreted,
            // this expression alone (`fallbacks` lists it).
            let _ = exec.compile(&self.names, &self.eval_options());
        }
        let id = CompiledExprId(self.extras.len() as u32);
        self.extras.push(Extra {
            exec,
            label: label.into(),
        });
        (Some(id), checked.diagnostics)
    }

    /// Number of expressions added with [`EntityScripts::add_expression`].
    pub fn expression_count(&self) -> usize {
        self.extras.len()
    }

    /// The label an added expression was given (what it is, for messages).
    pub fn expression_label(&self, id: CompiledExprId) -> &str {
        &self.extras[id.0 as usize].label
    }

    /// The source text of an added expression.
    pub fn expression_source(&self, id: CompiledExprId) -> &str {
        self.extras[id.0 as usize].exec.program().source()
    }

    /// Slot of a variable, created if no script names it yet (controller state variables).
    pub fn intern_variable(&mut self, name: &str) -> Slot {
        self.names.variables.intern(&name.to_ascii_lowercase())
    }

    /// Slot of a query, created if no script reads it yet.
    pub fn intern_query(&mut self, name: &str) -> Slot {
        self.names.queries.intern(&name.to_ascii_lowercase())
    }

    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Slot of a query name (without prefix), for per-frame inputs.
    pub fn query_slot(&self, name: &str) -> Option<Slot> {
        // Per-frame callers pass lower-case names: look up without allocating first.
        (self.names.queries.get(name))
            .or_else(|| self.names.queries.get(&name.to_ascii_lowercase()))
    }

    /// Every compiled program of the entity: the scripts, then the added expressions.
    fn programs(&self) -> impl Iterator<Item = &Program> {
        self.executables().map(|(_, e)| e.program())
    }

    /// Every program with its label: `initialize`, `pre_animation`, then the added ones.
    fn executables(&self) -> impl Iterator<Item = (&str, &Executable)> {
        (self.initialize.iter().map(|e| ("initialize", e)))
            .chain(self.pre_animation.iter().map(|e| ("pre_animation", e)))
            .chain(self.extras.iter().map(|e| (&*e.label, &e.exec)))
    }

    /// Makes every program follow `platform`'s float rules (native code already compiled is
    /// compiled again for it).
    pub fn set_platform(&mut self, platform: Platform) {
        if platform == self.platform {
            return;
        }
        self.platform = platform;
        if self.jit {
            // Each reason is kept per program (`fallbacks`); the first one is not needed here.
            let _ = self.enable_jit();
        }
    }

    /// Whose float rules the scripts follow.
    pub fn platform(&self) -> Platform {
        self.platform
    }

    fn eval_options(&self) -> EvalOptions {
        EvalOptions {
            version: self.version,
            platform: self.platform,
            // Every run of an entity's scripts starts with cleared temps, and the instance
            // exposes variables only.
            private_temps: true,
            ..EvalOptions::default()
        }
    }

    /// Whether some expression reads `query` without arguments (`q.name`, `q.name()`).
    pub fn reads_without_arguments(&self, query: Slot) -> bool {
        self.programs().any(|p| {
            (0..p.len()).any(|i| {
                matches!(p.node(crate::ir::NodeId(i as u32)),
                    crate::ir::Node::Query { query: q, args } if *q == query && args.is_empty())
            })
        })
    }

    /// The text of a string literal of the entity whose hash is `hash` (strings are kept
    /// only as hashes; messages want the text back). `None` when no literal has it.
    pub fn string_text(&self, hash: u64) -> Option<String> {
        self.programs().find_map(|p| {
            (0..p.len()).find_map(|i| {
                let id = crate::ir::NodeId(i as u32);
                match p.node(id) {
                    crate::ir::Node::Str(h) if *h == hash => {
                        let span = p.span(id);
                        let text = p.source().get(span.start as usize..span.end as usize)?;
                        let inner = text.trim().trim_matches('\'');
                        // Only trust the span if it really is this literal.
                        (crate::ir::fnv1_64(inner.as_bytes()) == hash).then(|| inner.to_string())
                    }
                    _ => None,
                }
            })
        })
    }

    /// Slot of a variable (without prefix).
    pub fn variable_slot(&self, name: &str) -> Option<Slot> {
        (self.names.variables.get(name))
            .or_else(|| self.names.variables.get(&name.to_ascii_lowercase()))
    }

    /// Compiles every program of the entity (scripts and added expressions, and those added
    /// later) to native code. What the JIT does not cover stays interpreted, one expression at
    /// a time, never the whole entity: `Err` gives the first such reason and
    /// [`EntityScripts::fallbacks`] lists them all.
    pub fn enable_jit(&mut self) -> Result<(), JitError> {
        self.jit = true;
        let options = self.eval_options();
        let names = &self.names;
        let mut first = None;
        let all = (self.initialize.iter_mut())
            .chain(self.pre_animation.iter_mut())
            .chain(self.extras.iter_mut().map(|e| &mut e.exec));
        for exec in all {
            if let Err(e) = exec.compile(names, &options) {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Like [`enable_jit`](Self::enable_jit), but the compile runs on a new thread and this
    /// returns at once (it shares the programs and copies the name table): every program runs
    /// interpreted until its native code is ready, then natively from its next run on, so no
    /// frame waits for the compiler (a frame costs at most an interpreted frame). Outputs
    /// are the same bits whenever the switch comes (both back ends agree on the shared
    /// storage). The handle ends when every program is compiled; dropping it lets the
    /// thread finish on its own. Expressions added later compile at once, as after
    /// `enable_jit`.
    pub fn enable_jit_in_background(&mut self) -> std::thread::JoinHandle<()> {
        self.jit = true;
        let options = self.eval_options();
        let names = self.names.clone();
        let all = (self.initialize.iter_mut())
            .chain(self.pre_animation.iter_mut())
            .chain(self.extras.iter_mut().map(|e| &mut e.exec));
        let jobs: Vec<_> = all.map(|exec| exec.compile_later()).collect();
        std::thread::spawn(move || {
            for (program, slot) in &jobs {
                crate::interp::exec::compile_pending(program, &names, &options, slot);
            }
        })
    }

    /// Whether a compile started by [`enable_jit_in_background`](Self::enable_jit_in_background)
    /// is still running for some program.
    pub fn jit_pending(&self) -> bool {
        self.executables().any(|(_, e)| e.is_pending())
    }

    /// Whether every program of the entity runs as native code.
    pub fn is_native(&self) -> bool {
        self.jit && self.executables().all(|(_, e)| e.backend() == Backend::Jit)
    }

    /// Programs that run natively, and all programs.
    pub fn native_count(&self) -> (usize, usize) {
        let native = (self.executables())
            .filter(|(_, e)| e.backend() == Backend::Jit)
            .count();
        (native, self.executables().count())
    }

    /// The programs the JIT left to the interpreter, by label, with the reason (empty until
    /// [`EntityScripts::enable_jit`]).
    pub fn fallbacks(&self) -> Vec<(&str, &JitError)> {
        (self.executables())
            .filter_map(|(l, e)| e.fallback().map(|f| (l, f)))
            .collect()
    }

    /// A fresh entity of this type.
    pub fn instantiate(&self, seed: u64) -> EntityInstance {
        EntityInstance {
            query_values: vec![0.0; self.names.queries.len()],
            storage: Storage::for_names(&self.names),
            queries: vec![Value::Num(0.0); self.names.queries.len()],
            arg_queries: ArgQueries::default(),
            rng: DefaultRng::new(seed),
            frame: 0,
            initialized: false,
        }
    }
}

/// One entity's state: its variables, this frame's queries and its random generator.
pub struct EntityInstance {
    /// Variables, temps and contexts, in the layout both back ends share.
    storage: Storage,
    /// `queries` as numbers, which native code reads for queries without arguments.
    query_values: Vec<f32>,
    /// Query values by slot for the next frame.
    pub queries: Vec<Value>,
    /// Values of queries for given arguments (`q.position_delta(1)`), set like `queries`.
    arg_queries: ArgQueries,
    rng: DefaultRng,
    frame: u64,
    initialized: bool,
}

/// At most this many argument lists are named per query in the misses (a computed argument
/// could otherwise give a new note every frame).
const MAX_REPORTED_MISSES: usize = 8;

/// Query values for given arguments (`q.position_delta(1)`, `q.property('ns:x')`), per query
/// slot: a short list of (arguments, value) scanned linearly. A query takes a handful of
/// argument lists at most, so a scan beats hashing the arguments on every read.
///
/// Arguments compare as Molang's `==` does ([`Value::equals`]): numbers by f32 equality, so
/// `-0` matches `0` and a NaN argument matches nothing; strings by the game's hash of their
/// bytes, so case-sensitively (spec §1.2: string contents keep their case). A read matching
/// no entry falls back to the query's plain value (the slot in `queries`).
#[derive(Clone, Debug, Default)]
struct ArgQueries {
    slots: Vec<ArgSlot>,
    /// Reads that matched no entry on a watched slot, not taken yet; `None`: the slot's
    /// further misses are no longer named.
    misses: Vec<(Slot, Option<Box<[Value]>>)>,
}

#[derive(Clone, Debug, Default)]
struct ArgSlot {
    /// A value is a number, or a string for an enum property (`q.property('ns:state')`).
    entries: Vec<(Box<[Value]>, Value)>,
    /// Record reads that match no entry (set when the query has no plain value either).
    watch: bool,
    /// Argument lists already recorded as misses.
    reported: Vec<Box<[Value]>>,
}

/// The same argument for de-duplicating misses: numbers by bits, so NaN is recorded once.
fn same_arg(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

impl ArgQueries {
    /// The value of `query` for the `n` arguments `arg(0..n)`, `None` when no entry matches
    /// (the caller falls back to the plain value). Both back ends end here: the interpreter
    /// passes its values, the JIT its f32s (through `jit_query`), so they agree bit for bit.
    #[inline]
    fn find(&mut self, query: Slot, n: usize, arg: impl Fn(usize) -> Value) -> Option<Value> {
        if n == 0 {
            return None;
        }
        let s = self.slots.get_mut(query.index())?;
        for (args, v) in &s.entries {
            if args.len() == n && args.iter().enumerate().all(|(i, a)| a.equals(arg(i))) {
                return Some(*v);
            }
        }
        if s.watch {
            let seen = |r: &[Value]| {
                r.len() == n && r.iter().enumerate().all(|(i, a)| same_arg(*a, arg(i)))
            };
            if !s.reported.iter().any(|r| seen(r)) {
                if s.reported.len() < MAX_REPORTED_MISSES {
                    let args: Box<[Value]> = (0..n).map(&arg).collect();
                    s.reported.push(args.clone());
                    self.misses.push((query, Some(args)));
                } else {
                    s.watch = false;
                    self.misses.push((query, None));
                }
            }
        }
        None
    }

    fn slot_mut(&mut self, query: Slot) -> &mut ArgSlot {
        let i = query.index();
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, ArgSlot::default);
        }
        &mut self.slots[i]
    }
}

struct FrameHost<'a> {
    queries: &'a [Value],
    args: &'a mut ArgQueries,
    rng: &'a mut DefaultRng,
    this: f32,
}

impl Host for FrameHost<'_> {
    fn query(&mut self, query: Slot, args: &[Value]) -> Value {
        if let Some(v) = self.args.find(query, args.len(), |i| args[i]) {
            return v;
        }
        self.queries
            .get(query.index())
            .copied()
            .unwrap_or(Value::Num(0.0))
    }
    fn rng(&mut self) -> &mut dyn MolangRng {
        self.rng
    }
    fn this(&mut self) -> f32 {
        self.this
    }
}

impl EntityInstance {
    /// Bytes this instance owns, inline and on the heap: its slots, query values and inputs
    /// with arguments. The compiled scripts it runs are shared and not counted.
    pub fn state_bytes(&self) -> usize {
        let arg: usize = (self.arg_queries.slots.iter())
            .map(|s| {
                let lists = |l: &Vec<Box<[Value]>>| {
                    l.capacity() * std::mem::size_of::<Box<[Value]>>()
                        + l.iter().map(|a| std::mem::size_of_val(&**a)).sum::<usize>()
                };
                s.entries.capacity() * std::mem::size_of::<(Box<[Value]>, Value)>()
                    + (s.entries.iter())
                        .map(|(a, _)| std::mem::size_of_val(&**a))
                        .sum::<usize>()
                    + lists(&s.reported)
            })
            .sum();
        std::mem::size_of::<EntityInstance>()
            + self.storage.heap_bytes()
            + self.query_values.capacity() * 4
            + self.queries.capacity() * std::mem::size_of::<Value>()
            + self.arg_queries.slots.capacity() * std::mem::size_of::<ArgSlot>()
            + arg
    }

    /// Adds an input for `query` read with exactly `args` (value 0 until set) and returns
    /// its index for [`EntityInstance::set_query_input`]; the same arguments again give the
    /// same index. Empty `args` is the plain value: use [`EntityInstance::set_query_slot`].
    pub fn add_query_input(&mut self, query: Slot, args: &[Value]) -> usize {
        let s = self.arg_queries.slot_mut(query);
        let same = |e: &(Box<[Value]>, Value)| {
            e.0.len() == args.len() && e.0.iter().zip(args).all(|(a, b)| a.equals(*b))
        };
        if let Some(i) = s.entries.iter().position(same) {
            return i;
        }
        s.entries.push((args.into(), Value::Num(0.0)));
        s.entries.len() - 1
    }

    /// Sets an input added with [`EntityInstance::add_query_input`] (the per-frame path:
    /// one indexed store). Unknown indices are ignored.
    pub fn set_query_input(&mut self, query: Slot, index: usize, value: f32) {
        self.set_query_input_value(query, index, Value::Num(value));
    }

    /// [`EntityInstance::set_query_input`] with a value of any kind (a string for an enum
    /// property).
    pub fn set_query_input_value(&mut self, query: Slot, index: usize, value: Value) {
        if let Some(e) =
            (self.arg_queries.slots.get_mut(query.index())).and_then(|s| s.entries.get_mut(index))
        {
            e.1 = value;
        }
    }

    /// Whether inputs with arguments were added for `query`.
    pub fn has_query_inputs(&self, query: Slot) -> bool {
        (self.arg_queries.slots.get(query.index())).is_some_and(|s| !s.entries.is_empty())
    }

    /// Records reads of `query` with arguments that match no input, for
    /// [`EntityInstance::take_query_misses`] (each argument list once).
    pub fn watch_query_misses(&mut self, query: Slot, on: bool) {
        self.arg_queries.slot_mut(query).watch = on;
    }

    /// Reads of watched queries whose arguments matched no input since the last call, each
    /// argument list once; `None` once a query has more than a few: its further misses are
    /// not recorded.
    pub fn take_query_misses(&mut self) -> Vec<(Slot, Option<Box<[Value]>>)> {
        std::mem::take(&mut self.arg_queries.misses)
    }

    /// Sets a query for the coming frames (unknown names are ignored: the scripts never read them).
    pub fn set_query(&mut self, scripts: &EntityScripts, name: &str, value: f32) {
        if let Some(slot) = scripts.query_slot(name) {
            self.set_query_slot(slot, value);
        }
    }

    pub fn set_variable(&mut self, scripts: &EntityScripts, name: &str, value: f32) {
        if let Some(slot) = scripts.variable_slot(name) {
            self.storage.set(Scope::Variable, slot, value);
        }
    }

    pub fn variable(&self, scripts: &EntityScripts, name: &str) -> Option<Value> {
        scripts
            .variable_slot(name)
            .and_then(|s| self.variable_in(scripts, s))
    }

    fn variable_in(&self, _scripts: &EntityScripts, slot: Slot) -> Option<Value> {
        self.storage.get(Scope::Variable, slot)
    }

    /// A variable by slot.
    pub fn variable_by_slot(&self, scripts: &EntityScripts, slot: Slot) -> Option<Value> {
        self.variable_in(scripts, slot)
    }

    /// A variable's number by slot, as `variable_by_slot(..).map(Value::as_num)` gives it
    /// (0 for a string or reference, `None` when unset) without building the [`Value`]:
    /// for a caller that reads a few numbers (many at once: [`EntityInstance::numbers_by_slots`]).
    #[inline]
    pub fn number_by_slot(&self, slot: Slot) -> Option<f32> {
        self.storage.vars.number(slot)
    }

    /// [`EntityInstance::number_by_slot`] of each of `slots` into `out` (`unset` for `None`),
    /// in one pass: the rig runner reads its 48 outputs a frame this way.
    #[inline]
    pub fn numbers_by_slots(&self, slots: &[Slot], out: &mut [f32], unset: f32) {
        self.storage.vars.numbers(slots, out, unset)
    }

    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Grows the per-slot arrays when expressions added names after `instantiate`.
    fn fit(&mut self, scripts: &EntityScripts) {
        let q = scripts.names.queries.len();
        if self.queries.len() < q {
            self.queries.resize(q, Value::Num(0.0));
        }
        if self.query_values.len() < q {
            self.query_values.resize(q, 0.0);
        }
        self.storage.fit(&scripts.names);
    }

    /// Sets a query by slot (the per-frame path: no name lookup).
    pub fn set_query_slot(&mut self, slot: Slot, value: f32) {
        let i = slot.index();
        if self.queries.len() <= i {
            self.queries.resize(i + 1, Value::Num(0.0));
            self.query_values.resize(i + 1, 0.0);
        }
        self.queries[i] = Value::Num(value);
        self.query_values[i] = value;
    }

    /// Current value of a query slot (0 when never set).
    pub fn query_slot_value(&self, slot: Slot) -> f32 {
        self.query_values.get(slot.index()).copied().unwrap_or(0.0)
    }

    /// Sets a `context.` value by slot (the host's part: an attachable's
    /// `context.is_first_person`, an item's `context.item_slot`).
    pub fn set_context_slot(&mut self, slot: Slot, value: f32) {
        self.storage.set(Scope::Context, slot, value);
    }

    /// Sets a variable by slot.
    pub fn set_variable_slot(&mut self, slot: Slot, value: f32) {
        self.storage.set(Scope::Variable, slot, value);
    }

    /// Runs an expression added with [`EntityScripts::add_expression`] once, with `this`.
    /// Temps start empty. An abort (unset read, budget) gives value 0 and the abort, as the
    /// game's content log would show it.
    pub fn eval(
        &mut self,
        scripts: &EntityScripts,
        id: CompiledExprId,
        this: f32,
    ) -> Result<f32, Box<ScriptAbort>> {
        let budget = scripts.eval_options().iteration_budget;
        self.eval_within(scripts, id, this, budget).0
    }

    /// [`EntityInstance::eval`] with at most `budget` iterations (the rest of a frame's
    /// budget, see [`crate::runtime::play`]); also returns the iterations the run spent, the
    /// same on both back ends.
    pub fn eval_within(
        &mut self,
        scripts: &EntityScripts,
        id: CompiledExprId,
        this: f32,
        budget: u64,
    ) -> (Result<f32, Box<ScriptAbort>>, u64) {
        let Some(extra) = scripts.extras.get(id.0 as usize) else {
            return (Ok(0.0), 0);
        };
        self.fit(scripts);
        let mut host = FrameHost {
            queries: &self.queries,
            args: &mut self.arg_queries,
            rng: &mut self.rng,
            this,
        };
        self.storage.clear_temps();
        let options = EvalOptions {
            iteration_budget: budget,
            ..scripts.eval_options()
        };
        let out = (extra.exec).run(&mut self.storage, &self.query_values, &mut host, &options);
        let Some(a) = out.abort else {
            return (Ok(out.value.as_num()), out.iterations);
        };
        let mut d = describe(scripts, "expression", self.frame, extra.exec.program(), a);
        d.message = d.message.replacen("expression", &extra.label, 1);
        (Err(Box::new(d)), out.iterations)
    }

    /// Runs `initialize` (first call only) and then `pre_animation` once. Returns the aborts
    /// of this frame, like the game's content log.
    pub fn run_frame(&mut self, scripts: &EntityScripts) -> Vec<ScriptAbort> {
        self.run_frame_within(scripts, None).0
    }

    /// [`EntityInstance::run_frame`]; with `Some(budget)`, `initialize` and `pre_animation`
    /// share at most `budget` iterations (each alone has the per-run budget otherwise). Also
    /// returns what each spent.
    pub fn run_frame_within(
        &mut self,
        scripts: &EntityScripts,
        budget: Option<u64>,
    ) -> (Vec<ScriptAbort>, [u64; 2]) {
        let mut options = scripts.eval_options();
        let mut spent = [0u64; 2];
        let mut aborts = Vec::new();
        self.fit(scripts);
        for (q, v) in self.query_values.iter_mut().zip(&self.queries) {
            *q = v.as_num();
        }
        let mut host = FrameHost {
            queries: &self.queries,
            args: &mut self.arg_queries,
            rng: &mut self.rng,
            this: 0.0,
        };
        let first = !self.initialized;
        self.initialized = true;
        let scripts_now = [
            (
                first.then_some(()).and(scripts.initialize.as_ref()),
                "initialize",
            ),
            (scripts.pre_animation.as_ref(), "pre_animation"),
        ];
        for (i, (exec, name)) in scripts_now.into_iter().enumerate() {
            let Some(exec) = exec else { continue };
            self.storage.clear_temps();
            if let Some(b) = budget {
                options.iteration_budget = b.saturating_sub(spent[0]);
            }
            let out = exec.run(&mut self.storage, &self.query_values, &mut host, &options);
            spent[i] = out.iterations;
            if let Some(a) = out.abort {
                aborts.push(describe(scripts, name, self.frame, exec.program(), a));
            }
        }
        self.frame += 1;
        (aborts, spent)
    }
}

fn describe(
    scripts: &EntityScripts,
    script: &'static str,
    frame: u64,
    p: &Program,
    a: Abort,
) -> ScriptAbort {
    let message = match a.kind {
        interp::AbortKind::UnsetRead { scope, slot } => format!(
            "{script}: read of unset `{}.{}` ended the script",
            scope.prefix(),
            scripts.names.table(scope).name(slot)
        ),
        interp::AbortKind::Budget => format!("{script}: iteration budget exhausted"),
    };
    ScriptAbort {
        script,
        frame,
        abort: a,
        message,
        span: p.span(a.node),
    }
}

/// Names a script assigns anywhere (textual, used to know what a later script may read).
fn assigned_names(entries: &[String]) -> Vec<String> {
    let mut names = Names::default();
    let text = join_entries(entries);
    let checked = check(
        &text,
        &CheckOptions {
            warn_unknown_queries: false,
            ..CheckOptions::default()
        },
        &mut names,
    );
    let mut out = Vec::new();
    if let Some(p) = checked.program {
        for i in 0..p.len() {
            match p.node(crate::ir::NodeId(i as u32)) {
                crate::ir::Node::Assign(crate::ir::Assign {
                    scope: Scope::Variable,
                    slot,
                    ..
                })
                | crate::ir::Node::ForEach(crate::ir::ForEach {
                    scope: Scope::Variable,
                    slot,
                    ..
                }) => {
                    out.push(names.variables.name(*slot).to_string());
                }
                _ => {}
            }
        }
    }
    out
}

/// A Molang condition over an entity's variables and queries, evaluated after a frame
/// (`molang fuzz --invariant`, `molang test`'s always/never). It is compiled against a copy
/// of the entity's names without temps, since it runs on fresh storage where the frame's
/// temps are gone; `names` is that table, for callers that refuse names the entity lacks.
pub struct Condition {
    pub program: Program,
    pub names: Names,
    pub version: i16,
}

impl Condition {
    /// Compiles `text`; the error lists the diagnostics that keep it from loading.
    pub fn compile(text: &str, entity: &Names, version: i16) -> Result<Condition, crate::Error> {
        let mut names = entity.clone();
        names.temps = Default::default();
        let options = CheckOptions {
            version,
            warn_unknown_queries: false,
            ..CheckOptions::default()
        };
        let checked = check(text, &options, &mut names);
        match checked.program {
            Some(program) => Ok(Condition {
                program,
                names,
                version,
            }),
            None => Err(crate::Error::new(
                crate::error::ErrorKind::Config,
                checked
                    .diagnostics
                    .iter()
                    .filter(|d| d.refuses_load())
                    .map(|d| format!("{}: {}", d.code.as_str(), d.message))
                    .collect::<Vec<_>>()
                    .join("; "),
            )),
        }
    }

    /// Whether it holds for `inst` as its last frame left it; `None` when the evaluation read
    /// a variable that is not set (the game would end the expression there).
    pub fn holds(&self, scripts: &EntityScripts, inst: &EntityInstance) -> Option<bool> {
        let mut storage = Storage::default();
        for (slot, _) in scripts.names().variables.iter() {
            if let Some(v) = inst.variable_by_slot(scripts, slot) {
                storage.set(Scope::Variable, slot, v);
            }
        }
        // Queries the entity never reads but the condition does read 0.
        let mut queries = vec![Value::Num(0.0); self.names.queries.len()];
        for (q, v) in queries.iter_mut().zip(&inst.queries) {
            *q = *v;
        }
        let mut host = crate::expression::SimpleHost {
            queries,
            rng: DefaultRng::new(0),
            this: 0.0,
        };
        let options = EvalOptions {
            version: self.version,
            platform: scripts.platform,
            ..EvalOptions::default()
        };
        let out = interp::run(&self.program, &mut storage, &mut host, &options);
        out.abort.is_none().then(|| out.value.truthy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles `pre_animation`, optionally to native code, with the inputs
    /// `position_delta(0) = 5`, `armor_color_slot(1, 2) = 7`, the plain `armor_color_slot` = 3
    /// and `property('ns:a') = 9`; runs one frame and returns the variables `names`.
    fn frame(pre: &str, jit: bool, names: &[&str]) -> (Vec<f32>, bool, Vec<Slot>) {
        let mut scripts = EntityScripts::compile(&ScriptSource {
            pre_animation: vec![pre.to_string()],
            ..ScriptSource::default()
        })
        .unwrap();
        if jit {
            scripts.enable_jit().unwrap();
        }
        let mut inst = scripts.instantiate(0);
        let pd = scripts.intern_query("position_delta");
        let acs = scripts.intern_query("armor_color_slot");
        let prop = scripts.intern_query("property");
        let i = inst.add_query_input(pd, &[Value::Num(0.0)]);
        inst.set_query_input(pd, i, 5.0);
        let i = inst.add_query_input(acs, &[Value::Num(1.0), Value::Num(2.0)]);
        inst.set_query_input(acs, i, 7.0);
        inst.set_query_slot(acs, 3.0);
        let h = crate::ir::fnv1_64(b"ns:a");
        let i = inst.add_query_input(prop, &[Value::Str(h)]);
        inst.set_query_input(prop, i, 9.0);
        inst.watch_query_misses(pd, true);
        let aborts = inst.run_frame(&scripts);
        assert!(aborts.is_empty(), "{:?}", aborts[0].message);
        let vals = names
            .iter()
            .map(|n| inst.variable(&scripts, n).unwrap().as_num())
            .collect();
        let missed = inst
            .take_query_misses()
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        (vals, scripts.is_native(), missed)
    }

    #[test]
    fn number_by_slot_reads_what_variable_by_slot_reads_as_a_number() {
        let scripts = EntityScripts::compile(&ScriptSource {
            pre_animation: vec![
                "v.n = 1.5; v.z = -0; v.s = 'text'; v.q = math.sqrt(-1); v.y = v.ro ?? 2;"
                    .to_string(),
            ],
            ..ScriptSource::default()
        })
        .unwrap();
        let mut inst = scripts.instantiate(0);
        inst.run_frame(&scripts);
        let mut compared = 0;
        for name in ["n", "z", "s", "q", "y", "ro"] {
            let slot = scripts.variable_slot(name).expect("a slot");
            let want = inst.variable_by_slot(&scripts, slot).map(Value::as_num);
            let got = inst.number_by_slot(slot);
            assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "v.{name}");
            compared += 1;
        }
        assert_eq!(compared, 6);
        let s = scripts.variable_slot("s").expect("a slot");
        assert_eq!(inst.number_by_slot(s), Some(0.0), "a string reads as 0");
        let ro = scripts.variable_slot("ro").expect("a slot");
        assert_eq!(inst.number_by_slot(ro), None, "never set");
    }

    #[test]
    fn arguments_select_the_input_on_both_back_ends() {
        let pre = "v.a = q.position_delta(0); v.b = q.position_delta(-0); \
                   v.c = q.position_delta(1); v.d = q.position_delta(math.sqrt(-1)); \
                   v.e = q.armor_color_slot(1, 2); v.f = q.armor_color_slot(2, 1); \
                   v.g = q.position_delta(0) + q.position_delta(1);";
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        let (interp, native, miss_i) = frame(pre, false, &names);
        assert!(!native);
        // -0 matches 0; 1 and NaN match nothing and there is no plain value: 0. Two
        // arguments must both match, in order; otherwise the plain value (3).
        assert_eq!(interp, [5.0, 5.0, 0.0, 0.0, 7.0, 3.0, 5.0]);
        let (jit, native, miss_j) = frame(pre, true, &names);
        assert!(native, "numeric arguments compile");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&interp), bits(&jit));
        // position_delta(1) and (NaN) missed, each argument list once, on both back ends.
        assert_eq!(miss_i.len(), 2);
        assert_eq!(miss_i, miss_j);
    }

    #[test]
    fn string_arguments_compare_by_hash_so_case_sensitively() {
        let pre = "v.a = q.property('ns:a'); v.b = q.property('NS:A'); v.c = q.property(1);";
        let (vals, native, _) = frame(pre, false, &["a", "b", "c"]);
        assert!(!native);
        assert_eq!(vals, [9.0, 0.0, 0.0]);
    }

    #[test]
    fn misses_are_named_a_few_times_per_query_then_summed_up() {
        let mut scripts = EntityScripts::compile(&ScriptSource {
            pre_animation: vec!["v.x = q.position_delta(q.life_time);".to_string()],
            ..ScriptSource::default()
        })
        .unwrap();
        let pd = scripts.intern_query("position_delta");
        let life = scripts.intern_query("life_time");
        let mut inst = scripts.instantiate(0);
        inst.add_query_input(pd, &[Value::Num(-1.0)]);
        inst.watch_query_misses(pd, true);
        let mut misses = Vec::new();
        for f in 0..20 {
            inst.set_query_slot(life, (f % 12) as f32);
            inst.run_frame(&scripts);
            misses.extend(inst.take_query_misses());
        }
        assert_eq!(misses.len(), MAX_REPORTED_MISSES + 1);
        assert!(misses[..MAX_REPORTED_MISSES].iter().all(|m| m.1.is_some()));
        assert_eq!(misses[MAX_REPORTED_MISSES], (pd, None));
    }
}
