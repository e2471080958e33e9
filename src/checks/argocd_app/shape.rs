//! The gate of the kind of operation (`checks::operation::Shape`): what an apply-strategy sync, a
//! selective sync or self-heal, a dry run or a local sync means for a check of the last sync;
//! and an operation of another revision than the push (auto-sync pending, an older sync retrying).

use std::ops::ControlFlow;

use crate::checks::cluster_common::short;
use crate::checks::operation::{Recorded, Shape, recorded_sync_of_target};
use crate::checks::revisions::RevisionView;
use crate::outcome::{Cause, CauseId, Outcome};

use super::verdict::{Gate, Verdict};

/// The sync phases only hooks run in: an entry asked for in one of them is a hook.
const HOOK_PHASES: &[&str] = &["PreSync", "PostSync", "SyncFail"];

impl super::ArgocdAppSpec {
    /// Whether the check asks for something only a hook can give.
    pub(super) fn asks_for_a_hook(&self) -> Option<String> {
        if let Some(hook) = &self.hook {
            return Some(format!("{} {}", hook.kind, hook.name));
        }
        self.order
            .iter()
            .find(|e| e.phase.as_deref().is_some_and(|p| HOOK_PHASES.contains(&p)))
            .map(|e| format!("{} {}", e.kind, e.name))
    }
}

impl Verdict<'_> {
    /// Gate: the kind of the last operation.
    pub(super) fn operation_shape(&mut self) -> Gate {
        let Some(shape) = Shape::of(self.app) else {
            return ControlFlow::Continue(());
        };
        let name = self.name;
        match shape {
            Shape::Full => ControlFlow::Continue(()),
            Shape::Local => ControlFlow::Break(
                Outcome::fail(format!(
                    "the last sync of {name} was {}: it says nothing about your commit",
                    shape.what()
                ))
                .with_expected("a sync of the commit in git")
                .with_actual(shape.word())
                .with_hint(format!("sync from git: `argocd app sync {name}`"))
                .with_cause(Cause::new(CauseId::LocalSync)),
            ),
            Shape::ApplyOnly => match self.spec.asks_for_a_hook() {
                // The hooks did not run in it (`controller/sync.go:386`): a fail, not "cannot tell".
                Some(hook) => ControlFlow::Break(
                    Outcome::fail(format!(
                        "the last sync of {name} was {}: {hook} did not run in it",
                        shape.what()
                    ))
                    .with_expected(format!("{hook} run by the sync"))
                    .with_actual("no hooks ran")
                    .with_hint(format!(
                        "run a normal sync, which runs the hooks: `argocd app sync {name}` (without `--strategy apply`)"
                    ))
                    .with_cause(Cause::new(CauseId::ApplyStrategySync)),
                ),
                None => {
                    self.seen.push("apply strategy, no hooks ran".to_string());
                    ControlFlow::Continue(())
                }
            },
            Shape::Selective { .. } | Shape::DryRun => self.record_replaced(shape),
        }
    }

    /// A selective sync (or self-heal) or a dry run replaced the result of the last full sync;
    /// `status.history` still says whether a full sync of the target succeeded (only those are
    /// written, `controller/sync.go:483`), never what a failed one did.
    fn record_replaced(&mut self, shape: Shape) -> Gate {
        let name = self.name;
        let target = RevisionView::compared(self.app).shown();
        let target = target.split(", ").map(short).collect::<Vec<_>>().join(", ");
        let recorded = recorded_sync_of_target(self.app);
        if !self.spec.phase.is_empty() {
            let succeeded_wanted = self.spec.phase.iter().any(|p| p == "Succeeded");
            match (recorded, succeeded_wanted) {
                (Recorded::Synced(entry), true) => {
                    self.seen.push(format!(
                        "the sync of {target} started {} Succeeded (history; the last operation is {})",
                        entry.deploy_started_at.as_deref().unwrap_or("?"),
                        shape.word()
                    ));
                    // The gates after this read the last operation, which is not that sync.
                    self.phase_from_history = true;
                    return self.record_gone(shape, recorded, &target, true);
                }
                (Recorded::Synced(entry), false) => {
                    return ControlFlow::Break(
                        Outcome::fail(format!(
                            "the sync of {target} succeeded (history: started {}), expected {}",
                            entry.deploy_started_at.as_deref().unwrap_or("?"),
                            self.spec.phase.join(" or ")
                        ))
                        .with_expected(self.spec.phase.join(" or "))
                        .with_actual("Succeeded")
                        .with_diagnosis(format!("the last operation since is {}", shape.what()))
                        .with_cause(Cause::about(CauseId::SyncPhase, "Succeeded")),
                    );
                }
                (Recorded::Never, true) => {
                    return ControlFlow::Break(
                        Outcome::fail(format!(
                            "no sync of {target} has succeeded: the last operation of {name} was {}",
                            shape.what()
                        ))
                        .with_expected(format!("a successful sync of {target}"))
                        .with_actual(shape.word())
                        .with_hint(shape.full_sync_hint(name))
                        .with_cause(Cause::new(cause_of(shape))),
                    );
                }
                _ => return self.record_gone(shape, recorded, &target, false),
            }
        }
        self.record_gone(shape, recorded, &target, false)
    }

    /// A hook, order or message check (or a phase check history cannot settle) after an operation
    /// that replaced the full sync's result.
    fn record_gone(
        &self,
        shape: Shape,
        recorded: Recorded,
        target: &str,
        phase_settled: bool,
    ) -> Gate {
        let name = self.name;
        let reads_result =
            self.spec.hook.is_some() || !self.spec.order.is_empty() || self.spec.message.is_some();
        if phase_settled && !reads_result {
            return ControlFlow::Continue(());
        }
        let namespace = self
            .app
            .spec
            .destination
            .namespace
            .as_deref()
            .unwrap_or("<namespace>");
        let what = shape.what();
        let outcome = match (recorded, shape) {
            // History is written for every successful full sync (`controller/sync.go:483`) and
            // is not full: no sync of the target succeeded, a self-heal's attempt included.
            (Recorded::Never, _) => Outcome::fail(format!(
                "the last operation of {name} was {what}, and no sync of {target} has succeeded"
            ))
            .with_hint(shape.full_sync_hint(name))
            .with_diagnosis(
                "Argo CD keeps the result of the last operation only, and a failed sync leaves no history entry: if a sync failed before it, its result is gone",
            )
            .with_cause(Cause::new(cause_of(shape))),
            // Every read succeeded: what this check asks about is what the last operation did,
            // and it did none of it. A fail naming it, never "could not check".
            (Recorded::Synced(entry), _) => Outcome::fail(format!(
                "the last operation of {name} was {what}; it replaced the result of the sync of {target} (started {}, succeeded), so the hooks it ran and their order are no longer recorded",
                entry.deploy_started_at.as_deref().unwrap_or("?")
            ))
            .with_hint(format!(
                "{}; it records the hooks and their order again (the hook Jobs of the earlier sync: `kubectl -n {namespace} get jobs`)",
                shape.full_sync_hint(name)
            ))
            .with_cause(Cause::new(cause_of(shape))),
            (Recorded::MaybeTrimmed { limit }, _) => Outcome::could_not_check(format!(
                "the last operation of {name} was {what}, and the history (it keeps {limit} syncs) holds no sync of {target}: it may have fallen out"
            ))
            .with_hint(format!("the hook Jobs still tell (`kubectl -n {namespace} get jobs`)"))
            .with_cause(Cause::new(CauseId::HistoryTrimmed)),
        };
        ControlFlow::Break(outcome)
    }
}

/// The cause of an operation that replaced the full sync's record.
fn cause_of(shape: Shape) -> CauseId {
    match shape {
        Shape::DryRun => CauseId::DryRun,
        _ => CauseId::SelectiveSync,
    }
}
