//! Every file `doggoyle` reads or writes, in one place. The library gives text, bytes and
//! in-memory file lists; here they meet the file system, with the rules of where a tool may
//! write: only where the user asked, only the last folder of an output path created, and never
//! over a `params --write` file without `--force`. Errors are messages for the user, each
//! naming its path.

use ik_gait::scenarios::Scenario;
use ik_gait::RigParams;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `path: what went wrong`.
fn at(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

/// A file's text.
pub fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| at(path, e))
}

/// A params file: read, parsed (its errors give file:line:column) and its rest poses solved;
/// not yet validated.
pub fn load_params(path: &Path) -> Result<RigParams, String> {
    let text = read_text(path)?;
    ik_gait::params_file::from_json(&text, &path.display().to_string()).map_err(|e| e.to_string())
}

/// A CSV motion profile (`--inputs`): the scenario, named after the file, and the
/// unused-column warnings.
pub fn load_inputs(path: &Path) -> Result<(Scenario, Vec<String>), String> {
    let text = read_text(path)?;
    // A scenario's name is `&'static str`; one CSV per process run, so leaking it is fine.
    let name: &'static str = Box::leak(path.display().to_string().into_boxed_str());
    ik_gait::inputs_file::parse(name, &text).map_err(|e| at(path, e))
}

/// Writes `bytes` to `path`: never over an existing file unless `force`, and never creates
/// folders (the parent must exist). `doggoyle params --write`.
pub fn write_new(path: &Path, bytes: &[u8], force: bool) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() && !parent.is_dir() {
            return Err(at(
                path,
                format_args!(
                    "the folder {} does not exist (doggoyle does not create it)",
                    parent.display()
                ),
            ));
        }
    }
    if force && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(at(
            path,
            "is a symbolic link; doggoyle never writes through one",
        ));
    }
    let mut f = molang::pack::create_output_file(path, force).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            at(path, "already exists; pass --force to overwrite it")
        } else {
            at(path, e)
        }
    })?;
    f.write_all(bytes).map_err(|e| at(path, e))
}

/// Replaces the file the user named (`doggoyle readme FILE --write`).
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| at(path, e))
}

/// Writes `files` (paths relative to `out`) into the output folder `out`: `out` itself is
/// created if missing but not its parents, and the files' own sub-folders inside it. Never
/// through a symbolic link found inside `out` (a folder or a file: it could lead anywhere),
/// and never over an existing file unless `force`. Nothing is written when one of the files
/// cannot be. Returns the paths written, in order. `doggoyle emit` and `doggoyle plot`.
pub fn write_tree<B: AsRef<[u8]>>(
    out: &Path,
    files: Vec<(PathBuf, B)>,
    force: bool,
) -> Result<Vec<PathBuf>, String> {
    molang::pack::create_out_dir(out).map_err(|e| e.to_string())?;
    // Every path is judged before the first byte is written.
    for (rel, _) in &files {
        let mut path = out.to_path_buf();
        let parts: Vec<_> = rel.components().collect();
        for (i, part) in parts.iter().enumerate() {
            match part {
                std::path::Component::Normal(p) => path.push(p),
                _ => return Err(at(rel, "not a plain relative path; nothing written")),
            }
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                break;
            };
            if meta.file_type().is_symlink() {
                return Err(at(
                    &path,
                    "is a symbolic link; doggoyle never writes through one (nothing written)",
                ));
            }
            if i + 1 == parts.len() && !force {
                return Err(at(
                    &path,
                    "already exists; pass --force to overwrite it (nothing written)",
                ));
            }
        }
    }
    let mut written = Vec::new();
    for (rel, bytes) in files {
        let path = out.join(rel);
        // The packs' own sub-folders, inside the folder the user named.
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| at(dir, e))?;
        }
        write_new(&path, bytes.as_ref(), force)?;
        written.push(path);
    }
    Ok(written)
}

/// `doggoyle run --out FILE`: runs `sc` on `backend` and streams the CSV trace into FILE
/// (created or replaced; the rig compiles first, so a rig that does not load leaves no file).
/// Returns the number of frames.
pub fn write_trace(
    p: &RigParams,
    sc: &Scenario,
    fps: f32,
    backend: ik_gait::runner::Backend,
    out: &Path,
) -> Result<usize, String> {
    let engine = ik_gait::runner::Engine::new(p, backend).map_err(|e| e.to_string())?;
    let file = std::fs::File::create(out).map_err(|e| at(out, e))?;
    let mut w = std::io::BufWriter::new(file);
    ik_gait::trace::write_csv(p, &engine, sc, fps, &mut w).map_err(|e| match e.kind() {
        ik_gait::ErrorKind::Io => at(out, e),
        _ => e.to_string(),
    })
}
