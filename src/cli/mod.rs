//! The command line: clap definitions and dispatch. It parses, calls the library, hands results to
//! a reporter and maps the outcome to an exit code.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

pub mod bundle;
mod check;
pub mod class;
pub mod completions;
pub mod course;
pub mod demo;
pub mod doctor;
pub mod edit;
pub mod fleet;
pub mod hint;
pub mod next;
pub mod output;
pub mod plan;
pub mod quiz;
mod replay;
pub mod reset;
pub mod serve;
pub mod snapshot;
pub mod solution;
pub mod status;
pub mod track;
pub mod watch;

pub use check::check;

use crate::course::Course;
use crate::error::{Error, exit};
use crate::outcome::Status;
use crate::probe::cluster::ClusterOptions;
use crate::probe::files::PathShower;
use crate::progress::Learner;
use crate::progress::workdir::WorkDir;
use crate::report::{self, ColorChoice};
use crate::run::{self, Asked, Session, WaitPolicy};

/// The examples `--help` shows and the man page renders: (command, what it does).
pub const EXAMPLES: &[(&str, &str)] = &[
    ("labcheck module-10 step-4", "check step 4 of module 10"),
    (
        "labcheck module-10 step-4 --watch",
        "re-check as you work, until it passes (q quits)",
    ),
    ("labcheck module-10", "check every step of module 10"),
    ("labcheck module-10 quiz", "the module's quiz"),
    ("labcheck next", "the first step you have not finished"),
    (
        "labcheck status",
        "the course map: what you passed, and when",
    ),
    ("labcheck list", "list modules and steps"),
    (
        "labcheck demo",
        "try it on a throwaway lab (no cluster needed)",
    ),
    (
        "labcheck plan --rules DIR",
        "Argo CD's sync order for manifests, and migration-hook rules",
    ),
    (
        "labcheck doctor module-10",
        "can this machine and cluster run module 10?",
    ),
    (
        "labcheck module-10 -o json",
        "the report as one JSON document (also yaml, junit, tap, tap14)",
    ),
    (
        "labcheck module-10 --report junit=labcheck.xml --report json=labcheck.json",
        "reports for CI in files, the human report on the terminal",
    ),
    (
        "labcheck module-10 step-4 --bundle bundle.tar.zst",
        "replay a learner's bundle (labcheck bundle): their verdicts, offline",
    ),
];

/// The exit codes every command shares: (code, meaning), for `--help`, the man page and README.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (exit::PASS, "every check passed"),
    (exit::FAIL, "at least one check failed (or a wait gave up)"),
    (
        exit::USAGE,
        "usage error, a broken course file, or a report file that cannot be written",
    ),
    (
        exit::COULD_NOT_CHECK,
        "nothing failed, but something could not be checked (cluster unreachable, no permission)",
    ),
    (exit::INTERRUPTED, "interrupted (Ctrl-C) before a verdict"),
];

/// `--help`'s closing text, written out from [`EXAMPLES`] (tested to agree).
const AFTER_HELP: &str = "Examples:
  labcheck module-10 step-4        check step 4 of module 10
  labcheck module-10 step-4 --watch  re-check as you work, until it passes (q quits)
  labcheck module-10               check every step of module 10
  labcheck module-10 quiz          the module's quiz
  labcheck next                    the first step you have not finished
  labcheck status                  the course map: what you passed, and when
  labcheck reset module-10 step-4  forget your progress of a step (asks first)
  labcheck list                    list modules and steps
  labcheck demo                    try it on a throwaway lab (no cluster needed)
  labcheck plan --rules DIR        Argo CD's sync order for manifests, and migration-hook rules
  labcheck doctor module-10        can this machine and cluster run module 10?
  labcheck module-10 -o json       the report as one JSON document (also yaml, junit, tap, tap14)
  labcheck module-10 --report junit=labcheck.xml --report json=labcheck.json
                                   reports for CI in files, the human report on the terminal
  labcheck module-10 step-4 --bundle bundle.tar.zst
                                   replay a learner's bundle (labcheck bundle): their verdicts, offline

Exit codes: 0 passed, 1 a check failed, 2 usage or course-file error, 3 could not check, 130 interrupted.";

/// `--version`: labcheck's version and the course it embeds (its modules and a fingerprint of
/// their files, from build.rs), so a bug report says which course the learner ran.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (course ",
    env!("LABCHECK_COURSE_MODULES"),
    ", fingerprint ",
    env!("LABCHECK_COURSE_FINGERPRINT"),
    ")"
);

/// Tells a learner whether they really did a step of the GitOps course.
#[derive(Debug, Parser)]
#[command(
    name = "labcheck",
    version = VERSION,
    about = "Checks whether you really did a step of the GitOps course: git, files and your cluster.",
    long_about = None,
    args_conflicts_with_subcommands = true,
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The module to check, e.g. module-10.
    #[arg(index = 1)]
    pub module: Option<String>,

    /// The step (step-4), exercise (break-it) or stage (break-it/fix); all steps when left out.
    /// `quiz` runs the module's quiz.
    #[arg(index = 2)]
    pub step: Option<String>,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub learner: LearnerArgs,
}

/// Options of the learner's loop: watching, re-checking, quiz answers.
#[derive(Debug, Args, Clone, Default)]
pub struct LearnerArgs {
    /// Keep a live checklist: re-check when your repos change (and the cluster every few
    /// seconds) until every check passes; q quits. Not for a whole class: its run is one report.
    /// It is a screen for a person: no -o, --report or --output.
    #[arg(long, conflicts_with_all = ["contexts", "kubeconfigs", "learners", "work_dirs", "format", "reports", "output"])]
    pub watch: bool,

    /// Check again steps your progress already shows as passed (watch and next skip them).
    #[arg(long)]
    pub recheck: bool,

    /// Quiz answers for scripts, e.g. 1=a,2=b,3=c (with `labcheck MODULE quiz`).
    #[arg(long, value_name = "ANSWERS")]
    pub answers: Option<String>,
}

/// Options shared by every command that runs checks.
#[derive(Debug, Args, Clone, Default)]
pub struct RunArgs {
    #[command(flatten)]
    pub setup: SetupArgs,

    #[command(flatten)]
    pub report: output::ReportArgs,

    /// Show only what did not pass (and each step's summary line).
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Also say what was read, with timings: the course, the repos, each request to the cluster
    /// (on stderr).
    #[arg(short, long)]
    pub verbose: bool,

    /// When to colour output: auto colours a terminal unless NO_COLOR or TERM=dumb is set;
    /// CLICOLOR_FORCE or FORCE_COLOR colour a log too.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// Wait up to this long for cluster checks that are not there yet (e.g. 240s).
    #[arg(long, value_parser = humantime::parse_duration, value_name = "DURATION", conflicts_with = "no_wait")]
    pub wait: Option<Duration>,

    /// Never wait, not even where the course says "wait about 40 seconds".
    #[arg(long)]
    pub no_wait: bool,

    /// Replay a learner's bundle (from `labcheck bundle`): the verdicts of their run, offline,
    /// from what it recorded; no cluster or work repos needed.
    #[arg(long, value_name = "FILE")]
    pub bundle: Option<PathBuf>,

    #[command(flatten, next_help_heading = "Whole class (instructors)")]
    pub fleet: fleet::FleetArgs,
}

/// `--course-dir`, for every command that reads the course.
#[derive(Debug, Args, Clone, Default)]
pub struct CourseDirArg {
    /// Read the course from this folder (modules/ and expected/) instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub course_dir: Option<PathBuf>,
}

impl CourseDirArg {
    /// The course in that folder, else the built-in one.
    pub fn load(&self) -> Result<Course, Error> {
        run::session::load_course(self.course_dir.as_deref())
    }
}

/// `--track`, `--work-dir` and `--course-dir`: on which track whose work is checked, against
/// which course. Every command that checks a learner's steps has them.
#[derive(Debug, Args, Clone, Default)]
pub struct SetupArgs {
    /// Your course track (defaults to the module's default, e.g. kind).
    #[arg(long)]
    pub track: Option<String>,

    /// Folder holding your work repos.
    #[arg(long, env = "LABCHECK_WORK_DIR", value_name = "DIR")]
    pub work_dir: Option<PathBuf>,

    #[command(flatten)]
    pub course: CourseDirArg,
}

impl SetupArgs {
    /// The work dir: `--work-dir` (or `$LABCHECK_WORK_DIR`), else `~/work` as the course sets it
    /// up.
    pub fn work(&self) -> Result<WorkDir, Error> {
        WorkDir::resolve(self.work_dir.as_deref())
    }

    /// What these flags and `cluster`'s ask to check of `module`/`step`, paths shown from
    /// `$HOME`, waiting as each check's course says.
    pub fn asked(&self, cluster: &ClusterArgs, module: &str, step: Option<&str>) -> Asked {
        Asked {
            course_dir: self.course.course_dir.clone(),
            module: module.to_string(),
            step: step.map(str::to_string),
            track: self.track.clone(),
            argocd_namespace: cluster.argocd_namespace.clone(),
            policy: WaitPolicy::default(),
            paths: PathShower::from_env(),
        }
    }

    /// The runner's session for `module`/`step` on the work repos in `work_dir`: the one way
    /// the command line makes a session (a check, `--watch`, `bundle`, `snapshot`); each command
    /// then sets what it does its own way (waiting, `-v`, remembering, recording).
    pub fn session(
        &self,
        cluster: &ClusterArgs,
        module: &str,
        step: Option<&str>,
        work_dir: PathBuf,
    ) -> Session {
        Session {
            asked: self.asked(cluster, module, step),
            work_dir,
            cluster: cluster.options(),
            log_reads: false,
            remember: false,
            tape: crate::probe::tape::Mode::Live,
        }
    }
}

/// How to reach the cluster.
#[derive(Debug, Args, Clone, Default)]
pub struct ClusterArgs {
    /// Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, as kubectl).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Kubeconfig context (default: the current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// Namespace Argo CD runs in (default from the module, usually argocd).
    #[arg(long, value_name = "NAMESPACE")]
    pub argocd_namespace: Option<String>,

    /// Read the cluster from a snapshot file instead of a live cluster.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kubeconfig", "context", "request_timeout"])]
    pub snapshot: Option<PathBuf>,

    /// How long one request to the API server may take, headers to last byte and retries included (e.g. 2s, 500ms; default 10s).
    #[arg(long, value_parser = request_timeout, value_name = "DURATION")]
    pub request_timeout: Option<Duration>,
}

/// `--request-timeout`: a duration above zero. kubectl reads 0 as "never time out"; labcheck
/// refuses it, because a dead cluster must never hang a check.
fn request_timeout(text: &str) -> Result<Duration, String> {
    let limit = humantime::parse_duration(text)
        .map_err(|e| format!("{e}; give a duration such as 2s or 500ms"))?;
    if limit.is_zero() {
        return Err(
            "0 would wait forever for a dead cluster; give a duration such as 30s".to_string(),
        );
    }
    Ok(limit)
}

impl ClusterArgs {
    /// The probe's view of these flags.
    pub fn options(&self) -> ClusterOptions {
        ClusterOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            snapshot: self.snapshot.clone(),
            request_timeout: self.request_timeout,
            read_log: None,
            served: None,
            tape: crate::probe::tape::Mode::Live,
            watch_timeout: None,
        }
    }
}

/// `labcheck list` options.
#[derive(Debug, Args, Clone)]
pub struct ListArgs {
    #[command(flatten)]
    pub course: CourseDirArg,
}

/// Commands besides checking a step.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List modules and their steps (and validate the course).
    List(ListArgs),
    /// Check a throwaway lab (real git repos, a served cluster snapshot): no cluster needed.
    Demo(demo::DemoArgs),
    /// Serve a cluster snapshot as a read-only Kubernetes API (for kubectl, tests and demos).
    Serve(serve::ServeArgs),
    /// Write a bundle for an instructor: the report and what the step read, replayable with --bundle (never a Secret).
    Bundle(bundle::BundleArgs),
    /// For instructors: a live page of a whole class (`labcheck class serve MODULE [STEP] --kubeconfigs DIR`).
    Class(class::ClassArgs),
    /// Capture, read-only, what a module's cluster checks read into a snapshot file.
    Snapshot(snapshot::SnapshotArgs),
    /// Show the order Argo CD will sync manifests in; --rules checks migration hooks too.
    Plan(plan::PlanArgs),
    /// Check that this machine and cluster can run a module: kubeconfig, API, Argo CD, repos, git, tools, clock.
    Doctor(doctor::DoctorArgs),
    /// For instructors and CI: self-test the course on its fixtures (`test`) or lint it (`lint`).
    Course(course::CourseArgs),
    /// The course map: modules × steps, ✓ with the date each step passed, quiz results.
    Status(status::StatusArgs),
    /// Check the first step you have not finished yet.
    Next(next::NextArgs),
    /// Show the next, more explicit hint level for a step's failing checks.
    Hint(hint::HintArgs),
    /// Print a step's solution (the course's own actions) as a bash script; labcheck runs nothing.
    Solution(solution::SolutionArgs),
    /// Make one edit a solution script makes: set or remove a value at a YAML path, keeping the
    /// file's comments and layout, or create a file. Writes only the file it names.
    Edit(edit::EditArgs),
    /// Forget your progress: everything, a module, or one step (asks first; --yes for scripts).
    Reset(reset::ResetArgs),
    /// Show your course track, or switch to another one (saved in your profile).
    Track(track::TrackArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff) to stdout.
    Man,
}

/// Threads for the runtime's blocking work (git reads): twice the worker threads, so reads
/// of several repos overlap with each other and with the network.
const BLOCKING_THREADS: usize = 4;

/// Parse the command line, run, and return the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // The blocking pool runs the git reads (a repo's state, where its commits are): short
        // work for a CPU, never a wait. Tokio's default of 512 threads let a class of 200 start
        // a thread (a stack, a malloc arena) for nearly every read; a few do the same work.
        .max_blocking_threads(BLOCKING_THREADS)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("labcheck: cannot start the async runtime: {e}");
            return ExitCode::from(exit::COULD_NOT_CHECK);
        }
    };
    let result = runtime.block_on(dispatch(cli));
    if let Some(failure) = crate::report::deliver::stdout_failure() {
        eprintln!(
            "labcheck: cannot write the report to standard output: {failure}; no verdict was delivered"
        );
        return ExitCode::from(exit::COULD_NOT_CHECK);
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("labcheck: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

async fn dispatch(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Some(Command::Demo(demo_args)) => demo::demo(&demo_args).await,
        Some(Command::List(list_args)) => {
            let course = list_args.course.load()?;
            emit(&report::course::list(&course));
            Ok(exit::PASS)
        }
        Some(Command::Serve(args)) => serve::run(&args).await,
        Some(Command::Class(args)) => class::run(&args).await,
        Some(Command::Bundle(args)) => bundle::run(&args).await,
        Some(Command::Snapshot(args)) => snapshot::run(&args).await,
        Some(Command::Plan(args)) => plan::run(&args),
        Some(Command::Doctor(args)) => doctor::run(&args).await,
        Some(Command::Course(args)) => course::run(&args).await,
        Some(Command::Status(args)) => status::run(&args),
        Some(Command::Next(args)) if args.run.fleet.active() => Err(Error::Usage(
            "`labcheck next` follows one learner's progress; for a class, name the step: `labcheck MODULE STEP --learners …`".to_string(),
        )),
        Some(Command::Next(args)) if args.run.bundle.is_some() => Err(Error::Usage(
            "`labcheck next` follows your own progress; replay a bundle with `labcheck MODULE STEP --bundle FILE`".to_string(),
        )),
        Some(Command::Next(args)) => next::run(&args).await,
        Some(Command::Hint(args)) => hint::run(&args),
        Some(Command::Solution(args)) => solution::run(&args),
        Some(Command::Edit(args)) => edit::run(&args),
        Some(Command::Reset(args)) => reset::run(&args),
        Some(Command::Track(args)) => track::run(&args),
        Some(Command::Completions(args)) => completions::run(&args),
        Some(Command::Man) => completions::man(),
        None => {
            let Some(module) = cli.module.as_deref() else {
                return Err(Error::Usage(
                    "name a module to check, e.g. `labcheck module-10 step-4`; `labcheck list` shows them, `labcheck --help` shows everything".to_string(),
                ));
            };
            let step = cli.step.as_deref();
            if step == Some(crate::quiz::STEP_NAME) {
                if cli.run.bundle.is_some() {
                    return Err(Error::Usage(format!(
                        "a bundle holds checked steps, not quiz answers: `labcheck {module} STEP --bundle FILE`"
                    )));
                }
                if cli.run.fleet.active() {
                    return Err(Error::Usage(format!(
                        "the quiz is answered by each learner on their own machine: `labcheck {module} quiz`; a class run checks steps"
                    )));
                }
                if cli.run.report.asked_for_more_than_human() {
                    return Err(Error::Usage(format!(
                        "the quiz is a conversation, with no -o, --report or --output; `labcheck status` shows quiz results, `labcheck {module}` checks the steps"
                    )));
                }
                return quiz::run(&cli.run, module, &cli.learner).await;
            }
            if cli.run.bundle.is_some() && cli.learner.watch {
                return Err(Error::Usage(
                    "--bundle cannot be used with --watch: a bundle is the learner's state at one moment, which does not change".to_string(),
                ));
            }
            if cli.learner.answers.is_some() {
                return Err(Error::Usage(format!(
                    "--answers is for a quiz: `labcheck {module} quiz --answers 1=a,2=b,3=c`"
                )));
            }
            if cli.learner.watch {
                return watch::run(&cli.run, module, step, cli.learner.recheck).await;
            }
            check(&cli.run, module, step).await
        }
    }
}

/// Print warnings about the learner's own files (progress, profile) to stderr.
pub(crate) fn warn(warnings: &[String]) {
    for warning in warnings {
        eprintln!("labcheck: warning: {warning}");
    }
}

/// Save progress; failing to save is worth a warning, never a lost verdict.
pub(crate) fn save(learner: &mut Learner) {
    if let Err(e) = learner.save() {
        warn(&[e]);
    }
}

impl RunArgs {
    /// `--wait`/`--no-wait` as the runner's policy.
    pub fn wait_policy(&self) -> WaitPolicy {
        match (self.no_wait, self.wait) {
            (true, _) => WaitPolicy::Never,
            (false, Some(limit)) => WaitPolicy::UpTo(limit),
            (false, None) => WaitPolicy::CourseDefault,
        }
    }
}

/// 0 all passed (or skipped), 1 something failed, 3 nothing failed but something could not be
/// checked.
pub fn exit_code(verdict: Status) -> u8 {
    match verdict {
        Status::Fail => exit::FAIL,
        Status::Error => exit::COULD_NOT_CHECK,
        Status::Pass | Status::Skip => exit::PASS,
    }
}

pub use crate::report::deliver::emit;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_example_and_exit_code_the_man_page_renders() {
        for (command, what) in EXAMPLES {
            assert!(AFTER_HELP.contains(command), "--help lacks {command}");
            assert!(AFTER_HELP.contains(what), "--help lacks {what}");
        }
        for (code, _) in EXIT_CODES {
            assert!(
                AFTER_HELP.contains(&format!(" {code} ")),
                "--help lacks exit {code}"
            );
        }
    }
}
