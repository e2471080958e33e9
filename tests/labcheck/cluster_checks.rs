//! Cluster checks end to end: a lab world of real git repos, a module 10 cluster state served by
//! the snapshot server over HTTP, the real `labcheck` binary reading it through kube with a
//! kubeconfig (or `--snapshot`). A small course written here keeps these tests independent of
//! module 10's real check files.

use std::path::{Path, PathBuf};
use std::time::Duration;

use labcheck::lab::cluster;
use labcheck::serve::{self, RunningServer, ServeOptions};
use labcheck::snapshot::Snapshot;
use serde_json::Value;

use crate::harness::{LabAt, Labcheck};

const MODULE: &str = r#"format: labcheck/v1
module: m10
title: "Cluster checks under test"
tracks: {default: kind, available: [kind]}
repos:
  - {name: argocd-platform, get: "clone argocd-platform"}
  - {name: checkout-config, get: "clone checkout-config"}
  - {name: argocd-gitops, get: "clone argocd-gitops"}
argocd: {namespace: argocd}
steps: [step-1, step-2, step-3, step-4, step-5, break, fix]
"#;

const STEP_1: &str = r#"format: labcheck/v1
title: "Applications report health"
checks:
  - id: health-key
    title: "argocd-cm has the Application health check"
    object: {api: v1, kind: ConfigMap, namespace: argocd, name: argocd-cm,
             field: {path: 'data["resource.customizations.health.argoproj.io_Application"]', present: true}}
"#;

const STEP_2: &str = r#"format: labcheck/v1
title: "Hooks on, synced"
checks:
  - id: synced
    title: "checkout-dev synced your push and ran its hooks"
    argocd_app: {name: checkout-dev, revision_of: checkout-config, sync: Synced, health: Healthy, phase: Succeeded,
                 hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Succeeded}}
  - id: migrate
    title: "the migration Job of that sync is complete"
    job: {namespace: checkout-dev, name: checkout-migrate, expect: complete, app: checkout-dev}
  - id: smoke
    title: "the smoke test Job of that sync is complete"
    job: {namespace: checkout-dev, name: checkout-smoke-test, expect: complete, app: checkout-dev}
  - id: migrate-log
    title: "the migration logged its work"
    logs: {namespace: checkout-dev, job: checkout-migrate, contains: "migration done", app: checkout-dev}
"#;

const STEP_3: &str = r#"format: labcheck/v1
title: "The order of the last sync"
checks:
  - id: order
    title: "PreSync, then wave -1, then the Deployment, then PostSync"
    argocd_app:
      name: checkout-dev
      order:
        - {kind: Job, name: checkout-migrate, phase: PreSync}
        - {kind: ConfigMap, name: checkout-config}
        - {kind: Deployment, name: checkout}
        - {kind: Job, name: checkout-smoke-test, phase: PostSync}
"#;

const STEP_4: &str = r#"format: labcheck/v1
title: "A failing migration"
checks:
  - id: sync-failed
    title: "the sync of your push failed in PreSync"
    hint: "push, refresh, wait about 40 seconds"
    argocd_app: {name: checkout-dev, revision_of: checkout-config, phase: [Failed, Error],
                 hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Failed}}
  - id: image
    title: "the Deployment still runs 6.7.1"
    object: {api: apps/v1, kind: Deployment, namespace: checkout-dev, name: checkout,
             field: {path: "spec.template.spec.containers[0].image", ends_with: ":6.7.1"}}
  - id: migrate
    title: "the migration Job failed"
    job: {namespace: checkout-dev, name: checkout-migrate, expect: failed, reason: BackoffLimitExceeded, app: checkout-dev}
  - id: migrate-log
    title: "the migration logged its failure"
    logs: {namespace: checkout-dev, job: checkout-migrate, contains: "migration failed", app: checkout-dev}
"#;

const STEP_5: &str = r#"format: labcheck/v1
title: "Recover with a revert"
checks:
  - id: recovered
    title: "checkout-dev is synced and healthy at your revert"
    argocd_app: {name: checkout-dev, revision_of: checkout-config, sync: Synced, health: Healthy, phase: Succeeded}
"#;

const BREAK: &str = r#"format: labcheck/v1
title: "A smoke test that fails"
checks:
  - id: postsync-failed
    title: "the sync failed in PostSync while the app stayed Healthy"
    argocd_app: {name: checkout-dev, revision_of: checkout-config, sync: Synced, health: Healthy, phase: Failed,
                 hook: {kind: Job, name: checkout-smoke-test, phase: PostSync, result: Failed}}
  - id: sync-fail-hook
    title: "the SyncFail hook ran"
    argocd_app: {name: checkout-dev, hook: {kind: Job, name: checkout-sync-failed, phase: SyncFail, result: Succeeded}}
  - id: smoke-log
    title: "the smoke test logged the 503"
    logs: {namespace: checkout-dev, job: checkout-smoke-test, matches: "error: 503", app: checkout-dev}
"#;

const FIX: &str = r#"format: labcheck/v1
title: "Fixed"
checks:
  - id: fixed
    title: "the next sync succeeded"
    argocd_app: {name: checkout-dev, revision_of: checkout-config, sync: Synced, health: Healthy, phase: Succeeded}
"#;

/// A lab: work repos at a point, the revisions they pushed, and a course folder beside them.
struct Lab(LabAt);

impl std::ops::Deref for Lab {
    type Target = LabAt;

    fn deref(&self) -> &LabAt {
        &self.0
    }
}

impl Lab {
    fn at(point: &str) -> Lab {
        let lab = LabAt::new(point);
        let course = lab.dir.path().join("course");
        let module = course.join("modules").join("m10");
        std::fs::create_dir_all(&module).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(course.join("expected")).unwrap_or_else(|e| panic!("{e}"));
        for (name, text) in [
            ("module.yaml", MODULE),
            ("step-1.yaml", STEP_1),
            ("step-2.yaml", STEP_2),
            ("step-3.yaml", STEP_3),
            ("step-4.yaml", STEP_4),
            ("step-5.yaml", STEP_5),
            ("break.yaml", BREAK),
            ("fix.yaml", FIX),
        ] {
            std::fs::write(module.join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        Lab(lab)
    }

    fn course(&self) -> PathBuf {
        self.dir.path().join("course")
    }

    /// Run `labcheck m10 STEP --format json` with `extra` arguments; (exit code, report, elapsed).
    async fn run(&self, step: &str, extra: &[&str]) -> (i32, Value, Duration) {
        let run = Labcheck::new(self.dir.path())
            .args(["m10", step, "--format", "json", "--course-dir"])
            .arg(self.course())
            .arg("--work-dir")
            .arg(self.world.work_dir())
            .args(extra)
            .run_async()
            .await;
        (run.code, run.json(), run.elapsed)
    }

    /// Serve the fixture state `state` of the cluster and run `step` against it.
    async fn check_state(&self, step: &str, state: &str) -> (i32, Value, RunningServer) {
        let snapshot = cluster::state(state, &self.revs).expect("a fixture state");
        self.check(step, snapshot).await
    }

    /// Serve `snapshot` and run `step` against it through a kubeconfig.
    async fn check(&self, step: &str, snapshot: Snapshot) -> (i32, Value, RunningServer) {
        self.check_served(step, snapshot, ServeOptions::default())
            .await
    }

    /// [`Lab::check`] with the server answering as `options` say.
    async fn check_served(
        &self,
        step: &str,
        snapshot: Snapshot,
        options: ServeOptions,
    ) -> (i32, Value, RunningServer) {
        let server = start(snapshot, options).await;
        let kubeconfig = self.kubeconfig(&server);
        let (code, report, _) = self
            .run(step, &["--no-wait", "--kubeconfig", path_str(&kubeconfig)])
            .await;
        (code, report, server)
    }
}

async fn start(snapshot: Snapshot, options: ServeOptions) -> RunningServer {
    crate::harness::serve(snapshot, options).await
}

/// A temp path as the `&str` an argument list takes.
pub(crate) fn path_str(path: &Path) -> &str {
    path.to_str()
        .unwrap_or_else(|| panic!("non-UTF-8 temp path"))
}

/// The check `id` of a step report (or a doctor's report).
pub(crate) fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("no check {id} in {report:#}"))
}

fn text<'a>(check: &'a Value, field: &str) -> &'a str {
    check[field].as_str().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_step_done_right_passes_against_its_solved_cluster() {
    for (point, step) in [
        ("step-1", "step-1"),
        ("step-2", "step-2"),
        ("step-3", "step-3"),
        ("step-4", "step-4"),
        ("step-5", "step-5"),
        ("break-it/break", "break"),
        ("break-it/fix", "fix"),
    ] {
        let lab = Lab::at(point);
        let (code, report, server) = lab
            .check(
                step,
                cluster::solved(point, &lab.revs).expect("a fixture state"),
            )
            .await;
        assert_eq!(report["status"], "pass", "{step}: {report:#}");
        assert_eq!(code, 0, "{step}");
        assert!(server.requests.writes().is_empty(), "labcheck only reads");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushed_but_not_seen_by_argo_cd_fails_with_a_hint_to_refresh() {
    let lab = Lab::at("step-4");
    let (code, report, _server) = lab.check_state("step-4", "step-4-not-seen-yet").await;
    assert_eq!(code, 1);
    let app = check(&report, "sync-failed");
    assert_eq!(app["status"], "fail");
    let expected = format!(
        "Argo CD is still at {}, you pushed {}",
        &lab.revs
            .previous("checkout-config")
            .expect("a previous push")[..7],
        &lab.revs.pushed("checkout-config").expect("a push")[..7]
    );
    assert_eq!(text(app, "summary"), expected);
    assert!(text(app, "hint").contains("argocd app get checkout-dev --refresh"));
    assert!(text(app, "diagnosis").contains("pushed [ok"), "{app:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_left_by_the_previous_sync_neither_passes_nor_fails_step_4_on_its_state() {
    let lab = Lab::at("step-4");
    let (code, report, _server) = lab.check_state("step-4", "step-4-seen-not-synced").await;
    assert_eq!(code, 1);
    let job = check(&report, "migrate");
    assert_eq!(job["status"], "fail");
    assert!(
        text(job, "summary").contains("is from an earlier sync"),
        "{job:#}"
    );
    assert!(text(job, "hint").contains("argocd app sync checkout-dev"));
    let log = check(&report, "migrate-log");
    assert_eq!(log["status"], "fail");
    assert!(text(log, "summary").contains("earlier sync"), "{log:#}");
    let app = check(&report, "sync-failed");
    assert!(
        text(app, "summary").contains("the last sync of checkout-dev ran"),
        "{app:#}"
    );
    // The Deployment check is independent of the sync and still holds.
    assert_eq!(check(&report, "image")["status"], "pass");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_still_running_fails_without_waiting_when_told_not_to() {
    let lab = Lab::at("step-4");
    let (code, report, _server) = lab.check_state("step-4", "step-4-sync-running").await;
    assert_eq!(code, 1);
    let app = check(&report, "sync-failed");
    assert!(
        text(app, "summary").contains("is Running, expected Failed or Error"),
        "{app:#}"
    );
    let job = check(&report, "migrate");
    assert!(
        text(job, "summary").contains("is still running (0/1)"),
        "{job:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_sees_the_running_sync_end_in_presync_failure() {
    let lab = Lab::at("step-4");
    let timeline = cluster::then(
        cluster::state("step-4-sync-running", &lab.revs).expect("a fixture state"),
        Duration::from_secs(2),
        cluster::solved("step-4", &lab.revs).expect("a fixture state"),
    );
    let server = start(timeline, ServeOptions::default()).await;
    let kubeconfig = lab.kubeconfig(&server);
    let (code, report, elapsed) = lab
        .run(
            "step-4",
            &["--wait", "15s", "--kubeconfig", path_str(&kubeconfig)],
        )
        .await;
    assert_eq!(report["status"], "pass", "{report:#}");
    assert_eq!(code, 0);
    assert!(
        elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(12),
        "{elapsed:?}"
    );
    // Read once, then followed by a watch stream (see waiting.rs), never in a tight loop.
    let app_path = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev";
    let reads = server.requests.count("GET", app_path);
    assert!((1..=8).contains(&reads), "{reads} reads of the Application");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_switched_on_but_never_synced_fails_with_a_hint_to_sync() {
    let lab = Lab::at("step-2");
    let (code, report, _server) = lab.check_state("step-2", "step-2-hooks-never-synced").await;
    assert_eq!(code, 1);
    let app = check(&report, "synced");
    assert!(
        text(app, "hint").contains("argocd app sync checkout-dev"),
        "{app:#}"
    );
    let job = check(&report, "migrate");
    assert_eq!(
        text(job, "summary"),
        "Job checkout-migrate in checkout-dev does not exist"
    );
    assert!(text(job, "hint").contains("did not run it"), "{job:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_syncfail_hook_that_never_ran_fails_the_break_stage() {
    let lab = Lab::at("break-it/break");
    let (code, report, _server) = lab
        .check_state("break", "break-it-syncfail-never-ran")
        .await;
    assert_eq!(code, 1);
    assert_eq!(check(&report, "postsync-failed")["status"], "pass");
    assert_eq!(check(&report, "smoke-log")["status"], "pass");
    let hook = check(&report, "sync-fail-hook");
    assert_eq!(hook["status"], "fail");
    assert!(
        text(hook, "diagnosis").contains("No SyncFail hook ran."),
        "{hook:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postsync_failed_while_healthy_names_the_smoke_test_and_shows_its_log() {
    // The learner runs the fix stage before fixing anything.
    let lab = Lab::at("break-it/break");
    let (code, report, _server) = lab
        .check(
            "fix",
            cluster::solved("break-it/break", &lab.revs).expect("a fixture state"),
        )
        .await;
    assert_eq!(code, 1);
    let fixed = check(&report, "fixed");
    assert_eq!(
        text(fixed, "summary"),
        "the last sync of checkout-dev is Failed, expected Succeeded"
    );
    let diagnosis = text(fixed, "diagnosis");
    assert!(
        diagnosis.contains("the PostSync hook Job checkout-smoke-test (PostSync) failed"),
        "{diagnosis}"
    );
    assert!(
        diagnosis.contains("The SyncFail hook checkout-sync-failed ran: Succeeded."),
        "{diagnosis}"
    );
    assert!(
        diagnosis.contains("Its log says \"curl: (22) The requested URL returned error: 503\"."),
        "{diagnosis}"
    );
    assert!(
        text(fixed, "detail").contains("curl: (22) The requested URL returned error: 503"),
        "{fixed:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pod_that_cannot_find_its_configmap_is_named_in_the_diagnosis() {
    let lab = Lab::at("step-5");
    let (code, report, _server) = lab.check_state("step-5", "step-5-config-missing").await;
    assert_eq!(code, 1);
    let app = check(&report, "recovered");
    // Argo CD compares the missing ConfigMap OutOfSync while its sync waits for the Deployment,
    // whose pod cannot start: that sync ends only at a deadline, so waiting is no way out.
    assert!(text(app, "summary").contains("OutOfSync"), "{app:#}");
    assert_eq!(
        text(app, "cause"),
        "pod-stuck:CreateContainerConfigError",
        "{app:#}"
    );
    let hint = text(app, "hint");
    assert!(
        hint.starts_with("waiting will not fix this: the running sync waits for Deployment checkout, whose pod cannot start: stop it (`argocd app terminate-op checkout-dev`)"),
        "{hint}"
    );
    assert!(!hint.contains("argocd app wait"), "{hint}");
    assert!(
        text(app, "diagnosis")
            .contains("CreateContainerConfigError (configmap \"checkout-config\" not found)"),
        "{app:#}"
    );
}

/// The neighbour with two stuck pods: another pod of the namespace (not the Deployment's) lists
/// first and cannot pull its image. The check names the pod the running sync waits for, and
/// still says waiting will not fix it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stuck_pod_the_running_sync_waits_for_is_named_before_another_stuck_pod() {
    let lab = Lab::at("step-5");
    let mut state = cluster::state("step-5-config-missing", &lab.revs).expect("a fixture state");
    let stray = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "aaa-stray", "namespace": "checkout-dev", "uid": "stray-uid",
                     "creationTimestamp": "2026-12-05T07:40:00Z", "labels": {"app": "stray"}},
        "spec": {"containers": [{"name": "stray", "image": "nowhere.example/stray:1"}]},
        "status": {"phase": "Pending", "containerStatuses": [{"name": "stray", "ready": false,
            "restartCount": 0, "image": "nowhere.example/stray:1", "imageID": "",
            "state": {"waiting": {"reason": "ImagePullBackOff",
                                  "message": "Back-off pulling image"}}}]}
    });
    state.objects.insert(0, stray);
    let (code, report, _server) = lab.check("step-5", state).await;
    assert_eq!(code, 1);
    let app = check(&report, "recovered");
    assert_eq!(
        text(app, "cause"),
        "pod-stuck:CreateContainerConfigError",
        "{app:#}"
    );
    assert!(
        text(app, "hint").starts_with(
            "waiting will not fix this: the running sync waits for Deployment checkout"
        ),
        "{app:#}"
    );
}

/// The neighbour: the running sync waits for a hook, not for the Deployment whose pod is stuck;
/// the sync may yet roll out what fixes it, so the check still offers to wait (or to stop it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_pod_the_running_sync_does_not_wait_for_leaves_the_wait_open() {
    let lab = Lab::at("step-5");
    let mut state = cluster::state("step-5-config-missing", &lab.revs).expect("a fixture state");
    let app = state
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "Application" && o["metadata"]["name"] == "checkout-dev")
        .expect("checkout-dev");
    app["status"]["operationState"]["message"] =
        serde_json::json!("waiting for completion of hook batch/Job/checkout-migrate");
    let (code, report, _server) = lab.check("step-5", state).await;
    assert_eq!(code, 1);
    let app = check(&report, "recovered");
    assert!(
        text(app, "diagnosis").contains("CreateContainerConfigError"),
        "{app:#}"
    );
    assert_ne!(
        text(app, "cause"),
        "pod-stuck:CreateContainerConfigError",
        "{app:#}"
    );
    assert!(
        text(app, "hint").contains("argocd app wait checkout-dev"),
        "{app:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_object_is_fetched_once_however_many_checks_read_it() {
    let lab = Lab::at("step-4");
    let (_, report, server) = lab
        .check(
            "step-4",
            cluster::solved("step-4", &lab.revs).expect("a fixture state"),
        )
        .await;
    assert_eq!(report["status"], "pass", "{report:#}");
    let requests = server.requests.entries();
    let app = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev";
    let job = "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate";
    // Three checks read the Application, two the Job.
    assert_eq!(server.requests.count("GET", app), 1, "{requests:#?}");
    assert_eq!(server.requests.count("GET", job), 1, "{requests:#?}");
    assert!(requests.iter().all(|r| r.method == "GET"));
    assert!(
        !requests
            .iter()
            .any(|r| r.path.starts_with("/apis") && r.path.split('/').count() <= 4),
        "no discovery: {requests:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_file_is_read_like_a_cluster() {
    let lab = Lab::at("step-4");
    let file = lab.dir.path().join("step-4.yaml");
    let yaml = cluster::solved("step-4", &lab.revs)
        .expect("a fixture state")
        .to_yaml()
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&file, yaml).unwrap_or_else(|e| panic!("{e}"));
    let (code, report, _) = lab
        .run("step-4", &["--no-wait", "--snapshot", path_str(&file)])
        .await;
    assert_eq!(report["status"], "pass", "{report:#}");
    assert_eq!(code, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_without_argo_cd_cannot_be_checked() {
    let lab = Lab::at("step-4");
    let (code, report, _server) = lab
        .check(
            "step-4",
            cluster::argo_cd_missing("module-10").expect("a fixture state"),
        )
        .await;
    let app = check(&report, "sync-failed");
    assert_eq!(app["status"], "error", "{app:#}");
    assert!(
        text(app, "summary")
            .contains("Argo CD (its Application CRD, applications.argoproj.io) is not installed"),
        "{app:#}"
    );
    assert_eq!(check(&report, "image")["status"], "pass");
    assert_eq!(report["status"], "error");
    assert_eq!(code, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_kubeconfig_anywhere_is_an_error_saying_where_it_looked() {
    let lab = Lab::at("step-1");
    let (code, report, _) = lab.run("step-1", &["--no-wait"]).await;
    let key = check(&report, "health-key");
    assert_eq!(key["status"], "error");
    assert!(
        text(key, "summary").contains("no kubeconfig found"),
        "{key:#}"
    );
    assert!(text(key, "hint").contains("--kubeconfig"));
    assert_eq!(code, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_context_is_an_error_listing_the_ones_there_are() {
    let lab = Lab::at("step-1");
    let server = start(Snapshot::new(), ServeOptions::default()).await;
    let kubeconfig = lab.kubeconfig(&server);
    let (code, report, _) = lab
        .run(
            "step-1",
            &[
                "--no-wait",
                "--kubeconfig",
                path_str(&kubeconfig),
                "--context",
                "kind-other",
            ],
        )
        .await;
    let key = check(&report, "health-key");
    assert!(
        text(key, "summary").contains("context `kind-other` is not in the kubeconfig"),
        "{key:#}"
    );
    assert!(text(key, "hint").contains("lab"));
    assert_eq!(code, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_port_is_an_error_within_seconds() {
    let lab = Lab::at("step-1");
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        listener
            .local_addr()
            .map(|a| a.port())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let kubeconfig = lab.dir.path().join("closed");
    serve::write_kubeconfig(&kubeconfig, &format!("http://127.0.0.1:{port}"), "closed")
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, report, elapsed) = lab
        .run(
            "step-1",
            &["--no-wait", "--kubeconfig", path_str(&kubeconfig)],
        )
        .await;
    let key = check(&report, "health-key");
    assert_eq!(key["status"], "error");
    assert!(
        text(key, "summary").contains("cannot reach the Kubernetes API"),
        "{key:#}"
    );
    assert_eq!(code, 3);
    assert!(elapsed < Duration::from_secs(12), "{elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forbidden_names_the_verb_and_the_resource() {
    let lab = Lab::at("step-4");
    let options = ServeOptions {
        fail_with: Some(403),
        fail_resources: vec!["jobs".to_string()],
        ..ServeOptions::default()
    };
    let solved = cluster::solved("step-4", &lab.revs).expect("a fixture state");
    let (code, report, _server) = lab.check_served("step-4", solved, options).await;
    let job = check(&report, "migrate");
    assert_eq!(job["status"], "error");
    assert_eq!(
        text(job, "summary"),
        "forbidden: cannot get jobs.batch in checkout-dev"
    );
    assert!(
        text(job, "hint").contains("kubectl auth can-i get jobs.batch"),
        "{job:#}"
    );
    assert_eq!(check(&report, "sync-failed")["status"], "pass");
    assert_eq!(code, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_error_is_an_error_not_a_verdict() {
    let lab = Lab::at("step-1");
    let options = ServeOptions {
        fail_with: Some(500),
        ..ServeOptions::default()
    };
    let solved = cluster::solved("step-1", &lab.revs).expect("a fixture state");
    let (code, report, _server) = lab.check_served("step-1", solved, options).await;
    let key = check(&report, "health-key");
    assert_eq!(key["status"], "error");
    assert!(text(key, "summary").contains("answered 500"), "{key:#}");
    assert_eq!(code, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_1_without_the_health_key_fails() {
    let lab = Lab::at("step-1");
    let (code, report, _server) = lab
        .check(
            "step-1",
            cluster::solved("fresh", &lab.revs).expect("a fixture state"),
        )
        .await;
    let key = check(&report, "health-key");
    assert_eq!(key["status"], "fail");
    assert_eq!(text(key, "actual"), "missing");
    assert_eq!(code, 1);
}

/// Run the course's own module 10 (embedded) against a snapshot file.
async fn run_module_10(lab: &Lab, step: &str, snapshot: Snapshot) -> (i32, Value) {
    let file = lab.dir.path().join("state.yaml");
    let run = crate::harness::module_10_on_snapshot(lab.dir.path(), step, &snapshot, &file)
        .arg("--work-dir")
        .arg(lab.world.work_dir())
        .run_async()
        .await;
    (run.code, run.json())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn module_10_step_4_before_argo_cd_synced_fails_only_its_cluster_checks() {
    let lab = Lab::at("step-4");
    let (code, report) = run_module_10(
        &lab,
        "step-4",
        cluster::state("step-4-seen-not-synced", &lab.revs).expect("a fixture state"),
    )
    .await;
    assert_eq!(code, 1);
    let sync = check(&report, "sync-failed");
    assert_eq!(sync["status"], "fail", "{sync:#}");
    assert!(
        text(sync, "hint").contains("argocd app sync checkout-dev"),
        "{sync:#}"
    );
    // The hook and the Job wait for that sync: their hints point at it instead of repeating it.
    // "still runs 6.7.1 (the sync stopped before the Sync phase)" means nothing before that sync.
    for id in [
        "presync-hook-failed",
        "migrate-job-failed",
        "deployment-untouched",
    ] {
        let c = check(&report, id);
        assert_eq!(c["status"], "fail", "{id}: {c:#}");
        assert!(
            text(c, "hint").starts_with("first: the sync of your commit failed"),
            "{id}: {c:#}"
        );
    }
    for id in ["tag-670", "release-pushed"] {
        assert_eq!(check(&report, id)["status"], "pass", "{id}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_captured_snapshot_replays_the_cluster_it_was_taken_from() {
    let lab = Lab::at("step-4");
    let server = start(
        cluster::solved("step-4", &lab.revs).expect("a fixture state"),
        ServeOptions::default(),
    )
    .await;
    let kubeconfig = lab.kubeconfig(&server);
    let out = lab.dir.path().join("captured.yaml");
    let run = Labcheck::new(lab.dir.path())
        .args(["snapshot", "module-10", "--out"])
        .arg(&out)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .run_async()
        .await;
    let stdout = &run.stdout;
    assert_eq!(run.code, 0, "{stdout} {}", run.stderr);
    assert!(stdout.contains("logs from context lab"), "{stdout}");
    assert!(server.requests.writes().is_empty(), "capturing only reads");
    let captured = Snapshot::load(&out).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        captured
            .logs
            .values()
            .any(|log| log.contains("migration failed"))
    );
    let (code, report, _) = lab
        .run("step-4", &["--no-wait", "--snapshot", path_str(&out)])
        .await;
    assert_eq!(report["status"], "pass", "{report:#}");
    assert_eq!(code, 0);
}
