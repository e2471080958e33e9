//! `labcheck MODULE [STEP]`: the flags become a [`Session`], the session runs, and the reports
//! go where the flags say; the exit code comes from the verdict.

use std::io::IsTerminal;
use std::path::PathBuf;

use super::{RunArgs, exit_code, fleet, load_course, output, warn, work_dir};
use crate::error::Error;
use crate::probe::files::PathShower;
use crate::progress::Learner;
use crate::progress::workdir::WorkDir;
use crate::report::{self, Format, Styles};
use crate::run::{self, Session};

impl RunArgs {
    /// The runner's session for `module`/`step` with these flags, on the work repos in
    /// `work_dir`.
    pub fn session(&self, module: &str, step: Option<&str>, work_dir: PathBuf) -> Session {
        Session {
            course_dir: self.course_dir.clone(),
            module: module.to_string(),
            step: step.map(str::to_string),
            track: self.track.clone(),
            work_dir,
            cluster: self.cluster.options(),
            argocd_namespace: self.cluster.argocd_namespace.clone(),
            policy: self.wait_policy(),
            log_reads: self.verbose,
            paths: PathShower::from_env(),
            remember: false,
        }
    }
}

/// Check a step, an exercise or a whole module; print the report; return the exit code.
pub async fn check(args: &RunArgs, module: &str, step: Option<&str>) -> Result<u8, Error> {
    if args.fleet.active() {
        return fleet::check(args, module, step).await;
    }
    let styles = Styles::decide(args.color).quiet(args.quiet);
    let outputs = args.report.outputs()?;
    // A refused report file is said before any check runs (or waits).
    let protected = if outputs.files.is_empty() {
        output::Protected::default()
    } else {
        let course = load_course(args)?;
        let repos = &course.module(module)?.manifest.repos;
        let protected = output::Protected::work_repos(&work_dir(args)?, repos);
        outputs.check_destinations(&protected)?;
        protected
    };
    // Progress goes to stderr: a status line where a person watches it, one line per state
    // change where stderr is a log (CI), nothing for a machine format nobody watches.
    let progress = if !std::io::stderr().is_terminal() {
        report::waiting::Progress::lines(Box::new(std::io::stderr()))
    } else if outputs.terminal == Format::Human {
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
    let session = Session {
        remember: !args.report.asked_for_more_than_human() && work.own,
        ..args.session(module, step, work.path.clone())
    };
    // Ctrl-C ends the run cleanly: the progress line is wiped (the terminal is never put in raw
    // mode, so that is all there is to restore) and the exit code says no verdict was reached.
    let started = std::time::Instant::now();
    let outcome = tokio::select! {
        run = session.run(Some(&mut learner), &on_wait) => Some(run),
        _ = tokio::signal::ctrl_c() => None,
    };
    progress.finish();
    let run = outcome.ok_or(Error::Interrupted)??;
    if args.verbose {
        eprint!(
            "{}",
            report::reads::render(&run.read, &run.reports, started.elapsed())
        );
    }
    warn(&run.warnings);
    output::deliver(&outputs, &protected, styles, |format, styles| {
        report::render(&run.reports, run.module_run, format, styles)
    })?;
    Ok(exit_code(run.verdict))
}
