//! The command line: clap definitions and dispatch. It parses, calls the library, hands results to
//! a reporter and maps the outcome to an exit code.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

pub mod completions;
pub mod course;
pub mod demo;
pub mod doctor;
pub mod fleet;
pub mod hint;
pub mod next;
pub mod output;
pub mod plan;
pub mod quiz;
pub mod reset;
pub mod serve;
pub mod snapshot;
pub mod status;
pub mod track;
pub mod watch;

use crate::course::Course;
use crate::error::{Error, exit};
use crate::outcome::Status;
use crate::probe::cluster::ClusterOptions;
use crate::progress::Learner;
use crate::progress::workdir::WorkDir;
use crate::report::{self, ColorChoice, Format, Styles};
use crate::run::{self, StepReport, WaitPolicy};

/// Tells a learner whether they really did a step of the GitOps course.
#[derive(Debug, Parser)]
#[command(
    name = "labcheck",
    version,
    about = "Checks whether you really did a step of the GitOps course: git, files and your cluster.",
    long_about = None,
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  labcheck module-10 step-4        check step 4 of module 10\n  labcheck module-10 step-4 --watch  re-check as you work, until it passes (q quits)\n  labcheck module-10               check every step of module 10\n  labcheck module-10 quiz          the module's quiz\n  labcheck next                    the first step you have not finished\n  labcheck status                  the course map: what you passed, and when\n  labcheck reset module-10 step-4  forget your progress of a step (asks first)\n  labcheck list                    list modules and steps\n  labcheck demo                    try it on a throwaway lab (no cluster needed)\n  labcheck plan --rules DIR        Argo CD's sync order for manifests, and migration-hook rules\n  labcheck doctor module-10        can this machine and cluster run module 10?\n  labcheck module-10 --format junit --output labcheck.xml\n                                   JUnit for CI in a file, the human report on the terminal\n\nExit codes: 0 passed, 1 a check failed, 2 usage or course-file error, 3 could not check, 130 interrupted."
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
    #[arg(long, conflicts_with_all = ["contexts", "kubeconfigs", "learners", "work_dirs"])]
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
    /// Your course track (defaults to the module's default, e.g. kind).
    #[arg(long)]
    pub track: Option<String>,

    /// Folder holding your work repos.
    #[arg(long, env = "LABCHECK_WORK_DIR", value_name = "DIR")]
    pub work_dir: Option<PathBuf>,

    /// Read the course from this folder (modules/ and expected/) instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub course_dir: Option<PathBuf>,

    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Write the --format report (json, junit, tap) to FILE, atomically and never inside a work repo; the human report still goes to the terminal.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// When to colour output (NO_COLOR is honoured with auto).
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

    #[command(flatten, next_help_heading = "Whole class (instructors)")]
    pub fleet: fleet::FleetArgs,
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
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kubeconfig", "context"])]
    pub snapshot: Option<PathBuf>,
}

impl ClusterArgs {
    /// The probe's view of these flags.
    pub fn options(&self) -> ClusterOptions {
        ClusterOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            snapshot: self.snapshot.clone(),
        }
    }
}

/// `labcheck list` options.
#[derive(Debug, Args, Clone)]
pub struct ListArgs {
    /// Read the course from this folder (modules/ and expected/) instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub course_dir: Option<PathBuf>,
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
    /// Forget your progress: everything, a module, or one step (asks first; --yes for scripts).
    Reset(reset::ResetArgs),
    /// Show your course track, or switch to another one (saved in your profile).
    Track(track::TrackArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff) to stdout.
    Man,
}

/// Parse the command line, run, and return the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
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
    if let Some(failure) = STDOUT_FAILED.get() {
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
            let course = load_course(&RunArgs {
                course_dir: list_args.course_dir,
                ..RunArgs::default()
            })?;
            emit(&list(&course));
            Ok(exit::PASS)
        }
        Some(Command::Serve(args)) => serve::run(&args).await,
        Some(Command::Snapshot(args)) => snapshot::run(&args).await,
        Some(Command::Plan(args)) => plan::run(&args),
        Some(Command::Doctor(args)) => doctor::run(&args).await,
        Some(Command::Course(args)) => course::run(&args).await,
        Some(Command::Status(args)) => status::run(&args),
        Some(Command::Next(args)) if args.run.fleet.active() => Err(Error::Usage(
            "`labcheck next` follows one learner's progress; for a class, name the step: `labcheck MODULE STEP --learners …`".to_string(),
        )),
        Some(Command::Next(args)) => next::run(&args).await,
        Some(Command::Hint(args)) => hint::run(&args),
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
                if cli.run.fleet.active() {
                    return Err(Error::Usage(format!(
                        "the quiz is answered by each learner on their own machine: `labcheck {module} quiz`; a class run checks steps"
                    )));
                }
                return quiz::run(&cli.run, module, &cli.learner).await;
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

pub(crate) fn load_course(args: &RunArgs) -> Result<Course, Error> {
    match &args.course_dir {
        Some(dir) => Course::from_dir(dir),
        None => Course::embedded(),
    }
}

/// The work dir: `--work-dir` (or `$LABCHECK_WORK_DIR`), else `~/work` as the course sets it up.
pub(crate) fn work_dir(args: &RunArgs) -> Result<PathBuf, Error> {
    Ok(WorkDir::resolve(args.work_dir.as_deref())?.path)
}

/// Check a step, an exercise or a whole module; print the report; return the exit code.
pub async fn check(args: &RunArgs, module: &str, step: Option<&str>) -> Result<u8, Error> {
    if args.fleet.active() {
        return fleet::check(args, module, step).await;
    }
    let styles = Styles::decide(args.color);
    output::check_target(args.format, args.output.as_deref())?;
    // A refused --output is said before any check runs (or waits).
    let protected = match args.output.as_deref() {
        Some(path) => {
            let course = load_course(args)?;
            let repos = &course.module(module)?.manifest.repos;
            let protected = output::Protected::work_repos(&work_dir(args)?, repos);
            output::check_destination(path, &protected)?;
            protected
        }
        None => output::Protected::default(),
    };
    // Progress goes to stderr: a status line where a person watches it, one line per state
    // change where stderr is a log (CI), nothing for a machine format nobody watches.
    let progress = if !std::io::stderr().is_terminal() {
        report::waiting::Progress::lines(Box::new(std::io::stderr()))
    } else if output::terminal_format(args.format, args.output.as_deref()) == Format::Human {
        report::waiting::Progress::terminal()
    } else {
        report::waiting::Progress::Silent
    };
    let on_wait = |p: &run::WaitProgress| progress.show(p);
    // A person's run on their own work dir counts for their progress (and so raises hint levels
    // next time). A machine report (CI, a script) reads the same progress but never moves it, so
    // asking twice gives the same document; a run on someone else's work dir (`--work-dir` of a
    // learner) reads what is kept for that folder and writes nothing.
    let work = WorkDir::resolve(args.work_dir.as_deref())?;
    let mut learner = Learner::load_for(&work);
    warn(&learner.warnings);
    // Ctrl-C ends the run cleanly: the progress line is wiped (the terminal is never put in raw
    // mode, so that is all there is to restore) and the exit code says no verdict was reached.
    let outcome = tokio::select! {
        run = run_checks_for(args, module, step, &on_wait, Some(&learner)) => Some(run),
        _ = tokio::signal::ctrl_c() => None,
    };
    progress.finish();
    let run = outcome.ok_or(Error::Interrupted)??;
    if args.format == Format::Human && work.own {
        learner
            .progress
            .record_run(&run.reports, jiff::Timestamp::now());
        save(&mut learner);
    }
    output::deliver(
        &run.reports,
        run.module_run,
        args.format,
        args.output.as_deref(),
        &protected,
        styles,
    )?;
    Ok(exit_code(&run.reports))
}

/// Print warnings about the learner's own files (progress, profile) to stderr.
pub(crate) fn warn(warnings: &[String]) {
    for warning in warnings {
        eprintln!("labcheck: warning: {warning}");
    }
}

/// Save progress; failing to save is worth a warning, never a lost verdict.
pub(crate) fn save(learner: &mut Learner) {
    if let Err(e) = learner.progress.save() {
        warn(&[e]);
    }
}

/// The reports of one run and whether it covered more than one step.
pub struct CheckRun {
    pub reports: Vec<StepReport>,
    pub module_run: bool,
}

/// Load the course, connect to the cluster lazily and run the selected steps.
pub async fn run_checks(
    args: &RunArgs,
    module: &str,
    step: Option<&str>,
    on_wait: &(dyn Fn(&run::WaitProgress) + Sync),
) -> Result<CheckRun, Error> {
    run_checks_for(args, module, step, on_wait, None).await
}

/// [`run_checks`] for a learner: their saved track, hint levels and the steps they passed.
pub async fn run_checks_for(
    args: &RunArgs,
    module: &str,
    step: Option<&str>,
    on_wait: &(dyn Fn(&run::WaitProgress) + Sync),
    learner: Option<&Learner>,
) -> Result<CheckRun, Error> {
    let course = Arc::new(load_course(args)?);
    let module = course.module(module)?;
    let steps = module.select(step)?;
    let track = match learner {
        Some(learner) => learner.track(module, args.track.as_deref())?,
        None => module.track(args.track.as_deref())?,
    }
    .to_string();
    let policy = wait_policy(args);
    let world = run::LearnerWorld {
        course: course.clone(),
        module,
        track: &track,
        work_dir: run::WorkDir::At(work_dir(args)?),
        cluster: &args.cluster.options(),
        argocd_namespace: args.cluster.argocd_namespace.clone(),
    };
    let reports = run::run_learner(world, &steps, policy, on_wait, |ctx| {
        if let Some(learner) = learner {
            learner.prepare(ctx, module);
        }
    })
    .await;
    Ok(CheckRun {
        module_run: step.is_none() || steps.len() > 1,
        reports,
    })
}

/// `--wait`/`--no-wait` as the runner's policy.
pub(crate) fn wait_policy(args: &RunArgs) -> WaitPolicy {
    match (args.no_wait, args.wait) {
        (true, _) => WaitPolicy::Never,
        (false, Some(limit)) => WaitPolicy::UpTo(limit),
        (false, None) => WaitPolicy::CourseDefault,
    }
}

/// Render reports in the chosen format.
pub fn render(reports: &[StepReport], module_run: bool, format: Format, styles: Styles) -> String {
    match (format, reports) {
        (Format::Json, _) => report::json::render(reports, module_run),
        (Format::Junit, _) => report::junit::render(reports),
        (Format::Tap, _) => report::tap::render(reports),
        (Format::Human, [one]) if !module_run => report::human::render_step(one, styles),
        (Format::Human, _) => report::human::render_module(reports, styles),
    }
}

/// 0 all passed, 1 something failed, 3 nothing failed but something could not be checked.
pub fn exit_code(reports: &[StepReport]) -> u8 {
    match Status::fold(reports.iter().map(|r| r.status)) {
        Status::Fail => exit::FAIL,
        Status::Error => exit::COULD_NOT_CHECK,
        Status::Pass | Status::Skip => exit::PASS,
    }
}

fn list(course: &Course) -> String {
    let mut out = String::new();
    for module in &course.modules {
        out.push_str(&format!(
            "{}  {}  (tracks: {})\n",
            module.manifest.module,
            module.manifest.title,
            module.manifest.tracks.available.join(", ")
        ));
        for step in &module.steps {
            out.push_str(&format!("  {:<18} {}\n", step.name, step.title));
        }
    }
    out
}

/// The first error writing stdout (other than a closed pipe), kept for [`main`] to report.
static STDOUT_FAILED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Write to stdout. A closed pipe (`labcheck … | head`) is the reader's choice and stays quiet;
/// any other write error (`> /dev/full`, a full disk) is kept, and the run ends non-zero saying so:
/// a report nobody received is no verdict.
pub fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let result = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if let Err(e) = result
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = STDOUT_FAILED.set(e.to_string());
    }
}
