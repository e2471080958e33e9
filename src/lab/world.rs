//! A lab world: module 10's work repos in a folder at any point of the course, built from the
//! course's fixtures with the real `git` CLI the way a learner builds them (clone, edit,
//! add by name, commit, push, revert).
//!
//! Layout under the root: `remotes/<name>.git` (bare repos standing in for the Git server) and
//! `work/<name>` (the learner's clones). Every commit has a fixed author, committer and date
//! that advances one minute per commit, and the user's own git config is ignored, so the same
//! point of the course always has the same SHAs (cluster snapshots carry the synced revision).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::fixtures;
use super::point::lab_points;
pub use super::repo::{LabError, LabRepo};
use crate::course::fixtures::{Base, State};

/// The module whose fixtures these worlds are built from.
pub const MODULE: &str = "module-10";

/// The work repos of module 10, in the order the world creates them.
pub const REPOS: [&str; 3] = ["argocd-platform", "checkout-config", "argocd-gitops"];

lab_points! {
    /// A point of module 10 at which the work repos are in a known state.
    pub enum CoursePoint {
        /// Before step 1: the repos as earlier modules left them.
        Fresh => "fresh",
        /// Step 1 done: the Application health check committed and pushed to argocd-platform.
        Step1 => "step-1",
        /// Step 2 done: migration and smoke test switched on in checkout-config.
        Step2 => "step-2",
        /// Step 3 done: only reads the cluster, so the repos are as after step 2.
        Step3 => "step-3",
        /// Step 4 done: 6.7.0 with a failing migration, pushed.
        Step4 => "step-4",
        /// Step 5 done: step 4's commit reverted and pushed.
        Step5 => "step-5",
        /// Break-it, "break" stage: the smoke test points at /status/503, pushed.
        BreakIt => "break-it",
        /// Break-it, "fix" stage: the break reverted and pushed.
        BreakItFixed => "break-it-fixed",
    }
}

impl CoursePoint {
    /// The step (or break-it stage) whose solved state this point is; none for `fresh`.
    pub fn step(self) -> Option<&'static str> {
        match self {
            CoursePoint::Fresh => None,
            CoursePoint::BreakIt => Some("break-it/break"),
            CoursePoint::BreakItFixed => Some("break-it/fix"),
            other => Some(other.as_str()),
        }
    }

    /// The point a step's fixtures start from: the point before the one `step` solves.
    fn before(step: &str) -> Result<CoursePoint, LabError> {
        let solves = CoursePoint::ALL
            .iter()
            .position(|p| p.step() == Some(step))
            .ok_or_else(|| LabError::Fixtures(format!("{step} is not a step of {MODULE}")))?;
        Ok(CoursePoint::ALL[solves.saturating_sub(1)])
    }
}

/// Module 10's work repos and their remotes in a folder.
#[derive(Debug, Clone)]
pub struct LabWorld {
    root: PathBuf,
    clock: Arc<AtomicU64>,
}

impl LabWorld {
    /// The fresh world (before step 1) under `root`, which must be empty or not exist yet: every
    /// repo with the files of `lab/<repo>/`, committed and pushed.
    pub fn create(root: &Path) -> Result<LabWorld, LabError> {
        let clock = super::repo::new_root(root)?;
        let world = LabWorld {
            root: root.to_path_buf(),
            clock,
        };
        let fixtures = fixtures::module(MODULE)?;
        for name in REPOS {
            let files = fixtures.initial.get(name).map_or(&[][..], Vec::as_slice);
            LabRepo::create(root, name, world.clock.clone(), files)?;
        }
        Ok(world)
    }

    /// The world with every step up to and including `point` done, as the course does them.
    pub fn at(root: &Path, point: CoursePoint) -> Result<LabWorld, LabError> {
        let world = LabWorld::create(root)?;
        for step in point.up_to() {
            world.do_step(step)?;
        }
        Ok(world)
    }

    /// The world of one state of a step's fixtures (`step-2`, `not-pushed`), as `labcheck course
    /// test` builds it: the steps before done, then the state's own changes on its base.
    pub fn in_state(root: &Path, step: &str, state: &str) -> Result<LabWorld, LabError> {
        let fixtures = fixtures::step(MODULE, step)?;
        let wanted = fixtures::state(MODULE, step, state)?;
        let world = LabWorld::at(root, CoursePoint::before(step)?)?;
        // The solved state is its own changes; a broken one starts from its base.
        let is_solved = std::ptr::eq(wanted, &fixtures.solved);
        if !is_solved && wanted.base == Base::Solved {
            world.apply(&fixtures.solved)?;
        }
        world.apply(wanted)?;
        Ok(world)
    }

    /// The folder that holds the work repos (`--work-dir`).
    pub fn work_dir(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The folder the world lives in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The learner's clone of `name`.
    pub fn repo(&self, name: &str) -> Result<LabRepo, LabError> {
        if !REPOS.contains(&name) {
            return Err(LabError::UnknownRepo(name.to_string()));
        }
        Ok(LabRepo::open(
            self.work_dir().join(name),
            self.clock.clone(),
        ))
    }

    /// Do what the course's fixtures say for `point` (only that step): edit, add the edited files by name,
    /// commit with the course's message, push; step 5 and the fix revert HEAD and push.
    pub fn do_step(&self, point: CoursePoint) -> Result<(), LabError> {
        match point.step() {
            Some(step) => self.apply(&fixtures::step(MODULE, step)?.solved),
            None => Ok(()),
        }
    }

    fn apply(&self, state: &State) -> Result<(), LabError> {
        fixtures::apply(&state.changes, |name| self.repo(name))
    }
}
