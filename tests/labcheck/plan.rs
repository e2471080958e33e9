//! `labcheck plan` on the real binary: module 11's shop-config as the team left it and as the
//! learner fixes it, rendered Helm output on stdin, broken manifests.

use labcheck::lab::world::LabWorld;
use serde_json::Value;

use crate::harness::{Labcheck, Run, labcheck};

/// Module 11's work repo.
pub const REPO: &str = "shop-config";

pub struct Shop {
    _dir: tempfile::TempDir,
    pub world: LabWorld,
}

/// Module 11's world with every step up to `point` done, in a temp dir that doubles as HOME.
pub fn shop(point: &str) -> Shop {
    let dir = tempfile::tempdir().expect("a temp dir");
    let world = labcheck::lab::cache::at(dir.path(), "module-11", point)
        .unwrap_or_else(|e| panic!("module 11 at {point} builds: {e}"));
    Shop { _dir: dir, world }
}

impl Shop {
    fn dir(&self, sub: &str) -> String {
        self.world
            .work_dir()
            .join(REPO)
            .join(sub)
            .display()
            .to_string()
    }

    pub fn run(&self, args: &[&str]) -> Run {
        labcheck(self.world.root(), args)
    }

    /// Output with the temp dir replaced, for snapshots.
    fn stable(&self, text: &str) -> String {
        text.replace(&self.world.root().display().to_string(), "[HOME]")
    }
}

/// `labcheck ARGS` with `input` on stdin.
fn labcheck_stdin(args: &[&str], input: &str) -> Run {
    let home = tempfile::tempdir().expect("a temp dir");
    Labcheck::new(home.path()).args(args).stdin(input).run()
}

/// A planned task as `Kind/name`.
fn task_name(task: &Value) -> String {
    format!(
        "{}/{}",
        task["kind"].as_str().unwrap_or(""),
        task["name"].as_str().unwrap_or("")
    )
}

/// Every planned `Kind/name` in order, steps one after the other (none without a plan).
pub(crate) fn planned(json: &Value) -> Vec<String> {
    json["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["tasks"].as_array().into_iter().flatten())
        .map(task_name)
        .collect()
}

/// Each step as `Phase wave: Kind/name, …`.
fn steps(json: &Value) -> Vec<String> {
    json["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| {
            let names: Vec<String> = s["tasks"]
                .as_array()
                .expect("tasks")
                .iter()
                .map(task_name)
                .collect();
            format!(
                "{} {}: {}",
                s["phase"].as_str().unwrap_or(""),
                s["wave"],
                names.join(", ")
            )
        })
        .collect()
}

#[test]
fn the_fixed_shop_is_planned_in_argo_cds_order_with_waits_between_waves() {
    let s = shop("step-4");
    let run = s.run(&["plan", &s.dir("manifests")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!(s.stable(&run.stdout));
}

#[test]
fn a_presync_job_a_wave_minus_one_configmap_two_deployment_waves_and_a_postsync_job() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let files = [
        (
            "migrate.yaml",
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: db-migrate\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n",
        ),
        (
            "config.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  annotations:\n    argocd.argoproj.io/sync-wave: \"-1\"\n",
        ),
        (
            "web.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    argocd.argoproj.io/sync-wave: \"0\"\n",
        ),
        (
            "worker.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\n  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\n",
        ),
        (
            "smoke.yaml",
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke-test\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("a manifest");
    }
    let path = dir.path().display().to_string();
    let run = labcheck(dir.path(), &["plan", "--format", "json", &path]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(
        steps(&json),
        vec![
            "PreSync 0: Job/db-migrate",
            "Sync -1: ConfigMap/app-config",
            "Sync 0: Deployment/web",
            "Sync 1: Deployment/worker",
            "PostSync 0: Job/smoke-test",
        ]
    );
    let waits: Vec<Value> = json["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["waits"].clone())
        .collect();
    assert_eq!(waits[0][0]["until"], "completes");
    assert_eq!(waits[1], serde_json::json!([]));
    assert_eq!(waits[2][0]["until"], "healthy");
    assert_eq!(waits[2][0]["object"], "Deployment/web");
    assert_eq!(waits[4][0]["object"], "Job/smoke-test");
    assert_eq!(
        json["steps"][0]["tasks"][0]["delete_policies"],
        serde_json::json!(["BeforeHookCreation"])
    );
    assert_eq!(json["wave_delay_seconds"], 2);
}

#[test]
fn rules_on_the_shop_as_the_team_left_it_exit_1_and_name_each_pitfall() {
    let s = shop("fresh");
    let run = s.run(&[
        "plan",
        "--rules",
        "--format",
        "json",
        &s.dir("manifests"),
        &s.dir("argocd"),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let rules: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    for rule in [
        "presync-config-in-sync-phase",
        "migration-backoff-limit",
        "migration-deadline",
        "migration-image-tag",
        "migration-delete-policy",
        "laravel-migrate-force",
        "laravel-migrate-isolated",
        "retry-with-migration",
        "workers-with-web",
    ] {
        assert!(rules.contains(&rule), "{rule} missing in {rules:?}");
    }
    let first = &json["findings"][0];
    assert_eq!(first["severity"], "warning");
    assert!(
        first["source"]
            .as_str()
            .unwrap_or("")
            .ends_with("manifests/migrate-job.yaml:1"),
        "{first}"
    );
    assert!(
        first["reason"]
            .as_str()
            .unwrap_or("")
            .contains("CreateContainerConfigError")
    );
    assert_eq!(json["warnings"].as_u64(), Some(rules.len() as u64 - 2));
}

#[test]
fn rules_on_the_fixed_shop_find_nothing_and_exit_0() {
    let s = shop("step-4");
    let run = s.run(&["plan", "--rules", &s.dir("manifests"), &s.dir("argocd")]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.ends_with("Rules: nothing found\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn without_rules_the_plan_of_the_bad_shop_still_exits_0() {
    let s = shop("fresh");
    let run = s.run(&["plan", &s.dir("manifests")]);
    assert_eq!(run.code, 0);
    assert!(!run.stdout.contains("Rules:"));
}

#[test]
fn rendered_helm_output_on_stdin_translates_helm_hooks() {
    let rendered = "---\n# Source: shop/templates/db-create.yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: shop-db-create\n  annotations:\n    \"helm.sh/hook\": pre-install,pre-upgrade\n    \"helm.sh/hook-weight\": \"-5\"\n    \"helm.sh/hook-delete-policy\": hook-succeeded\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: c\n          image: mysql:8.4\n          command: [sh, -c, \"mysql -e 'CREATE DATABASE shop'\"]\n---\n# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-env\n";
    let run = labcheck_stdin(&["plan", "--rules", "--format", "json", "-"], rendered);
    assert_eq!(run.code, 0, "a note only: {}", run.stdout);
    let json = run.json();
    assert_eq!(
        steps(&json),
        vec![
            "PreSync -5: Job/shop-db-create",
            "Sync 0: ConfigMap/shop-env"
        ]
    );
    assert_eq!(
        json["steps"][0]["tasks"][0]["delete_policies"],
        serde_json::json!(["HookSucceeded"])
    );
    assert_eq!(json["steps"][0]["tasks"][0]["source"], "<stdin>:3");
    assert_eq!(json["findings"][0]["rule"], "helm-pre-install-every-sync");
    assert_eq!(json["findings"][0]["severity"], "note");
}

#[test]
fn a_broken_manifest_exits_2_naming_file_and_line() {
    let s = shop("step-4");
    s.world
        .repo(crate::plan::REPO)
        .expect("shop-config")
        .write("manifests/web.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: shop-web\n  annotations:\n    argocd.argoproj.io/sync-wave: 0\n")
        .expect("edit");
    let run = s.run(&["plan", &s.dir("manifests")]);
    assert_eq!(run.code, 2);
    assert_eq!(
        s.stable(&run.stderr),
        "labcheck: [HOME]/work/shop-config/manifests/web.yaml:1: `metadata.annotations[\"argocd.argoproj.io/sync-wave\"]` is a number; Kubernetes wants text, so quote it: `argocd.argoproj.io/sync-wave: \"0\"`\n"
    );
    let missing = s.run(&["plan", "no-such-dir"]);
    assert_eq!(missing.code, 2);
    missing.assert_stderr_has(&["no-such-dir does not exist"]);
}

#[test]
fn pruned_objects_go_highest_wave_first() {
    let s = shop("step-4");
    let live = tempfile::tempdir().expect("a temp dir");
    std::fs::write(
        live.path().join("old.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: old-worker, annotations: {argocd.argoproj.io/sync-wave: \"1\"}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: old-config, annotations: {argocd.argoproj.io/sync-wave: \"-1\"}}\n",
    )
    .expect("a live manifest");
    let live_path = live.path().display().to_string();
    let run = s.run(&[
        "plan",
        "--format",
        "json",
        "--pruned",
        &live_path,
        &s.dir("manifests"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    let pruned: Vec<(String, i64)> = json["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .flat_map(|s| {
            let wave = s["wave"].as_i64().unwrap_or(0);
            s["tasks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |t| (t, wave))
        })
        .filter(|(t, _)| t["prune"] == true)
        .map(|(t, wave)| (t["name"].as_str().unwrap_or("").to_string(), wave))
        .collect();
    assert_eq!(
        pruned,
        vec![
            ("old-worker".to_string(), -1),
            ("old-config".to_string(), 1)
        ]
    );
}

#[test]
fn plan_help_and_docs_name_every_rule_and_exit_code() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let help = labcheck(dir.path(), &["plan", "--help"]);
    assert_eq!(help.code, 0);
    help.assert_stdout_has(&["Exit codes: 0 no rule warned (or --rules not given), 1 a rule warned, 2 a path or manifest could not be read."]);
    let docs = include_str!("../../docs/plan.md");
    for rule in labcheck::rules::RULES {
        assert!(
            docs.contains(&format!("| `{}` | {} |", rule.id, rule.severity.as_str())),
            "docs/plan.md lacks {}",
            rule.id
        );
    }
    let top = labcheck(dir.path(), &["--help"]);
    top.assert_stdout_has(&["labcheck plan --rules DIR"]);
}

#[test]
fn the_articles_own_examples_are_warning_free_on_the_binary() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/article-004");
    let run = labcheck(
        dir.path(),
        &["plan", "--rules", "--format", "json", fixtures],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let json = run.json();
    assert_eq!(json["findings"], serde_json::json!([]));
    assert_eq!(
        steps(&json),
        vec![
            "PreSync 0: Job/magento-upgrade, Job/shop-migrate",
            "PostSync 0: Job/shop-smoke-test"
        ]
    );
    assert_eq!(json["multi_step"], true);
    assert_eq!(
        json["steps"][0]["delete_first"],
        serde_json::json!(["Job/magento-upgrade", "Job/shop-migrate"])
    );
}

#[test]
fn a_one_wave_sync_says_it_does_not_wait_for_the_deployment() {
    let rendered = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: seed, annotations: {argocd.argoproj.io/hook: Sync}}\n";
    let run = labcheck_stdin(&["plan", "-"], rendered);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.assert_stdout_has(&["One step only (one phase, one wave, SyncFail hooks counted): Argo CD waits for hooks but not for the health of Deployment/web"]);
    assert!(
        run.stdout
            .contains("→ waits until Job/seed has completed; then the sync has succeeded"),
        "{}",
        run.stdout
    );
}

#[test]
fn app_of_apps_waves_depend_on_argocd_cm_in_the_input() {
    let apps = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: db, annotations: {argocd.argoproj.io/sync-wave: '0'}}\n---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, annotations: {argocd.argoproj.io/sync-wave: '1'}}\n";
    let without = labcheck_stdin(&["plan", "--format", "json", "-"], apps);
    let json = without.json();
    assert_eq!(json["application_health"]["checked"], false);
    assert_eq!(json["steps"][0]["waits"], serde_json::json!([]));
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n  resource.customizations.health.argoproj.io_Application: |\n    hs = {}\n    hs.status = \"Progressing\"\n    if obj.status ~= nil and obj.status.health ~= nil then\n      hs.status = obj.status.health.status\n    end\n    return hs\n---\n";
    let with = labcheck_stdin(&["plan", "-"], &format!("{cm}{apps}"));
    with.assert_stdout_has(&["Applications: argocd-cm (<stdin>:1) gives them a health check (`resource.customizations.health.argoproj.io_Application`)"]);
    assert!(
        with.stdout
            .contains("Application/db: its health is Healthy"),
        "{}",
        with.stdout
    );
}

#[test]
fn a_duplicate_is_planned_once_and_warned_about() {
    let twice = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: env, namespace: shop}\ndata: {A: '1'}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: env}\ndata: {A: '2'}\n";
    let run = labcheck_stdin(&["plan", "--rules", "--namespace", "shop", "-"], twice);
    assert_eq!(run.code, 1, "{}", run.stdout);
    run.assert_stdout_has(&["Warning: Resource /ConfigMap/shop/env appeared 2 times among application resources. Argo CD applies only the last copy (<stdin>:6), not <stdin>:1", "duplicate-resource"]);
}

#[test]
fn a_migration_file_beside_the_manifests_gets_the_expand_contract_note() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir_all(dir.path().join("database/migrations")).expect("dirs");
    std::fs::write(
        dir.path().join("migrate.yaml"),
        include_str!("../fixtures/article-004/laravel-migrate.yaml"),
    )
    .expect("manifest");
    std::fs::write(
        dir.path().join("database/migrations/2026_01_01_000000_rename_name.php"),
        "<?php\nreturn new class extends Migration {\n    public function up(): void {\n        Schema::table('users', function (Blueprint $table) {\n            $table->renameColumn('name', 'full_name');\n        });\n    }\n};\n",
    )
    .expect("migration");
    let path = dir.path().display().to_string();
    let run = labcheck(dir.path(), &["plan", "--rules", "--format", "json", &path]);
    assert_eq!(run.code, 0, "a note only: {}", run.stdout);
    let json = run.json();
    assert_eq!(json["findings"][0]["rule"], "expand-contract");
    assert!(
        json["findings"][0]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("renames a column: `->renameColumn(`"),
        "{}",
        json["findings"][0]
    );
}
