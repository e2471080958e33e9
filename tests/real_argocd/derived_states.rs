//! Every cluster state of module 10 is what Argo CD wrote: a recording of this tier, or a
//! derived state (`based_on:` a recording, each difference a change with its why; see
//! `src/course/fixtures/derived.rs`). A state written by hand would show shapes no Argo CD writes
//! (a single-source app, an operation without its sources, a manual sync that retries), so none
//! is left. The test needs no cluster.

use std::path::Path;

/// What the tier writes at the head of a recording (`recordings.rs`), under its format line.
const RECORDED: &str = "# Recorded by the real-Argo-CD tier";

fn is_recording(text: &str) -> bool {
    text.lines().take(3).any(|l| l.starts_with(RECORDED))
}

#[test]
fn every_cluster_state_is_a_recording_or_derived_from_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("modules/module-10/fixtures/cluster");
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    let (mut recorded, mut derived, mut neither) = (0, 0, Vec::new());
    for name in &names {
        let text = read(name);
        if is_recording(&text) {
            recorded += 1;
            continue;
        }
        let base = text
            .lines()
            .find_map(|l| l.strip_prefix("based_on:"))
            .map(|b| b.trim().trim_matches(['\'', '"']).to_string());
        match base {
            Some(base) if is_recording(&read(&base)) => derived += 1,
            Some(base) => {
                neither.push(format!("{name}: based on {base}, which is not a recording"))
            }
            None => neither.push(format!("{name}: written by hand")),
        }
    }
    assert!(
        neither.is_empty(),
        "cluster states that are neither recorded nor derived from a recording:\n{}",
        neither.join("\n")
    );
    // The seven solved states and the three variants failures.rs makes are recorded.
    assert!(
        recorded >= 10 && derived >= 1,
        "{recorded} recorded, {derived} derived"
    );
}

/// The derived states load as the course loads them, each through its base: what the checks
/// read of a derived state is its recording with the changes applied.
#[test]
fn a_derived_state_is_its_recording_with_only_its_changes_applied() {
    let revs = labcheck::lab::cluster::Revisions::nobody("module-10").expect("module-10");
    let running = labcheck::lab::cluster::state("step-4-sync-running", &revs).expect("derives");
    let solved = labcheck::lab::cluster::state("step-4-solved", &revs).expect("a recording");
    let uids = |s: &labcheck::snapshot::Snapshot| -> Vec<(String, String)> {
        s.objects
            .iter()
            .filter(|o| o["kind"] == "Job" || o["kind"] == "Pod")
            .map(|o| {
                (
                    o["metadata"]["name"].as_str().unwrap_or("").to_string(),
                    o["metadata"]["uid"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let (during, after) = (uids(&running), uids(&solved));
    // The sync still running has not run its SyncFail hook; every Job and pod it has is the
    // recording's own, by name and uid: a timeline from one to the other is one Job, not two.
    assert!(!during.is_empty());
    for item in &during {
        assert!(after.contains(item), "{item:?} is not in the recording");
    }
    assert!(
        after.iter().any(|(name, _)| name == "checkout-sync-failed"),
        "the recording ran the SyncFail hook"
    );
    assert!(
        !during
            .iter()
            .any(|(name, _)| name == "checkout-sync-failed")
    );
}
