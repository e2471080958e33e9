//! labcheck's one integration-test binary: real lab worlds, a served Kubernetes API, the real binary.

mod bad_input;
mod cli;
mod cluster_checks;
mod file_checks;
mod git_checks;
mod harness;
mod kubectl;
mod module_10;
mod module_10_cluster;
mod read_only;
mod serve_api;
