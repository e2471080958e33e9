//! A lab world: a module's work repos in a folder at any point of the course, built from the
//! course's files alone, the way a learner builds them: the fresh lab's files
//! (`modules/<module>/lab/<repo>/`) committed and pushed, then the `solution:` of every step up to
//! the point run on them in process (`lab::solve`: the same edits `labcheck edit` makes, real
//! `git add -- FILE`, commit, push and revert). Any module of any course works; its repos are the
//! `repos:` of its module.yaml.
//!
//! Layout under the root: `remotes/<name>.git` (bare repos standing in for the Git server) and
//! `work/<dir>` (the learner's clones, whose `origin` is a relative path so a copied world stays
//! whole). Every commit has a fixed author, committer and date that advances one minute per
//! commit, and the user's own git config is ignored, so the same point of the course always has
//! the same SHAs (cluster snapshots carry the synced revision).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::fixtures;
pub use super::repo::{LabError, LabRepo};
use crate::course::fixtures::{Base, ResolvedChange};
use crate::course::placeholders::Revision;
use crate::course::{Course, Module};

/// The name of the point before a module's first step.
pub const FRESH: &str = "fresh";

/// A module's work repos and their remotes in a folder.
#[derive(Debug, Clone)]
pub struct LabWorld {
    root: PathBuf,
    clock: Arc<AtomicU64>,
    module: String,
    /// Repo name → folder under `work/`, in module.yaml's order.
    dirs: Vec<(String, String)>,
}

impl LabWorld {
    /// The fresh world of `module` under `root` (empty or absent): every repo with the files of
    /// `lab/<repo>/`, committed and pushed.
    pub fn fresh(root: &Path, course: &Course, module: &Module) -> Result<LabWorld, LabError> {
        let initial = crate::course::fixtures::lab_files(course, module)
            .map_err(|e| LabError::Fixtures(e.to_string()))?;
        LabWorld::create(root, module, &initial)
    }

    /// The fresh world of `module` from files already read (repo name → (path, text)).
    pub fn create(
        root: &Path,
        module: &Module,
        initial: &BTreeMap<String, Vec<(String, String)>>,
    ) -> Result<LabWorld, LabError> {
        let clock = super::repo::new_root(root)?;
        let world = LabWorld {
            root: root.to_path_buf(),
            clock,
            module: module.manifest.module.clone(),
            dirs: module
                .manifest
                .repos
                .iter()
                .map(|r| (r.name.clone(), r.dir_name().to_string()))
                .collect(),
        };
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

    /// The world of `module` in the built-in course with every step up to and including `point`
    /// done (`fresh`: none), built in `root` (empty or absent).
    pub fn at(root: &Path, module: &str, point: &str) -> Result<LabWorld, LabError> {
        let course = fixtures::course()?;
        LabWorld::at_in(root, course, module, point)
    }

    /// [`LabWorld::at`] for any course (a `--course-dir`).
    pub fn at_in(
        root: &Path,
        course: &Course,
        module: &str,
        point: &str,
    ) -> Result<LabWorld, LabError> {
        let module = course
            .module(module)
            .map_err(|e| LabError::Fixtures(e.to_string()))?;
        let steps = steps_through(module, point)?;
        let world = LabWorld::fresh(root, course, module)?;
        for step in steps {
            world.solve(module, step)?;
        }
        Ok(world)
    }

    /// The world of one state of a step's fixtures (`step-2`, `not-pushed`), as `labcheck course
    /// test` builds it: the steps before done, then the state's own changes on its base.
    pub fn in_state(
        root: &Path,
        module: &str,
        step: &str,
        state: &str,
    ) -> Result<LabWorld, LabError> {
        let before = point_before(fixtures::course()?, module, step)?;
        let world = LabWorld::at(root, module, &before)?;
        world.finish_state(step, state)?;
        Ok(world)
    }

    /// Apply a state's changes to a world at the point before its step.
    pub(super) fn finish_state(&self, step: &str, state: &str) -> Result<(), LabError> {
        let fixtures = fixtures::step(&self.module, step)?;
        let wanted = fixtures::state(&self.module, step, state)?;
        // The solved state is its own changes; a broken one starts from its base.
        let is_solved = std::ptr::eq(wanted, &fixtures.solved);
        if !is_solved && wanted.base == Base::Solved {
            self.apply(&fixtures.solved.changes)?;
        }
        self.apply(&wanted.changes)
    }

    /// A copy of this world (repos, remotes and clock) under `root`, to go on from.
    pub fn copy_to(&self, root: &Path) -> Result<LabWorld, LabError> {
        copy_dir(&self.root, root)?;
        let copy = LabWorld {
            root: root.to_path_buf(),
            clock: Arc::new(AtomicU64::new(self.clock.load(Ordering::SeqCst))),
            module: self.module.clone(),
            dirs: self.dirs.clone(),
        };
        // The copied files have new inodes and times: refresh each index, as a fresh clone's
        // is, so git does not take every file for modified (a sparse checkout would keep them).
        // It exits 1 when a file really differs (a state with uncommitted changes): that file
        // stays as it is, which is what the copy should show.
        for (name, _) in &copy.dirs {
            let _ = copy.repo(name)?.git(&["update-index", "-q", "--refresh"]);
        }
        Ok(copy)
    }

    /// The module this world is a lab of.
    pub fn module(&self) -> &str {
        &self.module
    }

    /// The folder that holds the work repos (`--work-dir`).
    pub fn work_dir(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The folder the world lives in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The names of the module's repos, in module.yaml's order.
    pub fn repo_names(&self) -> impl Iterator<Item = &str> {
        self.dirs.iter().map(|(name, _)| name.as_str())
    }

    /// The learner's clone of the repo `name`.
    pub fn repo(&self, name: &str) -> Result<LabRepo, LabError> {
        let dir = self
            .dirs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, dir)| dir)
            .ok_or_else(|| LabError::UnknownRepo(name.to_string()))?;
        Ok(LabRepo::open(self.work_dir().join(dir), self.clock.clone()))
    }

    /// The text of `path` in the clone of `repo` as the world has it now.
    pub fn file(&self, repo: &str, path: &str) -> Result<String, LabError> {
        let file = self.repo(repo)?.path().join(path);
        std::fs::read_to_string(&file).map_err(|source| LabError::Io { path: file, source })
    }

    /// Run `step`'s solution on the world, in process.
    pub fn solve(&self, module: &Module, step: &str) -> Result<(), LabError> {
        let step = module
            .step(step)
            .map_err(|e| LabError::Fixtures(e.to_string()))?;
        super::solve::run(&step.solution, |name| self.repo(name))
    }

    /// Run `step`'s solution (of this world's module in the built-in course), as the learner
    /// would do the step.
    pub fn do_step(&self, step: &str) -> Result<(), LabError> {
        let course = fixtures::course()?;
        let module = course
            .module(&self.module)
            .map_err(|e| LabError::Fixtures(e.to_string()))?;
        self.solve(module, step)
    }

    /// Do what a fixture state's changes say, in order.
    pub fn apply(&self, changes: &[ResolvedChange]) -> Result<(), LabError> {
        fixtures::apply(changes, |name| self.repo(name))
    }

    /// The SHA a snapshot placeholder stands for.
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

/// The steps a world at `point` has done, in course order: none for `fresh`, else every step
/// (and stage) up to and including the one named.
pub fn steps_through<'m>(module: &'m Module, point: &str) -> Result<Vec<&'m str>, LabError> {
    let names = module.step_names();
    if point == FRESH {
        return Ok(Vec::new());
    }
    match names.iter().position(|n| *n == point) {
        Some(at) => Ok(names[..=at].to_vec()),
        None => Err(LabError::UnknownPoint {
            name: point.to_string(),
            points: std::iter::once(FRESH)
                .chain(names.iter().copied())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// The point a step's fixtures start from: the step before it, or `fresh` for the first.
pub fn point_before(course: &Course, module: &str, step: &str) -> Result<String, LabError> {
    let module = course
        .module(module)
        .map_err(|e| LabError::Fixtures(e.to_string()))?;
    let names = module.step_names();
    match names.iter().position(|n| *n == step) {
        Some(0) => Ok(FRESH.to_string()),
        Some(at) => Ok(names[at - 1].to_string()),
        None => Err(LabError::Fixtures(format!(
            "{step} is not a step of {}",
            module.manifest.module
        ))),
    }
}

/// Copy a folder with everything in it (a world: files, git repos, no links).
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
