//! What the tests of package molang-suite share; `csv` and `process` serve the other
//! packages' tests too (included on their own with `#[path]` by `molang/cli/tests/support`
//! and `ik-gait/tests/common`).

#![allow(dead_code)]

pub mod csv;
pub mod packs;
pub mod process;
