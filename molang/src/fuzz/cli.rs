//! `molang fuzz`: the command-line face of the pack fuzzer.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `molang fuzz`.
#[derive(clap::Args, Debug)]
pub struct FuzzArgs {
    /// Resource pack folder.
    pub pack: PathBuf,
    /// Client entity identifier (e.g. minecraft:pig).
    #[arg(long)]
    pub entity: String,
}

/// Runs `molang fuzz`.
pub fn main(args: FuzzArgs) -> ExitCode {
    eprintln!("molang fuzz {}: not implemented yet", args.pack.display());
    ExitCode::from(2)
}
