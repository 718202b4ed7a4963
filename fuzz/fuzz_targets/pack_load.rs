//! Bytes → an in-memory pack → the pack model, `check` over all of it, and the runtime's
//! loader for its client entities. The pack loader's job is to turn any set of files into a
//! model plus diagnostics (never a panic, hang or unbounded allocation), whatever the JSON.
//!
//! Input format (what `seed-corpus.py` writes from vanilla files): files separated by NUL
//! bytes; each file is a path line then its text. A path starting with `+` puts the file in
//! a second layer laid over the first. Paths keep their plain components only and sit under
//! a folder that does not exist, so nothing here reads the disk.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::{Component, Path, PathBuf};

/// The folder the in-memory layers claim to be (absent: a file with empty text is read
/// again from disk by `Pack::file_text`, and must find nothing).
const ROOT: &str = "/nonexistent/molang-fuzz";
const MAX_FILES: usize = 24;
const MAX_ENTITIES: usize = 6;

fn clean(path: &str) -> PathBuf {
    Path::new(path)
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut layers: Vec<(PathBuf, Vec<(PathBuf, String)>)> = vec![
        (PathBuf::from(ROOT).join("a"), Vec::new()),
        (PathBuf::from(ROOT).join("b"), Vec::new()),
    ];
    for chunk in text.split('\0').take(MAX_FILES) {
        let (head, body) = chunk.split_once('\n').unwrap_or(("entity/e.json", chunk));
        let (layer, head) = match head.strip_prefix('+') {
            Some(h) => (1, h),
            None => (0, head),
        };
        let rel = clean(head);
        let rel = if rel.as_os_str().is_empty() {
            PathBuf::from("entity/e.json")
        } else {
            rel
        };
        let path = layers[layer].0.join(rel);
        // One file per path, as on disk: a repeated path replaces the earlier text.
        let files = &mut layers[layer].1;
        files.retain(|(p, _)| *p != path);
        files.push((path, body.to_string()));
    }
    if layers[1].1.is_empty() {
        layers.pop();
    }
    let pack = molang::pack::load_layered_sources(layers);
    let (diagnostics, _) = molang::pack_check::check_pack(&pack);
    for d in &diagnostics {
        // Positions come from the files given, never invented past them.
        if let Some(f) = pack.files.iter().find(|f| f.path == d.path) {
            assert!(
                d.line
                    <= f.source
                        .bytes()
                        .filter(|b| matches!(b, b'\n' | b'\r'))
                        .count()
                        + 1,
                "line {} past the end of {}",
                d.line,
                d.path.display()
            );
        }
    }
    let mut ids = molang::runtime::load::client_entities(&pack);
    ids.extend(molang::runtime::load::attachables(&pack));
    for id in ids.iter().take(MAX_ENTITIES) {
        let _ = molang::runtime::load_from_pack(&pack, id);
    }
});
