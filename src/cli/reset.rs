//! `labcheck reset [MODULE [STEP]]`: forget progress (passes, failure counts, hint levels, quiz
//! results) of the learner's own work dir, or of `--work-dir DIR`'s. Asks first on a terminal;
//! a script says `--yes`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use super::{CourseDirArg, emit, warn};
use crate::error::{Error, exit};
use crate::progress::Progress;
use crate::progress::workdir::WorkDir;

/// `labcheck reset` options.
#[derive(Debug, Args, Clone)]
pub struct ResetArgs {
    /// Only this module (default: everything kept for the work dir).
    pub module: Option<String>,

    /// Only this step or stage of the module (`step-4`, `break-it/fix`, `quiz`).
    pub step: Option<String>,

    /// Do not ask (for scripts; without a terminal, reset refuses to run without it).
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Forget the progress kept for this work dir instead of your own (`$LABCHECK_WORK_DIR` or ~/work).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,

    #[command(flatten)]
    pub course: CourseDirArg,
}

/// Forget what was asked; 0 when done (or nothing to forget), 1 when the learner said no.
pub fn run(args: &ResetArgs) -> Result<u8, Error> {
    let course = args.course.load()?;
    // Names are checked against the course, so a typo never silently forgets nothing.
    if let Some(module) = &args.module {
        let module = course.module(module)?;
        if let Some(step) = &args.step
            && step != crate::quiz::STEP_NAME
        {
            module.step(step)?;
        }
    }
    let work = WorkDir::resolve(args.work_dir.as_deref())?;
    let path = Progress::path_for(&work)?;
    // Reset writes this one file even for another learner's work dir: it is labcheck's own
    // record, and forgetting is what was asked. (The runner's own also takes in an older
    // labcheck's single progress file.)
    let (mut progress, warnings) = if work.own {
        Progress::load_for(&work)
    } else {
        Progress::load(&path)
    };
    warn(&warnings);
    let what = match (&args.module, &args.step) {
        (Some(m), Some(s)) => format!("{m} {s}"),
        (Some(m), None) => format!("all of {m}"),
        _ => "everything".to_string(),
    };
    let whose = format!("the work dir {}", work.canonical.display());
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::Usage(format!(
                "labcheck reset forgets your progress ({what} for {whose}) and asks first; without a terminal to ask on, add --yes"
            )));
        }
        eprint!("Forget your progress ({what}) for {whose}? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
            emit("nothing forgotten\n");
            return Ok(exit::FAIL);
        }
    }
    let forgotten = progress.forget(args.module.as_deref(), args.step.as_deref());
    progress.save().map_err(Error::Environment)?;
    emit(&if forgotten == 0 {
        format!("nothing was kept for {what} ({})\n", path.display())
    } else {
        format!(
            "forgot {forgotten} record(s): {what} for {whose} ({})\n",
            path.display()
        )
    });
    Ok(exit::PASS)
}
