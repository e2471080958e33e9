//! A step's whole solution, run for real against the real API server: step 4's script (`labcheck
//! solution module-10 step-4`) on a learner's world at step 3 with the plane holding step 3's
//! cluster; its git edits, commit and push are real, its `kubectl` lines go to the real server,
//! and its `argocd app get --refresh` goes to a stand-in that waits while the test writes into
//! the real server what Argo CD and the controllers would after that push (step 4's solved
//! cluster, at the revisions the script pushed). Then `labcheck module-10 step-4` on the real
//! server passes.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use labcheck::lab::cluster::{self, Revisions};

use crate::plane::{block_on, plane};

/// The stand-in `argocd`: it notes its arguments; asked to refresh, it waits until the test
/// says the sync is written (the marker file), then shows the Application with the real kubectl.
const ARGOCD: &str = r#"#!/bin/sh
echo "argocd $*" >>"$WALK_LOG"
case " $* " in
  *" --refresh "*)
    i=0
    while [ ! -e "$WALK_SYNCED" ]; do
      i=$((i + 1)); [ "$i" -gt 1200 ] && { echo "no sync was written" >&2; exit 1; }
      sleep 0.1
    done ;;
esac
exec kubectl -n argocd get applications.argoproj.io "$3"
"#;

#[test]
fn step_4s_solution_runs_against_the_real_server_and_then_the_step_passes_there() {
    let plane = plane();
    let _state = crate::state_lock();
    let dir = tempfile::tempdir().expect("a temp dir");
    let world =
        labcheck::lab::cache::at(dir.path(), "module-10", "step-3").expect("step 3's world");
    let before = cluster::solved("step-3", &Revisions::of_world(&world).expect("revisions"))
        .expect("step 3's cluster");
    block_on(crate::loader::load(plane, &before)).expect("step 3's cluster loaded");

    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("a bin folder");
    let argocd = bin.join("argocd");
    std::fs::write(&argocd, ARGOCD).expect("the stand-in");
    std::fs::set_permissions(&argocd, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("executable");
    let labcheck = std::path::Path::new(env!("CARGO_BIN_EXE_labcheck"));
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        labcheck.parent().expect("its folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (log, synced) = (dir.path().join("walk.log"), dir.path().join("synced"));
    let work = world.work_dir();
    let script = Command::new(labcheck)
        .args(["solution", "module-10", "step-4", "--work-dir"])
        .arg(&work)
        .env("HOME", dir.path())
        .output()
        .expect("labcheck solution");
    assert!(
        script.status.success(),
        "{}",
        String::from_utf8_lossy(&script.stderr)
    );
    let mut bash = Command::new("bash")
        .arg("-c")
        .arg(String::from_utf8_lossy(&script.stdout).into_owned())
        .env("PATH", &path)
        .env("HOME", dir.path())
        .env("KUBECONFIG", &plane.admin_kubeconfig)
        .env("WALK_LOG", &log)
        // The learner's identity for the commit (their own git config is not this machine's).
        .env("GIT_AUTHOR_NAME", "Learner")
        .env("GIT_AUTHOR_EMAIL", "learner@example.com")
        .env("GIT_COMMITTER_NAME", "Learner")
        .env("GIT_COMMITTER_EMAIL", "learner@example.com")
        .env("WALK_SYNCED", &synced)
        .env("NO_COLOR", "1")
        .env_remove("LABCHECK_WORK_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs the solution");

    // The push is done when the script asks Argo CD to refresh: write the sync it would make.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("--refresh")) {
        if let Ok(Some(status)) = bash.try_wait() {
            let mut err = String::new();
            let _ = bash.stderr.take().map(|mut e| e.read_to_string(&mut err));
            panic!("the script ended ({status}) before asking Argo CD: {err}");
        }
        assert!(
            Instant::now() < deadline,
            "the script never asked Argo CD to refresh"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let revs = Revisions::of_world(&world).expect("the pushed revisions");
    let after = cluster::solved("step-4", &revs).expect("step 4's cluster");
    block_on(crate::loader::load(plane, &after)).expect("the sync written");
    std::fs::write(&synced, "").expect("the marker");
    let output = bash.wait_with_output().expect("the script ends");
    let (out, err) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(
        output.status.success(),
        "the solution failed:\n{out}\n{err}"
    );
    // Every look went to the real server and showed what the step made.
    let migrate_log = after
        .logs
        .iter()
        .find(|(key, _)| key.contains("checkout-migrate-"))
        .map(|(_, text)| text.clone())
        .expect("the migration's log");
    // The Deployment still runs what it ran before the failed sync.
    let image = after
        .objects
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .and_then(|d| d.pointer("/spec/template/spec/containers/0/image"))
        .and_then(serde_json::Value::as_str)
        .expect("the Deployment's image")
        .to_string();
    for shown in ["checkout-dev", image.as_str(), migrate_log.trim()] {
        assert!(
            out.contains(shown),
            "the looks did not show {shown:?}:\n{out}\n{err}"
        );
    }
    assert!(!err.contains("error:"), "a look failed:\n{err}");

    let verdict = Command::new(labcheck)
        .args(["module-10", "step-4", "--no-wait"])
        .arg("--work-dir")
        .arg(&work)
        .arg("--kubeconfig")
        .arg(&plane.admin_kubeconfig)
        .env("HOME", dir.path())
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .output()
        .expect("labcheck runs");
    assert_eq!(
        verdict.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&verdict.stdout),
        String::from_utf8_lossy(&verdict.stderr)
    );
}
