//! The CSV files the workspace's tools write (traces, reproducers, motion profiles) read back
//! in tests: names and numbers only, so a plain split at commas. Shared across packages with
//! `#[path]` (`molang/cli/tests/support`, `ik-gait/tests/common`, `tests/support`).

#![allow(dead_code)]

/// The header's column names and every row's fields.
pub fn split(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let fields = |l: &str| l.split(',').map(str::to_string).collect::<Vec<_>>();
    let mut lines = text.lines();
    let header = fields(lines.next().expect("a CSV header"));
    (header, lines.map(fields).collect())
}

/// [`split`], asserting the header is `header` (the columns joined with commas).
#[track_caller]
pub fn rows_under(text: &str, header: &str) -> Vec<Vec<String>> {
    let (got, rows) = split(text);
    assert_eq!(got.join(","), header, "the CSV's header");
    rows
}
