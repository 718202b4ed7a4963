//! The `molang` command. One file per subcommand: each declares its arguments, calls the
//! library and prints; the library computes and never prints or exits.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc rather than glibc malloc: `molang check` of the vanilla resource pack makes
/// about a million allocations on several threads (glibc grew a heap arena per worker thread page by page).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod args;
mod bench;
mod check;
mod eval;
mod fmt;
mod fuzz;
mod lsp;
mod run;
mod test;

#[derive(Parser)]
#[command(
    name = "molang",
    version,
    about = "Check and run Minecraft Bedrock Molang offline, the way the game does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
#[command(allow_negative_numbers = true)]
enum Command {
    /// Check packs, files or one expression; report every problem and what the game does.
    ///
    /// Each pack is a layer, in order (the `--pack` ones first, then the positional ones):
    /// later packs override earlier ones by identifier and by file path, as the game stacks
    /// an add-on over vanilla (`--pack vanilla/resource_pack --pack my_addon/RP`).
    Check(check::Args),
    /// Evaluate one expression (or a JSON-lines batch): native code (JIT) by default, the
    /// reference interpreter with --backend interp.
    Eval(eval::Args),
    /// Time an expression per evaluation on each back end (warm-up, then timed runs).
    Bench(bench::Args),
    /// Run an entity headless: scripts, animations and controllers frame by frame.
    Run(run::Args),
    /// Drive an entity with random query inputs; report NaN, aborts and broken invariants.
    Fuzz(fuzz::Args),
    /// Format the Molang strings of pack JSON files: print a diff (default), `--check`
    /// (exit 1 when something would change) or `--write` (in place).
    Fmt(fmt::FmtArgs),
    /// Run the language server on stdin/stdout (diagnostics, hover, completion, rename...).
    Lsp,
    /// Run a pack's entity tests (`*.test.json`): expectations on variables, bones, the
    /// content log and whole-trace snapshots.
    Test(test::Args),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Check(a) => check::main(a),
        Command::Eval(a) => eval::main(a),
        Command::Bench(a) => bench::main(a),
        Command::Run(a) => run::main(a),
        Command::Fuzz(a) => fuzz::main(a),
        Command::Fmt(a) => fmt::main(a),
        Command::Lsp => lsp::main(),
        Command::Test(a) => test::main(a),
    }
}
