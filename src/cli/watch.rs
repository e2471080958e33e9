//! `labcheck MODULE STEP --watch`: a live checklist that re-checks as the learner works and
//! ends when every check passes, naming the next step.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::{RunArgs, emit, exit_code, load_course, save, warn};
use crate::checks::Context;
use crate::course::{Module, Step};
use crate::error::{Error, exit};
use crate::outcome::Status;
use crate::probe::cluster::Cluster;
use crate::progress::Learner;
use crate::report::{Styles, human};
use crate::run::{self, StepReport, WaitPolicy};
use crate::watch::{self, Mode, Screen, Trigger};

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
        emit(&format!(
            "every step of {module_name} passed (from your progress; --recheck checks them again)\n{}",
            after_module(module)
        ));
        return Ok(exit::PASS);
    };
    let track = learner.track(module, args.track.as_deref())?.to_string();
    let work_dir = work.path.clone();
    let cluster = Arc::new(Cluster::connect(&args.cluster.options()).await);
    let new_context = |learner: &Learner| {
        let mut ctx = Context::new(
            module.check_facts(&course, args.cluster.argocd_namespace.clone()),
            &track,
            work_dir.clone(),
            cluster.clone(),
        );
        learner.prepare(&mut ctx, module);
        ctx
    };

    let probe = new_context(&learner);
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
    let footer = footer(&repos, &watcher.mode, reads_cluster, tty);

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
        let ctx = new_context(&learner);
        let report = run::run_step(&ctx, step, WaitPolicy::Never, &|_| {}).await;
        match &screen {
            Some(screen) => {
                let text = format!(
                    "{}\n{footer} · check #{round}\n",
                    human::render_step(&report, styles)
                );
                let _ = screen.draw(&text);
            }
            None => emit(&changes(last.as_ref(), &report, styles)),
        }
        let passed = report.status == Status::Pass;
        last = Some(report);
        if passed {
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
    if work.own {
        learner
            .progress
            .record_run(std::slice::from_ref(&report), jiff::Timestamp::now());
        save(&mut learner);
    }
    let mut out = String::new();
    if tty {
        // The live screen is gone: leave the final state in the scrollback.
        out.push_str(&human::render_step(&report, styles));
    }
    if quit {
        out.push_str(&format!(
            "stopped watching; `labcheck {module_name} {} --watch` carries on\n",
            step.name
        ));
    } else {
        out.push_str(&next_line(module, step));
    }
    emit(&out);
    Ok(exit_code(std::slice::from_ref(&report)))
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
/// module's first step not passed. Passed steps are skipped unless `recheck`.
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
    let unfinished = candidates
        .iter()
        .find(|s| recheck || learner.progress.passed(name, &s.name).is_none());
    Ok(unfinished.copied())
}

/// What the footer says: what is watched, how, and how to stop.
fn footer(repos: &BTreeSet<String>, mode: &Mode, reads_cluster: bool, tty: bool) -> String {
    let mut parts = Vec::new();
    if !repos.is_empty() {
        let names = repos.iter().cloned().collect::<Vec<_>>().join(", ");
        parts.push(match mode {
            Mode::Events => format!("watching {names} for changes"),
            Mode::Polling(why) => format!(
                "looking at {names} every {}s ({why})",
                watch::POLL_INTERVAL.as_secs()
            ),
        });
    }
    if reads_cluster {
        parts.push(format!(
            "following the cluster's changes (re-reading what it cannot watch every {}s)",
            watch::CLUSTER_INTERVAL.as_secs()
        ));
    }
    parts.push(if tty { "q quits" } else { "Ctrl-C stops" }.to_string());
    parts.join(" · ")
}

/// Line output (not a terminal): the checks whose status changed since the last round.
fn changes(before: Option<&StepReport>, now: &StepReport, styles: Styles) -> String {
    let mut out = String::new();
    for check in &now.checks {
        let was = before
            .and_then(|b| b.checks.iter().find(|c| c.id == check.id))
            .map(|c| c.outcome.status);
        if was == Some(check.outcome.status) {
            continue;
        }
        let mark = human::mark(check.outcome.status, styles);
        out.push_str(&format!("{mark} {}", check.title));
        if check.outcome.status != Status::Pass {
            out.push_str(&format!(": {}", check.outcome.summary));
            if let Some(hint) = check.outcome.hint.as_deref().and_then(|h| h.lines().next()) {
                out.push_str(&format!(" (hint: {hint})"));
            }
        }
        out.push('\n');
    }
    out
}

/// "next: step-5 — its first line", or what comes after the module's last step.
pub fn next_line(module: &Module, step: &Step) -> String {
    let name = &module.manifest.module;
    let position = module.steps.iter().position(|s| s.name == step.name);
    let next = position.and_then(|i| module.steps.get(i + 1));
    match next {
        Some(next) => {
            let first_line = next
                .summary
                .as_deref()
                .unwrap_or(&next.title)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string();
            format!(
                "{}: done\nnext: {} — {first_line}\n  `labcheck {name} {} --watch`\n",
                step.name, next.name, next.name
            )
        }
        None => format!("{}: done\n{}", step.name, after_module(module)),
    }
}

fn after_module(module: &Module) -> String {
    let name = &module.manifest.module;
    if module.quiz.is_some() {
        format!("{name} is done: take its quiz with `labcheck {name} quiz`\n")
    } else {
        format!("{name} is done\n")
    }
}
