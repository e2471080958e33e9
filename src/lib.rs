//! labcheck: checks whether a learner really did a step of the GitOps course.
//!
//! Layout: `cli` (command line) → `course` (modules, steps, references) → `run` (runner) →
//! `checks` (one file per check kind) → `probe` (git and Kubernetes reads) → `report` (output).

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
