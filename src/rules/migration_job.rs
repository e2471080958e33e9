//! Rules on the migration Job itself: retries, a time limit, the image it runs, and whether its
//! log survives.

use serde_yaml::Value;

use crate::plan::object::untag;
use crate::plan::{DeletePolicy, Object, Plan};
use crate::rules::{Finding, Rule, Severity, containers, is_migration};

/// `migration-backoff-limit`
pub const BACKOFF_LIMIT: Rule = Rule {
    id: "migration-backoff-limit",
    severity: Severity::Warning,
    about: "a migration Job without `backoffLimit: 0`",
};

/// `migration-deadline`
pub const DEADLINE: Rule = Rule {
    id: "migration-deadline",
    severity: Severity::Warning,
    about: "a migration Job without `activeDeadlineSeconds`",
};

/// `migration-image-tag`
pub const IMAGE_TAG: Rule = Rule {
    id: "migration-image-tag",
    severity: Severity::Warning,
    about: "a migration Job runs another tag of the image than the app's Deployments",
};

/// `migration-delete-policy`
pub const DELETE_POLICY: Rule = Rule {
    id: "migration-delete-policy",
    severity: Severity::Warning,
    about: "a migration hook deleted on success or failure (its log goes with it)",
};

/// `registry/shop:1.42.0` → (`registry/shop`, `1.42.0`); a digest counts as the version.
fn split_image(image: &str) -> (&str, &str) {
    if let Some((repo, digest)) = image.split_once('@') {
        return (repo, digest);
    }
    match image.rfind(':') {
        Some(colon) if !image[colon..].contains('/') => (&image[..colon], &image[colon + 1..]),
        _ => (image, "latest"),
    }
}

fn images(object: &Object) -> Vec<String> {
    containers(object)
        .iter()
        .filter_map(|c| c.get("image").map(untag).and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

fn number(object: &Object, keys: &[&str]) -> Option<f64> {
    object.get(keys).and_then(Value::as_f64)
}

/// Check every migration Job that a sync applies.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    let workloads: Vec<&Object> = plan
        .objects
        .iter()
        .filter(|o| {
            o.group() == "apps"
                && matches!(o.kind.as_str(), "Deployment" | "StatefulSet" | "DaemonSet")
        })
        .filter(|o| !o.sync_phases().is_empty())
        .collect();
    for job in plan.objects.iter().filter(|o| is_migration(o)) {
        if job.sync_phases().is_empty() {
            continue;
        }
        let who = job.reference();
        match number(job, &["spec", "backoffLimit"]) {
            Some(0.0) => {}
            found => findings.push(BACKOFF_LIMIT.found(
                job,
                format!(
                    "{who} has {}: Kubernetes starts a failed migration again, and a migration that stopped halfway and runs again often makes the damage worse; the sync also reports the failure only after the last try",
                    match found {
                        Some(n) => format!("`backoffLimit: {n}`"),
                        None if job.get(&["spec", "backoffLimit"]).is_some_and(|v| !v.is_null()) => "a `backoffLimit` that is not a number, which the API server refuses (`api-server-refuses`); were it left out, Kubernetes' default of 6 retries would apply".to_string(),
                        None => "no `backoffLimit`, so Kubernetes' default of 6 retries applies".to_string(),
                    }
                ),
                "set `spec.backoffLimit: 0`: one try, and a failed migration stops the sync".to_string(),
            )),
        }
        if number(job, &["spec", "activeDeadlineSeconds"]).is_none() {
            findings.push(DEADLINE.found(
                job,
                format!(
                    "{who} has no `activeDeadlineSeconds`: a migration waiting for a table lock runs on and on, and Argo CD (no sync timeout by default) waits with it"
                ),
                "set `spec.activeDeadlineSeconds` to the longest a migration may take, e.g. 900".to_string(),
            ));
        }
        for image in images(job) {
            let (repo, version) = split_image(&image);
            let drifted: Vec<String> = workloads
                .iter()
                .flat_map(|w| images(w).into_iter().map(move |i| (w, i)))
                .filter(|(_, other)| {
                    let (other_repo, other_version) = split_image(other);
                    other_repo == repo && other_version != version
                })
                .map(|(w, other)| format!("{} runs {other}", w.reference()))
                .collect();
            if !drifted.is_empty() {
                findings.push(IMAGE_TAG.found(
                    job,
                    format!(
                        "{who} runs {image} but {}: the schema is migrated for one release while the code of another serves it",
                        drifted.join(", ")
                    ),
                    "set the image tag in one place that both use (Helm values, Kustomize `images:`), so migration and code never drift apart".to_string(),
                ));
            }
        }
        if !job.is_hook() {
            continue;
        }
        let policies = job.delete_policies();
        let gone_when = match (
            policies.contains(&DeletePolicy::HookSucceeded),
            policies.contains(&DeletePolicy::HookFailed),
        ) {
            (true, true) => Some("after every sync, failed or not"),
            (true, false) => Some("as soon as the sync succeeds"),
            (false, true) => Some("when the sync fails, just when you need to know why"),
            (false, false) => None,
        };
        if let Some(when) = gone_when {
            findings.push(DELETE_POLICY.found(
                job,
                format!(
                    "{who}'s delete policy removes the Job, its pods and their logs {when}; `kubectl logs job/{}` then finds nothing",
                    job.name
                ),
                "use `argocd.argoproj.io/hook-delete-policy: BeforeHookCreation` (the default): the last run stays until the next sync replaces it".to_string(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split_image;

    #[test]
    fn images_split_into_repository_and_version() {
        assert_eq!(
            split_image("registry.example.nl/shop:1.42.0"),
            ("registry.example.nl/shop", "1.42.0")
        );
        assert_eq!(
            split_image("localhost:5000/shop"),
            ("localhost:5000/shop", "latest")
        );
        assert_eq!(split_image("shop@sha256:ab"), ("shop", "sha256:ab"));
    }
}
