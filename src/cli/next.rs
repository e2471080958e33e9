//! `labcheck next [MODULE]`: check the first step the learner has not finished.

use clap::Args;

use super::{RunArgs, check, emit, load_course, watch};
use crate::error::{Error, exit};
use crate::progress::Learner;
use crate::progress::workdir::WorkDir;
use crate::run::Session;
use crate::run::next::{Standing, first_open, standings};

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

/// Find the first unfinished step and check (or watch) it. A step that a later step the course
/// declares replaces it (`replaced_by:`) passed is not unfinished: nothing left can show it either way.
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
        let standings: Vec<(Standing, Option<String>)> = if args.recheck {
            // The whole module is checked once, as `labcheck MODULE` does (without the
            // learner's progress: nothing of it is trusted): a step a later passing step
            // replaced comes back as skipped, with the reason.
            let session = Session {
                log_reads: false,
                ..args.run.session(&name, None, work.path.clone())
            };
            let reports = session.run(None, &|_| {}).await?.reports;
            module
                .steps
                .iter()
                .map(|step| match reports.iter().find(|r| r.step == step.name) {
                    Some(report) => {
                        let note = match (report.standing(), &report.skipped) {
                            (Standing::Passed, _) => {
                                Some(format!("✓ {name} {} still passes", step.name))
                            }
                            (_, Some(reason)) => {
                                Some(format!("- {name} {} {}", step.name, reason.describe()))
                            }
                            _ => None,
                        };
                        (report.standing(), note)
                    }
                    None => (Standing::Open, None),
                })
                .collect()
        } else {
            standings(module, |step| {
                learner.progress.passed(&name, step).is_some()
            })
            .into_iter()
            .zip(&module.steps)
            .map(|(standing, step)| {
                let note = match &standing {
                    Standing::Replaced { by } => Some(format!(
                        "- {name} {} replaced by {by}, which passed",
                        step.name
                    )),
                    _ => None,
                };
                (standing, note)
            })
            .collect()
        };
        let next = first_open(
            standings
                .iter()
                .enumerate()
                .map(|(i, (s, _))| (i, s.clone())),
        );
        let passed_over = next.unwrap_or(standings.len());
        for (_, note) in &standings[..passed_over] {
            if let Some(note) = note {
                say(&args.run, &format!("{note}\n"));
            }
        }
        let Some(step) = next.and_then(|i| module.steps.get(i)) else {
            continue;
        };
        if args.watch {
            return watch::run(&args.run, &name, Some(&step.name), args.recheck).await;
        }
        say(
            &args.run,
            &format!("next: {name} {} · {}\n\n", step.name, step.title),
        );
        return check(&args.run, &name, Some(&step.name)).await;
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
