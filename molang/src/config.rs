//! `molang.toml`: the settings a pack commits beside its files for `molang check` (the front
//! end finds and reads the file; this module parses its text and answers questions about it).
//!
//! ```toml
//! version = 12                          # Molang version for every file (else the manifest's)
//! lower = ["../vanilla/resource_pack"]  # layers under the checked packs, reported on never
//! exclude = ["scripts/templates/**"]    # files whose diagnostics are not reported
//!
//! [codes]
//! W0806 = "off"                         # or "warning", "error"
//!
//! [limits]                              # what one check reads at most
//! file_size_mib = 32                    # a larger file is not read (E0706)
//! files = 20000                         # JSON files of all layers; the walk stops there
//! ```
//!
//! Paths are relative to the file's folder. A problem in the file (an unknown key, a value
//! of the wrong type, a code that does not exist, a bad glob) is a [`ConfigError`] with the
//! line and column of the key or value, never a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::diagnostics::{Code, Severity};

/// The name `molang check` looks for in the checked folder and its parents.
pub const FILE_NAME: &str = "molang.toml";

/// What `[codes]` makes of a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Not reported.
    Off,
    /// Reported at this severity (the game's consequence stays what it is).
    Report(Severity),
}

/// A parsed `molang.toml`.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The folder of the file: relative paths in it start here.
    pub dir: PathBuf,
    pub levels: BTreeMap<Code, Level>,
    /// The `exclude` globs as written.
    pub exclude: Vec<String>,
    exclude_set: globset::GlobSet,
    /// The `lower` layers, joined to [`Config::dir`], in order.
    pub lower: Vec<PathBuf>,
    pub version: Option<i16>,
    /// `[limits]`, the defaults where it says nothing.
    pub limits: crate::pack::Limits,
}

/// A problem in the file, at a 1-based line and character column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    codes: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default)]
    lower: Vec<Spanned<String>>,
    version: Option<Spanned<i64>>,
    #[serde(default)]
    limits: RawLimits,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    file_size_mib: Option<Spanned<i64>>,
    files: Option<Spanned<i64>>,
}

/// Above this, a limit would no longer bound anything a machine has (and offsets in a file
/// are kept in 32 bits).
const MAX_FILE_SIZE_MIB: i64 = 4095;
const MAX_FILES: i64 = 10_000_000;

/// Parses the text of a `molang.toml` that sits in `dir`. Every problem found is returned
/// (a TOML syntax or type error stops at the first).
pub fn parse(text: &str, dir: &Path) -> Result<Config, Vec<ConfigError>> {
    let at = |offset: usize, message: String| {
        let (line, column) = line_col(text, offset);
        ConfigError {
            line,
            column,
            message,
        }
    };
    let raw: Raw = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        vec![at(offset, e.message().trim().to_string())]
    })?;
    let mut errors = Vec::new();
    let mut config = Config {
        dir: dir.to_path_buf(),
        ..Config::default()
    };
    for (code, level) in &raw.codes {
        let Some(c) = Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(code.get_ref()))
        else {
            errors.push(at(
                code.span().start,
                format!(
                    "`{}` is not a diagnostic code (codes look like E0601 or W0806; `molang check` prints each with its diagnostics)",
                    code.get_ref()
                ),
            ));
            continue;
        };
        let l = match level.get_ref().as_str() {
            "off" => Level::Off,
            "warning" => Level::Report(Severity::Warning),
            "error" => Level::Report(Severity::Error),
            other => {
                errors.push(at(
                    level.span().start,
                    format!(
                        "`{other}` is not a level for {}: use \"off\", \"warning\" or \"error\"",
                        c.as_str()
                    ),
                ));
                continue;
            }
        };
        config.levels.insert(c, l);
    }
    let mut globs = globset::GlobSetBuilder::new();
    for g in &raw.exclude {
        match globset::GlobBuilder::new(g.get_ref())
            .literal_separator(true)
            .build()
        {
            Ok(glob) => {
                globs.add(glob);
                config.exclude.push(g.get_ref().clone());
            }
            Err(e) => errors.push(at(
                g.span().start,
                format!("exclude: `{}` is not a glob: {}", g.get_ref(), e.kind()),
            )),
        }
    }
    match globs.build() {
        Ok(set) => config.exclude_set = set,
        Err(e) => errors.push(at(0, format!("exclude: {e}"))),
    }
    for p in &raw.lower {
        if p.get_ref().trim().is_empty() {
            errors.push(at(p.span().start, "lower: an empty path".into()));
        } else {
            config.lower.push(dir.join(p.get_ref()));
        }
    }
    if let Some(v) = &raw.version {
        match i16::try_from(*v.get_ref()) {
            Ok(x) if (-1..=grammar::LATEST_VERSION).contains(&x) => config.version = Some(x),
            _ => errors.push(at(
                v.span().start,
                format!(
                    "the game has no Molang version {}; versions are -1 to {}",
                    v.get_ref(),
                    grammar::LATEST_VERSION
                ),
            )),
        }
    }
    if let Some(v) = &raw.limits.file_size_mib {
        match *v.get_ref() {
            n @ 1..=MAX_FILE_SIZE_MIB => config.limits.file_size = (n as u64) << 20,
            n => errors.push(at(
                v.span().start,
                format!("limits.file_size_mib: {n} is not 1 to {MAX_FILE_SIZE_MIB}"),
            )),
        }
    }
    if let Some(v) = &raw.limits.files {
        match *v.get_ref() {
            n @ 1..=MAX_FILES => config.limits.files = n as usize,
            n => errors.push(at(
                v.span().start,
                format!("limits.files: {n} is not 1 to {MAX_FILES}"),
            )),
        }
    }
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(errors)
    }
}

impl Config {
    /// What the file makes of `code`; `None` when it does not name it.
    pub fn level(&self, code: Code) -> Option<Level> {
        self.levels.get(&code).copied()
    }

    /// Whether `relative` (a path relative to [`Config::dir`]) or a folder above it matches
    /// an `exclude` glob: `exclude = ["build"]` leaves out everything under `build/`.
    pub fn is_excluded(&self, relative: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let text = crate::report::slash(relative);
        let mut prefix = text.as_str();
        loop {
            if self.exclude_set.is_match(prefix) {
                return true;
            }
            match prefix.rfind('/') {
                Some(i) => prefix = &prefix[..i],
                None => return false,
            }
        }
    }
}

/// 1-based line and character column of byte `offset` of `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<ConfigError> {
        parse(text, Path::new("p")).expect_err("an error")
    }

    #[test]
    fn a_full_file_parses() {
        let c = parse(
            "version = 8\nlower = [\"../vanilla\"]\nexclude = [\"scripts/**\", \"build\"]\n[codes]\nW0806 = \"off\"\nw0804 = \"error\"\nE0601 = \"warning\"\n",
            Path::new("pack"),
        )
        .expect("parses");
        assert_eq!(c.version, Some(8));
        assert_eq!(c.lower, vec![Path::new("pack").join("../vanilla")]);
        assert_eq!(c.level(Code::UnknownBone), Some(Level::Off));
        assert_eq!(
            c.level(Code::UnknownShortName),
            Some(Level::Report(Severity::Error))
        );
        assert_eq!(
            c.level(Code::ReadBeforeSet),
            Some(Level::Report(Severity::Warning))
        );
        assert_eq!(c.level(Code::NeverSet), None);
        assert!(c.is_excluded(Path::new("scripts/templates/a.entity.json")));
        assert!(c.is_excluded(Path::new("build/x/y.json")));
        assert!(!c.is_excluded(Path::new("entity/build.json")));
        assert!(!c.is_excluded(Path::new("entity/a.json")));
        assert_eq!(c.limits, crate::pack::Limits::default());
        let c = parse(
            "[limits]\nfile_size_mib = 64\nfiles = 50000\n",
            Path::new("pack"),
        )
        .expect("parses");
        assert_eq!(c.limits.file_size, 64 << 20);
        assert_eq!(c.limits.files, 50_000);
    }

    #[test]
    fn problems_have_their_line_and_column() {
        let e = errors("version = 8\nexlude = [\"x\"]\n");
        assert_eq!((e[0].line, e[0].column), (2, 1), "{e:?}");
        assert!(e[0].message.contains("unknown field `exlude`"), "{e:?}");
        let e = errors("[codes]\nW0806 = \"of\"\nW9999 = \"off\"\n");
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!((e[0].line, e[0].column), (2, 9), "{e:?}");
        assert!(e[0]
            .message
            .contains("use \"off\", \"warning\" or \"error\""));
        assert_eq!((e[1].line, e[1].column), (3, 1), "{e:?}");
        let e = errors("exclude = [\"a/[b\"]\nversion = 99\n");
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!((e[0].line, e[0].column), (1, 12), "{e:?}");
        assert_eq!((e[1].line, e[1].column), (2, 11), "{e:?}");
        let e = errors("lower = \"../vanilla\"\n");
        assert_eq!(e[0].line, 1, "{e:?}");
        let e = errors("[codes\n");
        assert_eq!(e.len(), 1, "{e:?}");
        let e = errors("[limits]\nfiles = 0\nfile_size_mib = 99999\n");
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!((e[0].line, e[0].column), (3, 17), "{e:?}");
        assert!(e[0].message.contains("1 to 4095"), "{e:?}");
        assert_eq!((e[1].line, e[1].column), (2, 9), "{e:?}");
    }
}
