//! A pod log that never ends, through the real API server's log proxy: the harness kubelet
//! streams it forever, even unfollowed. labcheck judges the log check on what it read within
//! its request bound (`--request-timeout`) and says the log did not end; it never calls the
//! cluster unreachable, and the step's other checks are judged as without it.

use std::process::Command;

use serde_json::Value;

use crate::kubelet::ContainerLog;
use crate::plane::plane;

/// The check that reads the migration's log, and the Job it names (from the course).
const CHECK: &str = "migration-logged-failure";

/// `namespace/pod/container` of the (first) pod of Job `job` in `snapshot`.
fn log_key(snapshot: &labcheck::snapshot::Snapshot, job: &str) -> String {
    let pod = snapshot
        .objects
        .iter()
        .find(|o| {
            o["kind"] == "Pod" && o.pointer("/metadata/labels/job-name") == Some(&Value::from(job))
        })
        .unwrap_or_else(|| panic!("no pod of Job {job}"));
    format!(
        "{}/{}/{}",
        crate::plane::text(pod, "/metadata/namespace"),
        crate::plane::text(pod, "/metadata/name"),
        crate::plane::text(pod, "/spec/containers/0/name"),
    )
}

#[test]
fn a_pod_log_the_kubelet_never_ends_is_judged_on_what_was_read_never_as_an_unreachable_api() {
    let plane = plane();
    let done = crate::step_4_done();
    let key = log_key(&done.snapshot, "checkout-migrate");
    let bound = "2s";
    // More than a buffer's worth (4 KiB) at every write: the server passes it on at once.
    let busy = "still holding the lock\n".repeat(200);
    // (what the learner's migration wrote, what it writes every tenth of a second from then on,
    // the check's status, words its summary holds)
    let cases = [
        (
            "running migration 0042\nERROR: column \"sku\" already exists\n",
            busy.as_str(),
            "pass",
            "the log did not end within 2s",
        ),
        (
            "running migration 0042\n",
            busy.as_str(),
            "error",
            "did not end within 2s (it streams on); labcheck read ",
        ),
        // The real server's log proxy flushes an unfollowed log only as its buffer fills: a log
        // that writes little reaches no client within the bound, and says so.
        (
            "running migration 0042\nERROR: column \"sku\" already exists\n",
            "still holding the lock\n",
            "error",
            "did not end within 2s (it streams on); and none of it arrived in that time",
        ),
    ];
    for (text, then, status, words) in cases {
        plane.kubelet.set_one(
            &key,
            ContainerLog::Endless {
                text: text.to_string(),
                then: then.to_string(),
            },
        );
        let started = std::time::Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_labcheck"))
            .args([
                "module-10",
                "step-4",
                "-o",
                "json",
                "--request-timeout",
                bound,
            ])
            .arg("--kubeconfig")
            .arg(&plane.admin_kubeconfig)
            .arg("--work-dir")
            .arg(done.world.work_dir())
            .env("HOME", done.dir.path())
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .output()
            .expect("labcheck runs");
        let took = started.elapsed();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let report: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{e}: {stdout}{}", String::from_utf8_lossy(&output.stderr)));
        // One step's run prints that step's document.
        let checks = report["checks"].as_array().cloned().unwrap_or_default();
        let check = checks
            .iter()
            .find(|c| c["id"] == CHECK)
            .unwrap_or_else(|| panic!("no {CHECK} in {report:#}"));
        let summary = check["summary"].as_str().unwrap_or_default();
        eprintln!("an endless log ({status}), judged in {took:?}: {summary}");
        assert_eq!(check["status"], status, "{check:#}");
        assert!(summary.contains(words), "{check:#}");
        assert!(
            !stdout.contains("cannot reach"),
            "an endless log is not an unreachable API: {stdout}"
        );
        // Every other check is judged as on the solved cluster: they pass.
        for other in checks.iter().filter(|c| c["id"] != CHECK) {
            assert_eq!(other["status"], "pass", "{other:#}");
        }
        if status == "error" {
            let cause = check["cause"].as_str().unwrap_or_default();
            assert!(cause.starts_with("log-unended"), "{check:#}");
            assert_eq!(
                output.status.code(),
                Some(labcheck::cli::exit_code(labcheck::outcome::Status::Error).into())
            );
        }
    }
}
