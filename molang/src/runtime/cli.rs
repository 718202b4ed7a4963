//! `molang run`: the command-line face of the runtime.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `molang run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Resource pack folder.
    pub pack: PathBuf,
    /// Client entity identifier (e.g. minecraft:pig).
    #[arg(long)]
    pub entity: String,
}

/// Runs `molang run`.
pub fn main(args: RunArgs) -> ExitCode {
    eprintln!("molang run {}: not implemented yet", args.pack.display());
    ExitCode::from(2)
}
