//! What the last operation Argo CD recorded was, named for what it is, and what `status.history`
//! still says about a successful sync of the revision Argo CD targets.
//!
//! Sources (argo-cd at `37ee0097`): `controller/sync.go:386` skips every hook when the operation
//! has `syncStrategy.apply` or `resources`; `controller/sync.go:483` writes a history entry only
//! for a successful operation that is neither a dry run nor selective (an apply-strategy sync and a
//! `--local` sync do get one); `gitops-engine/pkg/sync/sync_context.go:1770-1776` records every task
//! of a dry run, hooks included, as `Succeeded` with a `(dry run)` message although nothing was
//! created; `controller/appcontroller.go:2600-2618` builds a self-heal as a selective sync of the
//! resources that are not Synced, with `autoHealAttemptsCount`.

use crate::checks::revisions::RevisionView;
use crate::outcome::CauseId;
use crate::probe::cluster::argocd::{Application, HistoryEntry};

/// The kind of operation `status.operationState.operation.sync` describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The hook strategy (the default; also with force, `Replace=true` or prune): every resource
    /// applied, every hook run.
    Full,
    /// `syncStrategy.apply` (`argocd app sync --strategy apply`): every resource, no hook.
    ApplyOnly,
    /// `operation.sync.resources`: only these resources, no hook, no history entry.
    Selective { self_heal: bool },
    /// `dryRun`: nothing applied, no hook run, no history entry.
    DryRun,
    /// `manifests` (`argocd app sync --local`): files from someone's disk, not the commit, though
    /// the revision recorded is the target's.
    Local,
}

impl Shape {
    /// The shape of the app's last operation (`None`: no operation, or not a sync).
    pub fn of(app: &Application) -> Option<Shape> {
        let sync = app.last_operation()?.operation.sync.as_ref()?;
        Some(if sync.dry_run {
            Shape::DryRun
        } else if !sync.manifests.is_empty() {
            Shape::Local
        } else if !sync.resources.is_empty() {
            Shape::Selective {
                self_heal: sync.self_heal_attempts.is_some_and(|n| n > 0),
            }
        } else if sync
            .sync_strategy
            .as_ref()
            .is_some_and(|st| st.get("apply").is_some())
        {
            Shape::ApplyOnly
        } else {
            Shape::Full
        })
    }

    /// Whether an operation of this shape runs hooks.
    pub fn runs_hooks(self) -> bool {
        matches!(self, Shape::Full | Shape::Local)
    }

    /// The operation, as a learner would say it, with the command that starts one.
    pub fn what(self) -> &'static str {
        match self {
            Shape::Full => "a sync",
            Shape::ApplyOnly => {
                "a sync with the apply strategy (`argocd app sync --strategy apply`), which applies the resources and runs no hooks"
            }
            Shape::Selective { self_heal: true } => {
                "a self-heal, which re-applies only the resources that drifted and runs no hooks"
            }
            Shape::Selective { self_heal: false } => {
                "a sync of only some resources (`argocd app sync --resource`), which runs no hooks"
            }
            Shape::DryRun => {
                "a dry run (`argocd app sync --dry-run`), which applies nothing and runs no hooks, though it lists them as Succeeded"
            }
            Shape::Local => {
                "a sync of local files (`argocd app sync --local`), not of a commit in git"
            }
        }
    }

    /// The cause an operation of this shape gives a check it keeps from passing (`None`: a full
    /// sync, which gives none of its own).
    pub fn cause(self) -> Option<CauseId> {
        match self {
            Shape::Full => None,
            Shape::ApplyOnly => Some(CauseId::ApplyStrategySync),
            Shape::Selective { .. } => Some(CauseId::SelectiveSync),
            Shape::DryRun => Some(CauseId::DryRun),
            Shape::Local => Some(CauseId::LocalSync),
        }
    }

    /// The command that runs what this operation did not, with the option it must leave out.
    pub fn full_sync_hint(self, app: &str) -> String {
        let without = match self {
            Shape::ApplyOnly => " (without `--strategy apply`)",
            Shape::Selective { self_heal: false } => " (without `--resource`)",
            Shape::DryRun => " (without `--dry-run`)",
            Shape::Local => " (without `--local`)",
            Shape::Full | Shape::Selective { self_heal: true } => "",
        };
        format!("run a full sync, which runs the hooks: `argocd app sync {app}`{without}")
    }

    /// A short word for summaries.
    pub fn word(self) -> &'static str {
        match self {
            Shape::Full => "sync",
            Shape::ApplyOnly => "apply-strategy sync",
            Shape::Selective { self_heal: true } => "self-heal",
            Shape::Selective { self_heal: false } => "selective sync",
            Shape::DryRun => "dry run",
            Shape::Local => "local sync",
        }
    }
}

/// What `status.history` says about a successful sync of the revision Argo CD targets now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded<'a> {
    /// The newest successful, non-dry-run, non-selective sync of it.
    Synced(&'a HistoryEntry),
    /// None, and the history is not full: no such sync succeeded.
    Never,
    /// None, but the history holds as many entries as it keeps: one may have fallen out.
    MaybeTrimmed { limit: i64 },
}

/// How many entries `status.history` keeps (`revisionHistoryLimit`, default 10; negative keeps
/// none, argo-cd `types.go:1391-1400`).
pub fn history_limit(app: &Application) -> i64 {
    app.spec.revision_history_limit.unwrap_or(10).max(0)
}

/// The newest history entry of the revision(s) Argo CD compares against now.
pub fn recorded_sync_of_target(app: &Application) -> Recorded<'_> {
    let target = RevisionView::compared(app);
    let found = app
        .status
        .history
        .iter()
        .rev()
        .find(|h| RevisionView::history(h).same_as(&target));
    match found {
        Some(entry) => Recorded::Synced(entry),
        None => {
            let limit = history_limit(app);
            if app.status.history.len() as i64 >= limit {
                Recorded::MaybeTrimmed { limit }
            } else {
                Recorded::Never
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn app(sync: serde_json::Value, history: serde_json::Value, limit: Option<i64>) -> Application {
        let mut spec = json!({});
        if let Some(l) = limit {
            spec["revisionHistoryLimit"] = json!(l);
        }
        serde_json::from_value(json!({"spec": spec, "status": {
            "sync": {"status": "Synced", "revision": "b"},
            "history": history,
            "operationState": {"phase": "Succeeded", "startedAt": "2026-05-02T10:14:58Z",
                               "operation": {"sync": sync}}}}))
        .unwrap_or_default()
    }

    #[test]
    fn every_operation_shape_argo_cd_writes_is_named() {
        // The request as the API server / controller writes it (types.go:1422-1449).
        let cases = [
            (json!({"revision": "b"}), Shape::Full),
            (
                json!({"revision": "b", "syncStrategy": {"hook": {"force": true}}}),
                Shape::Full,
            ),
            (
                json!({"revision": "b", "syncOptions": ["Replace=true"], "prune": true}),
                Shape::Full,
            ),
            (
                json!({"revision": "b", "syncStrategy": {"apply": {}}}),
                Shape::ApplyOnly,
            ),
            (
                json!({"revision": "b", "syncStrategy": {"apply": {"force": true}}}),
                Shape::ApplyOnly,
            ),
            (
                json!({"revision": "b", "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]}),
                Shape::Selective { self_heal: false },
            ),
            (
                json!({"revision": "b", "autoHealAttemptsCount": 1, "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]}),
                Shape::Selective { self_heal: true },
            ),
            (
                json!({"revision": "b", "dryRun": true, "syncStrategy": {"apply": {}}}),
                Shape::DryRun,
            ),
            (
                json!({"revision": "b", "manifests": ["apiVersion: v1\nkind: ConfigMap\n"]}),
                Shape::Local,
            ),
        ];
        for (sync, want) in cases {
            assert_eq!(
                Shape::of(&app(sync.clone(), json!([]), None)),
                Some(want),
                "{sync}"
            );
        }
        assert!(Shape::Full.runs_hooks() && !Shape::ApplyOnly.runs_hooks());
        assert!(!Shape::DryRun.runs_hooks());
    }

    #[test]
    fn history_says_synced_never_or_maybe_fell_out() {
        let entry = |id: i64, rev: &str| json!({"id": id, "revision": rev, "deployStartedAt": "2026-05-02T10:00:00Z"});
        let sync = json!({"revision": "b"});
        let with_b = app(sync.clone(), json!([entry(1, "a"), entry(2, "b")]), None);
        assert!(matches!(recorded_sync_of_target(&with_b), Recorded::Synced(h) if h.id == Some(2)));
        let without = app(sync.clone(), json!([entry(1, "a")]), None);
        assert_eq!(recorded_sync_of_target(&without), Recorded::Never);
        let full = app(sync, json!([entry(1, "a"), entry(2, "c")]), Some(2));
        assert_eq!(
            recorded_sync_of_target(&full),
            Recorded::MaybeTrimmed { limit: 2 }
        );
    }
}
