//! `labcheck MODULE STEP --watch`: a live checklist that re-checks as the learner works and
//! ends when every check passes, naming the next step. The flags become a [`Session`]; the
//! session picks the step and judges it on every change
//! ([`Watched::follow`](crate::run::watched::Watched::follow)); this draws each round and says
//! how it ended.

use std::io::IsTerminal;

use super::{RunArgs, emit, exit_code, warn};
use crate::error::{Error, exit};
use crate::progress::Learner;
use crate::report::{self, Styles, human};
use crate::run::Session;
use crate::run::watched::Watch;
use crate::watch::Screen;

/// Watch one step until it passes or the learner quits.
pub async fn run(
    args: &RunArgs,
    module: &str,
    step: Option<&str>,
    recheck: bool,
) -> Result<u8, Error> {
    let work = args.setup.work()?;
    let mut learner = Learner::load_for(&work);
    warn(&learner.warnings);
    // Only the runner's own work dir is their progress (see progress::workdir).
    let session = Session {
        remember: work.own,
        ..args.session(module, step, work.path.clone())
    };
    let mut watched = match session.watch(&learner, recheck).await? {
        Watch::AllPassed(module) => {
            emit(&report::watch::all_passed(module.get()));
            return Ok(exit::PASS);
        }
        Watch::Step(watched) => watched,
    };
    let tty = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    let styles = Styles::decide(args.color);
    let footer = report::watch::footer(&watched.repos, &watched.mode, watched.reads_cluster, tty);
    let screen =
        if tty {
            Some(Screen::enter(watched.triggers()).map_err(|e| {
                Error::Environment(format!("cannot use the terminal for --watch: {e}"))
            })?)
        } else {
            emit(&format!("{footer}\n"));
            None
        };
    let end = watched
        .follow(Some(&mut learner), |report, round, last| match &screen {
            Some(screen) => {
                let _ = screen.draw(&report::watch::screen(report, &footer, round, styles));
            }
            None => emit(&report::watch::changes(last, report, styles)),
        })
        .await;
    drop(screen);
    warn(&end.warnings);
    let Some(report) = end.last else {
        return Ok(exit::PASS);
    };
    let (module, step) = (watched.module(), watched.step());
    let mut out = String::new();
    if tty {
        // The live screen is gone: leave the final state in the scrollback.
        out.push_str(&human::render_step(&report, styles));
    }
    out.push_str(&match (&report.skipped, end.quit) {
        (_, true) => report::watch::stopped(module, step),
        (Some(reason), false) => report::watch::replaced_line(module, step, reason),
        (None, false) => report::watch::next_line(module, step),
    });
    emit(&out);
    Ok(exit_code(report.status))
}
