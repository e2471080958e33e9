//! Real waiting: a step waited for (`--wait`) or watched (`--watch`) while the real API server
//! shows the sync still running; Argo CD's and the Job controller's writes then land on the
//! server (the migration Job fails, the SyncFail hook runs, the operation ends Failed) and the
//! wait ends with the verdict within one round of the runner after the write, through
//! labcheck's watches on the real server. With short watches (`timeoutSeconds` the server
//! honours) the server ends them mid-wait: the server's audit log shows labcheck resume each one
//! from its resourceVersion, and the change arrives through the resumed watch, not a new read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use labcheck::checks::Context;
use labcheck::course::Course;
use labcheck::lab::cluster::{self, Revisions};
use labcheck::lab::world::LabWorld;
use labcheck::outcome::Status;
use labcheck::probe::cluster::{Cluster, ClusterOptions};
use labcheck::probe::files::PathShower;
use labcheck::run::{self, SETTLE, WAIT_INTERVAL, WaitPolicy};
use labcheck::snapshot::Snapshot;

use crate::audit::{self, Audit};
use crate::plane::{RT, block_on, plane};

/// How long each watch asks the server to keep it open when the test wants it ended: the
/// shortest `timeoutSeconds` there is.
const SHORT_WATCH: Duration = Duration::from_secs(1);

/// One look of the runner (a watch event, else its once-a-second poll) and its settling time.
fn one_round() -> Duration {
    WAIT_INTERVAL + SETTLE + Duration::from_secs(1)
}

/// Step 4's world with the sync still running loaded into the plane, and the state it ends in.
struct SyncRunning {
    _dir: tempfile::TempDir,
    world: LabWorld,
    running: Snapshot,
    solved: Snapshot,
    loaded: crate::loader::Loaded,
}

fn sync_running() -> SyncRunning {
    let dir = tempfile::tempdir().expect("a temp dir");
    let world = labcheck::lab::cache::at(dir.path(), "module-10", "step-4").expect("the lab world");
    let revs = Revisions::of_world(&world).expect("revisions");
    let running = cluster::state("step-4-sync-running", &revs).expect("a fixture state");
    let solved = cluster::solved("step-4", &revs).expect("a fixture state");
    let loaded = block_on(crate::loader::load(plane(), &running)).expect("loaded");
    SyncRunning {
        _dir: dir,
        world,
        running,
        solved,
        loaded,
    }
}

impl SyncRunning {
    /// Write the sync's end (the solved state) into the plane; when it was written.
    fn end_the_sync(&mut self) -> Instant {
        let writing = Instant::now();
        block_on(crate::loader::change(
            plane(),
            &self.running,
            &self.solved,
            &mut self.loaded,
        ))
        .expect("the sync ends");
        let written = Instant::now();
        eprintln!("the loader wrote the sync's end in {:?}", written - writing);
        written
    }

    /// Once the server has ended a watch of the Applications by `user` and labcheck has started
    /// the next, write the sync's end: what the audit log showed until then, and when.
    fn end_after_a_resumed_watch(&mut self, user: &str) -> Resumed {
        let audit = Audit::of(&plane().audit_log, user);
        let apps = collection_of(&self.running, "Application", "applications");
        let (end, next) = audit.wait_for(
            "a watch of the Applications the server ended and the next one",
            Duration::from_secs(30),
            |events| audit::ended_and_resumed(events, &apps),
        );
        let from = audit.events().len();
        Resumed {
            audit,
            apps,
            end,
            next,
            from,
            written: self.end_the_sync(),
        }
    }
}

/// A waiter's watch of the Applications ended by the server (audit event `end`) and resumed
/// (`next`), then the sync's end written (at `written`, when the audit log held `from` events).
struct Resumed {
    audit: Audit<'static>,
    apps: String,
    end: usize,
    next: usize,
    from: usize,
    written: Instant,
}

impl Resumed {
    /// See [`assert_resumed_and_streamed`], on the audit log as it is now.
    fn assert_resumed_and_streamed(&self) {
        let events = self.audit.events();
        assert_resumed_and_streamed(&events, &self.apps, self.end, self.next, self.from);
    }
}

/// The collection URL of the first `kind` object in `snapshot` (`/apis/G/V/namespaces/N/R`).
fn collection_of(snapshot: &Snapshot, kind: &str, resource: &str) -> String {
    let object = snapshot
        .objects
        .iter()
        .find(|o| o["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in the state"));
    let api_version = crate::plane::text(object, "/apiVersion");
    let ns = crate::plane::text(object, "/metadata/namespace");
    format!("/apis/{api_version}/namespaces/{ns}/{resource}")
}

/// `--wait` on step 4 through `options`, on the shared runtime; the receiver gets each wait
/// progress's `done`.
fn wait_for_step_4(
    work: std::path::PathBuf,
    options: ClusterOptions,
) -> (
    tokio::task::JoinHandle<run::StepReport>,
    std::sync::mpsc::Receiver<bool>,
) {
    let (tx, rx) = std::sync::mpsc::channel::<bool>();
    let waited = RT.spawn(async move {
        let course = Arc::new(Course::embedded().expect("the course"));
        let module = course.module("module-10").expect("module-10");
        let step = module.step("step-4").expect("step-4");
        let ctx = Context::new(
            module.check_facts(&course, None, &PathShower::default().work_dir(&work)),
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
    (waited, rx)
}

#[test]
fn a_wait_on_the_real_server_ends_when_the_sync_ends_there() {
    let plane = plane();
    let _state = crate::state_lock();
    let mut state = sync_running();
    let options = ClusterOptions {
        kubeconfig: Some(plane.admin_kubeconfig.clone()),
        ..ClusterOptions::default()
    };
    let (waited, rx) = wait_for_step_4(state.world.work_dir(), options);
    // The runner reports its first look: it is waiting on the running sync.
    let first = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the runner waits");
    assert!(!first, "the step did not wait for the running sync");

    let written = state.end_the_sync();
    let report = block_on(waited).expect("the run ends");
    let took = written.elapsed();
    eprintln!("real waiting: the verdict came {took:?} after the sync's end was written");
    assert_eq!(report.status, Status::Pass, "{report:#?}");
    assert!(
        took <= one_round(),
        "the wait ended {took:?} after the write (bound {:?})",
        one_round()
    );
}

/// What the audit log says about one waiter whose watches the server ended: the Application
/// watch resumed from where the ended one stood, with no list or get between, and after the
/// change was written (`from` events on) the Application came only through watches.
fn assert_resumed_and_streamed(
    events: &[audit::Event],
    apps: &str,
    end: usize,
    next: usize,
    from: usize,
) {
    let ended = events
        .iter()
        .find(|e| e.id == events[end].id && e.stage == "ResponseStarted")
        .expect("the ended watch started");
    let resumed = &events[next];
    let version = |e: &audit::Event| -> u64 {
        e.param("resourceVersion")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("a watch without a resourceVersion: {e:?}"))
    };
    assert!(
        version(resumed) >= version(ended) && version(resumed) > 0,
        "the resumed watch starts before the ended one: {ended:?} then {resumed:?}"
    );
    assert_eq!(resumed.param("allowWatchBookmarks"), Some("true"));
    let reads_between: Vec<_> = events[end..next]
        .iter()
        .filter(|e| e.path.starts_with(apps) && e.verb != "watch")
        .collect();
    assert!(
        reads_between.is_empty(),
        "a server-ended watch is resumed from its resourceVersion, not listed again: {reads_between:#?}"
    );
    let reads_after: Vec<_> = events[from..]
        .iter()
        .filter(|e| e.path.starts_with(apps) && e.verb != "watch")
        .collect();
    assert!(
        reads_after.is_empty(),
        "the operation's end came through the watch, not a new read: {reads_after:#?}"
    );
}

#[test]
fn a_wait_survives_watches_the_real_server_ends_and_sees_the_sync_end_through_them() {
    let plane = plane();
    let _state = crate::state_lock();
    let mut state = sync_running();
    let user = "waiter-wait";
    let options = ClusterOptions {
        kubeconfig: Some(plane.audited_kubeconfig(user).expect("a kubeconfig")),
        watch_timeout: Some(SHORT_WATCH),
        ..ClusterOptions::default()
    };
    let (waited, rx) = wait_for_step_4(state.world.work_dir(), options);
    let first = rx.recv_timeout(Duration::from_secs(60));
    if first.is_err() {
        panic!("the runner did not wait: {:#?}", block_on(waited));
    }
    assert_eq!(
        first,
        Ok(false),
        "the step did not wait for the running sync"
    );

    let seen = state.end_after_a_resumed_watch(user);
    let written = seen.written;
    let report = block_on(waited).expect("the run ends");
    let took = written.elapsed();
    eprintln!(
        "real waiting through server-ended watches: the verdict came {took:?} after the write"
    );
    assert_eq!(report.status, Status::Pass, "{report:#?}");
    assert!(
        took <= one_round(),
        "the wait ended {took:?} after the write"
    );
    let ended = seen.audit.events()[seen.end..]
        .iter()
        .filter(|e| e.verb == "watch" && e.stage == "ResponseComplete")
        .count();
    eprintln!("real waiting: {ended} watches ended by the server and resumed during the wait");
    seen.assert_resumed_and_streamed();
}

/// A learner with no past runs, who keeps nothing (the watch's history).
struct Fresh;

impl labcheck::run::History for Fresh {
    fn track<'a>(
        &'a self,
        module: &'a labcheck::course::Module,
        asked: Option<&'a str>,
    ) -> Result<&'a str, labcheck::error::Error> {
        Ok(asked.unwrap_or(&module.manifest.tracks.default))
    }

    fn recall(&self, _module: &labcheck::course::Module) -> run::Recall {
        run::Recall::default()
    }

    fn remember(&mut self, _reports: &[run::StepReport]) -> Result<(), String> {
        Ok(())
    }
}

#[test]
fn watch_mode_survives_watches_the_real_server_ends_and_passes_when_the_sync_ends_there() {
    let plane = plane();
    let _state = crate::state_lock();
    let mut state = sync_running();
    let user = "waiter-watch";
    let session = run::Session {
        asked: run::Asked {
            module: "module-10".to_string(),
            step: Some("step-4".to_string()),
            ..run::Asked::default()
        },
        work_dir: state.world.work_dir(),
        cluster: ClusterOptions {
            kubeconfig: Some(plane.audited_kubeconfig(user).expect("a kubeconfig")),
            watch_timeout: Some(SHORT_WATCH),
            ..ClusterOptions::default()
        },
        ..run::Session::default()
    };
    let (tx, rx) = std::sync::mpsc::channel::<Status>();
    // The watch's futures are not `Send` (its history is a `&dyn History`): on a thread of its
    // own, on the shared runtime.
    let watched = std::thread::spawn(move || {
        block_on(async move {
            let run::watched::Watch::Step(mut watched) =
                session.watch(&Fresh, false).await.expect("a watch")
            else {
                panic!("nothing to watch");
            };
            watched
                .follow(None, |report, _round, _before| {
                    let _ = tx.send(report.status);
                })
                .await
        })
    });
    let first = rx.recv_timeout(Duration::from_secs(60));
    assert!(
        matches!(first, Ok(status) if status != Status::Pass),
        "the first round did not show the running sync: {first:?}"
    );

    let seen = state.end_after_a_resumed_watch(user);
    let written = seen.written;
    let end_of_watch = watched.join().expect("the watch ends");
    let took = written.elapsed();
    eprintln!("real --watch through server-ended watches: it passed {took:?} after the write");
    assert!(!end_of_watch.quit, "{end_of_watch:#?}");
    let last = end_of_watch.last.expect("a last round");
    assert_eq!(last.status, Status::Pass, "{last:#?}");
    assert!(
        took <= one_round(),
        "the watch passed {took:?} after the write"
    );
    seen.assert_resumed_and_streamed();
}
