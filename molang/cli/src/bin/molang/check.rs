//! `molang check`: packs, files or one expression; every problem and what the game does.
//! Reads the pack's `molang.toml` and a baseline file, and writes a baseline, when asked;
//! what is reported is chosen by the library ([`molang::report`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use molang::config::Config;
use molang::diagnostics::{
    render_github, render_json_line_at, render_pack_report, render_report_at, render_sarif,
    Finding, Identity, SourceText,
};
use molang::report::{self, baseline::Baseline, Reported};
use molang::{CheckOptions, Diagnostic, Severity};

use crate::args::molang_version_arg;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Reports with the source, for people.
    Human,
    /// One JSON object per diagnostic, then a summary object.
    Json,
    /// One SARIF 2.1.0 log (GitHub code scanning); the summary goes to stderr.
    Sarif,
    /// GitHub Actions workflow commands: an annotation per diagnostic.
    Github,
}

#[derive(clap::Args)]
pub struct Args {
    /// Pack folders or JSON files, as layers in the order written (with --pack).
    paths: Vec<PathBuf>,
    /// A pack folder (or file) as a layer at this place in the order; repeat for several.
    #[arg(long = "pack", value_name = "PACK")]
    packs: Vec<PathBuf>,
    /// A lower layer read for context only (e.g. vanilla): its definitions count, its
    /// diagnostics are not reported. Repeatable; these layers go under every checked one.
    #[arg(long = "context", value_name = "PATH")]
    context: Vec<PathBuf>,
    /// Settings file (default: molang.toml in the first checked path's folder or the
    /// nearest parent, stopping at a folder holding .git).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Read no molang.toml.
    #[arg(long, conflicts_with = "config")]
    no_config: bool,
    /// Report only diagnostics not in FILE (matched by code, file, subject and message, not
    /// by line); when FILE does not exist, write today's diagnostics to it and exit 0.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Check this expression instead of files.
    #[arg(long, allow_hyphen_values = true)]
    expr: Option<String>,
    /// Molang version (-1..13): for --expr, and for packs instead of their manifest's
    /// (over molang.toml's `version`).
    #[arg(long, value_parser = molang_version_arg, allow_negative_numbers = true)]
    version: Option<i16>,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Colour in human output.
    #[arg(long)]
    color: bool,
}

/// `layers`: the positional paths and `--pack` values in the order written.
pub fn main(a: Args, layers: Vec<PathBuf>) -> ExitCode {
    if let Some(expr) = a.expr {
        let given = layers.iter().chain(&a.context).next();
        if let Some(p) = given {
            eprintln!(
                "error: give either --expr or pack paths, not both (--expr checks one expression; {} would be ignored)",
                p.display()
            );
            return ExitCode::from(2);
        }
        return check_expr(&expr, a.version, a.format, a.color);
    }
    // A Blockbench model is checked on its own (its Molang at its places in the file).
    if let [model] = layers.as_slice() {
        if model.extension().is_some_and(|e| e == "bbmodel") && a.context.is_empty() {
            return crate::import::check_model(model, a.version, a.format == Format::Json, a.color);
        }
    }
    let settings = Settings {
        context: a.context,
        config: a.config,
        no_config: a.no_config,
        baseline: a.baseline,
        version: a.version,
    };
    check(layers, settings, a.format, a.color)
}

/// What `check` takes besides the paths and the output format.
struct Settings {
    context: Vec<PathBuf>,
    config: Option<PathBuf>,
    no_config: bool,
    baseline: Option<PathBuf>,
    version: Option<i16>,
}

/// The report of one diagnostic as printed, its last line ended.
fn report(
    d: &Diagnostic,
    src: &SourceText<'_>,
    format: Format,
    color: bool,
    level: Severity,
) -> String {
    match format {
        Format::Json => format!("{}\n", render_json_line_at(d, src, level)),
        _ => render_report_at(d, src, color, level),
    }
}

fn check_expr(expr: &str, version: Option<i16>, format: Format, color: bool) -> ExitCode {
    let options = CheckOptions {
        version: version.unwrap_or(grammar::LATEST_VERSION),
        ..CheckOptions::default()
    };
    let checked = molang::check(expr, &options, &mut Default::default());
    let src = SourceText {
        name: "<expr>",
        text: expr,
        map: &Identity,
    };
    let errors = checked.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = checked.diagnostics.len() - errors;
    let mut by_code = std::collections::BTreeMap::new();
    for d in &checked.diagnostics {
        *by_code.entry(d.code).or_insert(0) += 1;
    }
    let summary = report::Summary {
        files: 0,
        expressions: 1,
        errors,
        warnings,
        by_code,
    };
    match format {
        Format::Human | Format::Json => {
            for d in &checked.diagnostics {
                print!("{}", report(d, &src, format, color, d.severity));
            }
        }
        Format::Sarif | Format::Github => {
            let findings: Vec<Finding> = checked
                .diagnostics
                .iter()
                .map(|d| {
                    let line_col = |o: u32| {
                        let before = &expr[..(o as usize).min(expr.len())];
                        (
                            before.matches('\n').count() + 1,
                            before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
                        )
                    };
                    let (line, column) = line_col(d.span.start);
                    let (end_line, end_column) = line_col(d.span.end);
                    Finding {
                        file: "<expr>".into(),
                        line,
                        column,
                        end_line,
                        end_column,
                        code: d.code,
                        level: d.severity,
                        message: d.message.clone(),
                        help: d.help.clone(),
                        game: d.consequence(),
                    }
                })
                .collect();
            print_findings(&findings, format);
        }
    }
    print_summary(&summary, "1 expression", &[], format);
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_findings(findings: &[Finding], format: Format) {
    match format {
        Format::Sarif => print!(
            "{}",
            render_sarif(
                findings,
                env!("CARGO_PKG_VERSION"),
                option_env!("CARGO_PKG_REPOSITORY")
            )
        ),
        _ => {
            for f in findings {
                print!("{}", render_github(f));
            }
        }
    }
}

/// The summary: `head` (files and expressions), errors and warnings, a line per code, and
/// `notes` (what was not reported and why). Stdout, except beside a SARIF log (stderr).
fn print_summary(s: &report::Summary, head: &str, notes: &[String], format: Format) {
    if format == Format::Json {
        let codes: serde_json::Map<String, serde_json::Value> = s
            .by_code
            .iter()
            .map(|(c, n)| (c.as_str().to_string(), (*n).into()))
            .collect();
        println!(
            "{}",
            serde_json::json!({"summary": {"files": s.files, "expressions": s.expressions,
                "errors": s.errors, "warnings": s.warnings, "codes": codes, "notes": notes}})
        );
        return;
    }
    let mut text = format!("{head}: {} errors, {} warnings\n", s.errors, s.warnings);
    let mut codes: Vec<_> = s.by_code.iter().collect();
    // Most frequent first: what to look at (or turn off) first.
    codes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (c, n) in codes {
        text.push_str(&format!("  {n:>6} {} {}\n", c.as_str(), c.title()));
    }
    for n in notes {
        text.push_str(&format!("note: {n}\n"));
    }
    if format == Format::Sarif {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
}

/// `molang.toml` in `start`'s folder or the nearest parent; the search stops at a folder
/// holding `.git` (the repository's root) and at the file-system root.
fn find_config(start: &Path, cwd: &Path) -> Option<PathBuf> {
    let abs = report::normalize(&cwd.join(start));
    let dir = if abs.is_dir() {
        abs
    } else {
        abs.parent()?.to_path_buf()
    };
    for d in dir.ancestors() {
        let candidate = d.join(molang::config::FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if d.join(".git").exists() {
            return None;
        }
    }
    None
}

fn read_config(path: &Path) -> Result<Config, ExitCode> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return Err(ExitCode::from(2));
        }
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    molang::config::parse(&text, &dir).map_err(|errors| {
        for e in errors {
            eprintln!(
                "error: {}:{}:{}: {}",
                path.display(),
                e.line,
                e.column,
                e.message
            );
        }
        ExitCode::from(2)
    })
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn check(paths: Vec<PathBuf>, settings: Settings, format: Format, color: bool) -> ExitCode {
    if paths.is_empty() {
        eprintln!("error: give pack folders or files, or --expr 'EXPR'");
        return ExitCode::from(2);
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let config_path = match (&settings.config, settings.no_config) {
        (Some(p), _) => Some(p.clone()),
        (None, true) => None,
        (None, false) => find_config(&paths[0], &cwd),
    };
    let config = match &config_path {
        Some(p) => match read_config(p) {
            Ok(c) => Some(c),
            Err(code) => return code,
        },
        None => None,
    };
    // Lower layers first (the config's, then --context), then the checked ones.
    let lower: Vec<PathBuf> = config
        .iter()
        .flat_map(|c| c.lower.iter().cloned())
        .chain(settings.context.iter().cloned())
        .collect();
    let first_reported_layer = lower.len();
    let layers: Vec<PathBuf> = lower.into_iter().chain(paths.iter().cloned()).collect();
    let missing: Vec<_> = layers.iter().filter(|p| !p.exists()).collect();
    if !missing.is_empty() {
        for p in missing {
            eprintln!("error: {} does not exist", p.display());
        }
        return ExitCode::from(2);
    }
    let baseline = match &settings.baseline {
        Some(p) if p.exists() => match std::fs::read_to_string(p) {
            Ok(text) => match Baseline::parse(&text) {
                Ok(b) => Some(b),
                Err(e) => {
                    eprintln!("error: {}:{e}", p.display());
                    return ExitCode::from(2);
                }
            },
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", p.display());
                return ExitCode::from(2);
            }
        },
        _ => None,
    };
    let version = settings.version.or(config.as_ref().and_then(|c| c.version));
    let limits = molang::pack::Limits {
        // Nothing `check` reports reads a cube.
        geometry_cubes: false,
        ..config.as_ref().map(|c| c.limits).unwrap_or_default()
    };
    let pack = molang::pack::load_with(&layers, &limits);
    let (mut diags, _) = molang::pack_check::check_pack_at(&pack, version);
    diags.extend(report::ignore_problems(&pack, first_reported_layer));
    let options = report::Options {
        config: config.as_ref(),
        first_reported_layer,
        roots: &layers,
        cwd: &cwd,
    };
    let selection = report::select(&pack, &diags, &options);
    let mut notes = Vec::new();
    let hidden = &selection.hidden;
    for (n, why) in [
        (hidden.context, "in the lower layers (context) not reported"),
        (
            hidden.excluded,
            "in files molang.toml excludes not reported",
        ),
        (hidden.off, "of codes molang.toml turns off not reported"),
        (hidden.suppressed, "silenced by molang-ignore comments"),
    ] {
        if n > 0 {
            notes.push(format!("{} {why}", plural(n, "diagnostic", "diagnostics")));
        }
    }
    // The baseline: keep only what it does not hold, or write it.
    let mut reported: Vec<&Reported> = selection.reported.iter().collect();
    let mut wrote_baseline = false;
    if let Some(path) = &settings.baseline {
        let abs = report::normalize(&cwd.join(path));
        let base = abs.parent().map(Path::to_path_buf).unwrap_or_default();
        let keys: Vec<_> = reported
            .iter()
            .map(|r| report::baseline_key(&diags[r.index], r, &cwd, &base))
            .collect();
        match &baseline {
            Some(b) => {
                let outcome = b.compare(&keys);
                let before = reported.len();
                let mut new = outcome.new.iter();
                reported.retain(|_| new.next().copied().unwrap_or(true));
                notes.push(format!(
                    "{} in the baseline {} not reported",
                    plural(before - reported.len(), "diagnostic", "diagnostics"),
                    path.display()
                ));
                if outcome.fixed > 0 {
                    notes.push(format!(
                        "{} of the baseline no longer occur; delete {} and run again to shrink it",
                        plural(outcome.fixed, "diagnostic", "diagnostics"),
                        path.display()
                    ));
                }
            }
            None => {
                let b = Baseline::from_keys(keys);
                if let Err(e) = write_new(path, &b.render()) {
                    eprintln!("error: cannot write the baseline {}: {e}", path.display());
                    return ExitCode::from(2);
                }
                notes.push(format!(
                    "wrote {} to the baseline {}; later runs report only new ones",
                    plural(b.len(), "diagnostic", "diagnostics"),
                    path.display()
                ));
                reported.clear();
                wrote_baseline = true;
            }
        }
    }
    for n in &pack.notes {
        eprintln!("note: {}: {}", n.path.display(), n.message);
    }
    match format {
        Format::Human | Format::Json => {
            // Reports are laid out on all cores (miette's layout is most of a report's cost)
            // and printed in pack order.
            let reports: Vec<String> = {
                use rayon::prelude::*;
                reported
                    .par_iter()
                    .map(|r| {
                        let json = format == Format::Json;
                        render_pack_report(&pack, &diags[r.index], r.level, json, color)
                    })
                    .collect()
            };
            for r in &reports {
                print!("{r}");
            }
        }
        Format::Sarif | Format::Github => {
            let findings: Vec<Finding> = reported
                .iter()
                .map(|r| report::finding(&diags[r.index], r, &cwd))
                .collect();
            print_findings(&findings, format);
        }
    }
    let summary = report::summary(&pack, &diags, &reported, &options);
    print_summary(
        &summary,
        &format!(
            "{} files, {} expressions",
            summary.files, summary.expressions
        ),
        &notes,
        format,
    );
    let errors = summary.errors;
    let files = summary.files;
    // The pack is freed by the exit, at no cost; dropping it node by node took 3 % of a
    // check of the vanilla resource pack.
    std::mem::forget(selection);
    std::mem::forget(diags);
    std::mem::forget(pack);
    if files == 0 {
        // A linter that checked nothing must not look like a clean pass in CI.
        eprintln!(
            "error: no pack files found under {} (looked for .json files: entities, animations, \
controllers, render controllers, particles, attachables)",
            crate::args::path_list(&paths)
        );
        return ExitCode::from(2);
    }
    if errors > 0 && !wrote_baseline {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Creates `path` (never its folder) and writes `text`; an existing file is not replaced,
/// nor written through a symbolic link. (A baseline, like `molang.toml`, may sit in the pack
/// it is about: the user named it.)
fn write_new(path: &Path, text: &str) -> Result<(), crate::output::Refused> {
    crate::output::write(path, text.as_bytes(), &crate::output::Rules::default())
}
