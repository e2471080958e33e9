//! labcheck: checks whether a learner really did a step of the GitOps course.
//!
//! Layers, top to bottom: `cli` (parses, prints, maps the verdict to an exit code) → `run` (the
//! application layer: a session runs the steps and returns data) → `checks` (one file per check
//! kind) → `probe` (git and Kubernetes reads). `course` is data below the checks' evaluation;
//! `report` sits beside (it renders `run`'s data and never decides); `progress` keeps the
//! learner's history and hands the runner a read-only view. No import runs upward.

pub mod checks;
pub mod cli;
pub mod course;
pub mod doctor;
pub mod error;
pub mod fleet;
pub mod lab;
pub mod outcome;
pub mod paths;
pub mod plan;
pub mod probe;
pub mod progress;
pub mod quiz;
pub mod report;
pub mod rules;
pub mod run;
pub mod selftest;
pub mod serve;
pub mod shell;
pub mod snapshot;
pub mod watch;
pub mod yaml;
