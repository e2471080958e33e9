//! Module 11's files: the shop-config repo of a Laravel shop, as the team left it (a migration
//! hook with every pitfall) and as each step leaves it. All names and values are the lab's own.

/// Commit messages the course uses, so `git` checks can look for them.
pub mod messages {
    pub const STEP_1: &str = "shop: a migration hook that is safe to run";
    pub const STEP_2: &str = "shop: config in PreSync, before the migration";
    pub const STEP_3: &str = "shop: web first, then workers, then a smoke test";
    pub const STEP_4: &str = "shop-dev: no automatic retry while migrations run as hooks";
}

/// `manifests/config.yaml` as the team left it: in the Sync phase, wave -1.
pub const CONFIG_FRESH: &str = r#"# Configuration the web pods, the workers and the migration read.
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-env
  annotations:
    argocd.argoproj.io/sync-wave: "-1"
data:
  APP_ENV: production
  DB_HOST: shop-mysql
  CACHE_STORE: redis
  REDIS_HOST: shop-redis
---
apiVersion: v1
kind: Secret
metadata:
  name: shop-secrets
  annotations:
    argocd.argoproj.io/sync-wave: "-1"
type: Opaque
stringData:
  DB_PASSWORD: lab-only-password
"#;

/// `manifests/config.yaml` after step 2: PreSync hooks in wave -1, before the migration (wave 0).
pub const CONFIG_PRESYNC: &str = r#"# Configuration the web pods, the workers and the migration read.
# PreSync in wave -1: it exists before the migration Job (PreSync, wave 0) starts.
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-env
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-1"
data:
  APP_ENV: production
  DB_HOST: shop-mysql
  CACHE_STORE: redis
  REDIS_HOST: shop-redis
---
apiVersion: v1
kind: Secret
metadata:
  name: shop-secrets
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-1"
type: Opaque
stringData:
  DB_PASSWORD: lab-only-password
"#;

/// `manifests/migrate-job.yaml` as the team left it: every pitfall of the article at once.
pub const MIGRATE_FRESH: &str = r#"apiVersion: batch/v1
kind: Job
metadata:
  name: shop-migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: HookSucceeded
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: registry.example.nl/shop:1.41.0
          command: ["php", "artisan", "migrate"]
          envFrom:
            - configMapRef:
                name: shop-env
            - secretRef:
                name: shop-secrets
"#;

/// `manifests/migrate-job.yaml` after step 1.
pub const MIGRATE_SAFE: &str = r#"apiVersion: batch/v1
kind: Job
metadata:
  name: shop-migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 900
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: registry.example.nl/shop:1.42.0
          command: ["php", "artisan", "migrate", "--force", "--isolated"]
          envFrom:
            - configMapRef:
                name: shop-env
            - secretRef:
                name: shop-secrets
"#;

fn deployment(name: &str, wave: Option<&str>, command: &str, port: bool) -> String {
    let annotations = match wave {
        Some(w) => format!("\n  annotations:\n    argocd.argoproj.io/sync-wave: \"{w}\""),
        None => String::new(),
    };
    let ports = if port {
        "\n          ports:\n            - containerPort: 8080\n          readinessProbe:\n            httpGet: {path: /up, port: 8080}"
    } else {
        ""
    };
    format!(
        r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}{annotations}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
        - name: app
          image: registry.example.nl/shop:1.42.0
          command: {command}{ports}
          envFrom:
            - configMapRef:
                name: shop-env
            - secretRef:
                name: shop-secrets
"#
    )
}

const SERVICE: &str = r#"apiVersion: v1
kind: Service
metadata:
  name: shop-web
spec:
  selector: {app: shop-web}
  ports:
    - port: 80
      targetPort: 8080
"#;

/// `manifests/web.yaml`: the web Deployment and its Service (wave 0 after step 3).
pub fn web(solved: bool) -> String {
    let wave = solved.then_some("0");
    format!(
        "{}---\n{SERVICE}",
        deployment(
            "shop-web",
            wave,
            r#"["php", "artisan", "octane:start", "--port=8080"]"#,
            true
        )
    )
}

/// `manifests/workers.yaml`: Horizon and the scheduler (wave 1 after step 3).
pub fn workers(solved: bool) -> String {
    let wave = solved.then_some("1");
    format!(
        "{}---\n{}",
        deployment(
            "shop-horizon",
            wave,
            r#"["php", "artisan", "horizon"]"#,
            false
        ),
        deployment(
            "shop-scheduler",
            wave,
            r#"["php", "artisan", "schedule:work"]"#,
            false
        )
    )
}

/// `manifests/smoke-test.yaml`, added in step 3.
pub const SMOKE_TEST: &str = r#"apiVersion: batch/v1
kind: Job
metadata:
  name: shop-smoke-test
  annotations:
    argocd.argoproj.io/hook: PostSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: smoke
          image: curlimages/curl:8.10.1
          args: ["--fail", "--max-time", "10", "http://shop-web/up"]
"#;

/// `argocd/shop-dev.yaml`: the Application, retrying 5 times until step 4 sets `limit: 0`.
/// Taking the block out would not do: an automated sync without one is retried 5 times.
pub fn application(retry: bool) -> String {
    let retry = if retry {
        "\n    retry:\n      limit: 5\n      backoff: {duration: 5s, factor: 2, maxDuration: 3m}"
    } else {
        "\n    # No retries: a retried sync runs a half-failed migration again. Without this block\n    # Argo CD would retry an automated sync 5 times.\n    retry:\n      limit: 0"
    };
    format!(
        r#"apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop-dev
  namespace: argocd
spec:
  project: default
  source:
    repoURL: http://git.course.local/team-shop/shop-config.git
    targetRevision: main
    path: manifests
  destination:
    server: https://kubernetes.default.svc
    namespace: shop-dev
  syncPolicy:
    automated: {{prune: true, selfHeal: true}}{retry}
"#
    )
}
