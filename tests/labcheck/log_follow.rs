//! Following a pod's log: `labcheck serve` answers `…/log?follow=true` as kube-apiserver does
//! (chunked, open while the container runs in the served timeline, closed once it terminated),
//! the real `kubectl logs -f` reads it, and `labcheck --wait` follows a waited pod's log instead
//! of reading it again after the pod's event.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use labcheck::lab::cluster::{self, Revisions};
use labcheck::lab::world::LabWorld;
use labcheck::serve::{RunningServer, ServeOptions};
use labcheck::snapshot::{Changes, Snapshot, WithLogs};
use serde_json::{Value, json};

use crate::harness::{Labcheck, kubeconfig_at};

const NS: &str = "checkout-dev";
const POD: &str = "checkout-migrate-x7k2p";
const LOG: &str = "/api/v1/namespaces/checkout-dev/pods/checkout-migrate-x7k2p/log";

/// The pod of a migration Job, its container `migrate` in `state` (a `ContainerState` of
/// k8s.io/api/core/v1: `{"running": {...}}` or `{"terminated": {...}}`), restarted `restarts`
/// times. Phase as the kubelet sets it for a pod with `restartPolicy: Never`.
fn pod(state: Value, restarts: u32) -> Value {
    let phase = match state.get("terminated") {
        Some(t) if t["exitCode"] == 0 => "Succeeded",
        Some(_) => "Failed",
        None => "Running",
    };
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": POD, "namespace": NS, "labels": {"job-name": "checkout-migrate"}},
        "spec": {"containers": [{"name": "migrate", "image": "ghcr.io/stefanprodan/podinfo:6.7.0"}],
                 "restartPolicy": "Never", "nodeName": "kind-control-plane"},
        "status": {"phase": phase, "containerStatuses": [{
            "name": "migrate", "image": "ghcr.io/stefanprodan/podinfo:6.7.0", "imageID": "",
            "ready": phase == "Running", "restartCount": restarts, "state": state}]}
    })
}

fn running() -> Value {
    json!({"running": {"startedAt": "2026-05-02T10:15:00Z"}})
}

fn failed() -> Value {
    json!({"terminated": {"exitCode": 1, "reason": "Error",
        "startedAt": "2026-05-02T10:15:00Z", "finishedAt": "2026-05-02T10:15:09Z"}})
}

/// The log grows by a line at `step` and at `2 × step`, when the container fails.
fn growing(step: Duration) -> Snapshot {
    Snapshot::new()
        .with_object(pod(running(), 0))
        .with_log(NS, POD, "running migration 0042_add_orders_index\n")
        .then_after(
            step,
            Changes::new().with_log(
                NS,
                POD,
                "running migration 0042_add_orders_index\napplying schema changes ...\n",
            ),
        )
        .then_after(
            step * 2,
            Changes::new().with_object(pod(failed(), 0)).with_log(
                NS,
                POD,
                "running migration 0042_add_orders_index\napplying schema changes ...\nERROR: migration failed (migration.fail=true)\n",
            ),
        )
}

/// GET `target` and read the body as it comes: each piece with when it arrived (since the
/// server started), and whether the server ended the body (within `limit`).
async fn read_stream(
    server_started: Instant,
    server: &RunningServer,
    target: &str,
    limit: Duration,
) -> (u16, Vec<(Duration, String)>, bool) {
    use http_body::Body as _;
    let uri: http::Uri = server.url().parse().expect("the server's URL");
    let client = kube::Client::try_from(kube::Config::new(uri)).expect("a client");
    let request = http::Request::get(target)
        .body(kube::client::Body::empty())
        .expect("a request");
    let response = client.send(request).await.expect("an answer");
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut pieces = Vec::new();
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx));
        match tokio::time::timeout_at(deadline, next).await {
            Err(_) => return (status, pieces, false),
            Ok(None) => return (status, pieces, true),
            Ok(Some(frame)) => {
                if let Ok(data) = frame.expect("no broken frame").into_data() {
                    pieces.push((
                        server_started.elapsed(),
                        String::from_utf8_lossy(&data).into_owned(),
                    ));
                }
            }
        }
    }
}

fn text(pieces: &[(Duration, String)]) -> String {
    pieces.iter().map(|(_, piece)| piece.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_log_streams_each_new_line_and_ends_when_the_container_terminates() {
    let step = Duration::from_millis(400);
    let started = Instant::now();
    let server = crate::harness::serve(growing(step), ServeOptions::default()).await;
    let (status, pieces, ended) = read_stream(
        started,
        &server,
        &format!("{LOG}?container=migrate&follow=true"),
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        ended,
        "the stream must end once the container terminated: {pieces:?}"
    );
    // Three pieces, in order, as the timeline wrote them: what was there, then each new line.
    let lines: Vec<&str> = pieces.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(
        lines,
        [
            "running migration 0042_add_orders_index\n",
            "applying schema changes ...\n",
            "ERROR: migration failed (migration.fail=true)\n"
        ],
        "{pieces:?}"
    );
    // Each piece came with its state, not all at the end.
    assert!(pieces[0].0 < step && pieces[1].0 >= step, "{pieces:?}");
    // Without follow, the same request is the log as it is now, and ends at once.
    let (_, now, ended) = read_stream(
        started,
        &server,
        &format!("{LOG}?container=migrate"),
        Duration::from_secs(5),
    )
    .await;
    assert!(ended);
    assert_eq!(text(&now), text(&pieces));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_log_ends_as_kubelet_ends_it() {
    let first = "running migration 0042_add_orders_index\n";
    let after = Duration::from_millis(300);
    struct Case {
        name: &'static str,
        snapshot: Snapshot,
        query: &'static str,
        body: String,
        ended: bool,
    }
    let cases = [
        Case {
            name: "a container that has terminated: the whole log, then the end",
            snapshot: Snapshot::new()
                .with_object(pod(failed(), 0))
                .with_log(NS, POD, first),
            query: "container=migrate&follow=true",
            body: first.to_string(),
            ended: true,
        },
        Case {
            name: "the pod is deleted: the stream ends",
            snapshot: Snapshot::new()
                .with_object(pod(running(), 0))
                .with_log(NS, POD, first)
                .then_after(after, Changes::new().deleting("v1", "Pod", NS, POD)),
            query: "container=migrate&follow=true",
            body: first.to_string(),
            ended: true,
        },
        Case {
            name: "the container restarted: the instance followed has ended",
            snapshot: Snapshot::new()
                .with_object(pod(running(), 0))
                .with_log(NS, POD, first)
                .then_after(
                    after,
                    Changes::new()
                        .with_object(pod(running(), 1))
                        .with_log(NS, POD, "again\n"),
                ),
            query: "container=migrate&follow=true",
            body: first.to_string(),
            ended: true,
        },
        Case {
            name: "limitBytes counts what was followed too",
            snapshot: growing(after),
            query: "container=migrate&follow=true&limitBytes=50",
            body: "running migration 0042_add_orders_index\napplying s".to_string(),
            ended: true,
        },
        Case {
            name: "a container still running at the end of the timeline: open, as a running container's log is",
            snapshot: Snapshot::new()
                .with_object(pod(running(), 0))
                .with_log(NS, POD, first),
            query: "container=migrate&follow=true",
            body: first.to_string(),
            ended: false,
        },
    ];
    for case in cases {
        let started = Instant::now();
        let server = crate::harness::serve(case.snapshot, ServeOptions::default()).await;
        let (status, pieces, ended) = read_stream(
            started,
            &server,
            &format!("{LOG}?{}", case.query),
            Duration::from_secs(3),
        )
        .await;
        assert_eq!(status, 200, "{}", case.name);
        assert_eq!(text(&pieces), case.body, "{}", case.name);
        assert_eq!(ended, case.ended, "{}: {pieces:?}", case.name);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_logs_follow_prints_the_lines_as_they_come_and_exits_when_the_container_ends() {
    let server =
        crate::harness::serve(growing(Duration::from_millis(500)), ServeOptions::default()).await;
    let home = tempfile::tempdir().expect("temp dir");
    let kubeconfig = kubeconfig_at(&home.path().join("kubeconfig"), &server.url(), "follow");
    let started = Instant::now();
    let output = tokio::process::Command::new("/usr/bin/kubectl")
        .args(["logs", "-f", "-n", NS, POD, "-c", "migrate"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env("KUBECONFIG", &kubeconfig)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(20), output)
        .await
        .expect("kubectl logs -f ends once the container has terminated")
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "running migration 0042_add_orders_index\napplying schema changes ...\nERROR: migration failed (migration.fail=true)\n"
    );
    // It followed: it could only have printed the last line after the container's end.
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let follows = server
        .requests
        .entries()
        .into_iter()
        .filter(|r| {
            r.path == LOG
                && r.query
                    .as_deref()
                    .is_some_and(|q| q.contains("follow=true"))
        })
        .count();
    assert_eq!(follows, 1, "{:#?}", server.requests.entries());
}

/// A learner's work repos at step 4, in a temp dir that is also their HOME.
fn lab() -> (tempfile::TempDir, LabWorld, Revisions) {
    let dir = tempfile::tempdir().expect("temp dir");
    let world =
        labcheck::lab::cache::at(&dir.path().join("lab"), "module-10", "step-4").expect("the lab");
    let revs = Revisions::of_world(&world).expect("revisions");
    (dir, world, revs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_follows_the_migration_log_and_never_reads_it_again_after_the_pods_event() {
    let (dir, world, revs) = lab();
    // Step 4 with its sync running (the migration's container running, its log one line
    // long), then the sync failed: the container ended with the error line in its log.
    let solved = cluster::solved("step-4", &revs).expect("a fixture state");
    // The migration's pod, as the recorded state names it (`namespace/pod/container`).
    let migrate_pod = solved
        .logs
        .keys()
        .filter_map(|key| key.split('/').nth(1))
        .find(|pod| pod.starts_with("checkout-migrate-"))
        .expect("step 4's solved state has the migration's log")
        .to_string();
    let timeline = cluster::then(
        cluster::state("step-4-sync-running", &revs).expect("a fixture state"),
        Duration::from_secs(2),
        solved,
    );
    let server = crate::harness::serve(timeline, ServeOptions::default()).await;
    let kubeconfig: PathBuf = kubeconfig_at(&dir.path().join("kubeconfig"), &server.url(), "lab");
    let ran = Labcheck::new(dir.path())
        .args([
            "module-10",
            "step-4",
            "--format",
            "json",
            "--wait",
            "20s",
            "--kubeconfig",
        ])
        .arg(&kubeconfig)
        .arg("--work-dir")
        .arg(world.work_dir())
        .run_async()
        .await;
    let report = ran.json();
    assert_eq!(ran.code, 0, "{report:#}\n{}", ran.stderr);
    let check = ran.check("migration-logged-failure");
    assert!(
        check["summary"]
            .as_str()
            .is_some_and(|s| s.contains("migration failed")),
        "{check:#}"
    );
    let log = format!("/api/v1/namespaces/checkout-dev/pods/{migrate_pod}/log");
    let reads: Vec<String> = server
        .requests
        .entries()
        .into_iter()
        .filter(|r| r.path == log)
        .map(|r| r.query.unwrap_or_default())
        .collect();
    // Read once before waiting, then followed: the error line came on the stream.
    assert_eq!(
        reads,
        ["container=migrate", "container=migrate&follow=true"],
        "{:#?}",
        server.requests.entries()
    );
}
