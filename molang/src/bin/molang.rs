//! The `molang` command: `check` packs and expressions, `eval` expressions.

// Not `src/bin/*.rs`: Cargo would take those for binaries of their own.
#[path = "cmd/fmt.rs"]
mod cmd_fmt;
#[path = "cmd/lsp.rs"]
mod cmd_lsp;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use molang::diagnostics::{render_json_line, render_report, Identity, SourceMap, SourceText};
use molang::interp::value::format_f32;
use molang::{CheckOptions, Diagnostic, EvalOptions, Value};

#[derive(Parser)]
#[command(
    name = "molang",
    version,
    about = "Check and run Minecraft Bedrock Molang offline, the way the game does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum BackendArg {
    /// The reference interpreter.
    Interp,
    /// Native code through Cranelift (falls back to the interpreter, with a note, for
    /// programs the JIT does not cover).
    Jit,
    /// Both, for `bench`.
    Both,
}

/// `--version`: the Molang versions the game has (spec §9.2), -1 ..= 13.
fn molang_version_arg(s: &str) -> Result<i16, String> {
    let v: i16 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a Molang version; {VERSIONS}"))?;
    if (-1..=grammar::LATEST_VERSION).contains(&v) {
        Ok(v)
    } else {
        Err(format!("the game has no Molang version {v}; {VERSIONS}"))
    }
}

/// A count that must be positive (`--iterations 0` would time nothing and print `inf`).
fn at_least_one(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

const VERSIONS: &str = "versions are -1 (invalid), 0 (before versioning, packs < 1.17.0), \
1 (1.17.0) .. 12 (1.20.70) and 13 (the latest, the default)";

#[derive(Subcommand)]
#[command(allow_negative_numbers = true)]
enum Command {
    /// Check packs, files or one expression; report every problem and what the game does.
    ///
    /// Each pack is a layer, in order (the `--pack` ones first, then the positional ones):
    /// later packs override earlier ones by identifier and by file path, as the game stacks
    /// an add-on over vanilla (`--pack vanilla/resource_pack --pack my_addon/RP`).
    Check {
        /// Pack folders or JSON files, as layers in order.
        paths: Vec<PathBuf>,
        /// A pack folder (or file) to load as the next layer; repeat for several.
        #[arg(long = "pack", value_name = "PACK")]
        packs: Vec<PathBuf>,
        /// Check this expression instead of files.
        #[arg(long, allow_hyphen_values = true)]
        expr: Option<String>,
        /// Molang version for --expr (-1..13; packs take it from manifest.json).
        #[arg(long, value_parser = molang_version_arg, allow_negative_numbers = true)]
        version: Option<i16>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Colour in human output.
        #[arg(long)]
        color: bool,
    },
    /// Evaluate one expression (or a JSON-lines batch): native code (JIT) by default, the
    /// reference interpreter with --backend interp.
    Eval {
        /// The expression; one starting with `-` works as written (`molang eval '-1/0'`).
        #[arg(allow_hyphen_values = true)]
        expr: Option<String>,
        /// NAME=VALUE for queries, variables, temps and contexts (q.anim_time=1.5, v.x=2).
        #[arg(long = "set", value_name = "NAME=VALUE", allow_hyphen_values = true)]
        set: Vec<String>,
        /// Molang version (-1..13).
        #[arg(long, value_parser = molang_version_arg, allow_negative_numbers = true)]
        version: Option<i16>,
        /// Seed of the random generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// JSON-lines input file, or - for stdin: {"expr", "set", "version", "seed"} per line.
        #[arg(long)]
        batch: Option<String>,
        /// Back end; jit compiles once an expression has run --tier-after times (batch) or at
        /// once (a single expression).
        #[arg(long, value_enum, default_value = "jit")]
        backend: BackendArg,
        /// Batch: interpret an expression this many times before compiling it.
        #[arg(long, default_value_t = 2)]
        tier_after: u32,
    },
    /// Time an expression per evaluation on each back end (warm-up, then timed runs).
    Bench {
        /// A pack folder, with --entity, to time that entity's per-frame scripts.
        pack: Option<PathBuf>,
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
    },
    /// Run an entity headless: scripts, animations and controllers frame by frame.
    Run(molang::runtime::cli::RunArgs),
    /// Drive an entity with random query inputs; report NaN, aborts and broken invariants.
    Fuzz(molang::fuzz::cli::FuzzArgs),
    /// Format the Molang strings of pack JSON files: print a diff (default), `--check`
    /// (exit 1 when something would change) or `--write` (in place).
    Fmt(cmd_fmt::FmtArgs),
    /// Run the language server on stdin/stdout (diagnostics, hover, completion, rename...).
    Lsp,
    /// Run a pack's entity tests (`*.test.json`): expectations on variables, bones, the
    /// content log and whole-trace snapshots.
    Test {
        /// Test files or folders searched for `*.test.json` (default: tests/).
        paths: Vec<PathBuf>,
        /// Write (or update) snapshot files instead of comparing with them.
        #[arg(long)]
        bless: bool,
        /// Back end; `both` also fails a test whose JIT frames differ from the interpreter's.
        #[arg(long, value_enum, default_value = "jit")]
        backend: BackendArg,
        #[arg(long, value_enum, default_value = "human")]
        format: TestFormat,
        /// Run only the tests whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum TestFormat {
    Human,
    Json,
    Junit,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => molang::runtime::cli::main(args),
        Command::Fuzz(args) => molang::fuzz::cli::main(args),
        Command::Fmt(args) => cmd_fmt::main(args),
        Command::Lsp => cmd_lsp::main(),
        Command::Test {
            paths,
            bless,
            backend,
            format,
            filter,
        } => test(paths, bless, backend, format, filter),
        Command::Check {
            paths,
            packs,
            expr,
            version,
            format,
            color,
        } => check(
            packs.into_iter().chain(paths).collect(),
            expr,
            version,
            format,
            color,
        ),
        Command::Bench {
            pack,
            entity,
            expr,
            backend,
            set,
            iterations,
            version,
        } => match (expr, pack, entity) {
            (Some(e), None, None) => bench(&e, backend, &set, iterations, version),
            (None, Some(p), Some(id)) => bench_entity(&p, &id, backend, &set, iterations),
            _ => {
                eprintln!("error: give --expr EXPR, or PACK_DIR --entity ID");
                ExitCode::from(2)
            }
        },
        Command::Eval {
            expr,
            set,
            version,
            seed,
            batch,
            backend,
            tier_after,
        } => match batch {
            Some(file) => eval_batch(&file, backend, tier_after),
            None => match expr {
                Some(e) => eval_one(&e, &set, version, seed, backend),
                None => {
                    eprintln!("error: give an expression or --batch FILE");
                    ExitCode::from(2)
                }
            },
        },
    }
}

struct SiteMap<'a> {
    pack: &'a molang::pack::Pack,
    site: &'a molang::pack::Site,
}

impl SourceMap for SiteMap<'_> {
    fn to_file_offset(&self, expr_offset: usize) -> usize {
        self.pack.json_offset(self.site, expr_offset)
    }
}

fn print_diag(d: &Diagnostic, src: &SourceText<'_>, format: Format, color: bool) {
    match format {
        Format::Human => print!("{}", render_report(d, src, color)),
        Format::Json => println!("{}", render_json_line(d, src)),
    }
}

fn check(
    paths: Vec<PathBuf>,
    expr: Option<String>,
    version: Option<i16>,
    format: Format,
    color: bool,
) -> ExitCode {
    if let Some(expr) = expr {
        if !paths.is_empty() {
            eprintln!(
                "error: give either --expr or pack paths, not both (--expr checks one expression; {} would be ignored)",
                paths[0].display()
            );
            return ExitCode::from(2);
        }
        let options = CheckOptions {
            version: version.unwrap_or(grammar::LATEST_VERSION),
            ..CheckOptions::default()
        };
        let checked = molang::check(&expr, &options, &mut Default::default());
        let src = SourceText {
            name: "<expr>",
            text: &expr,
            map: &Identity,
        };
        for d in &checked.diagnostics {
            print_diag(d, &src, format, color);
        }
        let errors = checked.diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = checked.diagnostics.len() - errors;
        match format {
            Format::Human => println!("1 expression: {errors} errors, {warnings} warnings"),
            Format::Json => println!(
                "{}",
                serde_json::json!({"summary": {"files": 0, "expressions": 1, "errors": errors, "warnings": warnings}})
            ),
        }
        return if errors > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    }
    if paths.is_empty() {
        eprintln!("error: give pack folders or files, or --expr 'EXPR'");
        return ExitCode::from(2);
    }
    let missing: Vec<_> = paths.iter().filter(|p| !p.exists()).collect();
    if !missing.is_empty() {
        for p in missing {
            eprintln!("error: {} does not exist", p.display());
        }
        return ExitCode::from(2);
    }
    let pack = molang::pack::load(&paths);
    let (diags, summary) = molang::lint::check_pack(&pack);
    for pd in &diags {
        let name = pd.path.display().to_string();
        match pd.site {
            Some(si) => {
                let site = &pack.sites[si];
                let file = &pack.files[site.file];
                let map = SiteMap { pack: &pack, site };
                let src = SourceText {
                    name: &name,
                    text: &file.source,
                    map: &map,
                };
                print_diag(&pd.diagnostic, &src, format, color);
            }
            // Pack structure: the span indexes the file itself.
            None if pd.file.is_some_and(|f| !pack.files[f].source.is_empty()) => {
                let file = &pack.files[pd.file.unwrap_or_default()];
                let src = SourceText {
                    name: &name,
                    text: &file.source,
                    map: &Identity,
                };
                print_diag(&pd.diagnostic, &src, format, color);
            }
            None => {
                let d = &pd.diagnostic;
                // Positions are 1-based everywhere; a whole-file problem (not UTF-8) is 1:1.
                let (line, column) = (pd.line.max(1), pd.column.max(1));
                match format {
                    Format::Human => {
                        println!(
                            "{}[{}]: {}:{}:{}: {}",
                            d.severity.as_str(),
                            d.code.as_str(),
                            name,
                            line,
                            column,
                            d.message
                        );
                        if let Some(h) = &d.help {
                            println!("  help: {h}");
                        }
                        println!("  {}", d.consequence());
                    }
                    Format::Json => println!(
                        "{}",
                        serde_json::json!({"file": name, "line": line, "column": column, "end_line": line,
                            "end_column": column, "code": d.code.as_str(), "severity": d.severity.as_str(),
                            "message": d.message, "help": d.help, "game": d.consequence()})
                    ),
                }
            }
        }
    }
    match format {
        Format::Human => println!(
            "{} files, {} expressions: {} errors, {} warnings",
            summary.files, summary.expressions, summary.errors, summary.warnings
        ),
        Format::Json => println!(
            "{}",
            serde_json::json!({"summary": {"files": summary.files, "expressions": summary.expressions,
                "errors": summary.errors, "warnings": summary.warnings}})
        ),
    }
    if summary.files == 0 {
        // A linter that checked nothing must not look like a clean pass in CI.
        eprintln!(
            "error: no pack files found under {} (looked for .json files: entities, animations, \
controllers, render controllers, particles, attachables)",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::from(2);
    }
    if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn parse_sets(set: &[String]) -> Result<Vec<(String, Value)>, String> {
    set.iter()
        .map(|s| {
            let (name, value) = s
                .split_once('=')
                .ok_or_else(|| format!("--set {s}: expected NAME=VALUE"))?;
            let v = parse_number(value)
                .ok_or_else(|| format!("--set {s}: `{value}` is not a number"))?;
            Ok((name.trim().to_string(), Value::Num(v)))
        })
        .collect()
}

/// A number as the tools write them: decimal, or `NaN`, `inf`, `-inf` (any case; also
/// `infinity`), so every value `eval` prints can be read back.
fn parse_number(text: &str) -> Option<f32> {
    let t = text.trim();
    match t.to_ascii_lowercase().as_str() {
        "nan" | "+nan" | "-nan" => Some(f32::NAN),
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f32::INFINITY),
        "-inf" | "-infinity" => Some(f32::NEG_INFINITY),
        _ => t.parse().ok().filter(|x: &f32| x.is_finite()),
    }
}

/// Notes for `--set` names the expression cannot see: a namespace Molang does not have, or a
/// name the expression never reads (a typo in either place reads 0 silently otherwise).
fn set_notes(inputs: &[(String, Value)], names: &molang::ir::Names) -> Vec<String> {
    use molang::expression::{split_name, NameKind};
    let mut notes = Vec::new();
    for (name, _) in inputs {
        match split_name(name) {
            None => notes.push(format!(
                "note: --set {name}: `{}` is not a Molang namespace (use q./query., v./variable., t./temp. or c./context.); nothing reads it",
                name.split('.').next().unwrap_or(name)
            )),
            Some((kind, n)) => {
                let (read, full) = match kind {
                    NameKind::Query => (names.queries.get(&n).is_some(), format!("query.{n}")),
                    NameKind::Var(scope) => (
                        names.table(scope).get(&n).is_some(),
                        format!("{}.{n}", scope.prefix()),
                    ),
                };
                if !read {
                    notes.push(format!(
                        "note: --set {name}: the expression never reads `{full}`"
                    ));
                }
            }
        }
    }
    notes
}

/// What ended a run early, in words (the game's behaviour included), for people.
fn describe_abort(a: &molang::interp::Abort, e: &molang::Expression) -> String {
    let span = e.program().span(a.node);
    let column = e.program().source()[..(span.start as usize).min(e.program().source().len())]
        .chars()
        .count()
        + 1;
    match a.kind {
        molang::interp::AbortKind::UnsetRead { scope, slot } => format!(
            "note: column {column}: `{}.{}` is read before anything sets it; the game ends the expression there with value 0",
            scope.prefix(),
            e.names().table(scope).name(slot)
        ),
        molang::interp::AbortKind::Budget => format!(
            "note: column {column}: the loop ran out of its iteration budget; the run ended there with value 0"
        ),
    }
}

fn eval_one(
    expr: &str,
    set: &[String],
    version: Option<i16>,
    seed: u64,
    backend: BackendArg,
) -> ExitCode {
    let inputs = match parse_sets(set) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let version = version.unwrap_or(grammar::LATEST_VERSION);
    // Unknown queries are warned about (with "did you mean"): a typo reads 0 silently.
    let options = CheckOptions {
        version,
        ..CheckOptions::default()
    };
    let src = SourceText {
        name: "<expr>",
        text: expr,
        map: &Identity,
    };
    match molang::compile(expr, &options) {
        Ok(e) => {
            for d in &e.warnings {
                eprint!("{}", render_report(d, &src, false));
            }
            for n in set_notes(&inputs, e.names()) {
                eprintln!("{n}");
            }
            let options = EvalOptions {
                version,
                ..EvalOptions::default()
            };
            let result = match backend {
                BackendArg::Interp => e.eval(&inputs, seed, &options),
                _ => match e.compile_native(&options) {
                    Ok(native) => e.eval_native(&native, &inputs, seed, &options),
                    Err(err) => {
                        eprintln!("note: {err}");
                        e.eval(&inputs, seed, &options)
                    }
                },
            };
            if let Some(a) = result.abort {
                eprintln!("{}", describe_abort(&a, &e));
            }
            println!("{}", result.value.display());
            ExitCode::SUCCESS
        }
        Err(err) => {
            for d in &err.diagnostics {
                eprint!("{}", render_report(d, &src, false));
            }
            ExitCode::from(1)
        }
    }
}

fn json_number(v: Value) -> serde_json::Value {
    match v {
        Value::Num(x) if x.is_finite() => {
            serde_json::from_str(&format_f32(x)).unwrap_or(serde_json::Value::Null)
        }
        Value::Num(x) => serde_json::Value::String(format_f32(x)),
        other => serde_json::Value::String(other.display()),
    }
}

fn eval_batch(file: &str, backend: BackendArg, tier_after: u32) -> ExitCode {
    let mut cache = molang::Cache::new(if backend == BackendArg::Interp {
        u32::MAX
    } else {
        tier_after
    });
    let reader: Box<dyn BufRead> = if file == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(file) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                eprintln!("error: cannot read {file}: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in reader.lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        let _ = writeln!(out, "{}", eval_batch_line(&line, &mut cache));
    }
    ExitCode::SUCCESS
}

fn eval_batch_line(line: &str, cache: &mut molang::Cache) -> serde_json::Value {
    let error = |msg: String| serde_json::json!({"value": null, "aborted": false, "diagnostics": [{"code": "input", "severity": "error", "message": msg}]});
    if line.trim().is_empty() {
        // Still one output line per input line, so outputs pair with inputs by line number.
        return error("empty input line".into());
    }
    let input: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(format!("malformed input line: {e}")),
    };
    let Some(expr) = input.get("expr").and_then(|e| e.as_str()) else {
        return error("input line has no \"expr\" string".into());
    };
    let version = input
        .get("version")
        .and_then(|v| v.as_i64())
        .map(|v| v as i16)
        .unwrap_or(grammar::LATEST_VERSION);
    let seed = input.get("seed").and_then(|v| v.as_u64()).unwrap_or(0);
    let mut inputs = Vec::new();
    if let Some(set) = input.get("set").and_then(|s| s.as_object()) {
        for (k, v) in set {
            // Numbers, or the strings eval writes for NaN and the infinities.
            let x = v
                .as_f64()
                .map(|x| x as f32)
                .or_else(|| v.as_str().and_then(parse_number));
            match x {
                Some(x) => inputs.push((k.clone(), Value::Num(x))),
                None => {
                    return error(format!(
                        "set.{k} is not a number (numbers, or \"NaN\", \"inf\", \"-inf\")"
                    ))
                }
            }
        }
    }
    let diag_json = |d: &Diagnostic| {
        serde_json::json!({"code": d.code.as_str(), "severity": d.severity.as_str(), "message": d.message,
            "start": d.span.start, "end": d.span.end})
    };
    let options = CheckOptions {
        version,
        warn_unknown_queries: false,
        ..CheckOptions::default()
    };
    match cache.get(
        expr,
        &options,
        &EvalOptions {
            version,
            ..EvalOptions::default()
        },
    ) {
        Ok(tiered) => {
            let (r, used) = tiered.eval(&inputs, seed);
            let diags: Vec<_> = tiered.expression().warnings.iter().map(diag_json).collect();
            let backend = if used == molang::Backend::Jit {
                "jit"
            } else {
                "interp"
            };
            serde_json::json!({"value": json_number(r.value), "aborted": r.abort.is_some(), "diagnostics": diags, "backend": backend})
        }
        Err(err) => {
            let diags: Vec<_> = err.diagnostics.iter().map(diag_json).collect();
            serde_json::json!({"value": null, "aborted": false, "diagnostics": diags})
        }
    }
}

fn bench(
    expr: &str,
    backend: BackendArg,
    set: &[String],
    iterations: u64,
    version: Option<i16>,
) -> ExitCode {
    use molang::builtins::math::DefaultRng;
    use molang::expression::{split_name, NameKind, SimpleHost};
    use molang::interp::{self, Storage};
    use molang::ir::Scope;
    use molang::jit::JitStorage;
    use std::time::Instant;

    let inputs = match parse_sets(set) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let version = version.unwrap_or(grammar::LATEST_VERSION);
    let check = CheckOptions {
        version,
        warn_unknown_queries: false,
        ..CheckOptions::default()
    };
    let e = match molang::compile(expr, &check) {
        Ok(e) => e,
        Err(err) => {
            let src = SourceText {
                name: "<expr>",
                text: expr,
                map: &Identity,
            };
            for d in &err.diagnostics {
                eprint!("{}", render_report(d, &src, false));
            }
            return ExitCode::from(1);
        }
    };
    let options = EvalOptions {
        version,
        ..EvalOptions::default()
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
        let mut run = |n: u64, storage: &mut Storage| {
            for _ in 0..n {
                sink += interp::run(e.program(), storage, &mut host, &options)
                    .value
                    .as_num();
            }
        };
        run(warm, &mut storage.clone());
        let mut s = storage.clone();
        let start = Instant::now();
        run(iterations, &mut s);
        let ns = start.elapsed().as_nanos() as f64 / iterations as f64;
        println!("interp: {ns:.1} ns/eval");
    }
    if matches!(backend, BackendArg::Jit | BackendArg::Both) {
        let compile_start = Instant::now();
        match e.compile_native(&options) {
            Ok(native) => {
                let compile_us = compile_start.elapsed().as_secs_f64() * 1e6;
                let mut rng = DefaultRng::new(0);
                let mut run = |n: u64, s: &mut JitStorage| {
                    for _ in 0..n {
                        if let molang::jit::JitOutcome::Value(v) =
                            native.run(s, &queries, 0.0, &mut rng, options.iteration_budget)
                        {
                            sink += v;
                        }
                    }
                };
                run(warm, &mut jit_storage.clone());
                let mut s = jit_storage.clone();
                let start = Instant::now();
                run(iterations, &mut s);
                let ns = start.elapsed().as_nanos() as f64 / iterations as f64;
                println!("jit: {ns:.1} ns/eval");
                eprintln!("note: compiled in {compile_us:.0} µs");
            }
            Err(err) => println!("jit: unavailable ({err})"),
        }
    }
    std::hint::black_box(sink);
    ExitCode::SUCCESS
}

/// `bench PACK --entity`: times exactly the frame `molang run` plays (scripts, animation
/// conditions, controllers, animations, pose), through the same runtime and defaults, so
/// its aborts are run's aborts.
fn bench_entity(
    pack_dir: &std::path::Path,
    id: &str,
    backend: BackendArg,
    set: &[String],
    iterations: u64,
) -> ExitCode {
    use molang::runtime::{load::load_from_pack, Backend, Runtime};
    use std::time::Instant;

    if !pack_dir.exists() {
        eprintln!("error: {} does not exist", pack_dir.display());
        return ExitCode::from(2);
    }
    let inputs = match parse_sets(set) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let pack = molang::pack::load(&[pack_dir.to_path_buf()]);
    const FPS: f32 = 20.0;
    let time = |b: Backend, label: &str| -> Result<(), String> {
        let loaded = load_from_pack(&pack, id).map_err(|e| e.to_string())?;
        let mut rt = Runtime::new(loaded, b, FPS, 0);
        if b == Backend::Jit {
            if let Some(why) = &rt.jit_fallback {
                eprintln!(
                    "note: the JIT does not cover this entity ({why}); jit times the interpreter"
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
        let (mut driver, _) = molang::runtime::cli::Driver::new(&tl, &mut rt);
        let dt = 1.0 / FPS;
        let mut frame = 0u64;
        let mut first = Vec::new();
        let mut step = |rt: &mut Runtime, n: u64, first: &mut Vec<String>| -> usize {
            let mut log = 0;
            for _ in 0..n {
                let t = frame as f32 * dt;
                driver.sample(t, dt, frame == 0);
                driver.apply(rt);
                std::hint::black_box(rt.step(t, driver.queries()));
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
                first.join("; ")
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
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

/// `molang test`: exit 0 when every test passes, 1 when one fails, 2 on bad test files.
fn test(
    paths: Vec<PathBuf>,
    bless: bool,
    backend: BackendArg,
    format: TestFormat,
    filter: Option<String>,
) -> ExitCode {
    use molang::testing::{self, report, Backends, PackCache};
    use rayon::prelude::*;
    use std::io::IsTerminal;

    let paths = if paths.is_empty() {
        vec![PathBuf::from("tests")]
    } else {
        paths
    };
    let files = match testing::discover(&paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut tests = match testing::load_tests(&files) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(f) = &filter {
        tests.retain(|t| t.name.contains(f.as_str()));
    }
    if tests.is_empty() {
        eprintln!(
            "error: no tests found under {} (test files end in .test.json{})",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if filter.is_some() {
                ", and --filter must match a name"
            } else {
                ""
            }
        );
        return ExitCode::from(2);
    }
    // Each distinct layer stack loads once; the tests then run in parallel.
    let mut cache = PackCache::default();
    let mut packs = Vec::new();
    for t in &tests {
        match cache.get(&t.packs) {
            Ok(p) => packs.push(p),
            Err(e) => {
                eprintln!("error: {}: test `{}`: {e}", t.file.display(), t.name);
                return ExitCode::from(2);
            }
        }
    }
    let backends = match backend {
        BackendArg::Interp => Backends::Interp,
        BackendArg::Jit => Backends::Jit,
        BackendArg::Both => Backends::Both,
    };
    let bar = (std::io::stderr().is_terminal() && tests.len() >= 20).then(|| {
        let bar = indicatif::ProgressBar::new(tests.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} tests {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let outcomes: Vec<testing::Outcome> = tests
        .par_iter()
        .zip(packs.par_iter())
        .map(|(t, p)| {
            let o = testing::run_test(t, p, backends, bless);
            if let Some(b) = &bar {
                b.inc(1);
            }
            o
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    match format {
        TestFormat::Human => {
            for o in &outcomes {
                println!("{}", report::line(o));
            }
            print!("{}", report::human_tail(&outcomes));
        }
        TestFormat::Json => {
            for o in &outcomes {
                println!("{}", report::json_line(o));
            }
            println!("{}", report::json_summary(&outcomes));
        }
        TestFormat::Junit => match report::junit(&outcomes) {
            Ok(xml) => println!("{xml}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
    }
    if outcomes.iter().all(|o| o.passed()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
