//! Which objects Argo CD has a health check for, and so waits for in a multi-step sync.
//!
//! Argo CD asks, in this order (`AC: gitops-engine/pkg/health/health.go:69-101`): a health check
//! from `argocd-cm` (`resource.customizations.health.<group>_<kind>`, or the older
//! `resource.customizations` key), exact then wildcard; the Lua checks it ships under
//! `resource_customizations/` (`AC: util/lua/lua.go:250-288`, wildcard folders `:596-667`); then
//! gitops-engine's Go checks (`health.go:103-152`). No check means the object counts as done as
//! soon as it is applied.

use std::sync::LazyLock;

use globset::{GlobBuilder, GlobMatcher};

use crate::plan::object::Object;

/// The Lua health checks Argo CD ships, one `group/Kind` a line (`_` a wildcard), generated from
/// argo-cd's `resource_customizations/` (the file's header names the commit).
const SHIPPED_LUA: &str = include_str!("data/argocd-health-lua.txt");

/// A health check Argo CD runs on an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// gitops-engine's own check, in the words a learner needs.
    Go(&'static str),
    /// A Lua check shipped with Argo CD: `resource_customizations/<folder>/health.lua`.
    Shipped { folder: String },
    /// A check `argocd-cm` in the input adds, under this key.
    Configured { key: String },
}

impl Check {
    /// What Healthy means for it, for the plan.
    pub fn means(&self) -> String {
        match self {
            Check::Go(means) => (*means).to_string(),
            Check::Shipped { folder } => format!(
                "its health is Healthy (Argo CD's built-in check resource_customizations/{folder}/health.lua)"
            ),
            Check::Configured { key } => {
                format!("its health is Healthy (the argocd-cm check `{key}`)")
            }
        }
    }
}

/// The `group/Kind` key Argo CD looks checks up by (`lua.go:557-562`): `Kind` for the core group.
pub fn key(o: &Object) -> String {
    match o.group() {
        "" => o.kind.clone(),
        group => format!("{group}/{}", o.kind),
    }
}

/// The shipped Lua checks: exact keys, and wildcard folders in sorted order with their globs.
struct Shipped {
    exact: Vec<&'static str>,
    wildcard: Vec<(&'static str, GlobMatcher)>,
}

static SHIPPED: LazyLock<Shipped> = LazyLock::new(|| {
    let mut exact = Vec::new();
    let mut wildcard = Vec::new();
    for line in SHIPPED_LUA.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.contains('_') {
            // doublestar's PathMatch: `*` stays inside one path segment.
            if let Ok(glob) = GlobBuilder::new(&line.replace('_', "*"))
                .literal_separator(true)
                .build()
            {
                wildcard.push((line, glob.compile_matcher()));
            }
        } else {
            exact.push(line);
        }
    }
    wildcard.sort_by(|a, b| a.0.cmp(b.0));
    Shipped { exact, wildcard }
});

/// How many group/kinds Argo CD ships a Lua health check for (wildcards counted once).
pub fn shipped_count() -> usize {
    SHIPPED.exact.len() + SHIPPED.wildcard.len()
}

/// The shipped Lua check for `key`, if any: the folder it lives in.
pub fn shipped(key: &str) -> Option<String> {
    if SHIPPED.exact.contains(&key) {
        return Some(key.to_string());
    }
    SHIPPED
        .wildcard
        .iter()
        .find(|(_, glob)| glob.is_match(key))
        .map(|(folder, _)| (*folder).to_string())
}

/// gitops-engine's Go checks (`health.go:103-152`).
fn go_check(o: &Object) -> Option<&'static str> {
    let service_type = o
        .get(&["spec", "type"])
        .and_then(|v| v.as_str())
        .unwrap_or("ClusterIP");
    Some(match (o.group(), o.kind.as_str()) {
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet") => {
            "its rollout has finished (new pods ready)"
        }
        ("batch", "Job") => "it has completed",
        ("", "Pod") => "it is running and ready (a hook pod: it has succeeded)",
        ("", "PersistentVolumeClaim") => "it is Bound",
        // Any Service has a check; only a LoadBalancer can be anything but Healthy at once.
        ("", "Service") if service_type == "LoadBalancer" => "it has a load-balancer address",
        ("networking.k8s.io" | "extensions", "Ingress") => "it has a load-balancer address",
        ("autoscaling", "HorizontalPodAutoscaler") => "it is healthy",
        ("apiregistration.k8s.io", "APIService") => "it is Available",
        ("argoproj.io", "Workflow") => "it has finished",
        _ => return None,
    })
}

/// Health checks `argocd-cm` ConfigMaps in the input add: (key, where) per group/kind key
/// (`argoproj.io/Application`), from `resource.customizations.health.<group>_<kind>` or the older
/// `resource.customizations` map with a `health.lua` (`AC: util/settings/settings.go`).
pub fn configured(objects: &[Object]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for o in objects {
        if !(o.kind == "ConfigMap" && o.group().is_empty() && o.name == "argocd-cm") {
            continue;
        }
        let Some(serde_yaml::Value::Mapping(data)) = o.get(&["data"]) else {
            continue;
        };
        for (k, v) in data {
            let (Some(k), Some(lua)) = (k.as_str(), v.as_str()) else {
                continue;
            };
            if let Some(rest) = k.strip_prefix("resource.customizations.health.")
                && !lua.trim().is_empty()
            {
                // `<group>_<kind>`: the kind follows the last `_` (groups have none).
                let gk = match rest.rsplit_once('_') {
                    Some(("", kind)) => kind.to_string(),
                    Some((group, kind)) => format!("{group}/{kind}"),
                    None => rest.to_string(),
                };
                found.push((gk, k.to_string()));
            }
            if k == "resource.customizations"
                && let Ok(serde_yaml::Value::Mapping(map)) =
                    serde_yaml::from_str::<serde_yaml::Value>(lua)
            {
                for (gk, entry) in map {
                    if let Some(gk) = gk.as_str()
                        && entry
                            .get("health.lua")
                            .and_then(|l| l.as_str())
                            .is_some_and(|l| !l.trim().is_empty())
                    {
                        found.push((gk.to_string(), k.to_string()));
                    }
                }
            }
        }
    }
    found
}

/// The check Argo CD runs on `o`, given the checks `argocd-cm` adds.
pub fn check(o: &Object, configured: &[(String, String)]) -> Option<Check> {
    let key = key(o);
    if let Some((_, k)) = configured.iter().find(|(gk, _)| *gk == key) {
        return Some(Check::Configured { key: k.clone() });
    }
    if let Some(folder) = shipped(&key) {
        return Some(Check::Shipped { folder });
    }
    go_check(o).map(Check::Go)
}

/// Why a custom resource is not waited for, in words (only for kinds outside Kubernetes' own).
pub fn unchecked_why(o: &Object) -> String {
    let key = key(o);
    format!(
        "Argo CD ships no health check for {key} (it ships {} Lua checks), so it does not wait for it; argocd-cm can add one (`resource.customizations.health.{}`)",
        shipped_count(),
        key.replacen('/', "_", 1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_list_holds_argo_cds_own_lua_checks_and_wildcards() {
        assert!(shipped_count() > 200, "{}", shipped_count());
        for key in [
            "cert-manager.io/Certificate",
            "argoproj.io/Rollout",
            "batch/CronJob",
            "policy/PodDisruptionBudget",
            "apiextensions.k8s.io/CustomResourceDefinition",
            "external-secrets.io/ExternalSecret",
        ] {
            assert_eq!(shipped(key).as_deref(), Some(key));
        }
        // An exact folder wins; otherwise the first wildcard folder that matches.
        assert_eq!(
            shipped("pkg.crossplane.io/Provider").as_deref(),
            Some("pkg.crossplane.io/Provider")
        );
        assert_eq!(
            shipped("apiextensions.crossplane.io/Composition").as_deref(),
            Some("_.crossplane.io/_")
        );
        // `*.crossplane.io` needs a dot before the suffix; a made-up CRD has nothing.
        assert_eq!(shipped("crossplane.io/Thing"), None);
        assert_eq!(shipped("stable.example.com/CronTab"), None);
        assert_eq!(shipped("argoproj.io/Application"), None);
    }
}
