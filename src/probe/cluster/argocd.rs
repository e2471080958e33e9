//! Argo CD's Application (`argoproj.io/v1alpha1`), typed for the status fields labcheck reads.
//! Every field is optional: Argo CD v2.x–v3.5 differ in what they fill (facts file, "Version
//! differences"), and a missing field must read as "not there", never as a parse error.

use serde::Deserialize;

/// An Argo CD Application as the API returns it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Application {
    pub metadata: Metadata,
    pub spec: AppSpec,
    pub status: AppStatus,
    /// Present only while an operation is pending or running.
    pub operation: Option<serde_json::Value>,
}

/// The metadata labcheck reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Metadata {
    pub name: String,
    pub namespace: Option<String>,
    pub labels: std::collections::BTreeMap<String, String>,
    pub annotations: std::collections::BTreeMap<String, String>,
}

impl Metadata {
    /// The Application that manages this object, from Argo CD's resource tracking: the
    /// annotation `argocd.argoproj.io/tracking-id: <app>:<group>/<kind>:<ns>/<name>` (v3.0+
    /// default), else the label `app.kubernetes.io/instance: <app>` (label tracking). An app in
    /// another namespace is tracked as `<ns>_<app>`.
    pub fn managed_by(&self) -> Option<String> {
        let tracked = self
            .annotations
            .get("argocd.argoproj.io/tracking-id")
            .and_then(|id| id.split(':').next())
            .or_else(|| {
                self.labels
                    .get("app.kubernetes.io/instance")
                    .map(String::as_str)
            })
            .filter(|app| !app.is_empty())?;
        Some(tracked.rsplit('_').next().unwrap_or(tracked).to_string())
    }
}

/// The spec fields labcheck reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AppSpec {
    pub destination: Destination,
    pub sync_policy: Option<serde_json::Value>,
    /// Single-source apps.
    pub source: Option<AppSource>,
    /// Multi-source apps (`spec.source` is then ignored, facts-2 §1.1).
    pub sources: Vec<AppSource>,
    /// How many successful syncs `status.history` keeps (absent: 10, argo-cd
    /// `pkg/apis/application/v1alpha1/application_defaults.go:28`; trimmed to the newest by
    /// `RevisionHistories.Trunc`, `types.go:1391-1400`).
    pub revision_history_limit: Option<i64>,
}

/// One source of an Application (`spec.source(s)`, and the copies stored next to revisions).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct AppSource {
    #[serde(rename = "repoURL")]
    pub repo_url: String,
    pub path: Option<String>,
    pub chart: Option<String>,
    pub target_revision: Option<String>,
    #[serde(rename = "ref")]
    pub ref_: Option<String>,
    pub name: Option<String>,
}

/// Where the app deploys to.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Destination {
    pub namespace: Option<String>,
}

/// `status` of an Application.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AppStatus {
    pub sync: SyncStatus,
    pub health: HealthStatus,
    pub operation_state: Option<OperationState>,
    pub history: Vec<HistoryEntry>,
    pub conditions: Vec<Condition>,
    pub reconciled_at: Option<String>,
    /// The app's resources with their sync status (and, up to v2.x, their health).
    pub resources: Vec<ResourceStatus>,
}

/// `status.resources[]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceStatus {
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub status: Option<String>,
    /// Not persisted since v3.0 (`resourceHealthSource: appTree`).
    pub health: Option<HealthStatus>,
    pub hook: Option<bool>,
    /// Live, not in git: only a sync with prune deletes it.
    pub requires_pruning: Option<bool>,
}

/// `status.sync`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncStatus {
    /// `Synced` | `OutOfSync` | `Unknown`.
    pub status: Option<String>,
    /// The git revision Argo CD last compared against (resolved SHA).
    pub revision: Option<String>,
    /// Multi-source apps: one per source, in the order of `comparedTo.sources`.
    pub revisions: Vec<String>,
    pub compared_to: ComparedTo,
}

/// `status.sync.comparedTo`: the sources the revisions were resolved from.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ComparedTo {
    pub source: Option<AppSource>,
    pub sources: Vec<AppSource>,
}

/// `status.health`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HealthStatus {
    pub status: Option<String>,
    pub message: Option<String>,
}

/// `status.operationState`: the last (or running) operation.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OperationState {
    /// `Running` | `Terminating` | `Succeeded` | `Failed` | `Error`.
    pub phase: Option<String>,
    pub message: Option<String>,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub retry_count: Option<i64>,
    pub operation: Operation,
    pub sync_result: Option<SyncResult>,
}

/// The operation that was requested.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Operation {
    pub sync: Option<SyncOperation>,
    pub retry: Option<RetryStrategy>,
    pub initiated_by: Option<InitiatedBy>,
}

/// `operation.initiatedBy`: a user, or the controller (auto-sync, self-heal).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct InitiatedBy {
    pub username: Option<String>,
    pub automated: bool,
}

/// `operation.retry`: `limit` absent means 0 retries (facts-2 §3.1).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RetryStrategy {
    pub limit: Option<i64>,
    /// v3.2+: a retry clears `operation.sync.revision(s)`, so the next attempt syncs the latest
    /// revision (argo-cd `controller/appcontroller.go:1626-1632`).
    pub refresh: bool,
}

/// `operation.sync`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncOperation {
    pub revision: Option<String>,
    pub revisions: Vec<String>,
    /// Non-empty for a selective sync (a few resources): it runs no hooks.
    pub resources: Vec<serde_json::Value>,
    /// `{hook: {force?}}` (the default when absent) or `{apply: {force?}}`.
    pub sync_strategy: Option<serde_json::Value>,
    pub source: Option<AppSource>,
    pub sources: Vec<AppSource>,
    /// `argocd app sync --dry-run`: nothing is applied.
    pub dry_run: bool,
    pub prune: bool,
    /// `argocd app sync --local DIR`: the manifests synced, instead of the source's.
    pub manifests: Vec<String>,
    pub sync_options: Vec<String>,
    /// Set by self-heal (`autoHealAttemptsCount`, `controller/appcontroller.go:2600-2618`).
    #[serde(rename = "autoHealAttemptsCount")]
    pub self_heal_attempts: Option<i64>,
}

/// `operationState.syncResult`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncResult {
    pub revision: Option<String>,
    pub revisions: Vec<String>,
    pub source: Option<AppSource>,
    pub sources: Vec<AppSource>,
    /// In execution order (facts a2): the position is the order Argo CD applied them in.
    pub resources: Vec<ResourceResult>,
}

/// Who ended an operation before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// Someone ran `argocd app terminate-op` (or the UI's Terminate).
    ByUser,
    /// The controller's sync timeout (`controller.sync.timeout.seconds`) ran out.
    ByTimeout,
}

/// One entry of `syncResult.resources`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceResult {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// `Synced` | `SyncFailed` | `Pruned` | `PruneSkipped`; empty on finished hooks ≤ v3.3.
    pub status: Option<String>,
    pub message: Option<String>,
    /// Set only for hooks.
    pub hook_type: Option<String>,
    /// `Running` | `Succeeded` | `Failed` | `Error` | `Terminating`; set for plain resources too.
    pub hook_phase: Option<String>,
    pub sync_phase: Option<String>,
}

impl ResourceResult {
    /// Whether this entry is a hook (plain resources have no `hookType`).
    pub fn is_hook(&self) -> bool {
        self.hook_type.is_some()
    }

    /// `Job checkout-migrate (PreSync)`.
    pub fn describe(&self) -> String {
        match self.sync_phase.as_deref().or(self.hook_type.as_deref()) {
            Some(phase) => format!("{} {} ({phase})", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }
}

/// `status.history[]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct HistoryEntry {
    pub id: Option<i64>,
    pub revision: Option<String>,
    pub revisions: Vec<String>,
    pub source: Option<AppSource>,
    pub sources: Vec<AppSource>,
    pub deploy_started_at: Option<String>,
    pub deployed_at: Option<String>,
}

/// `status.conditions[]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub message: Option<String>,
}

impl Application {
    /// The last operation's state, if any operation ever ran.
    pub fn last_operation(&self) -> Option<&OperationState> {
        self.status.operation_state.as_ref()
    }

    /// When the last operation started, as Argo CD wrote it (empty when none is recorded).
    pub fn last_operation_started_at(&self) -> String {
        self.last_operation()
            .and_then(|o| o.started_at.clone())
            .unwrap_or_default()
    }

    /// The revision the last operation synced (or is syncing).
    pub fn operation_revision(&self) -> Option<&str> {
        let op = self.last_operation()?;
        op.sync_result
            .as_ref()
            .and_then(|r| r.revision.as_deref())
            .or_else(|| op.operation.sync.as_ref()?.revision.as_deref())
            .filter(|r| !r.is_empty())
    }

    /// Entries of the last sync, in execution order.
    pub fn sync_results(&self) -> &[ResourceResult] {
        self.last_operation()
            .and_then(|op| op.sync_result.as_ref())
            .map(|r| r.resources.as_slice())
            .unwrap_or(&[])
    }

    /// Whether the last operation is still going.
    pub fn operation_running(&self) -> bool {
        self.operation.is_some()
            || self
                .last_operation()
                .and_then(|op| op.phase.as_deref())
                .is_some_and(|p| p == "Running" || p == "Terminating")
    }

    /// The retry the last operation is in, while it is still going: `(attempt, limit)`. An
    /// attempt failed with retries left keeps phase `Running` with `retryCount: N` and the message
    /// `… Retrying attempt #N at …`; the next attempt says `Retrying operation. Attempt #N`
    /// (facts-2 §3.2). `limit` is `None` when the operation does not say (absent = 0, but then
    /// there would be no retry to report).
    pub fn retrying(&self) -> Option<(i64, Option<i64>)> {
        let op = self.last_operation()?;
        if op.phase.as_deref() != Some("Running") {
            return None;
        }
        let message = op.message.as_deref().unwrap_or("");
        let from_message = ["Retrying attempt #", "Attempt #"]
            .iter()
            .find_map(|marker| {
                let rest = message.split(marker).nth(1)?;
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<i64>().ok()
            });
        let attempt = match (op.retry_count.filter(|n| *n > 0), from_message) {
            (Some(n), Some(m)) => n.max(m),
            (Some(n), None) => n,
            (None, Some(m)) => m,
            (None, None) => return None,
        };
        let limit = op.operation.retry.as_ref().map(|r| r.limit.unwrap_or(0));
        Some((attempt, limit))
    }

    /// Whether the last operation was ended before it finished (see [`Self::termination`]).
    pub fn operation_terminated(&self) -> bool {
        self.termination().is_some()
    }

    /// Who ended the last operation before it finished, as Argo CD records it: phase
    /// `Terminating` while it stops (`operation is terminating`, or `… due to timeout` when the
    /// controller's sync timeout ended it), then `Failed` with `Operation terminated` (or `Error`
    /// with `Operation termination had errors`, gitops-engine `sync_context.go` `Terminate`), to
    /// which the controller adds `, triggered by controller sync timeout` (and a retry count) when
    /// its timeout did it (`controller/appcontroller.go`, `TestProcessRequestedAppOperation_*`).
    pub fn termination(&self) -> Option<Termination> {
        let op = self.last_operation()?;
        let message = op.message.as_deref().unwrap_or("");
        let ended = op.phase.as_deref() == Some("Terminating")
            || message.starts_with("Operation terminated")
            || message.starts_with("Operation termination had errors");
        if !ended {
            return None;
        }
        if message.contains("due to timeout") || message.contains("controller sync timeout") {
            Some(Termination::ByTimeout)
        } else {
            Some(Termination::ByUser)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_v3_3_hook_entry_without_status_parses() {
        let json = serde_json::json!({
            "metadata": {"name": "checkout-dev", "namespace": "argocd"},
            "status": {
                "sync": {"status": "OutOfSync", "revision": "9b7e4d2"},
                "health": {"status": "Healthy"},
                "operationState": {
                    "phase": "Failed",
                    "message": "one or more synchronization tasks completed unsuccessfully",
                    "startedAt": "2026-05-02T10:14:58Z",
                    "operation": {"sync": {"revision": "9b7e4d2"}},
                    "syncResult": {"revision": "9b7e4d2", "resources": [
                        {"group": "batch", "version": "v1", "kind": "Job", "namespace": "checkout-dev",
                         "name": "checkout-migrate", "hookType": "PreSync", "syncPhase": "PreSync",
                         "hookPhase": "Failed", "message": "Job has reached the specified backoff limit"}
                    ]}
                }
            }
        });
        let app: Application = serde_json::from_value(json).unwrap_or_default();
        assert_eq!(app.operation_revision(), Some("9b7e4d2"));
        assert_eq!(app.sync_results().len(), 1);
        assert_eq!(app.sync_results()[0].status, None);
        assert!(app.sync_results()[0].is_hook());
        assert!(!app.operation_running());
    }
}
