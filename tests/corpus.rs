//! Every Molang string of Mojang's vanilla packs must check with no error (the game loads
//! all of vanilla) and with no false read-before-set alarm. Needs `../shared/corpus/`.
//!
//! Lone strings are checked with `CheckOptions::default()`: only `temp.*` reads are judged
//! there (a lone expression cannot know what `variable.*` holds), and temps start empty on
//! every run, so a temp read-before-set on vanilla is either a real bug in vanilla or a
//! false alarm of ours. Records flagged `fragment` (a piece of a script split over array
//! entries) are skipped; the joined scripts are checked instead.
//!
//! A script slot given as an array of several strings (`pre_animation`, `initialize`,
//! `on_entry`, `timeline`) is one program: the entries are joined, and temps set by one
//! entry are read by the next (`t.variant = ...;` then `v.is_cold = t.variant == 'cold';`).
//! A string that only ever occurs as such an entry is therefore judged for read-before-set
//! inside its joined script, not alone; it must still have no error of any other kind.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};

use molang::ir::Names;
use molang::{CheckOptions, Code, Severity};

/// Read-before-set codes: none of them may fire on vanilla.
const READ_BEFORE_SET: [Code; 3] = [
    Code::ReadBeforeSet,
    Code::MaybeReadBeforeSet,
    Code::ReadBeforeSetFirstFrame,
];

#[derive(Default)]
struct Tally {
    checked: usize,
    errors: usize,
    warnings: BTreeMap<&'static str, usize>,
    /// Distinct warning messages, to show what vanilla trips over.
    warning_messages: BTreeMap<String, usize>,
    error_codes: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
    /// Read-before-set reports on lone entries of multi-entry scripts (judged joined).
    deferred: usize,
}

/// Whether an occurrence sits in a script slot whose array entries are joined.
fn joined_slot(o: &serde_json::Value) -> bool {
    let kind = o["kind"].as_str().unwrap_or("");
    let role = o["role"].as_str().unwrap_or("");
    matches!(kind, "initialize" | "pre_animation" | "on_entry") || role.contains("timeline")
}

/// Strings whose every occurrence is one entry of a script array of two or more entries.
fn entry_only_strings() -> HashSet<String> {
    let occurrences = common::read_lines("corpus/bedrock-samples-molang-occurrences.jsonl");
    let parent = |o: &serde_json::Value| -> Option<(String, String)> {
        let ptr = o["ptr"].as_str()?;
        let (head, last) = ptr.rsplit_once('/')?;
        let file = o["file"].as_str()?;
        (joined_slot(o) && last.parse::<u32>().is_ok())
            .then(|| (file.to_string(), head.to_string()))
    };
    let mut entries: HashMap<(String, String), usize> = HashMap::new();
    for o in &occurrences {
        if let Some(p) = parent(o) {
            *entries.entry(p).or_default() += 1;
        }
    }
    // expr -> (occurrences as an entry of a multi-entry script, all occurrences)
    let mut seen: HashMap<String, (usize, usize)> = HashMap::new();
    for o in &occurrences {
        let multi = parent(o).is_some_and(|p| entries[&p] >= 2);
        let e = seen
            .entry(o["expr"].as_str().unwrap().to_string())
            .or_default();
        e.0 += usize::from(multi);
        e.1 += 1;
    }
    seen.into_iter()
        .filter(|(_, (m, all))| m == all)
        .map(|(k, _)| k)
        .collect()
}

impl Tally {
    /// `in_joined_script`: read-before-set is judged in the joined script instead.
    fn check(&mut self, what: &str, src: &str, in_joined_script: bool) {
        self.checked += 1;
        let checked = molang::check(src, &CheckOptions::default(), &mut Names::default());
        for d in &checked.diagnostics {
            let rbs = READ_BEFORE_SET.contains(&d.code);
            if rbs && in_joined_script {
                self.deferred += 1;
                continue;
            }
            let bad = d.severity == Severity::Error || rbs;
            match d.severity {
                Severity::Error => {
                    self.errors += 1;
                    *self.error_codes.entry(d.code.as_str()).or_default() += 1;
                }
                Severity::Warning => {
                    *self.warnings.entry(d.code.as_str()).or_default() += 1;
                    *self
                        .warning_messages
                        .entry(format!("{} {}", d.code.as_str(), d.message))
                        .or_default() += 1;
                }
            }
            if bad {
                let text = src.get(d.span.range()).unwrap_or("?");
                self.failures.push(format!(
                    "{what}: {} {} at {:?} `{text}`: {}\n    in {:?}",
                    d.code.as_str(),
                    d.severity.as_str(),
                    d.span,
                    d.message,
                    src.chars().take(300).collect::<String>()
                ));
            }
        }
    }
}

#[test]
fn vanilla_corpus_checks_clean() {
    let strings = common::read_lines("corpus/bedrock-samples-molang.jsonl");
    let scripts = common::read_lines("corpus/bedrock-samples-molang-scripts.jsonl");
    assert!(
        strings.len() >= 3000,
        "corpus looks truncated: {} strings",
        strings.len()
    );

    let entry_only = entry_only_strings();
    let mut tally = Tally::default();
    let mut fragments = 0;
    for r in &strings {
        if r.get("fragment").and_then(|f| f.as_bool()) == Some(true) {
            fragments += 1;
            continue;
        }
        let src = r["expr"].as_str().expect("expr");
        let what = format!(
            "{}{}",
            r["file"].as_str().unwrap_or("?"),
            r["ptr"].as_str().unwrap_or("?")
        );
        tally.check(&what, src, entry_only.contains(src));
    }
    let lone = tally.checked;
    for r in &scripts {
        let src = r["expr"].as_str().expect("expr");
        let what = format!(
            "joined {}{}",
            r["file"].as_str().unwrap_or("?"),
            r["ptr"].as_str().unwrap_or("?")
        );
        tally.check(&what, src, false);
    }

    println!(
        "vanilla corpus: {lone} strings checked ({fragments} fragments skipped), {} joined scripts",
        scripts.len()
    );
    println!(
        "{} strings only occur as entries of multi-entry scripts; {} read-before-set reports on them alone are judged in their joined script",
        entry_only.len(),
        tally.deferred
    );
    println!("errors: {} {:?}", tally.errors, tally.error_codes);
    let total_warnings: usize = tally.warnings.values().sum();
    println!("warnings: {total_warnings}");
    for (code, n) in &tally.warnings {
        println!("  {code}: {n}");
    }
    for (message, n) in &tally.warning_messages {
        println!("    {n:>3} x {message}");
    }
    assert!(
        tally.failures.is_empty(),
        "{} errors or read-before-set alarms on vanilla:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
}
