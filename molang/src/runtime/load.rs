//! Pack → [`Model`]: finds the client entity, its animations, controllers and geometry, and
//! compiles every Molang string once against the entity's name table (source → AST →
//! checked IR happens here; the frame loop only runs compiled programs).
//!
//! Files come from [`crate::pack::load`] (the same reading and problem reporting as
//! `molang check`); the numbers and key order come from [`crate::pack::tree`], and Molang
//! strings are taken from the pack's sites so diagnostics point into the JSON file.

use super::model::*;
use crate::diagnostics::Severity;
use crate::entity::{EntityScripts, ScriptSource};
use crate::pack::tree::{parse_tree, pointer as ptr, Tree};
use crate::pack::{self, EntityKind, FileKind, Pack, SiteId};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A problem that stops the run (exit 2): a message already naming the file and position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A loaded entity: what to play, its compiled scripts, and load-time notes (compile
/// diagnostics, missing bones) for stderr.
pub struct Loaded {
    pub model: Model,
    pub scripts: EntityScripts,
    pub notes: Vec<String>,
}

/// Controllers nested deeper than this are cut (a controller playing itself would recurse).
const MAX_NESTING: usize = 16;

/// Loads `identifier` (case-insensitive) from the pack at `dir`.
pub fn load_entity(dir: &Path, identifier: &str) -> Result<Loaded, LoadError> {
    if !dir.exists() {
        return Err(LoadError(format!(
            "{}: no such file or directory",
            dir.display()
        )));
    }
    let pack = pack::load(&[dir.to_path_buf()]);
    load_from_pack(&pack, identifier)
}

/// Identifiers of the client entities of a pack (for `--bench` over a whole pack), sorted,
/// each once (the game keeps one definition per identifier).
pub fn client_entities(pack: &Pack) -> Vec<String> {
    let mut ids: Vec<String> = pack
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Client)
        .map(|e| e.identifier.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Identifiers of the attachables of a pack, sorted, each once.
pub fn attachables(pack: &Pack) -> Vec<String> {
    let mut ids: Vec<String> = pack
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Attachable)
        .map(|e| e.identifier.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// `description.min_engine_version` of an entity file as numbers (absent: 0.0.0).
fn entity_min_engine(pack: &Pack, e: &crate::pack::Entity) -> Vec<u32> {
    let text = pack.file_text(e.file);
    let Ok(tree) = parse_tree(&text) else {
        return Vec::new();
    };
    let v = tree
        .props()
        .iter()
        .find_map(|(_, v)| v.get("description"))
        .and_then(|d| d.get("min_engine_version"))
        .and_then(Tree::as_str)
        .unwrap_or("");
    v.split('.')
        .map(|p| p.trim().parse().unwrap_or(0))
        .collect()
}

/// The client entity or attachable `identifier` names. `pig` means `minecraft:pig` (the
/// game's default namespace); case is ignored. Of several definitions the game keeps one:
/// the highest `min_engine_version` (what a current game picks of the `v1.0` and newer files
/// Mojang ships side by side), and of equal ones the last loaded (a later pack overrides).
/// Client entities come before attachables of the same identifier.
pub fn find_entity<'p>(
    pack: &'p Pack,
    identifier: &str,
) -> Result<&'p crate::pack::Entity, LoadError> {
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
                entity_min_engine(pack, a)
                    .cmp(&entity_min_engine(pack, b))
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
    Err(LoadError(msg))
}

/// Like [`load_entity`] on an already loaded pack.
pub fn load_from_pack(pack: &Pack, identifier: &str) -> Result<Loaded, LoadError> {
    let entity = match find_entity(pack, identifier) {
        Ok(e) => e,
        Err(e) => {
            // The entity may be in a file that did not load: say so with its position.
            let wanted = identifier
                .rsplit(':')
                .next()
                .unwrap_or(identifier)
                .to_ascii_lowercase();
            let broken = pack.problems.iter().find(|p| {
                pack.files
                    .iter()
                    .find(|f| f.path == p.file)
                    .is_some_and(|f| f.source.to_ascii_lowercase().contains(&wanted))
            });
            return Err(match broken {
                Some(p) => LoadError(format!(
                    "{}:{}:{}: {} (the entity may be defined there)",
                    p.file.display(),
                    p.line,
                    p.column,
                    p.message
                )),
                None => e,
            });
        }
    };
    let mut trees: HashMap<usize, Tree> = HashMap::new();
    for (i, f) in pack.files.iter().enumerate() {
        if !matches!(
            f.kind,
            FileKind::ClientEntity
                | FileKind::Animation
                | FileKind::AnimationController
                | FileKind::Geometry
                | FileKind::RenderController
                | FileKind::Attachable
                | FileKind::Other
        ) {
            continue;
        }
        let text = pack.file_text(i);
        match parse_tree(&text) {
            Ok(t) => {
                trees.insert(i, t);
            }
            // The pack loader already reported it (see `file_problems`); the game drops the file.
            Err(_) => {}
        }
    }
    let mut source = ScriptSource::from_pack(pack, entity);
    // An attachable's `parent_setup` sets variables on its holder (the bow's
    // `v.charge_amount`, read by humanoid animations). Run alone, the attachable plays the
    // holder's part: it runs first in each frame, on the attachable's own variables.
    if entity.kind == EntityKind::Attachable {
        let setup = trees
            .get(&entity.file)
            .and_then(|t| t.get("minecraft:attachable"))
            .and_then(|t| t.get("description"))
            .and_then(|d| d.get("scripts"))
            .and_then(|s| s.get("parent_setup"));
        let text = match setup {
            Some(Tree::Str(s)) => Some(s.clone()),
            Some(Tree::Arr(a)) => Some(
                a.iter()
                    .filter_map(Tree::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        };
        if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
            source.pre_animation.insert(0, t);
        }
    }
    // The game sets these before the entity's scripts run (see `crate::engine_vars`).
    source
        .preset
        .extend(crate::engine_vars::for_entity(&entity.identifier).map(|e| e.name.to_string()));
    let version = source.version;
    let mut notes = Vec::new();
    let scripts = match EntityScripts::compile(&source) {
        Ok(s) => s,
        Err(diags) => {
            // The game refuses the entity's scripts: it still draws and animates the entity,
            // without them. Keep going with empty scripts and say why.
            for d in &diags {
                notes.push(format!(
                    "{}: {}[{}]: {} (the entity's scripts do not load)",
                    pack.files[entity.file].path.display(),
                    d.severity.as_str(),
                    d.code.as_str(),
                    d.message
                ));
            }
            EntityScripts::compile(&ScriptSource {
                version,
                ..ScriptSource::default()
            })
            .map_err(|_| LoadError("internal: empty scripts do not compile".into()))?
        }
    };
    for d in &scripts.warnings {
        notes.push(format!(
            "{}: {}[{}]: {}",
            pack.files[entity.file].path.display(),
            d.severity.as_str(),
            d.code.as_str(),
            d.message
        ));
    }
    let sites: HashMap<(usize, &str), SiteId> = pack
        .sites
        .iter()
        .enumerate()
        .map(|(i, s)| ((s.file, s.pointer.as_str()), i))
        .collect();
    let mut b = Builder {
        pack,
        trees: &trees,
        sites,
        scripts,
        notes,
        model: Model {
            identifier: entity.identifier.clone(),
            ..Model::default()
        },
        bone_index: HashMap::new(),
        anim_index: HashMap::new(),
        short_names: Vec::new(),
        legacy: Vec::new(),
        missing_geometry: Vec::new(),
    };
    let root_key = match entity.kind {
        EntityKind::Attachable => "minecraft:attachable",
        _ => "minecraft:client_entity",
    };
    let entity_tree = trees.get(&entity.file);
    let description = entity_tree
        .and_then(|t| t.get(root_key))
        .and_then(|t| t.get("description"));
    let pairs = |v: Option<&Tree>| -> Vec<(String, String)> {
        v.map(Tree::props)
            .unwrap_or(&[])
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect()
    };
    b.short_names = pairs(description.and_then(|d| d.get("animations")));
    // The 1.8.0 list `[{"move": "controller.animation.humanoid.move"}, ...]`: its own
    // namespace (see the module doc), played before `scripts.animate`.
    for e in description
        .and_then(|d| d.get("animation_controllers"))
        .map(Tree::elems)
        .unwrap_or(&[])
    {
        b.legacy.extend(pairs(Some(e)));
    }
    if let Some(geo) = description.and_then(|d| d.get("geometry")) {
        let name = geo
            .get("default")
            .or_else(|| geo.props().first().map(|(_, v)| v))
            .and_then(Tree::as_str);
        if let Some(name) = name {
            b.load_geometry(name);
        }
    }
    // The legacy list plays first (after the geometry is loaded: bones come from it).
    // A controller that `scripts.animate` plays too runs once (Mojang's zombie lists its
    // controllers in both; the game does not swing its legs twice as far).
    let animate_ids: Vec<String> = description
        .and_then(|d| d.get("scripts"))
        .and_then(|s| s.get("animate"))
        .map(Tree::elems)
        .unwrap_or(&[])
        .iter()
        .filter_map(|e| match e {
            Tree::Str(s) => Some(s.as_str()),
            Tree::Obj(p) => p.first().map(|(k, _)| k.as_str()),
            _ => None,
        })
        .filter_map(|short| {
            b.short_names
                .iter()
                .rev()
                .find(|(s, _)| s.eq_ignore_ascii_case(short))
                .map(|(_, id)| id.to_ascii_lowercase())
        })
        .collect();
    let legacy: Vec<(String, String)> = b
        .legacy
        .iter()
        .filter(|(_, id)| !animate_ids.contains(&id.to_ascii_lowercase()))
        .cloned()
        .collect();
    for (short, id) in &legacy {
        let node = b.node_for(short, Some(id.clone()), 0);
        b.model.animate.push((node, None));
    }
    // `animate` entries: names or {name: condition}, in order.
    let animate_ptr = ptr(
        &ptr(&ptr(&ptr("", root_key), "description"), "scripts"),
        "animate",
    );
    let animate = description
        .and_then(|d| d.get("scripts"))
        .and_then(|s| s.get("animate"))
        .map(|a| a.elems().to_vec())
        .unwrap_or_default();
    for (i, entry) in animate.iter().enumerate() {
        let p = ptr(&animate_ptr, &i.to_string());
        let (name, cond) = match entry {
            Tree::Str(s) => (s.clone(), None),
            Tree::Obj(props) if !props.is_empty() => {
                let (k, v) = &props[0];
                let label = format!("{} animate {k}", entity.identifier);
                (k.clone(), b.num(entity.file, &ptr(&p, k), v, &label))
            }
            _ => continue,
        };
        let node = b.node(&name, 0);
        b.model.animate.push((node, cond));
    }
    // `scripts.scale` and `scaleX/Y/Z` (any case): the entity's size.
    let scripts_ptr = ptr(&ptr(&ptr("", root_key), "description"), "scripts");
    for (k, v) in description
        .and_then(|d| d.get("scripts"))
        .map(Tree::props)
        .unwrap_or(&[])
    {
        let slot = match k.to_ascii_lowercase().as_str() {
            "scale" => 0,
            "scalex" => 1,
            "scaley" => 2,
            "scalez" => 3,
            _ => continue,
        };
        let label = format!("{} {k}", entity.identifier);
        b.model.scale[slot] = b.num(entity.file, &ptr(&scripts_ptr, k), v, &label);
    }
    // Render controllers, with the entity's resource maps.
    let map = |key: &str| -> Vec<(String, String)> {
        description
            .and_then(|d| d.get(key))
            .map(Tree::props)
            .unwrap_or(&[])
            .iter()
            .filter_map(|(k, v)| Some((k.to_ascii_lowercase(), v.as_str()?.to_string())))
            .collect()
    };
    let resources = [map("geometry"), map("textures"), map("materials")];
    let rc_ptr = ptr(
        &ptr(&ptr("", root_key), "description"),
        "render_controllers",
    );
    for (i, e) in description
        .and_then(|d| d.get("render_controllers"))
        .map(Tree::elems)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let (id, cond) = match e {
            Tree::Str(s) => (s.clone(), None),
            Tree::Obj(props) if !props.is_empty() => {
                let (k, v) = &props[0];
                let p = ptr(&ptr(&rc_ptr, &i.to_string()), k);
                let label = format!("{} render controller {k}", entity.identifier);
                (k.clone(), b.num(entity.file, &p, v, &label))
            }
            _ => continue,
        };
        if let Some(def) = b.render_controller(&id, cond, &resources) {
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
    for n in &b.model.nodes {
        if let PlayNode::Missing(m) = n {
            wanted.extend(m.split('`').skip(1).step_by(2).map(str::to_ascii_lowercase));
        }
    }
    wanted.extend(b.missing_geometry.iter().map(|g| g.to_ascii_lowercase()));
    for p in &pack.problems {
        let text = pack
            .files
            .iter()
            .find(|f| f.path == p.file)
            .map(|f| f.source.to_ascii_lowercase())
            .unwrap_or_default();
        if wanted
            .iter()
            .any(|w| !w.is_empty() && text.contains(w.as_str()))
        {
            return Err(LoadError(format!(
                "{}:{}:{}: {} (the entity may need this file)",
                p.file.display(),
                p.line,
                p.column,
                p.message
            )));
        }
        b.notes.push(format!(
            "note: {}:{}:{}: {} (the game skips this file; {} does not use it)",
            p.file.display(),
            p.line,
            p.column,
            p.message,
            entity.identifier
        ));
    }
    Ok(Loaded {
        model: b.model,
        scripts: b.scripts,
        notes: b.notes,
    })
}

struct Builder<'a> {
    pack: &'a Pack,
    trees: &'a HashMap<usize, Tree>,
    sites: HashMap<(usize, &'a str), SiteId>,
    scripts: EntityScripts,
    notes: Vec<String>,
    model: Model,
    /// Lower-case bone name → index.
    bone_index: HashMap<String, usize>,
    /// Animation id → index in `model.animations`.
    anim_index: HashMap<String, usize>,
    /// `description.animations`: the names `scripts.animate` and controller states use.
    short_names: Vec<(String, String)>,
    /// `description.animation_controllers` (1.8.0): short name → controller, played as roots.
    legacy: Vec<(String, String)>,
    /// Geometry identifiers the pack does not have.
    missing_geometry: Vec<String>,
}

impl Builder<'_> {
    fn path(&self, file: usize) -> PathBuf {
        self.pack.files[file].path.clone()
    }

    /// Compiles the Molang string at `pointer` of `file` (`text` when the pack has no site
    /// for it). Diagnostics become notes with the file, line and column.
    fn compile(
        &mut self,
        file: usize,
        pointer: &str,
        text: &str,
        label: &str,
    ) -> Option<crate::entity::ExprId> {
        let site = self.sites.get(&(file, pointer)).copied();
        let src = site
            .map_or(text, |s| self.pack.sites[s].text.as_str())
            .to_string();
        let (id, diags) = self.scripts.add_expression(&src, label);
        for d in diags {
            let at = match site {
                Some(s) => {
                    let (line, col) = self.pack.locate(&self.pack.sites[s], d.span.start as usize);
                    format!("{}:{line}:{col}", self.path(file).display())
                }
                None => format!("{} {pointer}", self.path(file).display()),
            };
            let consequence = if d.severity == Severity::Error && id.is_none() {
                " (the expression does not load; it reads 0)"
            } else {
                ""
            };
            self.notes.push(format!(
                "{at}: {}[{}]: {}{consequence}",
                d.severity.as_str(),
                d.code.as_str(),
                d.message
            ));
        }
        id
    }

    /// A number or Molang string; booleans read as 1/0, anything else is absent.
    fn num(&mut self, file: usize, pointer: &str, v: &Tree, label: &str) -> Option<Num> {
        match v {
            Tree::Num(n) => Some(Num::Const(*n as f32)),
            Tree::Bool(b) => Some(Num::Const(*b as u8 as f32)),
            Tree::Str(s) => {
                // A plain number in a string is the constant the engine folds it to.
                if let Ok(n) = s.trim().parse::<f32>() {
                    if s.trim()
                        .chars()
                        .all(|c| c.is_ascii_digit() || ".-+eE".contains(c))
                    {
                        return Some(Num::Const(n));
                    }
                }
                Some(match self.compile(file, pointer, s, label) {
                    Some(id) => Num::Expr(id),
                    None => Num::Const(0.0),
                })
            }
            // The `{"expression": "...", "version": n}` form of newer files.
            Tree::Obj(_) => {
                let e = v.get("expression")?;
                self.num(file, &ptr(pointer, "expression"), e, label)
            }
            _ => None,
        }
    }

    /// A script (string or array of strings, joined with "\n" as the pack loader does).
    fn script(
        &mut self,
        file: usize,
        pointer: &str,
        v: &Tree,
        label: &str,
    ) -> Option<crate::entity::ExprId> {
        let text = match v {
            Tree::Str(s) => s.clone(),
            Tree::Arr(a) => a
                .iter()
                .filter_map(Tree::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
            _ => return None,
        };
        if text.trim().is_empty() {
            return None;
        }
        self.compile(file, pointer, &text, label)
    }

    /// A channel value: number, string (all axes), `[x]`, or `[x, y, z]`.
    fn vec3(&mut self, file: usize, pointer: &str, v: &Tree, label: &str) -> Option<[Num; 3]> {
        match v {
            Tree::Arr(a) if a.len() == 1 => {
                let n = self.num(file, &ptr(pointer, "0"), &a[0], label)?;
                Some([n; 3])
            }
            Tree::Arr(a) => {
                let mut out = [Num::Const(0.0); 3];
                for (i, slot) in out.iter_mut().enumerate() {
                    if let Some(e) = a.get(i) {
                        let axis = ["x", "y", "z"][i];
                        *slot = self
                            .num(
                                file,
                                &ptr(pointer, &i.to_string()),
                                e,
                                &format!("{label}.{axis}"),
                            )
                            .unwrap_or(Num::Const(0.0));
                    }
                }
                Some(out)
            }
            _ => {
                let n = self.num(file, pointer, v, label)?;
                Some([n; 3])
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
        let mut found: Option<(usize, &Tree)> = None;
        // The definition the pack model kept (a later layer overrides an earlier one).
        let winner = self.pack.geometries_named(name).last().map(|g| g.file);
        'files: for (&file, tree) in self.trees.iter() {
            if winner.is_some_and(|w| w != file) {
                continue;
            }
            // minecraft:geometry (1.12.0+): an array of {description: {identifier}, bones}.
            if let Some(list) = tree.get("minecraft:geometry") {
                for g in list.elems() {
                    let id = g
                        .get("description")
                        .and_then(|d| d.get("identifier"))
                        .and_then(Tree::as_str);
                    if id.is_some_and(|id| id.eq_ignore_ascii_case(name)) {
                        found = Some((file, g));
                        break 'files;
                    }
                }
            }
            // Legacy 1.8.0 / 1.10.0: top-level "geometry.name" or "geometry.name:parent".
            for (k, g) in tree.props() {
                let id = k.split(':').next().unwrap_or(k);
                if id.eq_ignore_ascii_case(name) && g.get("bones").is_some() {
                    found = Some((file, g));
                    break 'files;
                }
            }
        }
        let Some((_, g)) = found else {
            self.missing_geometry.push(name.to_string());
            self.notes.push(format!(
                "geometry `{name}` is not in the pack; bones come from the animations and world positions ignore pivots"
            ));
            return;
        };
        let triple = |v: Option<&Tree>| -> [f32; 3] {
            let mut out = [0.0; 3];
            if let Some(v) = v {
                for (o, e) in out.iter_mut().zip(v.elems()) {
                    *o = e.as_num().unwrap_or(0.0) as f32;
                }
            }
            out
        };
        let mut parents: Vec<Option<String>> = Vec::new();
        for b in g.get("bones").map(Tree::elems).unwrap_or(&[]) {
            let Some(name) = b.get("name").and_then(Tree::as_str) else {
                continue;
            };
            let key = name.to_ascii_lowercase();
            if self.bone_index.contains_key(&key) {
                continue;
            }
            let mut locators = Vec::new();
            for (lname, l) in b.get("locators").map(Tree::props).unwrap_or(&[]) {
                // `[x, y, z]` or `{offset: [x, y, z], rotation: ...}`.
                let at = if l.get("offset").is_some() {
                    l.get("offset")
                } else {
                    Some(l)
                };
                locators.push((lname.clone(), triple(at)));
            }
            self.bone_index.insert(key, self.model.bones.len());
            self.model.bones.push(Bone {
                name: name.to_string(),
                parent: None,
                pivot: triple(b.get("pivot")),
                rotation: triple(b.get("rotation")),
                locators,
            });
            parents.push(
                b.get("parent")
                    .and_then(Tree::as_str)
                    .map(str::to_ascii_lowercase),
            );
        }
        for (i, p) in parents.iter().enumerate() {
            let parent = p.as_ref().and_then(|p| self.bone_index.get(p).copied());
            if p.is_some() && parent.is_none() {
                self.notes.push(format!(
                    "geometry `{name}`: bone `{}` names a parent that does not exist; it hangs from the root",
                    self.model.bones[i].name
                ));
            }
            self.model.bones[i].parent = parent.filter(|&q| q != i);
        }
        self.model.has_geometry = true;
        self.model.fk_order = fk_order(&mut self.model.bones);
    }

    /// One render controller (the last definition of `id` in the pack).
    fn render_controller(
        &mut self,
        id: &str,
        condition: Option<Num>,
        resources: &[Vec<(String, String)>; 3],
    ) -> Option<super::render::RenderDef> {
        use super::render::{split, RenderArray, RenderDef, Sel, SelText};
        let Some(rc) = self.pack.render_controllers_named(id).last() else {
            self.notes.push(format!(
                "render controller `{id}` is not in the pack; the entity is drawn without it"
            ));
            return None;
        };
        let file = rc.file;
        let tree = self
            .trees
            .get(&file)?
            .get("render_controllers")?
            .get(id)?
            .clone();
        let rp = ptr(&ptr("", "render_controllers"), id);
        let mut def = RenderDef {
            id: id.to_string(),
            condition,
            ..RenderDef::default()
        };
        // Arrays, flattened (an array may list another, declared before or after it).
        let mut raw: Vec<(String, Vec<String>)> = Vec::new();
        for (_, group) in tree.get("arrays").map(Tree::props).unwrap_or(&[]) {
            for (name, items) in group.props() {
                let items = items
                    .elems()
                    .iter()
                    .filter_map(Tree::as_str)
                    .map(str::to_string)
                    .collect();
                raw.push((name.to_ascii_lowercase(), items));
            }
        }
        fn flatten(raw: &[(String, Vec<String>)], i: usize, depth: usize, out: &mut Vec<String>) {
            for item in &raw[i].1 {
                let l = item.trim().to_ascii_lowercase();
                match raw.iter().position(|(n, _)| *n == l) {
                    Some(j) if depth < 8 => flatten(raw, j, depth + 1, out),
                    Some(_) => {}
                    None => out.push(item.trim().to_string()),
                }
            }
        }
        for i in 0..raw.len() {
            let mut items = Vec::new();
            flatten(&raw, i, 0, &mut items);
            def.arrays.push(RenderArray {
                name: raw[i].0.clone(),
                items,
            });
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
        for a in &mut def.arrays {
            for item in &mut a.items {
                *item = resolve(item);
            }
        }
        // A selector string to a `Sel`, compiling its numeric parts.
        fn sel(
            b: &mut Builder,
            def: &RenderDef,
            file: usize,
            p: &str,
            text: &str,
            label: &str,
            resolve: &dyn Fn(&str) -> String,
            depth: usize,
        ) -> Sel {
            let num = |b: &mut Builder, t: &str, what: &str| match b.compile(
                file,
                &format!("{p} ({what})"),
                t,
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
                            index: num(b, index, "index"),
                        },
                        None => {
                            b.notes.push(format!(
                                "{}: render controller `{}`: `{name}` is not one of its arrays; it selects nothing",
                                b.path(file).display(),
                                def.id
                            ));
                            Sel::Nothing
                        }
                    }
                }
                SelText::Cond(c, t, e) if depth < 32 => Sel::Cond {
                    cond: num(b, c, "condition"),
                    then: Box::new(sel(b, def, file, p, t, label, resolve, depth + 1)),
                    otherwise: Box::new(sel(b, def, file, p, e, label, resolve, depth + 1)),
                },
                _ => {
                    b.notes.push(format!(
                        "{}: render controller `{}`: `{}` is not a resource choice the runtime evaluates (Kind.name, Array.name[i], c ? a : b); it selects nothing",
                        b.path(file).display(),
                        def.id,
                        text.trim()
                    ));
                    Sel::Nothing
                }
            }
        }
        if let Some(g) = tree.get("geometry").and_then(Tree::as_str) {
            let label = format!("{id} geometry");
            def.geometry = Some(sel(
                self,
                &def,
                file,
                &ptr(&rp, "geometry"),
                g,
                &label,
                &resolve,
                0,
            ));
        }
        for (i, t) in tree
            .get("textures")
            .map(Tree::elems)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            if let Some(t) = t.as_str() {
                let label = format!("{id} textures[{i}]");
                let p = ptr(&ptr(&rp, "textures"), &i.to_string());
                let s = sel(self, &def, file, &p, t, &label, &resolve, 0);
                def.textures.push(s);
            }
        }
        for (i, m) in tree
            .get("materials")
            .map(Tree::elems)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            for (pattern, v) in m.props() {
                if let Some(t) = v.as_str() {
                    let label = format!("{id} materials {pattern}");
                    let p = ptr(&ptr(&ptr(&rp, "materials"), &i.to_string()), pattern);
                    let s = sel(self, &def, file, &p, t, &label, &resolve, 0);
                    def.materials.push((pattern.clone(), s));
                }
            }
        }
        for (i, m) in tree
            .get("part_visibility")
            .map(Tree::elems)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            for (pattern, v) in m.props() {
                let p = ptr(&ptr(&ptr(&rp, "part_visibility"), &i.to_string()), pattern);
                let label = format!("{id} part_visibility {pattern}");
                let n = self.num(file, &p, v, &label).unwrap_or(Num::Const(0.0));
                def.part_visibility.push((pattern.clone(), n));
            }
        }
        for (k, key) in ["color", "overlay_color", "is_hurt_color", "on_fire_color"]
            .iter()
            .enumerate()
        {
            let Some(c) = tree.get(key) else { continue };
            for (ch, name) in ["r", "g", "b", "a"].iter().enumerate() {
                if let Some(v) = c.get(name) {
                    let label = format!("{id} {key}.{name}");
                    def.colors[k][ch] = self.num(file, &ptr(&ptr(&rp, key), name), v, &label);
                }
            }
        }
        if let Some(uv) = tree.get("uv_anim") {
            let mut out = [None; 4];
            for (half, key) in ["offset", "scale"].iter().enumerate() {
                for (j, v) in uv
                    .get(key)
                    .map(Tree::elems)
                    .unwrap_or(&[])
                    .iter()
                    .take(2)
                    .enumerate()
                {
                    let label = format!("{id} uv_anim.{key}");
                    let p = ptr(&ptr(&ptr(&rp, "uv_anim"), key), &j.to_string());
                    out[half * 2 + j] = self.num(file, &p, v, &label);
                }
            }
            def.uv_anim = Some(out);
        }
        def.rebuild_animation_matrices = tree
            .get("rebuild_animation_matrices")
            .and_then(Tree::as_bool)
            == Some(true);
        Some(def)
    }

    /// The play node for a short name of the entity's `animations` map.
    /// Names resolve in `description.animations`; a name only the legacy controller list
    /// has resolves there (an `animate` entry naming a legacy controller).
    fn node(&mut self, short: &str, depth: usize) -> usize {
        let find = |list: &[(String, String)]| {
            list.iter()
                .rev()
                .find(|(s, _)| s.eq_ignore_ascii_case(short))
                .map(|(_, id)| id.clone())
        };
        let id = find(&self.short_names).or_else(|| find(&self.legacy));
        self.node_for(short, id, depth)
    }

    fn node_for(&mut self, short: &str, id: Option<String>, depth: usize) -> usize {
        let node = match id {
            None => PlayNode::Missing(format!("`{short}` is not in the entity's animations")),
            Some(id) => {
                // Client entities see resource-pack controllers only (the server has its own).
                if let Some(c) = self
                    .pack
                    .controllers_for(crate::pack::Side::Resource, &id)
                    .last()
                {
                    if depth >= MAX_NESTING {
                        PlayNode::Missing(format!(
                            "controller `{id}` nested deeper than {MAX_NESTING}"
                        ))
                    } else {
                        let file = c.file;
                        PlayNode::Controller(self.controller(file, &id, depth))
                    }
                } else if let Some(a) = self.animation(&id) {
                    PlayNode::Animation(a)
                } else {
                    PlayNode::Missing(format!("animation `{id}` ({short}) does not exist"))
                }
            }
        };
        self.model.nodes.push(node);
        self.model.nodes.len() - 1
    }

    fn animation(&mut self, id: &str) -> Option<usize> {
        if let Some(&i) = self.anim_index.get(id) {
            return Some(i);
        }
        // The last definition wins, as the game overrides by identifier.
        let file = self
            .pack
            .animations_for(crate::pack::Side::Resource, id)
            .last()?
            .file;
        let tree = self.trees.get(&file)?.get("animations")?.get(id)?.clone();
        let ap = ptr(&ptr("", "animations"), id);
        let mut def = AnimationDef {
            id: id.to_string(),
            length: 0.0,
            looping: LoopMode::Once,
            anim_time_update: None,
            blend_weight: None,
            override_previous: false,
            start_delay: None,
            loop_delay: None,
            tracks: Vec::new(),
            timeline: Vec::new(),
        };
        def.looping = match tree.get("loop") {
            Some(Tree::Bool(true)) => LoopMode::Loop,
            Some(Tree::Str(s)) if s == "hold_on_last_frame" => LoopMode::Hold,
            Some(Tree::Str(s)) if s == "true" => LoopMode::Loop,
            _ => LoopMode::Once,
        };
        def.override_previous = tree
            .get("override_previous_animation")
            .and_then(Tree::as_bool)
            == Some(true);
        for key in [
            "anim_time_update",
            "blend_weight",
            "start_delay",
            "loop_delay",
        ] {
            let Some(v) = tree.get(key) else { continue };
            let n = self.num(file, &ptr(&ap, key), v, &format!("{id} {key}"));
            match key {
                "anim_time_update" => def.anim_time_update = n,
                "blend_weight" => def.blend_weight = n,
                "start_delay" => def.start_delay = n,
                _ => def.loop_delay = n,
            }
        }
        let mut last_key = 0.0f32;
        let bones_ptr = ptr(&ap, "bones");
        for (bone, channels) in tree.get("bones").map(Tree::props).unwrap_or(&[]) {
            let Some(b) = self.bone(bone) else {
                self.notes.push(format!(
                    "{}: animation `{id}` animates bone `{bone}`, which the geometry does not have; ignored",
                    self.path(file).display()
                ));
                continue;
            };
            let bp = ptr(&bones_ptr, bone);
            let mut track = Track {
                bone: b,
                channels: [None, None, None],
            };
            for (ch, cv) in channels.props() {
                let idx = match ch.as_str() {
                    "rotation" => ROTATION,
                    "position" => POSITION,
                    "scale" => SCALE,
                    _ => continue,
                };
                let cp = ptr(&bp, ch);
                let label = format!("{id} {bone}.{ch}");
                let channel = match cv {
                    Tree::Obj(keys) if cv.get("expression").is_none() => {
                        let mut list = Vec::new();
                        for (time, kv) in keys {
                            let Ok(t) = time.trim().parse::<f32>() else {
                                self.notes.push(format!(
                                    "{}: animation `{id}` bone `{bone}` {ch}: keyframe time `{time}` is not a number; ignored",
                                    self.path(file).display()
                                ));
                                continue;
                            };
                            if !t.is_finite() {
                                continue;
                            }
                            let kp = ptr(&cp, time);
                            let klabel = format!("{label}@{time}");
                            let key = if let Tree::Obj(_) = kv {
                                let pre = kv
                                    .get("pre")
                                    .and_then(|v| self.vec3(file, &ptr(&kp, "pre"), v, &klabel));
                                let post = kv
                                    .get("post")
                                    .and_then(|v| self.vec3(file, &ptr(&kp, "post"), v, &klabel));
                                let lerp = match kv.get("lerp_mode").and_then(Tree::as_str) {
                                    Some("catmullrom") => Lerp::CatmullRom,
                                    Some("step") => Lerp::Step,
                                    _ => Lerp::Linear,
                                };
                                let (Some(pre), Some(post)) = (pre.or(post), post.or(pre)) else {
                                    continue;
                                };
                                Key {
                                    time: t,
                                    pre,
                                    post,
                                    lerp,
                                }
                            } else {
                                let Some(v) = self.vec3(file, &kp, kv, &klabel) else {
                                    continue;
                                };
                                Key {
                                    time: t,
                                    pre: v,
                                    post: v,
                                    lerp: Lerp::Linear,
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
                    _ => match self.vec3(file, &cp, cv, &label) {
                        Some(v) => Channel::Static(v),
                        None => continue,
                    },
                };
                track.channels[idx] = Some(channel);
            }
            def.tracks.push(track);
        }
        let tp = ptr(&ap, "timeline");
        for (time, script) in tree.get("timeline").map(Tree::props).unwrap_or(&[]) {
            let Ok(t) = time.trim().parse::<f32>() else {
                continue;
            };
            if let Some(e) = self.script(
                file,
                &ptr(&tp, time),
                script,
                &format!("{id} timeline@{time}"),
            ) {
                def.timeline.push((t, e));
            }
        }
        def.timeline.sort_by(|a, b| a.0.total_cmp(&b.0));
        def.length = match tree.get("animation_length").and_then(Tree::as_num) {
            Some(l) if l.is_finite() && l >= 0.0 => l as f32,
            _ => last_key,
        };
        let i = self.model.animations.len();
        self.model.animations.push(def);
        self.anim_index.insert(id.to_string(), i);
        Some(i)
    }

    fn controller(&mut self, file: usize, id: &str, depth: usize) -> ControllerDef {
        let empty = Tree::Null;
        let tree = self
            .trees
            .get(&file)
            .and_then(|t| t.get("animation_controllers"))
            .and_then(|t| t.get(id))
            .unwrap_or(&empty);
        let cp = ptr(&ptr(&ptr("", "animation_controllers"), id), "states");
        let states_tree = tree.get("states").map(Tree::props).unwrap_or(&[]);
        let names: Vec<String> = states_tree.iter().map(|(n, _)| n.clone()).collect();
        let mut states = Vec::new();
        for (name, st) in states_tree {
            let sp = ptr(&cp, name);
            let label = format!("{id} state {name}");
            let mut state = StateDef {
                name: name.clone(),
                animations: Vec::new(),
                transitions: Vec::new(),
                on_entry: None,
                on_exit: None,
                variables: Vec::new(),
                blend_transition: BlendTransition::None,
            };
            let ap = ptr(&sp, "animations");
            for (i, a) in st
                .get("animations")
                .map(Tree::elems)
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                let (short, blend) = match a {
                    Tree::Str(s) => (s.clone(), None),
                    Tree::Obj(props) if !props.is_empty() => {
                        let (k, v) = &props[0];
                        let p = ptr(&ptr(&ap, &i.to_string()), k);
                        (
                            k.clone(),
                            self.num(file, &p, v, &format!("{label} blend {k}")),
                        )
                    }
                    _ => continue,
                };
                let node = self.node(&short, depth + 1);
                state.animations.push((node, blend));
            }
            let tp = ptr(&sp, "transitions");
            for (i, t) in st
                .get("transitions")
                .map(Tree::elems)
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                for (target, cond) in t.props() {
                    let Some(ti) = names.iter().position(|n| n == target) else {
                        self.notes.push(format!(
                            "{}: controller `{id}` state `{name}`: transition to `{target}`, which is not a state; ignored",
                            self.path(file).display()
                        ));
                        continue;
                    };
                    let p = ptr(&ptr(&tp, &i.to_string()), target);
                    let c = self
                        .num(file, &p, cond, &format!("{label} transition {target}"))
                        .unwrap_or(Num::Const(0.0));
                    state.transitions.push((ti, c));
                }
            }
            if let Some(v) = st.get("on_entry") {
                state.on_entry =
                    self.script(file, &ptr(&sp, "on_entry"), v, &format!("{label} on_entry"));
            }
            if let Some(v) = st.get("on_exit") {
                state.on_exit =
                    self.script(file, &ptr(&sp, "on_exit"), v, &format!("{label} on_exit"));
            }
            let vp = ptr(&sp, "variables");
            for (var, def) in st.get("variables").map(Tree::props).unwrap_or(&[]) {
                let bare = var
                    .strip_prefix("variable.")
                    .or_else(|| var.strip_prefix("v."))
                    .unwrap_or(var)
                    .to_ascii_lowercase();
                let Some(input) = def.get("input") else {
                    continue;
                };
                let input = self
                    .num(
                        file,
                        &ptr(&ptr(&vp, var), "input"),
                        input,
                        &format!("{label} variable {bare}"),
                    )
                    .unwrap_or(Num::Const(0.0));
                let mut curve: Vec<(f32, f32)> = def
                    .get("remap_curve")
                    .map(Tree::props)
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|(k, v)| Some((k.trim().parse::<f32>().ok()?, v.as_num()? as f32)))
                    .collect();
                curve.sort_by(|a, b| a.0.total_cmp(&b.0));
                let slot = self.scripts.intern_variable(&bare);
                state.variables.push(StateVariable {
                    slot,
                    name: bare,
                    input,
                    curve,
                });
            }
            state.blend_transition = match st.get("blend_transition") {
                Some(Tree::Num(n)) if *n > 0.0 => BlendTransition::Seconds(*n as f32),
                Some(t @ Tree::Obj(_)) => {
                    let mut c: Vec<(f32, f32)> = t
                        .props()
                        .iter()
                        .filter_map(|(k, v)| {
                            Some((k.trim().parse::<f32>().ok()?, v.as_num()? as f32))
                        })
                        .collect();
                    c.sort_by(|a, b| a.0.total_cmp(&b.0));
                    if c.is_empty() {
                        BlendTransition::None
                    } else {
                        BlendTransition::Curve(c)
                    }
                }
                _ => BlendTransition::None,
            };
            states.push(state);
        }
        let initial_name = tree
            .get("initial_state")
            .and_then(Tree::as_str)
            .unwrap_or("default");
        let initial = names.iter().position(|n| n == initial_name).unwrap_or_else(|| {
            if !names.is_empty() {
                self.notes.push(format!(
                    "{}: controller `{id}`: initial state `{initial_name}` does not exist; starting in `{}`",
                    self.path(file).display(),
                    names[0]
                ));
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
fn fk_order(bones: &mut [Bone]) -> Vec<usize> {
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
