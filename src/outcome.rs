//! What a check found: data only. Reporters turn it into text, JSON or JUnit.

use serde::{Deserialize, Serialize};

/// The verdict of one check (and, folded, of a step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The thing the course asked for is there.
    Pass,
    /// Not on the learner's track, or not applicable this run.
    Skip,
    /// Could not check: the environment kept labcheck from looking (never a pass, never a fail).
    Error,
    /// The thing the course asked for is not there.
    Fail,
}

impl Status {
    /// Fold the statuses of a step's checks: any fail → fail, else any error → error, else pass.
    /// A step whose every check was skipped (none on this track) is skipped, not passed: nothing
    /// was looked at.
    pub fn fold(statuses: impl IntoIterator<Item = Status>) -> Status {
        let mut folded = Status::Pass;
        let mut seen_any = false;
        let mut all_skipped = true;
        for status in statuses {
            seen_any = true;
            all_skipped &= status == Status::Skip;
            folded = match (folded, status) {
                (_, Status::Fail) | (Status::Fail, _) => Status::Fail,
                (_, Status::Error) | (Status::Error, _) => Status::Error,
                _ => Status::Pass,
            };
        }
        if seen_any && all_skipped {
            Status::Skip
        } else {
            folded
        }
    }

    /// The word used in every report.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Skip => "skip",
            Status::Error => "error",
            Status::Fail => "fail",
        }
    }
}

/// What kind of text a detail holds, so a reporter knows how to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DetailKind {
    /// A unified diff, reference (`-`) against the learner's file (`+`).
    Diff,
    /// The last lines of a log.
    Log,
    /// Anything else worth showing verbatim.
    Text,
}

/// A longer piece of evidence shown under a check (a diff, a log tail).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Detail {
    pub kind: DetailKind,
    pub text: String,
    /// An earlier check of the same step already shows these very lines: the human report
    /// points there instead of printing them twice (machine reports keep the text as well).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown_under: Option<ShownUnder>,
}

/// The check whose detail already shows the same lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownUnder {
    /// Its id in the step.
    pub check: String,
    /// Its title, as the course words it.
    pub title: String,
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub status: Status,
    /// One line: what labcheck saw.
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The next concrete action a check names from what it saw in this state. The runner moves
    /// it into [`Outcome::hints`]; read the whole hint with [`Outcome::hint_text`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The hint in parts, each with where it came from, as the runner put it together: reporters
    /// render these (`-v` names each source).
    #[serde(skip_serializing_if = "Vec::is_empty", rename = "hint_parts")]
    pub hints: Vec<HintPart>,
    /// Why, from what was observed (e.g. which hook failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<String>,
    /// Something the learner should know that does not change the verdict (a pass included):
    /// files git does not track that the step leaves alone, one that must stay out of git.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
    /// The cluster is still moving towards (or away from) the expected state: a sync or Job is
    /// running. The runner may wait for such a failure; a definitive one ends at once.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Which of the check file's hint levels `hint` is, when it gives more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint_level: Option<HintLevel>,
    /// Why a check failed or could not check, as a stable id (`not-pushed`,
    /// `hook-failed:checkout-migrate`), set where the check decides. A class groups learners by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// How the runner waited for this outcome; set only for a check it could wait for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waited: Option<Waited>,
}

/// How a wait for one check went: how long, and why it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Waited {
    /// From the start of the step's run to the last look at this check.
    #[serde(serialize_with = "seconds", rename = "waited_s")]
    pub waited: std::time::Duration,
    #[serde(flatten)]
    pub end: WaitEnd,
}

/// Why the runner stopped waiting for a check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "end", content = "because")]
pub enum WaitEnd {
    /// The check got there (it passed, or could no longer be checked) while waited for.
    Reached,
    /// The limit passed with the failure still in progress: labcheck gave up.
    TimedOut,
    /// The failure is final: waiting cannot change it (the reason says why).
    Final(String),
}

impl Waited {
    /// Whether labcheck gave up on this check at its limit.
    pub fn timed_out(&self) -> bool {
        self.end == WaitEnd::TimedOut
    }
}

fn seconds<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 10.0).round() / 10.0)
}

pub use crate::causes::{Cause, CauseId};

/// One part of the hint under a check, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HintPart {
    pub kind: HintKind,
    pub text: String,
    /// Where it came from, for `-v`: the course file and key, the check kind, the cause table,
    /// or the check the gate waits for.
    pub from: String,
}

/// What a hint part is, so each reporter can word it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HintKind {
    /// Fix an earlier check first (its `after:` gate): the text names that check, and its hint
    /// when this one's meaning depends on it.
    First,
    /// The course's words (for this cause, or for every cause).
    Course,
    /// What the check saw in this state: the next action it names.
    Check,
    /// The cause table's hint, where neither the course nor the check gave one.
    Cause,
}

/// Hint `level` of `of` (from 1: a nudge, then where to look, then the exact command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HintLevel {
    pub level: usize,
    pub of: usize,
}

impl Outcome {
    fn new(status: Status, summary: impl Into<String>) -> Self {
        Outcome {
            status,
            summary: summary.into(),
            expected: None,
            actual: None,
            hint: None,
            hints: Vec::new(),
            diagnosis: None,
            note: None,
            detail: None,
            pending: false,
            hint_level: None,
            cause: None,
            waited: None,
        }
    }

    /// The check holds.
    pub fn pass(summary: impl Into<String>) -> Self {
        Self::new(Status::Pass, summary)
    }

    /// The check does not hold.
    pub fn fail(summary: impl Into<String>) -> Self {
        Self::new(Status::Fail, summary)
    }

    /// The check could not be made; `summary` says why.
    pub fn could_not_check(summary: impl Into<String>) -> Self {
        Self::new(Status::Error, summary)
    }

    /// The check does not apply.
    pub fn skip(summary: impl Into<String>) -> Self {
        Self::new(Status::Skip, summary)
    }

    /// An outcome of `status` (a report read back says which).
    pub fn with_status(status: Status, summary: impl Into<String>) -> Self {
        Self::new(status, summary)
    }

    pub fn with_expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    pub fn with_actual(mut self, actual: impl Into<String>) -> Self {
        self.actual = Some(actual.into());
        self
    }

    /// A cause-specific hint; it wins over the check file's generic hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Why this check failed or could not check, as a stable id (see [`Cause`]).
    pub fn with_cause(mut self, cause: Cause) -> Self {
        self.cause = Some(cause);
        self
    }

    pub fn with_diagnosis(mut self, diagnosis: impl Into<String>) -> Self {
        self.diagnosis = Some(diagnosis.into());
        self
    }

    /// A note shown under the check whatever its status (see [`Outcome::note`]).
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// Mark a failure as "still in progress" (see [`Outcome::pending`]).
    pub fn still_in_progress(mut self) -> Self {
        self.pending = true;
        self
    }

    /// Whether waiting may still change this failure: the check says it is in progress, and its
    /// cause (if it has one) is one the cause table says waiting can fix.
    pub fn may_change_by_waiting(&self) -> bool {
        self.pending
            && self
                .cause
                .as_ref()
                .is_none_or(|c| c.id().waiting() == crate::causes::Waiting::MayFix)
    }

    /// The whole hint as plain text, the way every report words it: each part on its own line,
    /// a `first:` part as `first: …` with what follows it as `; then: …`. Before the runner put
    /// the parts together (or for an outcome it never saw), the check's own hint.
    pub fn hint_text(&self) -> Option<String> {
        if self.hints.is_empty() {
            return self.hint.clone();
        }
        // Every kind named, so a new kind of part is worded here before it compiles.
        let mut first = Vec::new();
        let mut then = Vec::new();
        for part in &self.hints {
            match part.kind {
                HintKind::First => first.push(part.text.as_str()),
                HintKind::Course | HintKind::Check | HintKind::Cause => {
                    then.push(part.text.as_str())
                }
            }
        }
        let then = then.join("\n");
        Some(match (first.is_empty(), then.is_empty()) {
            (true, _) => then,
            (false, true) => format!("first: {}", first.join("; ")),
            (false, false) => format!("first: {}; then: {then}", first.join("; ")),
        })
    }

    /// The state this outcome shows in one short phrase, for progress lines and a timeout
    /// message: what the check saw (`actual`) when it says, else its summary.
    pub fn observed(&self) -> &str {
        self.actual.as_deref().unwrap_or(&self.summary)
    }

    pub fn with_detail(mut self, kind: DetailKind, text: impl Into<String>) -> Self {
        self.detail = Some(Detail {
            kind,
            text: text.into(),
            shown_under: None,
        });
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_failure_in_progress_with_a_cause_waiting_can_fix_is_worth_waiting_for() {
        let cases = [
            (Outcome::fail("x").still_in_progress(), true),
            (
                Outcome::fail("x")
                    .with_cause(CauseId::NotSeenYet.cause())
                    .still_in_progress(),
                true,
            ),
            (
                Outcome::fail("x")
                    .with_cause(Cause::about(CauseId::PodStuck, "CrashLoopBackOff"))
                    .still_in_progress(),
                false,
            ),
            (
                Outcome::fail("x").with_cause(CauseId::NotSeenYet.cause()),
                false,
            ),
        ];
        for (outcome, worth) in cases {
            assert_eq!(outcome.may_change_by_waiting(), worth, "{outcome:?}");
        }
    }

    #[test]
    fn a_failure_outweighs_an_unreachable_cluster() {
        assert_eq!(
            Status::fold([Status::Pass, Status::Error, Status::Fail]),
            Status::Fail
        );
    }

    #[test]
    fn could_not_check_is_never_folded_into_a_pass() {
        assert_eq!(
            Status::fold([Status::Pass, Status::Error, Status::Skip]),
            Status::Error
        );
        assert_eq!(Status::fold([Status::Pass, Status::Skip]), Status::Pass);
        assert_eq!(Status::fold([Status::Skip, Status::Skip]), Status::Skip);
    }
}
