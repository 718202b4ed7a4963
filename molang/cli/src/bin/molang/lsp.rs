//! `molang lsp`: the language server on stdin/stdout (`molang_cli::lsp`).

use std::process::ExitCode;

pub fn main() -> ExitCode {
    match molang_cli::lsp::run_stdio() {
        // 1 when the client said `exit` (or left) without `shutdown`, as the protocol asks.
        Ok(ending) => ExitCode::from(ending.exit_code()),
        Err(e) => {
            eprintln!("molang lsp: {e}");
            ExitCode::from(2)
        }
    }
}
