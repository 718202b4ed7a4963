//! Loading for one entity ([`super::load_entity`]): the files `molang run` needs, not the
//! whole pack. Every file is still read and its JSON judged (a broken file stays a problem,
//! as [`super::load`] reports it), but only the files whose text names the entity or what it
//! plays are walked for sites and typed definitions.
//!
//! Which files: a definition's identifier is a JSON string of its file (a key, or an
//! `identifier` value; a legacy geometry key `geometry.a:geometry.parent` before its `:`), so
//! a file that defines something the entity uses holds that string (any case: entity and
//! geometry names match without case). The filter errs on the side of reading: a file with
//! an escape that could spell an identifier is always walked, and so is every file that
//! shares its name with a walked one (a later layer's file of the same path replaces the
//! earlier one whole).

use std::collections::HashSet;

use super::{build, json, read_sources, strip_bom, EntityKind, Limits, Pack, Source};

/// The [`Pack`] of `paths` as far as client entity or attachable `identifier` (`pig` means
/// `minecraft:pig`, case ignored) can see it; the whole pack when no file defines it, so the
/// caller's error can name the entities there are.
pub(super) fn load_entity(paths: &[std::path::PathBuf], identifier: &str) -> Pack {
    let limits = Limits::default();
    let (list, mut problems, extras) = read_sources(paths, &limits, true);
    let wanted = if identifier.contains(':') {
        identifier.to_ascii_lowercase()
    } else {
        format!("minecraft:{}", identifier.to_ascii_lowercase())
    };
    // First the files that may define the entity, for the names it uses.
    let first = naming(&list, std::slice::from_ref(&wanted));
    let defining = build(
        list.iter()
            .zip(&first)
            .filter(|(_, &keep)| keep)
            .map(|(s, _)| s.clone())
            .collect(),
        &limits,
    );
    let mut needles = vec![wanted.clone()];
    let mut found = false;
    for e in defining.entities.iter().filter(|e| {
        matches!(e.kind, EntityKind::Client | EntityKind::Attachable)
            && e.identifier.eq_ignore_ascii_case(&wanted)
    }) {
        found = true;
        needles.extend(e.animations.iter().map(|a| a.id.clone()));
        needles.extend(e.geometries.iter().map(|g| g.value.clone()));
        needles.extend(e.render_controllers.iter().map(|r| r.name.clone()));
    }
    let keep = if !found {
        vec![true; list.len()]
    } else {
        let mut keep = naming(&list, &needles);
        // A legacy geometry inherits from a parent that may live in another file
        // (`geometry.villager.witch.v1.8:geometry.villager.v1.8`): walk its file too, up the
        // chain. Each round adds a name, so the loop ends.
        loop {
            let parents: Vec<String> = list
                .iter()
                .zip(&keep)
                .filter_map(|(s, &k)| k.then_some(s.text.as_ref().ok()?))
                .flat_map(|text| legacy_parents(text, &needles))
                .filter(|p| !needles.iter().any(|n| n.eq_ignore_ascii_case(p)))
                .collect();
            if parents.is_empty() {
                break;
            }
            needles.extend(parents);
            keep = naming(&list, &needles);
        }
        // Broken files stay, so that their problems are reported as `load` reports them.
        {
            use rayon::prelude::*;
            keep.par_iter_mut()
                .zip(&list)
                .for_each(|(k, s)| *k = *k || !well_formed(s));
        }
        if paths.len() > 1 {
            same_names(&list, &mut keep);
        }
        keep
    };
    let mut pack = build(
        list.into_iter()
            .zip(keep)
            .filter_map(|(s, k)| k.then_some(s))
            .collect(),
        &limits,
    );
    problems.append(&mut pack.problems);
    pack.problems = problems;
    extras.into_pack(&mut pack);
    pack
}

/// Which sources must be walked: manifests (they give every file its side and version),
/// unreadable files (their problem), and files holding one of `needles` (any case) as a
/// JSON string, or before a `:` in one (legacy geometry keys name their parent there).
fn naming(list: &[Source], needles: &[String]) -> Vec<bool> {
    use rayon::prelude::*;
    list.par_iter()
        .map(|s| match &s.text {
            Ok(text) => super::is_manifest(&s.path) || names_any(text, needles),
            Err(_) => true,
        })
        .collect()
}

const GEOMETRY: &[u8] = b"geometry.";

/// Whether `text` holds one of `needles` (any case) between two `"` (or, in a legacy
/// `geometry.a:geometry.parent` key, before the `:`). Every run between two quotes is tried,
/// inside a string or not, so comments and odd quoting cannot hide one; an escape that could
/// spell a name (`\u`, `\"`) keeps the file.
fn names_any(text: &str, needles: &[String]) -> bool {
    if text.contains("\\u") || text.contains("\\\"") {
        return true;
    }
    // Most runs are not as long as any needle: compare lengths first.
    let mut lengths = [false; 256];
    for n in needles {
        if let Some(l) = lengths.get_mut(n.len()) {
            *l = true;
        }
    }
    let is_needle = |s: &[u8]| {
        lengths.get(s.len()).is_some_and(|&l| l)
            && needles.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(s))
    };
    text.as_bytes().split(|&b| b == b'"').any(|run| {
        is_needle(run)
            || (run.len() > GEOMETRY.len()
                && run[..GEOMETRY.len()].eq_ignore_ascii_case(GEOMETRY)
                && run
                    .iter()
                    .position(|&b| b == b':')
                    .is_some_and(|c| is_needle(&run[..c])))
    })
}

/// The parents named by legacy keys `geometry.a:geometry.parent` of `text` whose `a` is one
/// of `needles` (any case).
fn legacy_parents(text: &str, needles: &[String]) -> Vec<String> {
    text.split('"')
        .filter_map(|run| {
            let (child, parent) = run.split_once(':')?;
            let (child, parent) = (child.trim(), parent.trim());
            (child.len() > GEOMETRY.len()
                && child.as_bytes()[..GEOMETRY.len()].eq_ignore_ascii_case(GEOMETRY)
                && needles.iter().any(|n| n.eq_ignore_ascii_case(child)))
            .then(|| parent.to_ascii_lowercase())
        })
        .collect()
}

/// Whether the file parses as JSON the way the game reads it (strict JSON is checked first:
/// it is quick, and what it accepts the lenient parse accepts too).
fn well_formed(s: &Source) -> bool {
    let Ok(text) = &s.text else {
        return false;
    };
    let text = strip_bom(text);
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
        || matches!(json::parse(text), Ok(Some(_)))
}

/// Also keeps every source that shares its file name with a kept one: of two files at the
/// same path in two layers the later replaces the earlier, whatever either names.
fn same_names(list: &[Source], keep: &mut [bool]) {
    let name = |s: &Source| {
        s.path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
    };
    let kept: HashSet<String> = list
        .iter()
        .zip(keep.iter())
        .filter(|(_, &k)| k)
        .filter_map(|(s, _)| name(s))
        .collect();
    for (k, s) in keep.iter_mut().zip(list) {
        *k = *k || name(s).is_some_and(|n| kept.contains(&n));
    }
}
