//! `labcheck plan` on folders shaped like real GitOps repos: what Argo CD's repo server reads
//! (subfolders, include/exclude, the skip marker, YAML that is not an object, walk order), the
//! Application beside its folder (sync options, namespace, directory settings), custom resources'
//! health, and the typos Argo CD silently ignores.

use serde_json::Value;

use crate::harness::{Run, labcheck};
use crate::plan::planned;

/// A git repo in a temp dir, with files written at repo paths.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new(files: &[(&str, &str)]) -> Repo {
        let dir = tempfile::tempdir().expect("a temp dir");
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .expect("git runs");
        assert!(status.success());
        let repo = Repo { dir };
        for (path, text) in files {
            repo.write(path, text);
        }
        repo
    }

    fn write(&self, path: &str, text: &str) {
        let full = self.dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
        std::fs::write(full, text).expect("a file");
    }

    fn path(&self, sub: &str) -> String {
        self.dir.path().join(sub).display().to_string()
    }

    fn plan(&self, args: &[&str]) -> Run {
        let mut all = vec!["plan", "--format", "json"];
        all.extend_from_slice(args);
        labcheck(self.dir.path(), &all)
    }
}

fn cm(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n")
}

fn skipped(json: &Value) -> Vec<(String, String)> {
    json["skipped_files"]
        .as_array()
        .expect("skipped_files")
        .iter()
        .map(|s| {
            let file = s["file"].as_str().unwrap_or("");
            let name = file.rsplit("manifests/").next().unwrap_or(file).to_string();
            (name, s["why"].as_str().unwrap_or("").to_string())
        })
        .collect()
}

fn app(path: &str, extra: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: http://git.course.local/team/shop-config.git\n    targetRevision: main\n    path: {path}\n{extra}  destination:\n    server: https://kubernetes.default.svc\n    namespace: shop\n"
    )
}

#[test]
fn subfolders_are_read_only_with_recurse_and_each_skip_is_named() {
    let repo = Repo::new(&[
        ("manifests/a.yaml", &cm("a")),
        ("manifests/extra/b.yaml", &cm("b")),
        ("manifests/c.YAML", &cm("c")),
    ]);
    let run = repo.plan(&[&repo.path("manifests")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(planned(&json), vec!["ConfigMap/a"]);
    let skips = skipped(&json);
    assert_eq!(skips.len(), 2, "{skips:?}");
    assert!(
        skips[0].0 == "c.YAML" && skips[0].1.contains("lower case"),
        "{skips:?}"
    );
    assert!(
        skips[1].0 == "extra/" && skips[1].1.contains("directory.recurse: true"),
        "{skips:?}"
    );

    let recursed = repo.plan(&["--recurse", &repo.path("manifests")]).json();
    assert_eq!(planned(&recursed), vec!["ConfigMap/a", "ConfigMap/b"]);
}

#[test]
fn the_applications_directory_settings_decide_what_its_folder_holds() {
    let repo = Repo::new(&[
        (
            "argocd/shop.yaml",
            &app(
                "manifests",
                "    directory:\n      recurse: true\n      include: '*.yaml'\n      exclude: '{dev/*,*-test.yaml}'\n",
            ),
        ),
        ("manifests/web.yaml", &cm("web")),
        ("manifests/web-test.yaml", &cm("web-test")),
        ("manifests/dev/override.yaml", &cm("dev-override")),
        ("manifests/prod/override.yaml", &cm("prod-override")),
        ("manifests/notes.yml", &cm("notes")),
        (
            "manifests/draft.yaml",
            &format!(
                "# +argocd:skip-file-rendering (work in progress)\n{}",
                cm("draft")
            ),
        ),
    ]);
    let run = repo.plan(&[&repo.path("manifests"), &repo.path("argocd")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(
        planned(&json),
        vec!["ConfigMap/prod-override", "ConfigMap/web"]
    );
    let why: Vec<String> = skipped(&json)
        .into_iter()
        .map(|(f, w)| format!("{f}: {w}"))
        .collect();
    for expected in [
        "dev/override.yaml: matches `directory.exclude: {dev/*,*-test.yaml}`",
        "draft.yaml: holds `+argocd:skip-file-rendering`: Argo CD (3.1+) skips the file",
        "notes.yml: does not match `directory.include: *.yaml`",
        "web-test.yaml: matches `directory.exclude: {dev/*,*-test.yaml}`",
    ] {
        assert!(
            why.iter().any(|w| w == expected),
            "{expected} not in {why:?}"
        );
    }
    assert_eq!(json["application"]["name"], "shop");
}

#[test]
fn values_files_and_tool_configs_are_skipped_but_a_broken_manifest_is_not() {
    let repo = Repo::new(&[
        ("manifests/app.yaml", &cm("app")),
        (
            "manifests/values.yaml",
            "image:\n  repository: shop\n  tag: \"1.4\"\nreplicas: 2\n",
        ),
        (
            "manifests/.github/workflows/ci.yml",
            "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
        ),
        ("manifests/list.yaml", "- one\n- two\n"),
    ]);
    let run = repo.plan(&["--recurse", &repo.path("manifests")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(planned(&json), vec!["ConfigMap/app"]);
    let names: Vec<String> = skipped(&json).into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        names,
        vec![".github/workflows/ci.yml", "list.yaml", "values.yaml"]
    );
    assert!(skipped(&json)[2].1.contains("not a Kubernetes object"));

    // A file that looks like a manifest but does not parse fails, as it fails Argo CD.
    repo.write(
        "manifests/broken.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n",
    );
    let broken = repo.plan(&[&repo.path("manifests")]);
    assert_eq!(broken.code, 2, "{}", broken.stdout);
    broken.assert_stderr_has(&["broken.yaml:4"]);
}

#[test]
fn the_copy_that_wins_is_the_last_in_argo_cds_walk_order() {
    // filepath.Walk visits `b/` (name `b`) before `b.yaml`; a sort of whole paths would not.
    let repo = Repo::new(&[
        (
            "manifests/b.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: {from: b.yaml}\n",
        ),
        (
            "manifests/b/x.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: {from: b/x.yaml}\n",
        ),
    ]);
    let json = repo.plan(&["--recurse", &repo.path("manifests")]).json();
    let sources: Vec<&str> = json["duplicates"][0]["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    assert!(sources[0].ends_with("manifests/b/x.yaml:1"), "{sources:?}");
    assert!(sources[1].ends_with("manifests/b.yaml:1"), "{sources:?}");
    assert!(
        json["steps"][0]["tasks"][0]["source"]
            .as_str()
            .unwrap_or("")
            .ends_with("b.yaml:1")
    );
}

#[test]
fn a_chart_or_kustomize_folder_is_rendered_first_and_a_template_is_refused() {
    let repo = Repo::new(&[
        (
            "chart/Chart.yaml",
            "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        ),
        (
            "chart/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-env\n",
        ),
        ("overlay/kustomization.yaml", "resources: [../base]\n"),
        (
            "loose/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"{{ .Values.name }}\"\n",
        ),
    ]);
    let chart = repo.plan(&[&repo.path("chart")]);
    assert_eq!(chart.code, 2);
    assert!(
        chart.stderr.contains("is a Helm folder") && chart.stderr.contains("`helm template NAME "),
        "{}",
        chart.stderr
    );
    let overlay = repo.plan(&[&repo.path("overlay")]);
    assert_eq!(overlay.code, 2);
    overlay.assert_stderr_has(&["`kustomize build "]);
    let templates = repo.plan(&["--recurse", &repo.path("chart/templates")]);
    assert_eq!(templates.code, 2);
    templates.assert_stderr_has(&["unrendered Helm template"]);
    let loose = repo.plan(&[&repo.path("loose")]);
    assert_eq!(loose.code, 2);
    loose.assert_stderr_has(&["cm.yaml:4: `{{ .Values.name }}`"]);
}

#[test]
fn the_application_beside_its_folder_brings_its_namespace_and_options_and_is_no_step() {
    let repo = Repo::new(&[
        (
            "argocd/shop.yaml",
            &app(
                "./manifests/",
                "",
            )
            .replace(
                "  destination:",
                "  syncPolicy:\n    syncOptions: [CreateNamespace=true, Replace=true]\n  destination:",
            ),
        ),
        ("manifests/web.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"),
        ("manifests/reader.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  namespace: shop\n"),
    ]);
    let run = repo.plan(&[&repo.path("manifests"), &repo.path("argocd")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(
        planned(&json),
        vec!["Namespace/shop", "ClusterRole/reader", "Deployment/web"]
    );
    let tasks: Vec<&Value> = json["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .flat_map(|s| s["tasks"].as_array().expect("tasks").iter())
        .collect();
    assert_eq!(json["steps"][0]["phase"], "PreSync");
    assert_eq!(tasks[0]["created_by"], "CreateNamespace=true");
    assert_eq!(tasks[1]["namespace"], "", "a ClusterRole has no namespace");
    assert_eq!(tasks[2]["namespace"], "shop");
    assert!(
        tasks[2]["apply_mode"]
            .as_str()
            .unwrap_or("")
            .contains("Replace=true")
    );
    assert_eq!(json["context"][0]["kind"], "Application");
    assert_eq!(json["application"]["destination_namespace"], "shop");

    // Named for another folder, it is refused rather than applied to the wrong manifests.
    repo.write("other/cm.yaml", &cm("x"));
    let wrong = repo.plan(&["--app", "shop", &repo.path("other"), &repo.path("argocd")]);
    assert_eq!(wrong.code, 2, "{}", wrong.stdout);
    assert!(
        wrong
            .stderr
            .contains("Application shop syncs `./manifests/`"),
        "{}",
        wrong.stderr
    );
}

#[test]
fn a_custom_resources_wait_says_whether_argo_cd_ships_a_health_check() {
    let repo = Repo::new(&[
        (
            "manifests/web.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
        ),
        (
            "manifests/cert.yaml",
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web-tls\n  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\n",
        ),
        (
            "manifests/tab.yaml",
            "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\n  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\n",
        ),
        (
            "manifests/z.yaml",
            &cm("after").replace(
                "metadata:\n",
                "metadata:\n  annotations:\n    argocd.argoproj.io/sync-wave: \"2\"\n",
            ),
        ),
    ]);
    let json = repo.plan(&[&repo.path("manifests")]).json();
    let wave1 = &json["steps"][1];
    assert_eq!(wave1["waits"][0]["until"], "healthy_custom");
    assert!(
        wave1["waits"][0]["means"]
            .as_str()
            .unwrap_or("")
            .contains("resource_customizations/cert-manager.io/Certificate/health.lua")
    );
    assert_eq!(wave1["not_awaited"][0]["object"], "CronTab/nightly");
    assert!(
        wave1["not_awaited"][0]["why"]
            .as_str()
            .unwrap_or("")
            .contains("ships no health check for stable.example.com/CronTab")
    );
}

#[test]
fn typos_argo_cd_silently_ignores_are_rules_with_the_fix() {
    let repo = Repo::new(&[
        (
            "argocd/shop.yaml",
            &app("manifests", "").replace(
                "  destination:",
                "  syncPolicy:\n    syncOptions: [CreateNamespace=True]\n  destination:",
            ),
        ),
        (
            "manifests/job.yaml",
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: HookSucceded\n    argocd.argoproj.io/sync-wave: \"1.5\"\n",
        ),
        (
            "manifests/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    argocd.argoproj.io/sync-options: prunelast=true\n",
        ),
        (
            "manifests/child.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: child\n  annotations:\n    argocd.argoproj.io/hook: PreSync\nspec:\n  source: {repoURL: x, path: child}\n",
        ),
    ]);
    let run = repo.plan(&["--rules", &repo.path("manifests"), &repo.path("argocd")]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let found: Vec<(String, String)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["fix"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    for (rule, fix) in [
        (
            "delete-policy-unknown",
            "write `HookSucceeded` (case matters)",
        ),
        (
            "sync-wave-not-integer",
            "write a whole number without spaces, e.g. `argocd.argoproj.io/sync-wave: \"2\"`",
        ),
        ("sync-option-unknown", "write `PruneLast=true`"),
        ("sync-option-unknown", "write `CreateNamespace=true`"),
        (
            "application-as-hook",
            "drop `argocd.argoproj.io/hook` and order the Applications with `argocd.argoproj.io/sync-wave` instead",
        ),
    ] {
        assert!(
            found.iter().any(|(r, f)| r == rule && f == fix),
            "{rule}: {fix} not in {found:?}"
        );
    }
}

#[test]
fn an_app_of_apps_is_followed_to_its_childrens_folders_in_this_repo() {
    let url = "http://git.course.local/platform/argocd-platform.git";
    let child = |name: &str, repo: &str, path: &str, wave: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\n  annotations:\n    argocd.argoproj.io/sync-wave: \"{wave}\"\nspec:\n  project: platform\n  source:\n    repoURL: {repo}\n    targetRevision: main\n    path: {path}\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: {name}\n"
        )
    };
    let repo = Repo::new(&[
        (
            "apps/namespaces.yaml",
            &child("namespaces", url, "namespaces", "-1"),
        ),
        (
            "apps/checkout.yaml",
            &child(
                "checkout",
                "http://git.course.local/team/checkout-config.git",
                "helm",
                "0",
            ),
        ),
        (
            "namespaces/shop.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n",
        ),
        ("namespaces/values.yaml", "replicas: 1\n"),
    ]);
    let status = std::process::Command::new("git")
        .args(["remote", "add", "origin", url])
        .current_dir(repo.dir.path())
        .status()
        .expect("git runs");
    assert!(status.success());
    let run = repo.plan(&["--follow", &repo.path("apps")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(
        planned(&json),
        vec!["Application/namespaces", "Application/checkout"]
    );
    let children = json["children"].as_array().expect("children");
    let namespaces = children
        .iter()
        .find(|c| c["name"] == "namespaces")
        .expect("followed");
    assert_eq!(planned(&namespaces["plan"]), vec!["Namespace/shop"]);
    assert!(
        namespaces["plan"]["skipped_files"][0]["file"]
            .as_str()
            .unwrap_or("")
            .ends_with("values.yaml")
    );
    let checkout = children
        .iter()
        .find(|c| c["name"] == "checkout")
        .expect("listed");
    assert!(
        checkout["not_followed"]
            .as_str()
            .unwrap_or("")
            .contains("another repo"),
        "{checkout}"
    );
}

#[test]
fn the_courses_own_plan_calls_give_argo_cds_order_with_the_application_applied() {
    let s = crate::plan::shop("step-4");
    let dir = |sub: &str| {
        s.world
            .work_dir()
            .join(crate::plan::REPO)
            .join(sub)
            .display()
            .to_string()
    };
    // Module 11 step 1's hint, and the README's `plan --rules manifests/ argocd/`.
    let alone = s.run(&["plan", "--format", "json", &dir("manifests")]);
    let with_app = s.run(&[
        "plan",
        "--format",
        "json",
        &dir("manifests"),
        &dir("argocd"),
    ]);
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    assert_eq!(with_app.code, 0, "{}", with_app.stderr);
    let (alone, with_app) = (alone.json(), with_app.json());
    // phase, then wave, then kind (Secret before ConfigMap, Service before Deployment), then name.
    let expected = vec![
        "Secret/shop-secrets",
        "ConfigMap/shop-env",
        "Job/shop-migrate",
        "Service/shop-web",
        "Deployment/shop-web",
        "Deployment/shop-horizon",
        "Deployment/shop-scheduler",
        "Job/shop-smoke-test",
    ];
    assert_eq!(planned(&alone), expected);
    assert_eq!(
        planned(&with_app),
        expected,
        "the Application is no step of its own sync"
    );
    assert_eq!(with_app["application"]["name"], "shop-dev");
    assert_eq!(with_app["context"][0]["name"], "shop-dev");
    let namespaces: Vec<&str> = with_app["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .flat_map(|s| s["tasks"].as_array().expect("tasks").iter())
        .filter_map(|t| t["namespace"].as_str())
        .collect();
    assert!(
        namespaces.iter().all(|n| *n == "shop-dev"),
        "{namespaces:?}"
    );
}

#[test]
fn the_human_plan_names_the_application_what_it_skipped_and_what_is_context() {
    let repo = Repo::new(&[
        (
            "argocd/shop.yaml",
            &app("manifests", "").replace(
                "  destination:",
                "  syncPolicy:\n    automated: {}\n    syncOptions: [CreateNamespace=true]\n  destination:",
            ),
        ),
        ("manifests/web.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\n"),
        ("manifests/cert.yaml", "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web-tls\n"),
        ("manifests/values.yaml", "replicas: 2\n"),
        ("manifests/old/web.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"),
    ]);
    let root = repo.dir.path().display().to_string();
    let run = labcheck(
        repo.dir.path(),
        &["plan", &repo.path("manifests"), &repo.path("argocd")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout.replace(&root, "[REPO]"));
}
