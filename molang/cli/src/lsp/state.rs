//! The language server's state: the workspace's packs as layers, the editor's unsaved
//! buffers laid over them, and the analysis of the result. Also the cross-file lookups the
//! handlers need (which site is under the cursor, where a variable is written and read
//! across an entity's files).
//!
//! Analysis is incremental. Opening the workspace loads and checks every file as `molang
//! check` does ([`PackAnalysis`]). An edit that keeps a file's definitions (the same ids in
//! the same order, so the same layering) re-extracts only that file, with its site ids
//! numbered where they will live, moves it into the pack, and re-checks its own sites and
//! those of the entities whose sites or set variables changed (entity → sites and site →
//! entities are kept, with every site's assignments); that holds when it adds or removes
//! Molang strings and in files of any layer. An edit that adds, removes or renames a
//! definition, breaks the JSON or changes a manifest reloads the whole pack. Edits are
//! staged and analysed together ([`Workspace::stage_text`], [`Workspace::settle`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use grammar::lexer::{lex, TokenKind};
use rayon::prelude::*;

use molang::pack::{self, Pack, Replaced, SiteId};
use molang::pack_check::{
    check_site, entity_sites, file_problems, site_assignments, structure, EntityFacts,
    PackAnalysis, PackDiagnostic,
};

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
    /// Site ids no string has any more (a file's update moved its sites): placeholders
    /// until the next whole analysis.
    unused: BTreeSet<SiteId>,
    /// Files whose text changed since the last analysis ([`Workspace::stage_text`]).
    pending: BTreeSet<PathBuf>,
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
            unused: BTreeSet::new(),
            pending: BTreeSet::new(),
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
        self.stage_text(path, text);
        self.settle();
    }

    /// Sets the editor's text of `path` without analysing it: [`Workspace::settle`] does,
    /// once for every change staged since (an editor sends a change per keystroke; only
    /// the last text of a burst needs diagnostics).
    pub fn stage_text(&mut self, path: &Path, text: String) {
        let same = self.current_text(path) == Some(text.as_str());
        self.open.insert(path.to_path_buf(), text);
        if !same {
            self.pending.insert(path.to_path_buf());
        }
    }

    /// The editor closed `path`: the text on disk counts again.
    pub fn close(&mut self, path: &Path) {
        self.stage_close(path);
        self.settle();
    }

    /// [`Workspace::close`] without analysing (see [`Workspace::stage_text`]).
    pub fn stage_close(&mut self, path: &Path) {
        if let Some(text) = self.open.remove(path) {
            if self.current_text(path) != Some(text.as_str()) {
                self.pending.insert(path.to_path_buf());
            }
        }
    }

    /// Whether every staged change has been analysed.
    pub fn is_settled(&self) -> bool {
        self.pending.is_empty()
    }

    /// Analyses the changes staged since the last time.
    pub fn settle(&mut self) {
        self.settle_unless(&|| false);
    }

    /// [`Workspace::settle`], stopping (`false`) when `cancelled` says so before a whole
    /// analysis is done: what was not analysed stays staged, and the workspace stays as it
    /// was before that analysis (consistent, answering from older texts).
    pub fn settle_unless(&mut self, cancelled: &(dyn Fn() -> bool + Sync)) -> bool {
        let mut pending: Vec<PathBuf> = std::mem::take(&mut self.pending).into_iter().collect();
        while let Some(path) = pending.pop() {
            match self.patch(&path) {
                Some(patched) => self.recheck(&path, &patched),
                // One whole analysis takes in every staged text.
                None if self.analyse_unless(cancelled) => return true,
                None => {
                    pending.push(path);
                    self.pending.extend(pending);
                    return false;
                }
            }
        }
        true
    }

    /// The document was saved: the disk's text is read again (a save may differ from the
    /// buffer, as when the editor formats on save); the editor's text when it cannot be.
    pub fn saved(&mut self, path: &Path) {
        self.settle();
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
        self.settle();
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
        self.analyse_unless(&|| false);
    }

    /// [`Workspace::analyse`], given up (nothing changed, `false`) as soon as `cancelled`
    /// says its result would be stale: the editor sent another change meanwhile.
    fn analyse_unless(&mut self, cancelled: &(dyn Fn() -> bool + Sync)) -> bool {
        let mut pack = pack::load_layered_sources(self.layers());
        // Kept while the editor has the file open: the game reads the disk, not the editor
        // (a UTF-16 file stays unreadable to it until saved as UTF-8).
        pack.problems.extend(self.disk_problems.iter().cloned());
        if cancelled() {
            return false;
        }
        // What `molang check` computes, and the assignments of the sites no entity runs
        // (an edit may make them an entity's).
        let Some(analysis) = PackAnalysis::new_unless(&pack, None, cancelled) else {
            return false;
        };
        let PackAnalysis {
            entity_sites: lists,
            mut assignments,
            facts,
            files: problems,
            sites: diagnostics,
            structure,
        } = analysis;
        assignments
            .par_iter_mut()
            .zip(&pack.sites)
            .filter(|(a, _)| a.is_empty())
            .for_each(|(a, s)| *a = site_assignments(&s.text));
        self.full_analyses += 1;
        self.problems = problems;
        self.structure = structure;
        self.pack = pack;
        self.entity_site_lists = lists;
        self.assignments = assignments;
        self.facts = facts;
        self.site_diagnostics = diagnostics;
        self.unused.clear();
        self.pending.clear();
        self.changed = None;
        true
    }

    /// Re-analyses after the text of `path` changed: the file alone when its definitions
    /// keep their names (and so the layering), else everything.
    fn update(&mut self, path: &Path) {
        match self.patch(path) {
            Some(patched) => self.recheck(path, &patched),
            None => self.analyse(),
        }
    }

    /// Re-reads `path` alone into the pack ([`Pack::replace_file`]), with the editor's
    /// texts over the disk's; `None` when a whole reload is needed, and nothing changed.
    fn patch(&mut self, path: &Path) -> Option<Replaced> {
        let fi = self.file_index(path)?;
        let layer = self.pack.files[fi].layer;
        let root = self
            .disk
            .get(layer)
            .map(|(r, _)| r.clone())
            .unwrap_or_default();
        let mut pack = std::mem::take(&mut self.pack);
        let text_of = |p: &Path| self.current_text(p).map(str::to_string);
        let replaced = pack.replace_file(path, &root, &text_of);
        self.pack = pack;
        replaced
    }

    /// After [`Workspace::patch`] of `path`: re-checks the file's sites, and every site of
    /// the entities whose sites or set variables changed.
    fn recheck(&mut self, path: &Path, patched: &Replaced) {
        self.incremental_analyses += 1;
        let pack = &self.pack;
        let fi = self
            .file_index(path)
            .expect("a patched file is in the pack");
        let n = pack.sites.len();
        self.assignments.resize_with(n, BTreeSet::new);
        self.site_diagnostics.resize_with(n, Vec::new);
        for &s in &patched.old {
            self.assignments[s].clear();
            self.site_diagnostics[s].clear();
        }
        for &s in &patched.new {
            self.assignments[s] = site_assignments(&pack.sites[s].text);
        }
        self.unused.extend(&patched.old);
        for s in &patched.new {
            self.unused.remove(s);
        }
        let mut dirty: BTreeSet<SiteId> = patched.new.iter().copied().collect();
        let mut affected: BTreeSet<usize> = patched
            .old
            .iter()
            .chain(&patched.new)
            .flat_map(|s| {
                self.facts
                    .entity_of_site
                    .get(s)
                    .into_iter()
                    .flatten()
                    .copied()
            })
            .collect();
        // Which entities may run other sites now: the file's own (they may play other
        // animations), or every one when the file's sites changed (an animation gained
        // a string, an id moved).
        let candidates: Vec<usize> = if patched.reshaped {
            (0..pack.entities.len()).collect()
        } else {
            (0..pack.entities.len())
                .filter(|&e| pack.entities[e].file == fi)
                .collect()
        };
        let lists: Vec<Vec<SiteId>> = candidates
            .par_iter()
            .map(|&ei| entity_sites(pack, ei))
            .collect();
        for (ei, new) in candidates.into_iter().zip(lists) {
            if pack.entities[ei].file == fi {
                affected.insert(ei);
            }
            if new == self.entity_site_lists[ei] {
                continue;
            }
            affected.insert(ei);
            let old = std::mem::replace(&mut self.entity_site_lists[ei], new.clone());
            for s in &old {
                if let Some(list) = self.facts.entity_of_site.get_mut(s) {
                    list.retain(|&e| e != ei);
                    if list.is_empty() {
                        self.facts.entity_of_site.remove(s);
                    }
                }
            }
            for &s in &new {
                let list = self.facts.entity_of_site.entry(s).or_default();
                list.push(ei);
                list.sort_unstable();
            }
            dirty.extend(old.into_iter().chain(new));
        }
        if patched.reshaped {
            // `initialize` and `pre_animation` may be other sites now.
            let old = std::mem::take(&mut self.facts.script_owner);
            for (ei, e) in pack.entities.iter().enumerate() {
                for s in e.initialize.iter().chain(&e.pre_animation) {
                    self.facts.script_owner.entry(*s).or_insert(ei);
                }
            }
            for (s, ei) in old {
                if self.facts.script_owner.get(&s) != Some(&ei) {
                    dirty.insert(s);
                    affected.insert(ei);
                }
            }
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
        let dirty: Vec<SiteId> = dirty
            .into_iter()
            .filter(|s| !self.unused.contains(s))
            .collect();
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
        // Unused ids cost memory and time in whole-pack loops: past a quarter of the pack,
        // one whole analysis numbers the sites afresh.
        if self.unused.len() > 1024 && self.unused.len() * 4 > self.pack.sites.len() {
            self.analyse();
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
