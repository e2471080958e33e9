//! `labcheck next [MODULE]`: check the first step the learner has not finished.

use clap::Args;

use super::{RunArgs, check, emit, load_course, watch};
use crate::error::{Error, exit};
use crate::progress::Learner;

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

/// Find the first unfinished step and check (or watch) it.
pub async fn run(args: &NextArgs) -> Result<u8, Error> {
    let course = load_course(&args.run)?;
    let learner = Learner::load();
    let modules: Vec<_> = match &args.module {
        Some(name) => vec![course.module(name)?],
        None => course.modules.iter().collect(),
    };
    for module in modules {
        let name = module.manifest.module.clone();
        for step in &module.steps {
            if !args.recheck && learner.progress.passed(&name, &step.name).is_some() {
                continue;
            }
            if args.watch {
                return watch::run(&args.run, &name, Some(&step.name), args.recheck).await;
            }
            if args.recheck {
                // Re-check in order; a step that still passes is one line, the first that
                // does not gets the full report.
                let quiet = RunArgs {
                    report: super::output::ReportArgs {
                        format: crate::report::Format::Json,
                        ..Default::default()
                    },
                    ..args.run.clone()
                };
                let run = super::run_checks(&quiet, &name, Some(&step.name), &|_| {}).await?;
                if super::exit_code(&run.reports) == exit::PASS {
                    say(&args.run, &format!("✓ {name} {} still passes\n", step.name));
                    continue;
                }
            }
            say(
                &args.run,
                &format!("next: {name} {} · {}\n\n", step.name, step.title),
            );
            return check(&args.run, &name, Some(&step.name)).await;
        }
    }
    emit("every step passed; `labcheck status` shows the course map\n");
    Ok(exit::PASS)
}

/// A line for the person: on stdout beside the human report, on stderr when stdout carries a
/// document (`-o json`), so the document stays one document.
fn say(args: &RunArgs, text: &str) {
    if args.report.format == crate::report::Format::Human {
        emit(text);
    } else {
        eprint!("{text}");
    }
}
