// SCRATCH (not committed): dump a hash of every parse result for differential comparison.
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Write;

/// The `"expr"` string of one JSON line, unescaped (the corpus uses `\"`, `\\`, `\n`, `\t`,
/// `\uXXXX`).
fn expr_field(line: &str) -> Option<String> {
    let start = line.find("\"expr\":")? + 7;
    let rest = line[start..].trim_start().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}


#[test]
fn dump() {
    let Some(out) = std::env::var_os("DUMP_OUT") else { return };
    let mut progs: Vec<String> = Vec::new();
    for name in ["bedrock-samples-molang.jsonl", "bedrock-samples-molang-scripts.jsonl"] {
        let text = std::fs::read_to_string(format!("/work/shared/corpus/{name}")).unwrap();
        for l in text.lines().filter(|l| !l.trim().is_empty()) {
            progs.push(expr_field(l).unwrap());
        }
    }
    let alpha = [
        "1", "v.a", "q.f(", "a.b[", "(", ")", "{", "}", "[", "]", ";", ",", "=", "??", "?", ":",
        "->", "-", "!", "+", "*", "/", "==", "&&", "return", "loop(", "this", "'s'", "1e", "V.X",
    ];
    let n = alpha.len();
    for len in 1..=4 {
        let mut idx = vec![0usize; len];
        loop {
            progs.push(idx.iter().map(|&i| alpha[i]).collect::<Vec<_>>().join(" "));
            let mut k = 0;
            while k < len {
                idx[k] += 1;
                if idx[k] < n { break; }
                idx[k] = 0;
                k += 1;
            }
            if k == len { break; }
        }
    }
    let mut seed: u64 = 0x1234_5678;
    for _ in 0..400_000 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let len = 5 + (seed >> 33) as usize % 10;
        let mut s = String::new();
        for _ in 0..len {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s.push_str(alpha[(seed >> 33) as usize % n]);
            s.push(' ');
        }
        progs.push(s);
    }
    // A few deep ones.
    for unit in ["!", "-!", "v.a ? 1 : ", "v.a ? ", "(", "math.abs(", "1 - ", "v.x = -", "1 ? ", "{v.a = 1; ", "v.a->"] {
        for k in [10, 63, 64, 65, 100, 300] {
            progs.push(format!("{}1", unit.repeat(k)));
        }
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    for v in [4i16, 6, 13] {
        for p in &progs {
            let parsed = grammar::parse(p, grammar::ParseOptions { version: v });
            let mut h = DefaultHasher::new();
            format!("{:?}", parsed).hash(&mut h);
            writeln!(f, "{v}\t{:016x}\t{}", h.finish(), p.replace('\n', "\\n")).unwrap();
        }
    }
}

#[test]
fn one() {
    let Some(src) = std::env::var_os("DUMP_ONE") else { return };
    let v: i16 = std::env::var("DUMP_V").map(|v| v.parse().unwrap()).unwrap_or(13);
    println!("{:#?}", grammar::parse(src.to_str().unwrap(), grammar::ParseOptions { version: v }));
}
