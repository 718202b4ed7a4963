//! Bytes → the `molang test` file reader (`*.test.json`), then the inline inputs it builds
//! through the CSV reader the runner uses. Any text gives tests or a `FileError` with a
//! position inside the text; a test it accepts is one the runner can play in bounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use molang::test_runner::{spec, Inputs};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // The parser judges `inputs` and `snapshot` paths as written, without a disk.
    let file = Path::new("/nonexistent/molang-fuzz/t.test.json");
    match spec::parse_file(file, &text, data.first().is_some_and(|b| b & 1 == 1)) {
        Err(e) => {
            assert!(
                e.line >= 1 && e.column >= 1,
                "position {}:{}",
                e.line,
                e.column
            );
            // A lone `\r` ends a line too for the JSON reader (as for editors).
            let breaks = text.bytes().filter(|b| matches!(b, b'\n' | b'\r')).count();
            assert!(e.line <= breaks + 1, "line {} past the end", e.line);
        }
        Ok(tests) => {
            for t in &tests {
                let frames = (t.seconds as f64 * t.fps as f64).round();
                assert!(
                    frames <= molang::test_runner::MAX_FRAMES as f64,
                    "{frames} frames accepted"
                );
                if let Inputs::Inline(csv) = &t.inputs {
                    let _ = molang::runtime::inputs::parse(csv, "inline");
                }
            }
        }
    }
});
