//! The gates of the last operation itself: that there is one, its phase, its message, a hook it
//! ran and the order it applied things in (`syncResult.resources` is in execution order, facts a2).

use std::ops::ControlFlow;

use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::ResourceResult;

use super::ArgocdAppSpec;
use super::verdict::{Gate, Verdict, running_hint};

fn entry_matches(entry: &ResourceResult, kind: &str, name: &str, phase: Option<&str>) -> bool {
    entry.kind.eq_ignore_ascii_case(kind)
        && entry.name == name
        && phase.is_none_or(|p| {
            entry.sync_phase.as_deref() == Some(p) || entry.hook_type.as_deref() == Some(p)
        })
}

/// `Pruned` (deleted) or `PruneSkipped` (left live, `ignored (requires pruning)`): an object that
/// is no longer in git, whatever its kind.
fn is_pruned(entry: &ResourceResult) -> bool {
    matches!(entry.status.as_deref(), Some("Pruned" | "PruneSkipped"))
}

fn describe_entry(kind: &str, name: &str, phase: Option<&str>) -> String {
    match phase {
        Some(p) => format!("{kind} {name} ({p})"),
        None => format!("{kind} {name}"),
    }
}

impl Verdict<'_> {
    fn op_phase(&self) -> Option<&str> {
        self.op.and_then(|o| o.phase.as_deref())
    }

    /// Gate: a check about the last operation needs one.
    pub(super) fn operation_exists(&self) -> Gate {
        if !self.spec.asks_about_operation() || self.op.is_some() {
            return ControlFlow::Continue(());
        }
        let name = self.name;
        ControlFlow::Break(
            Outcome::fail(format!(
                "no sync of {name} has run yet, so there is no operation to read"
            ))
            .with_hint(format!("start one: `argocd app sync {name}`"))
            .with_cause(Cause::new(CauseId::NoSync)),
        )
    }

    /// Gate: `phase:` — the last operation's phase.
    pub(super) fn phase(&mut self) -> Gate {
        let wanted = &self.spec.phase;
        if wanted.is_empty() || self.phase_from_history {
            return ControlFlow::Continue(());
        }
        let now = self.op_phase().unwrap_or("none");
        if wanted.iter().any(|p| p == now) {
            self.seen.push(format!("last sync {now}"));
            return ControlFlow::Continue(());
        }
        let outcome = Outcome::fail(format!(
            "the last sync of {} is {now}, expected {}",
            self.name,
            wanted.join(" or ")
        ))
        .with_expected(wanted.join(" or "))
        .with_actual(now)
        .with_cause(Cause::about(CauseId::SyncPhase, now));
        ControlFlow::Break(self.with_story(if self.running {
            outcome.still_moving(running_hint(self.name))
        } else {
            outcome
        }))
    }

    /// Gate: `message:` — the last operation's message.
    pub(super) fn message(&mut self) -> Gate {
        let Some(re) = &self.spec.message else {
            return ControlFlow::Continue(());
        };
        let message = self.op.and_then(|o| o.message.as_deref()).unwrap_or("");
        if re.is_match(message) {
            self.seen.push(format!("message \"{message}\""));
            return ControlFlow::Continue(());
        }
        let mut outcome = Outcome::fail(format!(
            "the last sync's message does not match /{}/",
            re.as_str()
        ))
        .with_expected(format!("a message matching /{}/", re.as_str()))
        .with_actual(message)
        .with_cause(Cause::new(CauseId::SyncMessage));
        if self.running {
            outcome = outcome.still_in_progress();
        }
        ControlFlow::Break(self.with_story(outcome))
    }

    /// Gate: `hook:` — the last sync ran this hook, and it ended as asked.
    pub(super) fn hook(&mut self) -> Gate {
        let Some(hook) = &self.spec.hook else {
            return ControlFlow::Continue(());
        };
        let name = self.name;
        let op_phase = self.op_phase();
        let phase = hook.phase.as_deref();
        let wanted = describe_entry(&hook.kind, &hook.name, phase);
        let entries = self.app.sync_results();
        let Some(entry) = entries
            .iter()
            .find(|e| entry_matches(e, &hook.kind, &hook.name, phase))
        else {
            let outcome = Outcome::fail(format!("the last sync of {name} did not run {wanted}"))
                .with_expected(format!("{wanted} in the last sync"))
                .with_actual(format!("not among its {} entries", entries.len()))
                .with_cause(Cause::about(CauseId::HookNotRun, &hook.name));
            return ControlFlow::Break(self.with_story(if self.running {
                outcome.still_moving(running_hint(name))
            } else if phase == Some("SyncFail") && matches!(op_phase, Some("Failed" | "Error")) {
                // The sync did fail and still ran no SyncFail hook: syncing again runs none either.
                outcome
                    .with_cause(Cause::about(CauseId::SyncfailHookMissing, &hook.name))
                    .with_hint(format!(
                        "the sync failed and ran no SyncFail hook, so running it again will not either: check that the chart renders the Job {} with the annotation `argocd.argoproj.io/hook: SyncFail` (and that it is switched on in the values){}",
                        hook.name,
                        if op_phase == Some("Error") {
                            "; a sync that ends in Error (a hook failed in a wave, Argo CD v3.4+) runs no SyncFail hook at all"
                        } else {
                            ""
                        }
                    ))
            } else {
                outcome.with_hint(format!(
                    "check the hook is switched on, then sync: `argocd app sync {name}`"
                ))
            }));
        };
        let result = entry.hook_phase.as_deref().unwrap_or("none");
        let message = entry.message.as_deref().unwrap_or("");
        if let Some(want) = &hook.result
            && result != want
        {
            let mut outcome = Outcome::fail(format!(
                "{wanted} ended {result} in the last sync, expected {want}"
            ))
            .with_expected(want.clone())
            .with_actual(format!("{result}: {message}"))
            .with_cause(Cause::about(CauseId::HookResult, &hook.name));
            if result == "Running" && self.running {
                outcome = outcome.still_in_progress();
            }
            return ControlFlow::Break(self.with_story(outcome));
        }
        self.seen.push(format!("{wanted} {result}: {message}"));
        ControlFlow::Continue(())
    }

    /// An entry the last sync did not apply because it ran with `ApplyOutOfSyncOnly=true`, which
    /// skips every resource already Synced. The controller reads the option from the operation
    /// only (`controller/sync.go:401`); the API server and auto-sync copy the Application's
    /// `syncPolicy.syncOptions` into it unless the request names options
    /// (`server/application/application.go:2143-2152`, `controller/appcontroller.go:2683`).
    fn skipped_as_synced(&self, wanted: &str, name: &str) -> Option<Outcome> {
        const OPTION: &str = "ApplyOutOfSyncOnly=true";
        let op = self.app.last_operation()?;
        let sync = op.operation.sync.as_ref()?;
        if !sync.sync_options.iter().any(|o| o == OPTION) {
            return None;
        }
        let app = self.name;
        let from_app = self
            .app
            .spec
            .sync_policy
            .as_ref()
            .and_then(|p| p.get("syncOptions"))
            .and_then(|o| o.as_array())
            .is_some_and(|o| o.iter().any(|v| v.as_str() == Some(OPTION)));
        let (whose, hint) = if from_app {
            (
                format!("the Application's `syncPolicy.syncOptions` hold `{OPTION}`"),
                // `argocd app sync` sends sync options only for `--replace`, `--server-side` and
                // `--apply-out-of-sync-only` (cmd/argocd/commands/app.go), so no flag turns the
                // Application's option off for one sync: it has to leave the Application.
                format!(
                    "a sync of {app} applies only what differs from the cluster while its `syncPolicy.syncOptions` hold `{OPTION}`, and `argocd app sync` has no flag to turn that off for one sync: take `{OPTION}` out of the Application where it is declared (for one kept in git: commit, push and let Argo CD apply it), then sync: `argocd app sync {app}`"
                ),
            )
        } else {
            (
                format!("it ran with `{OPTION}` (`argocd app sync --apply-out-of-sync-only`)"),
                format!("sync without `--apply-out-of-sync-only`: `argocd app sync {app}`"),
            )
        };
        Some(
            Outcome::fail(format!(
                "the last sync of {app} did not apply {wanted}: {whose}, so it skipped every resource already Synced"
            ))
            .with_expected(self.spec.order_text())
            .with_actual(format!("{wanted} skipped as Synced"))
            .with_hint(hint)
            .with_cause(Cause::about(CauseId::ApplyOutOfSyncOnly, name)),
        )
    }

    /// Gate: `order:` — the last sync applied these entries in this order.
    pub(super) fn order(&mut self) -> Gate {
        let spec = self.spec;
        if spec.order.is_empty() {
            return ControlFlow::Continue(());
        }
        let entries = self.app.sync_results();
        let mut last: Option<(usize, String)> = None;
        for item in &spec.order {
            let phase = item.phase.as_deref();
            let wanted = describe_entry(&item.kind, &item.name, phase);
            // A pruned entry is an object deleted (no longer in git), not one applied
            // (`pruneObject`, gitops-engine `sync_context.go:1495-1515`).
            let matches = |e: &&ResourceResult| entry_matches(e, &item.kind, &item.name, phase);
            let Some(index) = entries.iter().position(|e| matches(&e) && !is_pruned(e)) else {
                // The option never skips a hook, nor explains an entry pruned.
                let hook = phase.is_some_and(|p| p != "Sync");
                if !hook
                    && !entries.iter().any(|e| matches(&e) && is_pruned(e))
                    && let Some(outcome) = self.skipped_as_synced(&wanted, &item.name)
                {
                    return ControlFlow::Break(self.with_story(outcome));
                }
                let pruned = entries.iter().find(matches).filter(|e| is_pruned(e));
                let outcome = Outcome::fail(match pruned {
                    Some(e) => format!(
                        "the last sync of {} did not apply {wanted}: it {} it ({})",
                        self.name,
                        if e.status.as_deref() == Some("Pruned") {
                            "pruned"
                        } else {
                            "left"
                        },
                        e.message.as_deref().unwrap_or("no longer in git")
                    ),
                    None => format!("the last sync of {} did not apply {wanted}", self.name),
                })
                .with_expected(spec.order_text())
                .with_actual(actual_order(entries))
                .with_cause(Cause::about(CauseId::NotApplied, &item.name));
                return ControlFlow::Break(self.with_story(if self.running {
                    outcome.still_in_progress()
                } else {
                    outcome
                }));
            };
            if let Some((prev_index, prev)) = &last
                && index < *prev_index
            {
                return ControlFlow::Break(
                    Outcome::fail(format!("the last sync applied {wanted} before {prev}"))
                        .with_cause(Cause::about(CauseId::WrongOrder, &item.name))
                        .with_expected(spec.order_text())
                        .with_actual(actual_order(entries))
                        .with_diagnosis("Argo CD orders by phase, then sync wave, then kind: check the `argocd.argoproj.io/hook` and `argocd.argoproj.io/sync-wave` annotations"),
                );
            }
            last = Some((index, wanted));
        }
        self.seen.push(format!("order {}", spec.order_text()));
        ControlFlow::Continue(())
    }
}

impl ArgocdAppSpec {
    fn order_text(&self) -> String {
        self.order
            .iter()
            .map(|e| describe_entry(&e.kind, &e.name, e.phase.as_deref()))
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

fn actual_order(entries: &[ResourceResult]) -> String {
    if entries.is_empty() {
        return "no entries".to_string();
    }
    entries
        .iter()
        .map(ResourceResult::describe)
        .collect::<Vec<_>>()
        .join(" → ")
}
