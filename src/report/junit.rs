//! The JUnit XML report for CI: one test suite per step, one test case per check. A failed check
//! is a `<failure>`, a check that could not be made is an `<error>` (never a failure, never a
//! pass), a skipped one is `<skipped>`.

use std::fmt::Write;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::outcome::{Outcome, Status};
use crate::run::{CheckReport, StepReport};

/// Every step of a run in one document (a single step is a document with one suite).
pub fn render(steps: &[StepReport]) -> String {
    let mut report = Report::new("labcheck");
    report.add_test_suites(steps.iter().map(suite));
    document(&report)
}

/// Several runs in one document (a class): a suite per run, named `name`, with `properties`, and
/// a test case per check of each of its steps (classname `module.step`, as in a learner's own).
pub fn render_suites<'a>(
    runs: impl Iterator<Item = (String, Vec<(&'static str, String)>, &'a [StepReport])>,
) -> String {
    let mut report = Report::new("labcheck");
    report.add_test_suites(runs.map(|(name, properties, steps)| {
        let mut suite = TestSuite::new(name);
        suite.add_properties(
            properties
                .iter()
                .map(|(key, value)| Property::new(*key, value.as_str())),
        );
        for step in steps {
            let classname = format!("{}.{}", step.module, step.step);
            suite.add_test_cases(step.checks.iter().map(|check| case(check, &classname)));
        }
        suite
    }));
    document(&report)
}

fn document(report: &Report) -> String {
    match report.to_string() {
        Ok(xml) => xml,
        // Writing XML into a String has no I/O to fail; should it fail anyway, the document still
        // says something went wrong instead of looking like an empty, passing run.
        Err(e) => fallback(&e.to_string()),
    }
}

fn suite(step: &StepReport) -> TestSuite {
    let mut suite = TestSuite::new(format!("{} {}", step.module, step.step));
    suite.add_properties([
        Property::new("module", step.module.as_str()),
        Property::new("step", step.step.as_str()),
        Property::new("title", step.title.as_str()),
        Property::new("track", step.track.as_str()),
        Property::new("status", step.status.as_str()),
    ]);
    if let Some(reason) = &step.skipped {
        suite.add_property(Property::new("skipped", reason.describe()));
    }
    let classname = format!("{}.{}", step.module, step.step);
    suite.add_test_cases(step.checks.iter().map(|check| case(check, &classname)));
    suite
}

fn case(check: &CheckReport, classname: &str) -> TestCase {
    let outcome = &check.outcome;
    let status = match outcome.status {
        Status::Pass => TestCaseStatus::success(),
        // A timeout leads the message, so a CI summary shows labcheck gave up, not a verdict.
        Status::Fail => match super::waiting::note(outcome) {
            Some(note) => non_success(
                NonSuccessKind::Failure,
                check,
                &format!("{note} ({})", outcome.summary),
            ),
            None => non_success(NonSuccessKind::Failure, check, &outcome.summary),
        },
        Status::Error => non_success(NonSuccessKind::Error, check, &could_not_check(outcome)),
        Status::Skip => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(outcome.summary.as_str());
            status
        }
    };
    let mut case = TestCase::new(format!("{}: {}", check.id, check.title), status);
    case.set_classname(classname);
    case
}

/// "could not check: …": the status says it, so a summary never does (as in the human report).
fn could_not_check(outcome: &Outcome) -> String {
    format!("could not check: {}", outcome.summary)
}

fn non_success(kind: NonSuccessKind, check: &CheckReport, message: &str) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    status
        .set_message(message)
        .set_type(check.kind)
        .set_description(description(&check.outcome));
    status
}

/// The text of a failure or error: what labcheck saw, why, what to do, then the evidence.
pub fn description(outcome: &Outcome) -> String {
    let mut text = outcome.summary.clone();
    if let Some(note) = super::waiting::note(outcome) {
        let _ = write!(text, "\n{note}");
    }
    if let (Some(expected), Some(actual)) = (&outcome.expected, &outcome.actual) {
        let _ = write!(text, "\nexpected: {expected}\nfound:    {actual}");
    }
    if let Some(diagnosis) = &outcome.diagnosis {
        let _ = write!(text, "\nwhy:  {diagnosis}");
    }
    if let Some(cause) = &outcome.cause {
        let _ = write!(text, "\ncause: {cause}");
    }
    if let Some(hint) = super::hint::text(&outcome.hints) {
        let _ = write!(text, "\nhint: {hint}");
    }
    if let Some(note) = &outcome.note {
        let _ = write!(text, "\nnote: {note}");
    }
    if let Some(detail) = &outcome.detail {
        let _ = write!(text, "\n\n{}", detail.text.trim_end());
    }
    text
}

fn fallback(error: &str) -> String {
    let escaped = error
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;");
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"labcheck\" tests=\"1\" failures=\"0\" errors=\"1\">\n    <testsuite name=\"labcheck\" tests=\"1\" failures=\"0\" errors=\"1\">\n        <testcase name=\"report\"><error message=\"cannot render the JUnit report: {escaped}\"/></testcase>\n    </testsuite>\n</testsuites>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::run::fixtures::check;

    fn step(name: &str, checks: Vec<CheckReport>) -> StepReport {
        crate::run::fixtures::step(name, "Release with a failing migration", checks)
    }

    #[test]
    fn a_failed_check_is_a_failure_with_summary_hint_and_diff() {
        let report = step(
            "step-4",
            crate::run::fixtures::passed_then_differs(
                "line 5 differs from the reference",
                "copy the reference's line 5 & push",
                "-a: 1\n+a: <2>\n",
            ),
        );
        let xml = render(&[report]);
        assert!(
            xml.contains(r#"<testsuite name="module-10 step-4" tests="2""#),
            "{xml}"
        );
        assert!(xml.contains(r#"failures="1""#), "{xml}");
        assert!(
            xml.contains(r#"<failure message="line 5 differs from the reference" type="git">"#),
            "{xml}"
        );
        assert!(
            xml.contains("hint: copy the reference&apos;s line 5 &amp; push")
                || xml.contains("hint: copy the reference's line 5 &amp; push"),
            "{xml}"
        );
        assert!(xml.contains("+a: &lt;2&gt;"), "{xml}");
    }

    #[test]
    fn could_not_check_is_an_error_and_skip_is_skipped_never_a_failure() {
        let report = crate::run::fixtures::unchecked_and_skipped("cannot reach the Kubernetes API");
        let xml = render(&[report]);
        assert!(xml.contains(r#"failures="0""#), "{xml}");
        assert!(xml.contains(r#"errors="1""#), "{xml}");
        assert!(xml.contains(r#"skipped="1""#), "{xml}");
        assert!(
            xml.contains(r#"<error message="could not check: cannot reach the Kubernetes API""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<skipped message="not on the kind track"/>"#),
            "{xml}"
        );
        assert!(!xml.contains("<failure"), "{xml}");
    }

    #[test]
    fn a_module_run_is_one_document_with_a_suite_per_step() {
        let steps = [
            step("step-1", vec![check("a", Outcome::pass("ok"))]),
            step("step-2", vec![check("b", Outcome::pass("ok"))]),
        ];
        let xml = render(&steps);
        assert_eq!(xml.matches("<?xml").count(), 1, "{xml}");
        assert_eq!(xml.matches("<testsuite ").count(), 2, "{xml}");
        assert!(xml.contains(r#"classname="module-10.step-2""#), "{xml}");
    }

    #[test]
    fn a_skipped_step_suite_has_the_runners_reason_as_a_property() {
        let mut other = step(
            "step-2",
            vec![check("a", Outcome::skip("not on the kind track"))],
        );
        other.skipped = Some(crate::run::SkipReason::NotOnTrack {
            track: "kind".to_string(),
        });
        let xml = render(&[other]);
        assert!(
            xml.contains(r#"<property name="skipped" value="not on the kind track"/>"#),
            "{xml}"
        );
        let plain = render(&[step("step-1", vec![check("a", Outcome::pass("ok"))])]);
        assert!(!plain.contains(r#"name="skipped""#), "{plain}");
    }
}
