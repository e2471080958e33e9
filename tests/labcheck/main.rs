//! labcheck's one integration-test binary: real lab worlds, a served Kubernetes API, the real binary.

#[path = "../common/named_commands.rs"]
mod named_commands;
#[path = "../common/operation_states.rs"]
mod operation_states;
#[path = "../common/scratch.rs"]
mod scratch;

mod bad_input;
mod bundle;
mod bundle_once;
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
mod hints;
mod history;
mod installer;
mod kubectl;
mod lab_chart;
mod lab_world;
mod labcheck_commands;
mod layers;
mod learner;
mod log_follow;
mod module_10;
mod module_10_cluster;
mod module_11;
mod operations;
mod operations_named;
mod plan;
mod plan_apps;
mod plan_folders;
mod plan_refused;
mod read_only;
mod replay;
mod report_snapshots;
mod reports;
mod serve_api;
mod snapshot_capture;
mod solution;
mod stray_files;
mod unhealthy;
mod waiting;
mod yaml_readers;
