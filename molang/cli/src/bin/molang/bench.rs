//! `molang bench`: an expression per evaluation, or an entity per frame, on each back end.

use std::path::PathBuf;
use std::process::ExitCode;

use molang::{CheckOptions, Value};

use crate::args::{
    at_least_one, expression_setup, molang_version_arg, print_expression_diagnostics, BackendArg,
    PackArgs, PlatformArg,
};

#[derive(clap::Args)]
pub struct Args {
    // With --entity, the packs to time that entity's per-frame scripts from.
    #[command(flatten)]
    layers: PackArgs,
    /// Entity identifier inside the pack (e.g. minecraft:pig).
    #[arg(long)]
    entity: Option<String>,
    #[arg(long, allow_hyphen_values = true)]
    expr: Option<String>,
    #[arg(long, value_enum, default_value = "both")]
    backend: BackendArg,
    #[arg(long = "set", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    set: Vec<String>,
    /// Timed evaluations (or frames) per back end, at least 1.
    #[arg(long, default_value_t = 1_000_000, value_parser = at_least_one)]
    iterations: u64,
    /// Molang version (-1..13).
    #[arg(long, value_parser = molang_version_arg, allow_negative_numbers = true)]
    version: Option<i16>,
    /// Float rules of the CPU the game runs on (expressions; entities run x86-64).
    #[arg(long, value_enum, default_value = "x86-64")]
    platform: PlatformArg,
}

/// `layers`: the positional packs and `--pack` values in the order written.
pub fn main(a: Args, layers: Vec<PathBuf>) -> ExitCode {
    debug_assert_eq!(
        layers.len(),
        a.layers.packs.len() + a.layers.pack_layers.len()
    );
    match (a.expr, layers.is_empty(), a.entity) {
        (Some(e), true, None) => bench(
            &e,
            a.backend,
            &a.set,
            a.iterations,
            a.version,
            a.platform.platform(),
        ),
        (None, false, Some(id)) => bench_entity(&layers, &id, a.backend, &a.set, a.iterations),
        _ => {
            eprintln!("error: give --expr EXPR, or PACK_DIR --entity ID");
            ExitCode::from(2)
        }
    }
}

fn bench(
    expr: &str,
    backend: BackendArg,
    set: &[String],
    iterations: u64,
    version: Option<i16>,
    platform: molang::Platform,
) -> ExitCode {
    use molang::builtins::math::DefaultRng;
    use molang::expression::{split_name, NameKind, SimpleHost};
    use molang::interp::{self, Storage};
    use molang::ir::Scope;
    use molang::jit::JitStorage;
    use std::time::Instant;

    let (inputs, check, options) = match expression_setup(set, version, platform) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    let check = CheckOptions {
        warn_unknown_queries: false,
        ..check
    };
    let e = match molang::compile(expr, &check) {
        Ok(e) => e,
        Err(err) => {
            print_expression_diagnostics(expr, &err.diagnostics);
            return ExitCode::from(1);
        }
    };
    let names = e.names();
    // Inputs go into storage once; unset queries read 0.
    let mut queries = vec![0.0f32; names.queries.len()];
    let mut storage = Storage::default();
    let mut jit_storage = JitStorage::for_names(names);
    for (name, value) in &inputs {
        match split_name(name) {
            Some((NameKind::Query, n)) => {
                if let Some(s) = names.queries.get(&n) {
                    queries[s.index()] = value.as_num();
                }
            }
            Some((NameKind::Var(scope @ (Scope::Variable | Scope::Context)), n)) => {
                if let Some(s) = names.table(scope).get(&n) {
                    storage.set(scope, s, *value);
                    jit_storage.set(scope, s, value.as_num());
                }
            }
            _ => {}
        }
    }
    let warm = (iterations / 10).max(1);
    let mut sink = 0.0f32;
    if matches!(backend, BackendArg::Interp | BackendArg::Both) {
        let mut host = SimpleHost {
            queries: queries.iter().map(|&q| Value::Num(q)).collect(),
            rng: DefaultRng::new(0),
            this: 0.0,
        };
        let run = |n: u64, storage: &mut Storage| {
            for _ in 0..n {
                sink += interp::run(e.program(), storage, &mut host, &options)
                    .value
                    .as_num();
            }
        };
        let ns = time_per_eval(warm, iterations, &storage, run);
        println!("interp: {ns:.1} ns/eval");
    }
    if matches!(backend, BackendArg::Jit | BackendArg::Both) {
        let compile_start = Instant::now();
        match e.compile_native(&options) {
            Ok(native) => {
                let compile_us = compile_start.elapsed().as_secs_f64() * 1e6;
                let mut rng = DefaultRng::new(0);
                let run = |n: u64, s: &mut JitStorage| {
                    for _ in 0..n {
                        if let molang::jit::JitOutcome::Value(v) =
                            native.run(s, &queries, 0.0, &mut rng, options.iteration_budget)
                        {
                            sink += v;
                        }
                    }
                };
                let ns = time_per_eval(warm, iterations, &jit_storage, run);
                println!("jit: {ns:.1} ns/eval");
                eprintln!("note: compiled in {compile_us:.0} µs");
            }
            Err(err) => println!("jit: unavailable ({err})"),
        }
    }
    std::hint::black_box(sink);
    ExitCode::SUCCESS
}

/// Nanoseconds per evaluation of `run` over `iterations` evaluations, after `warm` ones,
/// each pass on its own copy of `storage`.
fn time_per_eval<S: Clone>(
    warm: u64,
    iterations: u64,
    storage: &S,
    mut run: impl FnMut(u64, &mut S),
) -> f64 {
    run(warm, &mut storage.clone());
    let mut s = storage.clone();
    let start = std::time::Instant::now();
    run(iterations, &mut s);
    start.elapsed().as_nanos() as f64 / iterations as f64
}

/// `bench PACK --entity`: times exactly the frame `molang run` plays (scripts, animation
/// conditions, controllers, animations, pose), through the same runtime and defaults, so
/// its aborts are run's aborts.
fn bench_entity(
    layers: &[PathBuf],
    id: &str,
    backend: BackendArg,
    set: &[String],
    iterations: u64,
) -> ExitCode {
    use molang::runtime::{load::load_from_pack, Backend, Driver, Runtime};
    use std::time::Instant;

    for pack_dir in layers {
        if !pack_dir.exists() {
            eprintln!("error: {} does not exist", pack_dir.display());
            return ExitCode::from(2);
        }
    }
    let inputs = match expression_setup(set, None, molang::Platform::X86_64) {
        Ok((inputs, ..)) => inputs,
        Err(code) => return code,
    };
    let pack = molang::pack::load_entity(layers, id);
    const FPS: f32 = 20.0;
    let time = |b: Backend, label: &str| -> Result<(), String> {
        let loaded = load_from_pack(&pack, id).map_err(|e| e.to_string())?;
        let mut rt = Runtime::new(loaded, b, FPS, 0);
        if b == Backend::Jit {
            if let Some(why) = &rt.jit_fallback {
                eprintln!(
                    "note: the JIT does not cover every expression of this entity ({}); jit times those on the interpreter",
                    molang::text::terminal_safe(why)
                );
            }
        }
        // --set values become a one-row input timeline: the same driver as `molang run`
        // (engine-variable rest values, distances integrated from ground_speed).
        let mut tl = molang::runtime::inputs::Timeline {
            times: vec![0.0],
            rows: vec![Vec::new()],
            ..Default::default()
        };
        for (name, v) in &inputs {
            match molang::runtime::inputs::column_of(name) {
                Ok((kind, n, args)) => {
                    tl.queries.push(n);
                    tl.kinds.push(kind);
                    tl.args.push(args);
                    tl.rows[0].push(v.as_num());
                }
                Err(e) => return Err(format!("--set {name}: {e}")),
            }
        }
        let (mut driver, _) = Driver::new(&tl, &mut rt);
        let dt = 1.0 / FPS;
        let mut frame = 0u64;
        let mut first = Vec::new();
        let mut step = |rt: &mut Runtime, n: u64, first: &mut Vec<String>| -> usize {
            let mut log = 0;
            for _ in 0..n {
                let t = frame as f32 * dt;
                std::hint::black_box(driver.step(rt, t, dt));
                let lines = rt.take_log();
                log += lines.len();
                for l in lines {
                    if first.len() < 3 && !first.contains(&l.message) {
                        first.push(l.message);
                    }
                }
                frame += 1;
            }
            log
        };
        let warm = step(&mut rt, (iterations / 10).max(1), &mut first);
        let start = Instant::now();
        let logged = step(&mut rt, iterations, &mut first);
        let ns = start.elapsed().as_nanos() as f64 / iterations as f64;
        println!("{label}: {ns:.1} ns/frame");
        if warm + logged > 0 {
            eprintln!(
                "note: {} content-log lines during the {label} run, as `molang run` logs them; first: {}",
                warm + logged,
                // Content-log lines name the pack's bones and variables.
                molang::text::terminal_safe(&first.join("; "))
            );
        }
        Ok(())
    };
    for (b, label) in [(Backend::Interp, "interp"), (Backend::Jit, "jit")] {
        let wanted = match b {
            Backend::Interp => matches!(backend, BackendArg::Interp | BackendArg::Both),
            Backend::Jit => matches!(backend, BackendArg::Jit | BackendArg::Both),
        };
        if wanted {
            if let Err(e) = time(b, label) {
                eprintln!("error: {}", molang::text::terminal_safe(&e));
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}
