//! The fleet matrix: one step for a class of three learners, each with their own served cluster
//! and work repos, shown side by side with the failures grouped by cause.

use std::path::Path;

use labcheck::lab::cluster::{self as lab_cluster, Revisions};
use labcheck::lab::content;
use labcheck::lab::world::{CoursePoint, LabWorld};
use labcheck::serve::{self, RunningServer, ServeOptions};
use labcheck::snapshot::Snapshot;

use crate::harness::{Run, labcheck};

async fn serve_for(dir: &Path, learner: &str, snapshot: Snapshot) -> RunningServer {
    let loopback = "127.0.0.1:0".parse().expect("an address");
    let server = serve::start(snapshot, loopback, ServeOptions::default())
        .await
        .expect("the snapshot serves");
    serve::write_kubeconfig(
        &dir.join(format!("{learner}.yaml")),
        &server.url(),
        "labcheck",
    )
    .expect("kubeconfig written");
    server
}

/// alice did step 4; bob committed it but did not push; carol pushed, and no sync ran yet.
async fn class(root: &Path, args: &[&str]) -> (Run, Vec<RunningServer>) {
    let kubeconfigs = root.join("kubeconfigs");
    std::fs::create_dir_all(&kubeconfigs).expect("kubeconfig folder");
    let alice = LabWorld::at(&root.join("alice"), CoursePoint::Step4).expect("alice's lab");
    let bob = LabWorld::at(&root.join("bob"), CoursePoint::Step3).expect("bob's lab");
    let repo = bob.repo("checkout-config").expect("bob's checkout-config");
    repo.write("helm/dev.yaml", &content::checkout_dev_broken_migration())
        .expect("bob edits");
    repo.commit_all(content::messages::STEP_4)
        .expect("bob commits");
    let carol = LabWorld::at(&root.join("carol"), CoursePoint::Step4).expect("carol's lab");
    let revs = |w: &LabWorld| Revisions::of_world(w).expect("revisions");
    let servers = vec![
        serve_for(
            &kubeconfigs,
            "alice",
            lab_cluster::solved(CoursePoint::Step4, &revs(&alice)),
        )
        .await,
        serve_for(
            &kubeconfigs,
            "bob",
            lab_cluster::solved(CoursePoint::Step3, &revs(&bob)),
        )
        .await,
        serve_for(
            &kubeconfigs,
            "carol",
            lab_cluster::seen_not_synced(&revs(&carol)),
        )
        .await,
    ];
    let work_dirs = format!("{}/{{learner}}/work", root.display());
    let mut all: Vec<String> = vec![
        "module-10".into(),
        "step-4".into(),
        "--kubeconfigs".into(),
        kubeconfigs.display().to_string(),
        "--work-dirs".into(),
        work_dirs,
    ];
    all.extend(args.iter().map(|a| a.to_string()));
    let home = root.to_path_buf();
    let run = tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        labcheck(&home, &refs)
    })
    .await
    .expect("labcheck ran");
    (run, servers)
}

fn learner<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["learners"]
        .as_array()
        .and_then(|l| l.iter().find(|x| x["learner"] == name))
        .unwrap_or_else(|| panic!("no learner {name} in {json:#}"))
}

fn check_status(json: &serde_json::Value, name: &str, id: &str) -> String {
    learner(json, name)["steps"][0]["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|x| x["id"] == id))
        .and_then(|c| c["status"].as_str())
        .unwrap_or("missing")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instructor_sees_each_learners_own_state_of_step_4_side_by_side() {
    let root = tempfile::tempdir().expect("a temp dir");
    let (run, servers) = class(root.path(), &["--format", "json"]).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    assert_eq!(learner(&json, "alice")["status"], "pass");
    assert_eq!(learner(&json, "bob")["status"], "fail");
    assert_eq!(learner(&json, "carol")["status"], "fail");
    assert_eq!(check_status(&json, "bob", "release-pushed"), "fail");
    assert_eq!(check_status(&json, "carol", "release-pushed"), "pass");
    assert_eq!(check_status(&json, "carol", "sync-failed"), "fail");
    assert_eq!(check_status(&json, "alice", "sync-failed"), "pass");
    let causes = json["causes"].as_array().cloned().unwrap_or_default();
    let pushed = causes
        .iter()
        .find(|c| c["check"] == "release-pushed")
        .expect("a cause for release-pushed");
    assert_eq!(pushed["learners"], serde_json::json!(["bob"]));
    // Each learner's cluster was read, and only read.
    for server in &servers {
        assert!(!server.requests.entries().is_empty());
        assert!(server.requests.writes().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_matrix_marks_each_check_per_learner_and_groups_failures_by_cause() {
    let root = tempfile::tempdir().expect("a temp dir");
    let (run, _servers) = class(root.path(), &[]).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let out = &run.stdout;
    assert!(
        out.contains("module-10 step-4 · Release with a failing migration · 3 learners"),
        "{out}"
    );
    assert!(
        out.contains("  alice    ✓  ✓  ✓  ✓  ✓  ✓  ✓  ✓  pass"),
        "{out}"
    );
    assert!(
        out.contains("  bob      ✓  ✓  ✗  ✗  ✗  ✗  ✗  ✗  fail"),
        "{out}"
    );
    assert!(out.contains("   3 release-pushed"), "{out}");
    assert!(
        out.contains("  carol    ✓  ✓  ✓  ✗  ✗  ✗  ✗  ✗  fail"),
        "{out}"
    );
    assert!(out.contains("By cause:"), "{out}");
    assert!(
        out.contains("1 learner (bob): step-4 release-pushed failed"),
        "{out}"
    );
}

#[test]
fn a_namespace_template_without_learner_is_refused() {
    let home = tempfile::tempdir().expect("a temp dir");
    let run = labcheck(
        home.path(),
        &[
            "module-10",
            "step-4",
            "--learners",
            "alice,bob",
            "--namespace-template",
            "checkout-dev",
        ],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("--namespace-template `checkout-dev` has no {learner}"),
        "{}",
        run.stderr
    );
}
