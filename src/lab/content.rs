//! The files of module 10's work repos at each point of the course, as the course text describes
//! them. The demo and the tests build lab worlds from these; the reference repo's copy is what
//! step 1 diffs against.

/// `argocd-platform/argocd/values.yaml` before step 1.
pub const PLATFORM_VALUES_FRESH: &str = r#"# Argo CD, installed and configured by the platform team (module 1).
# Helm values for the argo-cd chart.
configs:
  cm:
    # Banner lines: shown at the top of the Argo CD UI.
    ui.bannercontent: "Course cluster: every change goes through git"
    ui.bannerpermanent: "true"
    timeout.reconciliation: 60s
  params:
    server.insecure: true
server:
  replicas: 1
"#;

/// The health-check block step 1 adds under `cm:`, after the banner lines.
pub const PLATFORM_HEALTH_BLOCK: &str = r#"    # Module 10: Applications get a health status, so sync waves between
    # Applications (app of apps) wait for the previous wave to be Healthy.
    resource.customizations.health.argoproj.io_Application: |
      hs = {}
      hs.status = "Progressing"
      hs.message = ""
      if obj.status ~= nil and obj.status.health ~= nil then
        hs.status = obj.status.health.status
        if obj.status.health.message ~= nil then
          hs.message = obj.status.health.message
        end
      end
      return hs
"#;

/// `argocd-platform/argocd/values.yaml` after step 1 (also the reference repo's
/// `platform/argocd/values.yaml`).
pub fn platform_values_solved() -> String {
    let banner_end = "    ui.bannerpermanent: \"true\"\n";
    PLATFORM_VALUES_FRESH.replacen(
        banner_end,
        &format!("{banner_end}{PLATFORM_HEALTH_BLOCK}"),
        1,
    )
}

/// `argocd-platform/apps/projects.yaml`: AppProjects go first.
pub const PLATFORM_APP_PROJECTS: &str = r#"apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: projects
  namespace: argocd
  annotations:
    argocd.argoproj.io/sync-wave: "-2"
spec:
  project: platform
  source:
    repoURL: http://git.course.local/platform/argocd-platform.git
    targetRevision: main
    path: projects
  destination:
    server: https://kubernetes.default.svc
    namespace: argocd
"#;

/// `argocd-platform/apps/namespaces.yaml`: namespaces right after the projects.
pub const PLATFORM_APP_NAMESPACES: &str = r#"apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: namespaces
  namespace: argocd
  annotations:
    argocd.argoproj.io/sync-wave: "-1"
spec:
  project: platform
  source:
    repoURL: http://git.course.local/platform/argocd-platform.git
    targetRevision: main
    path: namespaces
  destination:
    server: https://kubernetes.default.svc
"#;

/// `argocd-platform/apps/checkout-dev.yaml`: team-checkout's app, default wave 0.
pub const PLATFORM_APP_CHECKOUT: &str = r#"apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: checkout-dev
  namespace: argocd
spec:
  project: team-checkout
  source:
    repoURL: http://git.course.local/team-checkout/checkout-config.git
    targetRevision: main
    path: helm
    helm:
      valueFiles: [dev.yaml]
  destination:
    server: https://kubernetes.default.svc
    namespace: checkout-dev
  syncPolicy:
    automated: {}
"#;

/// `checkout-config/helm/dev.yaml` before step 2.
pub const CHECKOUT_DEV_FRESH: &str = r#"# team-checkout: values for dev (the chart lives in checkout-app/chart)
image:
  repository: ghcr.io/stefanprodan/podinfo
  tag: "6.7.1"
replicaCount: 1
"#;

/// What step 2 adds at the end of `helm/dev.yaml`.
pub const CHECKOUT_HOOKS_BLOCK: &str = r#"migration:
  enabled: true                # module 10
smokeTest:
  enabled: true                # module 10
"#;

/// `checkout-config/helm/dev.yaml` after step 2 (and again after step 5's revert).
pub fn checkout_dev_hooks_on() -> String {
    format!("{CHECKOUT_DEV_FRESH}{CHECKOUT_HOOKS_BLOCK}")
}

/// `checkout-config/helm/dev.yaml` after step 4: 6.7.0 with a migration that fails.
pub fn checkout_dev_broken_migration() -> String {
    checkout_dev_hooks_on()
        .replacen("tag: \"6.7.1\"", "tag: \"6.7.0\"", 1)
        .replacen(
            "  enabled: true                # module 10\nsmokeTest:",
            "  enabled: true                # module 10\n  fail: true\nsmokeTest:",
            1,
        )
}

/// `checkout-config/helm/dev.yaml` after the break-it exercise's "break" stage.
pub fn checkout_dev_smoke_test_503() -> String {
    let mut text = checkout_dev_hooks_on();
    text.push_str("  path: /status/503\n");
    text
}

/// Commit messages the course text uses, in order.
pub mod messages {
    pub const STEP_1: &str = "Argo CD: health status for Applications";
    pub const STEP_2: &str = "checkout: migration and smoke test in dev";
    pub const STEP_4: &str = "checkout: 6.7.0 with a broken migration";
    pub const BREAK_IT: &str = "checkout: smoke test endpoint";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_1_puts_the_health_check_after_the_banner_lines() {
        let solved = platform_values_solved();
        let banner = solved.find("ui.bannerpermanent").unwrap_or(usize::MAX);
        let health = solved
            .find("resource.customizations.health.argoproj.io_Application")
            .unwrap_or(0);
        assert!(banner < health, "{solved}");
        assert!(solved.contains("timeout.reconciliation"));
    }

    #[test]
    fn step_4_changes_the_tag_and_breaks_the_migration() {
        let broken = checkout_dev_broken_migration();
        assert!(broken.contains("tag: \"6.7.0\""));
        assert!(
            broken.contains("  enabled: true                # module 10\n  fail: true\nsmokeTest:")
        );
    }
}
