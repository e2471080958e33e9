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
}

/// The spec fields labcheck reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AppSpec {
    pub destination: Destination,
    pub sync_policy: Option<serde_json::Value>,
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
}

/// `status.sync`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncStatus {
    /// `Synced` | `OutOfSync` | `Unknown`.
    pub status: Option<String>,
    /// The git revision Argo CD last compared against (resolved SHA).
    pub revision: Option<String>,
    /// Multi-source apps.
    pub revisions: Vec<String>,
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
}

/// `operation.sync`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncOperation {
    pub revision: Option<String>,
    pub revisions: Vec<String>,
}

/// `operationState.syncResult`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncResult {
    pub revision: Option<String>,
    pub revisions: Vec<String>,
    /// In execution order (facts a2): the position is the order Argo CD applied them in.
    pub resources: Vec<ResourceResult>,
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
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HistoryEntry {
    pub id: Option<i64>,
    pub revision: Option<String>,
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
