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
    /// The hint, in typed parts: the check's own next action (and whether waiting helps), then
    /// the runner's additions (the course's words at the learner's level, the earlier check to
    /// fix first, the cause table's hint). Data only: `report::hint` words them for each format.
    #[serde(skip_serializing_if = "Vec::is_empty")]
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

/// One part of the hint under a check: what it is and where it came from, never its final
/// words (`report::hint` words each part for each format; `-v` names each source). Its texts are
/// `T`: a learner's own as the checks wrote them, or (in a class view) a text shared by many
/// learners, their own names kept apart as data.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum HintPart<T = String> {
    /// Fix the earlier check `check` first (this one's `after:` gate). `theirs` is that check's
    /// hint when this one's meaning depends on it (the event it waits for did not happen), empty
    /// when the learner finds it above.
    First {
        check: String,
        title: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        theirs: Vec<HintPart<T>>,
    },
    /// The course's words from `file`'s `hint:` (for this cause, or for every cause), at the
    /// learner's level when the course gives several.
    Course {
        text: T,
        file: String,
        key: CourseKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        level: Option<HintLevel>,
    },
    /// The next action the check names from what it saw in this state.
    Check { text: T },
    /// The check's next action is to wait for what is still moving (a sync, a rollout).
    Wait { text: T },
    /// What the check saw will not change by waiting (a crashing pod of a deployed push); `instead`
    /// is what will. Said whatever the course's hint above it says.
    WaitingWillNotFix { instead: T },
    /// The cause table's hint, where neither the course nor the check gave one.
    Cause {
        #[serde(serialize_with = "cause_id")]
        cause: CauseId,
    },
}

/// Which of a check file's `hint:` forms a course part came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "form", content = "cause")]
pub enum CourseKey {
    /// `hint.by_cause.<key>`.
    ByCause(String),
    /// `hint:` as one text (or levels) for every cause.
    Always,
    /// `hint.default` of the keyed form.
    Default,
}

fn cause_id<S: serde::Serializer>(id: &CauseId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(id.id())
}

impl HintPart {
    /// The texts this part carries as the course, the check or the cause table gave them (an
    /// earlier check's included), before any words of a report around them.
    pub fn texts(&self) -> Vec<&str> {
        match self {
            HintPart::First { theirs, .. } => theirs.iter().flat_map(HintPart::texts).collect(),
            HintPart::Course { text, .. } | HintPart::Check { text } | HintPart::Wait { text } => {
                vec![text]
            }
            HintPart::WaitingWillNotFix { instead } => vec![instead],
            HintPart::Cause { cause } => cause.default_hint().into_iter().collect(),
        }
    }

    /// Whether the part gives the learner nothing to go on (a text of only blanks). A `first:`
    /// part always does: it names the check to fix.
    pub fn says_nothing(&self) -> bool {
        !matches!(self, HintPart::First { .. })
            && self.texts().iter().all(|text| text.trim().is_empty())
    }

    /// Whether the check itself gave this part (not the runner, the course or the cause table).
    pub fn is_the_checks(&self) -> bool {
        matches!(
            self,
            HintPart::Check { .. } | HintPart::Wait { .. } | HintPart::WaitingWillNotFix { .. }
        )
    }
}

impl<T> HintPart<T> {
    /// The part with each of its texts as `f` makes it, the rest as it is: a class keeps one
    /// learner's part with their own names apart from the words around them.
    pub fn map_texts<U>(&self, f: &impl Fn(&T) -> U) -> HintPart<U> {
        match self {
            HintPart::First {
                check,
                title,
                theirs,
            } => HintPart::First {
                check: check.clone(),
                title: title.clone(),
                theirs: theirs.iter().map(|p| p.map_texts(f)).collect(),
            },
            HintPart::Course {
                text,
                file,
                key,
                level,
            } => HintPart::Course {
                text: f(text),
                file: file.clone(),
                key: key.clone(),
                level: *level,
            },
            HintPart::Check { text } => HintPart::Check { text: f(text) },
            HintPart::Wait { text } => HintPart::Wait { text: f(text) },
            HintPart::WaitingWillNotFix { instead } => HintPart::WaitingWillNotFix {
                instead: f(instead),
            },
            HintPart::Cause { cause } => HintPart::Cause { cause: *cause },
        }
    }
}

/// Hint `level` of `of` (from 1: a nudge, then where to look, then the exact command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
            hints: Vec::new(),
            diagnosis: None,
            note: None,
            detail: None,
            pending: false,
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

    /// The next action the check names from what it saw (see [`HintPart::Check`]); it takes the
    /// place of any the check named before.
    pub fn with_hint(self, hint: impl Into<String>) -> Self {
        self.with_own_hint(HintPart::Check { text: hint.into() })
    }

    /// The next action is to wait for what is still moving (see [`HintPart::Wait`]); it takes the
    /// place of any the check named before.
    pub fn with_hint_to_wait(self, hint: impl Into<String>) -> Self {
        self.with_own_hint(HintPart::Wait { text: hint.into() })
    }

    fn with_own_hint(mut self, part: HintPart) -> Self {
        self.hints.retain(|p| !p.is_the_checks());
        self.hints.push(part);
        self
    }

    /// What the check saw will not change by waiting: its advice to wait is dropped, and the
    /// hint says so, with what will fix it (see [`HintPart::WaitingWillNotFix`]).
    pub fn waiting_will_not_fix(mut self, instead: impl Into<String>) -> Self {
        self.pending = false;
        self.hints
            .retain(|part| !matches!(part, HintPart::Wait { .. }));
        self.hints.push(HintPart::WaitingWillNotFix {
            instead: instead.into(),
        });
        self
    }

    /// The diagnosis, empty when there is none (what a test of a check reads).
    #[cfg(test)]
    pub fn diagnosis_text(&self) -> &str {
        self.diagnosis.as_deref().unwrap_or_default()
    }

    /// A test's claim that the summary says `text`; a failure shows the whole summary.
    #[cfg(test)]
    #[track_caller]
    pub fn assert_says(&self, text: &str) {
        assert!(
            self.summary.contains(text),
            "the summary does not say {text:?}: {}",
            self.summary
        );
    }

    /// A test's claim that the check's own hint names every one of `texts`; a failure shows the
    /// whole hint.
    #[cfg(test)]
    #[track_caller]
    pub fn assert_hint_names(&self, texts: &[&str]) {
        let hint = self.own_hint().unwrap_or_default();
        for text in texts {
            assert!(
                hint.contains(text),
                "the hint does not name {text:?}: {hint}"
            );
        }
    }

    /// The texts of the parts the check itself gave, one a line (what a test of a check reads).
    pub fn own_hint(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .hints
            .iter()
            .filter_map(|part| match part {
                HintPart::Check { text } | HintPart::Wait { text } => Some(text.as_str()),
                HintPart::WaitingWillNotFix { instead } => Some(instead.as_str()),
                _ => None,
            })
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }

    /// Which of the course's hint levels the hint shows, when the check file gives more than one.
    pub fn hint_level(&self) -> Option<HintLevel> {
        self.hints.iter().find_map(|part| match part {
            HintPart::Course { level, .. } => *level,
            _ => None,
        })
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

    /// A failure still in progress whose next action is to wait for what is still moving
    /// (`wait` says what and how): [`Outcome::still_in_progress`] with
    /// [`Outcome::with_hint_to_wait`].
    pub fn still_moving(self, wait: impl Into<String>) -> Self {
        self.with_hint_to_wait(wait).still_in_progress()
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
    fn a_crashing_pod_takes_back_the_checks_advice_to_wait_but_not_its_other_advice() {
        let instead = "change it in git";
        let cases = [
            // (what the check said, what is left of it once waiting will not fix the failure)
            (
                Outcome::fail("x").with_hint_to_wait("wait: `argocd app wait a`"),
                vec![],
            ),
            (
                Outcome::fail("x").with_hint("look at its conditions"),
                vec!["look at its conditions"],
            ),
            (Outcome::fail("x"), vec![]),
        ];
        for (outcome, kept) in cases {
            let outcome = outcome.still_in_progress().waiting_will_not_fix(instead);
            assert!(!outcome.pending, "{outcome:?}");
            let texts: Vec<&str> = outcome.hints.iter().flat_map(HintPart::texts).collect();
            let mut want = kept.clone();
            want.push(instead);
            assert_eq!(texts, want, "{outcome:?}");
            assert!(matches!(
                outcome.hints.last(),
                Some(HintPart::WaitingWillNotFix { .. })
            ));
        }
    }

    #[test]
    fn a_checks_next_hint_takes_the_place_of_its_earlier_one() {
        let outcome = Outcome::fail("x")
            .with_hint("git push")
            .with_hint_to_wait("wait for the sync");
        assert_eq!(outcome.own_hint().as_deref(), Some("wait for the sync"));
        assert_eq!(outcome.hints.len(), 1);
    }

    #[test]
    fn a_failure_still_moving_is_pending_and_its_next_action_is_to_wait() {
        let outcome = Outcome::fail("x")
            .with_hint("git push")
            .still_moving("wait for the sync");
        assert!(outcome.pending);
        assert!(matches!(
            outcome.hints.as_slice(),
            [HintPart::Wait { text }] if text == "wait for the sync"
        ));
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
