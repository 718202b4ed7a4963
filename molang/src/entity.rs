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
use crate::interp::{self, Abort, EvalOptions, Host, Storage, Value};
use crate::ir::{Names, Program, Scope, Slot};
use crate::jit::{self, JitError, JitOutcome, JitProgram, JitStorage};
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
            version: crate::lint::molang_version(pack.files[entity.file].min_engine_version),
        }
    }
}

/// Compiled scripts of one entity type.
#[derive(Clone, Debug)]
pub struct EntityScripts {
    /// Native code for `initialize` and `pre_animation` once [`EntityScripts::enable_jit`]
    /// succeeded; the interpreter runs them otherwise.
    native: Option<(Option<Arc<JitProgram>>, Option<Arc<JitProgram>>)>,
    names: Names,
    initialize: Option<Program>,
    pre_animation: Option<Program>,
    /// Diagnostics of scripts that still load: warnings, and reads that fail at run time.
    pub warnings: Vec<Diagnostic>,
    version: i16,
    /// Expressions added after the scripts, indexed by [`ExprId`].
    extras: Vec<Extra>,
    /// Native code for `extras`, same order, present exactly when `native` is.
    native_extras: Vec<Arc<JitProgram>>,
}

/// One expression compiled with [`EntityScripts::add_expression`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExprId(pub u32);

#[derive(Clone, Debug)]
struct Extra {
    program: Program,
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
            native: None,
            names,
            initialize,
            pre_animation,
            warnings,
            version: src.version,
            extras: Vec::new(),
            native_extras: Vec::new(),
        })
    }

    /// Compiles one more expression against the entity's name table. Returns its id when
    /// the game would load it (`None` otherwise) and every diagnostic. Variable reads are not
    /// judged here: an animation reads what any script of the entity may have set, and an
    /// unset read still ends the expression at run time, as in the game.
    pub fn add_expression(&mut self, text: &str, label: &str) -> (Option<ExprId>, Vec<Diagnostic>) {
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
        if self.native.is_some() {
            // Added after `enable_jit`: compile it too, or fall back to the interpreter as a
            // whole (one storage layout per entity).
            let options = EvalOptions {
                version: self.version,
                ..EvalOptions::default()
            };
            match jit::compile(&program, &self.names, &options) {
                Ok(n) => self.native_extras.push(Arc::new(n)),
                Err(_) => {
                    self.native = None;
                    self.native_extras.clear();
                }
            }
        }
        let id = ExprId(self.extras.len() as u32);
        self.extras.push(Extra {
            program,
            label: label.into(),
        });
        (Some(id), checked.diagnostics)
    }

    /// Number of expressions added with [`EntityScripts::add_expression`].
    pub fn expression_count(&self) -> usize {
        self.extras.len()
    }

    /// The source text of an added expression.
    pub fn expression_source(&self, id: ExprId) -> &str {
        self.extras[id.0 as usize].program.source()
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

    /// Slot of a variable (without prefix).
    pub fn variable_slot(&self, name: &str) -> Option<Slot> {
        (self.names.variables.get(name))
            .or_else(|| self.names.variables.get(&name.to_ascii_lowercase()))
    }

    /// Compiles both scripts to native code. On `Err` (something the JIT leaves to the
    /// interpreter) nothing changes and the interpreter keeps running them.
    pub fn enable_jit(&mut self) -> Result<(), JitError> {
        let options = EvalOptions {
            version: self.version,
            ..EvalOptions::default()
        };
        let compile = |p: &Option<Program>| -> Result<Option<Arc<JitProgram>>, JitError> {
            p.as_ref()
                .map(|p| jit::compile(p, &self.names, &options).map(Arc::new))
                .transpose()
        };
        let init = compile(&self.initialize)?;
        let pre = compile(&self.pre_animation)?;
        let extras = self
            .extras
            .iter()
            .map(|e| jit::compile(&e.program, &self.names, &options).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        self.native = Some((init, pre));
        self.native_extras = extras;
        Ok(())
    }

    /// Whether frames run as native code.
    pub fn is_native(&self) -> bool {
        self.native.is_some()
    }

    /// A fresh entity of this type.
    pub fn instantiate(&self, seed: u64) -> EntityInstance {
        EntityInstance {
            jit: JitStorage::for_names(&self.names),
            query_values: vec![0.0; self.names.queries.len()],
            storage: Storage::default(),
            queries: vec![Value::Num(0.0); self.names.queries.len()],
            rng: DefaultRng::new(seed),
            frame: 0,
            initialized: false,
        }
    }
}

/// One entity's state: its variables, this frame's queries and its random generator.
pub struct EntityInstance {
    storage: Storage,
    /// The same state in the JIT's layout, used when the scripts run natively.
    jit: JitStorage,
    query_values: Vec<f32>,
    /// Query values by slot for the next frame.
    pub queries: Vec<Value>,
    rng: DefaultRng,
    frame: u64,
    initialized: bool,
}

struct FrameHost<'a> {
    queries: &'a [Value],
    rng: &'a mut DefaultRng,
    this: f32,
}

impl Host for FrameHost<'_> {
    fn query(&mut self, query: Slot, _args: &[Value]) -> Value {
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
    /// Sets a query for the coming frames (unknown names are ignored: the scripts never read them).
    pub fn set_query(&mut self, scripts: &EntityScripts, name: &str, value: f32) {
        if let Some(slot) = scripts.query_slot(name) {
            self.queries[slot.index()] = Value::Num(value);
        }
    }

    pub fn set_variable(&mut self, scripts: &EntityScripts, name: &str, value: f32) {
        if let Some(slot) = scripts.variable_slot(name) {
            self.storage.set(Scope::Variable, slot, Value::Num(value));
            self.jit.set(Scope::Variable, slot, value);
        }
    }

    pub fn variable(&self, scripts: &EntityScripts, name: &str) -> Option<Value> {
        scripts
            .variable_slot(name)
            .and_then(|s| self.variable_in(scripts, s))
    }

    fn variable_in(&self, scripts: &EntityScripts, slot: Slot) -> Option<Value> {
        if scripts.is_native() {
            self.jit.get(Scope::Variable, slot).map(Value::Num)
        } else {
            self.storage.get(Scope::Variable, slot)
        }
    }

    /// A variable by slot, from whichever storage the scripts run on.
    pub fn variable_by_slot(&self, scripts: &EntityScripts, slot: Slot) -> Option<Value> {
        self.variable_in(scripts, slot)
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
        self.jit.fit(&scripts.names);
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

    /// Sets a variable by slot in whichever storage the scripts run on (both, to be safe).
    pub fn set_variable_slot(&mut self, slot: Slot, value: f32) {
        self.storage.set(Scope::Variable, slot, Value::Num(value));
        self.jit.set(Scope::Variable, slot, value);
    }

    /// Runs an expression added with [`EntityScripts::add_expression`] once, with `this`.
    /// Temps start empty. An abort (unset read, budget) gives value 0 and the abort, as the
    /// game's content log would show it.
    pub fn eval(
        &mut self,
        scripts: &EntityScripts,
        id: ExprId,
        this: f32,
    ) -> Result<f32, Box<ScriptAbort>> {
        let Some(extra) = scripts.extras.get(id.0 as usize) else {
            return Ok(0.0);
        };
        self.fit(scripts);
        let options = EvalOptions {
            version: scripts.version,
            ..EvalOptions::default()
        };
        let abort = if scripts.native.is_some() {
            let native = &scripts.native_extras[id.0 as usize];
            let out = native.run(
                &mut self.jit,
                &self.query_values,
                this,
                &mut self.rng,
                options.iteration_budget,
            );
            match out {
                JitOutcome::Value(v) => return Ok(v),
                out => jit_abort(&extra.program, out),
            }
        } else {
            let mut host = FrameHost {
                queries: &self.queries,
                rng: &mut self.rng,
                this,
            };
            let out = interp::run(&extra.program, &mut self.storage, &mut host, &options);
            match out.abort {
                None => return Ok(out.value.as_num()),
                a => a,
            }
        };
        let Some(a) = abort else { return Ok(0.0) };
        let mut d = describe(scripts, "expression", self.frame, &extra.program, a);
        d.message = d.message.replacen("expression", &extra.label, 1);
        Err(Box::new(d))
    }

    /// Runs `initialize` (first call only) and then `pre_animation` once. Returns the aborts
    /// of this frame, like the game's content log.
    pub fn run_frame(&mut self, scripts: &EntityScripts) -> Vec<ScriptAbort> {
        let options = EvalOptions {
            version: scripts.version,
            ..EvalOptions::default()
        };
        let mut aborts = Vec::new();
        self.fit(scripts);
        if let Some((init, pre)) = &scripts.native {
            for (q, v) in self.query_values.iter_mut().zip(&self.queries) {
                *q = v.as_num();
            }
            let mut run = |p: &Option<Arc<JitProgram>>,
                           src: &Option<Program>,
                           name: &'static str,
                           jit: &mut JitStorage| {
                let (Some(native), Some(program)) = (p, src) else {
                    return;
                };
                let out = native.run(
                    jit,
                    &self.query_values,
                    0.0,
                    &mut self.rng,
                    options.iteration_budget,
                );
                if let Some(a) = jit_abort(program, out) {
                    aborts.push(describe(scripts, name, self.frame, program, a));
                }
            };
            if !self.initialized {
                self.initialized = true;
                run(init, &scripts.initialize, "initialize", &mut self.jit);
            }
            run(pre, &scripts.pre_animation, "pre_animation", &mut self.jit);
            self.frame += 1;
            return aborts;
        }
        let mut host = FrameHost {
            queries: &self.queries,
            rng: &mut self.rng,
            this: 0.0,
        };
        if !self.initialized {
            self.initialized = true;
            if let Some(p) = &scripts.initialize {
                let out = interp::run(p, &mut self.storage, &mut host, &options);
                if let Some(a) = out.abort {
                    aborts.push(describe(scripts, "initialize", self.frame, p, a));
                }
            }
        }
        if let Some(p) = &scripts.pre_animation {
            let out = interp::run(p, &mut self.storage, &mut host, &options);
            if let Some(a) = out.abort {
                aborts.push(describe(scripts, "pre_animation", self.frame, p, a));
            }
        }
        self.frame += 1;
        aborts
    }
}

/// The interpreter's view of how a native run ended early, if it did.
fn jit_abort(program: &Program, out: JitOutcome) -> Option<Abort> {
    match out {
        JitOutcome::Value(_) => None,
        JitOutcome::UnsetRead(node) => match program.node(node) {
            crate::ir::Node::Read { scope, slot } => Some(Abort {
                kind: interp::AbortKind::UnsetRead {
                    scope: *scope,
                    slot: *slot,
                },
                node,
            }),
            _ => Some(Abort {
                kind: interp::AbortKind::Budget,
                node,
            }),
        },
        JitOutcome::Budget(node) => Some(Abort {
            kind: interp::AbortKind::Budget,
            node,
        }),
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
                crate::ir::Node::Assign {
                    scope: Scope::Variable,
                    slot,
                    ..
                }
                | crate::ir::Node::ForEach {
                    scope: Scope::Variable,
                    slot,
                    ..
                } => {
                    out.push(names.variables.name(*slot).to_string());
                }
                _ => {}
            }
        }
    }
    out
}
