//! `molang check`: packs, files or one expression; every problem and what the game does.

use std::path::PathBuf;
use std::process::ExitCode;

use molang::diagnostics::{render_json_line, render_report, Identity, SourceMap, SourceText};
use molang::{CheckOptions, Diagnostic};

use crate::args::{molang_version_arg, Format};

#[derive(clap::Args)]
pub struct Args {
    /// Pack folders or JSON files, as layers in the order written (with --pack).
    paths: Vec<PathBuf>,
    /// A pack folder (or file) as a layer at this place in the order; repeat for several.
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
}

/// `layers`: the positional paths and `--pack` values in the order written.
pub fn main(mut a: Args, layers: Vec<PathBuf>) -> ExitCode {
    a.packs.clear();
    a.paths = layers;
    check(
        a.packs.into_iter().chain(a.paths).collect(),
        a.expr,
        a.version,
        a.format,
        a.color,
    )
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
    print!("{}", report(d, src, format, color));
}

/// The report of one diagnostic as printed, its last line ended.
fn report(d: &Diagnostic, src: &SourceText<'_>, format: Format, color: bool) -> String {
    match format {
        Format::Human => render_report(d, src, color),
        Format::Json => format!("{}\n", render_json_line(d, src)),
    }
}

/// What `check` prints for one diagnostic of a pack.
fn pack_report(
    pack: &molang::pack::Pack,
    pd: &molang::lint::PackDiagnostic,
    format: Format,
    color: bool,
) -> String {
    let name = pd.path.display().to_string();
    match pd.site {
        Some(si) => {
            let site = &pack.sites[si];
            let file = &pack.files[site.file];
            let map = SiteMap { pack, site };
            let src = SourceText {
                name: &name,
                text: &file.source,
                map: &map,
            };
            report(&pd.diagnostic, &src, format, color)
        }
        // Pack structure: the span indexes the file itself.
        None if pd.file.is_some_and(|f| !pack.files[f].source.is_empty()) => {
            let file = &pack.files[pd.file.unwrap_or_default()];
            let src = SourceText {
                name: &name,
                text: &file.source,
                map: &Identity,
            };
            report(&pd.diagnostic, &src, format, color)
        }
        None => {
            let d = &pd.diagnostic;
            // Positions are 1-based everywhere; a whole-file problem (not UTF-8) is 1:1.
            let (line, column) = (pd.line.max(1), pd.column.max(1));
            match format {
                Format::Human => {
                    let mut out = format!(
                        "{}[{}]: {}:{}:{}: {}\n",
                        d.severity.as_str(),
                        d.code.as_str(),
                        name,
                        line,
                        column,
                        d.message
                    );
                    if let Some(h) = &d.help {
                        out.push_str(&format!("  help: {h}\n"));
                    }
                    out.push_str(&format!("  {}\n", d.consequence()));
                    molang::text::terminal_safe(&out).into_owned()
                }
                Format::Json => format!(
                    "{}\n",
                    serde_json::json!({"file": name, "line": line, "column": column, "end_line": line,
                        "end_column": column, "code": d.code.as_str(), "severity": d.severity.as_str(),
                        "message": d.message, "help": d.help, "game": d.consequence()})
                ),
            }
        }
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
    // Reports are laid out on all cores (miette's layout is most of a report's cost) and
    // printed in pack order.
    let reports: Vec<String> = {
        use rayon::prelude::*;
        diags
            .par_iter()
            .map(|pd| pack_report(&pack, pd, format, color))
            .collect()
    };
    for r in &reports {
        print!("{r}");
    }
    for n in &pack.notes {
        eprintln!("note: {}: {}", n.path.display(), n.message);
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
    // The pack is freed by the exit, at no cost; dropping it node by node took 3 % of a
    // check of the vanilla resource pack.
    std::mem::forget(diags);
    std::mem::forget(pack);
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
