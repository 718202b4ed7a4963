//! `molang lsp`: the language server on stdin/stdout (`molang::lsp`).

use std::process::ExitCode;

pub fn main() -> ExitCode {
    match molang::lsp::run_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("molang lsp: {e}");
            ExitCode::from(2)
        }
    }
}
