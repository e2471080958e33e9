//! Lab worlds built from the course's files alone, for any module: the fresh lab
//! (`modules/<module>/lab/<repo>/`) with the `solution:` of each step up to a point run on it, in
//! real git repos with real commits and pushes (`world`, `solve`), each fixture state's changes
//! on top (`fixtures`), the cluster of each state (`cluster`), worlds built once per process and
//! copied (`cache`), and a renderer for the lab chart's subset of Helm templates (`chart`). Used by
//! `labcheck demo`, `labcheck course test` and the tests.

pub mod cache;
pub mod chart;
pub mod cluster;
pub mod fixtures;
pub mod repo;
mod solve;
pub mod world;
