//! `bench-lab DIR [WAIT_SECS]`: the lab worlds and served cluster snapshots the benchmark runs on.
//!
//! For each measured point of module 10 (step-2, step-4, break-it) it builds
//! `DIR/<point>/work/…` (real git repos, as `labcheck demo --keep` does) and `DIR/<point>.yaml`
//! (the solved cluster at that point). It also writes `DIR/wait.yaml`: step 4's cluster with its
//! sync still running, turning into the solved state after WAIT_SECS (default 10), to measure the
//! load `--wait` puts on the server while it waits; and `DIR/wait-log.yaml`, the same with one
//! more state a second before the end, as Argo CD runs a SyncFail hook (gitops-engine's
//! `setOperationFailed`, pkg/sync/sync_context.go, starts the SyncFail hooks and leaves the
//! operation Running until they complete): the migration has failed, the hook's pod runs with
//! nothing logged yet, and at WAIT_SECS it logs its line and ends, so the step's last change is a
//! log check's.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use labcheck::lab::cluster::{self, Revisions};
use labcheck::lab::world::LabWorld;
use labcheck::snapshot::Snapshot;
use serde_json::{Value, json};

/// The module the benchmark runs on.
const MODULE: &str = "module-10";

/// The measured points: (the course's step name, the folder and file name the scripts use).
const POINTS: [(&str, &str); 3] = [
    ("step-2", "step-2"),
    ("step-4", "step-4"),
    ("break-it/break", "break-it"),
];

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: bench-lab DIR [WAIT_SECS]");
        return ExitCode::from(2);
    };
    // The lab's clones name their remotes by path, from inside the work dir: a relative DIR
    // would name them from the wrong place.
    let dir = match std::path::absolute(&dir) {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("bench-lab: cannot resolve {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let wait_secs = match args.next().map(|s| s.parse::<u64>()) {
        None => 10,
        Some(Ok(secs)) => secs,
        Some(Err(e)) => {
            eprintln!("bench-lab: WAIT_SECS must be a whole number of seconds: {e}");
            return ExitCode::from(2);
        }
    };
    match build(&dir, Duration::from_secs(wait_secs)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-lab: {e}");
            ExitCode::FAILURE
        }
    }
}

fn build(dir: &Path, wait: Duration) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    for (point, name) in POINTS {
        let world = LabWorld::at(&dir.join(name), MODULE, point)
            .map_err(|e| format!("cannot build the lab at {point}: {e}"))?;
        let revs = Revisions::of_world(&world).map_err(|e| format!("{point}: {e}"))?;
        let state = |name: &str| cluster::state(name, &revs).map_err(|e| format!("{point}: {e}"));
        let solved = cluster::solved(point, &revs).map_err(|e| format!("{point}: {e}"))?;
        write(&dir.join(format!("{name}.yaml")), &solved)?;
        if point == "step-4" {
            let running = state("step-4-sync-running")?;
            let hook_running = syncfail_hook_running(&solved);
            let hook_starts = wait.saturating_sub(Duration::from_secs(1));
            let waiting = cluster::then(running.clone(), wait, solved.clone());
            write(&dir.join("wait.yaml"), &waiting)?;
            let log_last = cluster::then(
                cluster::then(running, hook_starts, hook_running),
                wait,
                solved,
            );
            write(&dir.join("wait-log.yaml"), &log_last)?;
        }
    }
    Ok(())
}

fn write(path: &Path, snapshot: &Snapshot) -> Result<(), String> {
    let text = snapshot
        .to_yaml()
        .map_err(|e| format!("cannot render {}: {e}", path.display()))?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The SyncFail hook.
const HOOK: &str = "checkout-sync-failed";

/// Step 4's solved cluster a moment earlier: the SyncFail hook's Job and pod running (nothing
/// logged yet) and the operation still Running, waiting for it, as gitops-engine leaves it.
fn syncfail_hook_running(solved: &Snapshot) -> Snapshot {
    let mut state = solved.clone();
    state.timeline.clear();
    for object in &mut state.objects {
        let kind = object["kind"].as_str().unwrap_or_default().to_string();
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        match (kind.as_str(), name.as_str()) {
            ("Application", "checkout-dev") => {
                let Some(op) = object.pointer_mut("/status/operationState") else {
                    continue;
                };
                op["phase"] = json!("Running");
                op["message"] = json!(format!("waiting for completion of hook batch/Job/{HOOK}"));
                if let Some(map) = op.as_object_mut() {
                    map.remove("finishedAt");
                }
                if let Some(resources) = op
                    .pointer_mut("/syncResult/resources")
                    .and_then(Value::as_array_mut)
                {
                    for r in resources.iter_mut().filter(|r| r["name"] == HOOK) {
                        r["hookPhase"] = json!("Running");
                        r["message"] = json!("");
                    }
                }
            }
            ("Job", HOOK) => {
                let started = object
                    .pointer("/status/startTime")
                    .cloned()
                    .unwrap_or(Value::Null);
                object["status"] = json!({"active": 1, "ready": 1, "startTime": started});
            }
            ("Pod", pod) if pod.starts_with(HOOK) => {
                let started = object
                    .pointer("/status/startTime")
                    .cloned()
                    .unwrap_or(Value::Null);
                object["status"]["phase"] = json!("Running");
                if let Some(statuses) = object
                    .pointer_mut("/status/containerStatuses")
                    .and_then(Value::as_array_mut)
                {
                    for status in statuses {
                        status["ready"] = json!(true);
                        status["state"] = json!({"running": {"startedAt": started}});
                    }
                }
            }
            _ => {}
        }
    }
    state
        .logs
        .retain(|key, _| !key.contains(&format!("/{HOOK}-")));
    state
}
