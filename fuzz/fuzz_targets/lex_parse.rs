//! Raw text → lexer → parser, plus the printer's round trip: whatever parses without errors
//! must print back to text that parses to the same tree (spans aside). Raw bytes, like
//! `check`: the lexer and parser must survive any text, and the round trip is an oracle
//! that needs no second implementation. The first byte picks the Molang version.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&v, rest)) = data.split_first() else {
        return;
    };
    let src = String::from_utf8_lossy(rest);
    let version = (v % 17) as i16 - 2;
    let options = grammar::ParseOptions { version };
    let parsed = grammar::parse(&src, options);
    let mut end = 0;
    for t in &parsed.tokens {
        let (s, e) = (t.span.start as usize, t.span.end as usize);
        assert!(
            end <= s && s < e && e <= src.len(),
            "token spans must be ordered and non-empty"
        );
        assert!(src.is_char_boundary(s) && src.is_char_boundary(e));
        end = e;
    }
    for d in &parsed.diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end as usize <= src.len());
    }
    if parsed.has_errors() || parsed.ast.root.is_none() {
        return;
    }
    let printed = grammar::print::print(&parsed.ast);
    let again = grammar::parse(&printed, options);
    assert!(
        !again.has_errors(),
        "printed text does not parse:\n  source:  {src:?}\n  printed: {printed:?}\n  {:?}",
        again.diagnostics
    );
    assert!(
        grammar::print::same_tree(&parsed.ast, &again.ast),
        "round trip changed the tree:\n  source:  {src:?}\n  printed: {printed:?}"
    );
});
