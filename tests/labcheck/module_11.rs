//! Module 11 ("migrations as PreSync hooks") as shipped, on its lab world: every file step passes
//! once the learner did it, fails before with the rule's fix as the hint, and the cluster step is
//! could-not-check without a cluster.

use crate::plan::shop;

#[test]
fn every_file_step_passes_once_the_learner_did_it() {
    for step in ["step-1", "step-2", "step-3", "step-4"] {
        let point = step;
        let s = shop(point);
        let run = s.run(&["module-11", step, "--format", "json"]);
        assert_eq!(run.code, 0, "{step} at {point}: {}", run.stdout);
    }
}

#[test]
fn the_unsafe_migration_hook_fails_step_1_with_the_first_fix() {
    let s = shop("fresh");
    let run = s.run(&["module-11", "step-1", "--format", "json"]);
    assert_eq!(run.code, 1);
    let check = run.check("migration-job-safe");
    assert_eq!(check["status"], "fail");
    let summary = check["summary"].as_str().unwrap_or("");
    assert!(
        summary.starts_with("6 finding(s): migration-backoff-limit on Job/shop-migrate"),
        "{summary}"
    );
    assert!(
        check["hint"]
            .as_str()
            .unwrap_or("")
            .contains("set `spec.backoffLimit: 0`"),
        "{check}"
    );
    assert_eq!(run.check("migration-is-presync")["status"], "pass");
}

#[test]
fn config_left_in_the_sync_phase_fails_step_2_naming_create_container_config_error() {
    let s = shop("step-1");
    let run = s.run(&["module-11", "step-2", "--format", "json"]);
    assert_eq!(run.code, 1);
    let check = run.check("config-before-migration");
    assert_eq!(check["status"], "fail");
    assert_eq!(
        check["summary"],
        "2 finding(s): presync-config-in-sync-phase on Job/shop-migrate, presync-config-in-sync-phase on Job/shop-migrate"
    );
    assert!(
        check["diagnosis"]
            .as_str()
            .unwrap_or("")
            .contains("CreateContainerConfigError"),
        "{check}"
    );
    // Without rules, the order alone says what is wrong.
    assert_eq!(
        run.check("secret-before-migration")["summary"],
        "Job/shop-migrate (PreSync wave 0) is applied before Secret/shop-secrets (Sync wave -1); it must come after it"
    );
}

#[test]
fn workers_left_in_the_web_wave_fail_step_3_with_the_wave_to_set() {
    let s = shop("step-3");
    s.world
        .repo(crate::plan::REPO)
        .expect("shop-config")
        .write(
            "manifests/workers.yaml",
            &crate::plan::shop("fresh")
                .world
                .file(crate::plan::REPO, "manifests/workers.yaml")
                .expect("workers.yaml"),
        )
        .expect("edit");
    let run = s.run(&["module-11", "step-3", "--format", "json"]);
    assert_eq!(run.code, 1);
    let order = run.check("order");
    assert_eq!(
        order["summary"],
        "Deployment/shop-horizon (Sync wave 0) is applied in the same step as Deployment/shop-web (Sync wave 0); it must come after it"
    );
    let rule = run.check("workers-after-web");
    assert!(
        rule["hint"]
            .as_str()
            .unwrap_or("")
            .contains("`argocd.argoproj.io/sync-wave: \"1\"`"),
        "{rule}"
    );
    assert_eq!(run.check("pushed")["status"], "fail");
}

#[test]
fn a_missing_manifests_folder_fails_and_a_missing_repo_cannot_be_checked() {
    let s = shop("step-4");
    std::fs::remove_dir_all(s.world.work_dir().join("shop-config/argocd")).expect("rm");
    let run = s.run(&["module-11", "step-4", "--format", "json"]);
    assert_eq!(run.check("no-retry")["status"], "fail");
    std::fs::remove_dir_all(s.world.work_dir().join("shop-config")).expect("rm");
    let run = s.run(&["module-11", "step-4", "--format", "json"]);
    let check = run.check("no-retry");
    assert_eq!(check["status"], "error");
    assert!(
        check["hint"].as_str().unwrap_or("").contains("git clone"),
        "{check}"
    );
    assert_eq!(run.code, 3);
}

#[test]
fn the_sync_step_without_a_cluster_is_could_not_check_never_a_pass() {
    let s = shop("step-4");
    let run = s.run(&["module-11", "step-5", "--format", "json", "--no-wait"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    for check in run.json()["checks"].as_array().expect("checks") {
        assert_eq!(check["status"], "error", "{check}");
    }
}
