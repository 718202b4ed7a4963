//! Evaluation cost of the two back ends next to hand-written Rust, and compile latency.
//!
//! Workloads (text and inputs): `bench/js/workloads.json`, shared with the JavaScript peers'
//! script (`bench/js/peers.mjs`) and the side-by-side driver (`bench/js/compare.mjs`).
//!
//! * `eval/<workload>/{interp,jit,rust}`: one evaluation. The interpreter runs
//!   [`interp::run`] with a reused [`Storage`] and a small [`Host`]; the JIT runs
//!   [`JitProgram::run`] with a reused [`JitStorage`]; `rust` is the same maths written by hand
//!   (the same f32 operations in the same order, calling the same `molang_*` math functions).
//!   Before timing, one run of each from fresh state must give the same bits (the value and
//!   every variable), or the benchmark panics.
//! * `compile/<workload>/{check,check_jit}`: `molang::compile` (parse + check), and that plus
//!   `Expression::compile_native`.
//! * `compile_corpus/{check,jit}`: every vanilla string (as in `benches/parse_check.rs`) checked;
//!   and every one the JIT supports compiled to native code (checked beforehand, not timed).
//!   Throughput is per string, so criterion's time / n is the µs per string.
//! * `doggoyle_frame/{jit,interp,rust}`: one frame of the Doggoyle rig (`ik-gait`) in a steady
//!   trot (`trot-2.5` at 60 fps). `jit` and `interp` run the generated `pre_animation` through
//!   `molang::entity` (one `EntityScripts`, one reused `EntityInstance`; the nine queries are
//!   written by slot, then `run_frame`); `rust` is the reference `ik_gait::step` on its own
//!   `RigState`. All three start from the same state after 2 s of warm-up and then cycle over
//!   the same 6 s of frame inputs. Beforehand the whole trace runs on all three and the
//!   outputs are compared (the largest difference is printed).
//! * `doggoyle_compile/{check,check_jit}`: `EntityScripts::compile` of the generated scripts,
//!   and that plus `enable_jit` (the rig's whole compile latency; generation is not timed).
//!
//! Run: `cargo bench --bench backends -- --warm-up-time 1 --measurement-time 3`
//! (append a filter such as `doggoyle` to run only some groups).
//! Results and the machine they came from: BENCHMARKS.md.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

mod common;
use common::corpus;
use molang::builtins::math::{
    molang_abs, molang_clamp, molang_cos, molang_floor, molang_lerp, molang_max, molang_min,
    molang_mod, molang_pow, molang_sin, molang_sqrt, DefaultRng, MolangRng,
};
use molang::interp::{self, Storage, DIVISION_EPSILON};
use molang::ir::{Scope, Slot};
use molang::jit::{JitOutcome, JitProgram, JitStorage};
use molang::{CheckOptions, EvalOptions, Expression, Host, Value};

// ---------------------------------------------------------------------------------------------
// Workloads
// ---------------------------------------------------------------------------------------------

struct Workload {
    name: String,
    expr: String,
    /// Argument-less queries.
    queries: Vec<(String, f32)>,
    /// Queries with one argument: the value for argument 0, 1, 2, ...
    query_calls: Vec<(String, Vec<f32>)>,
    variables: Vec<(String, f32)>,
}

fn workloads() -> Vec<Workload> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/js/workloads.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let num_map = |v: &serde_json::Value| -> Vec<(String, f32)> {
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_f64().unwrap() as f32))
            .collect()
    };
    json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| Workload {
            name: w["name"].as_str().unwrap().to_owned(),
            expr: w["expr"].as_str().unwrap().to_owned(),
            queries: num_map(&w["queries"]),
            query_calls: w["query_calls"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_f64().unwrap() as f32)
                            .collect(),
                    )
                })
                .collect(),
            variables: num_map(&w["variables"]),
        })
        .collect()
}

fn check_options() -> CheckOptions {
    CheckOptions {
        warn_unknown_queries: false,
        ..CheckOptions::default()
    }
}

// ---------------------------------------------------------------------------------------------
// A small host for the interpreter: query values by slot; queries with an argument read a
// table by the (truncated) argument.
// ---------------------------------------------------------------------------------------------

struct BenchHost {
    queries: Vec<Value>,
    calls: Vec<Option<Vec<f32>>>,
    rng: DefaultRng,
}

impl Host for BenchHost {
    fn query(&mut self, query: Slot, args: &[Value]) -> Value {
        if let (Some(first), Some(Some(table))) = (args.first(), self.calls.get(query.index())) {
            let i = first.as_num() as usize;
            return Value::Num(table.get(i).copied().unwrap_or(0.0));
        }
        self.queries
            .get(query.index())
            .copied()
            .unwrap_or(Value::Num(0.0))
    }
    fn rng(&mut self) -> &mut dyn MolangRng {
        &mut self.rng
    }
}

/// Everything one workload needs to run on both back ends.
struct Prepared {
    expr: Expression,
    options: EvalOptions,
    host: BenchHost,
    storage: Storage,
    queries: Vec<f32>,
    jit_storage: JitStorage,
    native: Result<JitProgram, molang::jit::JitError>,
}

fn prepare(w: &Workload) -> Prepared {
    let expr = molang::compile(&w.expr, &check_options())
        .unwrap_or_else(|e| panic!("workload {} does not compile: {:?}", w.name, e.diagnostics));
    let options = EvalOptions::default();
    let names = expr.names();
    let mut queries = vec![0.0f32; names.queries.len()];
    let mut calls = vec![None; names.queries.len()];
    for (n, v) in &w.queries {
        let slot = names
            .queries
            .get(n)
            .unwrap_or_else(|| panic!("{}: no query {n}", w.name));
        queries[slot.index()] = *v;
    }
    for (n, table) in &w.query_calls {
        let slot = names
            .queries
            .get(n)
            .unwrap_or_else(|| panic!("{}: no query {n}", w.name));
        calls[slot.index()] = Some(table.clone());
    }
    let mut storage = Storage::default();
    let mut jit_storage = JitStorage::for_names(names);
    for (n, v) in &w.variables {
        let slot = names
            .variables
            .get(n)
            .unwrap_or_else(|| panic!("{}: no variable {n}", w.name));
        storage.set(Scope::Variable, slot, Value::Num(*v));
        jit_storage.set(Scope::Variable, slot, *v);
    }
    let host = BenchHost {
        queries: queries.iter().map(|&q| Value::Num(q)).collect(),
        calls,
        rng: DefaultRng::new(0),
    };
    let native = expr.compile_native(&options);
    Prepared {
        expr,
        options,
        host,
        storage,
        queries,
        jit_storage,
        native,
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-written Rust: the same maths, the same f32 operations in the same order. Inputs come
// in by query name through a plain struct filled once; variables live in a plain struct.
// ---------------------------------------------------------------------------------------------

/// Molang's `/`: the divisor first, 0 when |d| < 2^-23 (version ≥ 7: no sign change).
#[inline(always)]
fn div(n: f32, d: f32) -> f32 {
    if d.abs() < DIVISION_EPSILON {
        0.0
    } else {
        n / d
    }
}

#[inline(always)]
fn truth(x: f32) -> bool {
    x != 0.0
}

#[inline(always)]
fn b(x: bool) -> f32 {
    if x {
        1.0
    } else {
        0.0
    }
}

#[derive(Clone, Copy, Default)]
struct HandBobIn {
    life_time: f32,
    is_on_ground: f32,
    is_alive: f32,
    delta: [f32; 3],
}

/// `v.hand_bob = q.life_time < 0.01 ? 0.0 : v.hand_bob + ((q.is_on_ground && q.is_alive ?
/// math.clamp(math.sqrt(math.pow(pd0, 2.0) + math.pow(pd2, 2.0)), 0.0, 0.1) : 0.0) - v.hand_bob) * 0.02;`
/// A complex expression without `return`: the value is 0.
#[inline(never)]
fn rust_hand_bob(q: &HandBobIn, hand_bob: &mut f32) -> f32 {
    *hand_bob = if truth(b(q.life_time < 0.01)) {
        0.0
    } else {
        let target = if truth(b(truth(q.is_on_ground) && truth(q.is_alive))) {
            molang_clamp(
                molang_sqrt(molang_pow(q.delta[0], 2.0) + molang_pow(q.delta[2], 2.0)),
                0.0,
                0.1,
            )
        } else {
            0.0
        };
        // As the game compiles it: the two `v.hand_bob` terms merge into one scaled term,
        // `v.hand_bob·(1 − 0.02) + target·0.02` (see fold.rs).
        *hand_bob * (1.0 - 0.02) + target * 0.02
    };
    0.0
}

/// `t.x = q.x; return ((((2*t.x+3)*t.x-5)*t.x+7)*t.x-11)*t.x+13;`
#[inline(never)]
fn rust_polynomial(qx: f32) -> f32 {
    let x = qx;
    ((((2.0 * x + 3.0) * x - 5.0) * x + 7.0) * x - 11.0) * x + 13.0
}

/// `math.clamp(q.anger_level / 80 * 1.5, 0, 1.5)`
#[inline(never)]
fn rust_anger_clamp(anger_level: f32) -> f32 {
    molang_clamp(div(anger_level, 80.0) * 1.5, 0.0, 1.5)
}

#[derive(Clone, Copy, Default)]
struct S20In {
    modified_move_speed: f32,
    modified_distance_moved: f32,
    anim_time: f32,
    target_x_rotation: f32,
    target_y_rotation: f32,
    body_y_rotation: f32,
    anger_level: f32,
    health: f32,
    max_health: f32,
    is_on_ground: f32,
}

#[derive(Clone, Copy, Default, Debug)]
struct S20Vars {
    head_yaw: f32,
    head_pitch: f32,
    tail_angle: f32,
    arm_left: f32,
    arm_right: f32,
    body_bob: f32,
    eye_scale: f32,
    body_roll: f32,
    total: f32,
}

/// The 20-statement script of workloads.json, statement by statement.
#[inline(never)]
fn rust_statements20(q: &S20In, v: &mut S20Vars) -> f32 {
    let speed = molang_clamp(q.modified_move_speed * 2.5, 0.0, 1.0);
    let phase = q.modified_distance_moved * 38.17;
    let swing = molang_cos(phase) * 57.3 * speed;
    let bob = molang_abs(molang_sin(q.anim_time * 180.0)) * 0.6;
    let yaw = q.target_y_rotation - q.body_y_rotation;
    v.head_yaw = molang_clamp(yaw, -75.0, 75.0);
    v.head_pitch = molang_clamp(q.target_x_rotation, -60.0, 90.0);
    let angry = b(q.anger_level > 40.0);
    let hurt = 1.0 - div(q.health, q.max_health);
    v.tail_angle = if truth(angry) {
        45.0 + swing * 0.2
    } else {
        molang_lerp(10.0, 30.0, speed)
    };
    v.arm_left = swing * (if truth(q.is_on_ground) { 1.0 } else { 0.35 });
    v.arm_right = -v.arm_left;
    let breath = molang_sin(q.anim_time * 72.0) * 2.0 + hurt * 4.0;
    v.body_bob = bob * (if truth(angry) { 1.5 } else { 1.0 }) + breath * 0.1;
    let blink = b(molang_mod(molang_floor(q.anim_time * 20.0), 60.0) < 3.0);
    v.eye_scale = if truth(blink) { 0.1 } else { 1.0 };
    let lean = molang_min(molang_max(yaw * 0.25, -10.0), 10.0);
    v.body_roll = lean * speed;
    v.total = v.head_yaw + v.head_pitch + v.tail_angle + v.arm_left + v.body_bob + v.body_roll;
    molang_sqrt(molang_abs(v.total)) + v.eye_scale
}

/// One workload's hand-written reference: `run` evaluates once on its own state and returns
/// the value; `variables` lists (name, value) after the runs so far.
trait Reference {
    fn run(&mut self) -> f32;
    /// None for a workload that sets no variable.
    fn variables(&self) -> Vec<(&'static str, f32)> {
        Vec::new()
    }
}

/// The value of `name` in a workload's (name, value) list, 0 when absent.
fn named(list: &[(String, f32)], name: &str) -> f32 {
    list.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| *v)
        .unwrap_or(0.0)
}
fn lookup(w: &Workload, name: &str) -> f32 {
    named(&w.queries, name)
}
fn variable(w: &Workload, name: &str) -> f32 {
    named(&w.variables, name)
}

/// A workload's hand-written function `run` over its inputs `q` and the variables `v` it
/// sets, which `vars` lists by name (`run` a fn item: called directly, as written).
struct Stateful<Q, V, F, G> {
    q: Q,
    v: V,
    run: F,
    vars: G,
}
impl<Q, V, F, G> Reference for Stateful<Q, V, F, G>
where
    F: FnMut(&Q, &mut V) -> f32,
    G: Fn(&V) -> Vec<(&'static str, f32)>,
{
    fn run(&mut self) -> f32 {
        (self.run)(black_box(&self.q), &mut self.v)
    }
    fn variables(&self) -> Vec<(&'static str, f32)> {
        (self.vars)(&self.v)
    }
}
struct Poly(f32);
impl Reference for Poly {
    fn run(&mut self) -> f32 {
        rust_polynomial(black_box(self.0))
    }
}
struct Anger(f32);
impl Reference for Anger {
    fn run(&mut self) -> f32 {
        rust_anger_clamp(black_box(self.0))
    }
}
/// The variables `statements20` sets, by name.
fn s20_variables(v: &S20Vars) -> Vec<(&'static str, f32)> {
    vec![
        ("head_yaw", v.head_yaw),
        ("head_pitch", v.head_pitch),
        ("tail_angle", v.tail_angle),
        ("arm_left", v.arm_left),
        ("arm_right", v.arm_right),
        ("body_bob", v.body_bob),
        ("eye_scale", v.eye_scale),
        ("body_roll", v.body_roll),
        ("total", v.total),
    ]
}

fn reference(w: &Workload) -> Box<dyn Reference> {
    match w.name.as_str() {
        "hand_bob" | "hand_bob_flat" => {
            let delta = match w.query_calls.iter().find(|(n, _)| n == "position_delta") {
                Some((_, t)) => [t[0], t[1], t[2]],
                None => [
                    lookup(w, "position_delta_x"),
                    0.0,
                    lookup(w, "position_delta_z"),
                ],
            };
            Box::new(Stateful {
                q: HandBobIn {
                    life_time: lookup(w, "life_time"),
                    is_on_ground: lookup(w, "is_on_ground"),
                    is_alive: lookup(w, "is_alive"),
                    delta,
                },
                v: variable(w, "hand_bob"),
                run: rust_hand_bob,
                vars: |v: &f32| vec![("hand_bob", *v)],
            })
        }
        "polynomial" => Box::new(Poly(lookup(w, "x"))),
        "anger_clamp" => Box::new(Anger(lookup(w, "anger_level"))),
        "statements20" => Box::new(Stateful {
            q: S20In {
                modified_move_speed: lookup(w, "modified_move_speed"),
                modified_distance_moved: lookup(w, "modified_distance_moved"),
                anim_time: lookup(w, "anim_time"),
                target_x_rotation: lookup(w, "target_x_rotation"),
                target_y_rotation: lookup(w, "target_y_rotation"),
                body_y_rotation: lookup(w, "body_y_rotation"),
                anger_level: lookup(w, "anger_level"),
                health: lookup(w, "health"),
                max_health: lookup(w, "max_health"),
                is_on_ground: lookup(w, "is_on_ground"),
            },
            v: S20Vars::default(),
            run: rust_statements20,
            vars: s20_variables,
        }),
        other => panic!("no hand-written Rust for workload {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Identity check: one run of each from fresh state, same bits.
// ---------------------------------------------------------------------------------------------

fn assert_same_bits(w: &Workload, p: &Prepared) {
    let names = p.expr.names();
    let mut reference = reference(w);
    let want = reference.run();
    let want_vars = reference.variables();
    let check = |backend: &str, value: f32, get: &dyn Fn(Slot) -> Option<f32>| {
        assert_eq!(
            value.to_bits(),
            want.to_bits(),
            "{}: {backend} gives {value}, Rust {want}",
            w.name
        );
        for (name, rust) in &want_vars {
            let slot = names
                .variables
                .get(name)
                .unwrap_or_else(|| panic!("{}: no variable {name}", w.name));
            let got =
                get(slot).unwrap_or_else(|| panic!("{}: {backend} left v.{name} unset", w.name));
            assert_eq!(
                got.to_bits(),
                rust.to_bits(),
                "{}: {backend} v.{name} = {got}, Rust {rust}",
                w.name
            );
        }
    };

    let mut storage = p.storage.clone();
    let mut host = BenchHost {
        queries: p.host.queries.clone(),
        calls: p.host.calls.clone(),
        rng: DefaultRng::new(0),
    };
    let out = interp::run(p.expr.program(), &mut storage, &mut host, &p.options);
    assert!(
        out.abort.is_none(),
        "{}: the interpreter aborted: {:?}",
        w.name,
        out.abort
    );
    check("interp", out.value.as_num(), &|s| {
        storage.get(Scope::Variable, s).map(Value::as_num)
    });

    if let Ok(native) = &p.native {
        let mut js = p.jit_storage.clone();
        let mut qh = BenchHost {
            queries: p.host.queries.clone(),
            calls: p.host.calls.clone(),
            rng: DefaultRng::new(0),
        };
        let out = if w.query_calls.is_empty() {
            native.run(
                &mut js,
                &p.queries,
                0.0,
                &mut DefaultRng::new(0),
                p.options.iteration_budget,
            )
        } else {
            native.run_with_host(&mut js, &p.queries, &mut qh, p.options.iteration_budget)
        };
        let JitOutcome::Value(v) = out else {
            panic!("{}: the JIT ended with {out:?}", w.name)
        };
        check("jit", v, &|s| js.get(Scope::Variable, s).map(Value::as_num));
    }
    eprintln!(
        "backends: {:<14} interp{} and hand-written Rust agree bit for bit (value {want}{})",
        w.name,
        if p.native.is_ok() { ", JIT" } else { "" },
        want_vars
            .iter()
            .map(|(n, v)| format!(", v.{n} = {v}"))
            .collect::<String>()
    );
}

// ---------------------------------------------------------------------------------------------
// Corpus (as in benches/parse_check.rs)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------------------------

fn bench_eval(c: &mut Criterion) {
    for w in workloads() {
        let p = prepare(&w);
        assert_same_bits(&w, &p);
        let Prepared {
            expr,
            options,
            mut host,
            storage,
            queries,
            jit_storage,
            native,
        } = p;
        let mut group = c.benchmark_group(format!("eval/{}", w.name));

        let mut s = storage.clone();
        group.bench_function("interp", |b| {
            b.iter(|| black_box(interp::run(expr.program(), &mut s, &mut host, &options).value))
        });

        match &native {
            Ok(native) => {
                let mut s = jit_storage.clone();
                let mut rng = DefaultRng::new(0);
                if w.query_calls.is_empty() {
                    group.bench_function("jit", |b| {
                        b.iter(|| {
                            black_box(native.run(
                                &mut s,
                                black_box(&queries),
                                0.0,
                                &mut rng,
                                options.iteration_budget,
                            ))
                        })
                    });
                } else {
                    // Queries with arguments go through the host callback, like `interp`'s.
                    group.bench_function("jit", |b| {
                        b.iter(|| {
                            black_box(native.run_with_host(
                                &mut s,
                                black_box(&queries),
                                &mut host,
                                options.iteration_budget,
                            ))
                        })
                    });
                }
            }
            Err(e) => eprintln!("backends: {}: no JIT measurement: {e}", w.name),
        }

        let mut r = reference(&w);
        group.bench_function("rust", |b| b.iter(|| black_box(r.run())));
        group.finish();
    }
}

fn bench_compile(c: &mut Criterion) {
    let options = EvalOptions::default();
    for w in workloads() {
        let mut group = c.benchmark_group(format!("compile/{}", w.name));
        group.bench_function("check", |b| {
            b.iter(|| black_box(molang::compile(black_box(&w.expr), &check_options())))
        });
        let jit_ok = molang::compile(&w.expr, &check_options())
            .unwrap()
            .compile_native(&options)
            .is_ok();
        if jit_ok {
            group.bench_function("check_jit", |b| {
                b.iter(|| {
                    let e = molang::compile(black_box(&w.expr), &check_options()).unwrap();
                    black_box(e.compile_native(&options).unwrap())
                })
            });
        }
        group.finish();
    }

    let strings = corpus();
    let checked: Vec<Expression> = strings
        .iter()
        .filter_map(|s| molang::compile(s, &CheckOptions::default()).ok())
        .collect();
    let mut unsupported: std::collections::BTreeMap<String, usize> = Default::default();
    let supported: Vec<&Expression> = checked
        .iter()
        .filter(|e| match e.compile_native(&options) {
            Ok(_) => true,
            Err(err) => {
                *unsupported.entry(err.to_string()).or_default() += 1;
                false
            }
        })
        .collect();
    eprintln!(
        "backends: corpus {} strings, {} load (check), {} compiled by the JIT",
        strings.len(),
        checked.len(),
        supported.len()
    );
    for (why, n) in &unsupported {
        eprintln!("backends:   {n:5} not JIT-compiled: {why}");
    }

    let mut group = c.benchmark_group("compile_corpus");
    group.sample_size(10);
    group.throughput(Throughput::Elements(strings.len() as u64));
    group.bench_function(format!("check_{}", strings.len()), |b| {
        b.iter(|| {
            for s in &strings {
                black_box(molang::compile(black_box(s), &CheckOptions::default()).ok());
            }
        })
    });
    group.throughput(Throughput::Elements(supported.len() as u64));
    group.bench_function(format!("jit_{}", supported.len()), |b| {
        b.iter(|| {
            for e in &supported {
                black_box(e.compile_native(&options).ok());
            }
        })
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// The Doggoyle rig: one frame, and the whole rig's compile latency
// ---------------------------------------------------------------------------------------------

/// Frames of `trot-2.5` at 60 fps run before timing (2 s): the gait has settled by then.
const DOGGOYLE_WARM_FRAMES: usize = 120;

/// One Molang frame as the benchmark times it: the queries by slot, then `run_frame`.
#[inline(always)]
fn doggoyle_molang_frame(
    scripts: &molang::entity::EntityScripts,
    e: &mut molang::entity::EntityInstance,
    slots: &[Option<Slot>; 9],
    values: &[f32; 9],
) -> usize {
    for (slot, v) in slots.iter().zip(values) {
        if let Some(slot) = slot {
            e.queries[slot.index()] = Value::Num(*v);
        }
    }
    e.run_frame(scripts).len()
}

fn bench_doggoyle(c: &mut Criterion) {
    use ik_gait::generate::generate;
    use ik_gait::runner::{run, Backend, MolangRig};
    use ik_gait::scenarios;
    use molang::entity::{EntityScripts, ScriptSource};

    let p = ik_gait::RigParams::default();
    let g = generate(&p);
    let sc = scenarios::find("trot-2.5").expect("scenario trot-2.5");
    let inputs = scenarios::inputs(&sc, 60.0, false);
    assert!(
        inputs.len() > DOGGOYLE_WARM_FRAMES + 60,
        "trot-2.5 is too short"
    );
    let src = ScriptSource {
        initialize: g.initialize.clone(),
        pre_animation: g.pre_animation.clone(),
        ..Default::default()
    };
    eprintln!(
        "backends: doggoyle: {} initialize + {} pre_animation entries, {} statements, {} characters of pre_animation",
        g.initialize.len(),
        g.pre_animation.len(),
        g.statement_count(),
        g.pre_animation.iter().map(|e| e.len()).sum::<usize>()
    );

    // Agreement over the whole trace: the three back ends through the rig crate's own runner.
    let want = run(&p, Backend::Reference, &inputs).expect("reference run");
    for backend in [Backend::Interp, Backend::Jit] {
        let got = run(&p, backend, &inputs)
            .unwrap_or_else(|e| panic!("doggoyle {}: {e}", backend.name()));
        let (mut worst, mut bits_equal) = (0.0f32, true);
        for (a, b) in got.iter().zip(&want) {
            for (x, y) in a.channels(&p).iter().zip(b.channels(&p)) {
                bits_equal &= x.to_bits() == y.to_bits();
                let d = (x - y).abs();
                assert!(
                    d.is_finite() || x.to_bits() == y.to_bits(),
                    "doggoyle {}: {x} vs {y}",
                    backend.name()
                );
                worst = worst.max(d);
            }
        }
        assert!(
            worst < 1e-3,
            "doggoyle {}: outputs differ from the reference by {worst}",
            backend.name()
        );
        eprintln!(
            "backends: doggoyle {:<6} vs Rust reference over {} frames: {}",
            backend.name(),
            inputs.len(),
            if bits_equal {
                "bit for bit".to_string()
            } else {
                format!("largest channel difference {worst:e}")
            }
        );
    }

    // The timed loop cycles over the frames after the warm-up.
    let timed: Vec<(ik_gait::Inputs, [f32; 9])> = inputs[DOGGOYLE_WARM_FRAMES..]
        .iter()
        .map(|i| (*i, ik_gait::runner::query_values(i)))
        .collect();

    let mut group = c.benchmark_group("doggoyle_frame");
    for jit in [true, false] {
        let rig = MolangRig::from_generated(&p, &g, jit).expect("the rig compiles");
        let scripts = &rig.scripts;
        assert_eq!(scripts.is_native(), jit);
        let slots: [Option<Slot>; 9] =
            std::array::from_fn(|k| scripts.query_slot(ik_gait::runner::QUERIES[k]));
        let mut e = rig.instantiate();
        for i in &inputs[..DOGGOYLE_WARM_FRAMES] {
            rig.frame(&mut e, i).expect("warm-up frame");
        }
        let mut k = 0usize;
        group.bench_function(if jit { "jit" } else { "interp" }, |b| {
            b.iter(|| {
                let (_, q) = &timed[k];
                k = if k + 1 == timed.len() { 0 } else { k + 1 };
                black_box(doggoyle_molang_frame(
                    scripts,
                    &mut e,
                    black_box(&slots),
                    black_box(q),
                ))
            })
        });
        assert_eq!(
            e.run_frame(scripts).len(),
            0,
            "doggoyle: a timed frame aborted"
        );
    }
    {
        let mut s = ik_gait::RigState::new(&p, inputs[0].mdm);
        for i in &inputs[..DOGGOYLE_WARM_FRAMES] {
            ik_gait::step(&mut s, i, &p);
        }
        let mut k = 0usize;
        group.bench_function("rust", |b| {
            b.iter(|| {
                let (i, _) = &timed[k];
                k = if k + 1 == timed.len() { 0 } else { k + 1 };
                black_box(ik_gait::step(&mut s, black_box(i), &p))
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("doggoyle_compile");
    group.sample_size(20); // ~100 ms per compile with the JIT
    group.bench_function("check", |b| {
        b.iter(|| black_box(EntityScripts::compile(black_box(&src)).unwrap()))
    });
    group.bench_function("check_jit", |b| {
        b.iter(|| {
            let mut s = EntityScripts::compile(black_box(&src)).unwrap();
            s.enable_jit().unwrap();
            black_box(s)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_eval, bench_compile, bench_doggoyle);
criterion_main!(benches);
