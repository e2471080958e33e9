//! What a check may read: the module, the learner's work dir and the cluster. The runner builds
//! one per run and hands it to every check; checks never reach back into the runner. (What the
//! learner's progress says, hint levels and earlier passes, is the runner's business: see
//! `run::Recall`.)

use std::path::PathBuf;
use std::sync::Arc;

use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::Cluster;
use crate::probe::files::PathShower;
use crate::probe::git::GitCache;
use crate::probe::repos::Repos;
use crate::probe::tape::Mode;

/// What checks need to know of the module they check (the course's data, handed down so that
/// checks never import the course).
#[derive(Debug, Clone)]
pub struct ModuleFacts {
    pub name: String,
    pub repos: Vec<WorkRepo>,
    /// Where Argo CD's Applications live (the module's, or `--argocd-namespace`).
    pub argocd_namespace: String,
    /// The course's reference files (`expected/<track>/<module>/…`).
    pub references: Arc<dyn ReferenceFiles>,
}

/// Where a check finds the course's reference copy of a file. The course implements it; checks
/// only see this, so they never depend on how a course is stored.
pub trait ReferenceFiles: Send + Sync + std::fmt::Debug {
    /// The reference file `relative` for `module` on `track`: the name to show and its text, or
    /// why it cannot be read.
    fn reference_file(
        &self,
        track: &str,
        module: &str,
        relative: &str,
    ) -> Result<(String, String), String>;
}

/// A work repository the learner cloned.
#[derive(Debug, Clone)]
pub struct WorkRepo {
    pub name: String,
    /// Its folder under the work dir.
    pub dir: String,
    /// How a learner gets the repo when it is missing (shown verbatim).
    pub get: String,
}

/// Everything a check may read. Shared by all checks of a run.
pub struct Context {
    pub module: String,
    pub track: String,
    pub work_dir: PathBuf,
    pub repos: Vec<WorkRepo>,
    pub references: Arc<dyn ReferenceFiles>,
    pub cluster: Arc<Cluster>,
    pub argocd_namespace: String,
    /// Work repos read so far in this run (each is read once).
    pub git: GitCache,
    /// How checks read the work repos: live, recorded for a bundle, or replayed from one.
    pub repo_probe: Repos,
    /// Why this run has no work repos to read (a learner of a class without a work dir): every
    /// check of a work repo is then "could not check" with this hint, never read from an empty
    /// path. `None` for a learner's own run, which always has a work dir.
    pub no_work_dir: Option<String>,
    /// How summaries and hints show paths (`~/…` under the learner's home): given by whoever
    /// builds the context, so no check reads `HOME` itself.
    pub paths: PathShower,
}

impl Context {
    /// A context for `module` (with its work repos and Argo CD namespace) on `track`, showing
    /// paths with `paths`.
    pub fn new(
        module: ModuleFacts,
        track: &str,
        work_dir: PathBuf,
        cluster: Arc<Cluster>,
        paths: PathShower,
    ) -> Context {
        Context {
            module: module.name,
            track: track.to_string(),
            repos: module.repos,
            references: module.references,
            cluster,
            argocd_namespace: module.argocd_namespace,
            git: GitCache::new(),
            repo_probe: Repos::new(Mode::Live, work_dir.clone()),
            work_dir,
            no_work_dir: None,
            paths,
        }
    }

    /// The outcome of a check of work repos when this run has none (see [`Context::no_work_dir`]).
    pub fn unchecked_repos(&self) -> Option<Outcome> {
        self.no_work_dir.as_ref().map(|hint| {
            Outcome::could_not_check(NO_WORK_DIR)
                .with_hint(hint.clone())
                .with_cause(Cause::new(CauseId::NoWorkDir))
        })
    }

    /// The work dir as hints show it: `~/work` when it is the course's, else its real path.
    pub fn work_dir_shown(&self) -> String {
        self.paths.work_dir(&self.work_dir)
    }

    /// The declared work repo `name`.
    pub fn repo(&self, name: &str) -> Option<&WorkRepo> {
        self.repos.iter().find(|r| r.name == name)
    }

    /// Where work repo `name` lives on this machine.
    pub fn repo_dir(&self, name: &str) -> PathBuf {
        let dir = self
            .repo(name)
            .map(|repo| repo.dir.as_str())
            .unwrap_or(name);
        self.work_dir.join(dir)
    }

    /// Where work repo `name` lives on this machine, and that folder as hints show it.
    pub fn repo_dir_shown(&self, name: &str) -> (PathBuf, String) {
        let dir = self.repo_dir(name);
        let shown = self.paths.show(&dir);
        (dir, shown)
    }
}

/// The summary of every check of work repos in a run without them.
pub const NO_WORK_DIR: &str = "no work dir for this learner";
