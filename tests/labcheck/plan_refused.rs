//! `labcheck plan --rules` on what Argo CD or the API server refuses before anything syncs: an
//! Application whose `$name/…` value files its repo server cannot resolve, wherever it is in the
//! input, and objects with a field of the wrong type for their kind. Each is an error of the
//! rules, with Argo CD's and the API server's words, and exits 1 as any rule that fails.

use std::path::Path;

use crate::harness::{Labcheck, Run};

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
    std::fs::write(full, text).expect("a file");
}

fn plan(root: &Path, args: &[&str]) -> Run {
    Labcheck::new(root)
        .current_dir(root)
        .args(["plan", "--rules"])
        .args(args)
        .run()
}

fn application(name: &str, value_file: &str, ref_source: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  project: default\n  sources:\n  - repoURL: https://charts.example.com\n    chart: shop\n    targetRevision: 1.0.0\n    helm:\n      valueFiles: [{value_file}]\n{ref_source}  destination:\n    server: https://kubernetes.default.svc\n    namespace: {name}\n"
    )
}

const VALUES_REF: &str = "  - repoURL: https://git.example.com/shop-config.git\n    targetRevision: main\n    ref: values\n";
const CHART_REF: &str = "  - repoURL: https://charts.example.com\n    chart: values\n    targetRevision: 1.0.0\n    ref: values\n";

const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: shop:1.2\n";

/// `plan manifests` in `root`, which must fail: its report from `Rules:` on.
fn failed_rules(root: &Path) -> String {
    let run = plan(root, &["manifests"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    run.stdout
        .lines()
        .skip_while(|l| !l.starts_with("Rules:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rule ids and objects of the errors in a JSON plan.
fn errors(run: &Run) -> Vec<String> {
    run.json()["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            format!(
                "{} {}",
                f["rule"].as_str().unwrap_or(""),
                f["object"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn an_application_beside_the_manifests_whose_ref_names_no_source_fails_the_rules() {
    // (what the learner wrote in argocd/, the errors, a sentence of Argo CD's the report holds)
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        (
            application("shop", "$values/envs/dev.yaml", VALUES_REF),
            vec![],
            "",
        ),
        (
            application("shop", "$values/envs/dev.yaml", ""),
            vec!["source-ref-unresolved Application/shop"],
            "source referenced \\\"$values\\\", but no source has a 'ref' field defined",
        ),
        (
            application("shop", "$vals/envs/dev.yaml", VALUES_REF),
            vec!["source-ref-unresolved Application/shop"],
            "which is not one of the available sources ($values)",
        ),
        (
            application("shop", "$values/envs/dev.yaml", CHART_REF),
            vec!["source-ref-unresolved Application/shop"],
            "Helm charts are not yet not supported for 'ref' sources",
        ),
        // Two apps in one file: each is judged, the sound one passes.
        (
            format!(
                "{}---\n{}",
                application("shop", "$values/envs/dev.yaml", VALUES_REF),
                application("shop-prod", "$prod/envs/prod.yaml", VALUES_REF)
            ),
            vec!["source-ref-unresolved Application/shop-prod"],
            "failed to generate manifest for source 1 of 2",
        ),
    ];
    for (apps, want, says) in &cases {
        let dir = tempfile::tempdir().expect("a temp dir");
        write(dir.path(), "manifests/web.yaml", WEB);
        write(dir.path(), "argocd/apps.yaml", apps);
        // A folder beside the Applications, as files, and on stdin: the same verdict.
        for args in [
            vec!["--format", "json", "manifests", "argocd"],
            vec!["--format", "json", "argocd/apps.yaml"],
        ] {
            let run = plan(dir.path(), &args);
            assert_eq!(
                errors(&run),
                *want,
                "{args:?}: {}{}",
                run.stdout,
                run.stderr
            );
            assert_eq!(
                run.code,
                if want.is_empty() { 0 } else { 1 },
                "{}",
                run.stderr
            );
            assert!(run.stdout.contains(says), "{says} not in {}", run.stdout);
        }
        let run = Labcheck::new(dir.path())
            .args(["plan", "--rules", "--format", "json", "-"])
            .stdin(apps.as_bytes().to_vec())
            .run();
        assert_eq!(errors(&run), *want, "stdin: {}", run.stderr);
    }
}

#[test]
fn a_manifest_the_api_server_would_refuse_fails_the_rules_at_its_file_and_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    write(
        dir.path(),
        "manifests/web.yaml",
        &WEB.replace("replicas: 2", "replicas: \"2\""),
    );
    write(
        dir.path(),
        "manifests/migrate.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-env\n  annotations:\n    argocd.argoproj.io/hook: PreSync\ndata:\n  DB_PORT: 3306\n---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: db-migrate\n  annotations:\n    argocd.argoproj.io/hook: PreSync\nspec:\n  backoffLimit: \"0\"\n  activeDeadlineSeconds: 600\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: shop:1.2\n        command: [php, artisan, migrate, --force, --isolated]\n",
    );
    let rules = failed_rules(dir.path());
    insta::assert_snapshot!(rules);
}

#[test]
fn a_misspelt_field_or_a_job_without_restart_policy_fails_the_rules_at_its_file_and_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // The migration hook with two typos: a field of the Job, a field of its container.
    write(
        dir.path(),
        "manifests/migrate.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: db-migrate\n  annotations:\n    argocd.argoproj.io/hook: PreSync\nspec:\n  backoffLimitt: 0\n  activeDeadlineSeconds: 600\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: shop:1.2\n        imagePullPolise: IfNotPresent\n        command: [php, artisan, migrate, --force, --isolated]\n",
    );
    // The smoke test without `restartPolicy`: a Job's pods may not restart Always.
    write(
        dir.path(),
        "manifests/smoke-test.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke-test\n  annotations:\n    argocd.argoproj.io/hook: PostSync\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      containers:\n      - name: curl\n        image: curlimages/curl:8.8.0\n        args: [-fsS, http://web/healthz]\n",
    );
    // A typo under `Validate=false`: the API server drops the field, no refusal.
    write(
        dir.path(),
        "manifests/web.yaml",
        &WEB.replace(
            "  name: web\n",
            "  name: web\n  annotations:\n    argocd.argoproj.io/sync-options: Validate=false\n",
        )
        .replace(
            "  replicas: 2\n",
            "  replicas: 2\n  progressDeadlineSecond: 600\n",
        ),
    );
    let rules = failed_rules(dir.path());
    insta::assert_snapshot!(rules);
    let run = plan(dir.path(), &["--format", "json", "manifests"]);
    assert_eq!(
        errors(&run),
        vec![
            "api-server-refuses Job/db-migrate",
            "api-server-refuses Job/smoke-test"
        ],
        "{}",
        run.stdout
    );
}
