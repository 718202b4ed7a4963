//! Fuzzing an entity's scripts with random query inputs (`molang fuzz`). Work in progress
//! (issue 7).

pub mod cli;
