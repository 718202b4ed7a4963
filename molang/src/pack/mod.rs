//! Pack loader: finds every Molang string in Minecraft Bedrock resource and behaviour packs
//! and records exactly where it sits.
//!
//! [`load`] walks files and folders, reads each `.json` file leniently (comments and trailing
//! commas, as the game does), classifies it (manifest, client entity, attachable, behaviour
//! entity, animation, animation controller, render controller, particle, ...) and collects
//! each Molang *site*: the source text after JSON unescaping, its RFC 6901 pointer, the kind
//! and role names used by the vanilla corpus (`shared/corpus/README.md`), and a map back to
//! the JSON file so that [`Pack::locate`] turns an offset in the Molang text into a line and
//! column of the file. Script arrays (`initialize`, `pre_animation`, multi-entry `on_entry`,
//! `timeline`, ...) become one program, their entries joined with `"\n"`.
//!
//! It also builds a small model of entities, animations and controllers for cross-file
//! checks (which variables an entity sets, which animations it plays).
//!
//! This module does not parse Molang and depends on nothing else in the crate; it only
//! returns data (no printing). Problems (unreadable files, broken JSON) are collected in
//! [`Pack::problems`] and loading goes on.

mod extract;
pub(crate) mod json;
#[cfg(test)]
mod tests;
pub mod tree;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Index into [`Pack::sites`].
pub type SiteId = usize;

/// What a JSON file is, judged from its name and top-level keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKind {
    /// `manifest.json`: gives `header.min_engine_version` to files under its folder.
    Manifest,
    /// `minecraft:client_entity`.
    ClientEntity,
    /// `minecraft:attachable`.
    Attachable,
    /// `minecraft:entity` (behaviour pack).
    BehaviourEntity,
    /// Top-level `animations`.
    Animation,
    /// Top-level `animation_controllers`.
    AnimationController,
    /// Top-level `render_controllers`.
    RenderController,
    /// Top-level `particle_effect`.
    Particle,
    /// `minecraft:geometry` (bone `binding` is Molang).
    Geometry,
    /// `minecraft:item` (behaviour pack).
    Item,
    /// `minecraft:biome` (behaviour pack).
    Biome,
    /// `sounds.json` (`variants.key` is Molang).
    Sounds,
    /// Valid JSON of a kind with no known Molang: ignored, but counted.
    Other,
    /// Could not be read or is not valid JSON; see [`Pack::problems`].
    Invalid,
}

/// The corpus `kind` of a site: which context the Molang runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SiteKind {
    /// `scripts.initialize`.
    Initialize,
    /// `scripts.pre_animation`, and attachable `scripts.parent_setup`.
    PreAnimation,
    /// `{name: blend}` entries of `scripts.animate` and of controller state `animations`.
    AnimateCondition,
    /// Bone `rotation` / `position` / `scale` values, keyframes included.
    Channel,
    /// Controller state `transitions` conditions.
    Transition,
    /// Controller state `on_entry` and `on_exit` (the role says which).
    OnEntry,
    /// Render-controller fields and entity `render_controllers` conditions.
    Render,
    /// Particle effect fields and `pre_effect_script`.
    Particle,
    /// Anything else: `scale*`, `anim_time_update`, `start_delay`, `loop_delay`,
    /// `blend_weight`, `timeline`, controller `variables.*.input`, `should_update_*`, ...
    Other,
}

impl SiteKind {
    /// The name the corpus files use for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::Initialize => "initialize",
            SiteKind::PreAnimation => "pre_animation",
            SiteKind::AnimateCondition => "animate_condition",
            SiteKind::Channel => "channel",
            SiteKind::Transition => "transition",
            SiteKind::OnEntry => "on_entry",
            SiteKind::Render => "render",
            SiteKind::Particle => "particle",
            SiteKind::Other => "other",
        }
    }
}

/// One JSON file that was looked at.
#[derive(Debug, Clone)]
pub struct PackFile {
    pub path: PathBuf,
    pub kind: FileKind,
    /// `header.min_engine_version` of the nearest `manifest.json` in this file's folder or
    /// above it (for a manifest, its own).
    pub min_engine_version: Option<[u32; 3]>,
    /// Top-level `format_version` as written (a number is given in its JSON spelling).
    pub format_version: Option<String>,
    /// File text (a leading byte-order mark removed) for files that have sites or problems;
    /// empty otherwise. Byte offsets in [`Piece::json`] index into it.
    pub source: String,
    line_starts: Vec<usize>,
}

/// A range of a site's text and the JSON string literal it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Byte range in [`Site::text`].
    pub text: Range<usize>,
    /// Pointer to the JSON string.
    pub pointer: String,
    /// Byte range of the literal's contents (inside the quotes) in [`PackFile::source`].
    pub json: Range<usize>,
    escapes: Vec<json::Escape>,
}

impl Piece {
    /// Byte offset in the file of byte `offset` of this piece's decoded text; an offset just
    /// past the end gives the closing quote.
    pub fn json_offset(&self, offset: usize) -> usize {
        self.json.start + json::raw_offset(&self.escapes, offset)
    }
}

/// One Molang source string (or joined script array) found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Index into [`Pack::files`].
    pub file: usize,
    /// RFC 6901 pointer: the string, or the array for a script joined from 2+ entries.
    pub pointer: String,
    pub kind: SiteKind,
    /// Finer location in corpus style, e.g. `client_entity.scripts.scale`,
    /// `animation.bone.rotation`, `render.part_visibility`.
    pub role: &'static str,
    /// Molang source after JSON unescaping; joined entries are separated by `"\n"`.
    pub text: String,
    /// The slot holds statements (`initialize`, `pre_animation`, `on_entry`, `timeline`,
    /// `pre_effect_script`, particle `*_expression`s ...) rather than a single value.
    pub is_statements: bool,
    /// Where each part of `text` came from, in order; one piece per JSON string.
    pub pieces: Vec<Piece>,
    /// `version` of the `{"expression": .., "version": ..}` form newer files may use instead
    /// of a plain string (a per-expression Molang version); `None` for plain strings.
    pub expression_version: Option<i64>,
}

/// Which schema an [`Entity`] came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntityKind {
    #[default]
    Client,
    Attachable,
    Behaviour,
}

/// A client entity, attachable or behaviour entity description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entity {
    pub file: usize,
    pub kind: EntityKind,
    pub identifier: String,
    /// `scripts.variables` marked `public`: lowercased, without `variable.` / `v.`.
    pub public_variables: Vec<String>,
    pub initialize: Option<SiteId>,
    pub pre_animation: Option<SiteId>,
    /// Byte ranges of the `pre_animation` entries inside that site's joined text.
    pub pre_animation_entries: Vec<(usize, usize)>,
    /// `description.animations`: short name -> animation or controller identifier.
    pub animations: Vec<(String, String)>,
    /// `scripts.animate`: short name and its blend-weight site, if it has one.
    pub animate: Vec<(String, Option<SiteId>)>,
    /// Render-controller identifiers, in order.
    pub render_controllers: Vec<String>,
    /// Every other site of the file: `scale*`, `parent_setup`, render-controller
    /// conditions, `item` conditions, behaviour components ...
    pub other_sites: Vec<SiteId>,
}

impl Entity {
    /// Full identifier for a short name used in `animate` or in a controller state.
    pub fn animation_id(&self, short_name: &str) -> Option<&str> {
        self.animations
            .iter()
            .rev()
            .find(|(s, _)| s == short_name)
            .map(|(_, id)| id.as_str())
    }
}

/// One `animations.<id>` definition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Animation {
    pub file: usize,
    pub id: String,
    /// Every site inside it, in document order.
    pub sites: Vec<SiteId>,
    /// The `timeline` sites (statements that may set variables).
    pub timeline: Vec<SiteId>,
}

/// One `animation_controllers.<id>` definition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Controller {
    pub file: usize,
    pub id: String,
    pub initial_state: Option<String>,
    pub states: Vec<ControllerState>,
    /// Every site inside it, in document order.
    pub sites: Vec<SiteId>,
}

/// One state of an animation controller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ControllerState {
    pub name: String,
    /// Short names played in this state (resolved through the entity's `animations`) and
    /// their blend-weight sites.
    pub animations: Vec<(String, Option<SiteId>)>,
    /// Target state and condition site.
    pub transitions: Vec<(String, Option<SiteId>)>,
    pub on_entry: Option<SiteId>,
    pub on_exit: Option<SiteId>,
    /// `variables.<name>`: the variable it sets (lowercased, without `variable.`) and its
    /// `input` site.
    pub variables: Vec<(String, Option<SiteId>)>,
    /// Every site of the state.
    pub sites: Vec<SiteId>,
}

/// One `render_controllers.<id>` definition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderController {
    pub file: usize,
    pub id: String,
    pub sites: Vec<SiteId>,
}

/// Something that stopped a file from loading. `line`/`column` are 1-based (column in
/// characters); both are 0 when the problem has no position (I/O errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackProblem {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Everything found in the loaded files. The id lookups (`*_named`, `*_sites`) are indexed
/// at load time, so treat the model vectors as read-only.
#[derive(Debug, Clone, Default)]
pub struct Pack {
    pub files: Vec<PackFile>,
    pub sites: Vec<Site>,
    pub entities: Vec<Entity>,
    pub animations: Vec<Animation>,
    pub controllers: Vec<Controller>,
    pub render_controllers: Vec<RenderController>,
    pub problems: Vec<PackProblem>,
    animation_index: HashMap<String, Vec<usize>>,
    controller_index: HashMap<String, Vec<usize>>,
    render_controller_index: HashMap<String, Vec<usize>>,
}

/// Reads every `.json` file under `paths` (files are read whatever their extension) and
/// collects its Molang. Folders are walked in sorted order, skipping folders whose name
/// starts with `.`; a path given twice is read once.
pub fn load(paths: &[PathBuf]) -> Pack {
    let mut list: Vec<PathBuf> = Vec::new();
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    for root in paths {
        // A pack folder's manifest may sit above the path given (e.g. `pack/animations`).
        if let Some(manifest) = ancestor_manifest(root) {
            if seen.insert(manifest.clone()) {
                list.push(manifest);
            }
        }
        let mut found = Vec::new();
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_dir() => walk(root, &mut found, &mut problems, &mut HashSet::new()),
            Ok(_) => found.push(root.clone()),
            Err(e) => problems.push(io_problem(root, &e)),
        }
        found.sort();
        for f in found {
            if seen.insert(f.clone()) {
                list.push(f);
            }
        }
    }
    let sources = list
        .into_iter()
        .map(|path| {
            let text = read_text(&path);
            (path, text)
        })
        .collect();
    let mut pack = build(sources);
    problems.append(&mut pack.problems);
    pack.problems = problems;
    pack
}

/// Builds a pack from file contents already in memory, in the order given. Manifests among
/// them apply to the other paths under their folder. Meant for tests and editors.
pub fn load_sources(files: Vec<(PathBuf, String)>) -> Pack {
    build(files.into_iter().map(|(p, s)| (p, Ok(s))).collect())
}

impl Pack {
    /// 1-based line and character column in the JSON file of byte `offset` of `site.text`.
    pub fn locate(&self, site: &Site, offset: usize) -> (usize, usize) {
        let file = &self.files[site.file];
        json::line_col(
            &file.source,
            &file.line_starts,
            self.json_offset(site, offset),
        )
    }

    /// Byte offset in [`PackFile::source`] of byte `offset` of `site.text` (for span-based
    /// diagnostics). Offsets on a joining `"\n"` or past the end map to the closing quote
    /// of the entry before.
    pub fn json_offset(&self, site: &Site, offset: usize) -> usize {
        let mut offset = offset.min(site.text.len());
        while !site.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let piece = site
            .pieces
            .iter()
            .find(|p| offset <= p.text.end)
            .or(site.pieces.last())
            .expect("every site has a piece");
        piece.json_offset(
            offset
                .saturating_sub(piece.text.start)
                .min(piece.text.len()),
        )
    }

    /// Sites of every definition of animation `id` (normally one).
    pub fn animation_sites(&self, id: &str) -> Vec<SiteId> {
        self.animations_named(id)
            .flat_map(|a| a.sites.iter().copied())
            .collect()
    }

    /// Sites of every definition of animation controller `id`.
    pub fn controller_sites(&self, id: &str) -> Vec<SiteId> {
        self.controllers_named(id)
            .flat_map(|c| c.sites.iter().copied())
            .collect()
    }

    /// Sites of every definition of render controller `id`.
    pub fn render_controller_sites(&self, id: &str) -> Vec<SiteId> {
        self.render_controllers_named(id)
            .flat_map(|c| c.sites.iter().copied())
            .collect()
    }

    /// Definitions of animation `id`, in load order.
    pub fn animations_named<'s>(&'s self, id: &str) -> impl Iterator<Item = &'s Animation> + 's {
        lookup(&self.animation_index, id)
            .iter()
            .map(move |&i| &self.animations[i])
    }

    /// Definitions of animation controller `id`, in load order.
    pub fn controllers_named<'s>(&'s self, id: &str) -> impl Iterator<Item = &'s Controller> + 's {
        lookup(&self.controller_index, id)
            .iter()
            .map(move |&i| &self.controllers[i])
    }

    /// Definitions of render controller `id`, in load order.
    pub fn render_controllers_named<'s>(
        &'s self,
        id: &str,
    ) -> impl Iterator<Item = &'s RenderController> + 's {
        lookup(&self.render_controller_index, id)
            .iter()
            .map(move |&i| &self.render_controllers[i])
    }

    /// Number of files of each kind.
    pub fn kind_counts(&self) -> BTreeMap<FileKind, usize> {
        let mut counts = BTreeMap::new();
        for f in &self.files {
            *counts.entry(f.kind).or_insert(0) += 1;
        }
        counts
    }
}

fn lookup<'m>(index: &'m HashMap<String, Vec<usize>>, id: &str) -> &'m [usize] {
    index.get(id).map_or(&[], Vec::as_slice)
}

fn io_problem(path: &Path, e: &std::io::Error) -> PackProblem {
    PackProblem {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        message: e.to_string(),
    }
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "file is not UTF-8 (at byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    problems: &mut Vec<PackProblem>,
    visited: &mut HashSet<PathBuf>,
) {
    // Symlinked folders are followed once each, so a link cycle cannot loop forever.
    if let Ok(canon) = std::fs::canonicalize(dir) {
        if !visited.insert(canon) {
            return;
        }
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return problems.push(io_problem(dir, &e)),
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                if !name.starts_with('.') {
                    walk(&path, out, problems, visited);
                }
            }
            Ok(_) => {
                if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json"))
                {
                    out.push(path);
                }
            }
            Err(e) => problems.push(io_problem(&path, &e)),
        }
    }
}

/// The nearest `manifest.json` above `root`: in the folder holding a file, or strictly
/// above a folder (a folder given as root is walked, which finds its own manifest).
fn ancestor_manifest(root: &Path) -> Option<PathBuf> {
    // Lexical parents first so the path reads like the one given; a relative path then
    // carries on from the current directory's parents.
    let mut dirs: Vec<PathBuf> = root.ancestors().skip(1).map(Path::to_path_buf).collect();
    if root.is_relative() {
        if let Ok(cwd) = std::env::current_dir() {
            dirs.extend(cwd.ancestors().skip(1).map(Path::to_path_buf));
        }
    }
    dirs.into_iter()
        .map(|d| d.join("manifest.json"))
        .find(|m| m.is_file() && m != root)
}

fn build(sources: Vec<(PathBuf, Result<String, String>)>) -> Pack {
    // Manifests first, so every file knows its engine version whatever the order.
    let mut manifests: Vec<(PathBuf, Option<[u32; 3]>)> = Vec::new();
    for (path, text) in &sources {
        if is_manifest(path) {
            let version = text
                .as_ref()
                .ok()
                .and_then(|t| extract::manifest_version(strip_bom(t)));
            manifests.push((
                path.parent().map(Path::to_path_buf).unwrap_or_default(),
                version,
            ));
        }
    }
    let version_for = |path: &Path| -> Option<[u32; 3]> {
        manifests
            .iter()
            .filter(|(dir, _)| path.starts_with(dir))
            .max_by_key(|(dir, _)| dir.components().count())
            .and_then(|(_, v)| *v)
    };

    let mut pack = Pack::default();
    for (path, text) in sources {
        let file = pack.files.len();
        let min_engine_version = version_for(&path);
        let mut entry = PackFile {
            path: path.clone(),
            kind: FileKind::Invalid,
            min_engine_version,
            format_version: None,
            source: String::new(),
            line_starts: Vec::new(),
        };
        let text = match text {
            Ok(t) => t,
            Err(message) => {
                pack.problems.push(PackProblem {
                    file: path,
                    line: 0,
                    column: 0,
                    message,
                });
                pack.files.push(entry);
                continue;
            }
        };
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        let keep_source = match json::parse(&text) {
            Err(e) => {
                pack.problems.push(PackProblem {
                    file: path,
                    line: e.line,
                    column: e.column,
                    message: e.message,
                });
                true
            }
            Ok(None) => {
                pack.problems.push(PackProblem {
                    file: path,
                    line: 1,
                    column: 1,
                    message: "file holds no JSON value".to_string(),
                });
                true
            }
            Ok(Some(root)) => {
                let before = pack.sites.len();
                let out = extract::file(&mut pack, file, &path, &text, &root);
                entry.kind = out.kind;
                entry.format_version = out.format_version;
                if is_manifest(&path) {
                    entry.min_engine_version = out.manifest_version.or(entry.min_engine_version);
                }
                // The runtime (`molang run`) reads numbers and key order of these kinds
                // from the text, even where no string is Molang.
                pack.sites.len() > before
                    || matches!(
                        out.kind,
                        FileKind::ClientEntity
                            | FileKind::Animation
                            | FileKind::AnimationController
                            | FileKind::Geometry
                    )
            }
        };
        if keep_source {
            entry.line_starts = json::line_starts(&text);
            entry.source = text;
        }
        pack.files.push(entry);
    }
    for (i, a) in pack.animations.iter().enumerate() {
        pack.animation_index
            .entry(a.id.clone())
            .or_default()
            .push(i);
    }
    for (i, c) in pack.controllers.iter().enumerate() {
        pack.controller_index
            .entry(c.id.clone())
            .or_default()
            .push(i);
    }
    for (i, r) in pack.render_controllers.iter().enumerate() {
        pack.render_controller_index
            .entry(r.id.clone())
            .or_default()
            .push(i);
    }
    pack
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn is_manifest(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.eq_ignore_ascii_case("manifest.json"))
}
