//! README.md's measured tables are what `doggoyle table` prints for the arguments each block
//! names (`<!-- doggoyle table ARGS -->`), and `doggoyle readme README.md --write` makes them
//! all again. The cheap block (two scenarios at 20 and 60 fps) is re-made here; the others
//! take minutes and are re-made with `doggoyle readme`.

use ik_gait::tables::{blocks, BEGIN, END};
use std::path::{Path, PathBuf};

mod common;
use common::doggoyle;

/// The README block the test re-makes.
const CHEAP: [&str; 4] = ["--scenario", "trot-2.5,sine-gaits", "--fps", "20,60"];

/// The turning scenarios at 60 fps (Measured, "The one FK, measured"), also cheap.
const TURNING_60: [&str; 4] = [
    "--scenario",
    "circle-walk-left,circle-walk-right,circle-trot-left,circle-trot-right,zigzag-gallop,turn-in-place",
    "--fps",
    "60",
];

fn readme() -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

#[test]
fn readme_tables_are_what_doggoyle_table_prints() {
    let (_, text) = readme();
    let found = blocks(&text).unwrap();
    // The Measured table (named scenarios, both back ends), the soak (three seeds, both back
    // ends), the presets side by side and their soaks, and the cheap ones.
    assert!(found.len() >= 6, "{} table blocks", found.len());
    for cheap in [CHEAP, TURNING_60] {
        let b = found.iter().find(|b| b.args == cheap).unwrap_or_else(|| {
            panic!(
                "README.md has the block `doggoyle table {}`",
                cheap.join(" ")
            )
        });
        let mut args = vec!["table"];
        args.extend(cheap);
        let (code, out, err) = doggoyle(&args);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(
            out,
            text[b.body.clone()],
            "README.md's table differs from `doggoyle table {}`; run `doggoyle readme ik-gait/README.md --write`",
            cheap.join(" ")
        );
    }
}

/// `doggoyle readme FILE` finds a stale table (exit 1, naming the line) and `--write` mends
/// it, leaving the text around it alone.
#[test]
fn doggoyle_readme_finds_and_mends_a_stale_table() {
    let (_, text) = readme();
    let b = blocks(&text)
        .unwrap()
        .into_iter()
        .find(|b| b.args == CHEAP)
        .unwrap();
    let good = &text[b.body.clone()];
    let dir = common::tmp_dir("readme");
    let file = dir.join("t.md");
    let stale = good.replacen("| 1 |", "| 1 | stale", 1);
    let doc = format!(
        "# T\n\ntext\n{BEGIN}{} -->\n{stale}{END}\nmore\n",
        CHEAP.join(" ")
    );
    std::fs::write(&file, &doc).unwrap();
    let f = file.to_str().unwrap();
    let (code, _, err) = doggoyle(&["readme", f]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("t.md:4:") && err.contains("differs"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        doc,
        "no --write, no change"
    );
    let (code, _, err) = doggoyle(&["readme", f, "--write"]);
    assert_eq!(code, Some(0), "{err}");
    let want = format!(
        "# T\n\ntext\n{BEGIN}{} -->\n{good}{END}\nmore\n",
        CHEAP.join(" ")
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The number a README sentence gives before `word`, as digits or as an English word.
fn count_before(text: &str, word: &str) -> usize {
    const WORDS: [&str; 16] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen",
    ];
    let at = text
        .find(word)
        .unwrap_or_else(|| panic!("the README says nothing before `{word}`"));
    let n = text[..at].split_whitespace().last().unwrap();
    n.parse()
        .ok()
        .or_else(|| WORDS.iter().position(|w| w == &n))
        .unwrap_or_else(|| panic!("`{n} {word}` is not a count"))
}

/// ik-gait/README.md's Plots section names every file `doggoyle plot` writes, and counts them
/// right (the text once said four while the program wrote five).
#[test]
fn the_plots_section_lists_what_plot_writes() {
    let (_, text) = readme();
    let dir = common::tmp("plots");
    let out = dir.to_str().unwrap();
    let (code, _, err) = doggoyle(&["plot", "--scenario", "trot-2.5", "--out", out]);
    assert_eq!(code, Some(0), "{err}");
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let section = &text[text.find("## Plots").unwrap()..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    assert_eq!(
        count_before(section, "SVG files"),
        written.len(),
        "the Plots section's count of files; `doggoyle plot` wrote {written:?}"
    );
    for f in &written {
        assert!(
            section.contains(&format!("`{f}`")),
            "the Plots section does not describe `{f}`"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The top-level README says how many checks `doggoyle check` prints and that they all pass;
/// one named scenario shows both.
#[test]
fn the_top_readme_counts_the_checks_doggoyle_prints() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let text = std::fs::read_to_string(top).unwrap();
    let said = count_before(&text, "checks (planted-paw slip");
    let (code, out, err) = doggoyle(&["check", "--scenario", "trot-2.5", "--backend", "interp"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    // Check 4 has three rows (4a, 4b, 4c): count the checks by number.
    let mut numbers: Vec<&str> = rows
        .iter()
        .map(|r| r.split_whitespace().next().unwrap())
        .map(|n| n.trim_end_matches(|c: char| c.is_ascii_alphabetic()))
        .collect();
    numbers.dedup();
    assert_eq!(
        said,
        numbers.len(),
        "README.md's count of checks; rows:\n{out}"
    );
    assert!(
        text.contains(&format!("all {said} pass")),
        "README.md says whether all {said} checks pass"
    );
    assert!(rows.iter().all(|r| r.trim_end().ends_with("PASS")), "{out}");
}
