//! A fixture world: a module's work repos built from its fixtures with the real git CLI, as
//! `src/lab/world.rs` builds module 10's (same layout, same fixed identity and clock, so the
//! same fixtures always give the same SHAs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::course::Module;
use crate::course::fixtures::ResolvedChange;
use crate::course::placeholders::Revision;
use crate::lab::world::{LabError, LabRepo};

/// Work repos (`work/<dir>`) and their remotes (`remotes/<name>.git`) under a folder.
pub struct FixtureWorld {
    root: PathBuf,
    clock: Arc<AtomicU64>,
    /// Repo name → folder under `work/`.
    dirs: BTreeMap<String, String>,
}

impl FixtureWorld {
    /// Every repo of `module` with its initial files, committed and pushed.
    pub fn create(
        root: &Path,
        module: &Module,
        initial: &BTreeMap<String, Vec<(String, String)>>,
    ) -> Result<FixtureWorld, LabError> {
        let world = FixtureWorld {
            root: root.to_path_buf(),
            clock: Arc::new(AtomicU64::new(0)),
            dirs: module
                .manifest
                .repos
                .iter()
                .map(|r| (r.name.clone(), r.dir_name().to_string()))
                .collect(),
        };
        let remotes = root.join("remotes");
        let work = world.work_dir();
        for dir in [&remotes, &work] {
            std::fs::create_dir_all(dir).map_err(|source| LabError::Io {
                path: dir.clone(),
                source,
            })?;
        }
        for spec in &module.manifest.repos {
            let files = initial.get(&spec.name).map_or(&[][..], Vec::as_slice);
            let repo = LabRepo::create_in(
                root,
                &spec.name,
                spec.dir_name(),
                world.clock.clone(),
                files,
            )?;
            // A relative remote keeps the world whole when it is copied to another folder.
            let up = "../".repeat(Path::new(spec.dir_name()).components().count() + 1);
            repo.git(&[
                "remote",
                "set-url",
                "origin",
                &format!("{up}remotes/{}.git", spec.name),
            ])?;
        }
        Ok(world)
    }

    /// A copy of this world (repos, remotes and clock) under `root`, to go on from.
    pub fn copy_to(&self, root: &Path) -> Result<FixtureWorld, LabError> {
        copy_dir(&self.root, root)?;
        Ok(FixtureWorld {
            root: root.to_path_buf(),
            clock: Arc::new(AtomicU64::new(self.clock.load(Ordering::SeqCst))),
            dirs: self.dirs.clone(),
        })
    }

    /// The folder holding the work repos (`--work-dir`).
    pub fn work_dir(&self) -> PathBuf {
        self.root.join("work")
    }

    fn at(&self, path: PathBuf) -> LabRepo {
        LabRepo::open(path, self.clock.clone())
    }

    /// The learner's clone of the repo `name`.
    pub fn repo(&self, name: &str) -> Result<LabRepo, LabError> {
        let dir = self
            .dirs
            .get(name)
            .ok_or_else(|| LabError::UnknownRepo(name.to_string()))?;
        Ok(self.at(self.work_dir().join(dir)))
    }

    /// Do what the learner does, in order.
    pub fn apply(&self, changes: &[ResolvedChange]) -> Result<(), LabError> {
        crate::lab::fixtures::apply(changes, |name| self.repo(name))
    }

    /// The SHA a placeholder stands for.
    pub fn revision(&self, revision: Revision, repo: &str) -> Result<String, String> {
        let git = self.repo(repo).map_err(|e| e.to_string())?;
        let rev = match revision {
            Revision::Pushed => "@{upstream}",
            Revision::Previous => "@{upstream}~1",
            Revision::Head => "HEAD",
        };
        git.git(&["rev-parse", "--verify", "--quiet", rev])
            .map(|sha| sha.trim().to_string())
            .map_err(|_| match revision {
                Revision::Previous => format!(
                    "{repo} has only one pushed commit in this state, so there is no previous revision"
                ),
                _ => format!("{repo} has no {rev} in this state"),
            })
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), LabError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LabError::Io { path, source }
    };
    std::fs::create_dir_all(to).map_err(io(to))?;
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(io(&entry.path()))?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(io(&target))?;
        }
    }
    Ok(())
}
