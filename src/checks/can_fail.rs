//! The causes a check can fail with, for its settings: each kind declares them (`KindReads::
//! can_fail`), so `course lint` can tell, per check, which causes the course's hint serves and
//! which get no hint at all, and the runner can hold every failure to the declaration (debug
//! builds refuse a failure with a cause its kind did not declare).

use crate::causes::{Cause, CauseId};

/// One cause a check can fail with, and whether the kind names the next action itself in every
/// state with that cause (its own hint), so the course need not.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CanFail {
    pub id: CauseId,
    /// The object the cause is about, when the check's settings name it (`hook-result:NAME`);
    /// `None`: any object, or a cause about none.
    pub object: Option<String>,
    /// The kind gives a hint of its own in every state with this cause.
    pub hinted: bool,
}

impl CanFail {
    /// The cause as a course file keys it (`sync-phase:Failed`, `not-pushed`).
    pub fn key(&self) -> String {
        match &self.object {
            Some(object) => format!("{}:{object}", self.id.id()),
            None => self.id.id().to_string(),
        }
    }

    /// Whether `cause`, as a check gave it, is this one.
    pub fn matches(&self, cause: &Cause) -> bool {
        cause.is_about(self.id, self.object.as_deref())
    }

    /// Whether labcheck has a hint for this cause whatever the course says: the kind's own, or
    /// the cause table's.
    pub fn has_labchecks_hint(&self) -> bool {
        self.hinted || self.id.default_hint().is_some()
    }
}

/// The causes one check can fail with, built by its kind from its settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Causes(Vec<CanFail>);

impl Causes {
    /// None yet.
    pub fn new() -> Self {
        Causes::default()
    }

    /// A cause with no object (or any), for which the kind always gives its own hint.
    pub fn hinted(mut self, id: CauseId) -> Self {
        self.push(id, None, true);
        self
    }

    /// A cause with no object (or any), for which the kind does not always give a hint.
    pub fn silent(mut self, id: CauseId) -> Self {
        self.push(id, None, false);
        self
    }

    /// A cause about `object`, hinted or not.
    pub fn about(mut self, id: CauseId, object: impl Into<String>, hinted: bool) -> Self {
        self.push(id, Some(object.into()), hinted);
        self
    }

    /// Each of `ids`, hinted or not.
    pub fn all(mut self, ids: &[CauseId], hinted: bool) -> Self {
        for id in ids {
            self.push(*id, None, hinted);
        }
        self
    }

    /// These causes too.
    pub fn and(mut self, more: Causes) -> Self {
        for can in more.0 {
            self.push(can.id, can.object, can.hinted);
        }
        self
    }

    /// Add one; a cause declared twice is hinted only if both say so.
    fn push(&mut self, id: CauseId, object: Option<String>, hinted: bool) {
        match self.0.iter_mut().find(|c| c.id == id && c.object == object) {
            Some(existing) => existing.hinted &= hinted,
            None => self.0.push(CanFail { id, object, hinted }),
        }
    }

    /// Every cause, in the table's order.
    pub fn list(&self) -> Vec<&CanFail> {
        let mut list: Vec<&CanFail> = self.0.iter().collect();
        list.sort();
        list
    }

    /// The declared cause `cause` is, if any.
    pub fn find(&self, cause: &Cause) -> Option<&CanFail> {
        // An entry about this very object first: it may differ in `hinted` from "any object".
        self.0
            .iter()
            .find(|c| c.object.is_some() && c.matches(cause))
            .or_else(|| self.0.iter().find(|c| c.matches(cause)))
    }

    /// Whether a failure a check returned keeps to the declaration: its cause (or `failed`, for
    /// one with none) is declared, and a cause declared hinted came with a hint. The message says
    /// what does not.
    pub fn admits(&self, cause: Option<&Cause>, has_hint: bool) -> Result<(), String> {
        let cause = cause.cloned().unwrap_or_else(|| CauseId::Failed.cause());
        match self.find(&cause) {
            None => Err(format!(
                "failed with `{cause}`, which its kind does not declare (declared: {})",
                self.0
                    .iter()
                    .map(CanFail::key)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Some(can) if can.hinted && !has_hint => Err(format!(
                "failed with `{cause}` and no hint of its own, though its kind declares one for it"
            )),
            Some(_) => Ok(()),
        }
    }
}

/// What the sync binding of a hook Job (`checks::sync_binding`) can fail with: the Job is not of
/// the sync the step asks about, for a reason it names with its own hint where it can.
pub fn sync_binding(job: &str) -> Causes {
    Causes::new()
        .all(
            &[
                CauseId::Retrying,
                CauseId::OperationTerminated,
                CauseId::OperationTimedOut,
                CauseId::LocalSync,
                CauseId::NoSync,
                CauseId::ApplyStrategySync,
                // A Job missing after an operation that runs no hooks names it (issue 40).
                CauseId::DryRun,
                CauseId::SelectiveSync,
            ],
            true,
        )
        .about(CauseId::JobFromEarlierSync, job, true)
        // A hook the API server refused: never created, never ran (issue 40).
        .about(CauseId::HookRefused, job, true)
        .about(CauseId::JobNotAHookOfSync, job, false)
}

/// What reading an Application by name can fail with (`cluster_common::app_not_found`).
pub fn app_lookup(app: &str) -> Causes {
    Causes::new()
        .about(CauseId::AppMissing, app, true)
        .hinted(CauseId::AppInOtherNamespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_keeps_to_its_kinds_declaration_or_says_how_not() {
        let declared = Causes::new()
            .hinted(CauseId::NotPushed)
            .about(CauseId::HookResult, "checkout-migrate", false)
            .silent(CauseId::SyncPhase);
        let cases: &[(Option<Cause>, bool, Option<&str>)] = &[
            (Some(CauseId::NotPushed.cause()), true, None),
            (
                Some(CauseId::NotPushed.cause()),
                false,
                Some("no hint of its own"),
            ),
            (
                Some(Cause::about(CauseId::HookResult, "checkout-migrate")),
                false,
                None,
            ),
            (
                Some(Cause::about(CauseId::HookResult, "other")),
                false,
                Some("does not declare"),
            ),
            (
                Some(Cause::about(CauseId::SyncPhase, "Failed")),
                false,
                None,
            ),
            (None, true, Some("`failed`")),
        ];
        for (cause, hinted, refused) in cases {
            let verdict = declared.admits(cause.as_ref(), *hinted);
            match refused {
                None => assert_eq!(verdict, Ok(()), "{cause:?}"),
                Some(words) => assert!(
                    verdict.as_ref().is_err_and(|e| e.contains(words)),
                    "{cause:?}: {verdict:?}"
                ),
            }
        }
    }

    #[test]
    fn a_cause_declared_twice_is_hinted_only_if_both_say_so() {
        let both = Causes::new()
            .hinted(CauseId::NotPushed)
            .silent(CauseId::NotPushed);
        assert_eq!(both.list().len(), 1);
        assert!(!both.list()[0].hinted);
    }
}
