//! `molang check` over a whole pack: every Molang site of every file, checked with what the
//! pack says about it (its Molang version from the manifest, and for entities which
//! variables are set where). Works on a loaded [`Pack`]; does no IO itself.

use std::collections::{BTreeSet, HashMap};

use crate::check::{check, CheckOptions};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ir::{Names, Node, NodeId, Program, Scope};
use crate::pack::{Pack, SiteId};
use crate::queries;
use grammar::Span;

/// Molang version for a pack's `min_engine_version` (the version table of the
/// conformance README). Packs without a manifest get the latest rules.
pub fn molang_version(min_engine_version: Option<[u32; 3]>) -> i16 {
    let Some(v) = min_engine_version else {
        return grammar::LATEST_VERSION;
    };
    const TABLE: &[([u32; 3], i16)] = &[
        ([1, 21, 100], 13),
        ([1, 20, 70], 12),
        ([1, 20, 50], 11),
        ([1, 20, 40], 10),
        ([1, 20, 10], 9),
        ([1, 20, 0], 8),
        ([1, 19, 60], 7),
        ([1, 18, 20], 6),
        ([1, 18, 10], 5),
        ([1, 17, 40], 4),
        ([1, 17, 30], 2),
        ([1, 17, 0], 1),
    ];
    TABLE
        .iter()
        .find(|(min, _)| v >= *min)
        .map(|(_, m)| *m)
        .unwrap_or(0)
}

/// A diagnostic in a pack: which file, and (for Molang problems) which site.
#[derive(Clone, Debug)]
pub struct PackDiagnostic {
    pub path: std::path::PathBuf,
    /// `None` for whole-file problems (broken JSON); then `line`/`column` are set.
    pub site: Option<SiteId>,
    pub diagnostic: Diagnostic,
    pub line: usize,
    pub column: usize,
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub files: usize,
    pub expressions: usize,
    pub errors: usize,
    pub warnings: usize,
}

/// Checks every site of `pack`; never stops at the first problem.
pub fn check_pack(pack: &Pack) -> (Vec<PackDiagnostic>, Summary) {
    let mut out = Vec::new();
    for p in &pack.problems {
        let code = if p.line == 0 {
            Code::Io
        } else {
            Code::BrokenJson
        };
        let d = Diagnostic::new(code, Span::default(), p.message.clone()).with_help(
            "the game reads JSON with comments and trailing commas, nothing looser; this file is skipped whole",
        );
        out.push(PackDiagnostic {
            path: p.file.clone(),
            site: None,
            diagnostic: d,
            line: p.line,
            column: p.column,
        });
    }

    // Which entity uses which sites, and which variables each entity sets anywhere.
    let mut entity_of_site: HashMap<SiteId, Vec<usize>> = HashMap::new();
    let mut entity_sets: Vec<BTreeSet<String>> = Vec::new();
    for (ei, e) in pack.entities.iter().enumerate() {
        let sites = entity_sites(pack, ei);
        let mut sets = BTreeSet::new();
        for &s in &sites {
            entity_of_site.entry(s).or_default().push(ei);
            sets.extend(site_assignments(&pack.sites[s].text));
        }
        for (_, full) in &e.animations {
            for c in pack.controllers_named(full) {
                for st in &c.states {
                    sets.extend(st.variables.iter().map(|(n, _)| n.clone()));
                }
            }
        }
        entity_sets.push(sets);
    }

    let mut expressions = 0;
    for (si, site) in pack.sites.iter().enumerate() {
        expressions += 1;
        let version = molang_version(pack.files[site.file].min_engine_version);
        let mut options = CheckOptions {
            version,
            ..CheckOptions::default()
        };
        let owners = entity_of_site.get(&si).cloned().unwrap_or_default();
        let script_owner = pack
            .entities
            .iter()
            .position(|e| e.initialize == Some(si) || e.pre_animation == Some(si));
        if let Some(ei) = script_owner {
            let e = &pack.entities[ei];
            let init_sets: BTreeSet<String> = match e.initialize {
                Some(i) if i != si => site_assignments(&pack.sites[i].text),
                _ => BTreeSet::new(),
            };
            options.judge_variables = true;
            options.preset_variables = init_sets.iter().cloned().collect();
            options.later_variables = entity_sets[ei].iter().cloned().collect();
        }
        let mut names = Names::default();
        let checked = check(&site.text, &options, &mut names);
        let mut diagnostics = checked.diagnostics;
        if script_owner.is_none() && !owners.is_empty() {
            if let Some(p) = &checked.program {
                let known: BTreeSet<&str> = owners
                    .iter()
                    .flat_map(|&o| entity_sets[o].iter().map(String::as_str))
                    .collect();
                let public: BTreeSet<String> = owners
                    .iter()
                    .flat_map(|&o| pack.entities[o].public_variables.iter().cloned())
                    .collect();
                diagnostics.extend(never_set(
                    p,
                    &names,
                    &known,
                    &public,
                    owners.iter().map(|&o| pack.entities[o].identifier.as_str()),
                ));
            }
        }
        for d in diagnostics {
            let (line, column) = pack.locate(site, d.span.start as usize);
            out.push(PackDiagnostic {
                path: pack.files[site.file].path.clone(),
                site: Some(si),
                diagnostic: d,
                line,
                column,
            });
        }
    }
    let errors = out
        .iter()
        .filter(|d| d.diagnostic.severity == Severity::Error)
        .count();
    let warnings = out.len() - errors;
    let files = pack
        .files
        .iter()
        .filter(|f| f.kind != crate::pack::FileKind::Other)
        .count();
    (
        out,
        Summary {
            files,
            expressions,
            errors,
            warnings,
        },
    )
}

/// Variables a site assigns. When the whole script does not load, its entries are tried
/// one by one so that one mistake does not make every variable look unset.
fn site_assignments(text: &str) -> BTreeSet<String> {
    let mut names = Names::default();
    if let Some(p) = check(text, &lenient(), &mut names).program {
        return assigned_variables(&p, &names);
    }
    let mut out = BTreeSet::new();
    for entry in text.split('\n') {
        let mut names = Names::default();
        if let Some(p) = check(entry, &lenient(), &mut names).program {
            out.extend(assigned_variables(&p, &names));
        }
    }
    out
}

fn lenient() -> CheckOptions {
    CheckOptions {
        warn_unknown_queries: false,
        ..CheckOptions::default()
    }
}

/// Every site an entity runs: its scripts, animate conditions, and the animations,
/// controllers and render controllers it names.
fn entity_sites(pack: &Pack, ei: usize) -> Vec<SiteId> {
    let e = &pack.entities[ei];
    let mut sites: Vec<SiteId> = Vec::new();
    sites.extend(e.initialize);
    sites.extend(e.pre_animation);
    sites.extend(e.animate.iter().filter_map(|(_, s)| *s));
    sites.extend(e.other_sites.iter().copied());
    for (_, full) in &e.animations {
        sites.extend(pack.animation_sites(full));
        sites.extend(pack.controller_sites(full));
    }
    for rc in &e.render_controllers {
        sites.extend(pack.render_controller_sites(rc));
    }
    sites.sort_unstable();
    sites.dedup();
    sites
}

/// Variables a program assigns (or iterates with).
pub fn assigned_variables(p: &Program, names: &Names) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for i in 0..p.len() {
        match p.node(NodeId(i as u32)) {
            Node::Assign {
                scope: Scope::Variable,
                slot,
                ..
            }
            | Node::ForEach {
                scope: Scope::Variable,
                slot,
                ..
            } => {
                let n = names.variables.name(*slot);
                out.insert(n.to_string());
                if let Some((root, _)) = n.split_once('.') {
                    out.insert(root.to_string());
                }
            }
            _ => {}
        }
    }
    out
}

/// W0604: a variable read in an animation, controller or render controller that no script
/// of the entities using it ever sets.
fn never_set<'e>(
    p: &Program,
    names: &Names,
    known: &BTreeSet<&str>,
    public: &BTreeSet<String>,
    owners: impl Iterator<Item = &'e str>,
) -> Vec<Diagnostic> {
    let owners: Vec<&str> = owners.collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let guarded: BTreeSet<_> = (0..p.len())
        .filter_map(|i| match p.node(NodeId(i as u32)) {
            Node::Coalesce {
                scope: Scope::Variable,
                slot,
                ..
            } => Some(*slot),
            _ => None,
        })
        .collect();
    for i in 0..p.len() {
        let id = NodeId(i as u32);
        let Node::Read {
            scope: Scope::Variable,
            slot,
        } = p.node(id)
        else {
            continue;
        };
        let name = names.variables.name(*slot);
        let root = name.split('.').next().unwrap_or(name);
        if known.contains(name) || known.contains(root) || guarded.contains(slot) {
            continue;
        }
        if queries::is_engine_variable(name)
            || queries::is_engine_variable(root)
            || public.contains(root)
        {
            continue;
        }
        if !seen.insert(name.to_string()) {
            continue;
        }
        out.push(
            Diagnostic::new(Code::NeverSet, p.span(id), format!("`variable.{name}` is never set by {}", owners.join(", ")))
                .with_help("the game ends the expression at this read; set it in the entity's initialize or pre_animation, or use `?? 0`"),
        );
    }
    out
}
