//! `labcheck hint MODULE STEP [CHECK]`: the next, more explicit hint level, on demand.

use std::fmt::Write;

use clap::Args;

use super::{CourseDirArg, emit, save, warn};
use crate::error::{Error, exit};
use crate::progress::Learner;

/// `labcheck hint` options.
#[derive(Debug, Args, Clone)]
pub struct HintArgs {
    /// The module, e.g. module-10.
    #[arg(index = 1)]
    pub module: String,

    /// The step or stage, e.g. step-4 or break-it/fix.
    #[arg(index = 2)]
    pub step: String,

    /// The check's id; without it, every check of the step that failed last time.
    #[arg(index = 3)]
    pub check: Option<String>,

    #[command(flatten)]
    pub course: CourseDirArg,
}

/// Show the next hint level and remember it was shown.
pub fn run(args: &HintArgs) -> Result<u8, Error> {
    let course = args.course.load()?;
    let module = course.module(&args.module)?;
    let step = module.step(&args.step)?;
    let mut learner = Learner::load();
    warn(&learner.warnings);
    let (m, s) = (args.module.as_str(), args.step.as_str());
    let checks: Vec<_> = match &args.check {
        Some(id) => {
            let check = step.checks.iter().find(|c| &c.id == id).ok_or_else(|| {
                Error::Usage(format!(
                    "{m} {s} has no check `{id}`{}; its checks: {}",
                    crate::course::suggest::did_you_mean(
                        id,
                        step.checks.iter().map(|c| c.id.as_str())
                    ),
                    step.checks
                        .iter()
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            vec![check]
        }
        None => step
            .checks
            .iter()
            .filter(|c| learner.progress.failures(m, s, &c.id) > 0)
            .collect(),
    };
    if checks.is_empty() {
        emit(&format!(
            "no check of {m} {s} failed in your last runs. Run `labcheck {m} {s}` first, or name a check: `labcheck hint {m} {s} CHECK` ({})\n",
            step.checks
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Ok(exit::PASS);
    }
    let work_shown = crate::progress::workdir::WorkDir::own()
        .map(|w| crate::probe::files::PathShower::from_env().work_dir(&w.path))
        .unwrap_or_else(|_| "~/work".to_string());
    let mut out = String::new();
    for check in checks {
        let _ = writeln!(out, "{m} {s} · {} — {}", check.id, check.title);
        // The levels for the cause of the check's last failure (a keyed hint has one ladder per
        // cause; the plain form one for all).
        let cause = learner.progress.last_cause(m, s, &check.id);
        let cause = cause.as_ref();
        if check.hint_levels(cause) == 0 {
            let _ = writeln!(
                out,
                "  no written hint: `labcheck {m} {s}` names the next action from what it sees"
            );
            continue;
        }
        let level = learner.progress.reveal_hint(m, s, check);
        let hint = crate::course::placeholders::render_work(
            check.hint_at(level, cause).unwrap_or_default(),
            &work_shown,
        );
        let of = check.hint_levels(cause);
        for (i, line) in hint.lines().enumerate() {
            let label = if i == 0 {
                format!("hint {level} of {of}: ")
            } else {
                " ".repeat(format!("hint {level} of {of}: ").len())
            };
            let _ = writeln!(out, "  {label}{line}");
        }
        if level == of && of > 1 {
            let _ = writeln!(out, "  (that is the last level)");
        }
    }
    save(&mut learner);
    emit(&out);
    Ok(exit::PASS)
}
