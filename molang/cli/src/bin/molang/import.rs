//! `molang import MODEL.bbmodel --out DIR`: a Blockbench model as a Bedrock resource pack;
//! and the `.bbmodel` branches of `molang check` and `molang run` (read the model, report
//! its problems and the Molang of its keyframes at their places in the file).

use std::io::Read as _;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use molang::bbmodel::{self, export::Exported, ModelProblem};
use molang::diagnostics::{render_json_line_at, render_report_at, Identity, SourceMap, SourceText};
use molang::text::terminal_safe;
use molang::{CheckOptions, Diagnostic};

#[derive(clap::Args)]
pub struct Args {
    /// The Blockbench model (`.bbmodel`).
    model: PathBuf,
    /// The folder to write the resource pack into: created if missing (its parent must
    /// exist); an existing folder must be empty unless --force.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Client entity identifier, `namespace:name` (default `blockbench:` and the model's
    /// identifier or name). Names are reduced to `a-z0-9_` before they name files.
    #[arg(long, value_name = "NS:NAME")]
    id: Option<String>,
    /// Write into a folder that is not empty, replacing files of the same names.
    #[arg(long)]
    force: bool,
}

/// The model file's text and what reading it gave; `Err` is an exit code after a message.
pub fn read_model(path: &Path) -> Result<(String, bbmodel::Read), ExitCode> {
    let mut bytes = Vec::new();
    // Read one byte past the limit at most: a huge file is refused without being read.
    let read = std::fs::File::open(path).and_then(|f| {
        f.take(bbmodel::MAX_MODEL_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
    });
    if let Err(e) = read {
        eprintln!("error: {}: {e}", terminal_safe(&path.display().to_string()));
        return Err(ExitCode::from(2));
    }
    // The text the problems' positions refer to: the decompressed JSON of a `<lz>` model.
    Ok(bbmodel::read_bytes(&bytes))
}

fn as_diagnostic(p: &ModelProblem) -> Diagnostic {
    Diagnostic::new(
        p.code,
        grammar::Span::new(p.range.start, p.range.end),
        &p.message,
    )
}

/// Prints the model's problems, human (with the source) or as JSON lines.
pub fn print_problems(path: &Path, text: &str, problems: &[ModelProblem], json: bool) {
    let name = path.display().to_string();
    let src = SourceText {
        name: &name,
        text,
        map: &Identity,
    };
    for p in problems {
        let d = as_diagnostic(p);
        if json {
            println!("{}", render_json_line_at(&d, &src, d.severity));
        } else if text.is_empty() {
            eprintln!(
                "{}[{}]: {}:{}:{}: {}",
                d.severity.as_str(),
                d.code.as_str(),
                terminal_safe(&name),
                p.line,
                p.column,
                terminal_safe(&p.message)
            );
        } else {
            print!("{}", render_report_at(&d, &src, false, d.severity));
        }
    }
}

struct InModel<'a>(&'a bbmodel::MolangText);

impl SourceMap for InModel<'_> {
    fn to_file_offset(&self, expr_offset: usize) -> usize {
        self.0.file_offset(expr_offset)
    }
}

/// `molang check MODEL.bbmodel`: the model's problems, then every Molang text of its
/// keyframes checked with the game's rules, reported at its place in the file.
pub fn check_model(path: &Path, version: Option<i16>, json: bool, color: bool) -> ExitCode {
    let (text, read) = match read_model(path) {
        Ok(r) => r,
        Err(code) => return code,
    };
    print_problems(path, &text, &read.problems, json);
    let mut errors = read.problems.iter().filter(|p| p.is_error()).count();
    let mut warnings = read.problems.len() - errors;
    let mut expressions = 0;
    if let Some(model) = &read.model {
        let options = CheckOptions {
            version: version.unwrap_or(grammar::LATEST_VERSION),
            ..CheckOptions::default()
        };
        let name = path.display().to_string();
        for (m, _what) in model.molang() {
            expressions += 1;
            let checked = molang::check(&m.text, &options, &mut Default::default());
            let map = InModel(m);
            let src = SourceText {
                name: &name,
                text: &text,
                map: &map,
            };
            let mut diagnostics = checked.diagnostics.clone();
            for (range, message) in bbmodel::preview_divergences(&m.text) {
                diagnostics.push(Diagnostic::new(
                    molang::Code::PreviewDiffers,
                    grammar::Span::new(range.start, range.end),
                    message,
                ));
            }
            for d in &diagnostics {
                if d.is_error() {
                    errors += 1;
                } else {
                    warnings += 1;
                }
                if json {
                    println!("{}", render_json_line_at(d, &src, d.severity));
                } else {
                    print!("{}", render_report_at(d, &src, color, d.severity));
                }
            }
        }
    }
    if json {
        println!(
            "{}",
            serde_json::json!({"summary": {"files": 1, "expressions": expressions,
                "errors": errors, "warnings": warnings}})
        );
    } else {
        println!("1 model, {expressions} expressions: {errors} errors, {warnings} warnings");
    }
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads and exports a model (no files written): the pack, or an exit code after the
/// problems are printed.
pub fn import_in_memory(
    path: &Path,
    id: Option<&str>,
    play: Option<&str>,
) -> Result<Exported, ExitCode> {
    let (text, read) = read_model(path)?;
    let Some(model) = read.model.as_ref().filter(|_| !read.has_errors()) else {
        print_problems(path, &text, &read.problems, false);
        eprintln!(
            "error: {}: the model cannot be imported",
            terminal_safe(&path.display().to_string())
        );
        return Err(ExitCode::from(1));
    };
    for p in &read.problems {
        eprintln!(
            "warning[{}]: {}:{}:{}: {}",
            p.code.as_str(),
            terminal_safe(&path.display().to_string()),
            p.line,
            p.column,
            terminal_safe(&p.message)
        );
    }
    bbmodel::export::export_playing(model, id, play).map_err(|e| {
        eprintln!("error: {}", terminal_safe(&e.to_string()));
        ExitCode::from(2)
    })
}

pub fn main(a: Args) -> ExitCode {
    let exported = match import_in_memory(&a.model, a.id.as_deref(), None) {
        Ok(e) => e,
        Err(code) => return code,
    };
    for n in &exported.notes {
        eprintln!("note: {}", terminal_safe(n));
    }
    if let Err(msg) = write_pack(&a.out, &exported, a.force) {
        eprintln!("error: {}", terminal_safe(&msg));
        return ExitCode::from(2);
    }
    eprintln!(
        "wrote {} files for {} into {}",
        exported.files.len(),
        terminal_safe(&exported.identifier),
        terminal_safe(&a.out.display().to_string())
    );
    ExitCode::SUCCESS
}

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// Writes the pack's files inside `out`, creating `out` itself (not its parents) and the
/// folders inside it; never follows a symbolic link.
fn write_pack(out: &Path, exported: &Exported, force: bool) -> Result<(), String> {
    let shown = out.display();
    if is_symlink(out) {
        return Err(format!("{shown} is a symbolic link; give a real folder"));
    }
    if out.exists() {
        if !out.is_dir() {
            return Err(format!("{shown} exists and is not a folder"));
        }
        let not_empty = std::fs::read_dir(out)
            .map_err(|e| format!("{shown}: {e}"))?
            .next()
            .is_some();
        if not_empty && !force {
            return Err(format!(
                "{shown} is not empty; give an empty or new folder, or --force to replace files in it"
            ));
        }
    } else {
        molang::pack::create_out_dir(out).map_err(|e| e.to_string())?;
    }
    for (rel, bytes) in &exported.files {
        let rel = Path::new(rel);
        // Paths come from sanitised names; anything but plain names is a bug, refused.
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(format!("refusing to write {}", rel.display()));
        }
        let mut dir = out.to_path_buf();
        if let Some(parent) = rel.parent() {
            for c in parent.components() {
                dir.push(c);
                if is_symlink(&dir) {
                    return Err(format!(
                        "{} is a symbolic link; not writing through it",
                        dir.display()
                    ));
                }
                if !dir.is_dir() {
                    std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                }
            }
        }
        let file = out.join(rel);
        if is_symlink(&file) {
            return Err(format!(
                "{} is a symbolic link; not writing through it",
                file.display()
            ));
        }
        std::fs::write(&file, bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

/// For `molang run`: when the only layer is a `.bbmodel`, the pack its import writes, made
/// in memory (playing the animation `play` alone, if given), and the entity's identifier
/// (`Err` after the problems are printed).
pub fn bbmodel_pack(
    layers: &[PathBuf],
    play: Option<&str>,
) -> Option<Result<(molang::pack::Pack, String), ()>> {
    let [model] = layers else { return None };
    if model.extension().is_none_or(|e| e != "bbmodel") {
        return None;
    }
    let exported = match import_in_memory(model, None, play) {
        Ok(e) => e,
        Err(_) => return Some(Err(())),
    };
    // The pack as text files (the texture is not needed to play).
    let root = model.with_extension("");
    let files = exported
        .files
        .into_iter()
        .filter_map(|(rel, bytes)| Some((root.join(rel), String::from_utf8(bytes).ok()?)))
        .collect();
    Some(Ok((molang::pack::load_sources(files), exported.identifier)))
}
