//! A lab world: module 10's work repos in a folder, built with the real `git` CLI the way a
//! learner builds them (clone, edit, `git add -A`, commit, push, revert).
//!
//! Layout under the root: `remotes/<name>.git` (bare repos standing in for the Git server) and
//! `work/<name>` (the learner's clones). Every commit has a fixed author, committer and date
//! that advances one minute per commit, and the user's own git config is ignored, so the same
//! point of the course always has the same SHAs (cluster snapshots carry the synced revision).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::content::{self, messages};

/// The work repos of module 10, in the order the world creates them.
pub const REPOS: [&str; 3] = ["argocd-platform", "checkout-config", "argocd-gitops"];

/// Seconds since the epoch of the first commit (2025-01-06 09:00:00 UTC, a Monday morning).
const FIRST_COMMIT_EPOCH: u64 = 1_736_154_000;

/// A point of module 10 at which the work repos are in a known state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CoursePoint {
    /// Before step 1: the repos as earlier modules left them.
    Fresh,
    /// Step 1 done: the Application health check committed and pushed to argocd-platform.
    Step1,
    /// Step 2 done: migration and smoke test switched on in checkout-config.
    Step2,
    /// Step 3 done: only reads the cluster, so the repos are as after step 2.
    Step3,
    /// Step 4 done: 6.7.0 with a failing migration, pushed.
    Step4,
    /// Step 5 done: step 4's commit reverted and pushed.
    Step5,
    /// Break-it, "break" stage: the smoke test points at /status/503, pushed.
    BreakIt,
    /// Break-it, "fix" stage: the break reverted and pushed.
    BreakItFixed,
}

impl CoursePoint {
    /// Every point, in course order.
    pub const ALL: [CoursePoint; 8] = [
        CoursePoint::Fresh,
        CoursePoint::Step1,
        CoursePoint::Step2,
        CoursePoint::Step3,
        CoursePoint::Step4,
        CoursePoint::Step5,
        CoursePoint::BreakIt,
        CoursePoint::BreakItFixed,
    ];

    /// The name used on the command line (`--at step-4`).
    pub fn as_str(self) -> &'static str {
        match self {
            CoursePoint::Fresh => "fresh",
            CoursePoint::Step1 => "step-1",
            CoursePoint::Step2 => "step-2",
            CoursePoint::Step3 => "step-3",
            CoursePoint::Step4 => "step-4",
            CoursePoint::Step5 => "step-5",
            CoursePoint::BreakIt => "break-it",
            CoursePoint::BreakItFixed => "break-it-fixed",
        }
    }
}

impl fmt::Display for CoursePoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CoursePoint {
    type Err = LabError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CoursePoint::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| LabError::UnknownPoint(s.to_string()))
    }
}

/// What went wrong while building a lab world.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error(
        "`{0}` is not a point of the course; use one of: fresh, step-1, step-2, step-3, step-4, step-5, break-it, break-it-fixed"
    )]
    UnknownPoint(String),
    #[error("cannot run `git {args}` in {}: {source}. Is git installed and on PATH?", dir.display())]
    Spawn {
        args: String,
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("`git {args}` failed in {}: {stderr}", dir.display())]
    Git {
        args: String,
        dir: PathBuf,
        stderr: String,
    },
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} already holds files; a lab world needs an empty folder", path.display())]
    NotEmpty { path: PathBuf },
    #[error(
        "no work repo `{0}` in the lab world; it has argocd-platform, checkout-config, argocd-gitops"
    )]
    UnknownRepo(String),
}

/// Module 10's work repos and their remotes in a folder.
#[derive(Debug, Clone)]
pub struct LabWorld {
    root: PathBuf,
    clock: Arc<AtomicU64>,
}

impl LabWorld {
    /// The fresh world (before step 1) under `root`, which must be empty or not exist yet.
    pub fn create(root: &Path) -> Result<LabWorld, LabError> {
        if root.exists() {
            let mut entries = std::fs::read_dir(root).map_err(|source| LabError::Io {
                path: root.to_path_buf(),
                source,
            })?;
            if entries.next().is_some() {
                return Err(LabError::NotEmpty {
                    path: root.to_path_buf(),
                });
            }
        }
        let world = LabWorld {
            root: root.to_path_buf(),
            clock: Arc::new(AtomicU64::new(0)),
        };
        for name in ["remotes", "work"] {
            let dir = root.join(name);
            std::fs::create_dir_all(&dir).map_err(|source| LabError::Io { path: dir, source })?;
        }
        for name in REPOS {
            world.create_repo(name, fresh_files(name))?;
        }
        Ok(world)
    }

    /// The world with every step up to and including `point` done, as the course does them.
    pub fn at(root: &Path, point: CoursePoint) -> Result<LabWorld, LabError> {
        let world = LabWorld::create(root)?;
        for step in CoursePoint::ALL {
            if step > point {
                break;
            }
            world.do_step(step)?;
        }
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
        Ok(self.repo_at(self.work_dir().join(name)))
    }

    fn repo_at(&self, path: PathBuf) -> LabRepo {
        LabRepo {
            path,
            clock: self.clock.clone(),
        }
    }

    /// Do what the course text says for `point` (only that step): edit, `git add -A`, commit
    /// with the course's message, push; step 5 and the fix revert HEAD and push.
    pub fn do_step(&self, point: CoursePoint) -> Result<(), LabError> {
        match point {
            CoursePoint::Fresh | CoursePoint::Step3 => Ok(()),
            CoursePoint::Step1 => {
                let repo = self.repo("argocd-platform")?;
                repo.write("argocd/values.yaml", &content::platform_values_solved())?;
                repo.commit_all(messages::STEP_1)?;
                repo.push()
            }
            CoursePoint::Step2 => {
                self.edit_checkout(&content::checkout_dev_hooks_on(), messages::STEP_2)
            }
            CoursePoint::Step4 => {
                self.edit_checkout(&content::checkout_dev_broken_migration(), messages::STEP_4)
            }
            CoursePoint::BreakIt => {
                self.edit_checkout(&content::checkout_dev_smoke_test_503(), messages::BREAK_IT)
            }
            CoursePoint::Step5 | CoursePoint::BreakItFixed => {
                let repo = self.repo("checkout-config")?;
                repo.revert_head()?;
                repo.push()
            }
        }
    }

    fn edit_checkout(&self, dev_yaml: &str, message: &str) -> Result<(), LabError> {
        let repo = self.repo("checkout-config")?;
        repo.write("helm/dev.yaml", dev_yaml)?;
        repo.commit_all(message)?;
        repo.push()
    }

    /// A bare remote, a clone of it in `work/`, the initial files committed and pushed.
    fn create_repo(&self, name: &str, files: Vec<(&str, String)>) -> Result<(), LabError> {
        let remotes = self.root.join("remotes");
        let remote = format!("{name}.git");
        let setup = self.repo_at(remotes.clone());
        setup.git(&["init", "--quiet", "--bare", &remote])?;
        let work = self.work_dir();
        let remote_path = remotes.join(&remote).display().to_string();
        self.repo_at(work.clone())
            .git(&["clone", "--quiet", &remote_path, name])?;
        let repo = self.repo_at(work.join(name));
        for (rel, text) in files {
            repo.write(rel, &text)?;
        }
        repo.commit_all(&format!("{name}: as the earlier modules left it"))?;
        repo.git(&["push", "--quiet", "-u", "origin", "main"])?;
        Ok(())
    }
}

/// The files each repo holds before step 1.
fn fresh_files(name: &str) -> Vec<(&'static str, String)> {
    match name {
        "argocd-platform" => vec![
            (
                "argocd/values.yaml",
                content::PLATFORM_VALUES_FRESH.to_string(),
            ),
            (
                "apps/projects.yaml",
                content::PLATFORM_APP_PROJECTS.to_string(),
            ),
            (
                "apps/namespaces.yaml",
                content::PLATFORM_APP_NAMESPACES.to_string(),
            ),
            (
                "apps/checkout-dev.yaml",
                content::PLATFORM_APP_CHECKOUT.to_string(),
            ),
        ],
        "checkout-config" => vec![("helm/dev.yaml", content::CHECKOUT_DEV_FRESH.to_string())],
        "argocd-gitops" => vec![
            (
                "platform/argocd/values.yaml",
                content::platform_values_solved(),
            ),
            (
                "platform/apps/projects.yaml",
                content::PLATFORM_APP_PROJECTS.to_string(),
            ),
        ],
        _ => Vec::new(),
    }
}

/// One of the learner's clones, driven with the real `git` CLI.
#[derive(Debug, Clone)]
pub struct LabRepo {
    path: PathBuf,
    clock: Arc<AtomicU64>,
}

impl LabRepo {
    /// A repo (or a folder to run git in) at `path`, sharing `clock` with the other repos of its
    /// world so every commit of the world gets its own reproducible time.
    pub fn open(path: PathBuf, clock: Arc<AtomicU64>) -> LabRepo {
        LabRepo { path, clock }
    }

    /// Where the clone lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write `text` to `rel` (creating folders), as a learner's editor would.
    pub fn write(&self, rel: &str, text: &str) -> Result<(), LabError> {
        let path = self.path.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| LabError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| LabError::Io { path, source })
    }

    /// `git add -A && git commit -qm MESSAGE`.
    pub fn commit_all(&self, message: &str) -> Result<(), LabError> {
        self.git(&["add", "-A"])?;
        self.tick();
        self.git(&["commit", "--quiet", "-m", message])?;
        Ok(())
    }

    /// `git push -q`.
    pub fn push(&self) -> Result<(), LabError> {
        self.git(&["push", "--quiet"])?;
        Ok(())
    }

    /// `git revert --no-edit HEAD`.
    pub fn revert_head(&self) -> Result<(), LabError> {
        self.tick();
        self.git(&["revert", "--no-edit", "HEAD"])?;
        Ok(())
    }

    /// The full sha of HEAD.
    pub fn head_sha(&self) -> Result<String, LabError> {
        Ok(self.git(&["rev-parse", "HEAD"])?.trim().to_string())
    }

    /// The full sha of the upstream (`origin/main`), what the last push left there.
    pub fn upstream_sha(&self) -> Result<String, LabError> {
        Ok(self.git(&["rev-parse", "@{upstream}"])?.trim().to_string())
    }

    /// Run `git ARGS` in the clone with the world's fixed identity and clock; returns stdout.
    pub fn git(&self, args: &[&str]) -> Result<String, LabError> {
        let seconds = FIRST_COMMIT_EPOCH + 60 * self.clock.load(Ordering::SeqCst);
        let date = format!("@{seconds} +0000");
        let shown = args.join(" ");
        let output = Command::new("git")
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "user.name=Course Learner",
                "-c",
                "user.email=learner@course.local",
                "-c",
                "advice.detachedHead=false",
            ])
            .args(args)
            .current_dir(&self.path)
            // The learner's own configuration and any git environment the tests run in must not
            // change what the world looks like.
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Course Learner")
            .env("GIT_AUTHOR_EMAIL", "learner@course.local")
            .env("GIT_COMMITTER_NAME", "Course Learner")
            .env("GIT_COMMITTER_EMAIL", "learner@course.local")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env("LC_ALL", "C")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .output()
            .map_err(|source| LabError::Spawn {
                args: shown.clone(),
                dir: self.path.clone(),
                source,
            })?;
        if !output.status.success() {
            return Err(LabError::Git {
                args: shown,
                dir: self.path.clone(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Advance the world's clock one minute: each commit gets its own, reproducible time.
    fn tick(&self) {
        self.clock.fetch_add(1, Ordering::SeqCst);
    }
}
