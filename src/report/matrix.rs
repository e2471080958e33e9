//! The instructor's view of a class: learner × check with ✓ ✗ ? (– skipped), then the failures
//! grouped by cause (the hint a learner is given), largest group first.

use std::collections::BTreeMap;
use std::fmt::Write;

use owo_colors::OwoColorize;

use super::Styles;
use crate::fleet::LearnerRun;
use crate::outcome::Status;

/// Learners who share a cause of failure in one step.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Cause {
    pub step: String,
    pub check: String,
    pub status: Status,
    /// The hint (for a failure) or the summary (could not check).
    pub cause: String,
    pub learners: Vec<String>,
}

/// Failures and could-not-checks grouped by step, check and cause, largest group first.
pub fn causes(runs: &[LearnerRun]) -> Vec<Cause> {
    let mut groups: BTreeMap<(usize, usize, String, String), Cause> = BTreeMap::new();
    for run in runs {
        for (s, step) in run.steps.iter().enumerate() {
            for (c, check) in step.checks.iter().enumerate() {
                let o = &check.outcome;
                let cause = match o.status {
                    Status::Fail => o.hint.clone().unwrap_or_else(|| o.summary.clone()),
                    Status::Error => o.summary.clone(),
                    Status::Pass | Status::Skip => continue,
                };
                groups
                    .entry((s, c, o.status.as_str().to_string(), cause.clone()))
                    .or_insert_with(|| Cause {
                        step: step.step.clone(),
                        check: check.id.clone(),
                        status: o.status,
                        cause,
                        learners: Vec::new(),
                    })
                    .learners
                    .push(run.learner.clone());
            }
        }
    }
    let mut out: Vec<Cause> = groups.into_values().collect();
    out.sort_by_key(|c| std::cmp::Reverse(c.learners.len()));
    out
}

/// The matrix of every step, the legend, then the causes.
pub fn human(runs: &[LearnerRun], styles: Styles) -> String {
    let mut out = String::new();
    let Some(first) = runs.first() else {
        return "no learners\n".to_string();
    };
    let width = runs
        .iter()
        .map(|r| r.learner.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    for (s, step) in first.steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "{} {} · {} · {} learners",
            step.module,
            step.step,
            step.title,
            runs.len()
        );
        let numbers: Vec<String> = (1..=step.checks.len()).map(|n| format!("{n:>2}")).collect();
        let _ = writeln!(out, "  {:<width$} {}", "learner", numbers.join(" "));
        for run in runs {
            let marks: Vec<String> = run
                .steps
                .get(s)
                .map(|r| {
                    r.checks
                        .iter()
                        .map(|c| format!(" {}", mark(c.outcome.status, styles)))
                        .collect()
                })
                .unwrap_or_default();
            let status = run.steps.get(s).map_or(Status::Error, |r| r.status);
            let _ = writeln!(
                out,
                "  {:<width$} {}  {}",
                run.learner,
                marks.join(" "),
                status.as_str()
            );
        }
        for (n, check) in step.checks.iter().enumerate() {
            let _ = writeln!(out, "  {:>2} {:<24} {}", n + 1, check.id, check.title);
        }
        out.push('\n');
    }
    let causes = causes(runs);
    if causes.is_empty() {
        let _ = writeln!(out, "Every learner passed every check.");
    } else {
        let _ = writeln!(out, "By cause:");
    }
    for cause in causes {
        let what = if cause.status == Status::Error {
            "could not check"
        } else {
            "failed"
        };
        let _ = writeln!(
            out,
            "  {} learner{} ({}): {} {} {what}\n      {}",
            cause.learners.len(),
            if cause.learners.len() == 1 { "" } else { "s" },
            cause.learners.join(", "),
            cause.step,
            cause.check,
            cause.cause.replace('\n', "\n      ")
        );
    }
    out
}

/// `{"status", "learners": [{"learner", "status", "steps": [step documents]}], "causes": [...]}`.
pub fn json(runs: &[LearnerRun]) -> String {
    let status = Status::fold(runs.iter().map(|r| r.status));
    let document = serde_json::json!({
        "status": status,
        "learners": runs.iter().map(|r| serde_json::json!({
            "learner": r.learner,
            "status": r.status,
            "steps": r.steps.iter().map(super::json::step_value).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "causes": causes(runs),
    });
    format!("{document:#}\n")
}

fn mark(status: Status, styles: Styles) -> String {
    let (text, color) = match status {
        Status::Pass => ("✓", owo_colors::AnsiColors::Green),
        Status::Fail => ("✗", owo_colors::AnsiColors::Red),
        Status::Error => ("?", owo_colors::AnsiColors::Yellow),
        Status::Skip => ("-", owo_colors::AnsiColors::Default),
    };
    if styles.color {
        text.color(color).to_string()
    } else {
        text.to_string()
    }
}
