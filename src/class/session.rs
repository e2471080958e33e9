//! A class session: one `labcheck MODULE [STEP] --kubeconfigs …` (or `class serve`) from the
//! flags to every learner's verdict. It loads the course, selects the steps, settles the track,
//! checks the templates against what the steps read and seats every learner ([`Seat`]: their
//! copy of the steps, their cluster, their work repos); [`Class::run`] then runs each seat
//! through the learner's own runner and groups the failures by cause, and the live page follows
//! the same seats ([`super::follow`](mod@super::follow)). The command line only turns flags into a [`ClassSession`]
//! and prints what comes back.
//!
//! Why not a [`Session`](crate::run::Session) per learner: a learner's session loads the course and
//! reads their progress; a class loads the course once for everyone, never reads anyone's
//! progress, and renames each learner's steps through the templates. A seat is the per-learner
//! part that differs; everything shared lives here once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::causes::{self, ClassCauses};
use super::gate::Gate;
use super::renames::{self, Renames};
use super::seat::{Environment, LearnerRun, Lesson, Seat};
use crate::course::{Module, Step};
use crate::error::Error;
use crate::outcome::Status;
use crate::probe::cluster::ClusterOptions;
use crate::probe::files::PathShower;
use crate::run::session::{Asked, CourseModule};
use crate::run::{StepReport, WaitPolicy};

/// What to check for a whole class, already taken from the command line.
#[derive(Debug, Clone, Default)]
pub struct ClassSession {
    /// What to check and how (a class has no saved track: the module's default unless
    /// `--track`; paths are shown `~/…` under the instructor's home).
    pub asked: Asked,
    /// Who is in the class.
    pub roster: Roster,
}

/// The learners of a class, where their clusters and work repos are.
#[derive(Debug, Clone, Default)]
pub struct Roster {
    pub learners: Learners,
    /// Each learner's work repos: `DIR/{learner}`.
    pub work_dirs: Option<String>,
    /// The cluster options every learner's own start from (`--kubeconfig` for contexts,
    /// `--request-timeout`).
    pub cluster: ClusterOptions,
}

/// How the learners are named.
#[derive(Debug, Clone, Default)]
pub enum Learners {
    /// Nobody live (a page of bundles only).
    #[default]
    Nobody,
    /// One learner per kubeconfig context.
    Contexts(Vec<String>),
    /// One learner per kubeconfig file in the folder.
    Kubeconfigs(PathBuf),
    /// Learners sharing one cluster, each in their own namespaces.
    Shared {
        names: Vec<String>,
        renames: Renames,
    },
}

/// A class ready to run: the course loaded once, every learner seated.
pub struct Class {
    module: CourseModule,
    /// What is checked, as a heading (`module-10 step-4`).
    pub title: String,
    /// Whether more than one step is checked.
    pub module_run: bool,
    track: String,
    argocd_namespace: Option<String>,
    policy: WaitPolicy,
    paths: PathShower,
    seats: Vec<Seat>,
}

/// What a class run found.
#[derive(Debug)]
pub struct ClassRun {
    /// One run per learner, in the roster's order.
    pub runs: Vec<LearnerRun>,
    /// The failures grouped by cause (decided here, printed by reporters).
    pub causes: ClassCauses,
    /// Every learner's steps folded: what the exit code says.
    pub verdict: Status,
}

impl ClassSession {
    /// Load the course, pick the steps and the track, check the templates against what the steps
    /// read, and seat every learner. Nothing is run yet, so a refused report file costs nothing.
    pub fn open(&self) -> Result<Class, Error> {
        let asked = &self.asked;
        let course = Arc::new(asked.course()?);
        let module = course.module(&asked.module)?;
        let steps = module.select(asked.step.as_deref())?;
        let track = module.track(asked.track.as_deref())?.to_string();
        let argocd_ns = asked
            .argocd_namespace
            .clone()
            .unwrap_or_else(|| module.manifest.argocd.namespace.clone());
        let environments = self.roster.environments(&steps, &argocd_ns)?;
        let seats = environments
            .into_iter()
            .map(|env| {
                Seat::new(
                    env,
                    module,
                    &steps,
                    asked.argocd_namespace.as_deref(),
                    &asked.paths,
                )
            })
            .collect();
        let title = match &asked.step {
            Some(step) => format!("{} {step}", asked.module),
            None => asked.module.clone(),
        };
        let module_run = asked.module_run(steps.len());
        Ok(Class {
            module: CourseModule::of(course.clone(), &asked.module)?,
            title,
            module_run,
            track,
            argocd_namespace: asked.argocd_namespace.clone(),
            policy: asked.policy,
            paths: asked.paths.clone(),
            seats,
        })
    }
}

impl Class {
    /// The module checked.
    pub fn module(&self) -> &Module {
        self.module.get()
    }

    /// Every learner, seated, in the roster's order.
    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// Every learner's work dir that is named (their repos are where no report may be written).
    pub fn work_dirs(&self) -> impl Iterator<Item = &Path> {
        self.seats.iter().filter_map(|s| s.env.work_dir.as_deref())
    }

    /// What every learner's run shares.
    pub fn lesson(&self) -> Lesson<'_> {
        Lesson {
            course: self.module.course(),
            module: self.module(),
            track: &self.track,
            argocd_namespace: &self.argocd_namespace,
            policy: self.policy,
            paths: &self.paths,
        }
    }

    /// Run every learner once (as many at a time as [`Gate`] lets in) and group the failures.
    pub async fn run(&self) -> ClassRun {
        let runs = run_seats(self.lesson(), &self.seats).await;
        let causes = causes::group(&runs);
        let verdict = Status::fold(
            runs.iter()
                .flat_map(|r| &r.steps)
                .map(|s: &StepReport| s.status),
        );
        ClassRun {
            runs,
            causes,
            verdict,
        }
    }
}

/// Run every seat, as many at once as [`Gate`] lets in (every learner of a class of 200 on
/// their own clusters, 64 of a class sharing one); results in input order. Each learner goes
/// through [`crate::run::run_learner`], the runner of a learner's own run, with no progress at all: a
/// class never reads or writes anyone's progress, so hint levels are the first and "the break
/// came first" is read from the learner's own history.
///
/// Each learner is a task of its own, so every worker thread of the runtime runs learners (their
/// checks, the answers they parse), not only the thread waiting for the class.
async fn run_seats(lesson: Lesson<'_>, seats: &[Seat]) -> Vec<LearnerRun> {
    let shared = Arc::new((
        lesson.course.clone(),
        lesson.module.clone(),
        lesson.track.to_string(),
        lesson.argocd_namespace.clone(),
        lesson.paths.clone(),
    ));
    let policy = lesson.policy;
    let gate = Arc::new(Gate::new());
    let tasks: Vec<_> = seats
        .iter()
        .map(|seat| {
            let (seat, shared, gate) = (seat.clone(), shared.clone(), gate.clone());
            tokio::spawn(async move {
                let _turn = gate.enter(&seat.env.cluster).await;
                let (course, module, track, argocd_namespace, paths) = &*shared;
                let lesson = Lesson {
                    course,
                    module,
                    track,
                    argocd_namespace,
                    policy,
                    paths,
                };
                seat.run(lesson).await
            })
        })
        .collect();
    let mut runs = Vec::with_capacity(tasks.len());
    for task in tasks {
        match task.await {
            Ok(run) => runs.push(run),
            // A learner's run that panicked is a bug: let it surface as it would have unspawned.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => panic!("a learner's run was cancelled: {e}"),
        }
    }
    runs
}

impl Roster {
    /// One environment per learner, the templates checked against what `steps` read.
    fn environments(&self, steps: &[&Step], argocd_ns: &str) -> Result<Vec<Environment>, Error> {
        if let Learners::Shared { renames, .. } = &self.learners {
            if let Some(t) = &renames.namespace {
                let namespaces = renames::namespaces(steps, argocd_ns);
                renames::check_template("--namespace-template", t, "{namespace}", &namespaces)?;
            }
            if let Some(t) = &renames.app {
                let apps = renames::applications(steps);
                renames::check_template("--app-template", t, "{app}", &apps)?;
            }
        }
        if let Some(t) = &self.work_dirs
            && !t.contains("{learner}")
        {
            return Err(Error::Usage(format!(
                "--work-dirs `{t}` has no {{learner}}: every learner would be read from the same repos (e.g. 'clones/{{learner}}')"
            )));
        }
        let env = |learner: String, cluster: ClusterOptions, names: Renames| Environment {
            work_dir: self
                .work_dirs
                .as_ref()
                .map(|t| PathBuf::from(t.replace("{learner}", &learner))),
            learner,
            cluster,
            names,
        };
        Ok(match &self.learners {
            Learners::Nobody => Vec::new(),
            Learners::Contexts(contexts) => contexts
                .iter()
                .map(|c| {
                    let cluster = ClusterOptions {
                        context: Some(c.clone()),
                        snapshot: None,
                        ..self.cluster.clone()
                    };
                    env(c.clone(), cluster, Renames::default())
                })
                .collect(),
            Learners::Kubeconfigs(dir) => kubeconfig_files(dir)?
                .into_iter()
                .map(|file| {
                    let learner = file
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let cluster = ClusterOptions {
                        kubeconfig: Some(file),
                        context: None,
                        snapshot: None,
                        ..self.cluster.clone()
                    };
                    env(learner, cluster, Renames::default())
                })
                .collect(),
            Learners::Shared { names, renames } => names
                .iter()
                .map(|l| env(l.clone(), self.cluster.clone(), renames.clone()))
                .collect(),
        })
    }
}

/// The files in `--kubeconfigs DIR`, sorted: one learner each.
fn kubeconfig_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::Usage(format!(
            "cannot read --kubeconfigs {}: {e}; point it at a folder with one kubeconfig file per learner",
            dir.display()
        ))
    })?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::Usage(format!(
            "--kubeconfigs {} holds no files; put one kubeconfig per learner there (alice.yaml, bob.yaml, …)",
            dir.display()
        )));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(learners: Learners, work_dirs: Option<&str>) -> ClassSession {
        ClassSession {
            asked: Asked {
                module: "module-10".to_string(),
                step: Some("step-4".to_string()),
                ..Asked::default()
            },
            roster: Roster {
                learners,
                work_dirs: work_dirs.map(str::to_string),
                cluster: ClusterOptions::default(),
            },
        }
    }

    fn refusal(session: &ClassSession) -> String {
        match session.open() {
            Err(Error::Usage(message)) => message,
            Err(other) => panic!("not a usage error: {other}"),
            Ok(_) => panic!("opened"),
        }
    }

    #[test]
    fn a_class_of_kubeconfig_files_seats_one_learner_per_file_in_name_order_with_their_own_repos() {
        let dir = tempfile::tempdir().expect("a temp dir");
        for name in ["bob.yaml", "alice.yaml"] {
            std::fs::write(dir.path().join(name), "apiVersion: v1\n").expect("a kubeconfig");
        }
        std::fs::create_dir(dir.path().join("not-a-learner")).expect("a folder");
        let class = session(
            Learners::Kubeconfigs(dir.path().to_path_buf()),
            Some("clones/{learner}"),
        )
        .open()
        .expect("the class opens");
        let seats: Vec<(&str, Option<&Path>, Option<&Path>)> = class
            .seats()
            .iter()
            .map(|s| {
                (
                    s.env.learner.as_str(),
                    s.env.cluster.kubeconfig.as_deref(),
                    s.env.work_dir.as_deref(),
                )
            })
            .collect();
        let alice = dir.path().join("alice.yaml");
        let bob = dir.path().join("bob.yaml");
        assert_eq!(
            seats,
            [
                (
                    "alice",
                    Some(alice.as_path()),
                    Some(Path::new("clones/alice"))
                ),
                ("bob", Some(bob.as_path()), Some(Path::new("clones/bob"))),
            ]
        );
        assert_eq!(class.title, "module-10 step-4");
        assert!(!class.module_run, "one step asked for");
        assert_eq!(class.work_dirs().count(), 2);
    }

    #[test]
    fn templates_that_would_give_every_learner_the_same_names_or_repos_are_refused_before_anything_runs()
     {
        let shared = |namespace: &str| Learners::Shared {
            names: vec!["alice".to_string(), "bob".to_string()],
            renames: Renames {
                namespace: Some(namespace.to_string()),
                app: None,
            },
        };
        let cases = [
            (session(shared("checkout-dev"), None), "has no {learner}"),
            (
                session(shared("{learner}-{namespace}"), Some("clones")),
                "--work-dirs `clones` has no {learner}",
            ),
            (
                session(
                    Learners::Kubeconfigs(PathBuf::from("/no/such/folder")),
                    None,
                ),
                "cannot read --kubeconfigs",
            ),
        ];
        for (session, words) in cases {
            let message = refusal(&session);
            assert!(message.contains(words), "{message}");
        }
        let class = session(shared("{learner}-{namespace}"), None)
            .open()
            .expect("a template with {learner}");
        assert_eq!(class.seats().len(), 2);
    }
}
