//! labcheck's one integration-test binary: real lab worlds, a served Kubernetes API, the real binary.

mod bad_input;
mod ci_output;
mod class_page;
mod cli;
mod cluster_checks;
mod course_test;
mod docs_run;
mod doctor;
mod file_checks;
mod fleet;
mod git_checks;
mod harness;
mod history;
mod kubectl;
mod lab_chart;
mod learner;
mod module_10;
mod module_10_cluster;
mod module_11;
mod operations;
mod plan;
mod read_only;
mod report_snapshots;
mod reports;
mod serve_api;
mod waiting;
