//! `labcheck MODULE STEP --watch`: a live checklist that re-checks as the learner works and
//! ends when every check passes, naming the next step.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::{RunArgs, emit, exit_code, load_course, warn};
use crate::course::{Module, Step};
use crate::error::{Error, exit};
use crate::outcome::Status;
use crate::probe::cluster::Cluster;
use crate::progress::Learner;
use crate::report::{self, Styles, human};
use crate::run::next::{Standing, first_open, standings};
use crate::run::{self, History, StepReport, WaitPolicy};
use crate::watch::{self, Screen, Trigger};

/// Changes arriving this close together are one change (a commit touches many files).
const SETTLE: Duration = Duration::from_millis(300);

/// Watch one step until it passes or the learner quits.
pub async fn run(
    args: &RunArgs,
    module_name: &str,
    step: Option<&str>,
    recheck: bool,
) -> Result<u8, Error> {
    let course = Arc::new(load_course(args)?);
    let module = course.module(module_name)?;
    let work = crate::progress::workdir::WorkDir::resolve(args.work_dir.as_deref())?;
    let mut learner = Learner::load_for(&work);
    warn(&learner.warnings);
    let Some(step) = pick(module, step, &learner, recheck)? else {
        emit(&report::watch::all_passed(module));
        return Ok(exit::PASS);
    };
    let track = learner.track(module, args.track.as_deref())?.to_string();
    let recall = learner.recall(module);
    let options = args.cluster.options();
    let world = run::LearnerWorld {
        course: course.clone(),
        module,
        track: &track,
        work_dir: run::WorkDir::At(work.path.clone()),
        cluster: &options,
        argocd_namespace: args.cluster.argocd_namespace.clone(),
        paths: crate::probe::files::PathShower::from_env(),
    };
    let cluster = Arc::new(Cluster::connect(&options).await);

    let probe = world.context(cluster.clone());
    let repos: BTreeSet<String> = step
        .checks
        .iter()
        .flat_map(|c| c.kind.repos())
        .map(str::to_string)
        .chain(step.after.iter().map(|a| a.repo.clone()))
        .collect();
    let dirs: Vec<_> = repos.iter().map(|r| probe.repo_dir(r)).collect();
    let reads_cluster = step.checks.iter().any(|c| c.kind.reads_cluster());

    let (tx, mut rx) = mpsc::unbounded_channel();
    let force_poll = std::env::var_os(watch::POLL_ENV).is_some_and(|v| !v.is_empty());
    let watcher = watch::watch_repos(&dirs, force_poll, tx.clone());
    // The same watch streams `--wait` uses: a sync's end shows the moment it happens.
    let ticks = reads_cluster.then(|| watch::spawn_cluster_changes(cluster.clone(), tx.clone()));
    let tty = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    let styles = Styles::decide(args.color);
    let footer = report::watch::footer(&repos, &watcher.mode, reads_cluster, tty);

    let screen =
        if tty {
            Some(Screen::enter(tx.clone()).map_err(|e| {
                Error::Environment(format!("cannot use the terminal for --watch: {e}"))
            })?)
        } else {
            emit(&format!("{footer}\n"));
            None
        };

    let mut last: Option<StepReport> = None;
    let mut round = 0u32;
    let quit = loop {
        round += 1;
        // A fresh context each round: the work repos are read again.
        let ctx = world.context(cluster.clone());
        // Judged as every run judges a step: a later step the course declares replaces it may
        // have passed meanwhile (the learner did step 5 while watching step 4).
        let Some(report) =
            run::run_judged(&ctx, &recall, module, &[step], WaitPolicy::Never, &|_| {})
                .await
                .pop()
        else {
            break true;
        };
        match &screen {
            Some(screen) => {
                let _ = screen.draw(&report::watch::screen(&report, &footer, round, styles));
            }
            None => emit(&report::watch::changes(last.as_ref(), &report, styles)),
        }
        // A step skipped as a whole (a later step replaced it, or it is not on this track) can
        // never pass: watching it longer would only wait for nothing.
        let settled = report.status == Status::Pass || report.skipped.is_some();
        last = Some(report);
        if settled {
            break false;
        }
        match next_trigger(&mut rx).await {
            Some(Trigger::Quit) | None => break true,
            // The streams keep the cache current; what they do not follow is dropped when stale.
            Some(Trigger::ClusterTick) => {}
            Some(Trigger::RepoChanged) => {}
        }
    };
    drop(screen);
    if let Some(ticks) = ticks {
        ticks.abort();
    }
    drop(watcher);

    let Some(report) = last else {
        return Ok(exit::PASS);
    };
    // Only the runner's own work dir is their progress (see progress::workdir).
    if work.own
        && let Err(e) = learner.remember(std::slice::from_ref(&report))
    {
        warn(&[e]);
    }
    let mut out = String::new();
    if tty {
        // The live screen is gone: leave the final state in the scrollback.
        out.push_str(&human::render_step(&report, styles));
    }
    out.push_str(&match (&report.skipped, quit) {
        (_, true) => report::watch::stopped(module, step),
        (Some(reason), false) => report::watch::replaced_line(module, step, reason),
        (None, false) => report::watch::next_line(module, step),
    });
    emit(&out);
    Ok(exit_code(report.status))
}

/// Wait for a trigger, then let a burst of changes settle into one re-check; a quit wins.
async fn next_trigger(rx: &mut mpsc::UnboundedReceiver<Trigger>) -> Option<Trigger> {
    let first = rx.recv().await?;
    if first == Trigger::Quit {
        return Some(first);
    }
    let mut seen = first;
    tokio::time::sleep(SETTLE).await;
    while let Ok(more) = rx.try_recv() {
        match more {
            Trigger::Quit => return Some(Trigger::Quit),
            Trigger::ClusterTick => seen = Trigger::ClusterTick,
            Trigger::RepoChanged => {}
        }
    }
    Some(seen)
}

/// The step to watch: the one named (an exercise: its first stage not yet passed), or the
/// module's first step not passed. Passed steps, and steps a later passed step replaced, are
/// skipped unless `recheck` (the rule of `labcheck next`, see [`crate::run::next`]).
fn pick<'a>(
    module: &'a Module,
    step: Option<&str>,
    learner: &Learner,
    recheck: bool,
) -> Result<Option<&'a Step>, Error> {
    let name = &module.manifest.module;
    let candidates = module.select(step)?;
    if let [one] = candidates.as_slice()
        && step.is_some()
    {
        return Ok(Some(one));
    }
    if recheck {
        return Ok(candidates.first().copied());
    }
    let standings = standings(module, |s| learner.progress.passed(name, s).is_some());
    let standing_of = |step: &Step| {
        module
            .steps
            .iter()
            .position(|s| s.name == step.name)
            .map_or(Standing::Open, |i| standings[i].clone())
    };
    Ok(first_open(
        candidates.into_iter().map(|s| (s, standing_of(s))),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::Course;

    fn picked(passed: &[&str], step: Option<&str>, recheck: bool) -> Option<String> {
        let course = Course::embedded().expect("the built-in course");
        let module = course.module("module-10").expect("module 10");
        pick(module, step, &Learner::having_passed(passed), recheck)
            .expect("a known step")
            .map(|s| s.name.clone())
    }

    #[test]
    fn watch_picks_the_step_next_and_status_name_skipping_one_a_later_pass_replaced() {
        // Step 4's failed sync is gone once step 5 passed: watching it could never end.
        let done = ["step-1", "step-2", "step-3", "step-5"];
        assert_eq!(
            picked(&done, None, false).as_deref(),
            Some("break-it/break")
        );
        // Named, it is watched all the same; --recheck starts from the first step.
        assert_eq!(
            picked(&done, Some("step-4"), false).as_deref(),
            Some("step-4")
        );
        assert_eq!(picked(&done, None, true).as_deref(), Some("step-1"));
        assert_eq!(picked(&[], None, false).as_deref(), Some("step-1"));
    }

    #[test]
    fn watch_on_an_exercise_picks_its_first_stage_not_passed() {
        assert_eq!(
            picked(&["break-it/break"], Some("break-it"), false).as_deref(),
            Some("break-it/fix")
        );
    }
}
