//! The read-only proof: module 10 whole and each step at its own point of the course, against
//! the served cluster of that point (and the broken states learners meet). The server records every
//! request: none may be a write. Every work repo (refs, index, HEAD, config, working tree; every
//! byte under HOME, the remotes included) must be the same after the runs as before.

use labcheck::lab::cluster::{self, Revisions};
use labcheck::serve::ServeOptions;
use labcheck::snapshot::Snapshot;

use labcheck::lab::fixtures;

use crate::harness::{
    MODULE, World, files_with_bytes, kubeconfig_at, labcheck, points, runtime, serve_on,
};

/// What is run at `point`: the whole module in one run (every check of every step), and the
/// step that point is about on its own (`fresh`: the first step), as a learner runs it there.
fn runs(point: &str) -> [Vec<&str>; 2] {
    let step = if point == "fresh" { "step-1" } else { point };
    [vec!["module-10"], vec!["module-10", step]]
}

/// The cluster states to check `point` against: every cluster the course's fixtures declare for
/// its step (solved and broken), and at the start the fresh lab's and a cluster without Argo CD.
fn states(point: &str, revs: &Revisions) -> Vec<(String, Snapshot)> {
    let declared: Vec<&labcheck::course::fixtures::State> = if point == "fresh" {
        vec![
            &fixtures::module(MODULE)
                .expect("module 10's fixtures")
                .fresh,
        ]
    } else {
        let step = fixtures::step(MODULE, point).expect("the step's fixtures");
        std::iter::once(&step.solved).chain(&step.broken).collect()
    };
    let mut states: Vec<(String, Snapshot)> = Vec::new();
    for state in declared {
        if states.iter().any(|(name, _)| *name == state.cluster_file) {
            continue;
        }
        let snapshot = cluster::of_state(state, revs).expect("a fixture state");
        states.push((state.cluster_file.clone(), snapshot));
    }
    if point == "fresh" {
        let missing = cluster::argo_cd_missing("module-10").expect("a fixture state");
        states.push(("no Argo CD".to_string(), missing));
    }
    states
}

#[test]
fn checking_every_step_against_worlds_and_served_clusters_writes_nothing() {
    let runtime = runtime();
    let mut requests_seen = 0;
    for point in points() {
        let point = point.as_str();
        let world = World::at(point);
        let revs = Revisions::of_world(&world.lab).unwrap_or_else(|e| panic!("{e}"));
        for (state, snapshot) in states(point, &revs) {
            let server = serve_on(&runtime, snapshot, ServeOptions::default());
            kubeconfig_at(&world.home().join(".kube/config"), &server.url(), "lab");
            let before = files_with_bytes(world.home());
            for args in runs(point) {
                let mut all = args.clone();
                all.extend(["--format", "json", "--no-wait"]);
                let run = labcheck(world.home(), &all);
                assert!(
                    [0, 1, 3].contains(&run.code),
                    "{point} / {state} / {args:?}: exit {}\n{}",
                    run.code,
                    run.stderr
                );
                // A verdict, not a crash: one JSON document.
                let _ = run.json();
            }
            let after = files_with_bytes(world.home());
            let changed: Vec<_> = before
                .iter()
                .zip(after.iter())
                .filter(|(b, a)| b != a)
                .map(|(b, _)| b.0.display().to_string())
                .collect();
            assert!(
                before.len() == after.len() && changed.is_empty(),
                "{point} / {state}: files changed: {changed:?} ({} files before, {} after)",
                before.len(),
                after.len()
            );
            let entries = server.requests.entries();
            assert!(
                !entries.is_empty(),
                "{point} / {state}: the cluster was never read"
            );
            let writes = server.requests.writes();
            assert!(
                writes.is_empty(),
                "{point} / {state}: write requests {writes:?}"
            );
            assert!(entries.iter().all(|r| r.method == "GET"), "{entries:?}");
            requests_seen += entries.len();
        }
    }
    assert!(requests_seen > 100, "{requests_seen} requests in all");
}
