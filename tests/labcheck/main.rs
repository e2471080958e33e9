//! labcheck's one integration-test binary: real lab worlds, the real binary.

mod cli;
mod file_checks;
mod git_checks;
mod harness;
mod module_10;
