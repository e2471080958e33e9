//! Check kind `argocd_app`: an Argo CD Application's sync and health status, the revision it is
//! at, and its last operation (phase, message, hook results, the order things were applied in).
//!
//! The spec and the evaluate entry live here; reading the check file in `parse`, the learner's
//! pushed revision and the GitOps chain in `pushed`, the verdict on sync, health and the last
//! operation in `verdict`, and the evidence for a failure (the story, logs, stuck pods) in
//! `diagnosis`.

mod diagnosis;
mod last_sync;
mod next_move;
mod parse;
mod pushed;
mod shape;
mod verdict;

use regex::Regex;
use serde::Deserialize;

use crate::checks::Context;
use crate::checks::can_fail::{self, Causes};
use crate::checks::cluster_common::{self, could_not_check};
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{Cause, CauseId, Outcome, Status};

pub use pushed::Pushed;

/// Fields of an `argocd_app` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "parse::RawAppSpec")]
pub struct ArgocdAppSpec {
    /// The Application read first: the one judged, or with `parent_of` the child whose app of
    /// apps is judged.
    pub name: String,
    /// `name` is a child Application: judge the Application that manages it (the app of apps),
    /// found by Argo CD's resource tracking on the child.
    pub parent_of: bool,
    /// The sync status it must have (Synced, OutOfSync, Unknown).
    pub sync: Option<String>,
    /// The health status it must have (Healthy, Progressing, Degraded, …).
    pub health: Option<String>,
    /// Work repo whose pushed HEAD Argo CD must be at.
    pub revision_of: Option<String>,
    /// The last operation's phase must be one of these.
    pub phase: Vec<String>,
    /// The last operation's message must match this.
    pub message: Option<Regex>,
    /// A hook the last sync must have run, and how it must have ended.
    pub hook: Option<HookSpec>,
    /// syncResult entries the last sync must have applied, in this order.
    pub order: Vec<EntrySpec>,
}

/// A syncResult entry and the hook phase it must have ended in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    /// The hook resource's kind (`Job`).
    pub kind: String,
    /// The hook resource's name.
    pub name: String,
    /// The sync phase it ran in (PreSync, Sync, PostSync, SyncFail).
    #[serde(default)]
    pub phase: Option<String>,
    /// Its `hookPhase`: Succeeded, Failed, Error, Running.
    #[serde(default)]
    pub result: Option<String>,
}

/// A syncResult entry, matched by kind, name and (optionally) sync phase — never by index.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    /// The resource's kind.
    pub kind: String,
    /// The resource's name.
    pub name: String,
    /// The sync phase it was applied in (PreSync, Sync, PostSync, SyncFail).
    #[serde(default)]
    pub phase: Option<String>,
}

impl ArgocdAppSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        self.revision_of.iter().map(String::as_str).collect()
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        if self.parent_of {
            return match self.with_parent(ctx, &self.name).await {
                Ok(spec) => Box::pin(spec.evaluate(ctx)).await,
                Err(outcome) => *outcome,
            };
        }
        let ns = &ctx.argocd_namespace;
        let app = match ctx.cluster.application(ns, &self.name).await {
            Ok(Some(app)) => app,
            Ok(None) => return cluster_common::app_not_found(ctx, &self.name).await,
            Err(e) => return could_not_check(&e),
        };
        let pushed = match &self.revision_of {
            Some(repo) => match pushed::read_pushed(ctx, repo).await {
                Ok(pushed) => Some(pushed),
                Err(outcome) => return *outcome,
            },
            None => None,
        };
        let outcome = self.decide(&app, pushed.as_ref());
        if outcome.status != Status::Fail {
            return outcome;
        }
        diagnosis::enrich(ctx, &app, outcome).await
    }

    /// This check aimed at the Application that manages `child` (its app of apps).
    async fn with_parent(&self, ctx: &Context, child: &str) -> Result<ArgocdAppSpec, Box<Outcome>> {
        let ns = &ctx.argocd_namespace;
        let app = match ctx.cluster.application(ns, child).await {
            Ok(Some(app)) => app,
            Ok(None) => return Err(Box::new(cluster_common::app_not_found(ctx, child).await)),
            Err(e) => return Err(Box::new(could_not_check(&e))),
        };
        let Some(parent) = app.metadata.managed_by() else {
            return Err(Box::new(
                Outcome::fail(format!(
                    "Application {child} is not managed by another Application (no Argo CD tracking annotation or label), so there is no app of apps to read"
                ))
                .with_hint(format!(
                    "it is created by the app of apps once that syncs: `kubectl -n {ns} get application {child} -o yaml | grep -A1 tracking-id`"
                ))
                .with_cause(Cause::about(CauseId::NoParentApp, child)),
            ));
        };
        let mut spec = self.clone();
        spec.name = parent;
        spec.parent_of = false;
        Ok(spec)
    }
}

impl KindReads for ArgocdAppSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads {
            apps: vec![self.name.clone()],
            every_app: self.parent_of,
            ..ClusterReads::none()
        }
    }

    fn rename_for_learner(&mut self, names: &mut dyn LearnerNames) {
        names.app(&mut self.name);
    }

    fn can_fail(&self) -> Causes {
        use CauseId::*;
        let mut causes = if self.parent_of {
            // The app of apps is found by name only once the child says which it is.
            Causes::new()
                .and(can_fail::app_lookup(&self.name))
                .about(NoParentApp, &self.name, true)
                .hinted(AppMissing)
        } else {
            can_fail::app_lookup(&self.name)
        };
        let about_operation = self.asks_about_operation();
        if self.revision_of.is_some() {
            causes = causes.all(
                &[
                    NoCommits,
                    NotPushed,
                    PushedElsewhere,
                    NotSeenYet,
                    AppNotFollowingRepo,
                ],
                true,
            );
            if about_operation {
                causes = causes.all(&[SyncNotOfPush, RetryingOtherRevision], true);
            }
        }
        if about_operation {
            causes = causes.all(
                &[
                    Retrying,
                    OperationTerminated,
                    OperationTimedOut,
                    LocalSync,
                    NoSync,
                    SelectiveSync,
                    DryRun,
                ],
                true,
            );
            if self.asks_for_a_hook().is_some() {
                causes = causes.hinted(ApplyStrategySync);
            }
        }
        if let Some(want) = &self.sync {
            // "Sync it" is the way to Synced; another wanted status is the course's to explain.
            causes = causes.all(&[SyncStatus], want == "Synced");
        }
        if self.health.is_some() {
            causes = causes.all(&[AppDegraded, AppNotHealthy, AppHealth], false);
        }
        // Read wherever the app is Progressing or Degraded: a pod that cannot start, a rollout
        // past its deadline, each with "waiting will not fix this".
        causes = causes.all(&[PodStuck, ProgressDeadlineExceeded], true);
        if !self.phase.is_empty() {
            for phase in ["Running", "Succeeded", "Failed", "Error"] {
                if !self.phase.iter().any(|p| p == phase) {
                    causes = causes.about(SyncPhase, phase, phase == "Running");
                }
            }
        }
        if self.message.is_some() {
            causes = causes.silent(SyncMessage);
        }
        if let Some(hook) = &self.hook {
            causes = causes.about(HookNotRun, &hook.name, true);
            if hook.phase.as_deref() == Some("SyncFail") {
                causes = causes.about(SyncfailHookMissing, &hook.name, true);
            }
            if hook.result.is_some() {
                causes = causes.about(HookResult, &hook.name, false);
            }
        }
        for (i, entry) in self.order.iter().enumerate() {
            causes = causes.about(NotApplied, &entry.name, false);
            // labcheck's hint names the option and where it came from.
            causes = causes.about(ApplyOutOfSyncOnly, &entry.name, true);
            if i > 0 {
                causes = causes.about(WrongOrder, &entry.name, false);
            }
        }
        causes
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_shapes;
