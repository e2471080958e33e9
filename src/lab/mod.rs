//! Lab worlds: module 10's work repos at any point of the course, built with real git commits and
//! pushes in a folder. Used by `labcheck demo` and by the tests.

pub mod cluster;
pub mod content;
pub mod fixtures;
pub mod world;
