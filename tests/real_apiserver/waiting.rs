//! Real waiting: a step waited for (`--wait`) while the real API server shows the sync still
//! running; Argo CD's and the Job controller's writes then land on the server (the migration Job
//! fails, the SyncFail hook runs, the operation ends Failed) and the wait ends with the verdict
//! within one round of the runner after the write, through labcheck's watches on the real server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use labcheck::checks::Context;
use labcheck::course::Course;
use labcheck::lab::cluster::{self, Revisions};
use labcheck::outcome::Status;
use labcheck::probe::cluster::{Cluster, ClusterOptions};
use labcheck::probe::files::PathShower;
use labcheck::run::{self, SETTLE, WAIT_INTERVAL, WaitPolicy};

use crate::plane::{RT, block_on, plane};

#[test]
fn a_wait_on_the_real_server_ends_when_the_sync_ends_there() {
    let plane = plane();
    let _state = crate::state_lock();
    let dir = tempfile::tempdir().expect("a temp dir");
    let world = labcheck::lab::cache::at(dir.path(), "module-10", "step-4").expect("the lab world");
    let revs = Revisions::of_world(&world).expect("revisions");
    let running = cluster::state("step-4-sync-running", &revs).expect("a fixture state");
    let solved = cluster::solved("step-4", &revs).expect("a fixture state");
    let mut loaded = block_on(crate::loader::load(plane, &running)).expect("loaded");

    let (tx, rx) = std::sync::mpsc::channel::<bool>();
    let options = ClusterOptions {
        kubeconfig: Some(plane.admin_kubeconfig.clone()),
        ..ClusterOptions::default()
    };
    let work = world.work_dir();
    let waited = RT.spawn(async move {
        let course = Arc::new(Course::embedded().expect("the course"));
        let module = course.module("module-10").expect("module-10");
        let step = module.step("step-4").expect("step-4");
        let ctx = Context::new(
            module.check_facts(&course, None),
            &module.manifest.tracks.default,
            work,
            Arc::new(Cluster::connect(&options).await),
            PathShower::default(),
        );
        let on_wait = move |p: &run::WaitProgress| {
            let _ = tx.send(p.done);
        };
        run::run_step(
            &ctx,
            &run::Recall::default(),
            step,
            WaitPolicy::UpTo(Duration::from_secs(90)),
            &on_wait,
        )
        .await
    });
    // The runner reports its first look: it is waiting on the running sync.
    let first = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the runner waits");
    assert!(!first, "the step did not wait for the running sync");

    block_on(crate::loader::change(plane, &running, &solved, &mut loaded)).expect("the sync ends");
    let written = Instant::now();
    let report = block_on(waited).expect("the run ends");
    let took = written.elapsed();
    eprintln!("real waiting: the verdict came {took:?} after the sync's end was written");
    assert_eq!(report.status, Status::Pass, "{report:#?}");
    // One look of the runner (a watch event, else its once-a-second poll) and its settling time.
    let bound = WAIT_INTERVAL + SETTLE + Duration::from_secs(1);
    assert!(
        took <= bound,
        "the wait ended {took:?} after the write (bound {bound:?})"
    );
}
