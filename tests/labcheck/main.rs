//! labcheck's one integration-test binary: real lab worlds, a served Kubernetes API, the real binary.

mod cli;
mod cluster_checks;
mod course_test;
mod file_checks;
mod fleet;
mod git_checks;
mod harness;
mod kubectl;
mod module_10;
mod module_10_cluster;
mod serve_api;
