//! `labcheck plan` and the Application in hand, wherever the learner puts it: in a subfolder of
//! the repo, among files given instead of a folder, as the root of an app of apps, beside a
//! Kustomize or Helm folder; the settings it brings, read alike by the plan and the rules; and
//! what Argo CD resolves in it before it renders anything. Every repo is a real git repository
//! with a bare remote, committed and pushed as a learner's is.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::harness::{Labcheck, Run};
use crate::plan::planned;

const URL: &str = "http://git.course.local/team/shop-config.git";

/// A work repo cloned from a bare remote (whose URL is `URL`, as the course's server names it).
struct Repo {
    dir: tempfile::TempDir,
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.email=learner@course.local",
            "-c",
            "user.name=Learner",
        ])
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

impl Repo {
    /// `git init` in `work/<sub>` (so a repo can lie inside a bigger folder), files written at
    /// paths from the temp dir, committed and pushed to a bare remote; `origin` named `URL`.
    fn new(repo_at: &str, files: &[(&str, &str)]) -> Repo {
        let dir = tempfile::tempdir().expect("a temp dir");
        let repo = Repo { dir };
        let bare = repo.dir.path().join("remote.git");
        git(
            repo.dir.path(),
            &["init", "-q", "--bare", "-b", "main", "remote.git"],
        );
        let work = repo.at(repo_at);
        std::fs::create_dir_all(&work).expect("a work dir");
        git(&work, &["init", "-q", "-b", "main"]);
        for (path, text) in files {
            repo.write(path, text);
        }
        // The files written inside the repo, by name (those around it stay outside it).
        let inside: Vec<String> = files
            .iter()
            .map(|(path, _)| repo.at(path))
            .filter(|path| path.starts_with(&work))
            .map(|path| path.display().to_string())
            .collect();
        let mut add = vec!["add", "--"];
        add.extend(inside.iter().map(String::as_str));
        git(&work, &add);
        git(&work, &["commit", "-q", "-m", "shop"]);
        git(
            &work,
            &["remote", "add", "origin", &bare.display().to_string()],
        );
        git(&work, &["push", "-q", "origin", "main"]);
        // The course's server URL, as the Applications name it (the push went to the bare repo).
        git(&work, &["remote", "set-url", "origin", URL]);
        repo
    }

    fn at(&self, sub: &str) -> PathBuf {
        let work = self.dir.path().join("work");
        if sub == "." { work } else { work.join(sub) }
    }

    fn write(&self, path: &str, text: &str) {
        let full = self.at(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
        std::fs::write(full, text).expect("a file");
    }

    /// `labcheck plan --format json ARGS` run in `work/<cwd>`.
    fn plan(&self, cwd: &str, args: &[&str]) -> Run {
        Labcheck::new(self.dir.path())
            .current_dir(&self.at(cwd))
            .args(["plan", "--format", "json"])
            .args(args)
            .run()
    }
}

fn app(name: &str, path: &str, extra: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: {URL}\n    targetRevision: main\n    path: {path}\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: {name}\n{extra}"
    )
}

const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";

fn text<'j>(json: &'j Value, pointer: &str) -> &'j str {
    json.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

#[test]
fn the_application_in_a_subfolder_is_taken_for_its_folder_or_says_why_not() {
    let repo = Repo::new(
        "shop-config",
        &[
            (
                "shop-config/argocd/shop.yaml",
                &app("shop", "manifests", ""),
            ),
            ("shop-config/manifests/web.yaml", WEB),
            ("shop-config/other/web.yaml", WEB),
        ],
    );
    let taken = repo.plan("shop-config", &["manifests", "argocd"]);
    assert_eq!(taken.code, 0, "{}", taken.stderr);
    let json = taken.json();
    assert_eq!(json["application"]["name"], "shop");
    assert!(
        text(&json, "/application/taken_because")
            .contains("its path `manifests` is the folder given"),
        "{json}"
    );
    assert_eq!(planned(&json), vec!["Deployment/web"]);
    assert!(json.get("applications_not_taken").is_none());

    // (args, cwd, what the reason says, what the way to take it says)
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (
            &["other", "argocd"],
            "shop-config",
            "its path `manifests` names another folder: the one given is `other`",
            "`labcheck plan manifests argocd/shop.yaml`",
        ),
        (
            &["shop-config/other", "shop-config/argocd"],
            "",
            "names another folder",
            "`labcheck plan shop-config/manifests shop-config/argocd/shop.yaml`",
        ),
    ];
    for (args, cwd, why, how) in cases {
        let run = repo.plan(cwd, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let json = run.json();
        assert!(json.get("application").is_none(), "{args:?}");
        let not_taken = &json["applications_not_taken"][0];
        assert_eq!(not_taken["name"], "shop");
        assert!(
            text(not_taken, "/why").contains(why),
            "{args:?}: {not_taken}"
        );
        assert!(
            text(not_taken, "/how").contains(how),
            "{args:?}: {not_taken}"
        );
        // Planned as an object, and said to be what a parent app of apps would do.
        assert!(planned(&json).contains(&"Application/shop".to_string()));
        assert!(
            text(not_taken, "/why").contains("that is what a parent app of apps"),
            "{not_taken}"
        );
    }
}

#[test]
fn a_copy_nested_in_another_repo_or_in_none_is_taken_only_with_app() {
    // The learner's shop-config lies inside a bigger git repo (the course notes), so its
    // Application's `manifests` is `course/shop-config/manifests` from the git root.
    let nested = Repo::new(
        ".",
        &[
            (
                "course/shop-config/argocd/shop.yaml",
                &app("shop", "manifests", ""),
            ),
            ("course/shop-config/manifests/web.yaml", WEB),
        ],
    );
    let args = ["course/shop-config/manifests", "course/shop-config/argocd"];
    let json = nested.plan(".", &args).json();
    let not_taken = &json["applications_not_taken"][0];
    assert!(
        text(not_taken, "/why").contains("its repository root is elsewhere")
            && text(not_taken, "/why").contains("course/shop-config"),
        "{not_taken}"
    );
    assert_eq!(not_taken["how"], "`--app shop` takes it for this folder");
    let with_app = nested.plan(".", &["--app", "shop", args[0], args[1]]);
    assert_eq!(with_app.code, 0, "{}", with_app.stderr);
    let json = with_app.json();
    assert_eq!(json["application"]["name"], "shop");
    assert!(
        text(&json, "/application/taken_because").contains("named with `--app`"),
        "{json}"
    );
    assert_eq!(planned(&json), vec!["Deployment/web"]);

    // A plain copy in no git repository at all.
    let plain = tempfile::tempdir().expect("a temp dir");
    for (path, body) in [
        ("argocd/shop.yaml", app("shop", "manifests", "")),
        ("manifests/web.yaml", WEB.to_string()),
    ] {
        let full = plain.path().join(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
        std::fs::write(full, body).expect("a file");
    }
    let run = Labcheck::new(plain.path())
        .current_dir(plain.path())
        .args(["plan", "--format", "json", "manifests", "argocd"])
        .run();
    let json = run.json();
    assert!(
        text(&json, "/applications_not_taken/0/why").contains("is in no git repository"),
        "{json}"
    );
}

#[test]
fn files_given_instead_of_a_folder_plan_the_application_as_an_object_and_say_so() {
    let repo = Repo::new(
        "shop-config",
        &[
            (
                "shop-config/argocd/shop.yaml",
                &app(
                    "shop",
                    "manifests",
                    "  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n",
                ),
            ),
            ("shop-config/manifests/web.yaml", WEB),
        ],
    );
    let files = ["manifests/web.yaml", "argocd/shop.yaml"];
    let json = repo.plan("shop-config", &files).json();
    assert_eq!(planned(&json), vec!["Deployment/web", "Application/shop"]);
    let not_taken = &json["applications_not_taken"][0];
    assert!(
        text(not_taken, "/why").starts_with("files were given, not a folder")
            && text(not_taken, "/why").contains("parent app of apps"),
        "{not_taken}"
    );
    assert!(
        text(not_taken, "/how").contains("`--app shop`")
            && text(not_taken, "/how").contains("`labcheck plan --follow argocd/shop.yaml`"),
        "{not_taken}"
    );

    let with_app = repo.plan("shop-config", &["--app", "shop", files[0], files[1]]);
    let json = with_app.json();
    assert_eq!(
        planned(&json),
        vec!["Namespace/shop", "Deployment/web"],
        "its settings apply and it is no step of its own sync"
    );
    assert!(
        text(&json, "/application/taken_because").contains("files were given"),
        "{json}"
    );
}

#[test]
fn the_applications_settings_count_for_plan_and_rules_as_annotations_do() {
    let config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-env\n  annotations:\n    argocd.argoproj.io/sync-wave: \"-1\"\n";
    let job = |annotations: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: shop-migrate\n  annotations:\n    argocd.argoproj.io/sync-wave: \"0\"\n{annotations}spec:\n  backoffLimit: 0\n  activeDeadlineSeconds: 600\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: migrate\n          image: registry.course.local/shop:1.4.0\n          command: [php, artisan, migrate, --force, --isolated]\n          envFrom: [{{configMapRef: {{name: shop-env}}}}]\n"
        )
    };
    let web = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: registry.course.local/shop:1.4.0}]\n";
    // (where Replace=true is written, the Application's syncPolicy, the Job's annotations)
    let cases = [
        (
            "the Application",
            "  syncPolicy:\n    automated: {}\n    syncOptions: [Replace=true]\n",
            String::new(),
        ),
        (
            "the Job",
            "  syncPolicy:\n    automated: {}\n",
            "    argocd.argoproj.io/sync-options: Replace=true\n".to_string(),
        ),
    ];
    let mut seen = Vec::new();
    for (place, policy, annotations) in cases {
        let repo = Repo::new(
            "shop-config",
            &[
                (
                    "shop-config/argocd/shop.yaml",
                    &app("shop", "manifests", policy),
                ),
                ("shop-config/manifests/config.yaml", config),
                ("shop-config/manifests/migrate.yaml", &job(&annotations)),
                ("shop-config/manifests/web.yaml", web),
            ],
        );
        let run = repo.plan("shop-config", &["--rules", "manifests", "argocd"]);
        let json = run.json();
        let job_task = json["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .flat_map(|s| s["tasks"].as_array().into_iter().flatten())
            .find(|t| t["kind"] == "Job")
            .cloned()
            .unwrap_or(Value::Null);
        assert!(
            text(&job_task, "/apply_mode").contains("Replace=true"),
            "{place}: {job_task}"
        );
        let rules: Vec<String> = json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["rule"].as_str().unwrap_or("").to_string())
            .collect();
        assert!(
            !rules.contains(&"migration-outside-presync".to_string()),
            "{place}: no rule may say it has no Replace=true: {rules:?}"
        );
        assert!(
            rules.contains(&"retry-with-migration".to_string()),
            "{place}: automated, no retry block, a replaced migration: {rules:?}"
        );
        assert_eq!(run.code, 1);
        seen.push(rules);
    }
    assert_eq!(seen[0], seen[1], "the same settings, the same findings");
}

#[test]
fn follow_from_the_root_application_file_plans_each_childs_folder_from_where_you_stand() {
    let wave = |n: &str| format!("  annotations:\n    argocd.argoproj.io/sync-wave: \"{n}\"\n");
    let child = |name: &str, path: &str, n: &str| {
        app(name, path, "").replacen(
            "  namespace: argocd\n",
            &format!("  namespace: argocd\n{}", wave(n)),
            1,
        )
    };
    let repo = Repo::new(
        "platform",
        &[
            ("platform/root-app.yaml", &app("root", "apps", "")),
            (
                "platform/apps/shop.yaml",
                &child("shop", "envs/dev/shop", "1"),
            ),
            ("platform/apps/db.yaml", &child("db", "envs/dev/db", "0")),
            ("platform/envs/dev/shop/web.yaml", WEB),
            (
                "platform/envs/dev/db/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [db.yaml]\n",
            ),
            ("platform/docs/README.md", "notes\n"),
        ],
    );
    let run = repo.plan("platform/docs", &["--follow", "../root-app.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["application"]["name"], "root");
    assert!(
        text(&json, "/application/taken_because").contains("root Application in ../root-app.yaml"),
        "{json}"
    );
    assert_eq!(planned(&json), vec!["Application/db", "Application/shop"]);
    let children = json["children"].as_array().expect("children");
    let shop = children.iter().find(|c| c["name"] == "shop").expect("shop");
    assert_eq!(shop["folder"], "../envs/dev/shop");
    assert_eq!(
        text(shop, "/plan/steps/0/tasks/0/source"),
        "../envs/dev/shop/web.yaml:1"
    );
    let db = children.iter().find(|c| c["name"] == "db").expect("db");
    assert!(
        text(db, "/not_followed")
            .contains("`kustomize build ../envs/dev/db | labcheck plan --app ../apps/db.yaml -`"),
        "{db}"
    );

    // The same root from the repo's top: the same plan, paths from there.
    let top = repo.plan("platform", &["--follow", "root-app.yaml"]).json();
    let shop = top["children"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "shop"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(shop["folder"], "envs/dev/shop");
}

#[test]
fn a_kustomize_folder_or_its_file_is_rendered_first_as_a_helm_folder_is() {
    let repo = Repo::new(
        "shop-config",
        &[
            (
                "shop-config/argocd/shop.yaml",
                &app("shop", "overlays/dev", "").replace(
                    "    path: overlays/dev\n",
                    "    path: overlays/dev\n    kustomize:\n      namePrefix: dev-\n",
                ),
            ),
            (
                "shop-config/overlays/dev/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../../base]\n",
            ),
            ("shop-config/base/web.yaml", WEB),
            (
                "shop-config/chart/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
            ),
        ],
    );
    // (args, what the error must hold)
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["overlays/dev"],
            &[
                "is a Kustomize folder",
                "`kustomize build overlays/dev | labcheck plan -`",
            ],
        ),
        (
            &["overlays/dev/kustomization.yaml"],
            &[
                "is its Kustomize file, not a manifest",
                "`kustomize build overlays/dev | labcheck plan -`",
            ],
        ),
        (
            &["overlays/dev", "argocd"],
            &[
                "its Application has `kustomize:`",
                "`kustomize build overlays/dev | labcheck plan --app argocd/shop.yaml -`",
                "which `kustomize build` alone leaves out",
            ],
        ),
        (
            &["chart/Chart.yaml"],
            &[
                "is a Helm folder",
                "`helm template NAME chart | labcheck plan -`",
            ],
        ),
    ];
    for (args, holds) in cases {
        let run = repo.plan("shop-config", args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        for h in *holds {
            assert!(
                run.stderr.contains(h),
                "{args:?}: {h} not in {}",
                run.stderr
            );
        }
    }
}

#[test]
fn what_argo_cd_resolves_before_it_renders_is_checked_as_the_repo_server_checks_it() {
    let sources = |chart_values: &str, ref_name: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\nspec:\n  sources:\n  - repoURL: {URL}\n    targetRevision: main\n    path: manifests\n  - repoURL: https://stefanprodan.github.io/podinfo\n    chart: podinfo\n    targetRevision: 6.7.*\n    helm:\n      valueFiles: [{chart_values}]\n  - repoURL: {URL}\n    targetRevision: main\n    ref: {ref_name}\n  destination: {{namespace: shop}}\n"
        )
    };
    let helm = |files: &str| {
        app("shop", "chart", "").replace(
            "    path: chart\n",
            &format!("    path: chart\n    helm:\n      valueFiles: [{files}]\n"),
        )
    };
    // (the Application, exit code, what stderr or the notes hold)
    let cases: Vec<(String, i32, &str)> = vec![
        (
            sources("$values/envs/dev.yaml", "valuez"),
            2,
            "source referenced \"$values\", which is not one of the available sources ($valuez)",
        ),
        (
            sources("$values/envs/dev.yaml", "values.dev"),
            2,
            "sources.ref values.dev cannot contain any special characters except '_' and '-'",
        ),
        (
            sources("$values/envs/prod.yaml", "values"),
            2,
            "value file `$values/envs/prod.yaml` does not exist",
        ),
        (
            sources("$values/envs/dev.yaml", "values"),
            0,
            "chart `podinfo` floats: `targetRevision: 6.7.*` is a version range",
        ),
        (
            sources("$values/envs/dev.yaml", "values"),
            0,
            "source 2 (chart `podinfo` 6.7.* from https://stefanprodan.github.io/podinfo) is rendered and synced with it too",
        ),
        (
            helm("values-prod.yaml"),
            2,
            "value file `values-prod.yaml` does not exist",
        ),
        (
            helm("../../outside.yaml"),
            2,
            "file '../../outside.yaml' resolved to outside repository root",
        ),
        (
            helm("values-dev.yaml, /envs/dev.yaml, values-dev.yaml"),
            2,
            "`helm template shop chart --namespace shop -f chart/values-dev.yaml -f envs/dev.yaml | labcheck plan --app argocd/shop.yaml -`",
        ),
    ];
    for (application, code, holds) in &cases {
        let repo = Repo::new(
            "shop-config",
            &[
                ("shop-config/argocd/shop.yaml", application),
                ("shop-config/manifests/web.yaml", WEB),
                ("shop-config/envs/dev.yaml", "replicas: 1\n"),
                (
                    "shop-config/chart/Chart.yaml",
                    "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
                ),
                ("shop-config/chart/values-dev.yaml", "replicas: 1\n"),
            ],
        );
        let folder = if application.contains("path: chart") {
            "chart"
        } else {
            "manifests"
        };
        let run = repo.plan("shop-config", &[folder, "argocd"]);
        assert_eq!(run.code, *code, "{holds}: {}{}", run.stdout, run.stderr);
        let said = if *code == 0 {
            run.json()["application_notes"].to_string()
        } else {
            run.stderr.clone()
        };
        assert!(said.contains(holds), "{holds} not in {said}");
        if *code == 2 && holds.contains("does not exist") {
            assert!(said.contains("ComparisonError"), "{said}");
        }
    }
}

#[test]
fn a_floating_target_revision_says_what_argo_cd_reads_instead_of_these_files() {
    let repo = Repo::new(
        "shop-config",
        &[
            (
                "shop-config/argocd/shop.yaml",
                &app("shop", "manifests", ""),
            ),
            ("shop-config/manifests/web.yaml", WEB),
        ],
    );
    let work = repo.at("shop-config");
    git(&work, &["tag", "v1.4.0"]);
    let note = |revision: &str| {
        repo.write(
            "shop-config/argocd/shop.yaml",
            &app("shop", "manifests", "").replace(
                "targetRevision: main",
                &format!("targetRevision: {revision}"),
            ),
        );
        repo.plan("shop-config", &["manifests", "argocd"]).json()["application_notes"].to_string()
    };
    // (targetRevision, what the note says)
    let cases = [
        (
            "HEAD",
            "floats: Argo CD syncs the newest commit of the remote's default branch",
        ),
        ("v1.4.0", "pins a tag"),
        (
            "1.4.*",
            "a semver range, so Argo CD syncs the newest tag that matches it",
        ),
        ("release-2", "neither a branch nor a tag this clone knows"),
        ("main", "floats with branch `main`"),
    ];
    for (revision, says) in cases {
        let notes = note(revision);
        assert!(notes.contains(says), "{revision}: {notes}");
    }
    // On another branch, the note says the plan is not yet what Argo CD reads.
    git(&work, &["checkout", "-q", "-b", "feature/faster-web"]);
    let notes = note("main");
    assert!(
        notes.contains("You are on branch `feature/faster-web` here"),
        "{notes}"
    );
}

#[test]
fn the_human_plan_says_which_application_it_is_for_and_why_not_the_others() {
    let repo = Repo::new(
        "shop-config",
        &[
            (
                "shop-config/argocd/shop.yaml",
                &app("shop", "manifests", ""),
            ),
            (
                "shop-config/argocd/shop-prod.yaml",
                &app("shop-prod", "envs/prod", ""),
            ),
            ("shop-config/manifests/web.yaml", WEB),
            ("shop-config/envs/prod/web.yaml", WEB),
        ],
    );
    let human = |args: &[&str]| {
        let run = Labcheck::new(repo.dir.path())
            .current_dir(&repo.at("shop-config"))
            .arg("plan")
            .args(args)
            .run();
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let folder = human(&["manifests", "argocd"]);
    let files = human(&["manifests/web.yaml", "argocd/shop.yaml"]);
    insta::assert_snapshot!(format!(
        "$ labcheck plan manifests argocd\n{folder}\n$ labcheck plan manifests/web.yaml argocd/shop.yaml\n{files}"
    ));
}
