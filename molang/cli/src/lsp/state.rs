//! The language server's state: the workspace's packs as layers, the editor's unsaved
//! buffers laid over them, and the analysis of the result. Also the cross-file lookups the
//! handlers need (which site is under the cursor, where a variable is written and read
//! across an entity's files).
//!
//! Analysis is incremental. Opening the workspace loads and checks every file (sites in
//! parallel). An edit that keeps a file's shape (the same sites at the same pointers, the
//! same definitions) re-extracts only that file, patches it into the pack, and re-checks
//! its own sites and those of the entities whose set variables changed (entity → sites and
//! site → entities are kept, with every site's assignments). An edit that changes the shape
//! (a new site, a renamed definition, broken JSON, a manifest) reloads the whole pack.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use grammar::lexer::{lex, TokenKind};
use rayon::prelude::*;

use molang::lint::{
    check_site, entity_sites, file_problems, site_assignments, structure, EntityFacts,
    PackDiagnostic,
};
use molang::pack::{self, FileKind, Pack, SiteId};

/// The packs the editor opened, and what is analysed of them.
pub struct Workspace {
    /// The workspace folders, in order (read again when files appear or vanish on disk).
    roots: Vec<PathBuf>,
    /// Layers as on disk: `(root, files)` in the order of the workspace folders.
    disk: Vec<(PathBuf, Vec<(PathBuf, String)>)>,
    /// Files on disk that were not read (unreadable, larger than a file may be, past the
    /// number of files a walk reads): reported as `molang check` reports them.
    disk_problems: Vec<pack::PackProblem>,
    /// Open documents by path: their text in the editor.
    open: BTreeMap<PathBuf, String>,
    pub pack: Pack,
    /// Per site: the variables it assigns ([`site_assignments`]).
    assignments: Vec<BTreeSet<String>>,
    /// Per entity: the sites it runs ([`entity_sites`]).
    entity_site_lists: Vec<Vec<SiteId>>,
    facts: EntityFacts,
    /// Diagnostics of files that did not load, of each site, and of the pack's structure.
    problems: Vec<PackDiagnostic>,
    site_diagnostics: Vec<Vec<PackDiagnostic>>,
    structure: Vec<PackDiagnostic>,
    /// Files whose diagnostics may have changed since [`Workspace::take_changed`]; `None`
    /// after a full analysis (every file).
    changed: Option<BTreeSet<PathBuf>>,
    /// Publish the diagnostics of lower layers too (`initializationOptions`
    /// `showLowerLayerDiagnostics`); by default a layer that a later workspace folder of the
    /// same side lies over (vanilla under an add-on) is context, read but not reported.
    pub show_lower_layers: bool,
    /// How many whole-pack analyses and how many one-file updates were made.
    pub full_analyses: usize,
    pub incremental_analyses: usize,
}

/// One occurrence of a name in a site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub site: SiteId,
    /// Byte range of the whole token (`v.x`) in the site's text.
    pub token: std::ops::Range<usize>,
    /// Byte range of the name after its namespace (`x` of `v.x`).
    pub name: std::ops::Range<usize>,
    /// An assignment target (`v.x = ...`).
    pub write: bool,
    /// After `->`: another entity's variable (`c.other->v.x`).
    pub foreign: bool,
}

/// The sites and entities that share one `variable.*` with a site: what a rename must edit.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    /// Sites that name the variable, of every entity below (and the starting site).
    pub sites: Vec<SiteId>,
    /// Entities that run any of those sites: each one's variable is the same one.
    pub entities: Vec<usize>,
}

/// A name's namespace, from its first segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Namespace {
    Variable,
    Temp,
    Query,
    Math,
    Context,
    Other,
}

/// Splits `v.x` / `variable.x` into its namespace and the rest (lowercased).
pub fn split(path: &str) -> (Namespace, usize) {
    let lower = path.to_ascii_lowercase();
    let Some(dot) = lower.find('.') else {
        return (Namespace::Other, 0);
    };
    let ns = match &lower[..dot] {
        "v" | "variable" => Namespace::Variable,
        "t" | "temp" => Namespace::Temp,
        "q" | "query" => Namespace::Query,
        "math" => Namespace::Math,
        "c" | "context" => Namespace::Context,
        _ => Namespace::Other,
    };
    (ns, dot + 1)
}

impl Workspace {
    /// Reads the packs at `roots` (one layer each, in order) and analyses them.
    pub fn new(roots: &[PathBuf]) -> Workspace {
        Workspace::with_options(roots, false)
    }

    /// [`Workspace::new`], publishing the lower layers' diagnostics when `show_lower_layers`.
    pub fn with_options(roots: &[PathBuf], show_lower_layers: bool) -> Workspace {
        let (disk, disk_problems) = pack::read_layers_with_problems(roots);
        let mut ws = Workspace {
            roots: roots.to_vec(),
            disk,
            disk_problems,
            open: BTreeMap::new(),
            pack: Pack::default(),
            assignments: Vec::new(),
            entity_site_lists: Vec::new(),
            facts: EntityFacts::default(),
            problems: Vec::new(),
            site_diagnostics: Vec::new(),
            structure: Vec::new(),
            changed: None,
            show_lower_layers,
            full_analyses: 0,
            incremental_analyses: 0,
        };
        ws.analyse();
        ws
    }

    /// Sets the editor's text of `path` (opened or changed) and re-analyses what it touches.
    pub fn set_text(&mut self, path: &Path, text: String) {
        let same = self.current_text(path) == Some(text.as_str());
        self.open.insert(path.to_path_buf(), text);
        if !same {
            self.update(path);
        }
    }

    /// The editor closed `path`: the text on disk counts again.
    pub fn close(&mut self, path: &Path) {
        if let Some(text) = self.open.remove(path) {
            if self.current_text(path) != Some(text.as_str()) {
                self.update(path);
            }
        }
    }

    /// The document was saved: the disk's text is read again (a save may differ from the
    /// buffer, as when the editor formats on save); the editor's text when it cannot be.
    pub fn saved(&mut self, path: &Path) {
        if !self.in_workspace(path) {
            return;
        }
        if path.is_file() {
            self.files_changed(&[path.to_path_buf()], &[]);
        } else if let Some(text) = self.open.get(path).cloned() {
            self.set_disk_text(path, &text);
        }
    }

    /// Sets the disk text of `path` when it is a file of a layer; whether it is.
    fn set_disk_text(&mut self, path: &Path, text: &str) -> bool {
        let mut found = false;
        for (_, files) in &mut self.disk {
            for (p, t) in files.iter_mut() {
                if p == path {
                    found = true;
                    if t != text {
                        *t = text.to_string();
                    }
                }
            }
        }
        found
    }

    /// Whether `path` lies in a workspace folder.
    pub fn in_workspace(&self, path: &Path) -> bool {
        self.disk.iter().any(|(root, _)| path.starts_with(root))
    }

    /// Files changed on disk by another program (`changed`: edited; `appeared_or_gone`:
    /// created or deleted). Edited files the pack reads are read again and re-analysed as
    /// an edit would be (an open document's text still counts over the disk's); a file
    /// that appeared or vanished, or one the pack did not read, makes the folders be read
    /// again, as at start.
    pub fn files_changed(&mut self, changed: &[PathBuf], appeared_or_gone: &[PathBuf]) {
        let mut rewalk = !appeared_or_gone.is_empty();
        let mut edited = Vec::new();
        for p in changed {
            let before = self.current_text(p).map(str::to_string);
            match std::fs::read_to_string(p) {
                Ok(text) if self.set_disk_text(p, &text) => {
                    if self.current_text(p).map(str::to_string) != before {
                        edited.push(p.clone());
                    }
                }
                // Unreadable now, or a file the walk left out: the walk decides.
                _ => rewalk = true,
            }
        }
        if rewalk {
            let (layers, problems) = pack::read_layers_with_problems(&self.roots);
            if layers != self.disk || problems != self.disk_problems {
                self.disk = layers;
                self.disk_problems = problems;
                self.analyse();
            }
            return;
        }
        for p in edited {
            self.update(&p);
        }
    }

    /// Every diagnostic of the workspace: files that did not load, sites, structure.
    pub fn diagnostics(&self) -> impl Iterator<Item = &PackDiagnostic> {
        self.problems
            .iter()
            .chain(self.site_diagnostics.iter().flatten())
            .chain(&self.structure)
    }

    /// The files whose diagnostics may have changed since the last call (`None`: any).
    pub fn take_changed(&mut self) -> Option<BTreeSet<PathBuf>> {
        self.changed.replace(BTreeSet::new())
    }

    /// The text of `path` as analysed next: the editor's, else the disk's.
    fn current_text(&self, path: &Path) -> Option<&str> {
        self.open.get(path).map(String::as_str).or_else(|| {
            self.disk
                .iter()
                .flat_map(|(_, files)| files)
                .find(|(p, _)| p == path)
                .map(|(_, t)| t.as_str())
        })
    }

    /// The layers with the open buffers laid over them.
    fn layers(&self) -> Vec<(PathBuf, Vec<(PathBuf, String)>)> {
        let mut layers = self.disk.clone();
        let mut extra = Vec::new();
        for (path, text) in &self.open {
            let mut found = false;
            for (_, files) in &mut layers {
                for (p, t) in files.iter_mut() {
                    if p == path {
                        *t = text.clone();
                        found = true;
                    }
                }
            }
            if !found {
                extra.push((path.clone(), text.clone()));
            }
        }
        // A document outside every workspace folder is a layer of its own, on top.
        for (path, text) in extra {
            let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
            layers.push((root, vec![(path, text)]));
        }
        layers
    }

    /// Rebuilds the pack from the layers with the open buffers laid over them, then checks
    /// all of it (no disk IO here).
    fn analyse(&mut self) {
        self.full_analyses += 1;
        self.pack = pack::load_layered_sources(self.layers());
        // Kept while the editor has the file open: the game reads the disk, not the editor
        // (a UTF-16 file stays unreadable to it until saved as UTF-8).
        self.pack
            .problems
            .extend(self.disk_problems.iter().cloned());
        let pack = &self.pack;
        self.entity_site_lists = (0..pack.entities.len())
            .into_par_iter()
            .map(|ei| entity_sites(pack, ei))
            .collect();
        // Every site, not only the entities' ones: an edit may make any site an entity's.
        self.assignments = pack
            .sites
            .par_iter()
            .map(|s| site_assignments(&s.text))
            .collect();
        self.facts = EntityFacts::new(pack, &self.assignments);
        let (facts, assignments) = (&self.facts, &self.assignments);
        self.site_diagnostics = (0..pack.sites.len())
            .into_par_iter()
            .map(|si| check_site(pack, facts, assignments, si))
            .collect();
        self.problems = file_problems(pack);
        self.structure = structure::check(pack);
        self.changed = None;
    }

    /// Re-analyses after the text of `path` changed: the file alone when its shape is kept,
    /// else everything.
    fn update(&mut self, path: &Path) {
        match self.patch(path) {
            Some(sites) => self.recheck(path, &sites),
            None => self.analyse(),
        }
    }

    /// Re-extracts `path` on its own (with the manifests above it) and writes the result
    /// into the pack in place; the file's site ids, or `None` when the shape differs (or
    /// the file takes part in layering), and nothing was changed.
    fn patch(&mut self, path: &Path) -> Option<Vec<SiteId>> {
        let fi = self.file_index(path)?;
        let base = &self.pack;
        let bf = &base.files[fi];
        // A file that overrides others keeps doing so while its definitions keep their
        // names and versions (checked below); one whose definitions are overridden is not
        // in the model as the file alone would be.
        let layered = bf.replaced_by.is_some()
            || base.files.iter().any(|f| f.replaced_by == Some(fi))
            || base.shadowed.iter().any(|s| s.file == fi);
        if layered || bf.kind == FileKind::Manifest || bf.kind == FileKind::Invalid {
            return None;
        }
        // The same file alone, after the manifests that give it its version and side.
        let mut files: Vec<(PathBuf, String)> = base
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Manifest)
            .filter(|f| f.path.parent().is_some_and(|d| path.starts_with(d)))
            .filter_map(|f| Some((f.path.clone(), self.current_text(&f.path)?.to_string())))
            .collect();
        files.push((path.to_path_buf(), self.current_text(path)?.to_string()));
        let root = self
            .disk
            .get(bf.layer)
            .map(|(r, _)| r.clone())
            .unwrap_or_default();
        let mini = pack::load_layered_sources(vec![(root, files)]);
        let mf = mini.files.iter().position(|f| f.path == path)?;
        let nf = &mini.files[mf];
        if nf.kind != bf.kind
            || nf.format_version != bf.format_version
            || nf.side != bf.side
            || nf.min_engine_version != bf.min_engine_version
            || !mini.shadowed.is_empty()
        {
            return None;
        }
        let old_sites: Vec<SiteId> = (0..base.sites.len())
            .filter(|&s| base.sites[s].file == fi)
            .collect();
        let new_sites: Vec<SiteId> = (0..mini.sites.len())
            .filter(|&s| mini.sites[s].file == mf)
            .collect();
        let same_site = |&(&a, &b): &(&SiteId, &SiteId)| {
            let (x, y) = (&base.sites[a], &mini.sites[b]);
            x.pointer == y.pointer && x.kind == y.kind && x.role == y.role
        };
        if old_sites.len() != new_sites.len()
            || !old_sites.iter().zip(&new_sites).all(|p| same_site(&p))
        {
            return None;
        }
        let map: HashMap<SiteId, SiteId> = new_sites
            .iter()
            .copied()
            .zip(old_sites.iter().copied())
            .collect();
        let m = |s: SiteId| map[&s];
        let mo = |s: Option<SiteId>| s.map(m);

        // Definitions: the same ones, in the same order (the pack's id lookups stay valid).
        fn same_defs<T>(
            old: &[T],
            new: &[T],
            (fi, mf): (usize, usize),
            file: impl Fn(&T) -> usize,
            key: impl Fn(&T) -> String,
        ) -> Option<Vec<(usize, usize)>> {
            let a: Vec<usize> = (0..old.len()).filter(|&i| file(&old[i]) == fi).collect();
            let b: Vec<usize> = (0..new.len()).filter(|&i| file(&new[i]) == mf).collect();
            (a.len() == b.len()
                && a.iter()
                    .zip(&b)
                    .all(|(&i, &j)| key(&old[i]) == key(&new[j])))
            .then(|| a.into_iter().zip(b).collect())
        }
        let files = (fi, mf);
        let entity_key = |e: &molang::pack::Entity| {
            format!("{:?} {} {:?}", e.kind, e.identifier, e.min_engine_version)
        };
        let entities = same_defs(
            &base.entities,
            &mini.entities,
            files,
            |e| e.file,
            entity_key,
        )?;
        let (old, new) = (&base.animations, &mini.animations);
        let animations = same_defs(old, new, files, |a| a.file, |a| a.id.clone())?;
        let (old, new) = (&base.controllers, &mini.controllers);
        let controllers = same_defs(old, new, files, |c| c.file, |c| c.id.clone())?;
        let (old, new) = (&base.render_controllers, &mini.render_controllers);
        let render = same_defs(old, new, files, |r| r.file, |r| r.id.clone())?;
        let (old, new) = (&base.geometries, &mini.geometries);
        let geometries = same_defs(old, new, files, |g| g.file, |g| g.id.clone())?;

        // The shape is the same: write the new file, sites and definitions in.
        let mut file = mini.files[mf].clone();
        file.layer = bf.layer;
        file.relative = bf.relative.clone();
        file.replaced_by = None;
        let mut pack = std::mem::take(&mut self.pack);
        pack.files[fi] = file;
        for (&o, &n) in old_sites.iter().zip(&new_sites) {
            pack.sites[o] = mini.sites[n].clone();
            pack.sites[o].file = fi;
        }
        for (i, j) in entities {
            let mut e = mini.entities[j].clone();
            e.file = fi;
            e.initialize = mo(e.initialize);
            e.pre_animation = mo(e.pre_animation);
            for (_, s) in &mut e.animate {
                *s = mo(*s);
            }
            e.other_sites.iter_mut().for_each(|s| *s = m(*s));
            pack.entities[i] = e;
        }
        for (i, j) in animations {
            let mut a = mini.animations[j].clone();
            a.file = fi;
            a.sites
                .iter_mut()
                .chain(&mut a.timeline)
                .for_each(|s| *s = m(*s));
            pack.animations[i] = a;
        }
        for (i, j) in controllers {
            let mut c = mini.controllers[j].clone();
            c.file = fi;
            c.sites.iter_mut().for_each(|s| *s = m(*s));
            for st in &mut c.states {
                st.sites.iter_mut().for_each(|s| *s = m(*s));
                for (_, s) in st
                    .animations
                    .iter_mut()
                    .chain(&mut st.transitions)
                    .chain(&mut st.variables)
                {
                    *s = mo(*s);
                }
                st.on_entry = mo(st.on_entry);
                st.on_exit = mo(st.on_exit);
            }
            pack.controllers[i] = c;
        }
        for (i, j) in render {
            let mut r = mini.render_controllers[j].clone();
            r.file = fi;
            r.sites.iter_mut().for_each(|s| *s = m(*s));
            pack.render_controllers[i] = r;
        }
        for (i, j) in geometries {
            let mut g = mini.geometries[j].clone();
            g.file = fi;
            pack.geometries[i] = g;
        }
        pack.problems.retain(|p| p.file != path);
        pack.problems
            .extend(mini.problems.into_iter().filter(|p| p.file == path));
        self.pack = pack;
        Some(old_sites)
    }

    /// After [`Workspace::patch`] of `path` (sites `sites`): re-checks those sites, and
    /// every site of the entities whose sites or set variables changed.
    fn recheck(&mut self, path: &Path, sites: &[SiteId]) {
        self.incremental_analyses += 1;
        let pack = &self.pack;
        let fi = self
            .file_index(path)
            .expect("a patched file is in the pack");
        for &s in sites {
            self.assignments[s] = site_assignments(&pack.sites[s].text);
        }
        let mut dirty: BTreeSet<SiteId> = sites.iter().copied().collect();
        let mut affected: BTreeSet<usize> = sites
            .iter()
            .flat_map(|s| {
                self.facts
                    .entity_of_site
                    .get(s)
                    .into_iter()
                    .flatten()
                    .copied()
            })
            .collect();
        // The file's own entities may now run other animations: their site lists change.
        for ei in (0..pack.entities.len()).filter(|&e| pack.entities[e].file == fi) {
            affected.insert(ei);
            let new = entity_sites(pack, ei);
            let old = std::mem::replace(&mut self.entity_site_lists[ei], new.clone());
            for s in &old {
                if let Some(list) = self.facts.entity_of_site.get_mut(s) {
                    list.retain(|&e| e != ei);
                }
            }
            for &s in &new {
                let list = self.facts.entity_of_site.entry(s).or_default();
                list.push(ei);
                list.sort_unstable();
            }
            dirty.extend(old.into_iter().chain(new));
        }
        for ei in affected {
            let sets =
                EntityFacts::entity_sets(pack, ei, &self.entity_site_lists[ei], &self.assignments);
            if sets != self.facts.entity_sets[ei] {
                self.facts.entity_sets[ei] = sets;
                dirty.extend(self.entity_site_lists[ei].iter().copied());
            }
        }
        let (facts, assignments) = (&self.facts, &self.assignments);
        let dirty: Vec<SiteId> = dirty.into_iter().collect();
        let fresh: Vec<Vec<PackDiagnostic>> = dirty
            .par_iter()
            .map(|&si| check_site(pack, facts, assignments, si))
            .collect();
        let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
        changed.insert(path.to_path_buf());
        for (si, d) in dirty.into_iter().zip(fresh) {
            changed.insert(pack.files[pack.sites[si].file].path.clone());
            self.site_diagnostics[si] = d;
        }
        let problems = file_problems(pack);
        let structure = structure::check(pack);
        for d in self
            .problems
            .iter()
            .chain(&self.structure)
            .chain(&problems)
            .chain(&structure)
        {
            changed.insert(d.path.clone());
        }
        self.problems = problems;
        self.structure = structure;
        if let Some(c) = &mut self.changed {
            c.extend(changed);
        }
    }

    /// Per layer: whether it is a lower layer whose diagnostics are not published (see
    /// [`Workspace::show_lower_layers`]): a later layer has files of the same side.
    pub fn hidden_layers(&self) -> Vec<bool> {
        let n = self
            .pack
            .files
            .iter()
            .map(|f| f.layer + 1)
            .max()
            .unwrap_or(0);
        if self.show_lower_layers || n < 2 {
            return vec![false; n];
        }
        let mut sides: Vec<BTreeSet<u8>> = vec![BTreeSet::new(); n];
        for f in &self.pack.files {
            let side = match f.side {
                pack::Side::Resource => 0,
                pack::Side::Behaviour => 1,
                pack::Side::Any => continue,
            };
            sides[f.layer].insert(side);
        }
        (0..n)
            .map(|i| {
                sides[i]
                    .iter()
                    .any(|s| sides[i + 1..].iter().any(|later| later.contains(s)))
            })
            .collect()
    }

    /// Index into [`Pack::files`] of `path`.
    pub fn file_index(&self, path: &Path) -> Option<usize> {
        self.pack.files.iter().position(|f| f.path == path)
    }

    /// The text of a file as analysed (the editor's when open).
    pub fn text(&self, file: usize) -> &str {
        &self.pack.files[file].source
    }

    /// The site whose JSON string holds byte `offset` of file `file`, and the offset in the
    /// site's text (an offset on a string's closing quote counts as its end).
    pub fn site_at(&self, file: usize, offset: usize) -> Option<(SiteId, usize)> {
        for (si, site) in self.pack.sites.iter().enumerate() {
            if site.file != file {
                continue;
            }
            for piece in &site.pieces {
                if piece.json.start <= offset && offset <= piece.json.end {
                    // Decoded offset: the last one that maps at or before `offset`.
                    let mut best = 0;
                    for d in 0..=piece.text.len() {
                        if !site.text.is_char_boundary(piece.text.start + d) {
                            continue;
                        }
                        if piece.json_offset(d) <= offset {
                            best = d;
                        } else {
                            break;
                        }
                    }
                    return Some((si, piece.text.start + best));
                }
            }
        }
        None
    }

    /// Byte range in the file of a range of a site's text.
    pub fn file_range(&self, site: SiteId, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let s = &self.pack.sites[site];
        self.pack.json_offset(s, r.start)..self.pack.json_offset(s, r.end)
    }

    /// Entities that run `site`.
    pub fn owners(&self, site: SiteId) -> &[usize] {
        self.facts
            .entity_of_site
            .get(&site)
            .map_or(&[], Vec::as_slice)
    }

    /// The sites a `variable.*` read or written in `site` may share its value with: every
    /// site of every entity that runs `site` (just `site` when no entity does).
    pub fn variable_scope(&self, site: SiteId) -> Vec<SiteId> {
        let mut out: Vec<SiteId> = self
            .owners(site)
            .iter()
            .flat_map(|&e| self.entity_site_lists[e].iter().copied())
            .collect();
        out.push(site);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Everything that shares `variable.name` with `site`. An animation or controller runs
    /// in every entity that plays it, each with its own variables: a name changed in a
    /// shared site must change in every site of every entity that plays it, and so on
    /// through the sites of those entities that name it (a closure over sites and entities).
    pub fn variable_reach(&self, site: SiteId, name: &str) -> Reach {
        let mut sites = BTreeSet::from([site]);
        let mut entities = BTreeSet::new();
        let mut todo = vec![site];
        while let Some(s) = todo.pop() {
            for &e in self.owners(s) {
                if !entities.insert(e) {
                    continue;
                }
                for &s2 in &self.entity_site_lists[e] {
                    if !sites.contains(&s2)
                        && !self
                            .occurrences(&[s2], Namespace::Variable, name)
                            .is_empty()
                    {
                        sites.insert(s2);
                        todo.push(s2);
                    }
                }
            }
        }
        Reach {
            sites: sites.into_iter().collect(),
            entities: entities.into_iter().collect(),
        }
    }

    /// The sites entity `ei` runs.
    pub fn entity_sites(&self, ei: usize) -> &[SiteId] {
        &self.entity_site_lists[ei]
    }

    /// Every occurrence of the name `ns.name` (lowercase name, any spelling of the
    /// namespace) in `sites`.
    pub fn occurrences(&self, sites: &[SiteId], ns: Namespace, name: &str) -> Vec<Occurrence> {
        let mut out = Vec::new();
        for &si in sites {
            let text = &self.pack.sites[si].text;
            let tokens = lex(text);
            for (i, t) in tokens.iter().enumerate() {
                if t.kind != TokenKind::Path {
                    continue;
                }
                let (a, b) = (t.span.start as usize, t.span.end as usize);
                let (tns, at) = split(&text[a..b]);
                if tns != ns || !text[a + at..b].eq_ignore_ascii_case(name) {
                    continue;
                }
                let write = tokens
                    .get(i + 1)
                    .is_some_and(|n| n.kind == TokenKind::Assign);
                let foreign = i > 0 && tokens[i - 1].kind == TokenKind::Arrow;
                out.push(Occurrence {
                    site: si,
                    token: a..b,
                    name: a + at..b,
                    write,
                    foreign,
                });
            }
        }
        out
    }

    /// The name token under byte `offset` of site `site`'s text: its range and text.
    pub fn token_at(
        &self,
        site: SiteId,
        offset: usize,
    ) -> Option<(std::ops::Range<usize>, TokenKind)> {
        let text = &self.pack.sites[site].text;
        lex(text)
            .into_iter()
            .find(|t| {
                t.span.start as usize <= offset
                    && offset <= t.span.end as usize
                    && t.kind != TokenKind::Semicolon
            })
            .map(|t| (t.span.start as usize..t.span.end as usize, t.kind))
    }

    /// Variables the entities running `site` set anywhere (lowercase, without namespace),
    /// and their public `scripts.variables`.
    pub fn entity_variables(&self, site: SiteId) -> Vec<String> {
        let mut names = std::collections::BTreeSet::new();
        for s in self.variable_scope(site) {
            let text = &self.pack.sites[s].text;
            let tokens = lex(text);
            for (i, t) in tokens.iter().enumerate() {
                if t.kind == TokenKind::Path
                    && tokens
                        .get(i + 1)
                        .is_some_and(|n| n.kind == TokenKind::Assign)
                {
                    let p = &text[t.span.start as usize..t.span.end as usize];
                    if let (Namespace::Variable, at) = split(p) {
                        names.insert(p[at..].to_ascii_lowercase());
                    }
                }
            }
        }
        for &e in self.owners(site) {
            names.extend(self.pack.entities[e].public_variables.iter().cloned());
        }
        names.into_iter().collect()
    }

    /// A short description of where a site is: file name and role.
    pub fn describe_site(&self, site: SiteId) -> String {
        self.describe_at(site, 0)
    }

    /// [`Workspace::describe_site`] with the line of byte `offset` of the site's text (a
    /// script array's entries lie on lines of their own).
    pub fn describe_at(&self, site: SiteId, offset: usize) -> String {
        let s = &self.pack.sites[site];
        let file = &self.pack.files[s.file];
        let name = file
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (line, _) = self.pack.locate(s, offset);
        format!("{name}:{line} ({})", s.role)
    }
}
