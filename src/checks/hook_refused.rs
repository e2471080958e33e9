//! A hook Argo CD could not create: its apply failed (the API server refused the manifest, or a
//! webhook or quota did), so it never ran. The last sync's result lists it with `status:
//! SyncFailed`, `hookPhase: Failed` and the apply error as its message, and the operation ends
//! `one or more objects failed to apply, reason: …` (`gitops-engine pkg/sync/sync_context.go`
//! `runTasks`, `:700-716`; facts §1). The fix is in the manifest that renders the hook: the
//! source with `path:` or `chart:`, not a `ref:` source that only holds values.

use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::{AppSource, Application, ResourceResult};

/// The last sync's entry for Job `name` when its apply failed.
pub fn refused_entry<'a>(app: &'a Application, name: &str) -> Option<&'a ResourceResult> {
    app.sync_results()
        .iter()
        .find(|e| e.kind == "Job" && e.name == name && e.status.as_deref() == Some("SyncFailed"))
}

/// Where the hook is rendered: the sources that render manifests (a path or a chart), and the
/// values-only `ref:` sources, which do not.
fn renders(app: &Application) -> String {
    let sources: Vec<&AppSource> = if app.spec.sources.is_empty() {
        app.spec.source.iter().collect()
    } else {
        app.spec.sources.iter().collect()
    };
    let rendering: Vec<String> = sources
        .iter()
        .filter_map(|s| match (&s.path, &s.chart) {
            (_, Some(chart)) => Some(format!(
                "chart `{chart}` {} of {}",
                s.target_revision.as_deref().unwrap_or(""),
                s.repo_url
            )),
            (Some(path), None) => Some(format!("`{path}` in {}", s.repo_url)),
            (None, None) => None,
        })
        .collect();
    let values: Vec<&str> = sources
        .iter()
        .filter(|s| s.ref_.is_some() && s.path.is_none() && s.chart.is_none())
        .map(|s| s.repo_url.as_str())
        .collect();
    let mut out = if rendering.is_empty() {
        "the source that renders it".to_string()
    } else {
        rendering.join(" or ")
    };
    if !values.is_empty() {
        out.push_str(&format!(
            " (the templates, not the values repository {})",
            values.join(", ")
        ));
    }
    out
}

/// The verdict for Job `name`, which Argo CD could not create in the last sync.
pub fn refused_outcome(
    app: &Application,
    app_name: &str,
    entry: &ResourceResult,
    who: &str,
) -> Outcome {
    let why = entry.message.as_deref().unwrap_or("no message");
    let op = app.last_operation();
    let phase = op.and_then(|o| o.phase.as_deref()).unwrap_or("unknown");
    let message = op
        .and_then(|o| o.message.as_deref())
        .unwrap_or("no message");
    Outcome::fail(format!(
        "{who}: Argo CD could not create it in the last sync of {app_name}: `{why}`"
    ))
    .with_expected(format!("{} run by a sync of your commit", entry.describe()))
    .with_actual(format!("not created: {}", entry.describe()))
    .with_diagnosis(format!(
        "the API server refused the hook's manifest, so the hook never ran and the sync ended {phase}: `{message}`"
    ))
    .with_hint(format!(
        "fix the Job's manifest where it is rendered, {}: `labcheck plan --rules` on the rendered manifests names the field; then commit, push and sync (`argocd app sync {app_name}`)",
        renders(app)
    ))
    .with_cause(Cause::about(CauseId::HookRefused, &entry.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(spec: serde_json::Value) -> Application {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "shop"}, "spec": spec, "status": {}
        }))
        .expect("an Application")
    }

    #[test]
    fn the_hint_points_at_the_source_that_renders_the_hook_not_the_values_repository() {
        // (the Application's sources, what the hint names, what it must not name as the place)
        let cases = [
            (
                serde_json::json!({"source": {"repoURL": "https://git/shop.git", "path": "helm"}}),
                "`helm` in https://git/shop.git",
            ),
            (
                serde_json::json!({"sources": [
                    {"repoURL": "https://charts", "chart": "shop", "targetRevision": "1.2.0"},
                    {"repoURL": "https://git/values.git", "ref": "values"}]}),
                "chart `shop` 1.2.0 of https://charts (the templates, not the values repository https://git/values.git)",
            ),
            (
                serde_json::json!({"sources": [
                    {"repoURL": "https://git/values.git", "ref": "values"},
                    {"repoURL": "https://git/gitops.git", "path": "checkout-app/chart"}]}),
                "`checkout-app/chart` in https://git/gitops.git (the templates, not the values repository https://git/values.git)",
            ),
        ];
        for (spec, names) in cases {
            assert_eq!(renders(&app(spec.clone())), names, "{spec}");
        }
    }
}
