//! Hints that fit the state they are shown for: the course's text keyed by the cause at hand (or
//! the check's own alone where the course has none for it), and paths in the learner's own work
//! dir, shell-quoted. Real lab worlds; the cluster served from module 10's fixture states.

use labcheck::snapshot::Snapshot;

use crate::harness::{Run, World, labcheck};
use crate::module_10_cluster::{app_of, check_with, fixture};

/// A hint's parts as `(kind, from)`, in order.
fn parts(run: &Run, id: &str) -> Vec<(String, String)> {
    run.check(id)["hint_parts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["kind"].as_str().unwrap_or_default().to_string(),
                p["from"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn text(run: &Run, id: &str, field: &str) -> String {
    run.check(id)[field]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `snapshot` with checkout-dev Degraded because of its Deployment, as Argo CD records it: the
/// app's `status.health` and the resource's entry in `status.resources` (ResourceStatus with its
/// HealthStatus, argo-cd `pkg/apis/application/v1alpha1/types.go`), and no pod that tells more.
fn degraded_by_the_deployment(mut snapshot: Snapshot) -> Snapshot {
    snapshot
        .objects
        .retain(|o| o["kind"] != "Pod" || o["metadata"]["namespace"] != "checkout-dev");
    let app = app_of(&mut snapshot);
    app["status"]["health"] = serde_json::json!({"status": "Degraded"});
    app["status"]["resources"] = serde_json::json!([
        {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "checkout-dev",
         "name": "checkout", "status": "Synced",
         "health": {"status": "Degraded", "message": "Deployment \"checkout\" has 0 available replicas"}},
        {"version": "v1", "kind": "Service", "namespace": "checkout-dev", "name": "checkout",
         "status": "Synced", "health": {"status": "Healthy"}}
    ]);
    snapshot
}

/// Step 5's sync of the revert failed and left the app Degraded: the course's text for that cause
/// shows, never its generic "refresh and wait" line nor "sync it" (neither changes the state).
#[test]
fn an_app_degraded_after_a_failed_sync_gets_the_courses_text_for_that_cause_at_step_5() {
    let world = World::at("step-5");
    // Step 5's recorded state, Degraded by its Deployment with nothing more to name (no pod, no
    // condition): the course's text for that cause.
    let mut snapshot = degraded_by_the_deployment(fixture(&world, "step-5-solved.yaml"));
    app_of(&mut snapshot)["status"]["operationState"]["phase"] = serde_json::json!("Failed");
    let run = check_with(&world, &snapshot, "step-5");
    assert_eq!(
        text(&run, "synced-healthy", "status"),
        "fail",
        "{}",
        run.stdout
    );
    assert_eq!(
        text(&run, "synced-healthy", "cause"),
        "app-degraded:Deployment/checkout"
    );
    let hint = text(&run, "synced-healthy", "hint");
    assert!(
        hint.starts_with("A resource of checkout-dev is Degraded"),
        "{hint}"
    );
    for never in ["argocd app wait", "argocd app sync", "--refresh"] {
        assert!(!hint.contains(never), "`{never}` in {hint}");
    }
    let parts = parts(&run, "synced-healthy");
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0].0, "course");
    assert!(
        parts[0]
            .1
            .ends_with("step-5.yaml: hint.by_cause.app-degraded"),
        "{parts:?}"
    );
}

/// The break stage: the sync failed as it should, but the app is Degraded too. The course's
/// "sync, then wait" is not shown; its text for a Degraded app is.
#[test]
fn an_app_degraded_after_the_failed_sync_of_the_break_never_says_sync_again() {
    let world = World::at("break-it/break");
    let snapshot = degraded_by_the_deployment(fixture(&world, "break-it-solved.yaml"));
    let run = check_with(&world, &snapshot, "break-it/break");
    let id = "sync-failed-app-healthy";
    assert_eq!(text(&run, id, "status"), "fail", "{}", run.stdout);
    assert!(
        text(&run, id, "cause").starts_with("app-degraded:"),
        "{}",
        run.stdout
    );
    let hint = text(&run, id, "hint");
    assert!(!hint.contains("argocd app sync"), "{hint}");
    assert!(
        hint.contains("this stage changes only the smoke test's path"),
        "{hint}"
    );
}

/// The break pushed and seen, with no sync: the commit changes only the PostSync smoke test, and
/// Argo CD compares no hook, so the app reads Synced at the learner's commit while its last sync
/// is still step 5's; and a commit that changes only a hook starts no automated sync (seen on
/// Argo CD v3.6.2, `real-argocd-facts.md`). Waiting never runs the smoke test: the checks fail
/// asking for the sync the stage is about, never for a wait or a refresh.
#[test]
fn a_hook_only_push_argo_cd_has_seen_but_not_synced_asks_for_the_sync_never_a_wait() {
    // The break, and the fix's revert of it: each changes only the smoke test.
    let cases = [
        (
            "break-it/break",
            "break-it-not-seen-yet.yaml",
            ["sync-failed-app-healthy", "postsync-hook-failed"],
        ),
        (
            "break-it/fix",
            "break-it-fixed-not-seen-yet.yaml",
            ["sync-succeeded-healthy", "smoke-test-passed"],
        ),
    ];
    for (point, not_seen_yet, ids) in cases {
        let world = World::at(point);
        let pushed = world
            .repo("checkout-config")
            .git(&["rev-parse", "HEAD"])
            .expect("the learner's pushed commit")
            .trim()
            .to_string();
        let mut snapshot = fixture(&world, not_seen_yet);
        let sync = &mut app_of(&mut snapshot)["status"]["sync"];
        let revisions = sync["revisions"]
            .as_array_mut()
            .expect("a multi-source app's revisions");
        let values = revisions.len() - 1;
        revisions[values] = pushed.clone().into();
        assert_eq!(sync["status"], "Synced", "{point}");
        let run = check_with(&world, &snapshot, point);
        for id in ids {
            assert_eq!(
                text(&run, id, "status"),
                "fail",
                "{point} {id}: {}",
                run.stdout
            );
            let hint = text(&run, id, "hint");
            assert!(
                hint.contains("argocd app sync checkout-dev"),
                "{point} {id}: {hint}"
            );
            assert!(!hint.contains("--refresh"), "{point} {id}: {hint}");
            assert_eq!(
                run.check(id)["pending"],
                serde_json::Value::Null,
                "{point} {id}"
            );
        }
    }
}

/// A state the course has no text for (a crash loop, named by the check): the check's own
/// state-aware hint shows alone, without the course's generic "wait" default.
#[test]
fn a_cause_the_course_has_no_text_for_shows_the_checks_own_hint_alone() {
    let world = World::at("step-5");
    let run = check_with(&world, &fixture(&world, "step-5-degraded.yaml"), "step-5");
    assert_eq!(
        text(&run, "synced-healthy", "cause"),
        "pod-stuck:CrashLoopBackOff"
    );
    let hint = text(&run, "synced-healthy", "hint");
    assert!(!hint.contains("argocd app wait"), "{hint}");
    assert_eq!(
        parts(&run, "synced-healthy"),
        [("check".to_string(), "the argocd_app check".to_string())]
    );
}

/// A learner whose work dir is not `~/work` (and has a space in it), with step 2's change made
/// but not committed, gets the course's `cd … && git add -- helm/dev.yaml && git commit … && git push` with
/// their own path, quoted so that it pastes: a shell runs the `cd` and lands in their repo.
#[test]
fn a_work_dir_elsewhere_gets_the_hints_cd_with_its_own_path_quoted() {
    let world = World::at("step-1");
    let elsewhere = world.home().join("my labs");
    std::fs::rename(world.lab.work_dir(), &elsewhere).expect("the work dir moved");
    let values = elsewhere.join("checkout-config/helm/dev.yaml");
    let before = std::fs::read_to_string(&values).expect("helm/dev.yaml");
    std::fs::write(&values, format!("{before}migration:\n  enabled: true\n")).expect("edited");
    let shown = elsewhere.display().to_string();
    let run = labcheck(
        world.home(),
        &["module-10", "step-2", "-o", "json", "--work-dir", &shown],
    );
    assert_eq!(
        text(&run, "config-pushed", "cause"),
        "uncommitted-changes",
        "{}",
        run.stdout
    );
    let hint = text(&run, "config-pushed", "hint");
    let quoted = format!("cd '{shown}/checkout-config' && git add -- helm/dev.yaml");
    assert!(hint.starts_with(&quoted), "{hint}");
    assert!(!hint.contains("~/work"), "{hint}");
    assert!(!hint.contains("${work}"), "{hint}");
    // The `cd` part, run by a real shell, lands in the learner's repo.
    let cd = hint.split(" && ").next().unwrap_or_default();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{cd} && pwd -P"))
        .output()
        .expect("sh runs");
    let landed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let repo = elsewhere
        .join("checkout-config")
        .canonicalize()
        .expect("the repo");
    assert_eq!(landed, repo.display().to_string());
}

/// `-v` names where each part of a hint came from: the course file and key, or the check.
#[test]
fn verbose_names_the_course_file_and_key_of_each_hint_part() {
    let world = World::at("step-1");
    let run = labcheck(world.home(), &["module-10", "step-2", "-v", "--no-wait"]);
    // The check's own hint is named as the check's.
    assert!(
        run.stderr.lines().any(|l| l.starts_with(
            "labcheck: hint of step-2 · config-pushed (what the check saw): from the git check"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.lines().any(|l| l.starts_with(
            "labcheck: hint of step-2 · migration-enabled (the course's words): from "
        ) && l.ends_with("step-2.yaml: hint.by_cause.missing-in-file")),
        "{}",
        run.stderr
    );
}

/// Committed but not pushed: the course's `git add -- FILE && git commit … && git push` would stop at
/// the empty commit and never push, so it is not shown; the check's own `git push` is.
#[test]
fn committed_but_not_pushed_is_told_to_push_not_to_commit_again() {
    let world = World::at("step-1");
    let repo = world.repo("checkout-config");
    let values = world.lab.work_dir().join("checkout-config/helm/dev.yaml");
    let before = std::fs::read_to_string(&values).expect("helm/dev.yaml");
    repo.write(
        "helm/dev.yaml",
        &format!("{before}migration:\n  enabled: true\n"),
    )
    .expect("the learner edits");
    repo.commit_written("checkout: migration on")
        .expect("commit");
    let run = labcheck(
        world.home(),
        &["module-10", "step-2", "-o", "json", "--no-wait"],
    );
    assert_eq!(
        text(&run, "config-pushed", "cause"),
        "not-pushed",
        "{}",
        run.stdout
    );
    let hint = text(&run, "config-pushed", "hint");
    assert!(hint.contains("git push"), "{hint}");
    assert!(!hint.contains("git commit"), "{hint}");
}

/// A value the course asks for is in the learner's file with another value: the course's text
/// for that cause ("change it"), never "add `migration:`", which would give them the key twice
/// (Helm reads only the last). Without the key the course's "add" text stands.
#[test]
fn a_value_already_there_with_another_value_is_changed_never_added_twice() {
    let world = World::at("step-1");
    let repo = world.repo("checkout-config");
    let values = world.lab.work_dir().join("checkout-config/helm/dev.yaml");
    let before = std::fs::read_to_string(&values).expect("helm/dev.yaml");
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        // (what the learner wrote, step, check, cause, a word the hint must have)
        (
            "migration:\n  enabled: false\n",
            "step-2",
            "migration-enabled",
            "differs-in-file",
            "change its value",
        ),
        (
            "migration:\n  enabled: \"true\"\n",
            "step-2",
            "migration-enabled",
            "differs-in-file",
            "change its value",
        ),
        (
            "",
            "step-2",
            "smoke-test-enabled",
            "missing-in-file",
            "Add `smokeTest:`",
        ),
        (
            "migration:\n  enabled: true\n  fail: false\n",
            "step-4",
            "migration-fails",
            "differs-in-file",
            "change its value",
        ),
        (
            "smokeTest:\n  enabled: true\n  path: /status/200\n",
            "break-it/break",
            "smoke-path-503",
            "differs-in-file",
            "change its value",
        ),
        (
            "smokeTest:\n  enabled: true\n",
            "break-it/break",
            "smoke-path-503",
            "missing-in-file",
            "Add `path: /status/503`",
        ),
    ];
    for (written, step, check, cause, says) in cases {
        repo.write("helm/dev.yaml", &format!("{before}{written}"))
            .expect("the learner edits");
        let run = labcheck(
            world.home(),
            &["module-10", step, "-o", "json", "--no-wait"],
        );
        assert_eq!(
            text(&run, check, "cause"),
            *cause,
            "{written}\n{}",
            run.stdout
        );
        let hint = text(&run, check, "hint");
        assert!(hint.contains(says), "{written}: {hint}");
        if *cause == "differs-in-file" {
            assert!(!hint.contains("Add `"), "{written}: {hint}");
        }
    }
}

/// The break's sync failed as asked, but checkout-dev is not Healthy, on an Argo CD 3 that keeps
/// resource health in its tree (`status.resources[]` without `health`): what is not Healthy and
/// why is read from the Deployment (Kubernetes' `Progressing` condition, `ReplicaSet %q has timed
/// out progressing.`; Argo CD's `Waiting for rollout to finish: …`, gitops-engine
/// `health_deployment.go`), and the course's text for that cause shows, never "sync again".
#[test]
fn the_break_named_with_the_deployment_that_is_not_healthy_and_why() {
    let world = World::at("break-it/break");
    struct Case {
        health: &'static str,
        deployment_status: serde_json::Value,
        cause: &'static str,
        names: &'static str,
        course_key: &'static str,
    }
    let cases = [
        Case {
            health: "Degraded",
            deployment_status: serde_json::json!({
                "observedGeneration": 4, "replicas": 2, "updatedReplicas": 1, "readyReplicas": 1,
                "availableReplicas": 1, "unavailableReplicas": 1,
                "conditions": [
                    {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                     "message": "Deployment has minimum availability."},
                    {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                     "message": "ReplicaSet \"checkout-7c9d5f8b4\" has timed out progressing."}]}),
            cause: "progress-deadline-exceeded:checkout",
            names: "Deployment checkout: ProgressDeadlineExceeded (ReplicaSet \"checkout-7c9d5f8b4\" has timed out progressing.)",
            course_key: "",
        },
        Case {
            health: "Progressing",
            deployment_status: serde_json::json!({
                "observedGeneration": 4, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 0,
                "availableReplicas": 0, "unavailableReplicas": 1,
                "conditions": [
                    {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
                     "message": "ReplicaSet \"checkout-7c9d5f8b4\" is progressing."}]}),
            cause: "app-health:Progressing",
            names: "Deployment checkout: Progressing (Waiting for rollout to finish: 0 of 1 updated replicas are available...)",
            course_key: "hint.by_cause.app-health",
        },
    ];
    for case in cases {
        let mut snapshot = fixture(&world, "break-it-solved.yaml");
        let deployment = snapshot
            .objects
            .iter_mut()
            .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "checkout")
            .expect("the Deployment");
        deployment["metadata"]["generation"] = serde_json::json!(4);
        deployment["status"] = case.deployment_status;
        let app = app_of(&mut snapshot);
        app["status"]["health"] = serde_json::json!({"status": case.health});
        let run = check_with(&world, &snapshot, "break-it/break");
        let id = "sync-failed-app-healthy";
        assert_eq!(text(&run, id, "status"), "fail", "{}", run.stdout);
        assert_eq!(text(&run, id, "cause"), case.cause, "{}", run.stdout);
        let diagnosis = text(&run, id, "diagnosis");
        assert!(diagnosis.contains(case.names), "{diagnosis}");
        let hint = text(&run, id, "hint");
        assert!(!hint.contains("argocd app sync"), "{hint}");
        if !case.course_key.is_empty() {
            assert!(
                parts(&run, id)
                    .iter()
                    .any(|(kind, from)| kind == "course" && from.ends_with(case.course_key)),
                "{:?}",
                parts(&run, id)
            );
        }
    }
}
