//! The report for people: one line per check, the hint and evidence under each failure.

use std::fmt::Write;

use owo_colors::OwoColorize;

use super::Styles;
use crate::outcome::{DetailKind, Status};
use crate::run::next::first_open;
use crate::run::{CheckReport, StepReport};

/// How many lines of a detail (diff, log) the terminal shows before eliding.
const DETAIL_LINES: usize = 40;

/// Render one step. Quiet, a step that passed is its summary line, and a step that did not shows
/// only the checks that did not pass.
pub fn render_step(step: &StepReport, styles: Styles) -> String {
    let mut out = String::new();
    if styles.quiet && matches!(step.status, Status::Pass | Status::Skip) {
        let _ = writeln!(out, "{}", summary_line(step, styles));
        return out;
    }
    let heading = format!("{} {} · {}", step.module, step.step, step.title);
    let _ = writeln!(
        out,
        "{}  {}",
        paint(styles, &heading, Paint::Bold),
        paint(styles, &format!("(track: {})", step.track), Paint::Dim)
    );
    for check in &step.checks {
        if styles.quiet && matches!(check.outcome.status, Status::Pass | Status::Skip) {
            continue;
        }
        render_check(&mut out, step, check, styles);
    }
    let _ = writeln!(out, "{}", summary_line(step, styles));
    out
}

/// Render a whole module: every step, then the overview.
pub fn render_module(steps: &[StepReport], styles: Styles) -> String {
    let mut out = String::new();
    for step in steps {
        out.push_str(&render_step(step, styles));
        out.push('\n');
    }
    if let Some(first) = steps.first() {
        let _ = writeln!(
            out,
            "{}",
            paint(styles, &format!("{} overview", first.module), Paint::Bold)
        );
    }
    for step in steps {
        if styles.quiet && matches!(step.status, Status::Pass | Status::Skip) {
            continue;
        }
        let note = match &step.skipped {
            Some(reason) => paint(styles, &format!("  ({})", reason.describe()), Paint::Dim),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  {} {:<16} {}{note}",
            mark(step.status, styles),
            step.step,
            step.title
        );
    }
    if let Some(next) = first_open(steps.iter().map(|s| (s, s.standing()))) {
        let _ = writeln!(
            out,
            "next: {} — run `labcheck {} {}` for its hints",
            next.step, next.module, next.step
        );
    }
    out
}

fn render_check(out: &mut String, step: &StepReport, check: &CheckReport, styles: Styles) {
    let outcome = &check.outcome;
    let _ = writeln!(out, "  {} {}", mark(outcome.status, styles), check.title);
    if outcome.status == Status::Pass {
        render_note(out, outcome, styles);
        return;
    }
    let prefix = match outcome.status {
        Status::Error => "could not check: ",
        Status::Skip => "skipped: ",
        _ => "",
    };
    let _ = writeln!(out, "      {prefix}{}", outcome.summary);
    if let Some(note) = super::waiting::note(outcome) {
        let _ = writeln!(out, "      {}", paint(styles, &note, Paint::Yellow));
    }
    if let (Some(expected), Some(actual)) = (&outcome.expected, &outcome.actual) {
        let _ = writeln!(out, "      expected: {expected}");
        let _ = writeln!(out, "      found:    {actual}");
    }
    if let Some(diagnosis) = &outcome.diagnosis {
        for (i, line) in diagnosis.lines().enumerate() {
            let label = if i == 0 { "why:  " } else { "      " };
            let _ = writeln!(out, "      {}{line}", paint(styles, label, Paint::Yellow));
        }
    }
    if let Some(hint) = super::hint::text(&outcome.hints) {
        for (i, line) in hint.lines().enumerate() {
            let label = if i == 0 { "hint: " } else { "      " };
            let _ = writeln!(out, "      {}{line}", paint(styles, label, Paint::Cyan));
        }
    }
    if let Some(level) = outcome.hint_level().filter(|l| l.level < l.of) {
        let more = format!(
            "(hint {} of {}; `labcheck hint {} {} {}` shows the next)",
            level.level, level.of, step.module, step.step, check.id
        );
        let _ = writeln!(out, "      {}", paint(styles, &more, Paint::Dim));
    }
    render_note(out, outcome, styles);
    if let Some(shown) = outcome.detail.as_ref().and_then(|d| d.shown_under.as_ref()) {
        let note = format!("(the same lines as under \"{}\" above)", shown.title);
        let _ = writeln!(out, "        {}", paint(styles, &note, Paint::Dim));
    } else if let Some(detail) = &outcome.detail {
        let lines: Vec<&str> = detail.text.lines().collect();
        for line in lines.iter().take(DETAIL_LINES) {
            let painted = match detail.kind {
                DetailKind::Diff if line.starts_with('-') && !line.starts_with("---") => {
                    paint(styles, line, Paint::Red)
                }
                DetailKind::Diff if line.starts_with('+') && !line.starts_with("+++") => {
                    paint(styles, line, Paint::Green)
                }
                DetailKind::Diff if line.starts_with("@@") => paint(styles, line, Paint::Cyan),
                _ => paint(styles, line, Paint::Dim),
            };
            let _ = writeln!(out, "        {painted}");
        }
        if lines.len() > DETAIL_LINES {
            let _ = writeln!(
                out,
                "        … {} more lines (see --format json)",
                lines.len() - DETAIL_LINES
            );
        }
    }
}

/// A check's note (what does not change its verdict), under it whatever its status.
fn render_note(out: &mut String, outcome: &crate::outcome::Outcome, styles: Styles) {
    if let Some(note) = &outcome.note {
        for (i, line) in note.lines().enumerate() {
            let label = if i == 0 { "note: " } else { "      " };
            let _ = writeln!(out, "      {}{line}", paint(styles, label, Paint::Dim));
        }
    }
}

fn summary_line(step: &StepReport, styles: Styles) -> String {
    let count = |s: Status| step.checks.iter().filter(|c| c.outcome.status == s).count();
    let mut parts = vec![format!("{} passed", count(Status::Pass))];
    if count(Status::Fail) > 0 {
        parts.push(format!("{} failed", count(Status::Fail)));
    }
    if count(Status::Error) > 0 {
        parts.push(format!("{} could not be checked", count(Status::Error)));
    }
    if count(Status::Skip) > 0 {
        parts.push(format!("{} skipped", count(Status::Skip)));
    }
    let verdict = match step.status {
        Status::Pass => paint(styles, "done", Paint::Green),
        Status::Fail => paint(styles, "not done yet", Paint::Red),
        Status::Error => paint(styles, "could not be checked", Paint::Yellow),
        Status::Skip => match &step.skipped {
            Some(reason) => paint(
                styles,
                &format!("skipped, {}", reason.describe()),
                Paint::Dim,
            ),
            None => paint(styles, "skipped", Paint::Dim),
        },
    };
    format!("{}: {verdict} ({})", step.step, parts.join(", "))
}

pub(crate) fn mark(status: Status, styles: Styles) -> String {
    let (pass, fail) = styles.pass_fail();
    let (error, skip) = if styles.ascii {
        ("[??]", "[skip]")
    } else {
        ("?", "-")
    };
    match status {
        Status::Pass => paint(styles, pass, Paint::Green),
        Status::Fail => paint(styles, fail, Paint::Red),
        Status::Error => paint(styles, error, Paint::Yellow),
        Status::Skip => paint(styles, skip, Paint::Dim),
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Paint {
    Bold,
    Dim,
    Red,
    Green,
    Yellow,
    Cyan,
}

pub(crate) fn paint(styles: Styles, text: &str, how: Paint) -> String {
    if !styles.color {
        return text.to_string();
    }
    match how {
        Paint::Bold => text.bold().to_string(),
        Paint::Dim => text.dimmed().to_string(),
        Paint::Red => text.red().to_string(),
        Paint::Green => text.green().to_string(),
        Paint::Yellow => text.yellow().to_string(),
        Paint::Cyan => text.cyan().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;

    fn check(id: &str, title: &str, outcome: Outcome) -> CheckReport {
        CheckReport::new(id, "git", title, outcome)
    }

    fn step(checks: Vec<CheckReport>) -> StepReport {
        crate::run::fixtures::step("step-1", "Platform: let Applications report health", checks)
    }

    #[test]
    fn a_failing_step_shows_summary_hint_and_coloured_diff_lines_in_order() {
        let report = step(vec![
            check(
                "on-main",
                "argocd-platform is on main",
                Outcome::pass("on main"),
            ),
            check(
                "pushed",
                "your commit is pushed",
                Outcome::fail("main is 1 commit ahead of origin/main")
                    .with_hint("cd ~/work/argocd-platform && git push"),
            ),
            check(
                "same",
                "argocd/values.yaml is the same as the reference",
                Outcome::fail("lines 5–6 of yours differ from the reference").with_detail(
                    DetailKind::Diff,
                    "--- reference\n+++ yours\n@@ -1,2 +1,2 @@\n-a: 1\n+a: 2\n",
                ),
            ),
            check(
                "cm",
                "argocd-cm carries the health check",
                Outcome::could_not_check("no kubeconfig found")
                    .with_hint("point --kubeconfig at your cluster's kubeconfig"),
            ),
        ]);
        let text = render_step(&report, Styles::plain());
        insta::assert_snapshot!(text);
        let coloured = render_step(
            &report,
            Styles {
                color: true,
                ..Styles::plain()
            },
        );
        assert!(coloured.contains("\u{1b}["), "colour was asked for");
        assert!(
            !text.contains("\u{1b}["),
            "plain output has no escape codes"
        );
    }

    #[test]
    fn a_module_overview_points_at_the_first_unfinished_step() {
        let mut second = step(vec![check(
            "pushed",
            "pushed",
            Outcome::fail("not pushed").with_hint("git push"),
        )]);
        second.step = "step-2".to_string();
        let first = step(vec![check("ok", "ok", Outcome::pass("fine"))]);
        let text = render_module(&[first, second], Styles::plain());
        assert!(
            text.contains("next: step-2 — run `labcheck module-10 step-2`"),
            "{text}"
        );
        assert!(text.contains("✓ step-1"), "{text}");
        assert!(text.contains("✗ step-2"), "{text}");
    }

    /// Step 4 skipped for `reason` (its one check skipped), after a passing step 1.
    fn module_with_skipped_step_4(reason: crate::run::SkipReason) -> String {
        let first = step(vec![check("ok", "ok", Outcome::pass("fine"))]);
        let mut fourth = step(vec![check("c", "c", Outcome::skip("skipped"))]);
        fourth.step = "step-4".to_string();
        fourth.skipped = Some(reason);
        render_module(&[first, fourth], Styles::plain())
    }

    #[test]
    fn a_step_skipped_for_the_track_says_so_and_never_that_a_later_step_replaced_it() {
        let text = module_with_skipped_step_4(crate::run::SkipReason::NotOnTrack {
            track: "kind".to_string(),
        });
        assert!(text.contains("- step-4 "), "{text}");
        assert!(text.contains("(not on the kind track)"), "{text}");
        assert!(
            text.contains("step-4: skipped, not on the kind track"),
            "{text}"
        );
        assert!(!text.contains("replaced"), "{text}");
        assert!(
            !text.contains("next:"),
            "a skipped step is not next: {text}"
        );
    }

    #[test]
    fn a_replaced_step_names_the_step_that_replaced_it() {
        let text = module_with_skipped_step_4(crate::run::SkipReason::Replaced {
            by: "step-5".to_string(),
        });
        assert!(
            text.contains("(replaced by step-5, a later step)"),
            "{text}"
        );
        assert!(!text.contains("not on the"), "{text}");
    }
}
