//! The instructor's view of a class: learner × check with ✓ ✗ ? (– skipped), then the failures
//! grouped by cause (`class::causes` decides the groups; this only prints them). For machines:
//! one JSON document, or JUnit/TAP with one test suite per learner.

use std::fmt::Write;

use owo_colors::OwoColorize;

use super::Styles;
use super::hint::Words;
use crate::class::LearnerRun;
use crate::class::causes::ClassCauses;
use crate::class::own::{Piece, Shared, Slot};
use crate::outcome::Status;

/// A class run as a report: every learner's runs and their failures grouped by cause.
pub struct Class<'a> {
    pub runs: &'a [LearnerRun],
    pub causes: &'a ClassCauses,
}

impl super::Document for Class<'_> {
    fn human(&self, styles: Styles) -> String {
        human(self.runs, self.causes, styles)
    }

    fn json(&self) -> String {
        json(self.runs, self.causes)
    }

    fn junit(&self) -> String {
        junit(self.runs)
    }

    fn tap(&self, version: super::tap::Version) -> String {
        tap(self.runs, version)
    }
}

/// The matrix of every step, the legend, then the causes.
pub fn human(runs: &[LearnerRun], causes: &ClassCauses, styles: Styles) -> String {
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
    causes_text(&mut out, causes);
    out
}

/// "By cause:": learners without a work dir once each, then a group per (step, check, cause):
/// how many, which check and cause, who, what was seen when it reads the same for all, and the
/// hint once with a placeholder for each learner's own paths and names.
fn causes_text(out: &mut String, causes: &ClassCauses) {
    if causes.is_empty() {
        let _ = writeln!(out, "Every learner passed every check.");
        return;
    }
    let _ = writeln!(out, "By cause:");
    for learner in &causes.without_work_dir {
        let _ = writeln!(
            out,
            "  {}: {} — {} check{} of work repos could not be checked",
            learner.learner,
            crate::checks::context::NO_WORK_DIR,
            learner.checks,
            plural(learner.checks)
        );
        if let Some(hint) = super::hint::text(&learner.hint) {
            let _ = writeln!(out, "      hint: {}", indent(&hint));
        }
    }
    for group in &causes.groups {
        let what = if group.status == Status::Error {
            " (could not check)"
        } else {
            ""
        };
        let n = group.learners.len();
        let _ = writeln!(
            out,
            "  {n} learner{}: {} {} {} — {}{what}",
            plural(n),
            group.step,
            group.check,
            group.cause,
            group.title
        );
        let _ = writeln!(out, "      {}", group.learners.join(", "));
        if let Some(summary) = &group.summary {
            let _ = writeln!(out, "      saw:  {}", indent(&summary.words()));
        }
        for hint in &group.hints {
            let words = super::hint::text(&hint.parts).unwrap_or_default();
            if group.hints.len() == 1 {
                let _ = writeln!(out, "      hint: {}", indent(&words));
            } else {
                let _ = writeln!(
                    out,
                    "      hint ({}): {}",
                    hint.learners.join(", "),
                    indent(&words)
                );
            }
        }
    }
}

/// A text many learners share, their own names filled in as the placeholders that stand for
/// every one of them: `<work-dir>`, and a renamed name as its template says it with `<learner>`
/// (`<learner>-checkout-dev`). The terminal, JSON and the class page all show it so.
impl Words for Shared {
    fn words(&self) -> String {
        self.0
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.clone(),
                Piece::Own(Slot::WorkDir) => "<work-dir>".to_string(),
                Piece::Own(Slot::Renamed {
                    template,
                    slot,
                    course,
                }) => template
                    .replace("{learner}", "<learner>")
                    .replace(slot, course),
            })
            .collect()
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn indent(text: &str) -> String {
    text.trim_end().replace('\n', "\n            ")
}

/// `{"status", "learners": [{"learner", "status", "work_dir", "steps": [step documents]}],
/// "causes": {"without_work_dir": [...], "groups": [...]}}`; each learner's steps are the
/// documents their own `--format json` run gives.
pub fn json(runs: &[LearnerRun], causes: &ClassCauses) -> String {
    let status = Status::fold(runs.iter().map(|r| r.status));
    let document = serde_json::json!({
        "status": status,
        "learners": runs.iter().map(|r| serde_json::json!({
            "learner": r.learner,
            "status": r.status,
            "work_dir": r.work_dir,
            "steps": r.steps.iter().map(super::json::step_value).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "causes": causes_value(causes),
    });
    format!("{document:#}\n")
}

/// The class's causes as JSON, each hint in the words every report gives it (`hint`).
fn causes_value(causes: &ClassCauses) -> serde_json::Value {
    let mut value = serde_json::to_value(causes).unwrap_or_default();
    for (g, group) in causes.groups.iter().enumerate() {
        if let Some(summary) = &group.summary {
            value["groups"][g]["summary"] = summary.words().into();
        }
        for (h, hint) in group.hints.iter().enumerate() {
            value["groups"][g]["hints"][h]["hint"] =
                super::hint::text(&hint.parts).unwrap_or_default().into();
        }
    }
    for (l, learner) in causes.without_work_dir.iter().enumerate() {
        if let Some(hint) = super::hint::text(&learner.hint) {
            value["without_work_dir"][l]["hint"] = hint.into();
        }
    }
    value
}

fn mark(status: Status, styles: Styles) -> String {
    // One column per check: ASCII marks stay one character wide.
    let (pass, fail) = if styles.ascii {
        ("+", "x")
    } else {
        ("✓", "✗")
    };
    let (text, color) = match status {
        Status::Pass => (pass, owo_colors::AnsiColors::Green),
        Status::Fail => (fail, owo_colors::AnsiColors::Red),
        Status::Error => ("?", owo_colors::AnsiColors::Yellow),
        Status::Skip => ("-", owo_colors::AnsiColors::Default),
    };
    if styles.color {
        text.color(color).to_string()
    } else {
        text.to_string()
    }
}

/// JUnit for a class: one `<testsuite>` per learner (named for them), one `<testcase>` per check
/// of every step they were checked on, as in a learner's own JUnit report.
pub fn junit(runs: &[LearnerRun]) -> String {
    super::junit::render_suites(runs.iter().map(|run| {
        let properties = [
            ("learner", run.learner.clone()),
            ("status", run.status.as_str().to_string()),
            (
                "work_dir",
                run.work_dir
                    .as_ref()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default(),
            ),
        ];
        (
            run.learner.clone(),
            properties.to_vec(),
            run.steps.as_slice(),
        )
    }))
}

/// TAP for a class: a subtest per learner, in it a subtest per step, in that a test point per
/// check, as in a learner's own TAP report.
pub fn tap(runs: &[LearnerRun], version: super::tap::Version) -> String {
    super::tap::render_nested(
        runs.iter()
            .map(|run| (run.learner.as_str(), run.status, run.steps.as_slice())),
        version,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_text_shows_each_learners_names_as_what_stands_for_them() {
        let renamed = |template: &str, slot| {
            Piece::Own(Slot::Renamed {
                template: template.to_string(),
                slot,
                course: "checkout-dev".to_string(),
            })
        };
        let text = Shared(vec![
            Piece::Text("cd ".to_string()),
            Piece::Own(Slot::WorkDir),
            Piece::Text("/checkout-config; kubectl -n ".to_string()),
            renamed("{learner}-{namespace}", "{namespace}"),
            Piece::Text(" get jobs; argocd app sync ".to_string()),
            renamed("{learner}", "{app}"),
        ]);
        assert_eq!(
            text.words(),
            "cd <work-dir>/checkout-config; kubectl -n <learner>-checkout-dev get jobs; argocd app sync <learner>"
        );
    }
}
