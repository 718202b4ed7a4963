//! Output for CI services: SARIF 2.1.0 (GitHub code scanning and other SARIF viewers) and
//! GitHub Actions workflow commands (annotations on the pull request's files).

use std::collections::BTreeMap;

use super::{Code, Severity};

/// One reported diagnostic placed in a file, as the CI formats need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The file, relative to the folder the tool ran in, with `/` separators.
    pub file: String,
    /// 1-based; columns count characters.
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub code: Code,
    /// The level it is reported at.
    pub level: Severity,
    pub message: String,
    pub help: Option<String>,
    /// What the game does with it.
    pub game: &'static str,
}

impl Finding {
    /// The message, then the help and what the game does, one per line.
    fn full_text(&self) -> String {
        let mut t = self.message.clone();
        if let Some(h) = &self.help {
            t.push('\n');
            t.push_str(h);
        }
        t.push('\n');
        t.push_str(self.game);
        t
    }
}

/// A GitHub workflow command's data: `%`, CR and LF escaped.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: its data escaping, and `:` and `,`.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One annotation line: `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=CODE::message`.
pub fn render_github(f: &Finding) -> String {
    format!(
        "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
        f.level.as_str(),
        escape_property(&f.file),
        f.line,
        f.column,
        f.end_line,
        f.end_column,
        escape_property(&format!("{} {}", f.code.as_str(), f.code.title())),
        escape_data(&f.full_text()),
    )
}

/// A relative path as a URI reference: every byte outside the unreserved set and `/`
/// percent-encoded (spaces, `#`, `%`, non-ASCII names).
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The whole SARIF 2.1.0 log of one run: a rule per code that occurs (with its title), a
/// result per finding. `version` is the tool's; `information_uri` its home page, if known.
pub fn render_sarif(findings: &[Finding], version: &str, information_uri: Option<&str>) -> String {
    let codes: BTreeMap<Code, usize> = {
        let mut used: Vec<Code> = findings.iter().map(|f| f.code).collect();
        used.sort();
        used.dedup();
        used.into_iter().enumerate().map(|(i, c)| (c, i)).collect()
    };
    let rules: Vec<serde_json::Value> = codes
        .keys()
        .map(|c| {
            serde_json::json!({
                "id": c.as_str(),
                "shortDescription": {"text": c.title()},
                "defaultConfiguration": {"level": level(c.default_severity())},
            })
        })
        .collect();
    let results: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "ruleId": f.code.as_str(),
                "ruleIndex": codes[&f.code],
                "level": level(f.level),
                "message": {"text": f.full_text()},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(&f.file)},
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        }
                    }
                }],
            })
        })
        .collect();
    let mut driver = serde_json::json!({
        "name": "molang",
        "version": version,
        "rules": rules,
    });
    if let Some(u) = information_uri.filter(|u| !u.is_empty()) {
        driver["informationUri"] = serde_json::Value::String(u.to_string());
    }
    let log = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(file: &str, message: &str) -> Finding {
        Finding {
            file: file.into(),
            line: 3,
            column: 5,
            end_line: 3,
            end_column: 9,
            code: Code::UnknownBone,
            level: Severity::Error,
            message: message.into(),
            help: Some("rename it".into()),
            game: "The game still loads this expression.",
        }
    }

    #[test]
    fn github_annotations_escape_data_and_properties() {
        let line = render_github(&finding("a,b/c:d%.json", "100% of\r\n`x`"));
        assert_eq!(
            line,
            "::error file=a%2Cb/c%3Ad%25.json,line=3,col=5,endLine=3,endColumn=9,\
title=W0806 animation moves a bone the geometry does not have::100%25 of%0D%0A`x`%0Arename it%0AThe game still loads this expression.\n"
        );
    }

    #[test]
    fn sarif_has_one_rule_per_code_and_relative_uris() {
        let mut b = finding("my pack/é.json", "m");
        b.code = Code::NeverSet;
        b.level = Severity::Warning;
        let log: serde_json::Value = serde_json::from_str(&render_sarif(
            &[finding("p/a.json", "m"), b.clone(), b],
            "1.2.3",
            Some("https://example.org/molang"),
        ))
        .expect("JSON");
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["version"], "1.2.3");
        let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
        let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["W0604", "W0806"]);
        let results = run["results"].as_array().expect("results");
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["ruleIndex"], 1);
        assert_eq!(results[1]["level"], "warning");
        assert_eq!(
            results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "my%20pack/%C3%A9.json"
        );
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["region"]["endColumn"],
            9
        );
    }
}
