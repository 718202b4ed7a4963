//! `molang check` over a whole pack: every Molang site of every file, checked with what the
//! pack says about it (its Molang version from the manifest, and for entities which
//! variables are set where), then the pack's structure (see [`structure`]). Works on a
//! loaded [`Pack`]; does no IO itself.
//!
//! Layers and namespaces come from the loader ([`crate::pack::load`]): definitions a later
//! layer overrides are not in the model, so their Molang is checked on its own (syntax,
//! names) but takes no part in entity-level checks; an entity resolves animations and
//! controllers on its own side only.

use std::collections::{BTreeSet, HashMap};

use crate::check::{check, CheckOptions};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ir::{Names, Node, NodeId, Program, Scope};
use crate::pack::{Pack, SiteId};
use crate::query_table;
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

pub use crate::diagnostics::PackDiagnostic;

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
    check_pack_at(pack, None)
}

/// [`check_pack`] with every file at Molang `version` when it is given (a `molang.toml`
/// override), else at its manifest's.
pub fn check_pack_at(pack: &Pack, version: Option<i16>) -> (Vec<PackDiagnostic>, Summary) {
    let analysis = PackAnalysis::new(pack, version);
    let expressions = pack.sites.len();
    let out = analysis.into_diagnostics();
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

/// The files that did not load (unreadable, broken JSON, past a limit of the walk), as
/// diagnostics.
pub fn file_problems(pack: &Pack) -> Vec<PackDiagnostic> {
    let mut out = Vec::new();
    out.extend(pack.problems.iter().map(file_problem));
    for t in &pack.folder_typos {
        let name = t
            .folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let d = Diagnostic::new(
            Code::MisspeltFolder,
            Span::default(),
            format!(
                "folder `{name}/` is one letter away from `{}/`, a folder the game reads",
                t.meant
            ),
        )
        .with_help(format!(
            "the game reads definitions only from its own folders and ignores this one; rename it to `{}`",
            t.meant
        ));
        out.push(PackDiagnostic {
            path: t.folder.clone(),
            site: None,
            file: None,
            diagnostic: d,
            line: 0,
            column: 0,
        });
    }
    out
}

/// A file that did not load, as a diagnostic (E0701, E0702 or E0706).
pub(crate) fn file_problem(p: &crate::pack::PackProblem) -> PackDiagnostic {
    let d = if p.limit {
        Diagnostic::new(Code::PackLimit, Span::default(), p.message.clone()).with_help(
            "the limits keep a check of strangers' files within bounded memory and time; what is past them is not checked",
        )
    } else if p.line == 0 {
        Diagnostic::new(Code::Io, Span::default(), p.message.clone())
            .with_help("the game skips a file it cannot read, whole")
    } else {
        Diagnostic::new(Code::BrokenJson, Span::default(), p.message.clone()).with_help(
            "the game reads JSON with comments and trailing commas, nothing looser; this file is skipped whole",
        )
    };
    PackDiagnostic {
        path: p.file.clone(),
        site: None,
        file: None,
        diagnostic: d,
        line: p.line,
        column: p.column,
    }
}

/// What [`check_pack`] computes of a pack, kept per site and per entity: the language
/// server holds it and updates it one file at a time.
#[derive(Clone, Debug, Default)]
pub struct PackAnalysis {
    /// Per entity: the sites it runs ([`entity_sites`]).
    pub entity_sites: Vec<Vec<SiteId>>,
    /// Per site: the variables it assigns ([`site_assignments`]); empty for a site no entity
    /// runs (it sets nothing any entity reads).
    pub assignments: Vec<BTreeSet<String>>,
    pub facts: EntityFacts,
    /// The files that did not load ([`file_problems`]).
    pub files: Vec<PackDiagnostic>,
    /// Per site: its diagnostics ([`check_site_at`]).
    pub sites: Vec<Vec<PackDiagnostic>>,
    /// The structure checks ([`structure::check`]).
    pub structure: Vec<PackDiagnostic>,
}

impl PackAnalysis {
    /// Analyses every site of `pack` (at Molang `version` when given, else at each file's).
    pub fn new(pack: &Pack, version: Option<i16>) -> PackAnalysis {
        PackAnalysis::new_unless(pack, version, &|| false)
            .expect("an analysis never cancelled finishes")
    }

    /// [`PackAnalysis::new`], given up (`None`) as soon as `cancelled` says so (an editor's
    /// newer text makes it stale).
    pub fn new_unless(
        pack: &Pack,
        version: Option<i16>,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Option<PackAnalysis> {
        use rayon::prelude::*;
        let entity_sites: Vec<Vec<SiteId>> = (0..pack.entities.len())
            .into_par_iter()
            .map(|ei| self::entity_sites(pack, ei))
            .collect();
        // Only the sites some entity runs take part in what entities set.
        let mut run = vec![false; pack.sites.len()];
        for &s in entity_sites.iter().flatten() {
            run[s] = true;
        }
        let assignments: Vec<BTreeSet<String>> = (0..pack.sites.len())
            .into_par_iter()
            .map(|s| match run[s] {
                true => site_assignments(&pack.sites[s].text),
                false => BTreeSet::new(),
            })
            .collect();
        let facts = EntityFacts::with_sites(pack, &entity_sites, &assignments);
        // Sites are checked independently (in parallel) and reported in pack order; the
        // structure checks run beside them.
        let (sites, structure): (Option<Vec<Vec<PackDiagnostic>>>, _) = rayon::join(
            || {
                (0..pack.sites.len())
                    .into_par_iter()
                    .map(|si| {
                        (!cancelled())
                            .then(|| check_site_at(pack, &facts, &assignments, si, version))
                    })
                    .collect()
            },
            || structure::check(pack),
        );
        Some(PackAnalysis {
            entity_sites,
            assignments,
            facts,
            files: file_problems(pack),
            sites: sites?,
            structure,
        })
    }

    /// Every diagnostic, in `check`'s order: files, sites in pack order, structure.
    pub fn into_diagnostics(self) -> Vec<PackDiagnostic> {
        let mut out = self.files;
        out.extend(self.sites.into_iter().flatten());
        out.extend(self.structure);
        out
    }
}

/// What the entity-level checks of a site depend on besides its text: which entities run
/// it, what each entity sets anywhere, and whose script it is. An editor keeps these and
/// updates only the entities an edit touches ([`EntityFacts::entity_sets`]).
#[derive(Clone, Debug, Default)]
pub struct EntityFacts {
    /// Site → the entities that run it.
    pub entity_of_site: HashMap<SiteId, Vec<usize>>,
    /// Per entity: every variable it sets anywhere (see [`EntityFacts::entity_sets`]).
    pub entity_sets: Vec<BTreeSet<String>>,
    /// `initialize` / `pre_animation` site → its entity (the first that has it).
    pub script_owner: HashMap<SiteId, usize>,
}

impl EntityFacts {
    /// The facts of every entity; `assignments[s]` is [`site_assignments`] of site `s`.
    pub fn new(pack: &Pack, assignments: &[BTreeSet<String>]) -> EntityFacts {
        let sites: Vec<Vec<SiteId>> = (0..pack.entities.len())
            .map(|ei| entity_sites(pack, ei))
            .collect();
        EntityFacts::with_sites(pack, &sites, assignments)
    }

    /// [`EntityFacts::new`] given each entity's [`entity_sites`].
    pub fn with_sites(
        pack: &Pack,
        entity_sites: &[Vec<SiteId>],
        assignments: &[BTreeSet<String>],
    ) -> EntityFacts {
        let mut facts = EntityFacts::default();
        for (ei, e) in pack.entities.iter().enumerate() {
            let sites = &entity_sites[ei];
            for &s in sites {
                facts.entity_of_site.entry(s).or_default().push(ei);
            }
            facts
                .entity_sets
                .push(EntityFacts::entity_sets(pack, ei, sites, assignments));
            for s in e.initialize.iter().chain(&e.pre_animation) {
                facts.script_owner.entry(*s).or_insert(ei);
            }
        }
        facts
    }

    /// What entity `ei` sets anywhere: the assignments of its `sites` (its
    /// [`entity_sites`]) and the `variables` of its controllers' states.
    pub fn entity_sets(
        pack: &Pack,
        ei: usize,
        sites: &[SiteId],
        assignments: &[BTreeSet<String>],
    ) -> BTreeSet<String> {
        let e = &pack.entities[ei];
        let mut sets = BTreeSet::new();
        for &s in sites {
            sets.extend(assignments[s].iter().cloned());
        }
        let side = pack.entity_side(e);
        for full in e.animations.iter().map(|a| &a.id) {
            for c in pack.controllers_for(side, full) {
                for st in &c.states {
                    sets.extend(st.data.variables.iter().map(|v| v.name.clone()));
                }
            }
        }
        sets
    }
}

/// The diagnostics of site `si`, judged with what its entities set (`facts`, built from
/// the same `assignments`).
pub fn check_site(
    pack: &Pack,
    facts: &EntityFacts,
    assignments: &[BTreeSet<String>],
    si: SiteId,
) -> Vec<PackDiagnostic> {
    check_site_at(pack, facts, assignments, si, None)
}

/// [`check_site`] at Molang `version` when it is given, else at the file's.
pub fn check_site_at(
    pack: &Pack,
    facts: &EntityFacts,
    assignments: &[BTreeSet<String>],
    si: SiteId,
    version: Option<i16>,
) -> Vec<PackDiagnostic> {
    let site = &pack.sites[si];
    let version =
        version.unwrap_or_else(|| molang_version(pack.files[site.file].min_engine_version));
    let mut options = CheckOptions {
        version,
        ..CheckOptions::default()
    };
    let no_owner = Vec::new();
    let owners = facts.entity_of_site.get(&si).unwrap_or(&no_owner);
    let script_owner = facts.script_owner.get(&si).copied();
    if let Some(ei) = script_owner {
        let e = &pack.entities[ei];
        options.judge_variables = true;
        // What initialize sets, and what the game itself sets on this entity type
        // (struct members included: the shulker's `variable.shulker.peekamount`).
        options.preset_variables = match e.initialize {
            Some(i) if i != si => assignments[i].iter().cloned().collect(),
            _ => Vec::new(),
        };
        options
            .preset_variables
            .extend(crate::engine_vars::for_entity(&e.identifier).map(|v| v.name.to_string()));
        options.later_variables = facts.entity_sets[ei].iter().cloned().collect();
    }
    let mut names = Names::default();
    let checked = check(&site.text, &options, &mut names);
    let mut diagnostics = checked.diagnostics;
    if script_owner.is_none() && !owners.is_empty() {
        if let Some(p) = &checked.program {
            // Asked of each owner per variable read, rather than merged into one set per
            // site: most sites read no variable, and merging every owner's sets cost more
            // than checking the expression.
            let known = |o: usize, n: &str| facts.entity_sets[o].contains(n);
            let public = |n: &str| {
                owners
                    .iter()
                    .any(|&o| pack.entities[o].public_variables.iter().any(|v| v == n))
            };
            diagnostics.extend(never_set(
                p,
                &names,
                known,
                public,
                owners
                    .iter()
                    .map(|&o| (o, pack.entities[o].identifier.as_str())),
            ));
        }
    }
    (diagnostics.into_iter())
        .map(|d| PackDiagnostic::at_site(pack, si, d))
        .collect()
}

/// Variables a site assigns. When the whole script does not load, its entries are tried
/// one by one so that one mistake does not make every variable look unset.
pub fn site_assignments(text: &str) -> BTreeSet<String> {
    // Only `=` assigns and only `for_each` iterates with a variable: a site with neither
    // (most channel values and conditions) sets nothing, so it is not checked here.
    let iterates = || {
        text.as_bytes()
            .windows(b"for_each".len())
            .any(|w| w.eq_ignore_ascii_case(b"for_each"))
    };
    if !text.contains('=') && !iterates() {
        return BTreeSet::new();
    }
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
pub fn entity_sites(pack: &Pack, ei: usize) -> Vec<SiteId> {
    let e = &pack.entities[ei];
    let side = pack.entity_side(e);
    let mut sites: Vec<SiteId> = Vec::new();
    sites.extend(e.initialize);
    sites.extend(e.pre_animation);
    sites.extend(e.animate_sites.iter().copied());
    sites.extend(e.other_sites.iter().copied());
    // Client and server animations are separate namespaces: a behaviour entity never runs
    // a resource-pack controller of the same id, nor the other way round.
    for full in e.animations.iter().map(|a| &a.id) {
        sites.extend(
            pack.animations_for(side, full)
                .flat_map(|a| a.sites.iter().copied()),
        );
        sites.extend(
            pack.controllers_for(side, full)
                .flat_map(|c| c.sites.iter().copied()),
        );
    }
    for rc in &e.render_controllers {
        sites.extend(pack.render_controller_sites(&rc.name));
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
            Node::Assign(crate::ir::Assign {
                scope: Scope::Variable,
                slot,
                ..
            })
            | Node::ForEach(crate::ir::ForEach {
                scope: Scope::Variable,
                slot,
                ..
            }) => {
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

/// W0604: a variable read in an animation, controller or render controller that a script
/// of an entity using it never sets. Each entity has its own variables: when some entities
/// playing a shared site set it and others do not, the others are named (their reads end
/// the expression in the game).
fn never_set<'e>(
    p: &Program,
    names: &Names,
    known: impl Fn(usize, &str) -> bool,
    public: impl Fn(&str) -> bool,
    owners: impl Iterator<Item = (usize, &'e str)>,
) -> Vec<Diagnostic> {
    let owners: Vec<(usize, &str)> = owners.collect();
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
        if guarded.contains(slot)
            || query_table::is_engine_variable(name)
            || query_table::is_engine_variable(root)
            || public(root)
        {
            continue;
        }
        let sets = |&(o, id): &(usize, &str)| {
            known(o, name)
                || known(o, root)
                || crate::engine_vars::for_entity(id).any(|v| v.name == name || v.name == root)
        };
        let (setters, missing): (Vec<_>, Vec<_>) = owners.iter().partition(|o| sets(o));
        if missing.is_empty() || !seen.insert(name.to_string()) {
            continue;
        }
        let ids = |list: &[&(usize, &str)]| {
            list.iter()
                .map(|(_, id)| *id)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let message = if setters.is_empty() {
            format!("`variable.{name}` is never set by {}", ids(&missing))
        } else {
            let shown: Vec<_> = setters.iter().take(3).copied().collect();
            format!(
                "`variable.{name}` is never set by {}, which play{} this like {}{} that set{} it",
                ids(&missing),
                if missing.len() == 1 { "s" } else { "" },
                ids(&shown),
                if setters.len() > 3 {
                    format!(" and {} more", setters.len() - 3)
                } else {
                    String::new()
                },
                if setters.len() == 1 { "s" } else { "" },
            )
        };
        out.push(
            Diagnostic::new(Code::NeverSet, p.span(id), message)
                .with_help("the game ends the expression at this read; set it in the entity's initialize or pre_animation, or use `?? 0`"),
        );
    }
    out
}

/// Pack structure (W08xx): what the runtime notices when it loads an entity (a transition to
/// no state, a name that resolves to nothing, a bone no geometry has, an array index past
/// the end), reported for every entity and controller of the pack at the JSON key or value
/// concerned. Only the definitions the game uses are judged (see [`crate::pack::load`]).
pub mod structure {
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
    use std::ops::Range;

    use super::PackDiagnostic;
    use crate::diagnostics::{Code, Diagnostic};
    use crate::pack::{AnimationRef, EntityKind, Named, Pack, Resource, Side};
    use grammar::Span;

    /// Every structure problem of `pack`.
    pub fn check(pack: &Pack) -> Vec<PackDiagnostic> {
        let mut out = Vec::new();
        controllers(pack, &mut out);
        controller_cycles(pack, &mut out);
        entities(pack, &mut out);
        references(pack, &mut out);
        bones(pack, &mut out);
        arrays(pack, &mut out);
        out
    }

    /// A diagnostic at byte range `range` of pack file `file`.
    /// One diagnostic per place of a file that several entities meet: `found` maps
    /// (file, start, end) to what happens there and the entities' identifiers, which
    /// `message` joins into the text.
    fn per_place<'p>(
        pack: &'p Pack,
        found: BTreeMap<(usize, usize, usize), (String, BTreeSet<String>)>,
        code: Code,
        message: impl Fn(&str, &str) -> String + 'p,
        help: &'p str,
    ) -> impl Iterator<Item = PackDiagnostic> + 'p {
        found
            .into_iter()
            .map(move |((file, start, end), (what, ids))| {
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                let text = message(&what, &ids.join(", "));
                at(pack, file, &(start..end), code, text, help)
            })
    }

    pub(crate) fn at(
        pack: &Pack,
        file: usize,
        range: &Range<usize>,
        code: Code,
        message: String,
        help: &str,
    ) -> PackDiagnostic {
        let f = &pack.files[file];
        let (line, column) = f.line_col(range.start);
        PackDiagnostic {
            path: f.path.clone(),
            site: None,
            file: Some(file),
            diagnostic: Diagnostic::new(code, Span::new(range.start, range.end), message)
                .with_help(help),
            line,
            column,
        }
    }

    fn controllers(pack: &Pack, out: &mut Vec<PackDiagnostic>) {
        for c in &pack.controllers {
            let names: HashSet<&str> = c.states.iter().map(|s| s.name.as_str()).collect();
            if c.states.is_empty() {
                continue;
            }
            out.extend(initial_state(pack, c, &names));
            for s in &c.states {
                for t in &s.data.transitions {
                    if !names.contains(t.name.as_str()) {
                        out.push(unknown_state(pack, c, s, &t.name, &t.at));
                    }
                }
            }
        }
    }

    /// W0803 or W0802: the state `c` starts in is not one of its `names` (of a controller
    /// with states).
    pub(crate) fn initial_state(
        pack: &Pack,
        c: &crate::pack::Controller,
        names: &HashSet<&str>,
    ) -> Option<PackDiagnostic> {
        match (&c.initial_state, &c.initial_state_at) {
            (Some(init), Some(r)) if !names.contains(init.as_str()) => Some(at(
                pack,
                c.file,
                r,
                Code::UnknownInitialState,
                format!("controller `{}` starts in state `{init}`, which it does not have", c.id),
                "the game cannot enter a state that does not exist; name one of the controller's states",
            )),
            (None, _) if !names.contains("default") => Some(at(
                pack,
                c.file,
                &c.at,
                Code::NoInitialState,
                format!(
                    "controller `{}` has no `initial_state` and no state called `default`",
                    c.id
                ),
                "without `initial_state` the game starts in the state called `default`; add \"initial_state\" (molang run starts in the first state)",
            )),
            _ => None,
        }
    }

    /// W0801: state `s` of `c` goes to `target`, which `c` does not have; `r` is the
    /// transition's key.
    pub(crate) fn unknown_state(
        pack: &Pack,
        c: &crate::pack::Controller,
        s: &crate::pack::ControllerState,
        target: &str,
        r: &Range<usize>,
    ) -> PackDiagnostic {
        at(
            pack,
            c.file,
            r,
            Code::UnknownState,
            format!(
                "state `{}` of `{}` goes to state `{target}`, which the controller does not have",
                s.name, c.id
            ),
            "the game ignores this transition, so the controller never takes it; fix the state name",
        )
    }

    /// W0808: a controller that plays itself, directly or through other controllers, as an
    /// entity resolves the short names of its states. Reported at the state entry that closes
    /// the circle (a back edge of a depth-first walk from the entity's roots, the entry
    /// `molang run` does not play), once per entry with the entities concerned. Iterative,
    /// and linear in the entries an entity reaches.
    fn controller_cycles(pack: &Pack, out: &mut Vec<PackDiagnostic>) {
        let index: HashMap<*const crate::pack::Controller, usize> = (pack.controllers.iter())
            .enumerate()
            .map(|(i, c)| (c as *const _, i))
            .collect();
        // (file, start, end) of the closing entry -> message, entities.
        let mut found: BTreeMap<(usize, usize, usize), (String, BTreeSet<String>)> =
            BTreeMap::new();
        for e in &pack.entities {
            let side = pack.entity_side(e);
            // Short names as the runtime resolves them: without case, the last entry of a
            // name wins, `description.animations` first, then the legacy 1.8.0 controller
            // list (whose entries play as roots, by identifier).
            let animate: Vec<&str> = e.animate.iter().map(|a| a.name.as_str()).collect();
            let (legacy, animations): (Vec<_>, Vec<_>) =
                e.animations.iter().partition(|a| a.legacy);
            let mut shorts: HashMap<String, &str> = HashMap::new();
            for a in legacy.iter().chain(&animations) {
                shorts.insert(a.short.to_ascii_lowercase(), &a.id);
            }
            let controller = |id: &str| -> Option<usize> {
                let c = pack.controllers_for(side, id).last()?;
                Some(index[&(c as *const _)])
            };
            let resolve = |short: &str| controller(shorts.get(&short.to_ascii_lowercase())?);
            let roots: Vec<Option<usize>> = (legacy.iter().map(|a| controller(&a.id)))
                .chain(animate.iter().map(|s| resolve(s)))
                .collect();
            // 1: on the walk's path, 2: done.
            let mut color: HashMap<usize, u8> = HashMap::new();
            for root in roots {
                let Some(root) = root else { continue };
                if color.contains_key(&root) {
                    continue;
                }
                color.insert(root, 1);
                // (controller, state, entry) of each controller on the path.
                let mut stack: Vec<(usize, usize, usize)> = vec![(root, 0, 0)];
                while let Some(&(ci, si, ji)) = stack.last() {
                    let c = &pack.controllers[ci];
                    let Some(st) = c.states.get(si) else {
                        color.insert(ci, 2);
                        stack.pop();
                        continue;
                    };
                    let Some(entry) = st.data.animations.get(ji) else {
                        *stack.last_mut().expect("not empty") = (ci, si + 1, 0);
                        continue;
                    };
                    let name = &entry.name;
                    stack.last_mut().expect("not empty").2 += 1;
                    let Some(target) = resolve(name) else {
                        continue;
                    };
                    match color.get(&target) {
                        None => {
                            color.insert(target, 1);
                            stack.push((target, 0, 0));
                        }
                        Some(1) => {
                            let r = &entry.at;
                            let from = stack.iter().position(|f| f.0 == target).unwrap_or(0);
                            let chain: Vec<&str> = (stack[from..].iter())
                                .map(|f| pack.controllers[f.0].id.as_str())
                                .chain([pack.controllers[target].id.as_str()])
                                .collect();
                            let what = format!(
                                "state `{}` of `{}` plays `{name}`, so controller `{}` plays itself ({})",
                                st.name,
                                c.id,
                                pack.controllers[target].id,
                                chain.join(" -> ")
                            );
                            (found.entry((c.file, r.start, r.end)))
                                .or_insert_with(|| (what, BTreeSet::new()))
                                .1
                                .insert(e.identifier.clone());
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        out.extend(per_place(
            pack,
            found,
            Code::ControllerCycle,
            |what, ids| format!("{what} in {ids}"),
            "the game does not nest a controller in itself forever; molang run plays nothing for this entry. Play an animation here, or move the shared states into one controller",
        ));
    }

    fn other_side(side: Side) -> Side {
        match side {
            Side::Resource => Side::Behaviour,
            Side::Behaviour => Side::Resource,
            Side::Any => Side::Any,
        }
    }

    fn side_name(side: Side) -> &'static str {
        match side {
            Side::Resource => "resource pack",
            Side::Behaviour => "behaviour pack",
            Side::Any => "pack",
        }
    }

    fn entities(pack: &Pack, out: &mut Vec<PackDiagnostic>) {
        // Controller-state entries missing for some entities: (file, range) -> entities.
        let mut state_misses: BTreeMap<(usize, usize, usize), (String, BTreeSet<String>)> =
            BTreeMap::new();
        for e in &pack.entities {
            let side = pack.entity_side(e);
            let shorts: HashSet<&str> = e.animations.iter().map(|a| a.short.as_str()).collect();
            for Named { name, at: r, .. } in &e.animate {
                if !shorts.contains(name.as_str()) {
                    out.push(at(
                        pack,
                        e.file,
                        r,
                        Code::UnknownShortName,
                        format!("`{name}` is not in the `animations` of {}", e.identifier),
                        "the game skips this entry; add it to description.animations or fix the name",
                    ));
                }
            }
            for AnimationRef {
                short, id, at: r, ..
            } in &e.animations
            {
                let here = pack.animations_for(side, id).next().is_some()
                    || pack.controllers_for(side, id).next().is_some();
                if here {
                    continue;
                }
                let there = other_side(side);
                let elsewhere = there != Side::Any
                    && (pack.animations_for(there, id).next().is_some()
                        || pack.controllers_for(there, id).next().is_some());
                let message = if elsewhere {
                    format!(
                        "`{id}` ({short}) is defined only in a {}; {} plays {} animations and controllers only",
                        side_name(there),
                        e.identifier,
                        side_name(side)
                    )
                } else {
                    let mut m = format!("no file defines animation or controller `{id}` ({short})");
                    let known = pack
                        .animations
                        .iter()
                        .filter(|a| pack.files[a.file].side.meets(side))
                        .map(|a| a.id.as_str())
                        .chain(
                            pack.controllers
                                .iter()
                                .filter(|c| pack.files[c.file].side.meets(side))
                                .map(|c| c.id.as_str()),
                        );
                    if let Some(k) = case_only(id, known) {
                        m.push_str(&format!(
                            "; did you mean `{k}`? (animation and controller identifiers match with case)"
                        ));
                    }
                    m
                };
                out.push(at(
                    pack,
                    e.file,
                    r,
                    Code::UndefinedAnimation,
                    message,
                    "the game plays nothing for this name; check the identifier, or load the pack that defines it (`--pack`)",
                ));
            }
            for id in e.animations.iter().map(|a| &a.id) {
                for c in pack.controllers_for(side, id) {
                    for s in &c.states {
                        for Named { name, at: r, .. } in &s.data.animations {
                            if !shorts.contains(name.as_str()) {
                                let entry = state_misses
                                    .entry((c.file, r.start, r.end))
                                    .or_insert_with(|| {
                                        (
                                            format!(
                                                "state `{}` of `{}` plays `{name}`",
                                                s.name, c.id
                                            ),
                                            BTreeSet::new(),
                                        )
                                    });
                                entry.1.insert(e.identifier.clone());
                            }
                        }
                    }
                }
            }
        }
        out.extend(per_place(
            pack,
            state_misses,
            Code::UnknownShortName,
            |what, ids| format!("{what}, which is not in the `animations` of {ids}"),
            "the game skips this entry for that entity; add the name to its description.animations",
        ));
    }

    /// W0811: entity `e` names geometry `id` (short name `short`, at `r`), which no layer
    /// defines.
    pub(crate) fn undefined_geometry(
        pack: &Pack,
        e: &crate::pack::Entity,
        short: &str,
        id: &str,
        r: &Range<usize>,
    ) -> PackDiagnostic {
        at(
            pack,
            e.file,
            r,
            Code::UndefinedGeometry,
            format!("no layer defines geometry `{id}` ({short}) of {}", e.identifier),
            "the game draws nothing for this geometry; check the identifier, or load the pack that defines it (`--pack`)",
        )
    }

    /// W0812: entity `e` names render controller `id` (at `r`), which no layer defines.
    pub(crate) fn undefined_render_controller(
        pack: &Pack,
        e: &crate::pack::Entity,
        id: &str,
        r: &Range<usize>,
    ) -> PackDiagnostic {
        let mut message = format!(
            "no layer defines render controller `{id}` of {}",
            e.identifier
        );
        if let Some(k) = case_only(id, pack.render_controllers.iter().map(|c| c.id.as_str())) {
            message.push_str(&format!(
                "; did you mean `{k}`? (render controller identifiers match with case)"
            ));
        }
        at(
            pack,
            e.file,
            r,
            Code::UndefinedRenderController,
            message,
            "the game skips this render controller, so what it draws is not drawn; check the identifier, or load the pack that defines it (`--pack`)",
        )
    }

    /// A name in `known` that equals `id` but for case, for "did you mean".
    fn case_only<'k>(id: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
        known
            .into_iter()
            .find(|k| *k != id && k.eq_ignore_ascii_case(id))
    }

    /// Geometry, render controllers and textures a client entity or attachable names that no
    /// layer defines (W0811-W0813). Case rules, as the loader and runtime resolve them:
    /// geometry identifiers and texture paths match without case, render-controller
    /// identifiers (like animation identifiers) with case. Materials are not judged: the
    /// game's own materials (`entity_alphatest`, ...) are built in, not in any pack.
    fn references(pack: &Pack, out: &mut Vec<PackDiagnostic>) {
        let mut texture_folders: HashSet<&str> = HashSet::new();
        for t in &pack.textures {
            let mut parts = t.splitn(3, '/');
            if let (Some(_), Some(folder), Some(_)) = (parts.next(), parts.next(), parts.next()) {
                texture_folders.insert(folder);
            }
        }
        for e in &pack.entities {
            if !matches!(e.kind, EntityKind::Client | EntityKind::Attachable) {
                continue;
            }
            for Resource {
                short,
                value: id,
                at: r,
            } in &e.geometries
            {
                if pack.geometries_named(id).next().is_none() && !builtin_geometry(id) {
                    out.push(undefined_geometry(pack, e, short, id, r));
                }
            }
            for Named {
                name: id, at: r, ..
            } in &e.render_controllers
            {
                if pack.render_controllers_named(id).next().is_some() {
                    continue;
                }
                out.push(undefined_render_controller(pack, e, id, r));
            }
            for Resource {
                short,
                value: path,
                at: r,
            } in &e.textures
            {
                let key = path.replace('\\', "/").to_ascii_lowercase();
                let key = key.trim_start_matches('/');
                let mut parts = key.splitn(3, '/');
                let judged = parts.next() == Some("textures")
                    && parts.next().is_some_and(|f| texture_folders.contains(f))
                    && parts.next().is_some();
                if !judged || pack.textures.contains(key) {
                    continue;
                }
                out.push(at(
                    pack,
                    e.file,
                    r,
                    Code::MissingTexture,
                    format!(
                        "no layer has an image for texture `{path}` ({short}) of {} (looked for .png, .tga, .jpg)",
                        e.identifier
                    ),
                    "the game draws the missing-texture pattern; check the path (without extension), or load the pack that has it (`--pack`)",
                ));
            }
        }
    }

    /// Geometry the base game always defines, outside `models/entity/`: the vanilla resource
    /// pack sits beneath every add-on, and these come from its legacy model files
    /// (`models/mobs.json` and its neighbours), which packs cannot leave out. The armour pieces
    /// are the ones Microsoft's custom-armour tutorial tells attachables to use
    /// (learn.microsoft.com/minecraft/creator/documents/customarmor); the rest are the ids the
    /// vanilla attachables and entities name that no `models/entity/` file defines. Matched
    /// without case, as geometry identifiers are.
    pub(crate) fn builtin_geometry(id: &str) -> bool {
        const BUILTIN: &[&str] = &[
            "geometry.agent",
            "geometry.bed",
            "geometry.boat",
            "geometry.cape",
            "geometry.chest_boat",
            "geometry.dragon_head",
            "geometry.elytra",
            "geometry.humanoid.armor.boots",
            "geometry.humanoid.armor.chestplate",
            "geometry.humanoid.armor.helmet",
            "geometry.humanoid.armor.leggings",
            "geometry.mob_head",
            "geometry.player_head",
        ];
        BUILTIN.iter().any(|b| b.eq_ignore_ascii_case(id))
    }

    /// Lower-case bone names of a geometry and its parents; `None` when some geometry in the
    /// chain is not in the pack (then nothing can be judged).
    fn geometry_bones(pack: &Pack, id: &str, into: &mut HashSet<String>) -> Option<()> {
        let chain = pack.geometry_chain(id)?;
        into.extend(chain.bone_names());
        chain.complete().then_some(())
    }

    fn bones(pack: &Pack, out: &mut Vec<PackDiagnostic>) {
        // Animation index -> the bone sets of the entities that play it (None: unknown),
        // each set shared by the animations of its entity rather than copied per animation.
        let mut players: HashMap<usize, Vec<Option<std::rc::Rc<HashSet<String>>>>> = HashMap::new();
        let anim_index: HashMap<*const crate::pack::Animation, usize> = pack
            .animations
            .iter()
            .enumerate()
            .map(|(i, a)| (a as *const _, i))
            .collect();
        for e in &pack.entities {
            if e.kind == EntityKind::Behaviour {
                continue;
            }
            let mut set = HashSet::new();
            let known = !e.geometries.is_empty()
                && e.geometries
                    .iter()
                    .all(|g| geometry_bones(pack, &g.value, &mut set).is_some());
            set.extend(
                crate::engine_vars::engine_bones(&e.identifier)
                    .iter()
                    .map(|b| b.to_string()),
            );
            let bones = known.then(|| std::rc::Rc::new(set));
            let mut seen = HashSet::new();
            for id in e.animations.iter().map(|a| &a.id) {
                for a in pack.animations_for(Side::Resource, id) {
                    let i = anim_index[&(a as *const _)];
                    if seen.insert(i) {
                        players.entry(i).or_default().push(bones.clone());
                    }
                }
            }
        }
        let mut list: Vec<_> = players.into_iter().collect();
        list.sort_by_key(|(i, _)| *i);
        for (i, sets) in list {
            if sets.iter().any(Option::is_none) {
                continue;
            }
            let a = &pack.animations[i];
            for (bone, r) in &a.bones {
                let lower = bone.to_ascii_lowercase();
                if sets.iter().flatten().any(|s| s.contains(&lower)) {
                    continue;
                }
                out.push(at(
                    pack,
                    a.file,
                    r,
                    Code::UnknownBone,
                    format!(
                        "animation `{}` moves bone `{bone}`, which no geometry of the entities playing it has",
                        a.id
                    ),
                    "the game ignores channels of a bone the geometry lacks; check the bone name against the geometry (parents included)",
                ));
            }
        }
    }

    fn flattened(arrays: &HashMap<String, Vec<String>>, name: &str, depth: usize) -> Option<usize> {
        let elements = arrays.get(name)?;
        let mut n = 0;
        for e in elements {
            let lower = e.to_ascii_lowercase();
            if depth < 8 && lower.starts_with("array.") && arrays.contains_key(&lower) {
                n += flattened(arrays, &lower, depth + 1)?;
            } else {
                n += 1;
            }
        }
        Some(n)
    }

    fn arrays(pack: &Pack, out: &mut Vec<PackDiagnostic>) {
        for rc in &pack.render_controllers {
            let arrays: HashMap<String, Vec<String>> = rc
                .arrays
                .iter()
                .map(|(n, e)| (n.to_ascii_lowercase(), e.clone()))
                .collect();
            for &si in &rc.sites {
                let site = &pack.sites[si];
                for (name, index, range) in constant_indexes(&site.text) {
                    let Some(size) = flattened(&arrays, &name, 0) else {
                        continue;
                    };
                    // The game's rule: max(0, i), truncated, then modulo the size.
                    let i = index.max(0.0).trunc();
                    if size == 0 || i < size as f64 {
                        continue;
                    }
                    let wraps = (i % size as f64) as usize;
                    let d = Diagnostic::new(
                        Code::ArrayIndexOutOfRange,
                        Span::new(range.start, range.end),
                        format!(
                            "index {} is past the end of `{name}` ({size} elements)",
                            &site.text[range.clone()]
                        ),
                    )
                    .with_help(format!(
                        "the game wraps the index (modulo the size) and uses element {wraps}; use an index below {size}"
                    ));
                    out.push(PackDiagnostic::at_site(pack, si, d));
                }
            }
        }
    }

    /// `array.name[<number>]` in a site's text: the lower-case array name, the number and
    /// its byte range.
    fn constant_indexes(text: &str) -> Vec<(String, f64, Range<usize>)> {
        let lower = text.to_ascii_lowercase();
        let b = lower.as_bytes();
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(k) = lower[from..].find("array.") {
            let start = from + k;
            from = start + 6;
            if start > 0
                && (b[start - 1].is_ascii_alphanumeric()
                    || b[start - 1] == b'_'
                    || b[start - 1] == b'.')
            {
                continue;
            }
            let mut j = from;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            let name = lower[start..j].to_string();
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if b.get(j) != Some(&b'[') {
                continue;
            }
            j += 1;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            let n0 = j;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.' || b[j] == b'-') {
                j += 1;
            }
            let n1 = j;
            if j < b.len() && b[j] == b'f' {
                j += 1;
            }
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if n1 == n0 || b.get(j) != Some(&b']') {
                continue;
            }
            if let Ok(n) = lower[n0..n1].parse::<f64>() {
                out.push((name, n, n0..n1));
            }
        }
        out
    }
}
