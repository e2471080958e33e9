//! The watch checklist (`labcheck MODULE STEP --watch`): the live screen, the lines a log gets
//! when the screen is not a terminal, the footer and what is said at the end. The loop that
//! re-checks is the session's (`run/watched.rs`); `cli/watch.rs` prints only what these return.

use std::collections::BTreeSet;

use super::{Styles, human};
use crate::course::{Module, Step};
use crate::outcome::Status;
use crate::run::StepReport;
use crate::watch::{self, Mode};

/// The live screen after check number `round`: the step's report, then the footer.
pub fn screen(report: &StepReport, footer: &str, round: u32, styles: Styles) -> String {
    format!(
        "{}\n{footer} · check #{round}\n",
        human::render_step(report, styles)
    )
}

/// Every step of the module passed already: nothing to watch.
pub fn all_passed(module: &Module) -> String {
    format!(
        "every step of {} passed (from your progress; --recheck checks them again)\n{}",
        module.manifest.module,
        after_module(module)
    )
}

/// The learner quit before the step passed.
pub fn stopped(module: &Module, step: &Step) -> String {
    format!(
        "stopped watching; `labcheck {} {} --watch` carries on\n",
        module.manifest.module, step.name
    )
}

/// What the footer says: what is watched, how, and how to stop.
pub fn footer(repos: &BTreeSet<String>, mode: &Mode, reads_cluster: bool, tty: bool) -> String {
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
pub fn changes(before: Option<&StepReport>, now: &StepReport, styles: Styles) -> String {
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
            if let Some(hint) = super::hint::first_line(&check.outcome.hints) {
                out.push_str(&format!(" (hint: {hint})"));
            }
        }
        out.push('\n');
    }
    out
}

/// "next: step-5 — its first line", or what comes after the module's last step.
pub fn next_line(module: &Module, step: &Step) -> String {
    ended(module, step, "done")
}

/// The watched step did not pass, but a later step the course declares replaces it did: say so
/// (never "done"), and what comes next.
pub fn replaced_line(module: &Module, step: &Step, reason: &crate::run::SkipReason) -> String {
    ended(module, step, &reason.describe())
}

/// "<step>: <how it ended>", then what comes after it.
fn ended(module: &Module, step: &Step, how: &str) -> String {
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
                "{}: {how}\nnext: {} — {first_line}\n  `labcheck {name} {} --watch`\n",
                step.name, next.name, next.name
            )
        }
        None => format!("{}: {how}\n{}", step.name, after_module(module)),
    }
}

/// What comes after the module's last step: its quiz, if it has one.
pub fn after_module(module: &Module) -> String {
    let name = &module.manifest.module;
    if module.quiz.is_some() {
        format!("{name} is done: take its quiz with `labcheck {name} quiz`\n")
    } else {
        format!("{name} is done\n")
    }
}
