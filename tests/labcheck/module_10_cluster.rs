//! Module 10's real check files against lab worlds AND their cluster, served over HTTP by labcheck's
//! Kubernetes-API server and read through kube: each step passes on the solved state and fails on the
//! broken states learners meet, with the check and hint that name the cause.

use labcheck::lab::cluster::{self, Revisions};
use labcheck::serve::{self, ServeOptions};
use labcheck::snapshot::Snapshot;
use serde_json::json;

use crate::harness::{MODULE_10_STEPS, Run, World, labcheck};

/// The step (or stage) a course point completes; the fresh lab is checked as step 1.
fn step_of(point: &str) -> &str {
    if point == "fresh" { "step-1" } else { point }
}

pub(crate) fn revisions(world: &World) -> Revisions {
    Revisions::of_world(&world.lab).expect("pushed revisions")
}

/// The lab at `point` with the cluster in the fixture state `state`, checked at `point`.
fn in_state(point: &str, state: &str) -> Run {
    let world = World::at(point);
    let snapshot = cluster::state(state, &revisions(&world)).expect("a fixture state");
    check_with(&world, &snapshot, point)
}

/// Run `step` in `world` with `snapshot` as the cluster (served in-process on loopback).
pub(crate) fn check_with(world: &World, snapshot: &Snapshot, step: &str) -> Run {
    let path = world.home().join("cluster.yaml");
    crate::harness::module_10_on_snapshot(world.home(), step, snapshot, &path).run()
}

/// Run step 4 in `world`, JSON out, no waiting, on the cluster `kubeconfig` names.
fn step_4_through(world: &World, kubeconfig: &std::path::Path) -> Run {
    labcheck(
        world.home(),
        &[
            "module-10",
            "step-4",
            "--format",
            "json",
            "--no-wait",
            "--kubeconfig",
            &kubeconfig.display().to_string(),
        ],
    )
}

pub(crate) fn hint(run: &Run, id: &str) -> String {
    run.check(id)["hint"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

pub(crate) fn status(run: &Run, id: &str) -> String {
    run.check(id)["status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn every_step_and_stage_passes_on_its_solved_state() {
    for point in MODULE_10_STEPS {
        let world = World::at(point);
        let snapshot = cluster::solved(point, &revisions(&world)).expect("a fixture state");
        let run = check_with(&world, &snapshot, step_of(point));
        assert_eq!(
            run.json()["status"],
            "pass",
            "{point}: {}\n{}",
            run.stdout,
            run.stderr
        );
        assert_eq!(run.code, 0, "{point}");
    }
}

#[test]
fn pushed_but_argo_cd_has_not_seen_it_fails_step_2_with_a_hint_to_refresh() {
    let run = in_state("step-2", "step-2-not-seen-yet");
    assert_eq!(status(&run, "config-pushed"), "pass");
    assert_eq!(status(&run, "app-synced"), "fail", "{}", run.stdout);
    assert!(
        hint(&run, "app-synced").contains("--refresh"),
        "{}",
        run.stdout
    );
    let diagnosis = run.check("app-synced")["diagnosis"].to_string();
    assert!(diagnosis.contains("Argo CD saw it"), "{diagnosis}");
}

#[test]
fn synced_but_no_sync_ran_the_hooks_fails_step_2_with_a_hint_to_sync() {
    let run = in_state("step-2", "step-2-hooks-never-synced");
    assert_eq!(status(&run, "app-synced"), "pass", "{}", run.stdout);
    assert_eq!(status(&run, "sync-ran"), "fail", "{}", run.stdout);
    assert!(
        hint(&run, "sync-ran").contains("argocd app sync checkout-dev"),
        "{}",
        run.stdout
    );
    assert_eq!(status(&run, "migrate-job-complete"), "fail");
    assert_eq!(run.code, 1);
}

#[test]
fn a_sync_still_running_fails_step_4_as_in_progress_with_a_hint_to_wait() {
    let run = in_state("step-4", "step-4-sync-running");
    let failed = run.check("sync-failed");
    assert_eq!(failed["status"], "fail", "{}", run.stdout);
    assert!(hint(&run, "sync-failed").contains("wait"), "{failed:#}");
    // The Deployment is untouched, but the sync it speaks of has not stopped yet: no ✓.
    assert_eq!(status(&run, "deployment-untouched"), "fail");
}

#[test]
fn jobs_left_by_step_2s_sync_neither_pass_nor_fail_step_4_on_their_own() {
    // Argo CD saw the push but the sync has not started: the Jobs in the cluster are step 2's.
    let run = in_state("step-4", "step-4-seen-not-synced");
    let migrate = run.check("migrate-job-failed");
    assert_eq!(migrate["status"], "fail", "{}", run.stdout);
    assert!(format!("{migrate}").contains("earlier sync"), "{migrate:#}");
    // The SyncFail hook never ran before: nothing to mistake for this step's.
    assert_eq!(status(&run, "syncfail-hook-ran"), "fail");
    assert!(
        hint(&run, "syncfail-hook-ran").contains("argocd app sync"),
        "{}",
        run.stdout
    );
    assert_eq!(status(&run, "sync-failed"), "fail");
}

#[test]
fn the_presync_failure_is_found_in_the_hook_entry_not_in_the_generic_message() {
    let world = World::at("step-4");
    let snapshot = cluster::solved("step-4", &revisions(&world)).expect("a fixture state");
    let yaml = snapshot.to_yaml().expect("yaml");
    assert!(yaml.contains("one or more synchronization tasks completed unsuccessfully"));
    let run = check_with(&world, &snapshot, "step-4");
    assert_eq!(
        status(&run, "presync-hook-failed"),
        "pass",
        "{}",
        run.stdout
    );
}

#[test]
fn a_postsync_failure_while_healthy_passes_the_break_stage_but_not_without_syncfail() {
    let world = World::at("break-it/break");
    let revs = revisions(&world);
    let broke = check_with(
        &world,
        &cluster::solved("break-it/break", &revs).expect("a fixture state"),
        "break-it/break",
    );
    assert_eq!(broke.json()["status"], "pass", "{}", broke.stdout);

    let no_syncfail = check_with(
        &world,
        &cluster::state("break-it-syncfail-never-ran", &revs).expect("a fixture state"),
        "break-it/break",
    );
    assert_eq!(
        status(&no_syncfail, "syncfail-hook-ran"),
        "fail",
        "{}",
        no_syncfail.stdout
    );
    assert_eq!(status(&no_syncfail, "postsync-hook-failed"), "pass");
}

#[test]
fn the_fix_stage_fails_while_argo_cd_still_shows_the_broken_sync() {
    let world = World::at("break-it/fix");
    let run = check_with(
        &world,
        &cluster::state("break-it-fixed-not-seen-yet", &revisions(&world))
            .expect("a fixture state"),
        "break-it/fix",
    );
    assert_eq!(status(&run, "head-is-revert"), "pass");
    assert_eq!(
        status(&run, "sync-succeeded-healthy"),
        "fail",
        "{}",
        run.stdout
    );
    assert_eq!(run.code, 1);
}

#[test]
fn without_argo_cd_the_cluster_checks_could_not_check_and_exit_3() {
    let world = World::at("step-2");
    let run = check_with(
        &world,
        &cluster::argo_cd_missing("module-10").expect("a fixture state"),
        "step-2",
    );
    let app = run.check("app-synced");
    assert_eq!(app["status"], "error", "{}", run.stdout);
    assert!(format!("{app}").contains("Argo CD"), "{app:#}");
    assert_eq!(status(&run, "config-pushed"), "pass");
    assert_eq!(run.json()["status"], "error");
    assert_eq!(run.code, 3);
}

#[test]
fn an_unreachable_cluster_is_could_not_check_within_seconds() {
    let world = World::at("step-4");
    // A port nothing listens on: bind, read the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let kubeconfig = world.home().join("closed.kubeconfig");
    serve::write_kubeconfig(&kubeconfig, &format!("http://127.0.0.1:{port}"), "closed")
        .expect("kubeconfig");
    let started = std::time::Instant::now();
    let run = step_4_through(&world, &kubeconfig);
    assert!(
        started.elapsed().as_secs() < 20,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(status(&run, "sync-failed"), "error", "{}", run.stdout);
    assert_eq!(status(&run, "tag-670"), "pass");
    assert_eq!(run.code, 3);
}

#[test]
fn forbidden_names_the_verb_and_resource_and_reads_nothing_twice() {
    let world = World::at("step-4");
    let snapshot = cluster::solved("step-4", &revisions(&world)).expect("a fixture state");
    let runtime = crate::harness::runtime();
    let options = ServeOptions {
        fail_with: Some(403),
        fail_resources: vec!["jobs".to_string()],
        ..ServeOptions::default()
    };
    let server = crate::harness::serve_on(&runtime, snapshot, options);
    let kubeconfig = world.home().join("served.kubeconfig");
    crate::harness::kubeconfig_at(&kubeconfig, &server.url(), "lab");
    let run = step_4_through(&world, &kubeconfig);
    let job = run.check("migrate-job-failed");
    assert_eq!(job["status"], "error", "{}", run.stdout);
    let text = format!("{job}");
    assert!(
        text.contains("forbidden") && text.contains("jobs"),
        "{job:#}"
    );
    assert_eq!(status(&run, "sync-failed"), "pass", "{}", run.stdout);
    assert_eq!(run.code, 3);

    let requests = server.requests.entries();
    assert!(server.requests.writes().is_empty(), "labcheck only reads");
    let mut paths: Vec<String> = requests
        .iter()
        .map(|r| format!("{}?{}", r.path, r.query.clone().unwrap_or_default()))
        .collect();
    let total = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!(
        paths.len(),
        total,
        "some object was fetched twice: {requests:#?}"
    );
    drop(server);
}

/// The human report with the temp dir and short SHAs (they follow the fixed commit dates) kept as is,
/// and the lab's home folder replaced so the snapshot does not depend on where the test ran.
fn human(world: &World, snapshot: &Snapshot, step: &str) -> String {
    let path = world.home().join("cluster.yaml");
    std::fs::write(&path, snapshot.to_yaml().expect("snapshot as YAML")).expect("write snapshot");
    let path = path.display().to_string();
    let run = labcheck(
        world.home(),
        &["module-10", step, "--no-wait", "--snapshot", &path],
    );
    run.stdout
        .replace(&world.home().display().to_string(), "[HOME]")
}

#[test]
fn the_human_report_of_a_passing_step_4() {
    let world = World::at("step-4");
    let snapshot = cluster::solved("step-4", &revisions(&world)).expect("a fixture state");
    insta::assert_snapshot!(human(&world, &snapshot, "step-4"));
}

#[test]
fn the_human_report_of_step_2_committed_but_not_pushed() {
    let world = World::in_state("step-2", "not-pushed");
    let snapshot = cluster::state("step-1-solved", &revisions(&world)).expect("a fixture state");
    insta::assert_snapshot!(human(&world, &snapshot, "step-2"));
}

#[test]
fn after_the_whole_module_steps_whose_state_was_replaced_are_skipped_not_failed() {
    let world = World::at("break-it/fix");
    let snapshot = cluster::solved("break-it/fix", &revisions(&world)).expect("a fixture state");
    let path = world.home().join("cluster.yaml");
    std::fs::write(&path, snapshot.to_yaml().expect("yaml")).expect("write");
    let path = path.display().to_string();
    let module = labcheck(
        world.home(),
        &[
            "module-10",
            "--format",
            "json",
            "--no-wait",
            "--snapshot",
            &path,
        ],
    );
    let steps = module.json()["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let status_of = |name: &str| {
        steps
            .iter()
            .find(|s| s["step"] == name)
            .map(|s| s["status"].as_str().unwrap_or_default().to_string())
            .unwrap_or_default()
    };
    assert_eq!(status_of("step-1"), "pass", "{}", module.stdout);
    assert_eq!(status_of("break-it/fix"), "pass");
    for replaced in ["step-4", "break-it/break"] {
        assert_eq!(status_of(replaced), "skip", "{replaced}: {}", module.stdout);
    }
    module.assert_stdout_has(&["replaced by break-it/fix"]);
    assert_eq!(module.json()["status"], "pass");
    assert_eq!(module.code, 0);

    // Asked about on its own, step 4 is judged as the module run judges it: replaced, never
    // failed with step 4's own hint (setting the 6.7.0 tag again would undo the learner's fix).
    let alone = check_with(&world, &snapshot, "step-4");
    assert_eq!(alone.json()["status"], "skip", "{}", alone.stdout);
    alone.assert_stdout_has(&["replaced by step-5"]);
    assert!(!alone.stdout.contains("\"hint\""), "{}", alone.stdout);
    assert_ne!(alone.code, 1, "{}", alone.stdout);
}

#[test]
fn step_2s_sync_still_running_is_in_progress_never_replaced_by_step_3_reading_it() {
    // The learner pushed step 2 and started the sync; its PostSync smoke test is still running.
    // Step 3 only reads that sync: it builds on step 2 and replaces nothing, so step 2 is judged
    // on what is there now — in progress, a fail with exit 1, never "replaced" and exit 0.
    let world = World::at("step-2");
    let snapshot =
        cluster::state("step-2-sync-running", &revisions(&world)).expect("a fixture state");
    let alone = check_with(&world, &snapshot, "step-2");
    assert_eq!(alone.code, 1, "{}{}", alone.stdout, alone.stderr);
    assert_eq!(alone.json()["status"], "fail", "{}", alone.stdout);
    assert!(!alone.stdout.contains("replaced"), "{}", alone.stdout);
    assert_eq!(status(&alone, "sync-ran"), "fail");
    assert!(
        field(&alone, "sync-ran", "summary").contains("is Running"),
        "{}",
        alone.stdout
    );

    let path = world.home().join("cluster.yaml");
    let path = path.display().to_string();
    let module = labcheck(
        world.home(),
        &["module-10", "-o", "json", "--no-wait", "--snapshot", &path],
    );
    let step_2 = module.json()["steps"]
        .as_array()
        .and_then(|steps| steps.iter().find(|s| s["step"] == "step-2").cloned())
        .unwrap_or_default();
    assert_eq!(step_2["status"], "fail", "{step_2:#}");
    assert!(step_2.get("skipped").is_none(), "{step_2:#}");
    assert_eq!(module.code, 1, "{}", module.stderr);
}

/// A state of `modules/module-10/fixtures/cluster`, its revision placeholders filled from `world`
/// (the same files `labcheck course test` runs; written from the facts files' shapes).
pub(crate) fn fixture(world: &World, file: &str) -> Snapshot {
    // Each placeholder filled in from its own repo, as `course test` fills it.
    let state = file.strip_suffix(".yaml").unwrap_or(file);
    cluster::state(state, &revisions(world)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

pub(crate) fn cause(run: &Run, id: &str) -> String {
    run.check(id)["cause"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

pub(crate) fn field(run: &Run, id: &str, name: &str) -> String {
    run.check(id)[name].as_str().unwrap_or_default().to_string()
}

/// The Application object of a snapshot, to edit a state into its neighbour.
pub(crate) fn app_of(snapshot: &mut Snapshot) -> &mut serde_json::Value {
    snapshot
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "Application" && o["metadata"]["name"] == "checkout-dev")
        .expect("checkout-dev in the snapshot")
}

#[test]
fn a_retrying_sync_is_named_retrying_with_its_attempt_never_failed_or_done() {
    let world = World::at("step-4");
    let run = check_with(&world, &fixture(&world, "step-4-retrying.yaml"), "step-4");
    for id in [
        "sync-failed",
        "presync-hook-failed",
        "migrate-job-failed",
        "syncfail-hook-ran",
    ] {
        assert_eq!(status(&run, id), "fail", "{id}: {}", run.stdout);
        assert_eq!(cause(&run, id), "retrying", "{id}: {}", run.stdout);
    }
    // The lab's own retry limit, as the recording holds it.
    let mut state = fixture(&world, "step-4-retrying.yaml");
    let limit = app_of(&mut state)["spec"]["syncPolicy"]["retry"]["limit"].clone();
    let summary = field(&run, "sync-failed", "summary");
    assert!(
        summary.contains(&format!("retry 1 of {limit}")),
        "{summary}"
    );
    // The course keys its "let Argo CD see your push, then wait" to the states it fits; a retrying
    // sync is not one of them, so the check's own hint shows alone: Argo CD refuses a sync while
    // it retries.
    let hint = hint(&run, "sync-failed");
    assert!(!hint.contains("Let Argo CD see your push"), "{hint}");
    assert!(
        hint.starts_with("Argo CD refuses a new sync while it retries")
            && hint.contains("argocd app terminate-op checkout-dev"),
        "{hint}"
    );
}

/// Step 4's recorded retry once the retry attempt runs: Argo CD has cleared the failed
/// attempt's results and finish time, and says `message`.
fn retry_running(world: &World, message: &str) -> Snapshot {
    let mut state = fixture(world, "step-4-retrying.yaml");
    let operation = &mut app_of(&mut state)["status"]["operationState"];
    operation["message"] = message.into();
    let operation = operation.as_object_mut().expect("an operation state");
    operation.remove("finishedAt");
    operation.remove("syncResult");
    state
}

/// The moment the retry starts, Argo CD v3.6.2 clears the failed attempt's results and finish
/// time (`controller/appcontroller.go`, "Retrying operation. Attempt #N"): the operation runs
/// again with nothing to read of the attempt. Every check of the failed release is still
/// waiting for the retry's end, never a fail of the attempt before nor "could not check".
#[test]
fn a_retry_that_has_just_started_with_no_results_yet_is_still_retrying() {
    let world = World::at("step-4");
    let state = retry_running(&world, "Retrying operation. Attempt #1");
    let run = check_with(&world, &state, "step-4");
    assert_still_retrying(
        &run,
        &[
            "sync-failed",
            "presync-hook-failed",
            "migrate-job-failed",
            "syncfail-hook-ran",
        ],
    );
}

/// Each of `ids` fails as still retrying, and no hint asks for a sync Argo CD would refuse.
fn assert_still_retrying(run: &Run, ids: &[&str]) {
    for id in ids {
        assert_eq!(status(run, id), "fail", "{id}: {}", run.stdout);
        assert_eq!(cause(run, id), "retrying", "{id}: {}", run.stdout);
        let hint = hint(run, id);
        assert!(!hint.contains("argocd app sync"), "{id}: {hint}");
    }
}

/// A moment later the retry's PreSync deletes the failed migration Job (BeforeHookCreation)
/// before it makes the new one: with the Job and its pod gone, the checks still wait for the
/// retry; none asks the learner to run a sync Argo CD would refuse.
#[test]
fn a_retry_that_deleted_the_failed_hook_job_before_making_the_new_one_is_still_retrying() {
    let world = World::at("step-4");
    let mut state = retry_running(
        &world,
        "waiting for deletion of hook batch/Job/checkout-migrate",
    );
    state.objects.retain(|o| {
        let name = o["metadata"]["name"].as_str().unwrap_or_default();
        !(name == "checkout-migrate" && o["kind"] == "Job"
            || o["kind"] == "Pod" && name.starts_with("checkout-migrate-"))
    });
    let run = check_with(&world, &state, "step-4");
    assert_still_retrying(
        &run,
        &[
            "sync-failed",
            "presync-hook-failed",
            "migrate-job-failed",
            "migration-logged-failure",
        ],
    );
}

/// The sync of the revert started by Argo CD itself (the learner's refresh let the automated sync
/// start first, and their own `argocd app sync` was refused while it ran): the operation says
/// `initiatedBy: {automated: true}`, as Argo CD writes it, in the operation and in the history.
/// It is still a sync of the learner's commit that succeeded: step 5 passes.
#[test]
fn step_5_passes_when_argo_cd_itself_started_the_sync_of_the_revert() {
    let world = World::at("step-5");
    let mut snapshot = fixture(&world, "step-5-solved.yaml");
    let app = app_of(&mut snapshot);
    let automated = json!({"automated": true});
    app["status"]["operationState"]["operation"]["initiatedBy"] = automated.clone();
    if let Some(last) = app["status"]["history"]
        .as_array_mut()
        .and_then(|h| h.last_mut())
    {
        last["initiatedBy"] = automated;
    }
    let run = check_with(&world, &snapshot, "step-5");
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// The migration was running when the sync was ended: by `argocd app terminate-op`, or by the
/// controller's sync timeout (its message, `appcontroller_test.go`), with the hook entry in the
/// shape of the gitops-engine that deleted it (`Succeeded`/`Deleted`, later `Failed`/`Terminated`).
#[test]
fn a_sync_ended_by_terminate_op_or_the_timeout_is_named_so_never_a_delete_policy() {
    let world = World::at("step-4");
    let cases = [
        (
            "Operation terminated",
            ("Succeeded", "Deleted"),
            "operation-terminated",
            "terminate-op",
        ),
        (
            "Operation terminated",
            ("Failed", "Terminated"),
            "operation-terminated",
            "terminate-op",
        ),
        (
            "Operation terminated, triggered by controller sync timeout",
            ("Succeeded", "Deleted"),
            "operation-timed-out",
            "sync timeout",
        ),
        (
            "Operation terminated, triggered by controller sync timeout (retried 1 times).",
            ("Failed", "Terminated"),
            "operation-timed-out",
            "sync timeout",
        ),
    ];
    for (message, (result, entry), want, named) in cases {
        let mut snapshot = fixture(&world, "step-4-terminated.yaml");
        let app = app_of(&mut snapshot);
        app["status"]["operationState"]["message"] = json!(message);
        app["status"]["operationState"]["syncResult"]["resources"][0]["hookPhase"] = json!(result);
        app["status"]["operationState"]["syncResult"]["resources"][0]["message"] = json!(entry);
        let run = check_with(&world, &snapshot, "step-4");
        for id in ["sync-failed", "migrate-job-failed"] {
            assert_eq!(status(&run, id), "fail", "{message} {id}: {}", run.stdout);
            assert_eq!(cause(&run, id), want, "{message} {id}: {}", run.stdout);
            let text = run.check(id).to_string();
            assert!(!text.contains("delete policy"), "{message} {id}: {text}");
        }
        let summary = field(&run, "sync-failed", "summary");
        assert!(summary.contains(named), "{message}: {summary}");
        assert!(
            summary.contains("checkout-migrate"),
            "names the hook it deleted: {summary}"
        );
    }
}

#[test]
fn both_hooks_logs_are_read_and_missing_pods_fail_with_the_kubectl_logs_command() {
    let world = World::at("step-4");
    let solved = check_with(&world, &fixture(&world, "step-4-solved.yaml"), "step-4");
    assert_eq!(
        status(&solved, "migration-logged-failure"),
        "pass",
        "{}",
        solved.stdout
    );
    assert!(
        field(&solved, "migration-logged-failure", "summary")
            .contains("\"migration failed: column orders.total already exists\""),
        "{}",
        solved.stdout
    );
    assert_eq!(status(&solved, "syncfail-hook-logged"), "pass");
    let gone = check_with(&world, &fixture(&world, "step-4-pods-gone.yaml"), "step-4");
    for (id, job) in [
        ("migration-logged-failure", "checkout-migrate"),
        ("syncfail-hook-logged", "checkout-sync-failed"),
    ] {
        assert_eq!(status(&gone, id), "fail", "{id}");
        assert_eq!(cause(&gone, id), format!("logs-pods-gone:{job}"));
        assert!(
            hint(&gone, id).contains(&format!("kubectl -n checkout-dev logs job/{job}")),
            "{id}: {}",
            hint(&gone, id)
        );
    }
    assert_eq!(status(&gone, "migrate-job-failed"), "pass");
}

#[test]
fn a_configmap_in_wave_0_fails_step_3_on_its_wave_though_the_order_holds() {
    let world = World::at("step-3");
    let run = check_with(
        &world,
        &fixture(&world, "step-3-configmap-wave-0.yaml"),
        "step-3",
    );
    assert_eq!(status(&run, "last-sync-order"), "pass", "{}", run.stdout);
    assert_eq!(status(&run, "configmap-wave"), "fail");
    assert_eq!(
        cause(&run, "configmap-wave"),
        "field-mismatch:ConfigMap/checkout-config"
    );
    // The course's hint is kept (the generic "look at it" only adds to it).
    assert!(hint(&run, "configmap-wave").starts_with("The wave is an annotation"));
    let solved = check_with(&world, &fixture(&world, "step-3-solved.yaml"), "step-3");
    assert_eq!(
        status(&solved, "configmap-wave"),
        "pass",
        "{}",
        solved.stdout
    );
}

#[test]
fn degraded_after_a_failed_sync_names_the_crash_loop_and_does_not_say_wait_or_sync() {
    let world = World::at("step-5");
    let run = check_with(&world, &fixture(&world, "step-5-degraded.yaml"), "step-5");
    assert_eq!(status(&run, "synced-healthy"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "synced-healthy"), "pod-stuck:CrashLoopBackOff");
    let diagnosis = field(&run, "synced-healthy", "diagnosis");
    assert!(diagnosis.contains("CrashLoopBackOff"), "{diagnosis}");
    assert!(
        diagnosis.contains("its last run ended with exit code 1, Error"),
        "{diagnosis}"
    );
    says_change_git_not_wait_or_sync(&run);
}

/// A Degraded app whose cause waiting cannot fix: the hint says to change git, never to start a
/// sync, and says below the course's own "wait" hint that waiting will not fix it.
fn says_change_git_not_wait_or_sync(run: &Run) {
    let hint = hint(run, "synced-healthy");
    assert!(!hint.contains("argocd app sync"), "{hint}");
    assert!(
        hint.contains("waiting will not fix this: change what the diagnosis names in git"),
        "{hint}"
    );
}

/// The neighbour: the app crash-loops on an older revision and the learner has just pushed the
/// fix, which Argo CD has not seen yet. Waiting (or a refresh) is exactly what helps now: the
/// check stays "not seen yet", still in progress, and never tells them to change git again.
#[test]
fn degraded_on_an_older_revision_after_the_learner_pushed_the_fix_says_refresh_not_change_git() {
    let world = World::at("step-5");
    let snapshot = fixture(&world, "step-5-degraded.yaml");
    let repo = world.lab.repo("checkout-config").expect("checkout-config");
    let values = world.lab.work_dir().join("checkout-config/helm/dev.yaml");
    let text = std::fs::read_to_string(&values).expect("helm/dev.yaml");
    repo.write("helm/dev.yaml", &format!("{text}# checked the crash\n"))
        .expect("the learner edits");
    repo.commit_written("fix the crash").expect("commit");
    repo.push().expect("push");
    let run = check_with(&world, &snapshot, "step-5");
    assert_eq!(status(&run, "synced-healthy"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "synced-healthy"), "not-seen-yet");
    let hint = hint(&run, "synced-healthy");
    assert!(hint.contains("--refresh"), "{hint}");
    assert!(!hint.contains("waiting will not fix this"), "{hint}");
}

/// A rollout past its `progressDeadlineSeconds` (no pod crash-looping): Kubernetes sets the
/// Deployment's Progressing condition to ProgressDeadlineExceeded and Argo CD's Deployment health
/// turns Degraded ("exceeded its progress deadline"). Waiting will not fix it, so the check names
/// it and never says wait or sync.
#[test]
fn degraded_by_a_rollout_past_its_deadline_names_the_deployment_and_does_not_say_wait_or_sync() {
    let world = World::at("step-5");
    let mut snapshot = fixture(&world, "step-5-degraded.yaml");
    snapshot.objects.retain(|o| o["kind"] != "Pod");
    let deployment = snapshot
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "checkout")
        .expect("the checkout Deployment");
    deployment["status"]["conditions"] = serde_json::json!([
        {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
         "message": "Deployment has minimum availability."},
        {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
         "message": "ReplicaSet \"checkout-6d8f7b9c5\" has timed out progressing."}
    ]);
    app_of(&mut snapshot)["status"]["health"] = serde_json::json!({
        "status": "Degraded",
        "message": "Deployment \"checkout\" exceeded its progress deadline"
    });
    let run = check_with(&world, &snapshot, "step-5");
    assert_eq!(status(&run, "synced-healthy"), "fail", "{}", run.stdout);
    assert_eq!(
        cause(&run, "synced-healthy"),
        "progress-deadline-exceeded:checkout"
    );
    let diagnosis = field(&run, "synced-healthy", "diagnosis");
    assert!(
        diagnosis.contains("Deployment checkout: ProgressDeadlineExceeded (ReplicaSet \"checkout-6d8f7b9c5\" has timed out progressing.)"),
        "{diagnosis}"
    );
    says_change_git_not_wait_or_sync(&run);
}

#[test]
fn the_syncfail_job_of_an_earlier_failure_never_passes_the_break_stage() {
    let world = World::at("break-it/break");
    let run = check_with(
        &world,
        &fixture(&world, "break-it-syncfail-never-ran.yaml"),
        "break-it/break",
    );
    assert_eq!(
        status(&run, "postsync-hook-failed"),
        "pass",
        "{}",
        run.stdout
    );
    assert_eq!(
        cause(&run, "syncfail-hook-ran"),
        "job-from-earlier-sync:checkout-sync-failed"
    );
    let summary = field(&run, "syncfail-hook-ran", "summary");
    assert!(
        summary.contains("this Job is from an earlier sync"),
        "{summary}"
    );
    assert!(hint(&run, "syncfail-hook-ran").contains("start the sync of your commit"));
    assert_eq!(
        cause(&run, "syncfail-hook-in-sync"),
        "syncfail-hook-missing:checkout-sync-failed"
    );
    assert!(
        hint(&run, "syncfail-hook-in-sync").contains("argocd.argoproj.io/hook: SyncFail"),
        "{}",
        run.stdout
    );
}

/// Step 5's solved state as a multi-source app: the chart from a Helm repo, the values from
/// checkout-config (`ref: values`), in the order given (facts-2 §1.5 b).
fn multi_source(world: &World, values_first: bool, values_rev: &str) -> Snapshot {
    let mut snapshot = fixture(world, "step-5-solved.yaml");
    let app = app_of(&mut snapshot);
    let chart = serde_json::json!({"repoURL": "https://stefanprodan.github.io/podinfo", "chart": "podinfo",
        "targetRevision": "6.7.1", "helm": {"valueFiles": ["$values/helm/dev.yaml"]}});
    let values = serde_json::json!({"repoURL": "http://git.course.local/team-checkout/checkout-config.git",
        "targetRevision": "main", "ref": "values"});
    let (sources, revisions) = if values_first {
        (
            serde_json::json!([values, chart]),
            serde_json::json!([values_rev, "6.7.1"]),
        )
    } else {
        (
            serde_json::json!([chart, values]),
            serde_json::json!(["6.7.1", values_rev]),
        )
    };
    app["spec"]["source"] = serde_json::Value::Null;
    app["spec"]["sources"] = sources.clone();
    let status = &mut app["status"];
    status["sync"]["revision"] = serde_json::Value::Null;
    status["sync"]["revisions"] = revisions.clone();
    status["sync"]["comparedTo"]["source"] = serde_json::json!({"repoURL": ""});
    status["sync"]["comparedTo"]["sources"] = sources.clone();
    let op = &mut status["operationState"];
    op["operation"]["sync"]["revision"] = serde_json::Value::Null;
    op["operation"]["sync"]["revisions"] = revisions.clone();
    op["operation"]["sync"]["sources"] = sources.clone();
    op["syncResult"]["revision"] = serde_json::json!("");
    op["syncResult"]["revisions"] = revisions;
    op["syncResult"]["source"] = serde_json::json!({"repoURL": ""});
    op["syncResult"]["sources"] = sources;
    snapshot
}

#[test]
fn a_multi_source_app_passes_step_5_in_either_source_order_and_fails_at_an_older_values_commit() {
    let world = World::at("step-5");
    let revs = revisions(&world);
    for values_first in [false, true] {
        let run = check_with(
            &world,
            &multi_source(
                &world,
                values_first,
                revs.pushed("checkout-config").expect("a push"),
            ),
            "step-5",
        );
        for id in ["synced-healthy", "sync-succeeded"] {
            assert_eq!(
                status(&run, id),
                "pass",
                "values first {values_first}, {id}: {}",
                run.stdout
            );
        }
        let behind = check_with(
            &world,
            &multi_source(
                &world,
                values_first,
                revs.previous("checkout-config").expect("a previous push"),
            ),
            "step-5",
        );
        assert_eq!(status(&behind, "synced-healthy"), "fail");
        assert_eq!(cause(&behind, "synced-healthy"), "not-seen-yet");
        let summary = field(&behind, "synced-healthy", "summary");
        assert!(
            summary.contains(&revs.previous("checkout-config").expect("a previous push")[..7]),
            "{summary}"
        );
    }
}

#[test]
fn an_app_in_another_namespace_is_named_where_it_is() {
    let world = World::at("step-5");
    let mut snapshot = fixture(&world, "step-5-solved.yaml");
    app_of(&mut snapshot)["metadata"]["namespace"] = serde_json::json!("team-checkout");
    let run = check_with(&world, &snapshot, "step-5");
    assert_eq!(status(&run, "synced-healthy"), "fail", "{}", run.stdout);
    assert_eq!(
        cause(&run, "synced-healthy"),
        "app-in-other-namespace:team-checkout"
    );
    assert!(
        hint(&run, "synced-healthy").contains("--argocd-namespace team-checkout"),
        "{}",
        run.stdout
    );
}

#[test]
fn pushed_to_a_feature_branch_names_the_branch_argo_cd_follows() {
    let world = World::at("step-5");
    let snapshot = fixture(&world, "step-5-solved.yaml");
    let repo = world.repo("checkout-config");
    for args in [
        &["switch", "-q", "-c", "feature"][..],
        &["commit", "-q", "--allow-empty", "-m", "try on a branch"],
        &["push", "-q", "-u", "origin", "feature"],
    ] {
        repo.git(args).expect("git");
    }
    let run = check_with(&world, &snapshot, "step-5");
    assert_eq!(status(&run, "synced-healthy"), "fail", "{}", run.stdout);
    assert_eq!(
        field(&run, "synced-healthy", "summary"),
        "pushed to `feature`, but checkout-dev follows `main`"
    );
    assert_eq!(cause(&run, "synced-healthy"), "pushed-elsewhere:feature");
}

/// The containers of step 4's solved Deployment, with `sidecar` put first and the app's own
/// container (`podinfo`) at `image`.
fn with_sidecar_first(snapshot: &mut Snapshot, sidecar: serde_json::Value, app: Option<&str>) {
    let deployment = snapshot
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "checkout")
        .expect("Deployment checkout in the snapshot");
    let containers = deployment["spec"]["template"]["spec"]["containers"]
        .as_array_mut()
        .expect("containers");
    match app {
        Some(image) => containers[0]["image"] = serde_json::json!(image),
        None => containers.clear(),
    }
    containers.insert(0, sidecar);
}

#[test]
fn a_sidecar_added_first_never_stands_in_for_the_app_s_container() {
    let world = World::at("step-4");
    let solved = cluster::solved("step-4", &revisions(&world)).expect("a fixture state");
    let proxy =
        serde_json::json!({"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.24.0"});
    // A mesh injected its proxy first: the app still runs 6.7.1, and step 4 still passes.
    let mut untouched = solved.clone();
    with_sidecar_first(
        &mut untouched,
        proxy.clone(),
        Some("ghcr.io/stefanprodan/podinfo:6.7.1"),
    );
    let run = check_with(&world, &untouched, "step-4");
    assert_eq!(
        status(&run, "deployment-untouched"),
        "pass",
        "{}",
        run.stdout
    );

    // The app moved to 6.7.0 while a sidecar first happens to carry a 6.7.1 tag: reading the
    // first container would pass on someone else's value.
    let mut moved = solved.clone();
    with_sidecar_first(
        &mut moved,
        serde_json::json!({"name": "log-shipper", "image": "example.org/shipper:6.7.1"}),
        Some("ghcr.io/stefanprodan/podinfo:6.7.0"),
    );
    let run = check_with(&world, &moved, "step-4");
    assert_eq!(
        status(&run, "deployment-untouched"),
        "fail",
        "{}",
        run.stdout
    );
    assert!(
        field(&run, "deployment-untouched", "summary").contains("podinfo:6.7.0"),
        "{}",
        run.stdout
    );

    // No container of that name: said as such, never "is not set".
    let mut renamed = solved;
    with_sidecar_first(&mut renamed, proxy, None);
    let run = check_with(&world, &renamed, "step-4");
    assert_eq!(
        status(&run, "deployment-untouched"),
        "fail",
        "{}",
        run.stdout
    );
    assert_eq!(cause(&run, "deployment-untouched"), "selector-miss");
    assert!(
        field(&run, "deployment-untouched", "summary").contains(
            "no item of `spec.template.spec.containers` has `name: podinfo`; the items there have name `istio-proxy`"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(run.code, 1);
}

#[test]
fn a_dry_run_instead_of_step_5s_sync_fails_naming_the_dry_run_and_says_to_sync_without_it() {
    // Recorded on a real Argo CD: the revert pushed, then `argocd app sync --dry-run`.
    let world = World::at("step-5");
    let run = check_with(&world, &fixture(&world, "step-5-dry-run.yaml"), "step-5");
    assert_eq!(status(&run, "synced-healthy"), "pass", "{}", run.stdout);
    assert_eq!(status(&run, "sync-succeeded"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "sync-succeeded"), "dry-run", "{}", run.stdout);
    let hint = hint(&run, "sync-succeeded");
    // Names the revisions of both sources, each once (the chart's, then the values').
    let summary = field(&run, "sync-succeeded", "summary");
    let revs = revisions(&world);
    for repo in ["argocd-gitops", "checkout-config"] {
        let sha = &revs.pushed(repo).expect("a push")[..7];
        assert_eq!(summary.matches(sha).count(), 1, "{repo}: {summary}");
    }
    assert!(hint.contains("argocd app sync checkout-dev"), "{hint}");
    assert!(
        !hint.contains("--dry-run`") || hint.contains("without"),
        "{hint}"
    );
}
