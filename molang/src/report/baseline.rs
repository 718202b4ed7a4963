//! `molang check --baseline FILE`: today's diagnostics, written once, so that CI fails only on
//! new ones. A diagnostic matches an entry by code, file (relative to the baseline's folder),
//! subject (the JSON pointer of its Molang string, when it has one) and message, never by
//! line, so edits above it do not break the match. Entries carry counts: two identical
//! diagnostics need a count of 2.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a diagnostic is matched by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub file: String,
    pub code: String,
    pub subject: Option<String>,
    pub message: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    file: String,
    code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subject: Option<String>,
    message: String,
    count: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    /// The format of this file (1).
    molang_baseline: u32,
    diagnostics: Vec<Entry>,
}

const FORMAT: u32 = 1;

/// A multiset of diagnostic keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    counts: BTreeMap<Key, usize>,
}

/// What a baseline makes of today's diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Per diagnostic, in the order given: not in the baseline (report it).
    pub new: Vec<bool>,
    /// Baseline entries (counted) that no diagnostic matched: fixed since.
    pub fixed: usize,
}

impl Baseline {
    pub fn from_keys(keys: impl IntoIterator<Item = Key>) -> Baseline {
        let mut counts = BTreeMap::new();
        for k in keys {
            *counts.entry(k).or_insert(0) += 1;
        }
        Baseline { counts }
    }

    /// Diagnostics the baseline holds, counted.
    pub fn len(&self) -> usize {
        self.counts.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The file's text: pretty JSON, entries sorted by file, code, subject and message, so
    /// that the file diffs well under version control.
    pub fn render(&self) -> String {
        let doc = Document {
            molang_baseline: FORMAT,
            diagnostics: self
                .counts
                .iter()
                .map(|(k, &count)| Entry {
                    file: k.file.clone(),
                    code: k.code.clone(),
                    subject: k.subject.clone(),
                    message: k.message.clone(),
                    count,
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a baseline file's text; a problem is given with its line and column.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let doc: Document =
            serde_json::from_str(text).map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))?;
        if doc.molang_baseline != FORMAT {
            return Err(format!(
                "baseline format {} is not one this molang reads (it reads {FORMAT})",
                doc.molang_baseline
            ));
        }
        let mut counts = BTreeMap::new();
        for e in doc.diagnostics {
            *counts
                .entry(Key {
                    file: e.file,
                    code: e.code,
                    subject: e.subject,
                    message: e.message,
                })
                .or_insert(0) += e.count;
        }
        Ok(Baseline { counts })
    }

    /// Which of `keys` are new: each baseline entry absorbs up to its count of matching
    /// diagnostics, in order.
    pub fn compare(&self, keys: &[Key]) -> Outcome {
        let mut left = self.counts.clone();
        let new = keys
            .iter()
            .map(|k| match left.get_mut(k) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            })
            .collect();
        Outcome {
            new,
            fixed: left.values().sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(file: &str, code: &str, message: &str) -> Key {
        Key {
            file: file.into(),
            code: code.into(),
            subject: Some("/a/b".into()),
            message: message.into(),
        }
    }

    #[test]
    fn counts_match_one_for_one_and_the_file_reads_back() {
        let a = key("entity/a.json", "W0806", "bone `x`");
        let b = key("entity/a.json", "W0604", "v.y");
        let base = Baseline::from_keys([a.clone(), a.clone(), b.clone()]);
        let text = base.render();
        assert_eq!(Baseline::parse(&text), Ok(base.clone()));
        assert!(text.find("W0604") < text.find("W0806"), "{text}");
        let c = key("entity/b.json", "W0806", "bone `x`");
        let out = base.compare(&[a.clone(), c, a.clone(), a]);
        assert_eq!(out.new, vec![false, true, false, true]);
        assert_eq!(out.fixed, 1);
    }

    #[test]
    fn a_bad_file_says_where() {
        let e = Baseline::parse("{\"molang_baseline\": 1,\n \"diagnostics\": [{\"file\": 3}]}")
            .expect_err("bad");
        assert!(e.starts_with("2:"), "{e}");
        assert!(Baseline::parse("{\"molang_baseline\": 2, \"diagnostics\": []}").is_err());
    }
}
