//! `labcheck MODULE [STEP]`: the flags become a [`Session`], the session runs, and the reports
//! go where the flags say; the exit code comes from the verdict.

use std::path::PathBuf;

use super::{RunArgs, exit_code, fleet, warn};
use crate::error::Error;
use crate::progress::Learner;
use crate::report::{self, Styles};
use crate::run::{self, Asked, Session};

impl RunArgs {
    /// What these flags ask to check of `module`/`step`, for one learner or a class.
    pub fn asked(&self, module: &str, step: Option<&str>) -> Asked {
        Asked {
            policy: self.wait_policy(),
            ..self.setup.asked(&self.cluster, module, step)
        }
    }

    /// The runner's session for `module`/`step` with these flags, on the work repos in
    /// `work_dir`.
    pub fn session(&self, module: &str, step: Option<&str>, work_dir: PathBuf) -> Session {
        Session {
            asked: self.asked(module, step),
            log_reads: self.verbose,
            ..self.setup.session(&self.cluster, module, step, work_dir)
        }
    }
}

/// Check a step, an exercise or a whole module; print the report; return the exit code.
pub async fn check(args: &RunArgs, module: &str, step: Option<&str>) -> Result<u8, Error> {
    if let Some(file) = &args.bundle {
        return super::replay::run(args, module, step, file).await;
    }
    if args.fleet.active() {
        return fleet::check(args, module, step).await;
    }
    let styles = Styles::decide(args.color).quiet(args.quiet);
    let outputs = args.report.outputs()?;
    // A person's run on their own work dir counts for their progress (and so raises hint levels
    // next time). A machine report (CI, a script) reads the same progress but never moves it, so
    // asking twice gives the same document; a run on someone else's work dir (`--work-dir` of a
    // learner) reads what is kept for that folder and writes nothing.
    let work = args.setup.work()?;
    let session = Session {
        remember: !args.report.asked_for_more_than_human() && work.own,
        ..args.session(module, step, work.path.clone())
    };
    let protected = outputs.protecting(&session.work_dir, || session.work_repos())?;
    let mut learner = Learner::load_for(&work);
    warn(&learner.warnings);
    let progress = report::waiting::Progress::on_stderr(outputs.terminal);
    let on_wait = |p: &run::WaitProgress| progress.show(p);
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
    report::deliver::deliver(&outputs, &protected, styles, |format, styles| {
        report::render(&run.reports, run.module_run, format, styles)
    })?;
    Ok(exit_code(run.verdict))
}
