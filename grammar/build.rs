//! Generates two parsers from the one grammar in `src/molang.lalrpop`: a recursive-ascent one
//! (each LR state a function: about twice as fast, but its depth is the call stack's) for the
//! short programs that are nearly all real Molang, and a table-driven one (its LR stack on the
//! heap) for anything long enough to nest deeply. Same grammar, same actions, same trees.

use std::path::PathBuf;

fn main() {
    let grammar = "src/molang.lalrpop";
    println!("cargo:rerun-if-changed={grammar}");
    let text = std::fs::read_to_string(grammar).expect("src/molang.lalrpop is readable");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dir = out.join("grammars");
    std::fs::create_dir_all(&dir).expect("OUT_DIR is writable");
    let header = "grammar<";
    assert!(
        text.contains(header),
        "the grammar declares its parameters with `grammar<`"
    );
    std::fs::write(dir.join("table.lalrpop"), &text).expect("OUT_DIR is writable");
    let ascent = text.replacen(header, &format!("#[recursive_ascent]\n{header}"), 1);
    std::fs::write(dir.join("ascent.lalrpop"), ascent).expect("OUT_DIR is writable");
    lalrpop::Configuration::new()
        .set_in_dir(&dir)
        .set_out_dir(&out)
        .process()
        .expect("LALRPOP grammar failed to build");
}
