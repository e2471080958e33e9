//! The TAP report (TAP version 14, readable by TAP 13 consumers): each step is a subtest, each
//! check a test point with a YAML diagnostics block when it did not pass.
//!
//! TAP has no "could not check": such a check is `not ok` with `status: error` in its block, so
//! no TAP consumer counts it as a pass; the exit code (3) tells it from a failure.

use std::fmt::Write;

use crate::outcome::Status;
use crate::run::{CheckReport, StepReport};

/// Every step of a run in one document.
pub fn render(steps: &[StepReport]) -> String {
    let mut out = String::from("TAP version 14\n");
    let _ = writeln!(out, "1..{}", steps.len());
    for (i, step) in steps.iter().enumerate() {
        let name = format!("{} {}", step.module, step.step);
        let _ = writeln!(out, "# Subtest: {}", escape(&name));
        let _ = writeln!(out, "    1..{}", step.checks.len());
        for (j, check) in step.checks.iter().enumerate() {
            point(&mut out, "    ", j + 1, check);
        }
        let description = format!("{name}: {}", step.title);
        let line = match step.status {
            Status::Pass => format!("ok {} - {}", i + 1, escape(&description)),
            Status::Skip => format!("ok {} - {} # SKIP", i + 1, escape(&description)),
            Status::Fail | Status::Error => format!("not ok {} - {}", i + 1, escape(&description)),
        };
        let _ = writeln!(out, "{line}");
        if matches!(step.status, Status::Fail | Status::Error) {
            yaml_block(&mut out, "  ", &[("status", step.status.as_str())]);
        }
    }
    out
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
            let optional = [
                ("expected", &outcome.expected),
                ("found", &outcome.actual),
                ("why", &outcome.diagnosis),
                ("hint", &outcome.hint),
            ];
            for (key, value) in optional {
                if let Some(value) = value {
                    fields.push((key, value));
                }
            }
            if let Some(detail) = &outcome.detail {
                fields.push(("detail", &detail.text));
            }
            yaml_block(out, &format!("{indent}  "), &fields);
        }
    }
}

/// A `---` … `...` block at `indent`, one key per field; text with line breaks as a literal block.
fn yaml_block(out: &mut String, indent: &str, fields: &[(&str, &str)]) {
    let _ = writeln!(out, "{indent}---");
    for (key, value) in fields {
        if value.contains('\n') && literal_safe(value) {
            // The explicit indentation indicator keeps a first line that starts with a space
            // (a diff's context line) from being read as the block's indentation.
            let chomp = if value.ends_with("\n\n") {
                "+"
            } else if value.ends_with('\n') {
                ""
            } else {
                "-"
            };
            let _ = writeln!(out, "{indent}{key}: |2{chomp}");
            for line in value.lines() {
                if line.is_empty() {
                    let _ = writeln!(out);
                } else {
                    let _ = writeln!(out, "{indent}  {line}");
                }
            }
        } else {
            // A JSON string is a valid YAML double-quoted scalar.
            let quoted = serde_json::to_string(value).unwrap_or_else(|_| "\"\"".to_string());
            let _ = writeln!(out, "{indent}{key}: {quoted}");
        }
    }
    let _ = writeln!(out, "{indent}...");
}

/// Whether a literal block can hold `text` exactly (no carriage returns or control characters).
fn literal_safe(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
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
    use crate::outcome::{DetailKind, Outcome};

    fn check(id: &str, outcome: Outcome) -> CheckReport {
        CheckReport {
            id: id.to_string(),
            kind: "diff",
            title: format!("title of {id}"),
            outcome,
        }
    }

    fn step(name: &str, checks: Vec<CheckReport>) -> StepReport {
        StepReport {
            module: "module-10".to_string(),
            step: name.to_string(),
            title: "Hooks #1".to_string(),
            track: "kind".to_string(),
            status: Status::fold(checks.iter().map(|c| c.outcome.status)),
            checks,
        }
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
            vec![
                check("ok", Outcome::pass("fine")),
                check(
                    "same",
                    Outcome::fail("line 2 differs: \"a\"")
                        .with_hint("copy it: `cp x y`")
                        .with_detail(DetailKind::Diff, diff),
                ),
            ],
        );
        let tap = render(&[report]);
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
        let report = step(
            "step-2",
            vec![
                check("synced", Outcome::could_not_check("no kubeconfig found")),
                check("other", Outcome::skip("not on the kind track")),
            ],
        );
        let tap = render(&[report]);
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
        let tap = render(&steps);
        assert_eq!(tap.matches("TAP version").count(), 1);
        assert!(tap.contains("\n1..2\n"), "{tap}");
        assert!(
            tap.contains("\nok 2 - module-10 step-2: Hooks \\#1\n"),
            "{tap}"
        );
    }
}
