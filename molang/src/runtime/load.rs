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

/// Identifiers of the client entities of a pack (for `--bench` over a whole pack).
pub fn client_entities(pack: &Pack) -> Vec<String> {
    let mut ids: Vec<String> = pack
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Client)
        .map(|e| e.identifier.clone())
        .collect();
    ids.dedup();
    ids
}

/// Like [`load_entity`] on an already loaded pack.
pub fn load_from_pack(pack: &Pack, identifier: &str) -> Result<Loaded, LoadError> {
    // Broken JSON anywhere is bad input: the game would drop that file and the run would
    // silently differ from what the author expects.
    if let Some(p) = pack.problems.first() {
        return Err(LoadError(format!(
            "{}:{}:{}: {}",
            p.file.display(),
            p.line,
            p.column,
            p.message
        )));
    }
    let Some(entity) = pack
        .entities
        .iter()
        .find(|e| e.kind == EntityKind::Client && e.identifier.eq_ignore_ascii_case(identifier))
    else {
        let known = client_entities(pack);
        let mut msg = format!("no client entity `{identifier}` in the pack");
        if !known.is_empty() {
            msg.push_str(&format!(" (client entities: {})", known.join(", ")));
        }
        return Err(LoadError(msg));
    };
    let mut trees: HashMap<usize, Tree> = HashMap::new();
    for (i, f) in pack.files.iter().enumerate() {
        if !matches!(
            f.kind,
            FileKind::ClientEntity
                | FileKind::Animation
                | FileKind::AnimationController
                | FileKind::Geometry
                | FileKind::Other
        ) {
            continue;
        }
        let text = if f.source.is_empty() {
            std::fs::read_to_string(&f.path).unwrap_or_default()
        } else {
            f.source.clone()
        };
        match parse_tree(&text) {
            Ok(t) => {
                trees.insert(i, t);
            }
            Err(e) => {
                return Err(LoadError(format!(
                    "{}:{}:{}: {}",
                    f.path.display(),
                    e.line,
                    e.column,
                    e.message
                )))
            }
        }
    }
    let source = ScriptSource::from_pack(pack, entity);
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
        short_names: entity.animations.clone(),
    };
    let entity_tree = trees.get(&entity.file);
    let description = entity_tree
        .and_then(|t| t.get("minecraft:client_entity"))
        .and_then(|t| t.get("description"));
    if let Some(geo) = description.and_then(|d| d.get("geometry")) {
        let name = geo
            .get("default")
            .or_else(|| geo.props().first().map(|(_, v)| v))
            .and_then(Tree::as_str);
        if let Some(name) = name {
            b.load_geometry(name);
        }
    }
    // `animate` entries: names or {name: condition}, in order.
    let animate_ptr = ptr(
        &ptr(
            &ptr(&ptr("", "minecraft:client_entity"), "description"),
            "scripts",
        ),
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
    if !b.model.has_geometry {
        b.model.fk_order = (0..b.model.bones.len()).collect();
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
    short_names: Vec<(String, String)>,
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
        'files: for (&file, tree) in self.trees.iter() {
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

    /// The play node for a short name of the entity's `animations` map.
    fn node(&mut self, short: &str, depth: usize) -> usize {
        let id = self
            .short_names
            .iter()
            .rev()
            .find(|(s, _)| s.eq_ignore_ascii_case(short))
            .map(|(_, id)| id.clone());
        let node = match id {
            None => PlayNode::Missing(format!("`{short}` is not in the entity's animations")),
            Some(id) => {
                if let Some(c) = self.pack.controllers_named(&id).next() {
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
        let file = self.pack.animations_named(id).last()?.file;
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
