//! `doggoyle table` and `doggoyle readme`: the README's measured tables.

use crate::TableArgs;
use clap::Parser;
use std::process::ExitCode;

/// The table for `args`, or the exit code after saying what is wrong.
pub fn table(args: &TableArgs, verbose: bool) -> Result<String, ExitCode> {
    let spec = args.spec()?;
    let mut log = |s: &str| {
        if verbose || args.verbose {
            eprintln!("{s}")
        }
    };
    ik_gait::tables::compute(&spec, &mut log).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

/// `doggoyle readme FILE [--write]`.
pub fn readme(file: &std::path::Path, write: bool, verbose: bool) -> ExitCode {
    #[derive(Parser)]
    #[command(name = "doggoyle table")]
    struct One {
        #[command(flatten)]
        args: TableArgs,
    }
    let text = match crate::io::read_text(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let blocks = match ik_gait::tables::blocks(&text) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let mut tables = Vec::new();
    let mut stale = 0;
    for b in &blocks {
        let line = text[..b.body.start].lines().count();
        let args = match One::try_parse_from(
            std::iter::once("doggoyle table".to_string()).chain(b.args.iter().cloned()),
        ) {
            Ok(o) => o.args,
            Err(e) => {
                eprintln!("error: {}:{line}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        if verbose {
            eprintln!(
                "{}:{line}: doggoyle table {}",
                file.display(),
                b.args.join(" ")
            );
        }
        let t = match table(&args, verbose) {
            Ok(t) => t,
            Err(code) => return code,
        };
        if t != text[b.body.clone()] {
            stale += 1;
            eprintln!(
                "{}:{line}: `doggoyle table {}` {}",
                file.display(),
                b.args.join(" "),
                if write { "updated" } else { "differs" }
            );
        }
        tables.push(t);
    }
    if write && stale > 0 {
        let new = ik_gait::tables::splice(&text, &blocks, &tables);
        if let Err(e) = crate::io::write_file(file, &new) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    eprintln!(
        "{} tables, {stale} {}",
        blocks.len(),
        if write { "rewritten" } else { "out of date" }
    );
    if stale > 0 && !write {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
