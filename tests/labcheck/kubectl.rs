//! The real kubectl against `labcheck serve`: if kubectl reads the served snapshot the way it reads
//! a cluster, the server is honest enough to test labcheck's cluster checks against.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use labcheck::serve::{self, RunningServer, ServeOptions};
use labcheck::snapshot::Snapshot;

use crate::harness::Labcheck;

const KUBECTL: &str = "/usr/bin/kubectl";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn local() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// A served snapshot, a private HOME (kubectl's discovery cache goes there) and a kubeconfig.
struct World {
    server: RunningServer,
    home: tempfile::TempDir,
    kubeconfig: PathBuf,
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

impl World {
    async fn serve(snapshot: Snapshot, options: ServeOptions) -> World {
        let server = serve::start(snapshot, local(), options)
            .await
            .expect("the server starts");
        let home = tempfile::tempdir().expect("temp dir");
        let kubeconfig = home.path().join("kubeconfig");
        serve::write_kubeconfig(&kubeconfig, &server.url(), "labcheck-test")
            .expect("kubeconfig written");
        World {
            server,
            home,
            kubeconfig,
        }
    }

    async fn presync_failed() -> World {
        let snapshot =
            Snapshot::load(&fixture("presync-failed.yaml")).expect("the fixture is valid");
        World::serve(snapshot, ServeOptions::default()).await
    }

    async fn kubectl(&self, args: &[&str]) -> Run {
        let output = tokio::process::Command::new(KUBECTL)
            .args(args)
            // Nothing from the machine's own kubectl setup may leak in.
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.home.path())
            .env("KUBECONFIG", &self.kubeconfig)
            .stdin(Stdio::null())
            .output()
            .await
            .expect("kubectl runs");
        Run {
            ok: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// The whitespace-separated cells of the output line whose first cells are `start`.
fn row(output: &str, start: &[&str]) -> Option<Vec<String>> {
    output.lines().find_map(|line| {
        let cells: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        (cells.len() >= start.len() && cells.iter().zip(start).all(|(c, s)| c == s))
            .then_some(cells)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_lists_the_jobs_of_a_namespace_with_status_and_completions() {
    let world = World::presync_failed().await;
    let run = world.kubectl(&["get", "jobs", "-n", "checkout-dev"]).await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(
        row(&run.stdout, &["NAME"]).expect("a header"),
        ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    );
    let migrate = row(&run.stdout, &["checkout-migrate"]).expect("the migration Job");
    assert_eq!(&migrate[1..3], ["Failed", "0/1"]);
    let notify = row(&run.stdout, &["checkout-sync-failed"]).expect("the SyncFail Job");
    assert_eq!(&notify[1..4], ["Complete", "1/1", "11s"]);
    assert!(world.server.requests.writes().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_a_job_log_through_the_jobs_selector() {
    let world = World::presync_failed().await;
    let run = world
        .kubectl(&["logs", "job/checkout-migrate", "-n", "checkout-dev"])
        .await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "running migration 0042_add_orders_index\napplying schema changes ...\nERROR: migration failed (migration.fail=true)\n"
    );
    // kubectl found the pod by the Job's spec.selector, not by guessing its name.
    let requests = world.server.requests.entries();
    let pod_list = requests
        .iter()
        .find(|r| r.path == "/api/v1/namespaces/checkout-dev/pods")
        .expect("kubectl listed the pods");
    let query = pod_list.query.clone().unwrap_or_default();
    assert!(
        query.contains("labelSelector=batch.kubernetes.io%2Fcontroller-uid%3D3e1f4a2b"),
        "{query}"
    );
    assert!(requests.iter().any(|r| r.path
        == "/api/v1/namespaces/checkout-dev/pods/checkout-migrate-7xq2p/log"
        && r.status == 200));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_tails_a_pod_log() {
    let world = World::presync_failed().await;
    let run = world
        .kubectl(&[
            "logs",
            "checkout-migrate-7xq2p",
            "-n",
            "checkout-dev",
            "--tail=1",
        ])
        .await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "ERROR: migration failed (migration.fail=true)\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_lists_applications_in_all_namespaces_with_sync_and_health() {
    let world = World::presync_failed().await;
    let run = world.kubectl(&["get", "applications", "-A"]).await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(
        row(&run.stdout, &["NAMESPACE"]).expect("a header"),
        ["NAMESPACE", "NAME", "SYNC", "STATUS", "HEALTH", "STATUS"]
    );
    assert_eq!(
        row(&run.stdout, &["argocd", "checkout-dev"]).expect("the app"),
        ["argocd", "checkout-dev", "OutOfSync", "Healthy"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_prints_argocd_cm_as_yaml() {
    let world = World::presync_failed().await;
    let run = world
        .kubectl(&["get", "cm", "argocd-cm", "-n", "argocd", "-o", "yaml"])
        .await;
    assert!(run.ok, "{}", run.stderr);
    let cm: serde_json::Value = serde_yaml::from_str(&run.stdout).expect("kubectl printed YAML");
    assert_eq!(cm["kind"], "ConfigMap");
    assert_eq!(cm["metadata"]["name"], "argocd-cm");
    let health = cm["data"]["resource.customizations.health.argoproj.io_Application"]
        .as_str()
        .expect("the health check key");
    assert!(health.contains("hs.status = obj.status.health.status"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_a_hook_result_by_jsonpath_through_the_app_short_name() {
    let world = World::presync_failed().await;
    let run = world
        .kubectl(&[
            "get",
            "app",
            "checkout-dev",
            "-n",
            "argocd",
            "-o",
            "jsonpath={.status.operationState.phase} {.status.operationState.syncResult.resources[0].name} {.status.operationState.syncResult.resources[0].hookPhase}",
        ])
        .await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout, "Failed checkout-migrate Failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_says_not_found_for_a_missing_job() {
    let world = World::presync_failed().await;
    let run = world
        .kubectl(&["get", "job", "checkout-smoke-test", "-n", "checkout-dev"])
        .await;
    assert!(!run.ok);
    assert_eq!(
        run.stderr.trim(),
        "Error from server (NotFound): jobs.batch \"checkout-smoke-test\" not found"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_cannot_delete_anything() {
    let world = World::presync_failed().await;
    let run = world
        .kubectl(&["delete", "job", "checkout-migrate", "-n", "checkout-dev"])
        .await;
    assert!(!run.ok);
    assert!(
        run.stderr.contains(
            "Error from server (MethodNotAllowed): the server does not allow this method"
        ),
        "{}",
        run.stderr
    );
    let deletes: Vec<_> = world
        .server
        .requests
        .writes()
        .into_iter()
        .filter(|r| r.method == "DELETE")
        .collect();
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].status, 405);
    let still_there = world
        .kubectl(&[
            "get",
            "job",
            "checkout-migrate",
            "-n",
            "checkout-dev",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(still_there.stdout.trim(), "job.batch/checkout-migrate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_selects_pods_by_label_across_namespaces() {
    let world = World::presync_failed().await;
    let run = world
        .kubectl(&[
            "get",
            "pods",
            "-A",
            "-l",
            "job-name=checkout-migrate",
            "-o",
            "name",
        ])
        .await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout, "pod/checkout-migrate-7xq2p\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_knows_argo_cd_is_missing_when_the_snapshot_has_none() {
    let snapshot = Snapshot::new().with_object(serde_json::json!({
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "checkout-dev"}
    }));
    let world = World::serve(snapshot, ServeOptions::default()).await;
    let run = world.kubectl(&["get", "applications", "-A"]).await;
    assert!(!run.ok);
    assert!(
        run.stderr
            .contains("the server doesn't have a resource type \"applications\""),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_shows_the_apiservers_forbidden_message() {
    let snapshot = Snapshot::load(&fixture("presync-failed.yaml")).expect("the fixture is valid");
    let options = ServeOptions {
        fail_with: Some(403),
        user: "learner".to_string(),
        ..ServeOptions::default()
    };
    let world = World::serve(snapshot, options).await;
    let run = world.kubectl(&["get", "jobs", "-n", "checkout-dev"]).await;
    assert!(!run.ok);
    assert_eq!(
        run.stderr.trim(),
        "Error from server (Forbidden): jobs.batch is forbidden: User \"learner\" cannot list resource \"jobs\" in API group \"batch\" in the namespace \"checkout-dev\""
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_serve_command_prints_how_to_reach_it_and_kubectl_follows_it() {
    let home = tempfile::tempdir().expect("temp dir");
    let kubeconfig = home.path().join("kubeconfig");
    let mut server = Labcheck::new(home.path())
        .arg("serve")
        .arg(fixture("presync-failed.yaml"))
        .arg("--write-kubeconfig")
        .arg(&kubeconfig)
        .spawn();
    let banner = server.read_until("Press Ctrl-C");
    let banner = banner.join("\n");
    assert!(
        banner.contains("module 10 step 4: PreSync migration failed"),
        "{banner}"
    );
    let try_line = format!(
        "try: kubectl --kubeconfig {} get jobs -A",
        kubeconfig.display()
    );
    assert!(banner.contains(&try_line), "{banner}");
    let output = tokio::process::Command::new(KUBECTL)
        .args(["--kubeconfig"])
        .arg(&kubeconfig)
        .args(["get", "jobs", "-A", "-o", "name"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .output()
        .await
        .expect("kubectl runs");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "job.batch/checkout-migrate\njob.batch/checkout-sync-failed\n"
    );
    // Ctrl-C ends it cleanly, with exit code 0.
    server.interrupt();
    let stopped = server.wait_within(std::time::Duration::from_secs(10));
    assert_eq!(stopped.code, 0, "{}", stopped.stderr);
    let rest: Vec<&str> = stopped.stdout.lines().collect();
    assert_eq!(rest, ["labcheck serve: stopped"]);
}

/// A course's derived state (`based_on:` a recording beside it) is served as its recording with
/// its changes applied: kubectl sees the sync still running and no SyncFail hook yet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_serve_command_serves_a_derived_course_state_as_its_recording_with_its_changes() {
    let home = tempfile::tempdir().expect("temp dir");
    let kubeconfig = home.path().join("kubeconfig");
    let state = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("modules/module-10/fixtures/cluster/step-4-sync-running.yaml");
    let mut server = Labcheck::new(home.path())
        .arg("serve")
        .arg(&state)
        .arg("--write-kubeconfig")
        .arg(&kubeconfig)
        .spawn();
    let banner = server.read_until("Press Ctrl-C").join("\n");
    assert!(
        banner.contains("sync running, migration in progress"),
        "{banner}"
    );
    let kubectl = |args: &[&str]| {
        let output = std::process::Command::new(KUBECTL)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", home.path())
            .output()
            .expect("kubectl runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let phase = kubectl(&[
        "-n",
        "argocd",
        "get",
        "applications.argoproj.io",
        "checkout-dev",
        "-o",
        "jsonpath={.status.operationState.phase} {.operation.sync.revisions[1]}",
    ]);
    assert_eq!(phase, "Running ${pushed:checkout-config}");
    let jobs = kubectl(&["-n", "checkout-dev", "get", "jobs", "-o", "name"]);
    assert_eq!(
        jobs, "job.batch/checkout-migrate\njob.batch/checkout-smoke-test\n",
        "the SyncFail hook has not run"
    );
    server.interrupt();
    assert_eq!(
        server.wait_within(std::time::Duration::from_secs(10)).code,
        0
    );
}

/// A derived state whose change no longer fits its base is refused naming the file, the change's
/// line and column, and the change.
#[test]
fn the_serve_command_refuses_a_derived_state_naming_the_change_that_does_not_fit() {
    let home = tempfile::tempdir().expect("temp dir");
    let dir = home.path().join("cluster");
    std::fs::create_dir(&dir).expect("dir");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("modules/module-10/fixtures/cluster/step-4-solved.yaml"),
        dir.join("step-4-solved.yaml"),
    )
    .expect("copied");
    let moment = dir.join("moment.yaml");
    std::fs::write(
        &moment,
        "format: labcheck-snapshot/v1\nbased_on: step-4-solved.yaml\nchanges:\n  - why: gone\n    delete: Job/checkout-dev/checkout-renamed\n",
    )
    .expect("written");
    let run = Labcheck::new(home.path()).arg("serve").arg(&moment).run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{}:4:3: changes[0]: `Job/checkout-dev/checkout-renamed` names nothing in the base state",
            moment.display()
        )),
        "{}",
        run.stderr
    );
}
