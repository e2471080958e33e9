//! Rule `retry-with-migration`: an Application whose failed syncs are retried, next to a
//! migration that a retry runs again.
//!
//! Argo CD's retry, exactly (`AC: controller/appcontroller.go`, `pkg/apis/application/v1alpha1/
//! types.go`): it retries while `retryCount < limit || limit < 0`; so `limit: 0` and a `retry:`
//! block without `limit` mean no retries, a negative limit means no end. An automated sync with
//! no `retry:` block at all (or `retry: null`) gets a default of `limit: 5` (since v1.7, still in
//! 3.x). A manual sync with no block never retries.

use serde_yaml::Value;

use crate::plan::object::untag;
use crate::plan::{Object, Plan};
use crate::rules::{Finding, Rule, Severity, is_migration};

/// The rule.
pub const RETRY: Rule = Rule {
    id: "retry-with-migration",
    severity: Severity::Warning,
    about: "an Application that retries failed syncs (automated with no `retry:` block: 5 times) while a hook migrates the database",
};

/// How often Argo CD retries a failed sync of an Application.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retries {
    /// No retries: `limit: 0`, a block without `limit`, or a manual app with no block.
    None,
    /// Up to this many, written in the block.
    Limit(i64),
    /// Automated, no `retry:` block: Argo CD's default.
    Default,
    /// A negative limit.
    Unlimited,
    /// A limit that is not a whole number: the API server refuses the Application.
    Invalid,
}

/// Argo CD's default retry limit for an automated sync without a `retry:` block.
pub const DEFAULT_LIMIT: i64 = 5;

fn automated(app: &Object) -> bool {
    match app.get(&["spec", "syncPolicy", "automated"]) {
        None | Some(Value::Null) => false,
        // `automated.enabled: false` (Argo CD 3.1+) keeps the block but turns automation off.
        Some(block) => !matches!(block.get("enabled").map(untag), Some(Value::Bool(false))),
    }
}

/// The retries Argo CD gives an Application's syncs (automated ones for an automated app).
pub fn retries(app: &Object) -> Retries {
    let block = app
        .get(&["spec", "syncPolicy", "retry"])
        .filter(|v| !v.is_null());
    let Some(block) = block else {
        return if automated(app) {
            Retries::Default
        } else {
            Retries::None
        };
    };
    match block.get("limit").map(untag) {
        None | Some(Value::Null) => Retries::None,
        Some(Value::Number(n)) => match n.as_i64() {
            Some(0) => Retries::None,
            Some(l) if l < 0 => Retries::Unlimited,
            Some(l) => Retries::Limit(l),
            None => Retries::Invalid,
        },
        Some(_) => Retries::Invalid,
    }
}

/// A migration that a retried sync runs again: a migration hook (Argo CD deletes and creates
/// hooks anew in every attempt), or a Sync-phase migration Job with `Replace=true`.
fn rerun_by_retry(o: &Object) -> bool {
    is_migration(o)
        && !o.sync_phases().is_empty()
        && (o.is_hook() || o.has_sync_option("Replace=true"))
}

/// Flag Applications that retry when the manifests hold a migration a retry runs again.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    let Some(migration) = plan.applied_objects().find(|o| rerun_by_retry(o)) else {
        return;
    };
    // The Application the plan is for (read beside its folder) counts as much as one applied.
    let own = plan.app.as_ref().map(|a| &a.object);
    let applied = plan
        .applied_objects()
        .filter(|o| o.group() == "argoproj.io" && o.kind == "Application");
    for app in own
        .into_iter()
        .chain(applied.filter(|o| own.is_none_or(|a| !(a.name == o.name && a.source == o.source))))
    {
        let how = match retries(app) {
            Retries::None | Retries::Invalid => continue,
            Retries::Limit(n) => {
                format!("`retry.limit: {n}` retries a failed sync up to {n} times")
            }
            Retries::Unlimited => {
                "a negative `retry.limit` retries a failed sync without end".to_string()
            }
            Retries::Default => format!(
                "is automated and has no `retry:` block, so Argo CD retries a failed sync {DEFAULT_LIMIT} times (its default since v1.7, still in 3.x; the UI may even say \"Retry disabled\")"
            ),
        };
        findings.push(RETRY.found(
            app,
            format!(
                "{} {how}, and every retry runs the whole sync again, hook {} included. A MySQL migration that failed halfway stays half applied (MySQL cannot roll back DDL), and the retry runs on top of it",
                app.reference(),
                migration.reference()
            ),
            "set `spec.syncPolicy.retry: {limit: 0}` explicitly (removing the block brings back the default of 5 for an automated app; `argocd app set --sync-retry-limit 0` removes it too); fix a failed migration in git and let the next sync run it once".to_string(),
        ));
    }
}
