//! Module 11's lab world ("migrations as PreSync hooks"): the `shop-config` work repo at any point
//! of the module, built with real git commits and pushes, as the learner would.

pub mod content;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::world::{LabError, LabRepo};
use content::messages;

/// The work repo of module 11.
pub const REPO: &str = "shop-config";

/// A point of module 11 at which the repo is in a known state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Point {
    /// As the team left it: every pitfall at once.
    Fresh,
    /// The migration Job is safe (backoffLimit 0, deadline, flags, tag, delete policy).
    Step1,
    /// Its config is PreSync, before it.
    Step2,
    /// Web, then workers, then a PostSync smoke test on /up.
    Step3,
    /// The Application no longer retries.
    Step4,
}

impl Point {
    /// Every point, in course order.
    pub const ALL: [Point; 5] = [
        Point::Fresh,
        Point::Step1,
        Point::Step2,
        Point::Step3,
        Point::Step4,
    ];

    /// The name used on the command line and in tests.
    pub fn as_str(self) -> &'static str {
        match self {
            Point::Fresh => "fresh",
            Point::Step1 => "step-1",
            Point::Step2 => "step-2",
            Point::Step3 => "step-3",
            Point::Step4 => "step-4",
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Point {
    type Err = LabError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Point::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| LabError::UnknownPoint(s.to_string()))
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
        if root.exists()
            && std::fs::read_dir(root)
                .map_err(|source| LabError::Io {
                    path: root.to_path_buf(),
                    source,
                })?
                .next()
                .is_some()
        {
            return Err(LabError::NotEmpty {
                path: root.to_path_buf(),
            });
        }
        for dir in ["remotes", "work"] {
            let path = root.join(dir);
            std::fs::create_dir_all(&path).map_err(|source| LabError::Io { path, source })?;
        }
        let clock = Arc::new(AtomicU64::new(0));
        let remotes = LabRepo::open(root.join("remotes"), clock.clone());
        remotes.git(&["init", "--quiet", "--bare", &format!("{REPO}.git")])?;
        let remote = root.join("remotes").join(format!("{REPO}.git"));
        LabRepo::open(root.join("work"), clock.clone()).git(&[
            "clone",
            "--quiet",
            &remote.display().to_string(),
            REPO,
        ])?;
        let world = ShopWorld {
            root: root.to_path_buf(),
            repo: LabRepo::open(root.join("work").join(REPO), clock),
        };
        world.write_fresh()?;
        for step in Point::ALL {
            if step > point {
                break;
            }
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

    fn write_fresh(&self) -> Result<(), LabError> {
        let repo = &self.repo;
        repo.write("manifests/config.yaml", content::CONFIG_FRESH)?;
        repo.write("manifests/migrate-job.yaml", content::MIGRATE_FRESH)?;
        repo.write("manifests/web.yaml", &content::web(false))?;
        repo.write("manifests/workers.yaml", &content::workers(false))?;
        repo.write("argocd/shop-dev.yaml", &content::application(true))?;
        repo.commit_all("shop-config: as the team left it")?;
        repo.git(&["push", "--quiet", "-u", "origin", "main"])?;
        Ok(())
    }

    /// Do what the module says for `point` (only that step): edit, commit, push.
    pub fn do_step(&self, point: Point) -> Result<(), LabError> {
        let repo = &self.repo;
        let message = match point {
            Point::Fresh => return Ok(()),
            Point::Step1 => {
                repo.write("manifests/migrate-job.yaml", content::MIGRATE_SAFE)?;
                messages::STEP_1
            }
            Point::Step2 => {
                repo.write("manifests/config.yaml", content::CONFIG_PRESYNC)?;
                messages::STEP_2
            }
            Point::Step3 => {
                repo.write("manifests/web.yaml", &content::web(true))?;
                repo.write("manifests/workers.yaml", &content::workers(true))?;
                repo.write("manifests/smoke-test.yaml", content::SMOKE_TEST)?;
                messages::STEP_3
            }
            Point::Step4 => {
                repo.write("argocd/shop-dev.yaml", &content::application(false))?;
                messages::STEP_4
            }
        };
        repo.commit_all(message)?;
        repo.push()
    }
}
