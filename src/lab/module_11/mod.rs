//! Module 11's lab world ("migrations as PreSync hooks"): the `shop-config` work repo at any point
//! of the module, built from the course's fixtures with real git commits and pushes, as the
//! learner would.

pub mod content;

use std::path::{Path, PathBuf};

use super::fixtures;
use super::point::lab_points;
use super::repo::{LabError, LabRepo};

/// The module whose fixtures this world is built from.
pub const MODULE: &str = "module-11";

/// The work repo of module 11.
pub const REPO: &str = "shop-config";

lab_points! {
    /// A point of module 11 at which the repo is in a known state.
    pub enum Point {
        /// As the team left it: every pitfall at once.
        Fresh => "fresh",
        /// The migration Job is safe (backoffLimit 0, deadline, flags, tag, delete policy).
        Step1 => "step-1",
        /// Its config is PreSync, before it.
        Step2 => "step-2",
        /// Web, then workers, then a PostSync smoke test on /up.
        Step3 => "step-3",
        /// The Application no longer retries.
        Step4 => "step-4",
    }
}

/// Module 11's work repo and its remote in a folder: `remotes/shop-config.git`, `work/shop-config`.
#[derive(Debug, Clone)]
pub struct ShopWorld {
    root: PathBuf,
    repo: LabRepo,
}

impl ShopWorld {
    /// The world with every step up to and including `point` done. `root` must be empty or new.
    pub fn at(root: &Path, point: Point) -> Result<ShopWorld, LabError> {
        let clock = super::repo::new_root(root)?;
        let initial = fixtures::module(MODULE)?.initial.get(REPO);
        let files = initial.map_or(&[][..], Vec::as_slice);
        let world = ShopWorld {
            root: root.to_path_buf(),
            repo: LabRepo::create(root, REPO, clock, files)?,
        };
        for step in point.up_to() {
            world.do_step(step)?;
        }
        Ok(world)
    }

    /// The folder that holds the work repo (`--work-dir`).
    pub fn work_dir(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The folder the world lives in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The learner's clone of shop-config.
    pub fn repo(&self) -> &LabRepo {
        &self.repo
    }

    /// Do what the module's fixtures say for `point` (only that step): edit, commit, push.
    pub fn do_step(&self, point: Point) -> Result<(), LabError> {
        if point == Point::Fresh {
            return Ok(());
        }
        let step = fixtures::step(MODULE, point.as_str())?;
        fixtures::apply(&step.solved.changes, |name| {
            if name == REPO {
                Ok(self.repo.clone())
            } else {
                Err(LabError::UnknownRepo(name.to_string()))
            }
        })
    }
}
