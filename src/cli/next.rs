//! `labcheck next [MODULE]`: check the first step the learner has not finished.

use clap::Args;

use super::{RunArgs, check, emit, watch};
use crate::error::{Error, exit};
use crate::progress::Learner;
use crate::report;

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
    let course = args.run.setup.course.load()?;
    let work = args.run.setup.work()?;
    let learner = Learner::load_for(&work);
    let modules: Vec<String> = match &args.module {
        Some(name) => vec![course.module(name)?.manifest.module.clone()],
        None => course
            .modules
            .iter()
            .map(|m| m.manifest.module.clone())
            .collect(),
    };
    for name in modules {
        let session = args.run.session(&name, None, work.path.clone());
        let found = session.next_in_module(&learner, args.recheck).await?;
        for (step, why) in &found.passed_over {
            say(&args.run, &report::course::passed_over(&name, step, why));
        }
        let Some((step, title)) = found.next else {
            continue;
        };
        if args.watch {
            return watch::run(&args.run, &name, Some(&step), args.recheck).await;
        }
        say(&args.run, &report::course::next_up(&name, &step, &title));
        return check(&args.run, &name, Some(&step)).await;
    }
    say(&args.run, &report::course::all_done());
    Ok(exit::PASS)
}

/// Lines about which step comes next: on stdout with the human report, on stderr when stdout is
/// one machine document.
fn say(args: &RunArgs, text: &str) {
    if args.report.format == report::Format::Human {
        emit(text);
    } else {
        eprint!("{text}");
    }
}
