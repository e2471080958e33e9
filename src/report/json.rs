//! The JSON report. Field names are a contract with CI pipelines: add, never rename.

use serde::Serialize;

use super::hint::WordedPart;
use crate::outcome::{HintLevel, Status, Waited};
use crate::run::{SkipReason, StepReport};

#[derive(Serialize)]
struct JsonCheck<'a> {
    id: &'a str,
    kind: &'a str,
    title: &'a str,
    status: Status,
    summary: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
    /// The hint in parts (`{kind, text, from}`; kind `first`, `course`, `check` or `cause`), so a
    /// pipeline can tell the course's words from what the check saw and trace each to its source.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hint_parts: Vec<WordedPart>,
    /// `{level, of}` when the check file gives hint levels.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint_level: Option<HintLevel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnosis: Option<&'a str>,
    /// What the learner should know that does not change the verdict (untracked files the step
    /// leaves alone; one that must stay out of git), on a passing check too.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actual: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    /// The id of an earlier check of the step whose detail shows the same lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    detail_shown_under: Option<&'a str>,
    /// Why it failed or could not check, as a stable id (`not-pushed`, `hook-failed:NAME`).
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'a str>,
    /// labcheck gave up waiting for this check at its limit (it is failed, not done).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    /// How labcheck waited for it, when it did: `{waited, end, because?, last_state}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    wait: Option<JsonWait<'a>>,
}

/// A check's wait: seconds waited, how it ended (`reached`, `timed-out`, `final` with the
/// reason), and the state last observed.
#[derive(Serialize)]
struct JsonWait<'a> {
    #[serde(flatten)]
    waited: &'a Waited,
    last_state: &'a str,
}

#[derive(Serialize)]
struct JsonStep<'a> {
    module: &'a str,
    step: &'a str,
    title: &'a str,
    track: &'a str,
    status: Status,
    /// Why the runner skipped the whole step (`{"reason": "replaced", "by": "step-5"}`,
    /// `{"reason": "not-on-track", "track": "kind"}`, `{"reason": "nothing-to-judge"}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<&'a SkipReason>,
    /// Some check of this step timed out while waited for.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    checks: Vec<JsonCheck<'a>>,
}

#[derive(Serialize)]
struct JsonModule<'a> {
    module: &'a str,
    track: &'a str,
    status: Status,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    steps: Vec<JsonStep<'a>>,
}

fn step_document(step: &StepReport) -> JsonStep<'_> {
    JsonStep {
        module: &step.module,
        step: &step.step,
        title: &step.title,
        track: &step.track,
        status: step.status,
        skipped: step.skipped.as_ref(),
        timed_out: timed_out(step),
        checks: step
            .checks
            .iter()
            .map(|c| JsonCheck {
                id: &c.id,
                kind: c.kind,
                title: &c.title,
                status: c.outcome.status,
                summary: &c.outcome.summary,
                hint: super::hint::text(&c.outcome.hints),
                hint_parts: super::hint::worded(&c.outcome.hints, c.kind),
                hint_level: c.outcome.hint_level(),
                diagnosis: c.outcome.diagnosis.as_deref(),
                note: c.outcome.note.as_deref(),
                expected: c.outcome.expected.as_deref(),
                actual: c.outcome.actual.as_deref(),
                detail: c.outcome.detail.as_ref().map(|d| d.text.as_str()),
                detail_shown_under: c
                    .outcome
                    .detail
                    .as_ref()
                    .and_then(|d| d.shown_under.as_ref())
                    .map(|s| s.check.as_str()),
                cause: c.outcome.cause.as_ref().map(|c| c.as_str()),
                timed_out: c.outcome.waited.as_ref().is_some_and(Waited::timed_out),
                wait: c.outcome.waited.as_ref().map(|waited| JsonWait {
                    waited,
                    last_state: c.outcome.observed(),
                }),
            })
            .collect(),
    }
}

fn timed_out(step: &StepReport) -> bool {
    step.checks
        .iter()
        .any(|c| c.outcome.waited.as_ref().is_some_and(Waited::timed_out))
}

/// One step's document as a JSON value (to embed in a larger document, e.g. the demo's).
pub fn step_value(step: &StepReport) -> serde_json::Value {
    serde_json::to_value(step_document(step)).unwrap_or(serde_json::Value::Null)
}

/// One situation of `labcheck demo`'s tour: its story, the step checked, the status the tour
/// expects, and the step documents of the run.
pub fn scenario(
    story: &str,
    step: &str,
    expected: Status,
    reports: &[StepReport],
) -> serde_json::Value {
    serde_json::json!({
        "story": story,
        "step": step,
        "expected": expected,
        "reports": reports.iter().map(step_value).collect::<Vec<_>>(),
    })
}

/// One step as one JSON document; several steps (a module run) as a module document.
pub fn render(steps: &[StepReport], module_run: bool) -> String {
    let text = if let (false, [step]) = (module_run, steps) {
        serde_json::to_string_pretty(&step_document(step))
    } else {
        let first = steps.first();
        serde_json::to_string_pretty(&JsonModule {
            module: first.map(|s| s.module.as_str()).unwrap_or_default(),
            track: first.map(|s| s.track.as_str()).unwrap_or_default(),
            status: Status::fold(steps.iter().map(|s| s.status)),
            timed_out: steps.iter().any(timed_out),
            steps: steps.iter().map(step_document).collect(),
        })
    };
    // Serialising plain strings and enums cannot fail; keep the process alive regardless.
    text.unwrap_or_else(|e| format!("{{\"error\":\"cannot render JSON: {e}\"}}")) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;
    use crate::run::SkipReason;
    use crate::run::fixtures::{check, step};

    #[test]
    fn a_skipped_step_says_why_in_an_added_field_and_other_steps_are_unchanged() {
        let mut fourth = step(
            "step-4",
            "Release",
            vec![check("a", Outcome::skip("replaced"))],
        );
        fourth.skipped = Some(SkipReason::Replaced {
            by: "step-5".to_string(),
        });
        let mut other = step("step-6", "Other", vec![check("b", Outcome::skip("off"))]);
        other.skipped = Some(SkipReason::NotOnTrack {
            track: "kind".to_string(),
        });
        let first = step("step-1", "Health", vec![check("c", Outcome::pass("ok"))]);
        let json: serde_json::Value =
            serde_json::from_str(&render(&[first, fourth, other], true)).expect("JSON");
        let steps = &json["steps"];
        assert_eq!(
            steps[1]["skipped"],
            serde_json::json!({"reason": "replaced", "by": "step-5"})
        );
        assert_eq!(
            steps[2]["skipped"],
            serde_json::json!({"reason": "not-on-track", "track": "kind"})
        );
        assert_eq!(steps[1]["status"], "skip");
        // Backward compatible: a step that was not skipped has no such field at all.
        assert!(steps[0].get("skipped").is_none(), "{json:#}");
        let mut keys: Vec<&str> = steps[0]
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["checks", "module", "status", "step", "title", "track"]
        );
    }
}
