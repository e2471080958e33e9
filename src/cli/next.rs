//! `labcheck next [MODULE]`: check the first step the learner has not finished.

use clap::Args;

use super::status::replaced_by;
use super::{RunArgs, check, emit, load_course, watch};
use crate::error::{Error, exit};
use crate::outcome::Status;
use crate::progress::Learner;
use crate::progress::workdir::WorkDir;

/// `labcheck next` options.
#[derive(Debug, Args, Clone)]
pub struct NextArgs {
    /// Only this module (default: the whole course, in order).
    pub module: Option<String>,

    /// Keep a live checklist until the step passes (as `--watch` on a step).
    #[arg(long, conflicts_with_all = ["format", "reports", "output"])]
    pub watch: bool,

    /// Do not trust the progress file: check the steps again from the first one.
    #[arg(long)]
    pub recheck: bool,

    #[command(flatten)]
    pub run: RunArgs,
}

/// Find the first unfinished step and check (or watch) it. A transient step that a later
/// passing step replaced is not unfinished: nothing left can show it either way.
pub async fn run(args: &NextArgs) -> Result<u8, Error> {
    let course = load_course(&args.run)?;
    let work = WorkDir::resolve(args.run.work_dir.as_deref())?;
    let learner = Learner::load_for(&work);
    let modules: Vec<_> = match &args.module {
        Some(name) => vec![course.module(name)?],
        None => course.modules.iter().collect(),
    };
    for module in modules {
        let name = module.manifest.module.clone();
        // With --recheck, the whole module is checked once, as `labcheck MODULE` does: a step a
        // later passing step replaced comes back as skipped.
        let rechecked = if args.recheck {
            let quiet = RunArgs {
                report: super::output::ReportArgs {
                    format: crate::report::Format::Json,
                    ..Default::default()
                },
                ..args.run.clone()
            };
            Some(
                super::run_checks(&quiet, &name, None, &|_| {})
                    .await?
                    .reports,
            )
        } else {
            None
        };
        for (i, step) in module.steps.iter().enumerate() {
            match &rechecked {
                None => {
                    if learner.progress.passed(&name, &step.name).is_some() {
                        continue;
                    }
                    if let Some(later) = replaced_by(module, &learner.progress, i) {
                        say(
                            &args.run,
                            &format!("- {name} {} replaced by {later}, which passed\n", step.name),
                        );
                        continue;
                    }
                }
                Some(reports) => match reports.iter().find(|r| r.step == step.name) {
                    Some(report) if report.status == Status::Pass => {
                        say(&args.run, &format!("✓ {name} {} still passes\n", step.name));
                        continue;
                    }
                    Some(report) if report.status == Status::Skip => {
                        say(
                            &args.run,
                            &format!(
                                "- {name} {} replaced by a later step that passes\n",
                                report.step
                            ),
                        );
                        continue;
                    }
                    _ => {}
                },
            }
            if args.watch {
                return watch::run(&args.run, &name, Some(&step.name), args.recheck).await;
            }
            say(
                &args.run,
                &format!("next: {name} {} · {}\n\n", step.name, step.title),
            );
            return check(&args.run, &name, Some(&step.name)).await;
        }
    }
    say(
        &args.run,
        "every step passed; `labcheck status` shows the course map\n",
    );
    Ok(exit::PASS)
}

/// Lines about which step comes next: on stdout with the human report, on stderr when stdout is
/// one machine document.
fn say(args: &RunArgs, text: &str) {
    if args.report.format == crate::report::Format::Human {
        emit(text);
    } else {
        eprint!("{text}");
    }
}
