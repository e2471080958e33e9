//! The JSON report. Field names are a contract with CI pipelines: add, never rename. The same
//! types read a report back ([`read`], a bundle's `report.json` for the class page), so what is
//! read is what was written.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::hint::WordedPart;

use crate::checks::CheckKind;
use crate::outcome::{Cause, HintLevel, Outcome, Status, Waited};
use crate::run::{CheckReport, SkipReason, StepReport};

/// One check. Text is borrowed when written and when read (owned where the JSON escapes it);
/// the parts a report read back does not need (how the hint came together, the detail, the
/// wait) are written only.
#[derive(Serialize, Deserialize)]
struct JsonCheck<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    title: Cow<'a, str>,
    status: Status,
    #[serde(borrow)]
    summary: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
    /// The hint in parts (`{kind, text, from}`; kind `first`, `course`, `check` or `cause`), so a
    /// pipeline can tell the course's words from what the check saw and trace each to its source.
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    hint_parts: Vec<WordedPart>,
    /// `{level, of}` when the check file gives hint levels.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    hint_level: Option<HintLevel>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    diagnosis: Option<Cow<'a, str>>,
    /// What the learner should know that does not change the verdict (untracked files the step
    /// leaves alone; one that must stay out of git), on a passing check too.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    note: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    expected: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    actual: Option<Cow<'a, str>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    /// The id of an earlier check of the step whose detail shows the same lines.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    detail_shown_under: Option<&'a str>,
    /// Why it failed or could not check, as a stable id (`not-pushed`, `hook-failed:NAME`).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    cause: Option<Cow<'a, str>>,
    /// labcheck gave up waiting for this check at its limit (it is failed, not done).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    /// How labcheck waited for it, when it did: `{waited, end, because?, last_state}`.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
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

#[derive(Serialize, Deserialize)]
struct JsonStep<'a> {
    #[serde(borrow)]
    module: Cow<'a, str>,
    #[serde(borrow)]
    step: Cow<'a, str>,
    #[serde(borrow)]
    title: Cow<'a, str>,
    #[serde(borrow)]
    track: Cow<'a, str>,
    status: Status,
    /// Why the runner skipped the whole step (`{"reason": "replaced", "by": "step-5"}`,
    /// `{"reason": "not-on-track", "track": "kind"}`, `{"reason": "nothing-to-judge"}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skipped: Option<Cow<'a, SkipReason>>,
    /// Some check of this step timed out while waited for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    #[serde(borrow)]
    checks: Vec<JsonCheck<'a>>,
}

#[derive(Serialize, Deserialize)]
struct JsonModule<'a> {
    #[serde(borrow)]
    module: Cow<'a, str>,
    #[serde(borrow)]
    track: Cow<'a, str>,
    status: Status,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    #[serde(borrow)]
    steps: Vec<JsonStep<'a>>,
}

fn step_document(step: &StepReport) -> JsonStep<'_> {
    JsonStep {
        module: step.module.as_str().into(),
        step: step.step.as_str().into(),
        title: step.title.as_str().into(),
        track: step.track.as_str().into(),
        status: step.status,
        skipped: step.skipped.as_ref().map(Cow::Borrowed),
        timed_out: timed_out(step),
        checks: step
            .checks
            .iter()
            .map(|c| JsonCheck {
                id: c.id.as_str().into(),
                kind: c.kind.into(),
                title: c.title.as_str().into(),
                status: c.outcome.status,
                summary: c.outcome.summary.as_str().into(),
                hint: super::hint::text(&c.outcome.hints),
                hint_parts: super::hint::worded(&c.outcome.hints, c.kind),
                hint_level: c.outcome.hint_level(),
                diagnosis: c.outcome.diagnosis.as_deref().map(Cow::Borrowed),
                note: c.outcome.note.as_deref().map(Cow::Borrowed),
                expected: c.outcome.expected.as_deref().map(Cow::Borrowed),
                actual: c.outcome.actual.as_deref().map(Cow::Borrowed),
                detail: c.outcome.detail.as_ref().map(|d| d.text.as_str()),
                detail_shown_under: c
                    .outcome
                    .detail
                    .as_ref()
                    .and_then(|d| d.shown_under.as_ref())
                    .map(|s| s.check.as_str()),
                cause: c.outcome.cause.as_ref().map(|c| Cow::Borrowed(c.as_str())),
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
            module: first.map(|s| s.module.as_str()).unwrap_or_default().into(),
            track: first.map(|s| s.track.as_str()).unwrap_or_default().into(),
            status: Status::fold(steps.iter().map(|s| s.status)),
            timed_out: steps.iter().any(timed_out),
            steps: steps.iter().map(step_document).collect(),
        })
    };
    // Serialising plain strings and enums cannot fail; keep the process alive regardless.
    text.unwrap_or_else(|e| format!("{{\"error\":\"cannot render JSON: {e}\"}}")) + "\n"
}

/// A JSON report read back (a bundle's `report.json`): the steps of a module document, or the
/// one step of a step document, as the runner's reports, with what the document says of each
/// step and check: status, why skipped, summary, hint (as worded), diagnosis, note, expected,
/// actual and cause. Fields this labcheck does not know are passed over (a newer writer adds
/// fields, never renames them).
pub fn read(text: &[u8]) -> Result<Vec<StepReport>, serde_json::Error> {
    /// A module document has `steps`; a step document is one step.
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Document<'a> {
        Module(#[serde(borrow)] JsonModule<'a>),
        Step(#[serde(borrow)] JsonStep<'a>),
    }
    Ok(match serde_json::from_slice(text)? {
        Document::Module(module) => module.steps.into_iter().map(step_report).collect(),
        Document::Step(step) => vec![step_report(step)],
    })
}

/// A step document as the report it was written from.
fn step_report(doc: JsonStep<'_>) -> StepReport {
    let checks = doc.checks.into_iter().map(check_report).collect();
    let mut report = StepReport::new(doc.module, doc.step, doc.title, doc.track, checks);
    // The document's own verdicts stand, as the learner saw them.
    report.status = doc.status;
    report.skipped = doc.skipped.map(Cow::into_owned);
    report
}

/// A check document as the report it was written from. A kind this labcheck does not know
/// (a newer one's) reads as the runner's own `sequence`: its verdict and words are kept.
fn check_report(doc: JsonCheck<'_>) -> CheckReport {
    // The hint as the learner saw it, already worded: one part that reads as written.
    let mut outcome = Outcome::with_status(doc.status, doc.summary);
    if let Some(hint) = doc.hint {
        outcome = outcome.with_hint(hint);
    }
    outcome.diagnosis = doc.diagnosis.map(Cow::into_owned);
    outcome.note = doc.note.map(Cow::into_owned);
    outcome.expected = doc.expected.map(Cow::into_owned);
    outcome.actual = doc.actual.map(Cow::into_owned);
    outcome.cause = doc.cause.as_deref().and_then(Cause::parse);
    let kind = CheckKind::NAMES
        .iter()
        .copied()
        .find(|k| *k == doc.kind)
        .unwrap_or("sequence");
    CheckReport::new(doc.id, kind, doc.title, outcome)
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

    /// What a report read back says of each check, to compare with what was written.
    fn said(steps: &[StepReport]) -> Vec<String> {
        steps
            .iter()
            .flat_map(|s| {
                s.checks.iter().map(move |c| {
                    format!(
                        "{} {} {:?} {:?} | {} {} {} {:?} | {:?} {:?} {:?} {:?} {:?}",
                        s.step,
                        s.title,
                        s.status,
                        s.skipped,
                        c.id,
                        c.kind,
                        c.title,
                        c.outcome.status,
                        c.outcome.summary,
                        crate::report::hint::text(&c.outcome.hints),
                        c.outcome.diagnosis,
                        c.outcome.expected,
                        c.outcome.cause.as_ref().map(|c| c.as_str().to_string()),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn a_report_read_back_says_what_was_written_for_a_step_and_for_a_module() {
        use crate::outcome::{Cause, CauseId};
        let failing = Outcome::fail("the \"checkout\" sync\nfailed at C:\\path")
            .with_hint("push `migration.fail: false`")
            .with_diagnosis("hook checkout-migrate failed")
            .with_expected("Synced")
            .with_cause(Cause::about(CauseId::HookResult, "checkout-migrate"));
        let unreachable = Outcome::could_not_check("cannot reach the Kubernetes API")
            .with_cause(Cause::new(CauseId::ClusterUnreachable));
        let mut fourth = step(
            "step-4",
            "Release «v2»",
            vec![check("synced", failing), check("reached", unreachable)],
        );
        fourth.status = Status::Fail;
        let mut fifth = step(
            "step-5",
            "Revert",
            vec![check("a", Outcome::skip("replaced"))],
        );
        fifth.skipped = Some(SkipReason::Replaced {
            by: "break-it/break".to_string(),
        });
        let cases: [(&str, Vec<StepReport>, bool); 3] = [
            ("one step, its own document", vec![fourth.clone()], false),
            (
                "a module document",
                vec![fourth.clone(), fifth.clone()],
                true,
            ),
            ("an exercise of one step asked for", vec![fifth], true),
        ];
        for (name, steps, module_run) in cases {
            let written = render(&steps, module_run);
            let read = read(written.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(said(&read), said(&steps), "{name}");
            // Read again and written again, the document is the same.
            assert_eq!(render(&read, module_run), written, "{name}");
        }
    }

    #[test]
    fn a_report_from_a_newer_labcheck_keeps_its_verdicts_and_a_broken_one_is_an_error() {
        let newer = br#"{"module":"module-10","step":"step-4","title":"Release","track":"kind",
            "status":"fail","added_later":{"x":1},"checks":[{"id":"a","kind":"a-kind-to-come",
            "title":"T","status":"fail","summary":"s","cause":"not-pushed","also_new":true}]}"#;
        let got = read(newer).expect("a newer step document");
        let check = &got[0].checks[0];
        assert_eq!(
            (check.kind, check.outcome.status, got[0].status),
            ("sequence", Status::Fail, Status::Fail)
        );
        assert_eq!(
            check.outcome.cause.as_ref().map(|c| c.as_str()),
            Some("not-pushed")
        );
        for broken in [&b"{"[..], b"[]", br#"{"module":"m"}"#, b"not json"] {
            assert!(read(broken).is_err(), "{}", String::from_utf8_lossy(broken));
        }
    }
}
