//! The TAP report: TAP version 13 by default (what Perl's TAP::Harness behind `prove` reads;
//! `-o tap14` writes the version line TAP 14 consumers expect). Each step is a subtest, each check
//! a test point with a YAML diagnostics block when it did not pass. A class nests one level more:
//! a subtest per learner holding their steps. Subtests are indented, so a TAP 13 consumer skips
//! them and counts the top-level points, which carry the verdicts.
//!
//! TAP has no "could not check": such a check is `not ok` with `status: error` in its block, so
//! no TAP consumer counts it as a pass; the exit code (3) tells it from a failure.

use std::fmt::Write;

use crate::outcome::Status;
use crate::run::{CheckReport, SkipReason, StepReport};

/// The TAP version line a document starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// `TAP version 13`: read by `prove` (TAP::Parser up to 3.x knows no later version).
    Thirteen,
    /// `TAP version 14`: the same document for consumers that know the subtest spelling.
    Fourteen,
}

impl Version {
    fn line(self) -> &'static str {
        match self {
            Version::Thirteen => "TAP version 13\n",
            Version::Fourteen => "TAP version 14\n",
        }
    }
}

/// Every step of a run in one document.
pub fn render(steps: &[StepReport], version: Version) -> String {
    let mut out = String::from(version.line());
    steps_at(&mut out, "", steps);
    out
}

/// Several runs in one document (a class: one per learner), each a subtest holding its steps'
/// subtests.
pub fn render_nested<'a>(
    runs: impl ExactSizeIterator<Item = (&'a str, Status, &'a [StepReport])>,
    version: Version,
) -> String {
    let mut out = String::from(version.line());
    let _ = writeln!(out, "1..{}", runs.len());
    for (i, (name, status, steps)) in runs.enumerate() {
        let _ = writeln!(out, "# Subtest: {}", escape(name));
        steps_at(&mut out, "    ", steps);
        conclusion(&mut out, "", i + 1, name, status, None);
    }
    out
}

/// A plan over `steps` and a subtest per step, every line after `base`.
fn steps_at(out: &mut String, base: &str, steps: &[StepReport]) {
    let _ = writeln!(out, "{base}1..{}", steps.len());
    for (i, step) in steps.iter().enumerate() {
        let name = format!("{} {}", step.module, step.step);
        let _ = writeln!(out, "{base}# Subtest: {}", escape(&name));
        let _ = writeln!(out, "{base}    1..{}", step.checks.len());
        for (j, check) in step.checks.iter().enumerate() {
            point(out, &format!("{base}    "), j + 1, check);
        }
        let description = format!("{name}: {}", step.title);
        conclusion(
            out,
            base,
            i + 1,
            &description,
            step.status,
            step.skipped.as_ref(),
        );
    }
}

/// The test point that closes a subtest, with its status in a YAML block when it did not pass,
/// and the runner's reason when it skipped the whole step.
fn conclusion(
    out: &mut String,
    base: &str,
    number: usize,
    description: &str,
    status: Status,
    skipped: Option<&SkipReason>,
) {
    let line = match (status, skipped) {
        (Status::Pass, _) => format!("ok {number} - {}", escape(description)),
        (Status::Skip, Some(reason)) => format!(
            "ok {number} - {} # SKIP {}",
            escape(description),
            one_line(&reason.describe())
        ),
        (Status::Skip, None) => format!("ok {number} - {} # SKIP", escape(description)),
        (Status::Fail | Status::Error, _) => {
            format!("not ok {number} - {}", escape(description))
        }
    };
    let _ = writeln!(out, "{base}{line}");
    if matches!(status, Status::Fail | Status::Error) {
        yaml_block(out, &format!("{base}  "), &[("status", status.as_str())]);
    }
}

fn point(out: &mut String, indent: &str, number: usize, check: &CheckReport) {
    let outcome = &check.outcome;
    let description = escape(&format!("{}: {}", check.id, check.title));
    match outcome.status {
        Status::Pass => {
            let _ = writeln!(out, "{indent}ok {number} - {description}");
        }
        Status::Skip => {
            let _ = writeln!(
                out,
                "{indent}ok {number} - {description} # SKIP {}",
                one_line(&outcome.summary)
            );
        }
        Status::Fail | Status::Error => {
            let _ = writeln!(out, "{indent}not ok {number} - {description}");
            let mut fields: Vec<(&str, &str)> = vec![
                ("id", &check.id),
                ("kind", check.kind),
                ("status", outcome.status.as_str()),
                ("message", &outcome.summary),
            ];
            if let Some(cause) = &outcome.cause {
                fields.push(("cause", cause.as_str()));
            }
            let hint = super::hint::text(&outcome.hints);
            let optional = [
                ("expected", &outcome.expected),
                ("found", &outcome.actual),
                ("why", &outcome.diagnosis),
                ("hint", &hint),
                ("note", &outcome.note),
            ];
            for (key, value) in optional {
                if let Some(value) = value {
                    fields.push((key, value));
                }
            }
            if let Some(detail) = &outcome.detail {
                fields.push(("detail", &detail.text));
            }
            // How a wait ended ("gave up after 90 s: still Running"), as in JUnit and the human report.
            let waited = super::waiting::note(outcome);
            if let Some(note) = &waited {
                fields.push(("waited", note));
            }
            yaml_block(out, &format!("{indent}  "), &fields);
        }
    }
}

/// A `---` … `...` block at `indent`, one key per field, each value a double-quoted scalar.
/// Quoted, never a literal block: Perl's TAP::Parser (behind `prove`) reads only the YAMLish
/// subset, where `|2-` and blank lines inside a block break the whole stream ("Bad plan").
fn yaml_block(out: &mut String, indent: &str, fields: &[(&str, &str)]) {
    let _ = writeln!(out, "{indent}---");
    for (key, value) in fields {
        let _ = writeln!(out, "{indent}{key}: {}", quoted(value));
    }
    let _ = writeln!(out, "{indent}...");
}

/// `text` as a YAML double-quoted scalar using only the escapes YAML and YAMLish share.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `#` starts a directive and `\` escapes in a TAP description.
fn escape(text: &str) -> String {
    one_line(text).replace('\\', "\\\\").replace('#', "\\#")
}

fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;

    use crate::run::fixtures::check;

    fn step(name: &str, checks: Vec<CheckReport>) -> StepReport {
        crate::run::fixtures::step(name, "Hooks #1", checks)
    }

    /// The YAML block under the test point that starts with `point`.
    fn block(tap: &str, point: &str) -> serde_yaml::Value {
        let lines: Vec<&str> = tap.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.trim_start().starts_with(point))
            .unwrap_or_else(|| panic!("no `{point}` in\n{tap}"));
        let body: Vec<&str> = lines[start + 2..]
            .iter()
            .take_while(|l| l.trim() != "...")
            .copied()
            .collect();
        serde_yaml::from_str(&(body.join("\n") + "\n")).unwrap_or_else(|e| panic!("{e}\n{tap}"))
    }

    #[test]
    fn a_failed_check_carries_its_hint_and_diff_as_yaml_that_parses_back() {
        let diff = " context: 1\n-a: 1\n+a: \"2\" # yes\n";
        let report = step(
            "step-1",
            crate::run::fixtures::passed_then_differs(
                "line 2 differs: \"a\"",
                "copy it: `cp x y`",
                diff,
            ),
        );
        let tap = render(&[report], Version::Fourteen);
        assert!(tap.starts_with("TAP version 14\n1..1\n# Subtest: module-10 step-1\n    1..2\n    ok 1 - ok: title of ok\n    not ok 2 - same: title of same\n"), "{tap}");
        assert!(
            tap.ends_with(
                "not ok 1 - module-10 step-1: Hooks \\#1\n  ---\n  status: \"fail\"\n  ...\n"
            ),
            "{tap}"
        );
        let yaml = block(&tap, "not ok 2");
        assert_eq!(yaml["status"], "fail");
        assert_eq!(yaml["message"], "line 2 differs: \"a\"");
        assert_eq!(yaml["hint"], "copy it: `cp x y`");
        assert_eq!(yaml["detail"], diff);
    }

    #[test]
    fn could_not_check_is_not_ok_with_status_error_and_skip_is_a_skip_directive() {
        let report = crate::run::fixtures::unchecked_and_skipped("no kubeconfig found");
        let tap = render(&[report], Version::Fourteen);
        assert!(
            tap.contains("    not ok 1 - synced: title of synced\n"),
            "{tap}"
        );
        assert_eq!(block(&tap, "not ok 1 - synced")["status"], "error");
        assert!(
            tap.contains("    ok 2 - other: title of other # SKIP not on the kind track\n"),
            "{tap}"
        );
    }

    #[test]
    fn a_module_run_is_one_document_with_a_subtest_per_step() {
        let steps = [
            step("step-1", vec![check("a", Outcome::pass("ok"))]),
            step("step-2", vec![check("b", Outcome::pass("ok"))]),
        ];
        let tap = render(&steps, Version::Thirteen);
        assert!(tap.starts_with("TAP version 13\n"), "{tap}");
        assert_eq!(tap.matches("TAP version").count(), 1);
        assert!(tap.contains("\n1..2\n"), "{tap}");
        assert!(
            tap.contains("\nok 2 - module-10 step-2: Hooks \\#1\n"),
            "{tap}"
        );
    }

    #[test]
    fn a_skipped_step_carries_the_runners_reason_in_its_skip_directive() {
        let mut fourth = step("step-4", vec![check("a", Outcome::skip("replaced"))]);
        fourth.skipped = Some(crate::run::SkipReason::Replaced {
            by: "step-5".to_string(),
        });
        let tap = render(&[fourth], Version::Thirteen);
        assert!(
            tap.contains(
                "\nok 1 - module-10 step-4: Hooks \\#1 # SKIP replaced by step-5, a later step\n"
            ),
            "{tap}"
        );
    }
}
