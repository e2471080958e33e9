//! Lab worlds: module 10's work repos at any point of the course, built with real git commits and
//! pushes in a folder (used by `labcheck demo` and by the tests), and module 11's shop-config.

pub mod cluster;
pub mod content;
pub mod fixtures;
pub mod module_11;
pub mod world;
