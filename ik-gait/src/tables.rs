//! The measured tables of README.md as the checks compute them (`doggoyle table`), and the
//! README blocks they fill (`doggoyle readme README.md --write` re-runs every block).
//!
//! A block is the table between `<!-- doggoyle table ARGS -->` and `<!-- end doggoyle table
//! -->`, where ARGS are the `doggoyle table` arguments that print it, so every table says how
//! it was made and one command makes them all again.

use crate::checks::{run_checks, Plan, Row};
use crate::error::{Error, ErrorKind};
use crate::presets;
use crate::runner::Backend;
use crate::scenarios::{self, Scenario};

/// What one table covers: one column per (preset, back end, soak seed).
#[derive(Clone, Debug)]
pub struct TableSpec {
    pub presets: Vec<String>,
    /// Scenario names; `all` for every named scenario, `none` for the soak alone.
    pub scenarios: Vec<String>,
    pub fps: Vec<f32>,
    pub backends: Vec<Backend>,
    pub soak_runs: usize,
    pub seeds: Vec<u64>,
}

pub const BEGIN: &str = "<!-- doggoyle table ";
pub const END: &str = "<!-- end doggoyle table -->";

/// The scenarios a spec names.
pub fn scenarios_of(names: &[String]) -> Result<Vec<Scenario>, Error> {
    let mut out = Vec::new();
    for n in names {
        match n.as_str() {
            "all" => out.extend(scenarios::named()),
            "none" => {}
            _ => out.push(scenarios::find(n).ok_or_else(|| {
                Error::new(
                    ErrorKind::Config,
                    format!("unknown scenario `{n}`; see `doggoyle scenarios`"),
                )
            })?),
        }
    }
    Ok(out)
}

/// Runs the checks for every column and returns the Markdown table (with a final newline).
pub fn compute(spec: &TableSpec, log: &mut dyn FnMut(&str)) -> Result<String, Error> {
    let mut columns = Vec::new();
    let several = |n: usize| n > 1;
    for name in &spec.presets {
        let p = presets::preset(name).ok_or_else(|| {
            Error::new(
                ErrorKind::Config,
                format!("unknown preset `{name}` ({})", presets::NAMES.join(", ")),
            )
        })?;
        for &backend in &spec.backends {
            for &seed in &spec.seeds {
                let plan = Plan {
                    scenarios: scenarios_of(&spec.scenarios)?,
                    fps: spec.fps.clone(),
                    backend,
                    soak_runs: spec.soak_runs,
                    soak_seed: seed,
                };
                log(&format!("{name}, {}, seed {seed}", backend.name()));
                let rows = run_checks(&p, &plan, log)?;
                // The header names only what varies between columns.
                let mut label = Vec::new();
                if several(spec.presets.len()) {
                    label.push(name.clone());
                }
                if several(spec.backends.len()) {
                    label.push(backend.name().to_string());
                }
                if several(spec.seeds.len()) && spec.soak_runs > 0 {
                    label.push(format!("seed {seed}"));
                }
                if label.is_empty() {
                    label.push("measured".into());
                }
                columns.push((label.join(", "), rows));
            }
        }
    }
    Ok(markdown(&columns))
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A Markdown table of check rows with one measured column per run: `#`, check, threshold
/// (the first column's; a column whose threshold differs says its own), then the columns.
/// A failing value is marked **FAIL**.
pub fn markdown(columns: &[(String, Vec<Row>)]) -> String {
    let mut out = String::from("| # | check | threshold |");
    for (name, _) in columns {
        out.push_str(&format!(" {} |", cell(name)));
    }
    out.push_str("\n| --- | --- | --- |");
    out.push_str(&" --- |".repeat(columns.len()));
    out.push('\n');
    let Some((_, first)) = columns.first() else {
        return out;
    };
    for (k, r) in first.iter().enumerate() {
        let (num, check) = r.check.split_once(' ').unwrap_or(("", &r.check));
        out.push_str(&format!(
            "| {} | {} | {} |",
            cell(num),
            cell(check),
            cell(&r.threshold)
        ));
        for (_, rows) in columns {
            let Some(x) = rows.get(k).filter(|x| x.check == r.check) else {
                out.push_str(" |");
                continue;
            };
            let mut v = x.measured.clone();
            if x.threshold != r.threshold {
                v.push_str(&format!(" (bar {})", x.threshold));
            }
            if !x.pass {
                v.push_str(" **FAIL**");
            }
            out.push_str(&format!(" {} |", cell(&v)));
        }
        out.push('\n');
    }
    out
}

/// One table block of a README: its `doggoyle table` arguments and the byte range of the
/// table between the markers.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub args: Vec<String>,
    pub body: std::ops::Range<usize>,
}

/// Every table block of `text`, in order; an unclosed block is an error naming its line.
pub fn blocks(text: &str) -> Result<Vec<Block>, Error> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(k) = text[at..].find(BEGIN) {
        let start = at + k;
        let line = text[..start].lines().count() + 1;
        let close = text[start..].find("-->").ok_or_else(|| {
            Error::new(
                ErrorKind::Config,
                format!("line {line}: the table marker is not closed with -->"),
            )
        })?;
        let args = text[start + BEGIN.len()..start + close]
            .split_whitespace()
            .map(String::from)
            .collect();
        let body_start = text[start + close..]
            .find('\n')
            .map_or(text.len(), |n| start + close + n + 1);
        let end = text[body_start..].find(END).ok_or_else(|| {
            Error::new(
                ErrorKind::Config,
                format!("line {line}: no `{END}` after this table"),
            )
        })?;
        out.push(Block {
            args,
            body: body_start..body_start + end,
        });
        at = body_start + end + END.len();
    }
    Ok(out)
}

/// `text` with each block's table replaced (`tables` in block order).
pub fn splice(text: &str, blocks: &[Block], tables: &[String]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (b, t) in blocks.iter().zip(tables) {
        out.push_str(&text[at..b.body.start]);
        out.push_str(t);
        at = b.body.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_found_and_spliced() {
        let text = "a\n<!-- doggoyle table --soak 2 -->\n| old |\n<!-- end doggoyle table -->\nb\n";
        let b = blocks(text).unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].args, ["--soak", "2"]);
        assert_eq!(&text[b[0].body.clone()], "| old |\n");
        let new = splice(text, &b, &["| new |\n".to_string()]);
        assert_eq!(
            new,
            "a\n<!-- doggoyle table --soak 2 -->\n| new |\n<!-- end doggoyle table -->\nb\n"
        );
        let e = blocks("<!-- doggoyle table x -->\n| t |\n").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Config);
    }
}
