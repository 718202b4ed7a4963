//! Per-schema walkers: know which JSON fields of each file kind hold Molang, and record
//! sites plus the entity / animation / controller model. Field lists follow spec §7 and
//! the kinds and roles of `shared/corpus/README.md`.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use jsonc_parser::ast::{StringLit, Value};

use super::defs::{geometry_bones, plainly_not_molang, texture_size, variable_name, Reader};
use super::json::{as_str, elems, literal_layout, props, props_at, ptr, ptr_idx, range_of};
use super::{
    Animation, AnimationRef, Controller, ControllerState, Entity, EntityKind, FileKind, Geometry,
    Pack, Piece, PropertyDef, PropertyDefault, RenderController, Resource, Side, Site, SiteId,
    SiteKind,
};

/// What the walker learnt about a file besides its sites.
pub(crate) struct FileInfo {
    pub kind: FileKind,
    pub format_version: Option<String>,
    pub manifest_version: Option<[u32; 3]>,
}

/// `header.min_engine_version` of a manifest text: `[a, b, c]` or `"a.b.c"`.
pub(crate) fn manifest_version(text: &str) -> Option<[u32; 3]> {
    let root = super::json::parse(text).ok()??;
    header_version(&root)
}

/// Which side a manifest's modules are: `resources` is the client, `data` (and `script`)
/// the server; a manifest with both or neither says nothing.
pub(crate) fn manifest_side(text: &str) -> Side {
    let Some(root) = super::json::parse(text).ok().flatten() else {
        return Side::Any;
    };
    let (mut client, mut server) = (false, false);
    for (_, modules) in props(&root).filter(|(k, _)| *k == "modules") {
        for (_, m) in elems(modules) {
            for (_, t) in props(m).filter(|(k, _)| *k == "type") {
                match as_str(t).map(str::to_ascii_lowercase).as_deref() {
                    Some("resources") => client = true,
                    Some("data" | "script" | "javascript") => server = true,
                    _ => {}
                }
            }
        }
    }
    match (client, server) {
        (true, false) => Side::Resource,
        (false, true) => Side::Behaviour,
        _ => Side::Any,
    }
}

/// `"1.16.0"` as `[1, 16, 0]` (missing parts are 0).
fn dotted_version(s: &str) -> Option<[u32; 3]> {
    let mut out = [0u32; 3];
    let parts: Vec<&str> = s.trim().split('.').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    for (slot, p) in out.iter_mut().zip(parts) {
        *slot = p.trim().parse().ok()?;
    }
    Some(out)
}

fn header_version(root: &Value<'_>) -> Option<[u32; 3]> {
    let header = props(root)
        .filter(|(k, _)| *k == "header")
        .map(|(_, v)| v)
        .last()?;
    let v = props(header)
        .filter(|(k, _)| *k == "min_engine_version")
        .map(|(_, v)| v)
        .last()?;
    let mut out = [0u32; 3];
    match v {
        Value::Array(arr) => {
            if arr.elements.len() != 3 {
                return None;
            }
            for (slot, e) in out.iter_mut().zip(&arr.elements) {
                *slot = match e {
                    Value::NumberLit(n) => n.value.parse().ok()?,
                    _ => return None,
                };
            }
        }
        Value::StringLit(s) => {
            let parts: Vec<&str> = s.value.split('.').collect();
            if parts.len() != 3 {
                return None;
            }
            for (slot, p) in out.iter_mut().zip(parts) {
                *slot = p.trim().parse().ok()?;
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Walks one parsed file, adding its sites and model entries, typed parts included, to
/// `pack`; geometry cubes only when `cubes` (see [`super::Limits::geometry_cubes`]).
pub(crate) fn file(
    pack: &mut Pack,
    file: usize,
    path: &Path,
    src: &str,
    root: &Value<'_>,
    cubes: bool,
) -> FileInfo {
    let format_version =
        props(root)
            .find(|(k, _)| *k == "format_version")
            .and_then(|(_, v)| match v {
                Value::StringLit(s) => Some(s.value.to_string()),
                Value::NumberLit(n) => Some(n.value.to_string()),
                _ => None,
            });
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if name == "manifest.json" {
        return FileInfo {
            kind: FileKind::Manifest,
            format_version,
            manifest_version: header_version(root),
        };
    }
    let mut cx = Cx {
        file,
        src,
        pack,
        cubes,
    };
    let mut kind = None;
    for (key, value) in props(root) {
        let p = ptr("", key);
        // The top-level key says the schema; the first such key, the file's kind.
        let schema = match key {
            "minecraft:client_entity" => FileKind::ClientEntity,
            "minecraft:attachable" => FileKind::Attachable,
            "minecraft:entity" => FileKind::BehaviourEntity,
            "animations" => FileKind::Animation,
            "animation_controllers" => FileKind::AnimationController,
            "render_controllers" => FileKind::RenderController,
            "particle_effect" => FileKind::Particle,
            "minecraft:geometry" => FileKind::Geometry,
            "minecraft:item" => FileKind::Item,
            "minecraft:biome" => FileKind::Biome,
            "entity_sounds" if name == "sounds.json" => FileKind::Sounds,
            // Legacy (1.8.0 / 1.10.0) geometry: the file stays `Other` (no Molang in it),
            // but its bones are recorded for the animation-bone check.
            k if k.to_ascii_lowercase().starts_with("geometry.") => {
                cx.legacy_geometry(k, value);
                continue;
            }
            _ => continue,
        };
        kind.get_or_insert(schema);
        match schema {
            FileKind::ClientEntity => cx.client_entity(value, &p, EntityKind::Client),
            FileKind::Attachable => cx.client_entity(value, &p, EntityKind::Attachable),
            FileKind::BehaviourEntity => cx.behaviour_entity(value, &p),
            FileKind::Animation => cx.animations(value, &p),
            FileKind::AnimationController => cx.controllers(value, &p),
            FileKind::RenderController => cx.render_controllers(value, &p),
            FileKind::Particle => cx.particle(value, &p),
            FileKind::Geometry => cx.geometry(value, &p),
            FileKind::Item | FileKind::Biome => {
                let (role, fields) = match schema {
                    FileKind::Item => ("item", ITEM_FIELDS),
                    _ => ("biome", BIOME_FIELDS),
                };
                let mut sink = Vec::new();
                for (k, v) in props(value).filter(|(k, _)| *k == "components") {
                    cx.components(v, &ptr(&p, k), role, fields, &mut sink);
                }
            }
            FileKind::Sounds => cx.sound_variants(value, &p),
            _ => {}
        }
    }
    FileInfo {
        kind: kind.unwrap_or(FileKind::Other),
        format_version,
        manifest_version: None,
    }
}

/// A bare word such as an enum value (`"warm"`), as opposed to an expression.
fn bare_word(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Roles built from JSON keys (particle components, unknown `scripts` keys) are interned
/// so `Site::role` can stay `&'static str`; each distinct role leaks once.
fn intern(role: String) -> &'static str {
    static ROLES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = ROLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(r) = set.get(role.as_str()) {
        return r;
    }
    let r: &'static str = Box::leak(role.into_boxed_str());
    set.insert(r);
    r
}

struct Cx<'p, 's> {
    file: usize,
    src: &'s str,
    pack: &'p mut Pack,
    cubes: bool,
}

impl Cx<'_, '_> {
    /// A reader of the typed part of the definition whose sites start at `first`.
    fn reader(&self, first: usize) -> Reader<'_> {
        Reader::new(&self.pack.sites, first)
    }

    fn piece(&self, lit: &StringLit<'_>, entry: Option<(u32, bool)>, at: usize) -> Piece {
        let (json, escapes) = literal_layout(self.src, lit);
        Piece {
            text: at..at + lit.value.len(),
            entry,
            json,
            escapes,
        }
    }

    fn push(
        &mut self,
        pointer: String,
        kind: SiteKind,
        role: &'static str,
        stmts: bool,
        text: String,
        pieces: Vec<Piece>,
    ) -> SiteId {
        self.pack.sites.push(Site {
            file: self.file,
            pointer,
            kind,
            role,
            text,
            is_statements: stmts,
            pieces,
            expression_version: None,
        });
        self.pack.sites.len() - 1
    }

    /// A site for one JSON string (or `{"expression": .., "version": ..}` wrapper), unless it
    /// is plainly not Molang. Numbers, booleans and other values give nothing: a JSON number
    /// in a Molang slot is a constant.
    fn string(
        &mut self,
        value: &Value<'_>,
        pointer: String,
        kind: SiteKind,
        role: &'static str,
        stmts: bool,
    ) -> Option<SiteId> {
        let (lit, pointer, version) = match value {
            Value::StringLit(lit) => (lit, pointer, None),
            _ => {
                let (lit, version) = wrapped(value)?;
                (lit, ptr(&pointer, "expression"), version)
            }
        };
        if plainly_not_molang(&lit.value) {
            return None;
        }
        let piece = self.piece(lit, None, 0);
        let id = self.push(
            pointer,
            kind,
            role,
            stmts,
            lit.value.to_string(),
            vec![piece],
        );
        self.pack.sites[id].expression_version = version;
        Some(id)
    }

    /// A script slot: one string, or an array of strings joined with `"\n"` into one
    /// program (vanilla splits single statements across entries). The site's pointer is the
    /// string's when only one entry is Molang, else the array's.
    fn script(
        &mut self,
        value: &Value<'_>,
        pointer: &str,
        kind: SiteKind,
        role: &'static str,
        stmts: bool,
    ) -> Option<SiteId> {
        let Value::Array(arr) = value else {
            return self.string(value, pointer.to_string(), kind, role, stmts);
        };
        let mut text = String::new();
        let mut pieces: Vec<Piece> = Vec::new();
        let mut version = None;
        for (i, e) in arr.elements.iter().enumerate() {
            let (lit, in_wrapper) = match e {
                Value::StringLit(lit) => (lit, false),
                _ => match wrapped(e) {
                    Some((lit, v)) => {
                        version = version.or(v);
                        (lit, true)
                    }
                    None => continue,
                },
            };
            if plainly_not_molang(&lit.value) {
                continue;
            }
            if !pieces.is_empty() {
                text.push('\n');
            }
            // Entry pointers are built when asked for (`Site::piece_pointer`): a script
            // array of a million entries would otherwise hold a million pointers.
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            pieces.push(self.piece(lit, Some((index, in_wrapper)), text.len()));
            text.push_str(&lit.value);
        }
        let site_ptr = match pieces.len() {
            0 => return None,
            1 => {
                let (index, in_wrapper) = pieces[0].entry.take().unwrap_or_default();
                let p = ptr_idx(pointer, index as usize);
                if in_wrapper {
                    ptr(&p, "expression")
                } else {
                    p
                }
            }
            _ => pointer.to_string(),
        };
        let id = self.push(site_ptr, kind, role, stmts, text, pieces);
        self.pack.sites[id].expression_version = version;
        Some(id)
    }

    /// Every string inside `value`, through arrays (vectors such as `[x, y, z]`).
    fn strings(
        &mut self,
        value: &Value<'_>,
        pointer: &str,
        kind: SiteKind,
        role: &'static str,
        out: &mut Vec<SiteId>,
    ) {
        match value {
            Value::NumberLit(_) | Value::BooleanLit(_) | Value::NullKeyword(_) => {}
            Value::Array(_) => {
                for (i, e) in elems(value) {
                    self.strings(e, &ptr_idx(pointer, i), kind, role, out);
                }
            }
            _ => out.extend(self.string(value, pointer.to_string(), kind, role, false)),
        }
    }

    // ---- client entities and attachables -------------------------------------------------

    fn client_entity(&mut self, value: &Value<'_>, pointer: &str, kind: EntityKind) {
        let prefix = if kind == EntityKind::Attachable {
            "attachable"
        } else {
            "client_entity"
        };
        for (dk, desc) in props(value).filter(|(k, _)| *k == "description") {
            let dp = ptr(pointer, dk);
            let first = self.pack.sites.len();
            let mut entity = Entity {
                file: self.file,
                kind,
                ..Entity::default()
            };
            for (key, v) in props(desc) {
                let p = ptr(&dp, key);
                match key {
                    "identifier" => entity.identifier = as_str(v).unwrap_or_default().to_string(),
                    "min_engine_version" => {
                        entity.min_engine_version = as_str(v).and_then(dotted_version)
                    }
                    "scripts" => self.scripts(v, &p, prefix, &mut entity),
                    "animations" => short_names_at(v, &mut entity.animations),
                    "geometry" => resources(v, &mut entity.geometries),
                    "textures" => resources(v, &mut entity.textures),
                    "materials" => resources(v, &mut entity.materials),
                    // Older (1.8.0) files list controllers to run as `[{"short": "id"}]`.
                    "animation_controllers" => {
                        for (_, e) in elems(v) {
                            for (short, at, id) in props_at(e) {
                                let Some(id) = as_str(id) else { continue };
                                entity.animations.push(AnimationRef {
                                    short: short.to_string(),
                                    id: id.to_string(),
                                    at,
                                    legacy: true,
                                });
                            }
                        }
                    }
                    "render_controllers" => {
                        for (i, e) in elems(v) {
                            let ep = ptr_idx(&p, i);
                            for (id, cond) in props(e) {
                                let role = intern(format!("{prefix}.render_controller_condition"));
                                entity.other_sites.extend(self.string(
                                    cond,
                                    ptr(&ep, id),
                                    SiteKind::Render,
                                    role,
                                    false,
                                ));
                            }
                        }
                    }
                    "item" if kind == EntityKind::Attachable => {
                        for (item, cond) in props(v) {
                            let s = self.string(
                                cond,
                                ptr(&p, item),
                                SiteKind::Other,
                                "attachable.item_condition",
                                false,
                            );
                            entity.other_sites.extend(s);
                        }
                    }
                    _ => {}
                }
            }
            let attachable = kind == EntityKind::Attachable;
            let reader = self.reader(first);
            entity.animate = reader.animate(desc, &dp);
            entity.render_controllers = reader.render_controllers(desc, &dp);
            let client = reader.client(desc, &dp, attachable);
            entity.client = Some(Box::new(client));
            self.pack.entities.push(entity);
        }
    }

    fn scripts(&mut self, scripts: &Value<'_>, pointer: &str, prefix: &str, entity: &mut Entity) {
        for (key, v) in props(scripts) {
            let p = ptr(pointer, key);
            let lower = key.to_ascii_lowercase();
            let role = intern(format!("{prefix}.scripts.{lower}"));
            match lower.as_str() {
                "initialize" => {
                    let s = self.script(v, &p, SiteKind::Initialize, role, true);
                    keep_first(&mut entity.initialize, s, &mut entity.other_sites);
                }
                "pre_animation" => {
                    let s = self.script(v, &p, SiteKind::PreAnimation, role, true);
                    if entity.pre_animation.is_none() {
                        if let Some(id) = s {
                            entity.pre_animation_entries = self.pack.sites[id]
                                .pieces
                                .iter()
                                .map(|pc| (pc.text.start, pc.text.end))
                                .collect();
                        }
                    }
                    keep_first(&mut entity.pre_animation, s, &mut entity.other_sites);
                }
                "parent_setup" => {
                    entity.other_sites.extend(self.script(
                        v,
                        &p,
                        SiteKind::PreAnimation,
                        role,
                        true,
                    ));
                }
                "animate" => {
                    let role = intern(format!("{prefix}.scripts.animate"));
                    self.animate_list(v, &p, role, &mut entity.animate_sites);
                }
                "variables" => {
                    for (name, access) in props(v) {
                        if as_str(access).is_some_and(|a| a.eq_ignore_ascii_case("public")) {
                            entity.public_variables.push(variable_name(name));
                        }
                    }
                }
                // `scale`, `scaleX`..., `should_update_*_offscreen`, `hide_held_items`, and any
                // newer string-valued script: each is one value.
                _ => entity
                    .other_sites
                    .extend(self.string(v, p, SiteKind::Other, role, false)),
            }
        }
    }

    /// The blend sites of `["name", {"name": "blend expr"}, ...]` as used by
    /// `scripts.animate` and controller states (the names are read by
    /// [`Reader::named_list`]).
    fn animate_list(
        &mut self,
        v: &Value<'_>,
        pointer: &str,
        role: &'static str,
        sites: &mut Vec<SiteId>,
    ) {
        for (i, e) in elems(v) {
            for (name, blend) in props(e) {
                let s = self.string(
                    blend,
                    ptr(&ptr_idx(pointer, i), name),
                    SiteKind::AnimateCondition,
                    role,
                    false,
                );
                sites.extend(s);
            }
        }
    }

    // ---- behaviour entities, items, biomes, sounds, geometry ------------------------------

    fn behaviour_entity(&mut self, value: &Value<'_>, pointer: &str) {
        let first = self.pack.sites.len();
        let mut entity = Entity {
            file: self.file,
            kind: EntityKind::Behaviour,
            ..Entity::default()
        };
        // Property types decide whether a bare word given to a property is an enum value.
        let mut property_types: Vec<(String, String)> = Vec::new();
        for (_, desc) in props(value).filter(|(k, _)| *k == "description") {
            for (_, properties) in props(desc).filter(|(k, _)| *k == "properties") {
                for (name, def) in props(properties) {
                    let ty = props(def)
                        .find(|(k, _)| *k == "type")
                        .and_then(|(_, t)| as_str(t))
                        .unwrap_or("");
                    property_types.push((name.to_string(), ty.to_string()));
                }
            }
        }
        for (key, v) in props(value) {
            let p = ptr(pointer, key);
            match key {
                "description" => {
                    for (dk, dv) in props(v) {
                        let dp = ptr(&p, dk);
                        match dk {
                            "identifier" => {
                                entity.identifier = as_str(dv).unwrap_or_default().to_string()
                            }
                            "animations" => short_names_at(dv, &mut entity.animations),
                            "scripts" => {
                                for (sk, sv) in props(dv).filter(|(k, _)| *k == "animate") {
                                    self.animate_list(
                                        sv,
                                        &ptr(&dp, sk),
                                        "entity.scripts.animate",
                                        &mut entity.animate_sites,
                                    );
                                }
                            }
                            "properties" => {
                                entity.properties = property_defs(dv, &property_types);
                                for (name, def) in props(dv) {
                                    for (_, default) in props(def).filter(|(k, _)| *k == "default")
                                    {
                                        let molang = as_str(default).is_some_and(|d| {
                                            property_value_is_molang(
                                                d,
                                                type_of(&property_types, name),
                                            )
                                        });
                                        if molang {
                                            let s = self.string(
                                                default,
                                                ptr(&ptr(&dp, name), "default"),
                                                SiteKind::Other,
                                                "entity.property_default",
                                                false,
                                            );
                                            entity.other_sites.extend(s);
                                        }
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "components" => {
                    self.components(v, &p, "entity", ENTITY_FIELDS, &mut entity.other_sites)
                }
                "component_groups" => {
                    for (group, comps) in props(v) {
                        self.components(
                            comps,
                            &ptr(&p, group),
                            "entity",
                            ENTITY_FIELDS,
                            &mut entity.other_sites,
                        );
                    }
                }
                "events" => self.set_properties(v, &p, &property_types, &mut entity.other_sites),
                _ => {}
            }
        }
        let desc = props(value).filter(|(k, _)| *k == "description").last();
        if let Some((dk, desc)) = desc {
            entity.animate = self.reader(first).animate(desc, &ptr(pointer, dk));
        }
        self.pack.entities.push(entity);
    }

    /// Walks a `components` object: strings at a known `(component, field path)` are Molang,
    /// and so is a string `tags` field (an item descriptor's tag expression).
    fn components(
        &mut self,
        comps: &Value<'_>,
        pointer: &str,
        schema: &str,
        fields: &[(&str, &str)],
        out: &mut Vec<SiteId>,
    ) {
        for (name, body) in props(comps) {
            let short = name.strip_prefix("minecraft:").unwrap_or(name);
            self.component_fields(body, &ptr(pointer, name), schema, short, "", fields, out);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn component_fields(
        &mut self,
        v: &Value<'_>,
        pointer: &str,
        schema: &str,
        comp: &str,
        path: &str,
        fields: &[(&str, &str)],
        out: &mut Vec<SiteId>,
    ) {
        match v {
            Value::Object(_) if wrapped(v).is_none() => {
                for (k, child) in props(v) {
                    let child_path = if path.is_empty() {
                        k.to_string()
                    } else {
                        format!("{path}.{k}")
                    };
                    let p = ptr(pointer, k);
                    if k == "tags"
                        && (matches!(child, Value::StringLit(_)) || wrapped(child).is_some())
                    {
                        let role = intern(format!("{schema}.item_descriptor.tags"));
                        out.extend(self.string(child, p, SiteKind::Other, role, false));
                        continue;
                    }
                    self.component_fields(child, &p, schema, comp, &child_path, fields, out);
                }
            }
            Value::Array(_) => {
                for (i, e) in elems(v) {
                    self.component_fields(e, &ptr_idx(pointer, i), schema, comp, path, fields, out);
                }
            }
            Value::StringLit(_) | Value::Object(_)
                if fields.iter().any(|(c, f)| *c == comp && *f == path) =>
            {
                let role = intern(format!("{schema}.{comp}.{path}"));
                out.extend(self.string(v, pointer.to_string(), SiteKind::Other, role, false));
            }
            _ => {}
        }
    }

    /// `set_property` objects anywhere under `events` (also inside `sequence` / `randomize`).
    fn set_properties(
        &mut self,
        v: &Value<'_>,
        pointer: &str,
        types: &[(String, String)],
        out: &mut Vec<SiteId>,
    ) {
        for (k, child) in props(v) {
            let p = ptr(pointer, k);
            if k == "set_property" {
                for (name, value) in props(child) {
                    if as_str(value)
                        .is_some_and(|s| property_value_is_molang(s, type_of(types, name)))
                    {
                        out.extend(self.string(
                            value,
                            ptr(&p, name),
                            SiteKind::Other,
                            "entity.event.set_property",
                            false,
                        ));
                    }
                }
            } else {
                self.set_properties(child, &p, types, out);
            }
        }
        for (i, e) in elems(v) {
            self.set_properties(e, &ptr_idx(pointer, i), types, out);
        }
    }

    fn sound_variants(&mut self, v: &Value<'_>, pointer: &str) {
        for (k, child) in props(v) {
            let p = ptr(pointer, k);
            if k == "variants" {
                for (_, key) in props(child).filter(|(vk, _)| *vk == "key") {
                    self.string(
                        key,
                        ptr(&p, "key"),
                        SiteKind::Other,
                        "sounds.variant_key",
                        false,
                    );
                }
            } else {
                self.sound_variants(child, &p);
            }
        }
    }

    fn geometry(&mut self, v: &Value<'_>, pointer: &str) {
        for (i, geo) in elems(v) {
            let gp = ptr_idx(pointer, i);
            let identifier = props(geo)
                .filter(|(k, _)| *k == "description")
                .flat_map(|(_, d)| props(d).filter(|(k, _)| *k == "identifier"))
                .filter_map(|(_, id)| as_str(id))
                .last();
            if let Some(identifier) = identifier {
                let mut g = self.record_geometry(identifier, geo);
                let desc = props(geo).filter(|(k, _)| *k == "description").last();
                g.texture_size =
                    texture_size(desc.map(|(_, d)| d), "texture_width", "texture_height");
                self.pack.geometries.push(g);
            }
            for (_, bones) in props(geo).filter(|(k, _)| *k == "bones") {
                for (j, bone) in elems(bones) {
                    for (_, binding) in props(bone).filter(|(k, _)| *k == "binding") {
                        let p = ptr(&ptr_idx(&ptr(&gp, "bones"), j), "binding");
                        self.string(binding, p, SiteKind::Other, "geometry.bone_binding", false);
                    }
                }
            }
        }
    }

    fn legacy_geometry(&mut self, key: &str, geo: &Value<'_>) {
        if matches!(geo, Value::Object(_)) {
            let mut g = self.record_geometry(key, geo);
            g.legacy = true;
            g.texture_size = texture_size(Some(geo), "texturewidth", "textureheight");
            self.pack.geometries.push(g);
        }
    }

    /// A geometry model entry with its bones; `name` may carry `:parent`.
    fn record_geometry(&self, name: &str, geo: &Value<'_>) -> Geometry {
        let (id, parent) = match name.split_once(':') {
            Some((id, parent)) => (id.trim(), Some(parent.trim().to_string())),
            None => (name.trim(), None),
        };
        let mut bones = Vec::new();
        for (_, list) in props(geo).filter(|(k, _)| *k == "bones") {
            for (_, bone) in elems(list) {
                for (_, n) in props(bone).filter(|(k, _)| *k == "name") {
                    bones.extend(as_str(n).map(str::to_string));
                }
            }
        }
        let rig = props(geo).filter(|(k, _)| *k == "bones").last();
        Geometry {
            file: self.file,
            id: id.to_string(),
            parent,
            bones,
            rig: rig.map(|(_, b)| geometry_bones(b, self.cubes)),
            ..Geometry::default()
        }
    }

    // ---- animations -----------------------------------------------------------------------

    fn animations(&mut self, v: &Value<'_>, pointer: &str) {
        for (id, anim) in props(v) {
            let ap = ptr(pointer, id);
            let first = self.pack.sites.len();
            let mut out = Animation {
                file: self.file,
                id: id.to_string(),
                ..Animation::default()
            };
            for (key, field) in props(anim) {
                let p = ptr(&ap, key);
                match key {
                    "anim_time_update" | "start_delay" | "loop_delay" | "blend_weight" => {
                        let role = intern(format!("animation.{key}"));
                        out.sites
                            .extend(self.string(field, p, SiteKind::Other, role, false));
                    }
                    "bones" => {
                        for (bone, at, channels) in props_at(field) {
                            out.bones.push((bone.to_string(), at));
                            let bp = ptr(&p, bone);
                            for (ch, cv) in props(channels) {
                                let role = match ch {
                                    "rotation" => "animation.bone.rotation",
                                    "position" => "animation.bone.position",
                                    "scale" => "animation.bone.scale",
                                    _ => continue,
                                };
                                self.channel(cv, &ptr(&bp, ch), role, &mut out.sites);
                            }
                        }
                    }
                    "timeline" => {
                        for (time, entry) in props(field) {
                            let s = self.script(
                                entry,
                                &ptr(&p, time),
                                SiteKind::Other,
                                "animation.timeline",
                                true,
                            );
                            out.sites.extend(s);
                            out.timeline.extend(s);
                        }
                    }
                    "particle_effects" => {
                        for (time, effects) in props(field) {
                            self.pre_effect_scripts(
                                effects,
                                &ptr(&p, time),
                                "animation.particle_effects.pre_effect_script",
                                &mut out.sites,
                            );
                        }
                    }
                    _ => {}
                }
            }
            out.data = self.reader(first).animation(anim, &ap);
            self.pack.animations.push(out);
        }
    }

    /// Channel data: a value, `[x, y, z]`, per-axis objects, or keyframes keyed by time with
    /// optional `pre` / `post`; `lerp_mode` is an enum, not Molang.
    fn channel(&mut self, v: &Value<'_>, pointer: &str, role: &'static str, out: &mut Vec<SiteId>) {
        match v {
            // Most channel values are numbers: no site, so no pointer to build.
            Value::NumberLit(_) | Value::BooleanLit(_) | Value::NullKeyword(_) => {}
            Value::Array(_) => {
                for (i, e) in elems(v).filter(|(_, e)| !is_scalar(e)) {
                    self.channel(e, &ptr_idx(pointer, i), role, out);
                }
            }
            Value::Object(_) if wrapped(v).is_none() => {
                for (k, child) in props(v).filter(|(k, c)| *k != "lerp_mode" && !is_scalar(c)) {
                    self.channel(child, &ptr(pointer, k), role, out);
                }
            }
            _ => out.extend(self.string(v, pointer.to_string(), SiteKind::Channel, role, false)),
        }
    }

    /// `pre_effect_script` of one effect object or of each in an array.
    fn pre_effect_scripts(
        &mut self,
        v: &Value<'_>,
        pointer: &str,
        role: &'static str,
        out: &mut Vec<SiteId>,
    ) {
        for (i, e) in elems(v) {
            self.pre_effect_scripts(e, &ptr_idx(pointer, i), role, out);
        }
        for (k, script) in props(v).filter(|(k, _)| *k == "pre_effect_script") {
            out.extend(self.string(script, ptr(pointer, k), SiteKind::Particle, role, true));
        }
    }

    // ---- animation controllers --------------------------------------------------------------

    fn controllers(&mut self, v: &Value<'_>, pointer: &str) {
        for (id, at, ctrl) in props_at(v) {
            let cp = ptr(pointer, id);
            let mut out = Controller {
                file: self.file,
                id: id.to_string(),
                at,
                ..Controller::default()
            };
            for (key, field) in props(ctrl) {
                match key {
                    "initial_state" => {
                        out.initial_state = as_str(field).map(str::to_string);
                        out.initial_state_at = Some(range_of(field));
                    }
                    "states" => {
                        for (name, at, state) in props_at(field) {
                            let sp = ptr(&ptr(&cp, key), name);
                            let first = self.pack.sites.len();
                            let mut s = self.state(name, state, &sp);
                            s.data = self.reader(first).state(state, &sp);
                            s.at = at;
                            out.sites.extend(&s.sites);
                            out.states.push(s);
                        }
                    }
                    _ => {}
                }
            }
            self.pack.controllers.push(out);
        }
    }

    fn state(&mut self, name: &str, state: &Value<'_>, pointer: &str) -> ControllerState {
        let mut out = ControllerState {
            name: name.to_string(),
            ..ControllerState::default()
        };
        for (key, field) in props(state) {
            let p = ptr(pointer, key);
            match key {
                "animations" => {
                    let role = "controller.state_animation_weight";
                    self.animate_list(field, &p, role, &mut out.sites);
                }
                "transitions" => {
                    for (i, t) in elems(field) {
                        for (target, cond) in props(t) {
                            let s = self.string(
                                cond,
                                ptr(&ptr_idx(&p, i), target),
                                SiteKind::Transition,
                                "controller.transition",
                                false,
                            );
                            out.sites.extend(s);
                        }
                    }
                }
                "on_entry" | "on_exit" => {
                    let role = if key == "on_entry" {
                        "controller.on_entry"
                    } else {
                        "controller.on_exit"
                    };
                    let s = self.script(field, &p, SiteKind::OnEntry, role, true);
                    out.sites.extend(s);
                }
                "variables" => {
                    for (var, def) in props(field) {
                        for (_, input) in props(def).filter(|(k, _)| *k == "input") {
                            let site = self.string(
                                input,
                                ptr(&ptr(&p, var), "input"),
                                SiteKind::Other,
                                "controller.variables.input",
                                false,
                            );
                            out.sites.extend(site);
                        }
                    }
                }
                "particle_effects" => {
                    self.pre_effect_scripts(
                        field,
                        &p,
                        "controller.particle_effects.pre_effect_script",
                        &mut out.sites,
                    );
                }
                _ => {}
            }
        }
        out
    }

    // ---- render controllers -----------------------------------------------------------------

    fn render_controllers(&mut self, v: &Value<'_>, pointer: &str) {
        for (id, rc) in props(v) {
            let rp = ptr(pointer, id);
            let first = self.pack.sites.len();
            let mut out = RenderController {
                file: self.file,
                id: id.to_string(),
                sites: Vec::new(),
                arrays: Vec::new(),
                data: Default::default(),
            };
            for (key, field) in props(rc) {
                let p = ptr(&rp, key);
                match key {
                    "geometry" => out.sites.extend(self.string(
                        field,
                        p,
                        SiteKind::Render,
                        "render.geometry",
                        false,
                    )),
                    "light_color_multiplier" => {
                        out.sites.extend(self.string(
                            field,
                            p,
                            SiteKind::Render,
                            "render.light_color_multiplier",
                            false,
                        ));
                    }
                    "textures" => self.strings(
                        field,
                        &p,
                        SiteKind::Render,
                        "render.textures",
                        &mut out.sites,
                    ),
                    "materials" | "part_visibility" => {
                        let role = if key == "materials" {
                            "render.materials"
                        } else {
                            "render.part_visibility"
                        };
                        for (i, e) in elems(field) {
                            for (glob, expr) in props(e) {
                                out.sites.extend(self.string(
                                    expr,
                                    ptr(&ptr_idx(&p, i), glob),
                                    SiteKind::Render,
                                    role,
                                    false,
                                ));
                            }
                        }
                    }
                    "arrays" => {
                        for (group, arrays) in props(field) {
                            let role = match group {
                                "textures" => "render.arrays.textures",
                                "geometries" => "render.arrays.geometries",
                                "materials" => "render.arrays.materials",
                                _ => "render.arrays",
                            };
                            for (name, list) in props(arrays) {
                                let elements = elems(list)
                                    .filter_map(|(_, e)| as_str(e).map(str::to_string))
                                    .collect();
                                out.arrays.push((name.to_string(), elements));
                                self.strings(
                                    list,
                                    &ptr(&ptr(&p, group), name),
                                    SiteKind::Render,
                                    role,
                                    &mut out.sites,
                                );
                            }
                        }
                    }
                    "color" | "overlay_color" | "is_hurt_color" | "on_fire_color" | "uv_anim" => {
                        let role = intern(format!("render.{key}"));
                        for (channel, expr) in props(field) {
                            self.strings(
                                expr,
                                &ptr(&p, channel),
                                SiteKind::Render,
                                role,
                                &mut out.sites,
                            );
                        }
                    }
                    _ => {}
                }
            }
            out.data = self.reader(first).render(rc, &rp);
            self.pack.render_controllers.push(out);
        }
    }

    // ---- particles --------------------------------------------------------------------------

    fn particle(&mut self, v: &Value<'_>, pointer: &str) {
        for (key, field) in props(v) {
            let p = ptr(pointer, key);
            match key {
                "components" => {
                    for (name, body) in props(field) {
                        let short = name.strip_prefix("minecraft:").unwrap_or(name);
                        if !PARTICLE_NON_MOLANG_COMPONENTS.contains(&short) {
                            self.particle_fields(
                                body,
                                &ptr(&p, name),
                                &format!("particle.{short}"),
                                None,
                            );
                        }
                    }
                }
                "curves" => {
                    for (curve, def) in props(field) {
                        let cp = ptr(&p, curve);
                        for (ck, cv) in props(def) {
                            if matches!(ck, "input" | "horizontal_range" | "nodes") {
                                self.particle_fields(
                                    cv,
                                    &ptr(&cp, ck),
                                    &format!("particle.curve.{ck}"),
                                    Some(ck),
                                );
                            }
                        }
                    }
                }
                "events" => {
                    for (event, def) in props(field) {
                        self.particle_event(def, &ptr(&p, event));
                    }
                }
                _ => {}
            }
        }
    }

    /// Every string in a particle component, skipping enum and name fields. Object keys
    /// extend the role; array indices and keyframe times (`gradient` stops) do not.
    fn particle_fields(&mut self, v: &Value<'_>, pointer: &str, role: &str, key: Option<&str>) {
        if wrapped(v).is_some() {
            self.string(
                v,
                pointer.to_string(),
                SiteKind::Particle,
                intern(role.to_string()),
                key.is_some_and(is_statement_field),
            );
            return;
        }
        match v {
            Value::Object(_) => {
                for (k, child) in props(v) {
                    if PARTICLE_NON_MOLANG_FIELDS.contains(&k) || is_scalar(child) {
                        continue;
                    }
                    let child_role = if k.parse::<f64>().is_ok() {
                        role.to_string()
                    } else {
                        format!("{role}.{k}")
                    };
                    self.particle_fields(child, &ptr(pointer, k), &child_role, Some(k));
                }
            }
            Value::Array(_) => {
                for (i, e) in elems(v).filter(|(_, e)| !is_scalar(e)) {
                    self.particle_fields(e, &ptr_idx(pointer, i), role, key);
                }
            }
            Value::StringLit(lit) => {
                let s = lit.value.trim();
                // Enum strings that share fields with Molang vectors.
                let enum_value = match key {
                    Some("direction") => {
                        s.eq_ignore_ascii_case("outwards") || s.eq_ignore_ascii_case("inwards")
                    }
                    Some("plane_normal") => matches!(s, "x" | "y" | "z" | "X" | "Y" | "Z"),
                    _ => false,
                };
                if !enum_value {
                    let stmts = key.is_some_and(is_statement_field);
                    self.string(
                        v,
                        pointer.to_string(),
                        SiteKind::Particle,
                        intern(role.to_string()),
                        stmts,
                    );
                }
            }
            _ => {}
        }
    }

    fn particle_event(&mut self, v: &Value<'_>, pointer: &str) {
        for (i, e) in elems(v) {
            self.particle_event(e, &ptr_idx(pointer, i));
        }
        for (k, child) in props(v) {
            let p = ptr(pointer, k);
            match k {
                "expression" => {
                    self.string(
                        child,
                        p,
                        SiteKind::Particle,
                        "particle.event.expression",
                        true,
                    );
                }
                "particle_effect" => {
                    for (pk, script) in props(child).filter(|(pk, _)| *pk == "pre_effect_script") {
                        self.string(
                            script,
                            ptr(&p, pk),
                            SiteKind::Particle,
                            "particle.event.pre_effect_script",
                            true,
                        );
                    }
                }
                "sequence" | "randomize" => self.particle_event(child, &p),
                _ => {}
            }
        }
    }
}

/// A number, boolean or null: never Molang, so the walkers build no pointer or role for it.
fn is_scalar(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::NumberLit(_) | Value::BooleanLit(_) | Value::NullKeyword(_)
    )
}

/// The serialised form `{"expression": "<molang>", "version": <n>}` some newer files use in
/// place of a plain string: its literal and version.
fn wrapped<'b, 'a>(v: &'b Value<'a>) -> Option<(&'b StringLit<'a>, Option<i64>)> {
    if !matches!(v, Value::Object(_)) {
        return None;
    }
    let mut lit = None;
    let mut version = None;
    for (k, child) in props(v) {
        match (k, child) {
            ("expression", Value::StringLit(l)) => lit = Some(l),
            ("version", Value::NumberLit(n)) => version = n.value.parse().ok(),
            _ => return None,
        }
    }
    lit.map(|l| (l, version))
}

/// Particle fields that run statements (set variables) rather than give one value.
fn is_statement_field(key: &str) -> bool {
    matches!(
        key,
        "creation_expression" | "per_update_expression" | "per_render_expression"
    )
}

/// Particle components whose strings are names (events, blocks), not Molang.
const PARTICLE_NON_MOLANG_COMPONENTS: &[&str] = &[
    "emitter_lifetime_events",
    "particle_lifetime_events",
    "particle_expire_if_in_blocks",
    "particle_expire_if_not_in_blocks",
    "emitter_local_space",
    "particle_appearance_lighting",
];

/// Particle fields holding enums or names.
const PARTICLE_NON_MOLANG_FIELDS: &[&str] = &[
    "texture",
    "facing_camera_mode",
    "mode",
    "lerp_mode",
    "type",
    "events",
    "event",
    "effect",
    "event_name",
    "material",
];

/// Behaviour-entity component fields that take Molang (component without `minecraft:`,
/// then the field path without array indices), as seen in vanilla.
const ENTITY_FIELDS: &[(&str, &str)] = &[
    ("experience_reward", "on_bred"),
    ("experience_reward", "on_death"),
    ("ambient_sound_interval", "event_names.condition"),
    ("anger_level", "on_increase_sounds.condition"),
    ("behavior.eat_block", "success_chance"),
    ("heartbeat", "interval"),
    ("reflect_projectiles", "azimuth_angle"),
    ("reflect_projectiles", "elevation_angle"),
    ("reflect_projectiles", "reflection_scale"),
    ("rideable", "seats.rotate_rider_by"),
];

const ITEM_FIELDS: &[(&str, &str)] = &[("repairable", "repair_items.repair_amount")];

const BIOME_FIELDS: &[(&str, &str)] =
    &[("surface_material_adjustments", "adjustments.height_range")];

/// A string given to an entity property (default or `set_property`) is Molang unless it is a
/// bare word for a property that is not numeric or boolean (an enum value like `"warm"`).
fn property_value_is_molang(s: &str, property_type: Option<&str>) -> bool {
    !bare_word(s.trim()) || matches!(property_type, Some("bool" | "int" | "float"))
}

/// The property definitions of a `description.properties` object.
fn property_defs(properties: &Value<'_>, types: &[(String, String)]) -> Vec<PropertyDef> {
    props(properties)
        .map(|(name, def)| {
            let ty = type_of(types, name).unwrap_or("").to_string();
            let field = |key: &str| props(def).filter(|(k, _)| *k == key).last().map(|(_, v)| v);
            let default = match field("default") {
                Some(Value::NumberLit(n)) => match n.value.parse::<f32>() {
                    Ok(x) => PropertyDefault::Num(x),
                    Err(_) => PropertyDefault::Missing,
                },
                Some(Value::BooleanLit(b)) => PropertyDefault::Num(b.value as u8 as f32),
                Some(v @ Value::StringLit(_)) => {
                    let d = as_str(v).unwrap_or_default();
                    if property_value_is_molang(d, Some(ty.as_str())) {
                        PropertyDefault::Molang(d.to_string())
                    } else {
                        PropertyDefault::Str(d.to_string())
                    }
                }
                _ => PropertyDefault::Missing,
            };
            let client_sync = matches!(field("client_sync"), Some(Value::BooleanLit(b)) if b.value);
            PropertyDef {
                name: name.to_string(),
                ty,
                default,
                client_sync,
            }
        })
        .collect()
}

fn type_of<'t>(types: &'t [(String, String)], name: &str) -> Option<&'t str> {
    types
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, t)| t.as_str())
}

/// The `{"short": "value"}` pairs of an object whose value is a string, with the byte
/// range of each value.
fn string_pairs<'v>(
    v: &'v Value<'_>,
) -> impl Iterator<Item = (String, String, std::ops::Range<usize>)> + 'v {
    props_at(v).filter_map(|(short, _, value)| {
        Some((
            short.to_string(),
            as_str(value)?.to_string(),
            range_of(value),
        ))
    })
}

/// The pairs of a `description.animations` object.
fn short_names_at(v: &Value<'_>, out: &mut Vec<AnimationRef>) {
    out.extend(string_pairs(v).map(|(short, id, at)| AnimationRef {
        short,
        id,
        at,
        legacy: false,
    }));
}

/// The pairs of `description.geometry`, `textures` or `materials`.
fn resources(v: &Value<'_>, out: &mut Vec<Resource>) {
    out.extend(string_pairs(v).map(|(short, value, at)| Resource { short, value, at }));
}

/// Keeps the first site of a slot given twice (duplicate keys); later ones still count.
fn keep_first(slot: &mut Option<SiteId>, site: Option<SiteId>, others: &mut Vec<SiteId>) {
    match (slot.is_none(), site) {
        (true, s) => *slot = s,
        (false, Some(s)) => others.push(s),
        (false, None) => {}
    }
}
