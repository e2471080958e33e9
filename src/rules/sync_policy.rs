//! Rule `retry-with-migration`: an Application whose failed syncs are retried, next to a
//! migration that a retry runs again.
//!
//! Argo CD's retry, exactly (`AC: controller/appcontroller.go`, `pkg/apis/application/v1alpha1/
//! types.go`): it retries while `retryCount < limit || limit < 0`; so `limit: 0` and a `retry:`
//! block without `limit` mean no retries, a negative limit means no end. An automated sync with
//! no `retry:` block at all (or `retry: null`) gets a default of `limit: 5` (since v1.7, still in
//! 3.x). A manual sync with no block never retries.

use crate::plan::{Object, Plan};
use crate::rules::{Finding, Rule, Severity, is_migration};
use crate::sync_settings::automated;

/// The rule.
pub const RETRY: Rule = Rule {
    id: "retry-with-migration",
    severity: Severity::Warning,
    about: "an Application that retries failed syncs (automated with no `retry:` block: 5 times) while a hook migrates the database",
};

pub use crate::sync_settings::{DEFAULT_RETRY_LIMIT as DEFAULT_LIMIT, Retries};

/// The retries Argo CD gives an Application's syncs (automated ones for an automated app).
pub fn retries(app: &Object) -> Retries {
    let automated = automated(app.get(&["spec", "syncPolicy", "automated"]));
    Retries::of(app.get(&["spec", "syncPolicy", "retry"]), automated)
}

/// A migration that a retried sync runs again: a migration hook (Argo CD deletes and creates
/// hooks anew in every attempt), or a Sync-phase migration Job with `Replace=true`.
/// `Replace=true` counts from the Application as from the annotation (`Plan::in_force`).
fn rerun_by_retry(plan: &Plan, o: &Object) -> bool {
    is_migration(o)
        && !o.sync_phases().is_empty()
        && (o.is_hook() || plan.in_force(o).replace.is_some())
}

/// Flag Applications that retry when the manifests hold a migration a retry runs again.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    let Some(migration) = plan.applied_objects().find(|o| rerun_by_retry(plan, o)) else {
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
                "{} {how}, and every retry runs the whole sync again, {} included. A MySQL migration that failed halfway stays half applied (MySQL cannot roll back DDL), and the retry runs on top of it",
                app.reference(),
                if migration.is_hook() {
                    format!("hook {}", migration.reference())
                } else {
                    let origin = plan.in_force(migration).replace.map(|o| o.as_str()).unwrap_or("");
                    format!("{} (`Replace=true` from {origin} recreates it)", migration.reference())
                }
            ),
            "set `spec.syncPolicy.retry: {limit: 0}` explicitly (removing the block brings back the default of 5 for an automated app; `argocd app set --sync-retry-limit 0` removes it too); fix a failed migration in git and let the next sync run it once".to_string(),
        ));
    }
}
