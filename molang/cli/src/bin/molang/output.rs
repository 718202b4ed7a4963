//! The one way the `molang` command writes files (reproducers, snapshots, pictures, traces,
//! baselines). Every write follows the same rules:
//! - never through a symbolic link (a link can point anywhere: the file written would not be
//!   the one the user named), and only over a regular file (or, for a stream, a device or a
//!   pipe such as `/dev/null`);
//! - never inside an input pack (the packs a command reads stay as they are);
//! - inside the folder a command confines its writes to, when it has one (`molang test`
//!   writes only next to its test files);
//! - only the folder the user named is created, like `mkdir` (not `mkdir -p`): a typo in a
//!   parent folder is an error, never a tree of new folders somewhere unexpected.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a write may go.
#[derive(Clone, Copy, Default)]
pub struct Rules<'a> {
    /// Replace an existing regular file; without it an existing file is refused.
    pub replace: bool,
    /// The packs the command reads: nothing is written inside them.
    pub packs: &'a [PathBuf],
    /// The folder the file must stay inside, symbolic links followed.
    pub within: Option<&'a Path>,
    /// A stream may go to a device or a pipe (`--out /dev/null`) instead of a regular file.
    pub devices: bool,
}

/// Why a write was refused or failed, without the path (callers name it).
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The file exists and the rules do not replace it.
    Exists,
    /// Anything else, in words.
    Other(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Exists => f.write_str("already exists"),
            Refused::Other(why) => f.write_str(why),
        }
    }
}

impl From<Refused> for String {
    fn from(r: Refused) -> String {
        r.to_string()
    }
}

/// Refuses, before any work, what [`write`] would refuse: a file that is a symbolic link or
/// not a regular file, an existing file without `replace`, a path inside an input pack or
/// out of `within`, a folder that does not exist.
pub fn check(path: &Path, rules: &Rules) -> Result<(), Refused> {
    let other = |s: &str| Err(Refused::Other(s.to_string()));
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(Refused::Other(format!(
                "the folder {} does not exist (molang does not create it)",
                parent.display()
            )));
        }
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            return other("is a symbolic link; molang never writes through one")
        }
        Ok(m) if m.is_dir() || !(m.is_file() || rules.devices) => return other("is not a file"),
        Ok(_) if !rules.replace => return Err(Refused::Exists),
        _ => {}
    }
    if let Some(dir) = rules.within {
        if !inside(path, dir) {
            return other(
                "leads out of its folder through a symbolic link (or `..`); molang writes only inside it",
            );
        }
    }
    if let Some(pack) = rules.packs.iter().find(|p| inside(path, p)) {
        return Err(Refused::Other(format!(
            "is inside the pack {}; molang never writes into an input pack",
            pack.display()
        )));
    }
    Ok(())
}

/// Opens `path` for writing under `rules` (see [`check`]). Without `replace` the file is
/// created by the open itself, so an existing file is never replaced, whatever happens
/// between the check and the open.
pub fn create(path: &Path, rules: &Rules) -> Result<File, Refused> {
    check(path, rules)?;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true);
    if rules.replace {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    opts.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => Refused::Exists,
        _ => Refused::Other(e.to_string()),
    })
}

/// Writes `bytes` to `path` under `rules` (see [`check`]).
pub fn write(path: &Path, bytes: &[u8], rules: &Rules) -> Result<(), Refused> {
    create(path, rules)?
        .write_all(bytes)
        .map_err(|e| Refused::Other(e.to_string()))
}

/// Creates the folder `dir` the user named if it is missing: its last component only, never
/// inside an input pack, never through a symbolic link.
pub fn create_dir(dir: &Path, packs: &[PathBuf]) -> Result<(), String> {
    if let Some(pack) = packs.iter().find(|p| inside(dir, p)) {
        return Err(format!(
            "{} is inside the pack {}; molang never writes into an input pack",
            dir.display(),
            pack.display()
        ));
    }
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(format!(
                "{}: is a symbolic link; molang never writes through one",
                dir.display()
            ))
        }
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => return Err(format!("{}: is not a folder", dir.display())),
        Err(_) => {}
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(format!(
                "{}: the folder {} does not exist (only the last folder of an output path is created)",
                dir.display(),
                parent.display()
            ));
        }
    }
    std::fs::create_dir(dir)
        .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))
}

/// Whether `path` (which may not exist yet) is `root` or inside it once symbolic links are
/// followed: the nearest existing ancestor is resolved and the rest appended. A path whose
/// ancestors cannot be resolved counts as outside a pack but not inside a confining folder.
pub fn inside(path: &Path, root: &Path) -> bool {
    match (resolve(path), resolve(root)) {
        (Some(p), Some(r)) => p.starts_with(r),
        _ => false,
    }
}

/// `path` made absolute with links resolved, for a path that may not exist yet.
fn resolve(path: &Path) -> Option<PathBuf> {
    let mut base = if path.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        path.to_path_buf()
    };
    let mut rest = Vec::new();
    while base.symlink_metadata().is_err() {
        rest.push(base.file_name()?.to_owned());
        base = base.parent()?.to_path_buf();
        if base.as_os_str().is_empty() {
            base = PathBuf::from(".");
        }
    }
    let mut full = base.canonicalize().ok()?;
    full.extend(rest.iter().rev());
    Some(full)
}
