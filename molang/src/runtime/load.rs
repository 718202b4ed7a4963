//! Pack → [`Model`]: finds the client entity, its animations, controllers and geometry, and
//! compiles every Molang string once against the entity's name table (source → AST →
//! checked IR happens here; the frame loop only runs compiled programs).
//!
//! Files come from [`crate::pack::load`] (the same reading and problem reporting as
//! `molang check`); the numbers and key order come from the typed definitions of
//! [`crate::pack::defs`], and Molang strings are taken from the pack's sites so diagnostics point into the JSON file.

use super::model::*;
use crate::diagnostics::{Code, Diagnostic, PackDiagnostic};
use crate::entity::{EntityScripts, ScriptSource};
use crate::error::{Error, ErrorKind};
use crate::pack::defs::{self, ChannelDef, ClientData, KeyValue, MolangString, Vec3};
use crate::pack::{self, AnimationRef, EntityKind, Pack, Side};
use crate::pack_check::structure;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A loaded entity: what to play, its compiled scripts, and what loading found.
pub struct Loaded {
    pub model: Model,
    pub scripts: EntityScripts,
    /// What loading found, in the order found, each with its code, file, line and column:
    /// the checker's diagnostics of the Molang the entity plays, and what the runtime skips
    /// or assumes (a transition to no state, a bone the geometry lacks, a broken file the
    /// entity does not need). A finding `molang check` also makes has its code and message;
    /// front ends print them with [`crate::diagnostics::render_pack_report`], as `check` does.
    pub diagnostics: Vec<PackDiagnostic>,
}

/// Controllers nested deeper than this are cut (the play tree of a chain of distinct
/// controllers; a controller that would play itself is cut where it closes the circle).
pub const MAX_NESTING: usize = 16;

/// Play nodes (occurrences of animations and controllers) one entity may have: controllers
/// that play other controllers several times multiply them (three entries per state, 16
/// levels deep, would be 43 million). Past it, entries play nothing and the content log
/// says so once. Vanilla's entities have at most a few dozen.
pub const MAX_PLAY_NODES: usize = 65_536;

/// Loads `identifier` (case-insensitive) from the pack at `dir`.
pub fn load_entity(dir: &Path, identifier: &str) -> Result<Loaded, Error> {
    let paths = [dir.to_path_buf()];
    if let Some(missing) = pack::first_missing(&paths) {
        return Err(Error::new(
            ErrorKind::NoSuchPath,
            format!("{}: no such file or directory", missing.display()),
        ));
    }
    let pack = pack::load_entity(&paths, identifier);
    load_from_pack(&pack, identifier)
}

/// Identifiers of the client entities of a pack (for `--bench` over a whole pack), sorted,
/// each once (the game keeps one definition per identifier).
pub fn client_entities(pack: &Pack) -> Vec<String> {
    identifiers(pack, EntityKind::Client)
}

/// Identifiers of the attachables of a pack, sorted, each once.
pub fn attachables(pack: &Pack) -> Vec<String> {
    identifiers(pack, EntityKind::Attachable)
}

fn identifiers(pack: &Pack, kind: EntityKind) -> Vec<String> {
    let mut ids: Vec<String> = pack
        .entities
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.identifier.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The client entity or attachable `identifier` names. `pig` means `minecraft:pig` (the
/// game's default namespace); case is ignored. Of several definitions the game keeps one:
/// the highest `min_engine_version` (what a current game picks of the `v1.0` and newer files
/// Mojang ships side by side), and of equal ones the last loaded (a later pack overrides).
/// Client entities come before attachables of the same identifier.
pub fn find_entity<'p>(pack: &'p Pack, identifier: &str) -> Result<&'p crate::pack::Entity, Error> {
    let wanted = if identifier.contains(':') {
        identifier.to_string()
    } else {
        format!("minecraft:{identifier}")
    };
    for kind in [EntityKind::Client, EntityKind::Attachable] {
        let found: Vec<&crate::pack::Entity> = pack
            .entities
            .iter()
            .filter(|e| e.kind == kind && e.identifier.eq_ignore_ascii_case(&wanted))
            .collect();
        if found.len() == 1 {
            return Ok(found[0]);
        }
        if let Some(best) = found
            .iter()
            .enumerate()
            .max_by(|(i, a), (j, b)| {
                a.min_engine_version
                    .cmp(&b.min_engine_version)
                    .then(i.cmp(j))
            })
            .map(|(_, e)| *e)
        {
            return Ok(best);
        }
    }
    let mut known = client_entities(pack);
    known.extend(attachables(pack));
    let mut msg = format!("no client entity or attachable `{identifier}` in the pack");
    let lower = wanted.to_ascii_lowercase();
    let path = |s: &str| s.rsplit(':').next().unwrap_or(s).to_string();
    let best = known
        .iter()
        .map(|k| {
            let kl = k.to_ascii_lowercase();
            let d = strsim::osa_distance(&lower, &kl)
                .min(strsim::osa_distance(&path(&lower), &path(&kl)));
            (d, k)
        })
        .min();
    match best {
        Some((d, k)) if d <= (path(&lower).len() / 3).max(1) => {
            msg.push_str(&format!("; did you mean `{k}`?"));
        }
        _ if known.is_empty() => msg.push_str(" (it has none)"),
        // A small pack: name them all; a big one (vanilla has 130) only by count.
        _ if known.len() <= 12 => msg.push_str(&format!(" (it has: {})", known.join(", "))),
        _ => msg.push_str(&format!(
            " ({} client entities and attachables; `molang run PACK --list` names them)",
            known.len()
        )),
    }
    Err(Error::new(ErrorKind::UnknownEntity, msg))
}

/// The properties of the behaviour entity `identifier` (the game's server side decides
/// them and sends the synced ones to the client), when a layer defines it: of several
/// definitions the one [`find_entity`]'s rule picks.
fn behaviour_properties(pack: &Pack, identifier: &str) -> Vec<crate::pack::PropertyDef> {
    (pack.entities.iter().enumerate())
        .filter(|(_, e)| {
            e.kind == EntityKind::Behaviour && e.identifier.eq_ignore_ascii_case(identifier)
        })
        .max_by(|(i, a), (j, b)| {
            (a.min_engine_version)
                .cmp(&b.min_engine_version)
                .then(i.cmp(j))
        })
        .map(|(_, e)| e.properties.clone())
        .unwrap_or_default()
}

/// The pack's files by path (the first of a path), so that each problem finds its file in
/// one lookup: 100,000 broken files must not mean 100,000 searches of the file list.
fn files_by_path(pack: &Pack) -> HashMap<&Path, &crate::pack::PackFile> {
    let mut map = HashMap::with_capacity(pack.files.len());
    for f in &pack.files {
        map.entry(f.path.as_path()).or_insert(f);
    }
    map
}

/// Like [`load_entity`] on an already loaded pack.
pub fn load_from_pack(pack: &Pack, identifier: &str) -> Result<Loaded, Error> {
    let entity = match find_entity(pack, identifier) {
        Ok(e) => e,
        Err(e) => {
            // The entity may be in a file that did not load: say so with its position.
            let wanted = identifier
                .rsplit(':')
                .next()
                .unwrap_or(identifier)
                .to_ascii_lowercase();
            let files = files_by_path(pack);
            let broken = pack.problems.iter().find(|p| {
                (files.get(p.file.as_path()))
                    .is_some_and(|f| f.source.to_ascii_lowercase().contains(&wanted))
            });
            // A file that could not be read at all (UTF-16, unreadable) has no text to search:
            // name it rather than say the pack has no such entity.
            let unread = || {
                pack.problems.iter().find(|p| {
                    p.line == 0
                        && pack
                            .files
                            .iter()
                            .any(|f| f.path == p.file && f.source.is_empty())
                })
            };
            return Err(match broken.or_else(unread) {
                Some(p) if p.line == 0 => Error::new(
                    ErrorKind::BrokenFile,
                    format!(
                        "no loaded file defines `{identifier}`, but {} could not be read (the entity may be defined there): error[{}]: {}",
                        p.file.display(),
                        // The same code `molang check` gives the file.
                        if p.limit { "E0706" } else { "E0702" },
                        p.message
                    ),
                ),
                Some(p) => Error::new(
                    ErrorKind::BrokenFile,
                    format!(
                        "{}:{}:{}: {} (the entity may be defined there)",
                        p.file.display(),
                        p.line,
                        p.column,
                        p.message
                    ),
                ),
                None => e,
            });
        }
    };
    let no_data = ClientData::default();
    let client = entity.client.as_deref().unwrap_or(&no_data);
    let mut source = ScriptSource::from_pack(pack, entity);
    // An attachable's `parent_setup` sets variables on its holder (the bow's
    // `v.charge_amount`, read by humanoid animations). Run alone, the attachable plays the
    // holder's part: it runs first in each frame, on the attachable's own variables.
    if let Some(t) = &client.parent_setup {
        source.pre_animation.insert(0, t.clone());
    }
    // The game sets these before the entity's scripts run (see `crate::engine_vars`).
    source
        .preset
        .extend(crate::engine_vars::for_entity(&entity.identifier).map(|e| e.name.to_string()));
    let version = source.version;
    let (scripts, found) = match EntityScripts::compile(&source) {
        Ok(s) => {
            let found = s.warnings.clone();
            (s, found)
        }
        Err(diags) => {
            // The game refuses the entity's scripts: it still draws and animates the entity,
            // without them. Keep going with empty scripts and say why.
            let empty = EntityScripts::compile(&ScriptSource {
                version,
                ..ScriptSource::default()
            })
            .map_err(|_| Error::new(ErrorKind::Internal, "empty scripts do not compile"))?;
            (empty, diags)
        }
    };
    let diagnostics = script_diagnostics(pack, entity, &source, &found);
    let mut b = Builder {
        pack,
        entity,
        scripts,
        diagnostics,
        model: Model {
            identifier: entity.identifier.clone(),
            properties: behaviour_properties(pack, &entity.identifier),
            ..Model::default()
        },
        bone_index: HashMap::new(),
        anim_index: HashMap::new(),
        ctrl_index: HashMap::new(),
        source_index: HashMap::new(),
        pending: std::collections::VecDeque::new(),
        short_names: last_by_name(entity.animations.iter().filter(|a| !a.legacy)),
        legacy: last_by_name(entity.animations.iter().filter(|a| a.legacy)),
        missing_geometry: Vec::new(),
        overflow: None,
    };
    b.model.script_at = [
        b.site_at(entity.initialize),
        b.site_at(entity.pre_animation),
    ];
    if let Some(name) = entity.default_geometry() {
        b.load_geometry(name);
    }
    // The legacy list plays first (after the geometry is loaded: bones come from it).
    // A controller that `scripts.animate` also plays runs once (Mojang's zombie lists its
    // controllers in both; the game does not swing its legs twice as far).
    let animate_ids: std::collections::HashSet<String> = (entity.animate.iter())
        .filter_map(|a| b.short_names.get(&a.name.to_ascii_lowercase()))
        .map(|id| id.to_ascii_lowercase())
        .collect();
    for (short, id) in (entity.animations.iter())
        .filter(|a| a.legacy)
        .map(|a| (&a.short, &a.id))
    {
        if animate_ids.contains(&id.to_ascii_lowercase()) {
            continue;
        }
        let entry = b.entry_for(short, Some(id.clone()));
        let node = b.root(&entry);
        b.model.animate.push((node, None));
    }
    // `animate` entries: names or {name: condition}, in order.
    let file = entity.file;
    for a in &entity.animate {
        let label = format!("{} animate {}", entity.identifier, a.name);
        let cond = b.num(file, a.value.as_ref(), &label);
        let entry = b.entry(&a.name);
        let node = b.root(&entry);
        b.model.animate.push((node, cond));
    }
    // `scripts.scale` and `scaleX/Y/Z` (any case): the entity's size.
    for (slot, key, v) in &client.scale {
        let label = format!("{} {key}", entity.identifier);
        b.model.scale[*slot] = b.num(file, v.as_ref(), &label);
    }
    // Render controllers, with the entity's resource maps.
    let resources = entity.resource_maps();
    for rc in &entity.render_controllers {
        let label = format!("{} render controller {}", entity.identifier, rc.name);
        let cond = b.num(file, rc.value.as_ref(), &label);
        if let Some(def) = b.render_controller(&rc.name, &rc.at, cond, &resources) {
            b.model.render.push(def);
        }
    }
    if !b.model.has_geometry {
        b.model.fk_order = (0..b.model.bones.len()).collect();
    }
    // A broken file stops the run only when the entity may need it: its text names the
    // entity or something the entity could not find (the game drops a broken file and
    // plays the rest; a broken UI file changes nothing for a mob).
    let mut wanted: Vec<String> = vec![entity.identifier.to_ascii_lowercase()];
    let entries = (b.model.controllers.iter()).flat_map(|c| {
        c.states
            .iter()
            .flat_map(|s| s.animations.iter().map(|(e, _)| e))
    });
    let missing = (b.model.nodes.iter())
        .filter_map(|n| match n {
            PlayNode::Missing(m) => Some(m),
            _ => None,
        })
        .chain(entries.filter_map(|e| match e {
            Entry::Missing(m) => Some(m),
            _ => None,
        }));
    wanted.extend(missing.map(|m| m.name().to_ascii_lowercase()));
    wanted.sort();
    wanted.dedup();
    wanted.extend(b.missing_geometry.iter().map(|g| g.to_ascii_lowercase()));
    let files = files_by_path(pack);
    for p in &pack.problems {
        let text = (files.get(p.file.as_path()))
            .map(|f| f.source.to_ascii_lowercase())
            .unwrap_or_default();
        if wanted
            .iter()
            .any(|w| !w.is_empty() && text.contains(w.as_str()))
        {
            return Err(Error::new(
                ErrorKind::BrokenFile,
                format!(
                    "{}:{}:{}: {} (the entity may need this file)",
                    p.file.display(),
                    p.line,
                    p.column,
                    p.message
                ),
            ));
        }
        // The same diagnostic `molang check` gives the file, and why the run goes on.
        let mut d = crate::pack_check::file_problem(p);
        let help = d.diagnostic.help.take().unwrap_or_default();
        d.diagnostic.help = Some(format!(
            "{help}; {} does not need it, so it plays without it",
            entity.identifier
        ));
        b.diagnostics.push(d);
    }
    Ok(Loaded {
        model: b.model,
        scripts: b.scripts,
        diagnostics: b.diagnostics,
    })
}

/// The checker's diagnostics of an entity's scripts (`initialize`, then `pre_animation`
/// with an attachable's `parent_setup` first: [`ScriptSource`]'s texts), at their sites.
fn script_diagnostics(
    pack: &Pack,
    entity: &crate::pack::Entity,
    source: &ScriptSource,
    diags: &[Diagnostic],
) -> Vec<PackDiagnostic> {
    if diags.is_empty() {
        return Vec::new();
    }
    // `initialize` is checked first, alone: its diagnostics are the first ones, as many as
    // checking it alone gives.
    let in_initialize = if source.initialize.is_empty() {
        0
    } else if source.pre_animation.is_empty() {
        diags.len()
    } else {
        let alone = EntityScripts::compile(&ScriptSource {
            pre_animation: Vec::new(),
            ..source.clone()
        });
        let refused = diags.iter().any(|d| d.refuses_load());
        match alone {
            Ok(s) if !refused => s.warnings.len(),
            Err(errors) if refused => errors.len(),
            _ => 0,
        }
    };
    // An attachable's `parent_setup` is the first entry of `pre_animation`.
    let parent_setup = entity.client.as_ref().and_then(|c| c.parent_setup.as_ref());
    let parent_site = parent_setup.and_then(|text| {
        (entity.other_sites.iter().copied()).find(|&s| pack.sites[s].text == *text)
    });
    let skip = parent_setup.map_or(0, |t| t.len() + 1);
    diags
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let (site, offset) = if i < in_initialize {
                (entity.initialize, 0)
            } else if (d.span.start as usize) < skip {
                (parent_site, 0)
            } else {
                (entity.pre_animation, -(skip as isize))
            };
            match site {
                Some(s) => PackDiagnostic::at_site(pack, s, shifted(d, offset)),
                None => PackDiagnostic {
                    path: pack.files[entity.file].path.clone(),
                    site: None,
                    file: None,
                    diagnostic: d.clone(),
                    line: 0,
                    column: 0,
                },
            }
        })
        .collect()
}

/// `d` with its spans moved by `delta` bytes (negative: towards the start).
fn shifted(d: &Diagnostic, delta: isize) -> Diagnostic {
    let mv = |x: u32| (x as isize + delta).max(0) as usize;
    let span = |s: &grammar::Span| grammar::Span::new(mv(s.start), mv(s.end));
    let mut d = d.clone();
    d.span = span(&d.span);
    for (s, _) in &mut d.labels {
        *s = span(s);
    }
    d
}

struct Builder<'a> {
    pack: &'a Pack,
    /// The entity played.
    entity: &'a crate::pack::Entity,
    scripts: EntityScripts,
    /// What loading found ([`Loaded::diagnostics`]).
    diagnostics: Vec<PackDiagnostic>,
    model: Model,
    /// Lower-case bone name → index.
    bone_index: HashMap<String, usize>,
    /// Animation id → index in `model.animations`.
    anim_index: HashMap<String, usize>,
    /// Pack file index → index in `model.sources`.
    source_index: HashMap<usize, u32>,
    /// Controller id → index in `model.controllers`.
    ctrl_index: HashMap<String, usize>,
    /// Controllers given an index whose states are not compiled yet (compiled from a queue,
    /// not by recursion: a chain of 100,000 controllers must not overflow the stack).
    pending: std::collections::VecDeque<(usize, &'a crate::pack::Controller)>,
    /// `description.animations`: the names `scripts.animate` and controller states use,
    /// lower-case short name → id (the last entry of a name wins).
    short_names: HashMap<String, &'a str>,
    /// `description.animation_controllers` (1.8.0): short name → controller, played as roots.
    legacy: HashMap<String, &'a str>,
    /// Geometry identifiers the pack does not have.
    missing_geometry: Vec<String>,
    /// The one node every entry past [`MAX_PLAY_NODES`] shares.
    overflow: Option<usize>,
}

/// Lower-case short name → id; of several entries with one name the last wins.
fn last_by_name<'p>(list: impl Iterator<Item = &'p AnimationRef>) -> HashMap<String, &'p str> {
    list.map(|a| (a.short.to_ascii_lowercase(), a.id.as_str()))
        .collect()
}

impl Builder<'_> {
    fn path(&self, file: usize) -> PathBuf {
        self.pack.files[file].path.clone()
    }

    /// Index in [`Model::sources`] of pack file `file`.
    fn source(&mut self, file: usize) -> u32 {
        if let Some(&i) = self.source_index.get(&file) {
            return i;
        }
        let i = self.model.sources.len() as u32;
        self.model.sources.push(self.path(file));
        self.source_index.insert(file, i);
        i
    }

    /// Where an entity script site is written.
    fn site_at(&mut self, site: Option<crate::pack::SiteId>) -> Option<SourceAt> {
        let site = &self.pack.sites[site?];
        let (line, column) = self.pack.locate(site, 0);
        Some(SourceAt {
            file: self.source(site.file),
            line: line as u32,
            column: column as u32,
        })
    }

    /// Compiles a Molang string of `file`; `part` is a byte range of its text when only that
    /// part is one expression (a render-controller choice). Diagnostics are kept with
    /// the file, line and column (for a string that is not a site, its JSON pointer).
    fn compile(
        &mut self,
        file: usize,
        expr: &MolangString,
        part: Option<(std::ops::Range<usize>, &str)>,
        label: &str,
    ) -> Option<crate::entity::CompiledExprId> {
        let text = expr.text(self.pack);
        let (src, start) = match &part {
            Some((range, _)) => (&text[range.clone()], range.start),
            None => (text, 0),
        };
        let (id, diags) = self.scripts.add_expression(src, label);
        if let Some(id) = id {
            let (line, column) = match expr {
                MolangString::Site(s) => self.pack.locate(&self.pack.sites[*s], start),
                MolangString::Unrecorded(_) => (0, 0),
            };
            let at = SourceAt {
                file: self.source(file),
                line: line as u32,
                column: column as u32,
            };
            let i = id.0 as usize;
            if self.model.expr_at.len() <= i {
                self.model.expr_at.resize(i + 1, SourceAt::default());
            }
            self.model.expr_at[i] = at;
        }
        for d in diags {
            let mut d = shifted(&d, start as isize);
            if let (MolangString::Unrecorded(_), Some((_, what))) = (expr, &part) {
                d.message = format!("{} ({what})", d.message);
            }
            self.note_in(file, expr, d);
        }
        id
    }

    /// Diagnostic `d` of a Molang string of `file`, its span in the string's text.
    fn note_in(&mut self, file: usize, expr: &MolangString, d: Diagnostic) {
        let found = match expr {
            MolangString::Site(s) => PackDiagnostic::at_site(self.pack, *s, d),
            MolangString::Unrecorded(u) => {
                let mut d = d;
                d.message = format!("{} (at {})", d.message, u.pointer);
                PackDiagnostic {
                    path: self.path(file),
                    site: None,
                    file: None,
                    diagnostic: d,
                    line: 0,
                    column: 0,
                }
            }
        };
        self.diagnostics.push(found);
    }

    /// A diagnostic at byte range `range` of pack file `file`.
    fn note_at(
        &mut self,
        file: usize,
        range: &std::ops::Range<usize>,
        code: Code,
        message: String,
        help: &str,
    ) {
        let d = structure::at(self.pack, file, range, code, message, help);
        self.diagnostics.push(d);
    }

    /// Where the entity names geometry `name` (the first entry naming it; without one, the
    /// entity's file from its start).
    fn geometry_entry(&self, name: &str) -> std::ops::Range<usize> {
        let e = self.entity;
        (e.geometries.iter())
            .find(|g| g.value.eq_ignore_ascii_case(name))
            .map_or(0..0, |g| g.at.clone())
    }

    /// A number slot of the pack, compiled.
    fn num(&mut self, file: usize, v: Option<&defs::Num>, label: &str) -> Option<Num> {
        Some(match v? {
            defs::Num::Const(c) => Num::Const(*c),
            defs::Num::Molang(e) => match self.compile(file, e, None, label) {
                Some(id) => Num::Expr(id),
                None => Num::Const(0.0),
            },
        })
    }

    fn vec3(&mut self, file: usize, v: &Vec3, label: &str) -> [Num; 3] {
        match v {
            Vec3::Splat(n) => [self.num(file, Some(n), label).unwrap_or(Num::Const(0.0)); 3],
            Vec3::Axes(axes) => {
                let mut out = [Num::Const(0.0); 3];
                for (i, (slot, n)) in out.iter_mut().zip(axes).enumerate() {
                    let axis = ["x", "y", "z"][i];
                    *slot = self
                        .num(file, Some(n), &format!("{label}.{axis}"))
                        .unwrap_or(Num::Const(0.0));
                }
                out
            }
        }
    }

    fn bone(&mut self, name: &str) -> Option<usize> {
        let key = name.to_ascii_lowercase();
        if let Some(&i) = self.bone_index.get(&key) {
            return Some(i);
        }
        if self.model.has_geometry {
            // The game ignores tracks for bones the geometry does not have.
            return None;
        }
        let i = self.model.bones.len();
        self.model.bones.push(Bone {
            name: name.to_string(),
            parent: None,
            pivot: [0.0; 3],
            rotation: [0.0; 3],
            locators: Vec::new(),
        });
        self.bone_index.insert(key, i);
        Some(i)
    }

    fn load_geometry(&mut self, name: &str) {
        let (file, at) = (self.entity.file, self.geometry_entry(name));
        let Some(chain) = self.pack.geometry_chain(name) else {
            self.missing_geometry.push(name.to_string());
            const NO_BONES: &str = "molang run has no bones for it: bones come from the animations and world positions ignore pivots";
            let d = if structure::builtin_geometry(name) {
                structure::at(
                    self.pack,
                    file,
                    &at,
                    Code::BuiltinGeometry,
                    format!("geometry `{name}` is built into the game; no pack holds it"),
                    NO_BONES,
                )
            } else {
                let short = (self.entity.geometries.iter())
                    .find(|g| g.value.eq_ignore_ascii_case(name))
                    .map_or("", |g| g.short.as_str());
                let mut d = structure::undefined_geometry(self.pack, self.entity, short, name, &at);
                let help = d.diagnostic.help.take().unwrap_or_default();
                d.diagnostic.help = Some(format!("{help}; {NO_BONES}"));
                d
            };
            self.diagnostics.push(d);
            return;
        };
        if let Some(p) = &chain.missing_parent {
            self.note_at(
                file,
                &at,
                Code::MissingParentGeometry,
                format!("geometry `{name}` inherits from `{p}`, which no layer defines"),
                "the game has some geometry built in, such as geometry.humanoid; molang run loads only the bones written along the way",
            );
        }
        if let Some(p) = &chain.cycle {
            self.note_at(
                file,
                &at,
                Code::GeometryCycle,
                format!("geometry `{name}` inherits in a circle (back to `{p}`)"),
                "each geometry of the circle is used once; inherit from a geometry that does not inherit back",
            );
        }
        let rig = chain.bones();
        let mut parents: Vec<Option<String>> = Vec::new();
        for b in &rig {
            let key = b.name.to_ascii_lowercase();
            if self.bone_index.contains_key(&key) {
                continue;
            }
            self.bone_index.insert(key, self.model.bones.len());
            self.model.bones.push(Bone {
                name: b.name.clone(),
                parent: None,
                pivot: b.pivot,
                rotation: b.rotation,
                locators: b.locators.clone(),
            });
            parents.push(b.parent.as_deref().map(str::to_ascii_lowercase));
        }
        for (i, p) in parents.iter().enumerate() {
            let parent = p.as_ref().and_then(|p| self.bone_index.get(p).copied());
            if p.is_some() && parent.is_none() {
                let message = format!(
                    "bone `{}` of geometry `{name}` names parent `{}`, which the geometry does not have",
                    self.model.bones[i].name,
                    p.as_deref().unwrap_or_default()
                );
                self.note_at(
                    file,
                    &at,
                    Code::UnknownParentBone,
                    message,
                    "the bone hangs from the root (molang run places it so); name a bone of the geometry or of its parents",
                );
            }
            self.model.bones[i].parent = parent.filter(|&q| q != i);
        }
        self.model.has_geometry = true;
        self.model.fk_order = fk_order(&mut self.model.bones);
    }

    /// One render controller (the last definition of `id` in the pack), named by the entity
    /// at byte range `at` of its file.
    fn render_controller(
        &mut self,
        id: &str,
        at: &std::ops::Range<usize>,
        condition: Option<Num>,
        resources: &[Vec<(String, String)>; 3],
    ) -> Option<super::render::RenderDef> {
        use super::render::{RenderArray, RenderDef};
        let Some(rc) = self.pack.render_controllers_named(id).last() else {
            let d = structure::undefined_render_controller(self.pack, self.entity, id, at);
            self.diagnostics.push(d);
            return None;
        };
        let file = rc.file;
        let data = &rc.data;
        let mut def = RenderDef {
            id: id.to_string(),
            condition,
            ..RenderDef::default()
        };
        // Arrays, flattened (an array may list another, declared before or after it).
        let raw: Vec<(String, &[String])> = rc
            .arrays
            .iter()
            .map(|(name, items)| (name.to_ascii_lowercase(), items.as_slice()))
            .collect();
        fn flatten(raw: &[(String, &[String])], i: usize, depth: usize, out: &mut Vec<String>) {
            for item in raw[i].1 {
                let l = item.trim().to_ascii_lowercase();
                match raw.iter().position(|(n, _)| *n == l) {
                    Some(j) if depth < 8 => flatten(raw, j, depth + 1, out),
                    Some(_) => {}
                    None => out.push(item.trim().to_string()),
                }
            }
        }
        let resolve = |r: &str| -> String {
            let l = r.to_ascii_lowercase();
            for (prefix, map) in ["geometry.", "texture.", "material."].iter().zip(resources) {
                if let Some(short) = l.strip_prefix(prefix) {
                    if let Some((_, v)) = map.iter().find(|(k, _)| k == short) {
                        return v.clone();
                    }
                }
            }
            r.to_string()
        };
        for i in 0..raw.len() {
            let mut items = Vec::new();
            flatten(&raw, i, 0, &mut items);
            def.arrays.push(RenderArray {
                name: raw[i].0.clone(),
                items: items.iter().map(|item| resolve(item)).collect(),
            });
        }
        if let Some(g) = &data.geometry {
            def.geometry = Some(self.selector(&def, file, g, &format!("{id} geometry"), &resolve));
        }
        for (i, t) in &data.textures {
            let s = self.selector(&def, file, t, &format!("{id} textures[{i}]"), &resolve);
            def.textures.push(s);
        }
        for (_, pattern, m) in &data.materials {
            let label = format!("{id} materials {pattern}");
            let s = self.selector(&def, file, m, &label, &resolve);
            def.materials.push((pattern.clone(), s));
        }
        for (_, pattern, v) in &data.part_visibility {
            let label = format!("{id} part_visibility {pattern}");
            let n = self
                .num(file, v.as_ref(), &label)
                .unwrap_or(Num::Const(0.0));
            def.part_visibility.push((pattern.clone(), n));
        }
        for (k, key) in ["color", "overlay_color", "is_hurt_color", "on_fire_color"]
            .iter()
            .enumerate()
        {
            for (ch, name) in ["r", "g", "b", "a"].iter().enumerate() {
                if let Some(v) = &data.colors[k][ch] {
                    let label = format!("{id} {key}.{name}");
                    def.colors[k][ch] = self.num(file, Some(v), &label);
                }
            }
        }
        if let Some(uv) = &data.uv_anim {
            let mut out = [None; 4];
            for (i, v) in uv.iter().enumerate() {
                if let Some(v) = v {
                    let key = ["offset", "scale"][i / 2];
                    out[i] = self.num(file, Some(v), &format!("{id} uv_anim.{key}"));
                }
            }
            def.uv_anim = Some(out);
        }
        def.rebuild_animation_matrices = data.rebuild_animation_matrices;
        Some(def)
    }

    /// A resource choice of a render controller to a `Sel`, compiling its numeric parts.
    fn selector(
        &mut self,
        def: &super::render::RenderDef,
        file: usize,
        expr: &MolangString,
        label: &str,
        resolve: &dyn Fn(&str) -> String,
    ) -> super::render::Sel {
        let text = expr.text(self.pack).to_string();
        self.sel(def, file, expr, &text, 0..text.len(), label, resolve, 0)
    }

    #[allow(clippy::too_many_arguments)]
    fn sel(
        &mut self,
        def: &super::render::RenderDef,
        file: usize,
        expr: &MolangString,
        whole: &str,
        range: std::ops::Range<usize>,
        label: &str,
        resolve: &dyn Fn(&str) -> String,
        depth: usize,
    ) -> super::render::Sel {
        use super::render::{split, Sel, SelText};
        let text = &whole[range];
        // Byte range of a part of `text` in the whole string.
        let at = |part: &str| {
            let start = part.as_ptr() as usize - whole.as_ptr() as usize;
            start..start + part.len()
        };
        let span = |r: std::ops::Range<usize>| grammar::Span::new(r.start, r.end);
        let num = |b: &mut Self, part: &str, what: &str| match b.compile(
            file,
            expr,
            Some((at(part), what)),
            label,
        ) {
            Some(id) => Num::Expr(id),
            None => Num::Const(0.0),
        };
        match split(text) {
            SelText::Resource(r) => {
                if r.to_ascii_lowercase().starts_with("array.") {
                    // A whole array: its first element.
                    let l = r.to_ascii_lowercase();
                    match def.arrays.iter().position(|a| a.name == l) {
                        Some(array) => Sel::Index {
                            array,
                            index: Num::Const(0.0),
                        },
                        None => Sel::Nothing,
                    }
                } else {
                    Sel::Const(resolve(r))
                }
            }
            SelText::Index(name, index) => {
                let l = name.to_ascii_lowercase();
                match def.arrays.iter().position(|a| a.name == l) {
                    Some(array) => Sel::Index {
                        array,
                        index: num(self, index, "index"),
                    },
                    None => {
                        let message =
                            format!("render controller `{}` has no array `{name}`", def.id);
                        let help =
                            "the choice selects nothing; name one of the controller's arrays";
                        let d = Diagnostic::new(Code::UnknownRenderArray, span(at(name)), message);
                        self.note_in(file, expr, d.with_help(help));
                        Sel::Nothing
                    }
                }
            }
            SelText::Cond(c, t, e) if depth < 32 => {
                let cond = num(self, c, "condition");
                let then = self.sel(def, file, expr, whole, at(t), label, resolve, depth + 1);
                let otherwise = self.sel(def, file, expr, whole, at(e), label, resolve, depth + 1);
                Sel::Cond {
                    cond,
                    then: Box::new(then),
                    otherwise: Box::new(otherwise),
                }
            }
            _ => {
                let message = format!(
                    "render controller `{}`: `{}` is not a resource choice the runtime evaluates",
                    def.id,
                    text.trim()
                );
                let help = "molang run evaluates `Kind.name`, `Array.name[i]` and `c ? a : b`; this choice selects nothing there";
                let d = Diagnostic::new(
                    Code::UnevaluatedResourceChoice,
                    span(at(text.trim())),
                    message,
                );
                self.note_in(file, expr, d.with_help(help));
                Sel::Nothing
            }
        }
    }

    /// What a short name of the entity's `animations` map names. Names resolve in
    /// `description.animations`; a name only the legacy controller list has resolves there
    /// (an `animate` entry naming a legacy controller).
    fn entry(&mut self, short: &str) -> Entry {
        let key = short.to_ascii_lowercase();
        let id = (self.short_names.get(&key))
            .or_else(|| self.legacy.get(&key))
            .map(|id| id.to_string());
        self.entry_for(short, id)
    }

    fn entry_for(&mut self, short: &str, id: Option<String>) -> Entry {
        let Some(id) = id else {
            return Entry::Missing(Missing::ShortName(short.to_string()));
        };
        // Client entities see resource-pack controllers only (the server has its own).
        if let Some(c) = self.pack.controllers_for(Side::Resource, &id).last() {
            if let Some(&i) = self.ctrl_index.get(&id) {
                return Entry::Controller(i);
            }
            let i = self.model.controllers.len();
            self.model.controllers.push(ControllerDef {
                id: id.clone(),
                initial: 0,
                states: Vec::new(),
            });
            self.ctrl_index.insert(id, i);
            self.pending.push_back((i, c));
            Entry::Controller(i)
        } else if let Some(a) = self.animation(&id) {
            Entry::Animation(a)
        } else {
            Entry::Missing(Missing::Definition {
                short: short.to_string(),
                id,
            })
        }
    }

    /// The play node of a root entry: every controller it reaches is compiled first.
    fn root(&mut self, entry: &Entry) -> usize {
        while let Some((i, c)) = self.pending.pop_front() {
            self.model.controllers[i] = self.controller(c);
        }
        self.expand(entry, &mut Vec::new())
    }

    fn push_node(&mut self, node: PlayNode) -> usize {
        self.model.nodes.push(node);
        self.model.nodes.len() - 1
    }

    /// The play node of one occurrence of `entry` under the controllers of `path` (outermost
    /// first). Linear in the nodes made: a controller already on the path is cut where it
    /// closes the circle (the game does not recurse forever; which occurrence it stops at
    /// is not documented: choice), nesting stops at [`MAX_NESTING`] and the whole tree at
    /// [`MAX_PLAY_NODES`].
    fn expand(&mut self, entry: &Entry, path: &mut Vec<usize>) -> usize {
        if self.model.nodes.len() >= MAX_PLAY_NODES {
            if let Some(n) = self.overflow {
                return n;
            }
            let n = self.push_node(PlayNode::Cut(format!(
                "the entity has more than {MAX_PLAY_NODES} animations and controllers to play (controllers that play controllers several times multiply them); the rest play nothing"
            )));
            self.overflow = Some(n);
            return n;
        }
        let c = match entry {
            Entry::Animation(a) => return self.push_node(PlayNode::Animation(*a)),
            Entry::Missing(m) => return self.push_node(PlayNode::Missing(m.clone())),
            Entry::Controller(c) => *c,
        };
        let id = &self.model.controllers[c].id;
        if let Some(k) = path.iter().position(|&p| p == c) {
            let chain: Vec<&str> = (path[k..].iter().chain([&c]))
                .map(|&i| self.model.controllers[i].id.as_str())
                .collect();
            let message = format!(
                "controller `{id}` plays itself ({}); the entry that closes the circle plays nothing",
                chain.join(" -> ")
            );
            return self.push_node(PlayNode::Cut(message));
        }
        if path.len() >= MAX_NESTING {
            let message = format!(
                "controller `{id}` nested deeper than {MAX_NESTING}; it plays nothing there"
            );
            return self.push_node(PlayNode::Cut(message));
        }
        let node = self.push_node(PlayNode::Controller {
            def: c,
            children: Vec::new(),
        });
        path.push(c);
        let mut children = Vec::with_capacity(self.model.controllers[c].states.len());
        for s in 0..self.model.controllers[c].states.len() {
            let n = self.model.controllers[c].states[s].animations.len();
            let mut kids = Vec::with_capacity(n);
            for j in 0..n {
                let entry = self.model.controllers[c].states[s].animations[j].0.clone();
                kids.push(self.expand(&entry, path));
            }
            children.push(kids.into_boxed_slice());
        }
        path.pop();
        if let PlayNode::Controller { children: slot, .. } = &mut self.model.nodes[node] {
            *slot = children;
        }
        node
    }

    fn animation(&mut self, id: &str) -> Option<usize> {
        if let Some(&i) = self.anim_index.get(id) {
            return Some(i);
        }
        // The last definition wins, as the game overrides by identifier.
        let a = self.pack.animations_for(Side::Resource, id).last()?;
        let (file, data) = (a.file, &a.data);
        // Where the animation writes bone `name` (its `bones` key).
        let bone_at = |name: &str| {
            (a.bones.iter())
                .find(|(b, _)| b == name)
                .map_or(0..0, |(_, r)| r.clone())
        };
        let mut def = AnimationDef {
            id: id.to_string(),
            length: 0.0,
            looping: data.looping,
            anim_time_update: None,
            blend_weight: None,
            override_previous: data.override_previous,
            start_delay: None,
            loop_delay: None,
            tracks: Vec::new(),
            timeline: Vec::new(),
        };
        def.anim_time_update = self.num(
            file,
            data.anim_time_update.as_ref(),
            &format!("{id} anim_time_update"),
        );
        def.blend_weight = self.num(
            file,
            data.blend_weight.as_ref(),
            &format!("{id} blend_weight"),
        );
        def.start_delay = self.num(
            file,
            data.start_delay.as_ref(),
            &format!("{id} start_delay"),
        );
        def.loop_delay = self.num(file, data.loop_delay.as_ref(), &format!("{id} loop_delay"));
        let mut last_key = 0.0f32;
        for bt in &data.tracks {
            let bone = &bt.bone;
            let Some(b) = self.bone(bone) else {
                self.note_at(
                    file,
                    &bone_at(bone),
                    Code::UnknownBone,
                    format!(
                        "animation `{id}` moves bone `{bone}`, which the geometry of {} does not have",
                        self.entity.identifier
                    ),
                    "the game ignores channels of a bone the geometry lacks; check the bone name against the geometry (parents included)",
                );
                continue;
            };
            let mut track = Track {
                bone: b,
                channels: [None, None, None],
            };
            for (idx, cv) in &bt.channels {
                let ch = ["rotation", "position", "scale"][*idx];
                let label = format!("{id} {bone}.{ch}");
                let channel = match cv {
                    ChannelDef::Keys(keys) => {
                        let mut list = Vec::new();
                        for k in keys {
                            let time = &k.time_text;
                            let Some(t) = k.time else {
                                self.note_at(
                                    file,
                                    &bone_at(bone),
                                    Code::BadKeyframeTime,
                                    format!("animation `{id}` bone `{bone}` {ch}: keyframe time `{time}` is not a number"),
                                    "the keyframe is ignored; write its time in seconds (\"0.5\")",
                                );
                                continue;
                            };
                            if !t.is_finite() {
                                continue;
                            }
                            let klabel = format!("{label}@{time}");
                            let key = match &k.value {
                                KeyValue::PrePost { pre, post, lerp } => {
                                    let pre = pre.as_ref().map(|v| self.vec3(file, v, &klabel));
                                    let post = post.as_ref().map(|v| self.vec3(file, v, &klabel));
                                    let (Some(pre), Some(post)) = (pre.or(post), post.or(pre))
                                    else {
                                        continue;
                                    };
                                    Key {
                                        time: t,
                                        pre,
                                        post,
                                        lerp: *lerp,
                                    }
                                }
                                KeyValue::Plain(v) => {
                                    let Some(v) = v.as_ref().map(|v| self.vec3(file, v, &klabel))
                                    else {
                                        continue;
                                    };
                                    Key {
                                        time: t,
                                        pre: v,
                                        post: v,
                                        lerp: Lerp::Linear,
                                    }
                                }
                            };
                            list.push(key);
                        }
                        if list.is_empty() {
                            continue;
                        }
                        // Stable: of two keys at the same time the later in the file wins below.
                        list.sort_by(|a, b| a.time.total_cmp(&b.time));
                        list.dedup_by(|later, earlier| {
                            if later.time == earlier.time {
                                *earlier = later.clone();
                                true
                            } else {
                                false
                            }
                        });
                        last_key = last_key.max(list.last().map_or(0.0, |k| k.time));
                        Channel::Keys(list)
                    }
                    ChannelDef::Static(v) => match v {
                        Some(v) => Channel::Static(self.vec3(file, v, &label)),
                        None => continue,
                    },
                };
                track.channels[*idx] = Some(channel);
            }
            def.tracks.push(track);
        }
        for (t, time, script) in &data.timeline {
            if let Some(e) = self.compile(file, script, None, &format!("{id} timeline@{time}")) {
                def.timeline.push((*t, e));
            }
        }
        def.timeline.sort_by(|a, b| a.0.total_cmp(&b.0));
        def.length = data.length.unwrap_or(last_key);
        let i = self.model.animations.len();
        self.model.animations.push(def);
        self.anim_index.insert(id.to_string(), i);
        Some(i)
    }

    fn controller(&mut self, c: &crate::pack::Controller) -> ControllerDef {
        let (file, id) = (c.file, c.id.as_str());
        let names: Vec<&str> = c.states.iter().map(|s| s.name.as_str()).collect();
        // State name → index; of two states of one name the first, as a search would find.
        let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            by_name.entry(n).or_insert(i);
        }
        let mut states = Vec::new();
        for st in &c.states {
            let (name, data) = (&st.name, &st.data);
            let label = format!("{id} state {name}");
            let mut state = StateDef {
                animations: Vec::new(),
                transitions: Vec::new(),
                on_entry: None,
                on_exit: None,
                variables: Vec::new(),
                blend_transition: data.blend_transition.clone(),
            };
            for a in &data.animations {
                let blend = self.num(file, a.value.as_ref(), &format!("{label} blend {}", a.name));
                let entry = self.entry(&a.name);
                state.animations.push((entry, blend));
            }
            for t in &data.transitions {
                let (target, cond) = (&t.name, &t.value);
                let Some(&ti) = by_name.get(target.as_str()) else {
                    // The same diagnostic `molang check` gives, at the transition's key.
                    let d = structure::unknown_state(self.pack, c, st, target, &t.at);
                    self.diagnostics.push(d);
                    continue;
                };
                let c = self
                    .num(file, cond.as_ref(), &format!("{label} transition {target}"))
                    .unwrap_or(Num::Const(0.0));
                state.transitions.push((ti, c));
            }
            if let Some(e) = &data.on_entry {
                state.on_entry = self.compile(file, e, None, &format!("{label} on_entry"));
            }
            if let Some(e) = &data.on_exit {
                state.on_exit = self.compile(file, e, None, &format!("{label} on_exit"));
            }
            // A variable without `input` is not set while the state plays.
            for v in data.variables.iter().filter(|v| v.has_input) {
                let input = self
                    .num(
                        file,
                        v.input.as_ref(),
                        &format!("{label} variable {}", v.name),
                    )
                    .unwrap_or(Num::Const(0.0));
                let slot = self.scripts.intern_variable(&v.name);
                state.variables.push(StateVariable {
                    slot,
                    input,
                    curve: v.curve.clone(),
                });
            }
            states.push(state);
        }
        let initial_name = c.initial_state.as_deref().unwrap_or("default");
        let initial = by_name.get(initial_name).copied().unwrap_or_else(|| {
            // The same diagnostic `molang check` gives (W0803 or W0802); play starts in the
            // first state.
            let names: std::collections::HashSet<&str> = names.iter().copied().collect();
            if !names.is_empty() {
                self.diagnostics
                    .extend(structure::initial_state(self.pack, c, &names));
            }
            0
        });
        ControllerDef {
            id: id.to_string(),
            initial,
            states,
        }
    }
}

/// Parents before children; a parent cycle is broken by detaching the bone that closes it.
pub(crate) fn fk_order(bones: &mut [Bone]) -> Vec<usize> {
    let n = bones.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
    let mut order = Vec::with_capacity(n);
    for start in 0..n {
        let mut chain: Vec<usize> = Vec::new();
        let mut i = start;
        loop {
            if state[i] == 2 {
                break;
            }
            if state[i] == 1 {
                // `chain.last()`'s parent closes the cycle: make it a root.
                if let Some(&last) = chain.last() {
                    bones[last].parent = None;
                }
                break;
            }
            state[i] = 1;
            chain.push(i);
            match bones[i].parent {
                Some(p) => i = p,
                None => break,
            }
        }
        for &c in chain.iter().rev() {
            state[c] = 2;
            order.push(c);
        }
    }
    order
}
