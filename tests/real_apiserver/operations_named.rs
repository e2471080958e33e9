//! Issue 40's named operations on the real API server: each state of tests/labcheck/
//! operations_named.rs (an apply-strategy sync, a dry run, a selective sync, a dry run of an
//! older revision, `ApplyOutOfSyncOnly=true`, a hook the API server refused, a self-heal after
//! which the Jobs are younger than the push and no sync the history holds made them) loaded into
//! kube-apiserver gives every check of its step the status and cause `labcheck serve` gives.

use std::sync::Arc;

use labcheck::course::Course;
use labcheck::lab::cluster::Revisions;
use labcheck::probe::cluster::{Cluster, ClusterOptions};

use crate::operation_states::named_operations;
use crate::plane::{block_on, plane};
use crate::same_verdicts::run_on;

/// Each check as `id: status cause`.
fn verdicts(report: &labcheck::run::StepReport) -> Vec<String> {
    report
        .checks
        .iter()
        .map(|c| {
            format!(
                "{}: {:?} {}",
                c.id,
                c.outcome.status,
                c.outcome
                    .cause
                    .as_ref()
                    .map(|c| c.as_str().to_string())
                    .unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn every_named_operation_gets_the_same_status_and_cause_from_the_real_api_server() {
    let plane = plane();
    let course = Arc::new(Course::embedded().expect("the built-in course"));
    let module = course.module("module-10").expect("module 10");
    let scratch = tempfile::tempdir().expect("scratch");
    let world = |point: &str| {
        labcheck::lab::cache::at(&scratch.path().join(point), "module-10", point)
            .unwrap_or_else(|e| panic!("module 10 at {point}: {e}"))
    };
    let (world2, world3) = (world("step-2"), world("step-3"));
    let revs2 = Revisions::of_world(&world2).expect("step 2's revisions");
    let revs3 = Revisions::of_world(&world3).expect("step 3's revisions");
    let real_options = ClusterOptions {
        kubeconfig: Some(plane.admin_kubeconfig.clone()),
        ..ClusterOptions::default()
    };
    let _state = crate::state_lock();
    let mut differences = Vec::new();
    let mut named = 0;
    for (did, point, snapshot) in named_operations(&revs2, &revs3) {
        let work = if point == "step-2" {
            world2.work_dir()
        } else {
            world3.work_dir()
        };
        let step = module.step(point).expect("the step");
        let loaded = block_on(crate::loader::load(plane, &snapshot))
            .unwrap_or_else(|e| panic!("{did}: the state loads: {e}"));
        assert!(
            loaded.differences.is_empty(),
            "{did}: the server changed the state: {:?}",
            loaded.differences
        );
        let (served, _) = block_on(async {
            let cluster = Cluster::serve(snapshot.clone(), did).await;
            run_on(&course, module, step, &work, cluster).await
        });
        let (real, _) = block_on(async {
            let cluster = Cluster::connect(&real_options).await;
            run_on(&course, module, step, &work, cluster).await
        });
        let (served, real) = (verdicts(&served), verdicts(&real));
        // The Job younger than the push after a self-heal: decided from what was read, a fail
        // naming the self-heal when no sync the history holds made it; could-not-check only
        // where the history may have lost the sync that did.
        let migrate = real
            .iter()
            .find(|v| v.starts_with("migrate-job-complete:"))
            .cloned()
            .unwrap_or_default();
        if did.starts_with("a self-heal, the Jobs made after") {
            assert_eq!(
                migrate, "migrate-job-complete: Fail selective-sync",
                "{did}"
            );
        } else if did.starts_with("a self-heal, a history of one") {
            assert_eq!(migrate, "migrate-job-complete: Error sync-unknown", "{did}");
        }
        if served != real {
            differences.push(format!("{did}:\n  serve {served:?}\n  real  {real:?}"));
        }
        if real.iter().any(|v| {
            [
                "apply-strategy-sync",
                "dry-run",
                "selective-sync",
                "apply-out-of-sync-only",
                "hook-refused",
            ]
            .iter()
            .any(|c| v.contains(c))
        }) {
            named += 1;
        }
    }
    assert!(
        differences.is_empty(),
        "serve and the real API server differ:\n{}",
        differences.join("\n")
    );
    // Every state but the one whose history may have lost the push's sync.
    assert_eq!(named, 9, "each state names its operation");
}
