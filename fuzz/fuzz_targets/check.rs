//! Raw text → checker → (when it loads) interpreter. Raw bytes rather than a structured
//! generator: the checker's job is to turn *any* text into diagnostics, and libFuzzer's
//! byte-level mutations plus its comparison tracing find the odd token sequences a grammar
//! -aware generator would never write. The first byte picks the Molang version.
#![no_main]

use libfuzzer_sys::fuzz_target;
use molang::{CheckOptions, EvalOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&v, rest)) = data.split_first() else {
        return;
    };
    let Ok(src) = std::str::from_utf8(rest) else {
        return;
    };
    // -2..=14: both ends clamp.
    let version = (v % 17) as i16 - 2;
    let judge = v & 0x80 != 0;
    let options = CheckOptions {
        version,
        judge_variables: judge,
        ..CheckOptions::default()
    };
    let spans_ok = |diagnostics: &[molang::Diagnostic]| {
        for d in diagnostics {
            // Spans point inside the text, on character boundaries (renderers slice with them).
            let (s, e) = (d.span.start as usize, d.span.end as usize);
            assert!(
                s <= e && e <= src.len(),
                "span {s}..{e} outside {}",
                src.len()
            );
            assert!(
                src.is_char_boundary(s) && src.is_char_boundary(e),
                "span off a char boundary"
            );
        }
    };
    // `compile` is `check` plus the name table: one pass per input.
    match molang::compile(src, &options) {
        Err(e) => {
            spans_ok(&e.diagnostics);
            assert!(
                e.diagnostics.iter().any(|d| d.refuses_load()),
                "refused without a reason"
            );
        }
        Ok(expr) => {
            spans_ok(&expr.warnings);
            assert!(
                !expr.warnings.iter().any(|d| d.refuses_load()),
                "loaded despite an error"
            );
            let eval = EvalOptions {
                version,
                // Small budget: the fuzzer must not spend its time in `loop(1e9, ...)`.
                iteration_budget: 500,
                ..EvalOptions::default()
            };
            let _ = expr.eval(&[], 7, &eval);
        }
    }
});
