//! What `molang check` reports of a checked pack: each diagnostic placed in its file (lines,
//! columns, the JSON pointer of its Molang string), then chosen for the report by the rules
//! of a CI run: lower layers given for context are not reported, a `molang.toml`
//! ([`crate::config`]) turns codes off, changes their level and excludes files, and
//! `molang-ignore` comments ([`suppress`]) silence a code on a line. [`baseline`] keeps
//! today's diagnostics so that only new ones fail. No IO: the front end reads and writes the
//! files, and gives the current folder for relative paths.

pub mod baseline;
pub mod suppress;

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

use crate::config::{Config, Level};
use crate::diagnostics::{Code, Diagnostic, Finding, Severity};
use crate::pack::{FileKind, Pack};
use crate::pack_check::PackDiagnostic;
use grammar::Span;

/// Where a diagnostic sits: 1-based lines and character columns of its start and end, the
/// file ([`Pack::files`] index) whose text they index, its layer and its subject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub file: Option<usize>,
    pub layer: Option<usize>,
    /// The RFC 6901 pointer of the Molang string (site diagnostics): what the diagnostic is
    /// about, stable when lines move.
    pub subject: Option<String>,
}

/// Places `pd` in its file.
pub fn locate(pack: &Pack, pd: &PackDiagnostic) -> Located {
    let d = &pd.diagnostic;
    match (pd.site, pd.file) {
        (Some(si), _) => {
            let site = &pack.sites[si];
            let (line, column) = pack.locate(site, d.span.start as usize);
            let (end_line, end_column) = pack.locate(site, d.span.end.max(d.span.start) as usize);
            Located {
                line,
                column,
                end_line,
                end_column,
                file: Some(site.file),
                layer: Some(pack.files[site.file].layer),
                subject: Some(site.pointer.clone()),
            }
        }
        (None, Some(fi)) if !pack.files[fi].source.is_empty() => {
            let f = &pack.files[fi];
            let (line, column) = f.line_col(d.span.start as usize);
            let (end_line, end_column) = f.line_col(d.span.end.max(d.span.start) as usize);
            Located {
                line,
                column,
                end_line,
                end_column,
                file: Some(fi),
                layer: Some(f.layer),
                subject: None,
            }
        }
        _ => {
            // Whole-file problems (broken JSON, unreadable): a position, or 1:1.
            let (line, column) = (pd.line.max(1), pd.column.max(1));
            Located {
                line,
                column,
                end_line: line,
                end_column: column,
                file: pd.file,
                layer: pd.file.map(|f| pack.files[f].layer),
                subject: None,
            }
        }
    }
}

/// How to choose what is reported.
pub struct Options<'a> {
    pub config: Option<&'a Config>,
    /// Layers below this index are context (lower layers): read, never reported.
    pub first_reported_layer: usize,
    /// Each layer's path as given to [`crate::pack::load`]: places files the loader could
    /// not read (they are in no [`Pack::files`]).
    pub roots: &'a [PathBuf],
    /// The current folder: relative paths start there.
    pub cwd: &'a Path,
}

/// A diagnostic chosen for the report, at the level it is reported at.
#[derive(Clone, Debug)]
pub struct Reported {
    /// Index into the diagnostics given to [`select`].
    pub index: usize,
    pub level: Severity,
    pub at: Located,
}

/// What [`select`] left out, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// In a lower (context) layer.
    pub context: usize,
    /// In a file the config excludes.
    pub excluded: usize,
    /// Of a code the config turns off.
    pub off: usize,
    /// Silenced by a `molang-ignore` comment.
    pub suppressed: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub reported: Vec<Reported>,
    pub hidden: Hidden,
}

/// The layer a diagnostic belongs to.
fn layer_of(
    pd: &PackDiagnostic,
    at: &Located,
    by_path: &HashMap<&Path, usize>,
    roots: &[PathBuf],
    cwd: &Path,
) -> Option<usize> {
    at.layer
        .or_else(|| by_path.get(pd.path.as_path()).copied())
        .or_else(|| {
            let p = normalize(&cwd.join(&pd.path));
            roots.iter().rposition(|r| p.starts_with(r))
        })
}

/// Chooses what to report of `diags` (the pack's diagnostics, in order), in order.
pub fn select(pack: &Pack, diags: &[PackDiagnostic], options: &Options<'_>) -> Selection {
    use rayon::prelude::*;
    let located: Vec<Located> = diags.par_iter().map(|pd| locate(pack, pd)).collect();
    let by_path: HashMap<&Path, usize> = pack
        .files
        .iter()
        .map(|f| (f.path.as_path(), f.layer))
        .collect();
    let roots: Vec<PathBuf> = options
        .roots
        .iter()
        .map(|r| normalize(&options.cwd.join(r)))
        .collect();
    let config_dir = options.config.map(|c| normalize(&options.cwd.join(&c.dir)));
    let mut excluded_files: HashMap<&Path, bool> = HashMap::new();
    let mut suppressions: HashMap<usize, suppress::Suppressions> = HashMap::new();
    let mut out = Selection::default();
    for (index, (pd, at)) in diags.iter().zip(located).enumerate() {
        let layer = layer_of(pd, &at, &by_path, &roots, options.cwd);
        if layer.is_some_and(|l| l < options.first_reported_layer) {
            out.hidden.context += 1;
            continue;
        }
        if let (Some(config), Some(dir)) = (options.config, &config_dir) {
            let excluded = *excluded_files.entry(pd.path.as_path()).or_insert_with(|| {
                config.is_excluded(&relative(&normalize(&options.cwd.join(&pd.path)), dir))
            });
            if excluded {
                out.hidden.excluded += 1;
                continue;
            }
        }
        let d = &pd.diagnostic;
        let level = match options.config.and_then(|c| c.level(d.code)) {
            Some(Level::Off) => {
                out.hidden.off += 1;
                continue;
            }
            Some(Level::Report(s)) => s,
            None => d.severity,
        };
        if let Some(fi) = at.file {
            let s = suppressions
                .entry(fi)
                .or_insert_with(|| suppress::scan(&pack.files[fi].source));
            if s.covers(at.line, d.code) {
                out.hidden.suppressed += 1;
                continue;
            }
        }
        out.reported.push(Reported { index, level, at });
    }
    out
}

/// A `W0901` per `molang-ignore` name that is no code, in the files of the reported layers.
pub fn ignore_problems(pack: &Pack, first_reported_layer: usize) -> Vec<PackDiagnostic> {
    let mut out = Vec::new();
    for (fi, f) in pack.files.iter().enumerate() {
        if f.layer < first_reported_layer || !f.source.contains(suppress::DIRECTIVE) {
            continue;
        }
        for (range, name) in suppress::scan(&f.source).unknown {
            let (line, column) = f.line_col(range.start);
            let message = if name.is_empty() {
                "`molang-ignore` names no code, so it silences nothing".to_string()
            } else {
                format!("`molang-ignore` names `{name}`, which is not a diagnostic code; nothing is silenced by it")
            };
            out.push(PackDiagnostic {
                path: f.path.clone(),
                site: None,
                file: Some(fi),
                diagnostic: Diagnostic::new(
                    Code::UnknownIgnoredCode,
                    Span::new(range.start, range.end),
                    message,
                )
                .with_help("write the codes after `molang-ignore:`, separated by commas (`// molang-ignore: W0806, W0804`); `molang check` prints each diagnostic's code"),
                line,
                column,
            });
        }
    }
    out
}

/// The summary of a report: files and expressions of the reported layers (less excluded
/// files), the reported errors and warnings, and a count per code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub expressions: usize,
    pub errors: usize,
    pub warnings: usize,
    pub by_code: BTreeMap<Code, usize>,
}

/// Counts what `reported` reports of `pack` (`diags` are the diagnostics it indexes).
pub fn summary(
    pack: &Pack,
    diags: &[PackDiagnostic],
    reported: &[&Reported],
    options: &Options<'_>,
) -> Summary {
    let config_dir = options.config.map(|c| normalize(&options.cwd.join(&c.dir)));
    let counted: Vec<bool> = pack
        .files
        .iter()
        .map(|f| {
            f.kind != FileKind::Other
                && f.layer >= options.first_reported_layer
                && !matches!((options.config, &config_dir), (Some(c), Some(dir))
                    if c.is_excluded(&relative(&normalize(&options.cwd.join(&f.path)), dir)))
        })
        .collect();
    let mut s = Summary {
        files: counted.iter().filter(|&&c| c).count(),
        expressions: pack.sites.iter().filter(|s| counted[s.file]).count(),
        ..Summary::default()
    };
    for r in reported {
        match r.level {
            Severity::Error => s.errors += 1,
            Severity::Warning => s.warnings += 1,
        }
        *s.by_code.entry(diags[r.index].diagnostic.code).or_insert(0) += 1;
    }
    s
}

/// The baseline key of a reported diagnostic; `base` is the baseline file's folder
/// (absolute), files are written relative to it.
pub fn baseline_key(pd: &PackDiagnostic, r: &Reported, cwd: &Path, base: &Path) -> baseline::Key {
    baseline::Key {
        file: slash(&relative(&normalize(&cwd.join(&pd.path)), base)),
        code: pd.diagnostic.code.as_str().to_string(),
        subject: r.at.subject.clone(),
        message: pd.diagnostic.message.clone(),
    }
}

/// A reported diagnostic for the CI formats, its file named relative to `cwd`.
pub fn finding(pd: &PackDiagnostic, r: &Reported, cwd: &Path) -> Finding {
    let cwd = normalize(cwd);
    let d = &pd.diagnostic;
    Finding {
        file: slash(&relative(&normalize(&cwd.join(&pd.path)), &cwd)),
        line: r.at.line,
        column: r.at.column,
        end_line: r.at.end_line,
        end_column: r.at.end_column,
        code: d.code,
        level: r.level,
        message: d.message.clone(),
        help: d.help.clone(),
        game: d.consequence(),
    }
}

/// A path with `/` between its parts, whatever the platform.
pub fn slash(p: &Path) -> String {
    let parts: Vec<String> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".into()),
            Component::CurDir => None,
            Component::RootDir => Some(String::new()),
            Component::Prefix(p) => Some(p.as_os_str().to_string_lossy().into_owned()),
        })
        .collect();
    match parts.as_slice() {
        [root] if root.is_empty() => "/".into(),
        _ => parts.join("/"),
    }
}

/// `p` with `.` removed and `..` applied to the part before it, without asking the file
/// system (a `..` at the start of a relative path stays).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `path` relative to `base` (both normalized, both absolute or both relative), with `..`
/// where `path` is not under `base`.
pub fn relative(path: &Path, base: &Path) -> PathBuf {
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 && (path.has_root() || base.has_root()) {
        return path.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_relative_to_a_folder() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(normalize(Path::new("../x/../../y")), Path::new("../../y"));
        assert_eq!(normalize(Path::new("/..")), Path::new("/"));
        assert_eq!(
            relative(Path::new("/w/pack/entity/a.json"), Path::new("/w")),
            Path::new("pack/entity/a.json")
        );
        assert_eq!(
            relative(Path::new("/w/vanilla/a.json"), Path::new("/w/pack")),
            Path::new("../vanilla/a.json")
        );
        assert_eq!(slash(Path::new("a/b/c.json")), "a/b/c.json");
        assert_eq!(slash(Path::new("./a")), "a");
    }
}
