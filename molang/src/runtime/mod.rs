//! Headless entity runtime: a client entity's scripts, animations and controllers run frame by
//! frame from an input timeline, giving every bone's pose (and world positions by forward
//! kinematics over the geometry). Work in progress (issue 6).

pub mod cli;
