//! Each rule fires on a bad example and stays quiet on the article's good one (the solved shop of
//! module 11 plus a guarded Magento upgrade).

use crate::plan::{Plan, PlanOptions, parse_manifests};
use crate::rules::{Severity, check};

const MAGENTO_GOOD: &str = r#"apiVersion: batch/v1
kind: Job
metadata:
  name: magento-upgrade
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 1800
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: upgrade
          image: registry.example.nl/magento:2026.10.3
          command: ["/bin/sh", "-c"]
          args:
            - |
              php bin/magento setup:db:status
              status=$?
              if [ "$status" -eq 2 ]; then
                php bin/magento setup:upgrade --keep-generated --no-interaction
              fi
"#;

/// Module 11's shop-config files at a point of the course, as its lab and solutions make them.
struct Shop {
    config: String,
    migrate: String,
    web: String,
    workers: String,
    smoke_test: String,
    application: String,
}

fn read_shop(point: &str) -> Shop {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temp dir: {e}"));
    let world = crate::lab::cache::at(&dir.path().join("lab"), "module-11", point)
        .unwrap_or_else(|e| panic!("module 11 at {point}: {e}"));
    let file = |path: &str| world.file("shop-config", path).unwrap_or_default();
    Shop {
        config: file("manifests/config.yaml"),
        migrate: file("manifests/migrate-job.yaml"),
        web: file("manifests/web.yaml"),
        workers: file("manifests/workers.yaml"),
        smoke_test: file("manifests/smoke-test.yaml"),
        application: file("argocd/shop-dev.yaml"),
    }
}

/// The shop as the team left it (every pitfall).
fn fresh() -> &'static Shop {
    static SHOP: std::sync::OnceLock<Shop> = std::sync::OnceLock::new();
    SHOP.get_or_init(|| read_shop("fresh"))
}

/// The shop once the module's steps are done (the article's good example).
fn solved() -> &'static Shop {
    static SHOP: std::sync::OnceLock<Shop> = std::sync::OnceLock::new();
    SHOP.get_or_init(|| read_shop("step-4"))
}

fn good_shop() -> Vec<String> {
    vec![
        solved().config.clone(),
        solved().migrate.clone(),
        solved().web.clone(),
        solved().workers.clone(),
        solved().smoke_test.clone(),
        solved().application.clone(),
        MAGENTO_GOOD.to_string(),
    ]
}

/// Rule ids found (with the object) when the files are planned together.
fn found(files: &[String]) -> Vec<(String, String)> {
    let mut objects = Vec::new();
    for (i, text) in files.iter().enumerate() {
        match parse_manifests(&format!("f{i}.yaml"), text) {
            Ok(o) => objects.extend(o),
            Err(e) => panic!("{e}"),
        }
    }
    let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
    check(&plan)
        .into_iter()
        .map(|f| (f.rule.to_string(), f.object))
        .collect()
}

/// The good shop with one file replaced.
fn shop_with(index: usize, text: &str) -> Vec<(String, String)> {
    let mut files = good_shop();
    files[index] = text.to_string();
    found(&files)
}

fn pair(rule: &str, object: &str) -> (String, String) {
    (rule.to_string(), object.to_string())
}

#[test]
fn the_articles_good_example_is_quiet() {
    assert_eq!(found(&good_shop()), vec![]);
}

#[test]
fn the_shop_as_the_team_left_it_trips_every_laravel_rule() {
    let files = vec![
        fresh().config.clone(),
        fresh().migrate.clone(),
        fresh().web.clone(),
        fresh().workers.clone(),
        fresh().application.clone(),
    ];
    let rules: Vec<String> = found(&files).into_iter().map(|(r, _)| r).collect();
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
        assert!(rules.iter().any(|r| r == rule), "{rule} in {rules:?}");
    }
}

#[test]
fn config_in_the_sync_phase_is_too_late_for_a_presync_job() {
    assert_eq!(
        shop_with(0, &fresh().config),
        vec![
            pair("presync-config-in-sync-phase", "Job/shop-migrate"),
            pair("presync-config-in-sync-phase", "Job/shop-migrate"),
        ]
    );
}

#[test]
fn config_in_the_same_presync_wave_is_applied_first_and_is_fine() {
    let same_wave = solved()
        .config
        .replace("sync-wave: \"-1\"", "sync-wave: \"0\"");
    assert_eq!(shop_with(0, &same_wave), vec![]);
}

#[test]
fn a_secret_made_by_an_external_secret_in_the_sync_phase_is_too_late() {
    let external = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-env
  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: "-1"}
---
apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: shop-external
  annotations: {argocd.argoproj.io/sync-wave: "-1"}
spec:
  target: {name: shop-secrets}
"#;
    assert_eq!(
        shop_with(0, external),
        vec![pair("presync-config-in-sync-phase", "Job/shop-migrate")]
    );
}

#[test]
fn a_migration_that_retries_or_has_no_deadline_is_flagged() {
    let retries = solved()
        .migrate
        .replace("  backoffLimit: 0\n", "  backoffLimit: 3\n")
        .replace("  activeDeadlineSeconds: 900\n", "");
    assert_eq!(
        shop_with(1, &retries),
        vec![
            pair("migration-backoff-limit", "Job/shop-migrate"),
            pair("migration-deadline", "Job/shop-migrate"),
        ]
    );
}

#[test]
fn a_migration_on_another_tag_than_the_deployments_is_flagged_once() {
    let older = solved().migrate.replace("shop:1.42.0", "shop:1.41.0");
    assert_eq!(
        shop_with(1, &older),
        vec![pair("migration-image-tag", "Job/shop-migrate")]
    );
}

#[test]
fn hook_succeeded_or_hook_failed_on_a_migration_loses_its_log() {
    for policy in [
        "HookSucceeded",
        "HookFailed",
        "BeforeHookCreation,HookFailed",
    ] {
        let text = solved().migrate.replace(
            "hook-delete-policy: BeforeHookCreation",
            &format!("hook-delete-policy: {policy}"),
        );
        assert_eq!(
            shop_with(1, &text),
            vec![pair("migration-delete-policy", "Job/shop-migrate")],
            "{policy}"
        );
    }
}

#[test]
fn artisan_migrate_needs_force_and_isolated() {
    let bare = solved().migrate.replace(
        r#"["php", "artisan", "migrate", "--force", "--isolated"]"#,
        r#"["sh", "-c", "php artisan migrate && php artisan config:cache"]"#,
    );
    assert_eq!(
        shop_with(1, &bare),
        vec![
            pair("laravel-migrate-force", "Job/shop-migrate"),
            pair("laravel-migrate-isolated", "Job/shop-migrate"),
        ]
    );
}

#[test]
fn magento_upgrade_without_keep_generated_or_a_status_guard_is_flagged() {
    let bare = MAGENTO_GOOD
        .replace("--keep-generated ", "")
        .replace("              php bin/magento setup:db:status\n", "");
    assert_eq!(
        shop_with(6, &bare),
        vec![
            pair("magento-keep-generated", "Job/magento-upgrade"),
            pair("magento-db-status", "Job/magento-upgrade"),
        ]
    );
}

#[test]
fn a_helm_pre_install_hook_that_creates_a_database_is_a_note() {
    let create = r#"apiVersion: batch/v1
kind: Job
metadata:
  name: shop-db-create
  annotations: {helm.sh/hook: "pre-install", helm.sh/hook-weight: "-10"}
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: create
          image: mysql:8.4
          command: ["sh", "-c", "mysql -e 'CREATE DATABASE shop'"]
"#;
    let mut files = good_shop();
    files.push(create.to_string());
    assert_eq!(
        found(&files),
        vec![pair("helm-pre-install-every-sync", "Job/shop-db-create")]
    );
    files.pop();
    files.push(create.replace("CREATE DATABASE shop", "CREATE DATABASE IF NOT EXISTS shop"));
    assert_eq!(found(&files), vec![]);
}

#[test]
fn a_misspelt_hook_type_is_a_warning() {
    let typo = solved()
        .smoke_test
        .replace("hook: PostSync", "hook: Postsync");
    assert_eq!(
        shop_with(4, &typo),
        vec![pair("hook-type-unknown", "Job/shop-smoke-test")]
    );
}

#[test]
fn retry_without_a_presync_migration_is_quiet_and_with_limit_zero_too() {
    let mut files = good_shop();
    files[5] = fresh().application.clone();
    assert_eq!(
        found(&files),
        vec![pair("retry-with-migration", "Application/shop-dev")]
    );
    files[5] = fresh().application.clone().replace("limit: 5", "limit: 0");
    assert_eq!(found(&files), vec![]);
    let without_migration: Vec<String> = good_shop()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i != 1 && *i != 5 && *i != 6)
        .map(|(_, f)| f)
        .chain([fresh().application.clone()])
        .collect();
    assert_eq!(found(&without_migration), vec![]);
}

#[test]
fn workers_in_the_web_wave_are_a_note_not_a_warning() {
    let files = {
        let mut f = good_shop();
        f[3] = fresh().workers.clone();
        f[2] = fresh().web.clone();
        f
    };
    let mut objects = Vec::new();
    for (i, text) in files.iter().enumerate() {
        objects.extend(parse_manifests(&format!("f{i}.yaml"), text).unwrap_or_default());
    }
    let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
    let findings = check(&plan);
    assert_eq!(findings.len(), 2);
    assert!(
        findings
            .iter()
            .all(|f| f.rule == "workers-with-web" && f.severity == Severity::Note)
    );
}

#[test]
fn retry_is_read_as_argo_cd_reads_it() {
    // appcontroller.go: retry while `retryCount < limit || limit < 0`; automated sync without a
    // `retry:` block → `Limit: 5`; a block without `limit` → 0.
    let app = |policy: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: shop-dev, namespace: argocd}}\nspec:\n  project: default\n  syncPolicy:\n{policy}"
        )
    };
    let cases = [
        (
            "automated, no retry block: the default 5",
            "    automated: {prune: true}\n",
            true,
        ),
        (
            "automated, retry: null",
            "    automated: {}\n    retry: ~\n",
            true,
        ),
        (
            "automated, limit 3",
            "    automated: {}\n    retry: {limit: 3}\n",
            true,
        ),
        (
            "automated, negative limit",
            "    automated: {}\n    retry: {limit: -1}\n",
            true,
        ),
        ("manual, limit 2", "    retry: {limit: 2}\n", true),
        (
            "automated, explicit limit 0",
            "    automated: {}\n    retry: {limit: 0}\n",
            false,
        ),
        (
            "automated, a block without limit",
            "    automated: {}\n    retry: {backoff: {duration: 5s}}\n",
            false,
        ),
        (
            "automated, refresh only",
            "    automated: {}\n    retry: {refresh: true}\n",
            false,
        ),
        (
            "manual, no block",
            "    syncOptions: [CreateNamespace=true]\n",
            false,
        ),
        (
            "automation switched off",
            "    automated: {enabled: false}\n",
            false,
        ),
    ];
    for (case, policy, warns) in cases {
        let mut files = good_shop();
        files[5] = app(policy);
        let expected = if warns {
            vec![pair("retry-with-migration", "Application/shop-dev")]
        } else {
            vec![]
        };
        assert_eq!(found(&files), expected, "{case}");
    }
}

#[test]
fn the_default_retry_warning_says_to_write_limit_zero_not_to_remove_the_block() {
    let mut objects = Vec::new();
    let mut files = good_shop();
    // The learner took the retry block out (its lines, up to the next key of syncPolicy)
    // instead of writing `limit: 0`.
    let mut inside = false;
    files[5] = solved()
        .application
        .lines()
        .filter(|line| {
            if line.trim_end() == "    retry:" {
                inside = true;
            } else if inside && !line.starts_with("      ") {
                inside = false;
            }
            !inside
        })
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(!files[5].contains("retry"), "{}", files[5]);
    for (i, text) in files.iter().enumerate() {
        objects.extend(parse_manifests(&format!("f{i}.yaml"), text).unwrap_or_default());
    }
    let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
    let findings = check(&plan);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0].reason.contains("retries a failed sync 5 times"),
        "{}",
        findings[0].reason
    );
    assert!(
        findings[0]
            .fix
            .starts_with("set `spec.syncPolicy.retry: {limit: 0}` explicitly")
    );
}

const ARTICLE_LARAVEL: &str = include_str!("../../tests/fixtures/article-004/laravel-migrate.yaml");
const ARTICLE_SMOKE: &str =
    include_str!("../../tests/fixtures/article-004/laravel-smoke-test.yaml");
const ARTICLE_MAGENTO: &str = include_str!("../../tests/fixtures/article-004/magento-upgrade.yaml");

#[test]
fn the_articles_own_laravel_and_magento_jobs_are_warning_free() {
    let files = [ARTICLE_LARAVEL, ARTICLE_SMOKE, ARTICLE_MAGENTO].map(str::to_string);
    assert_eq!(found(&files), vec![]);
}

#[test]
fn words_in_an_echo_are_not_the_upgrade_but_the_real_upgrade_is_checked() {
    // The article's script with `--keep-generated` taken from the real command only: the echo
    // still says "setup:upgrade", and exactly one warning names the command that runs.
    let bad = ARTICLE_MAGENTO.replace(
        "php bin/magento setup:upgrade --keep-generated --no-interaction",
        "php bin/magento setup:upgrade --no-interaction",
    );
    assert_eq!(
        found(&[bad]),
        vec![pair("magento-keep-generated", "Job/magento-upgrade")]
    );
    let unguarded = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: magento-upgrade, annotations: {argocd.argoproj.io/hook: PreSync}}\nspec:\n  backoffLimit: 0\n  activeDeadlineSeconds: 600\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: upgrade\n          image: m:1\n          command: [/bin/sh, -c]\n          args: [\"echo 'run setup:db:status first'; php bin/magento setup:upgrade \\\\\\n  --keep-generated\"]\n";
    assert_eq!(
        found(&[unguarded.to_string()]),
        vec![pair("magento-db-status", "Job/magento-upgrade")]
    );
}

fn job(name: &str, annotations: &str, command: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  annotations:\n{annotations}spec:\n  backoffLimit: 0\n  activeDeadlineSeconds: 900\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: migrate\n          image: registry.example.nl/shop:1.42.0\n          command: {command}\n          envFrom:\n            - configMapRef:\n                name: shop-env\n"
    )
}

const CONFIG_WAVE_MINUS_1: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-env\n  annotations:\n    argocd.argoproj.io/sync-wave: \"-1\"\n";
const WEB_WAVE_1: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: shop-web\n  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\nspec:\n  template:\n    spec:\n      containers:\n        - {name: app, image: registry.example.nl/shop:1.42.0}\n";
const MIGRATE: &str = "[\"php\", \"artisan\", \"migrate\", \"--force\", \"--isolated\"]";

#[test]
fn the_articles_option_two_sync_phase_job_is_quiet() {
    let files = [
        CONFIG_WAVE_MINUS_1.to_string(),
        job(
            "shop-migrate-1-42-0",
            "    argocd.argoproj.io/sync-wave: \"0\"\n",
            MIGRATE,
        ),
        WEB_WAVE_1.to_string(),
    ];
    assert_eq!(found(&files), vec![]);
    let replace = job(
        "shop-migrate",
        "    argocd.argoproj.io/sync-wave: \"0\"\n    argocd.argoproj.io/sync-options: Replace=true\n",
        MIGRATE,
    );
    assert_eq!(
        found(&[
            CONFIG_WAVE_MINUS_1.to_string(),
            replace,
            WEB_WAVE_1.to_string()
        ]),
        vec![]
    );
}

#[test]
fn a_migration_outside_presync_warns_with_its_reason() {
    let cases = [
        (
            "a PostSync hook",
            job(
                "shop-migrate-1-42-0",
                "    argocd.argoproj.io/hook: PostSync\n",
                MIGRATE,
            ),
            "PostSync hook",
        ),
        (
            "same name every release",
            job(
                "shop-migrate",
                "    argocd.argoproj.io/sync-wave: \"0\"\n",
                MIGRATE,
            ),
            "same every release",
        ),
        (
            "deployments in the Job's wave",
            job(
                "shop-migrate-1-42-0",
                "    argocd.argoproj.io/sync-wave: \"1\"\n",
                MIGRATE,
            ),
            "not after the Job",
        ),
        (
            "config not earlier",
            job(
                "shop-migrate-1-42-0",
                "    argocd.argoproj.io/sync-wave: \"-1\"\n",
                MIGRATE,
            ),
            "not before the Job",
        ),
    ];
    for (case, migrate, reason) in cases {
        let mut objects = Vec::new();
        for (i, text) in [
            CONFIG_WAVE_MINUS_1.to_string(),
            migrate,
            WEB_WAVE_1.to_string(),
        ]
        .iter()
        .enumerate()
        {
            objects.extend(parse_manifests(&format!("f{i}.yaml"), text).unwrap_or_default());
        }
        let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
        let findings: Vec<_> = check(&plan)
            .into_iter()
            .filter(|f| f.rule == "migration-outside-presync")
            .collect();
        assert_eq!(findings.len(), 1, "{case}: {findings:?}");
        assert!(
            findings[0].reason.contains(reason),
            "{case}: {}",
            findings[0].reason
        );
    }
}

#[test]
fn a_column_dropped_by_the_migration_job_gets_the_expand_contract_note() {
    let drop = job(
        "shop-migrate",
        "    argocd.argoproj.io/hook: PreSync\n",
        "[\"sh\", \"-c\", \"mysql shop -e 'ALTER TABLE orders DROP COLUMN legacy_id' && php artisan migrate --force --isolated\"]",
    );
    let mut files = good_shop();
    files[1] = drop;
    assert_eq!(
        found(&files),
        vec![pair("expand-contract", "Job/shop-migrate")]
    );
    let add_nullable = job(
        "shop-migrate",
        "    argocd.argoproj.io/hook: PreSync\n",
        "[\"sh\", \"-c\", \"mysql shop -e 'ALTER TABLE orders ADD COLUMN channel varchar(20) NULL'\"]",
    );
    files[1] = add_nullable;
    assert_eq!(found(&files), vec![]);
}

#[test]
fn the_same_object_twice_is_a_warning_on_the_copy_argo_cd_keeps() {
    let mut files = good_shop();
    files.push(solved().smoke_test.clone());
    let mut objects = Vec::new();
    for (i, text) in files.iter().enumerate() {
        objects.extend(parse_manifests(&format!("f{i}.yaml"), text).unwrap_or_default());
    }
    let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
    let findings = check(&plan);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].rule, "duplicate-resource");
    assert_eq!(findings[0].source, "f7.yaml:1");
    assert!(findings[0].reason.starts_with(
        "Resource batch/Job//shop-smoke-test appeared 2 times among application resources."
    ));
}

#[test]
fn the_applications_replace_counts_for_the_rules_as_the_annotation_does() {
    // The same Sync-phase Job, `Replace=true` once on the Job and once on the Application:
    // the plan shows both replaced, so the rules must read both alike.
    let app = |options: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\nspec:\n  source: {{repoURL: http://git/shop.git, path: manifests}}\n  destination: {{namespace: shop}}\n  syncPolicy:\n    automated: {{}}\n    syncOptions: [{options}]\n"
        )
    };
    let plain = job(
        "shop-migrate",
        "    argocd.argoproj.io/sync-wave: \"0\"\n",
        MIGRATE,
    );
    let annotated = job(
        "shop-migrate",
        "    argocd.argoproj.io/sync-wave: \"0\"\n    argocd.argoproj.io/sync-options: Replace=true\n",
        MIGRATE,
    );
    let rules_on = |job: &str, options: &str| {
        let mut objects = Vec::new();
        for (i, text) in [CONFIG_WAVE_MINUS_1, job, WEB_WAVE_1].iter().enumerate() {
            objects.extend(parse_manifests(&format!("f{i}.yaml"), text).unwrap_or_default());
        }
        let app = parse_manifests("app.yaml", &app(options))
            .unwrap_or_default()
            .first()
            .and_then(crate::plan::AppSettings::of);
        let plan = Plan::new(
            objects,
            Vec::new(),
            &PlanOptions {
                app,
                ..PlanOptions::default()
            },
        );
        let replaced = plan
            .steps
            .iter()
            .flat_map(|s| s.tasks.iter())
            .any(|t| plan.object(t).kind == "Job" && plan.apply_mode(t).is_some());
        let mut rules: Vec<&'static str> = check(&plan).into_iter().map(|f| f.rule).collect();
        rules.sort();
        (replaced, rules)
    };
    let on_job = rules_on(&annotated, "CreateNamespace=true");
    let on_app = rules_on(&plain, "Replace=true");
    assert!(on_job.0 && on_app.0, "both are shown replaced");
    assert_eq!(on_job.1, vec!["retry-with-migration"]);
    assert_eq!(
        on_app.1, on_job.1,
        "the Application's Replace=true is read alike"
    );
    // Without Replace=true anywhere: the name rule fires, and a retry no longer re-runs it.
    assert_eq!(
        rules_on(&plain, "CreateNamespace=true").1,
        vec!["migration-outside-presync"]
    );
}
