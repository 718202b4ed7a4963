//! The `molang` command. One file per subcommand: each declares its arguments, calls the
//! library and prints; the library computes and never prints or exits.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod args;
mod bench;
mod check;
mod eval;
mod fmt;
mod fuzz;
mod import;
mod lsp;
mod output;
mod render;
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
    /// Each pack is a layer, in the order written (`--pack` and positional paths alike):
    /// later packs override earlier ones by identifier, as the game stacks an add-on over
    /// vanilla (`vanilla/resource_pack my_addon/RP`).
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
    /// Import a Blockbench model (`.bbmodel`) as a Bedrock resource pack: geometry,
    /// animations, a state-machine controller, render controller and texture.
    Import(import::Args),
    /// Draw an entity posed by the runtime: a PNG, an animated GIF or a contact sheet.
    Render(render::Args),
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // Layers stack in the order written, `--pack` and positional paths alike.
    let sub = matches.subcommand().map(|(_, m)| m);
    let layers = |positional: &str, flag: &str| {
        sub.map(|m| args::layers_in_order(m, &[positional, flag]))
            .unwrap_or_default()
    };
    match cli.command {
        Command::Check(a) => check::main(a, layers("paths", "packs")),
        Command::Eval(a) => eval::main(a),
        Command::Bench(a) => bench::main(a, layers("packs", "pack_layers")),
        Command::Run(a) => run::main(a, layers("packs", "pack_layers")),
        Command::Fuzz(a) => fuzz::main(a, layers("packs", "pack_layers")),
        Command::Fmt(a) => fmt::main(a),
        Command::Lsp => lsp::main(),
        Command::Test(a) => test::main(a),
        Command::Import(a) => import::main(a),
        Command::Render(a) => render::main(a, layers("packs", "pack_layers")),
    }
}
