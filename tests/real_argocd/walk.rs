//! The course walks itself: every step of module 10, in course order, through the kind
//! workflow's own `kind-course-steps.sh` (each step's solution piped to bash: real edits, commits
//! and pushes to the git server, the real `argocd` and `kubectl`; then `labcheck module-10 STEP
//! --wait 4m`), on the real Argo CD; every step passes on what Argo CD really did.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};

use serde_json::Value;

use crate::cluster::{Cluster, cluster};
use crate::lab::{Lab, MODULE, set_up};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What a step's JSON report says failed or could not check, one line each.
fn not_passed(report: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let steps = report["steps"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| vec![report.clone()]);
    for step in steps {
        for check in step["checks"].as_array().into_iter().flatten() {
            let status = check["status"].as_str().unwrap_or("");
            if status != "pass" && status != "skip" {
                lines.push(format!(
                    "{} {}: {} ({})",
                    check["id"].as_str().unwrap_or(""),
                    status,
                    check["summary"].as_str().unwrap_or(""),
                    check["cause"].as_str().unwrap_or("")
                ));
            }
        }
    }
    lines
}

/// Each JSON report the walk kept, with what it says did not pass.
fn reports(out: &std::path::Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut reports = Vec::new();
    for entry in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let report: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            reports.push((path, not_passed(&report)));
        }
    }
    reports.sort();
    reports
}

/// The lab after the walk (walked once per test process, by the first test that asks), and
/// the lock a test holds while it changes the lab from there.
pub struct Walked {
    pub lab: Lab,
    /// Where the walk kept each step's JSON report and snapshot (`<step>.json`,
    /// `<step>-snapshot.yaml`, break-it's stages as `break-it-break`, `break-it-fix`).
    pub out: PathBuf,
}

static WALKED: OnceLock<Result<Walked, String>> = OnceLock::new();
static LAB_LOCK: Mutex<()> = Mutex::new(());

/// The lab after a walk that passed (the walk's failure otherwise), and the lab's lock.
pub fn walked() -> (&'static Cluster, &'static Walked, MutexGuard<'static, ()>) {
    let cluster = cluster();
    let walked = WALKED.get_or_init(|| walk(cluster));
    let guard = LAB_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    match walked {
        Ok(walked) => (cluster, walked, guard),
        Err(e) => panic!("the walk did not pass, so nothing after it can be shown:\n{e}"),
    }
}

fn walk(cluster: &Cluster) -> Result<Walked, String> {
    let lab = set_up(cluster)?;
    let out = cluster.dir.join("walk");
    let script = repo().join(".github/scripts/kind-course-steps.sh");
    let output = lab
        .command("bash")
        .arg(&script)
        .env("MODULE", MODULE)
        .env("OUT_DIR", &out)
        .env("WAIT", "4m")
        .env("RECORD", "1")
        .output()
        .map_err(|e| format!("kind-course-steps.sh: {e}"))?;
    let reports = reports(&out);
    if !output.status.success() {
        lab.pause_for_a_look();
        return Err(format!(
            "the walk stopped:\n{}\n{}\nreports: {reports:#?}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
            cluster.logs()
        ));
    }
    Ok(Walked { lab, out })
}

#[test]
fn every_step_of_module_10_passes_after_its_solution_on_a_real_argo_cd() {
    let (_, walked, _lab) = walked();
    let reports = reports(&walked.out);
    // Six steps (break-it as its two stages), each recorded with nothing left unpassed.
    assert_eq!(reports.len(), 7, "{reports:#?}");
    for (path, lines) in &reports {
        assert!(lines.is_empty(), "{}: {lines:#?}", path.display());
    }
}
