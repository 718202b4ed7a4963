//! The one-expression API: compile once, evaluate with named inputs. Used by `molang eval`,
//! the conformance tests and anyone embedding the interpreter.

use crate::builtins::math::{DefaultRng, MolangRng};
use crate::check::{check, CheckOptions};
use crate::diagnostics::Diagnostic;
use crate::interp::{self, Abort, EvalOptions, Host, Storage, Value};
use crate::ir::{Names, Program, Scope, Slot};
use crate::jit::{self, JitError, JitProgram};

/// A compiled expression with its own name tables.
#[derive(Clone, Debug)]
pub struct Expression {
    program: Program,
    names: Names,
    /// Warnings from checking (the expression loads).
    pub warnings: Vec<Diagnostic>,
    version: i16,
}

/// The expression does not load; `diagnostics` say why.
#[derive(Clone, Debug)]
pub struct CompileError {
    pub diagnostics: Vec<Diagnostic>,
}

/// One evaluation's result.
#[derive(Clone, Debug)]
pub struct EvalResult {
    pub value: Value,
    pub abort: Option<Abort>,
    /// Variables after the run (variable name without prefix, value).
    pub variables: Vec<(String, Value)>,
    /// Temps after the run (name without prefix, value): what the program set before it ended.
    pub temps: Vec<(String, Value)>,
}

impl EvalResult {
    /// A variable's value after the run, by name without prefix (`"x"` for `v.x`).
    pub fn variable(&self, name: &str) -> Option<Value> {
        let name = name.to_ascii_lowercase();
        self.variables
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
    /// A temp's value after the run, by name without prefix.
    pub fn temp(&self, name: &str) -> Option<Value> {
        let name = name.to_ascii_lowercase();
        self.temps.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// Checks and compiles one expression.
pub fn compile(src: &str, options: &CheckOptions) -> Result<Expression, CompileError> {
    let mut names = Names::default();
    let checked = check(src, options, &mut names);
    match checked.program {
        Some(program) => Ok(Expression {
            program,
            names,
            warnings: checked.diagnostics,
            version: options.version,
        }),
        None => Err(CompileError {
            diagnostics: checked.diagnostics,
        }),
    }
}

/// Parses a full or short prefixed name (`q.x`, `query.x`, `v.x`, `variable.x`, `c.x`,
/// `context.x`, `t.x`, `temp.x`) into its storage and the name without prefix.
pub fn split_name(name: &str) -> Option<(NameKind, String)> {
    let lower = name.to_ascii_lowercase();
    let (ns, rest) = lower.split_once('.')?;
    let kind = match ns {
        "q" | "query" => NameKind::Query,
        "v" | "variable" => NameKind::Var(Scope::Variable),
        "t" | "temp" => NameKind::Var(Scope::Temp),
        "c" | "context" => NameKind::Var(Scope::Context),
        _ => return None,
    };
    Some((kind, rest.to_string()))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    Query,
    Var(Scope),
}

/// A host with fixed query values (by slot) and a seeded generator.
pub struct SimpleHost {
    pub queries: Vec<Value>,
    pub rng: DefaultRng,
    pub this: f32,
}

impl SimpleHost {
    /// The host [`Expression::eval`] uses: `q.*` and `this` from `inputs` (by the slots of
    /// `names`), a generator seeded with `seed`.
    pub fn new(names: &Names, inputs: &[(String, Value)], seed: u64) -> SimpleHost {
        let mut host = SimpleHost {
            queries: vec![Value::Num(0.0); names.queries.len()],
            rng: DefaultRng::new(seed),
            this: 0.0,
        };
        for (name, value) in inputs {
            match split_name(name) {
                Some((NameKind::Query, n)) => {
                    if let Some(slot) = names.queries.get(&n) {
                        host.queries[slot.index()] = *value;
                    }
                }
                None if name.eq_ignore_ascii_case("this") => host.this = value.as_num(),
                _ => {}
            }
        }
        host
    }
}

impl Host for SimpleHost {
    fn query(&mut self, query: Slot, _args: &[Value]) -> Value {
        self.queries
            .get(query.index())
            .copied()
            .unwrap_or(Value::Num(0.0))
    }
    fn this(&mut self) -> f32 {
        self.this
    }
    fn rng(&mut self) -> &mut dyn MolangRng {
        &mut self.rng
    }
}

impl Expression {
    pub fn program(&self) -> &Program {
        &self.program
    }
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Evaluates with named inputs (`q.anim_time`, `v.x`, `c.x`), seed 0, default options.
    pub fn eval_with(&self, inputs: &[(&str, f32)]) -> EvalResult {
        let inputs: Vec<(String, Value)> = inputs
            .iter()
            .map(|(n, v)| (n.to_string(), Value::Num(*v)))
            .collect();
        self.eval(
            &inputs,
            0,
            &EvalOptions {
                version: self.version,
                ..EvalOptions::default()
            },
        )
    }

    /// Evaluates with named inputs, a seed for the random functions, and options.
    /// Inputs that the expression never mentions are ignored.
    pub fn eval(&self, inputs: &[(String, Value)], seed: u64, options: &EvalOptions) -> EvalResult {
        let mut host = SimpleHost::new(&self.names, inputs, seed);
        self.eval_in(&mut host, inputs, options)
    }

    /// Evaluates against a caller's host, which answers queries, `this`, arrays, entities and
    /// random draws (slots come from [`Expression::names`]). `inputs` preset `v.`, `t.` and `c.`
    /// names; other inputs are ignored. The run follows the Molang version the expression was
    /// compiled at, whatever `options.version` says: parse and run rules must agree.
    pub fn eval_in(
        &self,
        host: &mut dyn Host,
        inputs: &[(String, Value)],
        options: &EvalOptions,
    ) -> EvalResult {
        let options = &EvalOptions {
            version: self.version,
            ..options.clone()
        };
        let mut storage = Storage::default();
        for (name, value) in inputs {
            if let Some((NameKind::Var(scope), n)) = split_name(name) {
                if let Some(slot) = self.names.table(scope).get(&n) {
                    storage.set(scope, slot, *value);
                }
            }
        }
        // Temps given as inputs survive the per-run clearing for this one run.
        let outcome = interp::run_keep_temps(&self.program, &mut storage, host, options);
        self.result(&storage, outcome.value, outcome.abort)
    }

    /// The value, and the variables and temps the run left in `storage`.
    fn result(&self, storage: &Storage, value: Value, abort: Option<Abort>) -> EvalResult {
        let dump = |scope: Scope| -> Vec<(String, Value)> {
            self.names
                .table(scope)
                .iter()
                .filter_map(|(slot, n)| storage.get(scope, slot).map(|v| (n.to_string(), v)))
                .collect()
        };
        EvalResult {
            value,
            abort,
            variables: dump(Scope::Variable),
            temps: dump(Scope::Temp),
        }
    }
}

/// Which back end ran an evaluation.
pub use crate::interp::exec::Backend;

impl Expression {
    /// Compiles this expression to native code. `Err(Unsupported)` names what the JIT leaves
    /// to the interpreter (strings, `->`, arrays, ...).
    pub fn compile_native(&self, options: &EvalOptions) -> Result<JitProgram, JitError> {
        let options = EvalOptions {
            version: self.version,
            ..options.clone()
        };
        jit::compile(&self.program, &self.names, &options)
    }

    /// Evaluates with compiled code: the same inputs, seed and result shape as [`eval`](Self::eval).
    pub fn eval_native(
        &self,
        native: &JitProgram,
        inputs: &[(String, Value)],
        seed: u64,
        options: &EvalOptions,
    ) -> EvalResult {
        let mut host = SimpleHost::new(&self.names, inputs, seed);
        self.eval_native_in(native, &mut host, inputs, options)
    }

    /// Evaluates with compiled code against a caller's host, as [`eval_in`](Self::eval_in)
    /// does with the interpreter. Native code reads each query without arguments as a
    /// number, asked of the host once before the run.
    pub fn eval_native_in(
        &self,
        native: &JitProgram,
        host: &mut dyn Host,
        inputs: &[(String, Value)],
        options: &EvalOptions,
    ) -> EvalResult {
        let mut storage = Storage::for_names(&self.names);
        for (name, value) in inputs {
            if let Some((NameKind::Var(scope), n)) = split_name(name) {
                if let Some(slot) = self.names.table(scope).get(&n) {
                    storage.set(scope, slot, *value);
                }
            }
        }
        let queries: Vec<f32> = (0..self.names.queries.len())
            .map(|i| host.query(Slot(i as u32), &[]).as_num())
            .collect();
        let out = native.run_in(
            &self.program,
            &mut storage,
            &queries,
            host,
            options.iteration_budget,
        );
        self.result(&storage, out.value, out.abort)
    }
}

/// An expression that is interpreted until it has run `threshold` times, then compiled once
/// (or at once with threshold 0). If the JIT does not cover it, it stays interpreted and
/// [`Tiered::backend`] says so.
pub struct Tiered {
    expr: Expression,
    options: EvalOptions,
    threshold: u32,
    runs: u32,
    native: Option<Result<JitProgram, JitError>>,
}

impl Tiered {
    pub fn new(expr: Expression, options: EvalOptions, threshold: u32) -> Tiered {
        Tiered {
            expr,
            options,
            threshold,
            runs: 0,
            native: None,
        }
    }
    pub fn expression(&self) -> &Expression {
        &self.expr
    }
    /// The back end the next evaluation will use.
    pub fn backend(&self) -> Backend {
        match &self.native {
            Some(Ok(_)) => Backend::Jit,
            _ if self.runs >= self.threshold && self.native.is_none() => Backend::Jit,
            _ => Backend::Interp,
        }
    }
    /// Why the JIT is not used, once it was tried.
    pub fn jit_error(&self) -> Option<&JitError> {
        self.native.as_ref().and_then(|r| r.as_ref().err())
    }
    pub fn eval(&mut self, inputs: &[(String, Value)], seed: u64) -> (EvalResult, Backend) {
        if self.native.is_none() && self.runs >= self.threshold {
            self.native = Some(self.expr.compile_native(&self.options));
        }
        self.runs = self.runs.saturating_add(1);
        match &self.native {
            Some(Ok(n)) => (
                self.expr.eval_native(n, inputs, seed, &self.options),
                Backend::Jit,
            ),
            _ => (self.expr.eval(inputs, seed, &self.options), Backend::Interp),
        }
    }
}

/// Compiled expressions cached by (source, version, loop cap). Dropping an entry frees its
/// machine code.
#[derive(Default)]
pub struct Cache {
    /// By source, version, loop cap and platform (each compiles to other code).
    entries: std::collections::HashMap<(String, i16, Option<u32>, crate::interp::Platform), Tiered>,
    pub threshold: u32,
}

impl Cache {
    pub fn new(threshold: u32) -> Cache {
        Cache {
            entries: Default::default(),
            threshold,
        }
    }
    /// The tiered expression for `src`, compiling (checking) it on first use.
    pub fn get(
        &mut self,
        src: &str,
        check: &CheckOptions,
        eval: &EvalOptions,
    ) -> Result<&mut Tiered, CompileError> {
        let key = (src.to_string(), check.version, eval.loop_cap, eval.platform);
        if !self.entries.contains_key(&key) {
            let expr = compile(src, check)?;
            self.entries
                .insert(key.clone(), Tiered::new(expr, eval.clone(), self.threshold));
        }
        Ok(self.entries.get_mut(&key).expect("inserted above"))
    }
    /// Forgets `src` at `version` and `loop_cap`, on every platform.
    pub fn remove(&mut self, src: &str, version: i16, loop_cap: Option<u32>) -> bool {
        let mut removed = false;
        for p in crate::interp::Platform::ALL {
            removed |= self
                .entries
                .remove(&(src.to_string(), version, loop_cap, p))
                .is_some();
        }
        removed
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
