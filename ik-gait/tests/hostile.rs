//! `doggoyle` on hostile input: a motion-profile CSV with NaN cells, a byte-order mark, a line
//! of fifty million commas (run under an address-space limit); counts in flags that would
//! size memory or threads. Limits and messages are listed in README's "Hostile input".

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod common;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("doggoyle-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `doggoyle ARGS` with its address space limited to `mb` megabytes.
fn doggoyle_limited(mb: u64, args: &[&str]) -> Output {
    common::process::run_limited(env!("CARGO_BIN_EXE_doggoyle"), mb, args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `doggoyle run --inputs FILE --out OUT`.
fn run_inputs(csv: &[u8], name: &str) -> Output {
    let dir = scratch(name);
    let inputs = dir.join("in.csv");
    std::fs::write(&inputs, csv).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_doggoyle"))
        .args(["run", "--inputs"])
        .arg(&inputs)
        .arg("--out")
        .arg(dir.join("trace.csv"))
        .args(["--fps", "20"])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn nan_and_infinite_cells_are_refused_naming_line_and_column() {
    for cell in ["NaN", "inf", "-infinity"] {
        let csv = format!("t,q.ground_speed\n0,1\n1,{cell}\n");
        let out = run_inputs(csv.as_bytes(), "nan");
        assert_eq!(out.status.code(), Some(2), "{cell}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "line 3, column 3 (q.ground_speed): `{cell}` is not a finite number"
            )),
            "{cell}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let out = run_inputs(b"\xef\xbb\xbft,q.ground_speed\n0,1\n1,2\n", "bom");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("not used"), "{}", stderr(&out));
}

#[test]
fn a_line_of_fifty_million_commas_is_refused_in_bounded_memory() {
    let dir = scratch("commas");
    let inputs = dir.join("in.csv");
    common::process::write_fifty_million_commas(&inputs);
    let start = Instant::now();
    let out = doggoyle_limited(
        600,
        &[
            "run",
            "--inputs",
            inputs.to_str().unwrap(),
            "--out",
            dir.join("t.csv").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("line 2: the line is longer than 1048576 bytes"),
        "{}",
        stderr(&out)
    );
    assert!(start.elapsed() < Duration::from_secs(30));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn huge_herds_and_thread_counts_are_refused_up_front() {
    for (args, message) in [
        (
            &["bench", "--dogs", "1000000000000"][..],
            "invalid value '1000000000000' for '--dogs <N>': must be between 1 and 100000",
        ),
        (
            &["bench", "--dogs", "2", "--threads", "1000000"][..],
            "invalid value '1000000' for '--threads <T>': must be between 1 and 256",
        ),
    ] {
        let out = doggoyle_limited(1024, args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(message), "{}", stderr(&out));
    }
}
