//! The language server's state: the workspace's packs as layers, the editor's unsaved
//! buffers laid over them, and the analysis (`lint::check_pack`) of the result. Also the
//! cross-file lookups the handlers need (which site is under the cursor, where a variable
//! is written and read across an entity's files).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use grammar::lexer::{lex, TokenKind};

use crate::lint::{check_pack, entity_sites, PackDiagnostic};
use crate::pack::{self, Pack, SiteId};

/// The packs the editor opened, and what is analysed of them.
pub struct Workspace {
    /// Layers as on disk: `(root, files)` in the order of the workspace folders.
    disk: Vec<(PathBuf, Vec<(PathBuf, String)>)>,
    /// Open documents by path: their text in the editor, and whether it has a byte-order mark.
    open: BTreeMap<PathBuf, String>,
    pub pack: Pack,
    pub diagnostics: Vec<PackDiagnostic>,
    /// Site → entities that run it.
    owners: HashMap<SiteId, Vec<usize>>,
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
        let mut ws = Workspace {
            disk: pack::read_layers(roots),
            open: BTreeMap::new(),
            pack: Pack::default(),
            diagnostics: Vec::new(),
            owners: HashMap::new(),
        };
        ws.analyse();
        ws
    }

    /// Sets the editor's text of `path` (opened or changed) and re-analyses.
    pub fn set_text(&mut self, path: &Path, text: String) {
        self.open.insert(path.to_path_buf(), text);
        self.analyse();
    }

    /// The editor closed `path`: the text on disk counts again.
    pub fn close(&mut self, path: &Path) {
        if self.open.remove(path).is_some() {
            self.analyse();
        }
    }

    /// The document was saved: its disk text is now the editor's.
    pub fn saved(&mut self, path: &Path) {
        if let Some(text) = self.open.get(path).cloned() {
            for (_, files) in &mut self.disk {
                for (p, t) in files.iter_mut() {
                    if p == path {
                        *t = text.clone();
                    }
                }
            }
        }
    }

    /// Rebuilds the pack from the layers with the open buffers laid over them, then checks
    /// it. Every file is re-read from memory (no disk IO here): checking the vanilla
    /// resource pack whole takes well under a second, so the entities that use a changed
    /// file are always up to date.
    fn analyse(&mut self) {
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
        self.pack = pack::load_layered_sources(layers);
        let (diagnostics, _) = check_pack(&self.pack);
        self.diagnostics = diagnostics;
        self.owners.clear();
        for ei in 0..self.pack.entities.len() {
            for s in entity_sites(&self.pack, ei) {
                self.owners.entry(s).or_default().push(ei);
            }
        }
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
        self.owners.get(&site).map_or(&[], Vec::as_slice)
    }

    /// The sites a `variable.*` read or written in `site` may share its value with: every
    /// site of every entity that runs `site` (just `site` when no entity does).
    pub fn variable_scope(&self, site: SiteId) -> Vec<SiteId> {
        let mut out: Vec<SiteId> = self
            .owners(site)
            .iter()
            .flat_map(|&e| entity_sites(&self.pack, e))
            .collect();
        out.push(site);
        out.sort_unstable();
        out.dedup();
        out
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
                out.push(Occurrence {
                    site: si,
                    token: a..b,
                    name: a + at..b,
                    write,
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
        let s = &self.pack.sites[site];
        let file = &self.pack.files[s.file];
        let name = file
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (line, _) = self.pack.locate(s, 0);
        format!("{name}:{line} ({})", s.role)
    }
}
