//! Packs built in memory for the tests of the `molang` library (package molang-suite).

use std::path::PathBuf;

/// The pack of the files `(path, text)`, read as `molang::pack::load_sources` reads them.
pub fn pack_of(files: &[(&str, &str)]) -> molang::pack::Pack {
    let sources = files.iter().map(|(p, s)| (PathBuf::from(p), s.to_string()));
    molang::pack::load_sources(sources.collect())
}

/// [`pack_of`] for texts built at run time.
pub fn pack_of_built(files: &[(&str, String)]) -> molang::pack::Pack {
    let files: Vec<(&str, &str)> = files.iter().map(|(p, s)| (*p, s.as_str())).collect();
    pack_of(&files)
}
