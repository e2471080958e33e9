//! Waiting, end to end: module 10's cluster states served over HTTP (with a timeline where the
//! sync ends later), the real binary waiting on watch streams, stopping when the result is final,
//! and naming a timeout in every format.

use std::path::PathBuf;
use std::time::Duration;

use labcheck::lab::cluster;
use labcheck::serve::{RunningServer, ServeOptions};
use labcheck::snapshot::Snapshot;
use serde_json::Value;

use crate::cluster_checks::{check, path_str};
use crate::harness::{LabAt, Labcheck, Run};

const APP: &str = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev";
const APPS: &str = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications";

/// A learner's work repos at a course point (see [`LabAt`]), waited on: what these tests add
/// to it is here.
type Lab = LabAt;

impl Lab {
    fn at(point: &str) -> Lab {
        LabAt::new(point)
    }

    fn snapshot_file(&self, snapshot: &Snapshot) -> PathBuf {
        let path = self.dir.path().join("state.yaml");
        let yaml = snapshot.to_yaml().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, yaml).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    /// `STEP` waited for up to 20 s (JSON) against a served cluster that moves from the fixture
    /// state `from` to `point`'s solved state `after` the start: the run and its report.
    async fn waits_while_it_moves(
        &self,
        step: &str,
        from: &str,
        after: Duration,
        point: &str,
    ) -> (RunningServer, Run) {
        let timeline = cluster::then(
            cluster::state(from, &self.revs).expect("a fixture state"),
            after,
            cluster::solved(point, &self.revs).expect("a fixture state"),
        );
        let server = start(timeline).await;
        let kubeconfig = self.kubeconfig(&server);
        let ran = self
            .waiting(step, "json", "20s", ["--kubeconfig", path_str(&kubeconfig)])
            .await;
        (server, ran)
    }

    /// `STEP` in `format`, waited for up to `wait`, against the cluster `cluster` names
    /// (`--kubeconfig FILE`, `--snapshot FILE`).
    async fn waiting(&self, step: &str, format: &str, wait: &str, cluster: [&str; 2]) -> Run {
        let args = [&["--format", format, "--wait", wait][..], &cluster].concat();
        self.run(step, &args).await
    }

    /// `labcheck module-10 STEP ARGS…` against the cluster given in `args`.
    async fn run(&self, step: &str, args: &[&str]) -> Run {
        Labcheck::new(self.dir.path())
            .arg("module-10")
            .arg(step)
            .arg("--work-dir")
            .arg(self.world.work_dir())
            .args(args)
            .run_async()
            .await
    }
}

async fn start(snapshot: Snapshot) -> RunningServer {
    crate::harness::serve(snapshot, ServeOptions::default()).await
}

fn checks_waited(report: &Value) -> Vec<&Value> {
    report["checks"]
        .as_array()
        .map(|checks| checks.iter().filter(|c| c.get("wait").is_some()).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_of_your_commit_that_finished_failed_ends_the_wait_at_once() {
    // Step 5 asks for a Succeeded sync of the learner's HEAD; their HEAD (step 4's commit) was
    // synced and Failed. That changes only with a new push or sync, so `--wait 20s` must not
    // wait. (Step 2 would not do here: step 4 passing replaced it.)
    let lab = Lab::at("step-4");
    let server = start(cluster::solved("step-4", &lab.revs).expect("a fixture state")).await;
    let kubeconfig = lab.kubeconfig(&server);
    let ran = lab
        .waiting(
            "step-5",
            "json",
            "20s",
            ["--kubeconfig", path_str(&kubeconfig)],
        )
        .await;
    let report = ran.json();
    assert_eq!(ran.code, 1, "{report:#}");
    assert!(ran.elapsed < Duration::from_secs(10), "{:?}", ran.elapsed);
    let sync = check(&report, "sync-succeeded");
    assert_eq!(sync["status"], "fail", "{sync:#}");
    assert_eq!(sync["wait"]["end"], "final", "{sync:#}");
    assert!(
        sync["wait"]["because"]
            .as_str()
            .is_some_and(|b| b.contains("waiting cannot change it")),
        "{sync:#}"
    );
    assert!(report.get("timed_out").is_none(), "{report:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_file_cannot_change_so_a_running_sync_in_it_is_not_waited_for() {
    let lab = Lab::at("step-4");
    let file = lab
        .snapshot_file(&cluster::state("step-4-sync-running", &lab.revs).expect("a fixture state"));
    let ran = lab
        .waiting("step-4", "json", "30s", ["--snapshot", path_str(&file)])
        .await;
    let report = ran.json();
    assert_eq!(ran.code, 1, "{report:#}");
    assert!(ran.elapsed < Duration::from_secs(10), "{:?}", ran.elapsed);
    let waited = checks_waited(&report);
    assert!(!waited.is_empty(), "{report:#}");
    assert!(
        waited.iter().any(|c| c["wait"]["because"]
            .as_str()
            .is_some_and(|b| b.contains("cannot change"))),
        "{report:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_still_running_at_the_limit_is_a_named_timeout_in_every_format() {
    let lab = Lab::at("step-4");
    let server =
        start(cluster::state("step-4-sync-running", &lab.revs).expect("a fixture state")).await;
    let kubeconfig = lab.kubeconfig(&server);
    let kubeconfig = path_str(&kubeconfig);

    let json = lab
        .waiting("step-4", "json", "2s", ["--kubeconfig", kubeconfig])
        .await;
    let report = json.json();
    assert_eq!(json.code, 1, "a timeout is 'not done': {report:#}");
    assert_eq!(report["timed_out"], true, "{report:#}");
    let sync = check(&report, "sync-failed");
    assert_eq!(sync["timed_out"], true, "{sync:#}");
    assert_eq!(sync["wait"]["end"], "timed-out", "{sync:#}");
    assert!(
        sync["wait"]["waited_s"].as_f64().is_some_and(|s| s >= 2.0),
        "{sync:#}"
    );
    assert!(
        sync["wait"]["last_state"]
            .as_str()
            .is_some_and(|s| s.contains("Running")),
        "{sync:#}"
    );
    // Off a terminal, the wait is announced on stderr as a log line.
    json.assert_stderr_has(&["step-4: waiting up to 2s for"]);

    let human = lab
        .run("step-4", &["--wait", "2s", "--kubeconfig", kubeconfig])
        .await;
    assert_eq!(human.code, 1);
    human.assert_stdout_has(&["gave up after 2 s: still Running"]);

    let junit = lab
        .waiting("step-4", "junit", "2s", ["--kubeconfig", kubeconfig])
        .await;
    assert_eq!(junit.code, 1);
    assert!(
        junit
            .stdout
            .contains("message=\"gave up after 2 s: still Running"),
        "{}",
        junit.stdout
    );

    let tap = lab
        .run(
            "step-4",
            &["-o", "tap", "--wait", "2s", "--kubeconfig", kubeconfig],
        )
        .await;
    assert_eq!(tap.code, 1);
    assert!(
        tap.stdout
            .contains("waited: \"gave up after 2 s: still Running"),
        "{}",
        tap.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sync_ending_is_seen_through_the_watch_and_logged_as_a_state_change() {
    let lab = Lab::at("step-4");
    let ends_after = Duration::from_secs(2);
    let (server, ran) = lab
        .waits_while_it_moves("step-4", "step-4-sync-running", ends_after, "step-4")
        .await;
    let report = ran.json();
    assert_eq!(ran.code, 0, "{report:#}\n{}", ran.stderr);
    assert!(
        ran.elapsed < ends_after + Duration::from_secs(4),
        "{:?}",
        ran.elapsed
    );
    // One line per change, with the elapsed seconds: `2s step-4 sync-failed: Running → passed`.
    let change = ran
        .stderr
        .lines()
        .find(|l| l.contains("step-4 sync-failed: ") && l.ends_with("→ passed"))
        .unwrap_or_else(|| panic!("no state change line in:\n{}", ran.stderr));
    assert!(
        change
            .split('s')
            .next()
            .is_some_and(|n| n.parse::<u64>().is_ok()),
        "{change}"
    );
    // The Application is read once; after that the watch stream feeds it.
    assert_eq!(
        server.requests.count("GET", APP),
        1,
        "{:#?}",
        server.requests.entries()
    );
    let watches = server
        .requests
        .entries()
        .into_iter()
        .filter(|r| r.path == APPS && r.query.as_deref().is_some_and(|q| q.contains("watch=1")))
        .count();
    assert_eq!(watches, 1, "{:#?}", server.requests.entries());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushed_values_that_argo_cd_applies_while_labcheck_waits_pass_on_a_fresh_read_of_argocd_cm()
{
    // Step 1 pushed; Argo CD syncs its own Application (and so argocd-cm) two seconds later. The
    // ConfigMap was read before that sync and failed for good; the check it counts after waited
    // for the sync. Judged on that first read, "argocd-cm lacks your value" would stand beside
    // "Argo CD synced your push".
    let lab = Lab::at("step-1");
    let syncs_after = Duration::from_secs(2);
    let (_server, ran) = lab
        .waits_while_it_moves("step-1", "step-1-argocd-not-synced", syncs_after, "step-1")
        .await;
    let report = ran.json();
    assert_eq!(ran.code, 0, "{report:#}\n{}", ran.stderr);
    assert_eq!(
        check(&report, "argocd-synced-push")["status"],
        "pass",
        "{report:#}"
    );
    assert_eq!(
        check(&report, "argocd-cm-has-health-check")["status"],
        "pass",
        "{report:#}"
    );
}
