//! `molang eval`: one expression, or a JSON-lines batch.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use molang::interp::value::format_f32;
use molang::{CheckOptions, Diagnostic, EvalOptions, Value};

use crate::args::{
    expression_setup, molang_version_arg, parse_number, print_expression_diagnostics, BackendArg,
    PlatformArg,
};

#[derive(clap::Args)]
pub struct Args {
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
    /// JSON-lines input file, or - for stdin: {"expr", "set", "version", "seed", "platform"} per line.
    #[arg(long)]
    batch: Option<String>,
    /// Back end; jit compiles once an expression has run --tier-after times (batch) or at
    /// once (a single expression).
    #[arg(long, value_enum, default_value = "jit")]
    backend: BackendArg,
    /// Batch: interpret an expression this many times before compiling it.
    #[arg(long, default_value_t = 2)]
    tier_after: u32,
    /// Float rules of the CPU the game runs on (a batch line's "platform" overrides it).
    #[arg(long, value_enum, default_value = "x86-64")]
    platform: PlatformArg,
}

pub fn main(a: Args) -> ExitCode {
    match a.batch {
        Some(file) => eval_batch(&file, a.backend, a.tier_after, a.platform.platform()),
        None => match a.expr {
            Some(e) => eval_one(
                &e,
                &a.set,
                a.version,
                a.seed,
                a.backend,
                a.platform.platform(),
            ),
            None => {
                eprintln!("error: give an expression or --batch FILE");
                ExitCode::from(2)
            }
        },
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
    let (column, _, what) = abort_parts(a, e);
    format!("note: column {column}: {what}")
}

/// An abort's 1-based column, the variable whose read ended the run (if that was the
/// reason), and the reason in words.
fn abort_parts(
    a: &molang::interp::Abort,
    e: &molang::Expression,
) -> (usize, Option<String>, String) {
    let span = e.program().span(a.node);
    let column = e.program().source()[..(span.start as usize).min(e.program().source().len())]
        .chars()
        .count()
        + 1;
    match a.kind {
        molang::interp::AbortKind::UnsetRead { scope, slot } => {
            let name = format!("{}.{}", scope.prefix(), e.names().table(scope).name(slot));
            let what = format!(
                "`{name}` is read before anything sets it; the game ends the expression there with value 0"
            );
            (column, Some(name), what)
        }
        molang::interp::AbortKind::Budget => (
            column,
            None,
            "the loop ran out of its iteration budget; the run ended there with value 0".into(),
        ),
    }
}

/// The batch form of an abort: `{"reason", "variable", "start", "end", "message"}`.
fn abort_json(a: &molang::interp::Abort, e: &molang::Expression) -> serde_json::Value {
    let span = e.program().span(a.node);
    let (_, variable, message) = abort_parts(a, e);
    let reason = match a.kind {
        molang::interp::AbortKind::UnsetRead { .. } => "unset_read",
        molang::interp::AbortKind::Budget => "loop_budget",
    };
    serde_json::json!({"reason": reason, "variable": variable, "start": span.start,
        "end": span.end, "message": message})
}

fn eval_one(
    expr: &str,
    set: &[String],
    version: Option<i16>,
    seed: u64,
    backend: BackendArg,
    platform: molang::Platform,
) -> ExitCode {
    // Unknown queries are warned about (with "did you mean"): a typo reads 0 silently.
    let (inputs, options, eval_options) = match expression_setup(set, version, platform) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    match molang::compile(expr, &options) {
        Ok(e) => {
            print_expression_diagnostics(expr, &e.warnings);
            for n in set_notes(&inputs, e.names()) {
                eprintln!("{n}");
            }
            let options = eval_options;
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
            print_expression_diagnostics(expr, &err.diagnostics);
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

/// Distinct expressions `eval --batch` keeps compiled; when full the cache starts over (a
/// million distinct lines kept 3.8 GB).
pub const MAX_CACHED: usize = 10_000;
/// Bytes of one `eval --batch` line (an expression is at most 4 MiB of source).
pub const MAX_BATCH_LINE: usize = 16 << 20;

/// One line of a batch, without its line break: its bytes, or `None` at the end. A line past
/// `MAX_BATCH_LINE` is read through but not kept (`Err` with its length so far).
fn batch_line(
    r: &mut dyn BufRead,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Result<(), usize>>> {
    buf.clear();
    let mut seen = 0usize;
    let mut any = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then_some(if seen > MAX_BATCH_LINE {
                Err(seen)
            } else {
                Ok(())
            }));
        }
        any = true;
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if seen + take <= MAX_BATCH_LINE {
            buf.extend_from_slice(&chunk[..take]);
        } else {
            buf.clear();
        }
        seen += take;
        r.consume(take + usize::from(done));
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Some(if seen > MAX_BATCH_LINE {
                Err(seen)
            } else {
                Ok(())
            }));
        }
    }
}

fn eval_batch(
    file: &str,
    backend: BackendArg,
    tier_after: u32,
    platform: molang::Platform,
) -> ExitCode {
    let threshold = if backend == BackendArg::Interp {
        u32::MAX
    } else {
        tier_after
    };
    let mut cache = molang::Cache::new(threshold);
    let mut reader: Box<dyn BufRead> = if file == "-" {
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
    let mut buf = Vec::new();
    let mut n = 0usize;
    loop {
        n += 1;
        let line = match batch_line(&mut reader, &mut buf) {
            Ok(None) => break,
            Ok(Some(l)) => l,
            Err(e) => {
                eprintln!("error: line {n}: {e}");
                return ExitCode::from(2);
            }
        };
        // Every line gets its output line, so outputs still pair with inputs by number.
        let result = match (line, std::str::from_utf8(&buf)) {
            (Err(len), _) => input_error(format!(
                "line {n} is {len} bytes long; a batch line holds at most {MAX_BATCH_LINE} (16 MiB)"
            )),
            (Ok(()), Err(e)) => input_error(format!(
                "line {n} is not UTF-8 text (invalid byte at column {})",
                e.valid_up_to() + 1
            )),
            (Ok(()), Ok(text)) => {
                if cache.len() >= MAX_CACHED {
                    cache = molang::Cache::new(threshold);
                }
                eval_batch_line(text, &mut cache, platform)
            }
        };
        let _ = writeln!(out, "{result}");
    }
    ExitCode::SUCCESS
}

/// The output line of an input line that could not be used.
fn input_error(msg: String) -> serde_json::Value {
    serde_json::json!({"value": null, "aborted": false, "diagnostics": [{"code": "input", "severity": "error", "message": msg}]})
}

fn eval_batch_line(
    line: &str,
    cache: &mut molang::Cache,
    platform: molang::Platform,
) -> serde_json::Value {
    let error = input_error;
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
    let platform = match input.get("platform") {
        None => platform,
        Some(p) => match p.as_str().and_then(molang::Platform::from_name) {
            Some(p) => p,
            None => return error("\"platform\" is \"x86-64\" or \"arm64\"".into()),
        },
    };
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
            platform,
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
            let abort = r.abort.as_ref().map(|a| abort_json(a, tiered.expression()));
            serde_json::json!({"value": json_number(r.value), "aborted": r.abort.is_some(), "abort": abort, "diagnostics": diags, "backend": backend})
        }
        Err(err) => {
            let diags: Vec<_> = err.diagnostics.iter().map(diag_json).collect();
            serde_json::json!({"value": null, "aborted": false, "diagnostics": diags})
        }
    }
}
