//! Lab worlds built from the course's own fixtures (`modules/*/fixtures`): module 10's work repos
//! and cluster at any point of the course, and module 11's shop-config, with real git commits
//! and pushes in a folder. Used by `labcheck demo` and by the tests.

pub mod chart;
pub mod cluster;
pub mod content;
pub mod fixtures;
pub mod module_11;
mod point;
pub mod repo;
pub mod world;
