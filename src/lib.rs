//! labcheck: checks whether a learner really did a step of the GitOps course.
//!
//! Layers, top to bottom (no two files import each other; which part imports which is listed
//! in `docs/architecture.md` and held there by a test): `cli` (parses, prints, maps the verdict to an exit code) → `bundle` (a
//! learner's bundle, made with and read back through the reporters) → `report` (renders `run`'s
//! data, never decides) → `class` (the class's one wing: its session, seats, gate, causes, the
//! room followed live and its page's server) →
//! `doctor`, `selftest`, `progress` (the environment, the course's self-test, the learner's
//! history handed to the runner as a read-only view) → `run`
//! (the application layer: a session loads the course, runs the steps and returns data) →
//! `course` (the course as data: modules, steps and each check's declared fields) → `checks` (how
//! each kind decides, from a `Context` the runner builds) → `probe` (git and Kubernetes reads) →
//! `serve`, `snapshot`, `rules` (reads `plan`'s model), `plan`, `quiz` → `yaml` and the small
//! shared pieces (`outcome`, `causes`, `paths`, `shell`, `error`, `http`: the one HTTP serving
//! layer of `serve` and the class page; `sync_settings` and `findings`:
//! the settings in force for an object of a sync and a rule's finding, below both `plan` and
//! `rules` so `plan` never imports `rules`). `lab` builds worlds of any module from the course's
//! files (its lab, its steps' solutions, its fixtures) for the demo, `course test` and the tests.

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
