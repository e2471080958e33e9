//! Test fixtures of a module, as a course author writes them: for every step (and break-it stage)
//! a solved state and broken variants, each a set of work-repo changes plus a cluster snapshot.
//! `labcheck course test` builds and runs them; `labcheck course lint` validates them. The format
//! is documented in `docs/course-tests.md`.
//!
//! ```text
//! modules/<module>/lab/<repo>/…               the work repos before the module's first step (the lab itself)
//! modules/<module>/fixtures/<step>.yaml        a step's states (format: labcheck-fixtures/v1)
//! modules/<module>/fixtures/…                  files and snapshots those states name
//! ```//!
//! The file format (what a course author writes) is in `format`, reading and resolving it (every
//! file read, every reference checked) in `loader`; the resolved states live here.

mod derived;
mod field_path;
mod format;
mod loader;

use std::collections::BTreeMap;

pub use format::{
    Action, Base, BrokenSpec, Change, FIXTURE_FORMAT, FixtureFile, StageFixtures, StateSpec,
    TextSource,
};
pub use loader::lab_files;

/// The snapshot text of a derived state file on disk (`labcheck serve` of a course's fixture),
/// its base read beside it; `None` for a file that is not derived (or cannot be read: reading it
/// as a plain snapshot then says why).
pub fn derived_file_text(path: &std::path::Path) -> Result<Option<String>, crate::error::Error> {
    let read = |path: &std::path::Path| {
        crate::paths::read_regular_text(path, crate::snapshot::MAX_SNAPSHOT_BYTES)
    };
    let Ok(text) = read(path) else {
        return Ok(None);
    };
    if !derived::is_derived(&text) {
        return Ok(None);
    }
    let folder = path.parent().unwrap_or(std::path::Path::new(""));
    let derived = derived::derive(&path.display().to_string(), &text, |base| {
        let file = folder.join(base);
        let shown = file.display().to_string();
        read(&file)
            .map(|text| (shown.clone(), text))
            .map_err(|e| crate::error::Error::Usage(format!("{shown}: {e}")))
    })?;
    Ok(Some(derived))
}

/// The snapshot text of the cluster state at `path` (a course path under a module's fixtures),
/// placeholders still in: the file itself, or, for a derived state (`based_on:`), the state it
/// is based on with its changes applied. `(name for messages, text)`.
pub fn cluster_text(
    course: &crate::course::Course,
    path: &str,
) -> Result<(String, String), crate::error::Error> {
    let (shown, text) = course.read_file(path)?;
    if !derived::is_derived(&text) {
        return Ok((shown, text));
    }
    let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
    let derived = derived::derive(&shown, &text, |base| {
        course.read_file(&format!("{folder}/{base}"))
    })?;
    Ok((shown, derived))
}

/// A module's fixtures, loaded and validated: every file read, every reference resolved.
#[derive(Debug, Clone)]
pub struct ModuleFixtures {
    /// Each declared repo's files before the first step: repo name → (path, text), sorted.
    pub initial: BTreeMap<String, Vec<(String, String)>>,
    /// One entry per runnable step, in course order.
    pub steps: Vec<StepFixtures>,
    /// The lab as the module starts (`fixtures/fresh.yaml`): the initial repos, nothing done,
    /// and this cluster. Every step is run on it too: nothing a title claims happened there.
    pub fresh: State,
}

/// The states of one runnable step (`step-4`, `break-it/fix`).
#[derive(Debug, Clone)]
pub struct StepFixtures {
    pub step: String,
    /// The fixture file, for messages.
    pub file: String,
    pub solved: State,
    pub broken: Vec<State>,
}

/// One state, ready to build.
#[derive(Debug, Clone)]
pub struct State {
    /// `solved` or the broken variant's name.
    pub name: String,
    pub description: Option<String>,
    pub base: Base,
    /// Changes with every file text read.
    pub changes: Vec<ResolvedChange>,
    /// The snapshot file (for messages) and its text, placeholders still in.
    pub cluster_file: String,
    pub cluster_text: String,
    /// Empty for the solved state.
    pub fails: Vec<String>,
    /// The cause a failing check must give, by check id (see `causes:` in the fixture format).
    pub causes: std::collections::BTreeMap<String, String>,
}

/// A change with its text in hand.
#[derive(Debug, Clone)]
pub enum ResolvedChange {
    /// The step's own `solution:` (its edits and git commands, in order): a solved state.
    Solution {
        actions: Vec<crate::course::solution::SolutionAction>,
    },
    /// The edits the step's solution makes to `path` of `repo`, and nothing else (no git
    /// command): a broken state that does part of the solution.
    SolutionEdits {
        repo: String,
        path: String,
        actions: Vec<crate::course::solution::SolutionAction>,
    },
    Write {
        repo: String,
        path: String,
        text: String,
    },
    Delete {
        repo: String,
        path: String,
    },
    Commit {
        repo: String,
        message: String,
    },
    Push {
        repo: String,
    },
    RevertHead {
        repo: String,
    },
}
