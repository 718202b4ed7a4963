//! The measured tables of README.md as the checks compute them (`doggoyle table`), and the
//! README blocks they fill (`doggoyle readme README.md --write` re-runs every block).
//!
//! A block is the table between `<!-- doggoyle table ARGS -->` and `<!-- end doggoyle table
//! -->`, where ARGS are the `doggoyle table` arguments that print it, so every table says how
//! it was made and one command makes them all again.

use crate::checks::{parity_partner, run_checks, Bar, Check, Plan, Row, Scope};
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
        let t = text(r);
        out.push_str(&format!(
            "| {} | {} | {} |",
            cell(t.number),
            cell(&t.check),
            cell(&t.threshold)
        ));
        for (_, rows) in columns {
            let Some(x) = rows.get(k).filter(|x| same_row(x, r)) else {
                out.push_str(" |");
                continue;
            };
            let xt = text(x);
            let mut v = xt.measured;
            if xt.threshold != t.threshold {
                v.push_str(&format!(" (bar {})", xt.threshold));
            }
            if !x.pass() {
                v.push_str(" **FAIL**");
            }
            out.push_str(&format!(" {} |", cell(&v)));
        }
        out.push('\n');
    }
    out
}

/// Rows of two columns that share a table row: the same check over the same runs. Check 13
/// compares a back end with its partner, so another back end's row 13 is not the same and its
/// cell is left blank.
fn same_row(a: &Row, b: &Row) -> bool {
    (a.check, a.scope) == (b.check, b.scope) && (a.check != Check::Parity || a.backend == b.backend)
}

/// A check row as the tables and `doggoyle check` print it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowText {
    /// `1`, `4a`, `14`.
    pub number: &'static str,
    /// What is checked, in its unit.
    pub check: String,
    pub threshold: String,
    pub measured: String,
}

impl RowText {
    /// The number and the check: `1 planted-paw slip (px/stance)`.
    pub fn label(&self) -> String {
        format!("{} {}", self.number, self.check)
    }
}

/// A value with `prec` decimals, or `n/a` when not measured.
fn f(x: Option<f64>, prec: usize) -> String {
    x.map_or("n/a".to_string(), |v| format!("{v:.prec$}"))
}

/// The text of `row`.
pub fn text(row: &Row) -> RowText {
    let ms = &row.measurements;
    let v = |k: usize| ms.get(k).and_then(|m| m.value);
    let bar = |k: usize| ms.get(k).and_then(|m| m.bar).map_or(f64::NAN, Bar::value);
    let n = |k: usize| f(v(k), 0);
    let scope = match row.scope {
        Scope::All => "",
        Scope::Scenarios => "scenarios",
        Scope::Soak => "soak",
        Scope::SoakWithYaw => "soak with yaw (issue 19)",
    };
    let (check, threshold, measured) = match row.check {
        Check::PawSlip => (
            "planted-paw slip (px/stance)".to_string(),
            format!("< 0.4 (ours < {})", bar(0)),
            format!("{} over {} stances", f(v(0), 6), n(1)),
        ),
        Check::PawFloor => (
            "paw corners vs floor (px)".into(),
            format!(">= {}", bar(0)),
            f(v(0), 6),
        ),
        Check::ChinHeight => (
            "chin height (px)".into(),
            format!(">= {}", bar(0)),
            f(v(0), 4),
        ),
        Check::JointChange20 | Check::JointChange60 => {
            let fps = if row.check == Check::JointChange20 {
                20
            } else {
                60
            };
            let (l, a) = (v(0).unwrap_or(f64::NAN), v(1).unwrap_or(f64::NAN));
            (
                format!("joint change @{fps}fps limb/axial (deg)"),
                format!("<= {} / <= {}", bar(0), bar(1)),
                format!("{l:.2} / {a:.2}"),
            )
        }
        Check::JumpExcess => (
            "jump excess @240/@960 (deg)".into(),
            format!("<= {} / <= {}", bar(0), bar(1)),
            format!("{} / {}", f(v(0), 3), f(v(1), 3)),
        ),
        Check::PhaseMonotone => (
            "phase monotone, rate-limited".into(),
            "no backward step, <= 1.5*3.2*dt".into(),
            format!(
                "min step {}, max rate {} c/s, {} violations",
                f(v(0), 7),
                f(v(1), 3),
                n(2)
            ),
        ),
        Check::GaitSwitch => {
            let worst = match (v(4), v(5), v(6)) {
                (Some(from), Some(to), Some(shift)) => {
                    format!(" (worst: gait {from}->{to}, shift {shift:.3})")
                }
                _ => String::new(),
            };
            (
                format!("gait switch catch-up, {scope} (cycles)"),
                format!("<= {}, new timing to 1e-4", bar(0)),
                format!(
                    "max {} over {} switches ({} over {}), timing {}{worst}",
                    f(v(0), 3),
                    n(1),
                    n(2),
                    bar(0),
                    f(v(3), 7)
                ),
            )
        }
        Check::ElbowAngle => (
            format!("fore elbow angle, {scope} (deg)"),
            format!("<= {}", bar(0)),
            f(v(0), 2),
        ),
        Check::ThighSpeed => (
            "thigh speed @240 steady (deg/s per Hz) / any (deg/s)".into(),
            format!("<= {}*f / <= {}", bar(0), bar(1)),
            format!("{} / {}", f(v(0), 1), f(v(1), 1)),
        ),
        Check::HindReach => (
            format!("hind r/dmax, {scope}"),
            format!(">= {:.2}", bar(0)),
            f(v(0), 4),
        ),
        Check::StanceReach => (
            "stance d - (dmax-1) (px)".into(),
            "<= 0 always".into(),
            format!("max {}, {} frames over", f(v(0), 5), n(1)),
        ),
        Check::RestBake => {
            let x = |k: usize| v(k).unwrap_or(f64::NAN);
            (
                "rest bake: re-bake==baked, lie chin, lie elbow, sit reach, stand err".into(),
                format!("equal, 0.50+-0.01, >=1.49, {:.2}+-0.01, <=0.01deg", bar(3)),
                format!(
                    "{}, {:.4}, {:.4}, {:.4}, {:.4}",
                    if v(0) == Some(0.0) {
                        "equal"
                    } else {
                        "DIFFERENT"
                    },
                    x(1),
                    x(2),
                    x(3),
                    x(4)
                ),
            )
        }
        // With the hitch test (named scenarios) or without it.
        Check::Robustness if ms.len() > 1 => (
            "robustness: non-finite / hitch floor, chin, phase".into(),
            "0 / >= -0.01, >= 0.49, 0".into(),
            format!("{} / {}, {}, {}", n(0), f(v(1), 4), f(v(2), 4), n(3)),
        ),
        Check::Robustness => ("robustness: non-finite outputs".into(), "0".into(), n(0)),
        Check::Parity => {
            let (ours, other) = (row.backend.name(), parity_partner(row.backend).name());
            let measured = format!("{} / {}", f(v(0), 6), f(v(1), 6));
            if ms.iter().all(|m| m.bar.is_none()) {
                (
                    format!("parity: n/a for f64; info: {ours} vs {other} (deg / px)"),
                    "info only".into(),
                    measured,
                )
            } else {
                (
                    format!("parity {ours} vs {other} (deg / px)"),
                    format!("<= {} / <= {}", bar(0), bar(1)),
                    measured,
                )
            }
        }
        Check::NoDrag => (
            "no drag: swinging toe < 0.1 px high, world speed (px/s; px/frame @60)".into(),
            "<= 18 (0.3 px/frame @60)".into(),
            format!(
                "max {} ({} px/frame @60), {} frames over",
                f(v(0), 2),
                f(v(1), 3),
                n(2)
            ),
        ),
    };
    RowText {
        number: row.check.number(),
        check,
        threshold,
        measured,
    }
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
