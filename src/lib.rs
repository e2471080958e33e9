//! labcheck: checks whether a learner really did a step of the GitOps course.
//!
//! The parts stand in layers, each importing only parts below it; which part imports which is
//! the table of `docs/architecture.md`, and `tests/labcheck/layers.rs` holds the code to it
//! (every import a row, every row used by the part's own code, no two files of one folder
//! importing each other, no cycle in the table). From the top: `cli` (parses, prints, maps the
//! verdict to an exit code) → `bundle` (a learner's bundle, made and read back through the
//! reporters) → `report` (renders `run`'s data, never decides) → `class`, `doctor`, `selftest`,
//! `progress` (the class's one wing, the environment, the course's self-test, the learner's
//! history) → `run` (a session loads the course, runs the steps and returns data) and `lab`
//! (lab worlds for the demo, `course test` and the tests) → `course` (the course as data) →
//! `checks` (how each kind decides, from a `Context` the runner builds) → `rules` (the
//! migration-hook rules, over `plan`'s model) → `plan` (Argo CD's sync order, and what its repo
//! server reads) and `watch` → `probe` (git and Kubernetes reads) → `serve` → `snapshot`,
//! `quiz`, `sync_settings` → `yaml`, `outcome` → the small shared pieces (`causes`, `error`,
//! `findings`, `http`, `paths`, `repo_url`, `shell`).

pub mod bundle;
pub mod causes;
pub mod checks;
pub mod class;
pub mod cli;
pub mod course;
pub mod doctor;
pub mod error;
pub mod findings;
pub mod http;
pub mod lab;
pub mod outcome;
pub mod paths;
pub mod plan;
pub mod probe;
pub mod progress;
pub mod quiz;
pub mod repo_url;
pub mod report;
pub mod rules;
pub mod run;
pub mod selftest;
pub mod serve;
pub mod shell;
pub mod snapshot;
pub mod sync_settings;
pub mod watch;
pub mod yaml;
