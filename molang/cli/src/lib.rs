//! The front ends over the `molang` library: the `molang` command (`src/bin/molang/`, one file
//! per subcommand) and the language server ([`lsp`], `molang lsp`). Only this package parses
//! flags, prints, draws progress bars and plots, speaks LSP, and chooses the allocator; the
//! library computes and returns values.

#![forbid(unsafe_code)]

pub mod lsp;
