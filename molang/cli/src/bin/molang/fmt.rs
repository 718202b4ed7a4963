//! `molang fmt`: formats the Molang strings of pack JSON files (the library computes the
//! edits, `molang::format`; this prints diffs and writes files when asked).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use molang::format::{format_pack, Skip, Style};
use molang::text::{one_line, terminal_safe};

#[derive(Args)]
pub struct FmtArgs {
    /// Pack folders or JSON files (layered as `check` does).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print nothing but the files that would change; exit 1 if any would.
    #[arg(long, conflicts_with = "write")]
    pub check: bool,
    /// Rewrite the files in place (only the Molang strings change).
    #[arg(long)]
    pub write: bool,
    /// The shortest text instead of the readable one (for shipping).
    #[arg(long)]
    pub minify: bool,
}

pub fn main(args: FmtArgs) -> ExitCode {
    let pack = molang::pack::load(&args.paths);
    let style = if args.minify {
        Style::Minify
    } else {
        Style::Pretty
    };
    let mut failed = false;
    for p in &pack.problems {
        // File names and messages come from the pack: escaped for the terminal.
        eprintln!(
            "{}",
            terminal_safe(&format!(
                "{}: not formatted: {}",
                p.file.display(),
                p.message
            ))
        );
        failed = true;
    }
    for n in &pack.notes {
        eprintln!("note: {}: {}", n.path.display(), n.message);
    }
    if pack
        .files
        .iter()
        .all(|f| f.kind == molang::pack::FileKind::Invalid)
        && pack.problems.is_empty()
    {
        eprintln!("no pack JSON files under the paths given");
        return ExitCode::from(2);
    }
    let (mut changed, mut sites, mut unstable, mut not_written) = (0, 0, 0, 0);
    for f in format_pack(&pack, style) {
        sites += f.sites;
        for (site, skip) in &f.skipped {
            if *skip == Skip::Unstable {
                // Never expected: the formatter refused its own output.
                let s = &pack.sites[*site];
                let (line, col) = pack.locate(s, 0);
                eprintln!(
                    "{}:{line}:{col}: left as written (formatting would not read back the same)",
                    one_line(&pack.files[s.file].path.display().to_string())
                );
                unstable += 1;
            }
        }
        if f.edits.is_empty() {
            continue;
        }
        let file = &pack.files[f.file];
        let new = f.apply(&file.source);
        if args.check {
            changed += 1;
            println!("{}", one_line(&file.path.display().to_string()));
        } else if args.write {
            // Only a file actually written counts as reformatted.
            if file.via_link {
                // Writing through a link would change a file the pack only points at.
                eprintln!(
                    "note: {}: reached through a symbolic link; not written (format the file it points to)",
                    file.path.display()
                );
                continue;
            }
            match write(&file.path, &file.source, &new) {
                Ok(()) => changed += 1,
                Err(e) => {
                    eprintln!("{}: {e}", one_line(&file.path.display().to_string()));
                    failed = true;
                    not_written += 1;
                }
            }
        } else {
            changed += 1;
            let name = file.path.display().to_string();
            print!(
                "{}",
                similar::TextDiff::from_lines(&file.source, &new)
                    .unified_diff()
                    .context_radius(2)
                    .header(&name, &name)
            );
        }
    }
    let verb = if args.write {
        "reformatted"
    } else {
        "would be reformatted"
    };
    // Counted as `check` counts them: every file read but the JSON of no known kind.
    let files = pack
        .files
        .iter()
        .filter(|f| f.kind != molang::pack::FileKind::Other)
        .count();
    println!(
        "{files} files, {sites} expressions formatted: {changed} file{} {verb}{}",
        if changed == 1 { "" } else { "s" },
        if not_written > 0 {
            format!(", {not_written} could not be written")
        } else {
            String::new()
        }
    );
    if failed || unstable > 0 {
        ExitCode::from(2)
    } else if args.check && changed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes `new` over `path` if the file still holds `old` (a byte-order mark kept).
fn write(path: &std::path::Path, old: &str, new: &str) -> Result<(), String> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return Err("not a regular file (a symbolic link?); left as it is".to_string());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it again: {e}"))?;
    let bom = bytes.starts_with(&[0xEF, 0xBB, 0xBF]);
    let current = &bytes[if bom { 3 } else { 0 }..];
    if current != old.as_bytes() {
        return Err("changed while formatting; left as it is".to_string());
    }
    let mut out = Vec::with_capacity(new.len() + 3);
    if bom {
        out.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    out.extend_from_slice(new.as_bytes());
    std::fs::write(path, out).map_err(|e| format!("cannot write it: {e}"))
}
