//! A session: one `labcheck MODULE [STEP]` from start to verdict. It loads the course, selects
//! the steps, settles the track, connects to the cluster, runs the steps through
//! [`run_judged`] (as [`super::run_learner`] does) and hands the reports to the learner's history,
//! then returns everything as data: the reports, the verdict and what was read. The command line
//! prints it; `demo`, `next` and the course's own tests run sessions too, and never go through the
//! command line. A session's probes may record every answer (`labcheck bundle`, `labcheck
//! snapshot`) or answer from a recording (a bundle's replay): see [`Session::tape`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{LearnerWorld, Recall, StepReport, WaitPolicy, WaitProgress, WorkDir, run_judged};
use crate::course::{Course, Module, Step};
use crate::error::Error;
use crate::outcome::Status;
use crate::probe::cluster::{Cluster, ClusterOptions, Read, ReadLog};
use crate::probe::files::PathShower;
use crate::probe::repos::Repos;
use crate::probe::tape::{Mode, Tape};

/// A learner's past runs as the runner uses them: the progress hands over a read-only
/// [`Recall`] before the run and gets the reports afterwards. Implemented by the learner's
/// progress (`progress::Learner`); the runner never reads or writes progress files itself.
pub trait History {
    /// The track for `module`: `asked` (`--track`), else the learner's saved one, else the
    /// module's default.
    fn track<'a>(&'a self, module: &'a Module, asked: Option<&'a str>) -> Result<&'a str, Error>;

    /// What the learner's past runs say for a run of `module`.
    fn recall(&self, module: &Module) -> Recall;

    /// Remember a run's reports; an error says why they could not be kept (worth a warning,
    /// never a lost verdict).
    fn remember(&mut self, reports: &[StepReport]) -> Result<(), String>;
}

/// What a run is asked to check and how, already taken from the command line: the part one
/// learner's [`Session`] and a whole class's (`class::ClassSession`) share.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// Read the course from this folder; the built-in course when `None`.
    pub course_dir: Option<PathBuf>,
    /// The module, e.g. `module-10`.
    pub module: String,
    /// The step, exercise or stage; the whole module when `None`.
    pub step: Option<String>,
    /// `--track` (a class has no saved track: the module's default otherwise).
    pub track: Option<String>,
    /// `--argocd-namespace`, else the module's.
    pub argocd_namespace: Option<String>,
    /// How long to wait for cluster checks that are not there yet.
    pub policy: WaitPolicy,
    /// How the checks show paths: the command line makes it from `$HOME`, a test brings its own.
    pub paths: PathShower,
}

/// What to check, where, and how: everything a run needs, already taken from the command line.
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// What to check and how.
    pub asked: Asked,
    /// The folder holding the learner's work repos.
    pub work_dir: PathBuf,
    /// How to reach the cluster.
    pub cluster: ClusterOptions,
    /// Note every request to the cluster (`-v`).
    pub log_reads: bool,
    /// Hand the reports to the history afterwards (a learner's own run on their own work dir,
    /// with the human report: see README, "Whose progress a run writes").
    pub remember: bool,
    /// Where the probes get their answers: the learner's repos and cluster, the same while
    /// recording every answer (`labcheck bundle`, `labcheck snapshot`), or a recording alone (a
    /// bundle's replay). See `probe::tape`.
    pub tape: Mode,
}

/// What one session found.
#[derive(Debug)]
pub struct SessionRun {
    /// One report per step, in course order.
    pub reports: Vec<StepReport>,
    /// Whether the run covered a module or an exercise (more than one step asked for).
    pub module_run: bool,
    /// Every step's status folded: what the exit code says.
    pub verdict: Status,
    /// What was read, for `-v`.
    pub read: WhatWasRead,
    /// What went wrong keeping the learner's progress (for stderr; the verdict stands).
    pub warnings: Vec<String>,
}

/// What a session read, for `-v`.
#[derive(Debug, Default)]
pub struct WhatWasRead {
    /// Where the course came from ("the built-in course" or its folder).
    pub course: String,
    /// How long loading the course took.
    pub course_took: Duration,
    /// The work repos the run's checks read, as folders.
    pub repos: Vec<PathBuf>,
    /// The requests sent to the cluster (a read shared by several checks is one), when noted.
    pub requests: Vec<Read>,
}

/// The course in `dir` (a folder with `modules/` and `expected/`), else the built-in one.
pub fn load_course(dir: Option<&Path>) -> Result<Course, Error> {
    match dir {
        Some(dir) => Course::from_dir(dir),
        None => Course::embedded(),
    }
}

impl Asked {
    /// The course asked about: read from `course_dir`, else the built-in one.
    pub fn course(&self) -> Result<Course, Error> {
        load_course(self.course_dir.as_deref())
    }

    /// The module asked about, of the course loaded for it.
    pub fn course_module(&self) -> Result<CourseModule, Error> {
        CourseModule::of(Arc::new(self.course()?), &self.module)
    }

    /// Whether a run of `selected` steps covers a module or an exercise rather than one step.
    pub fn module_run(&self, selected: usize) -> bool {
        self.step.is_none() || selected > 1
    }
}

impl Session {
    /// The module's work repos, as the course names them (the course is read for it).
    pub fn work_repos(&self) -> Result<Vec<crate::course::schema::RepoSpec>, Error> {
        let course = self.asked.course()?;
        Ok(course.module(&self.asked.module)?.manifest.repos.clone())
    }

    /// Run the session: without a history (a recheck, the demo) hints start at their first
    /// level and nothing is remembered.
    pub async fn run(
        &self,
        history: Option<&mut dyn History>,
        on_wait: &(dyn Fn(&WaitProgress) + Sync),
    ) -> Result<SessionRun, Error> {
        self.run_through(None, history, on_wait).await
    }

    /// This session as `labcheck bundle` and `labcheck snapshot` run it: every probe answer
    /// kept on `tape`, never waiting (what is there now), remembering nothing, noting no reads.
    pub fn recording(&self, tape: Arc<Tape>) -> Session {
        Session {
            asked: Asked {
                policy: WaitPolicy::Never,
                ..self.asked.clone()
            },
            log_reads: false,
            remember: false,
            tape: Mode::Record(tape),
            ..self.clone()
        }
    }

    /// The one connection to the cluster a session makes, made now: for a caller that reads on
    /// after the run through the same connection (a bundle's cluster part, a snapshot's
    /// declared reads) and hands it to [`Session::run_on`]. Its reads go on the session's tape.
    pub async fn connect(&self) -> Arc<Cluster> {
        Arc::new(Cluster::connect(&self.cluster_options(None)).await)
    }

    /// Run the session on `cluster`, connected with [`Session::connect`]; no history, so
    /// nothing is remembered.
    pub async fn run_on(&self, cluster: Arc<Cluster>) -> Result<SessionRun, Error> {
        self.run_through(Some(cluster), None, &|_| {}).await
    }

    /// How this session reaches the cluster: its options, with its tape and `log`.
    fn cluster_options(&self, log: Option<ReadLog>) -> ClusterOptions {
        ClusterOptions {
            read_log: log,
            tape: self.tape.clone(),
            ..self.cluster.clone()
        }
    }

    async fn run_through(
        &self,
        connected: Option<Arc<Cluster>>,
        mut history: Option<&mut dyn History>,
        on_wait: &(dyn Fn(&WaitProgress) + Sync),
    ) -> Result<SessionRun, Error> {
        let loading = Instant::now();
        let course = Arc::new(self.asked.course()?);
        let course_took = loading.elapsed();
        let module = course.module(&self.asked.module)?;
        let steps = module.select(self.asked.step.as_deref())?;
        let asked_track = self.asked.track.as_deref();
        let track = match &history {
            Some(history) => history.track(module, asked_track)?,
            None => module.track(asked_track)?,
        }
        .to_string();
        let recall = history
            .as_ref()
            .map(|h| h.recall(module))
            .unwrap_or_default();
        // A connection made before (with `connect`) notes no reads: only a run's own does.
        let log = (self.log_reads && connected.is_none()).then(ReadLog::default);
        let cluster = self.cluster_options(log.clone());
        let world = LearnerWorld {
            course: course.clone(),
            module,
            track: &track,
            work_dir: WorkDir::At(self.work_dir.clone()),
            cluster: &cluster,
            argocd_namespace: self.asked.argocd_namespace.clone(),
            paths: self.asked.paths.clone(),
        };
        let connected = match connected {
            Some(cluster) => cluster,
            None => Arc::new(Cluster::connect(&cluster).await),
        };
        let mut ctx = world.context(connected);
        ctx.repo_probe = Repos::new(self.tape.clone(), self.work_dir.clone());
        let reports = run_judged(&ctx, &recall, module, &steps, self.asked.policy, on_wait).await;
        let mut warnings = Vec::new();
        if self.remember
            && let Some(history) = history.as_mut()
            && let Err(e) = history.remember(&reports)
        {
            warnings.push(e);
        }
        let requests = log
            .map(|log| std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner())))
            .unwrap_or_default();
        Ok(SessionRun {
            module_run: self.asked.module_run(steps.len()),
            verdict: super::verdict(&reports),
            read: WhatWasRead {
                course: match &self.asked.course_dir {
                    Some(dir) => dir.display().to_string(),
                    None => "the built-in course".to_string(),
                },
                course_took,
                repos: repos_read(module, &steps, &self.work_dir),
                requests,
            },
            reports,
            warnings,
        })
    }
}

/// The folders of the work repos `steps` read, sorted, each once.
fn repos_read(module: &Module, steps: &[&Step], work_dir: &Path) -> Vec<PathBuf> {
    let mut repos: Vec<PathBuf> = steps
        .iter()
        .flat_map(|s| s.checks.iter().flat_map(|c| c.kind.repos()))
        .map(|name| module.repo_dir(work_dir, name))
        .collect();
    repos.sort();
    repos.dedup();
    repos
}

/// The names of the work repos `steps` read and those their `after:` stages name: what a watch
/// follows for changes.
pub fn repos_followed(steps: &[&Step]) -> BTreeSet<String> {
    steps
        .iter()
        .flat_map(|s| {
            s.checks
                .iter()
                .flat_map(|c| c.kind.repos())
                .chain(s.after.iter().map(|a| a.repo.as_str()))
        })
        .map(str::to_string)
        .collect()
}

/// A module of a loaded course, owned (the course shared), for sessions that outlive a borrow.
#[derive(Debug, Clone)]
pub struct CourseModule {
    course: Arc<Course>,
    /// The module's place in the course.
    index: usize,
}

impl CourseModule {
    /// Module `name` of `course`.
    pub fn of(course: Arc<Course>, name: &str) -> Result<CourseModule, Error> {
        let module = course.module(name)?;
        let index = course
            .modules
            .iter()
            .position(|m| std::ptr::eq(m, module))
            .unwrap_or_default();
        Ok(CourseModule { course, index })
    }

    /// The module.
    pub fn get(&self) -> &Module {
        &self.course.modules[self.index]
    }

    /// The course it belongs to.
    pub fn course(&self) -> &Arc<Course> {
        &self.course
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every summary of module 10 run on an empty work dir `work`, its paths shown by `paths`,
    /// and then every hint and diagnosis (where the course's own words may write `~/work`).
    async fn words(work: &Path, paths: PathShower) -> (String, String) {
        let snapshot =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/presync-failed.yaml");
        let session = Session {
            asked: Asked {
                module: "module-10".to_string(),
                policy: super::super::WaitPolicy::Never,
                paths,
                ..Asked::default()
            },
            work_dir: work.to_path_buf(),
            cluster: ClusterOptions {
                snapshot: Some(snapshot),
                ..ClusterOptions::default()
            },
            ..Session::default()
        };
        let run = session.run(None, &|_| {}).await.expect("module 10 runs");
        let outcomes = || {
            run.reports
                .iter()
                .flat_map(|r| &r.checks)
                .map(|c| &c.outcome)
        };
        let summaries = outcomes().map(|o| o.summary.clone()).collect::<Vec<_>>();
        let advice = outcomes()
            .flat_map(|o| {
                let hints = o.hints.iter().flat_map(|p| p.texts());
                hints
                    .map(str::to_string)
                    .chain(o.diagnosis.clone())
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>();
        (summaries.join("\n"), advice.join("\n"))
    }

    #[tokio::test]
    async fn a_learner_without_clones_is_shown_their_paths_as_the_sessions_shower_says_whatever_home_is()
     {
        // A home of the test's own, never the HOME this test runs under.
        let home = tempfile::tempdir().expect("a temp dir");
        let work = home.path().join("work");
        std::fs::create_dir_all(&work).expect("the work dir");
        let whole = work.join("checkout-config").display().to_string();

        let (summaries, advice) =
            words(&work, PathShower::new(Some(home.path().to_path_buf()))).await;
        assert!(summaries.contains("~/work/checkout-config"), "{summaries}");
        for words in [&summaries, &advice] {
            assert!(!words.contains(&whole), "{words}");
        }

        let (summaries, _) = words(&work, PathShower::default()).await;
        assert!(summaries.contains(&whole), "{summaries}");
        assert!(!summaries.contains("~/"), "{summaries}");
    }
}
