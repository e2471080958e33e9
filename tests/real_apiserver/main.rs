//! The real-control-plane tier: labcheck against a real kube-apiserver and etcd (built from Go
//! modules by `scripts/kube-testbin.sh`), one plane per test process, shared by its tests.
//! Tests that load a cluster state take [`state_lock`]: a state is the whole cluster.

#[path = "../common/processes.rs"]
mod processes;
#[path = "../common/runtime.rs"]
mod runtime;
#[path = "../common/scratch.rs"]
mod scratch;

mod api;
mod audit;
mod captures;
#[path = "../common/certs.rs"]
mod certs;
mod conformance;
mod course_kubectl;
#[path = "../common/kubeconfig.rs"]
mod kubeconfig;
mod kubectl;
#[path = "../common/kubelet.rs"]
mod kubelet;
mod loader;
#[path = "../common/operation_states.rs"]
mod operation_states;
mod operations_named;
mod plane;
mod proxy;
mod refusal;
mod refused_fields;
mod same_verdicts;
mod smoke;
mod solution_run;
#[path = "../common/testbin.rs"]
mod testbin;
mod unended_log;

/// Held while a test loads a state and reads it (the loader replaces the whole cluster).
pub fn state_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
mod waiting;

/// Step 4 done: a learner's lab world in a temp dir, its solved cluster, and that cluster loaded
/// into the plane, the state lock held for as long as it lives.
pub struct Step4Done {
    pub dir: tempfile::TempDir,
    pub world: labcheck::lab::world::LabWorld,
    pub snapshot: labcheck::snapshot::Snapshot,
    pub loaded: loader::Loaded,
    _state: std::sync::MutexGuard<'static, ()>,
}

impl Step4Done {
    /// The migration hook's pod, by the name the state gives it (a recording names it as the Job
    /// controller did), with the log its container wrote.
    pub fn migrate_pod(&self) -> (String, String) {
        self.snapshot
            .logs
            .iter()
            .find_map(|(key, log)| {
                // `namespace/pod`, or `namespace/pod/container` in a recording.
                let mut parts = key.split('/');
                let (namespace, pod) = (parts.next()?, parts.next()?);
                (namespace == "checkout-dev" && pod.starts_with("checkout-migrate-"))
                    .then(|| (pod.to_string(), log.clone()))
            })
            .expect("step 4's solved state has the migration hook's pod and its log")
    }

    /// The real server's uids as (real, the snapshot's), so objects compare field by field.
    pub fn real_to_fixture(&self) -> Vec<(String, String)> {
        self.loaded
            .uids
            .iter()
            .map(|(fixture, real)| (real.clone(), fixture.clone()))
            .collect()
    }
}

/// Take the [`state_lock`], build step 4's world and load its solved cluster into the plane.
pub fn step_4_done() -> Step4Done {
    use labcheck::lab::cluster::{self, Revisions};
    let state = state_lock();
    let dir = tempfile::tempdir().expect("a temp dir");
    let world = labcheck::lab::cache::at(dir.path(), "module-10", "step-4").expect("the lab world");
    let revs = Revisions::of_world(&world).expect("revisions");
    let snapshot = cluster::solved("step-4", &revs).expect("step 4's solved cluster");
    let loaded = plane::block_on(loader::load(plane::plane(), &snapshot)).expect("loaded");
    Step4Done {
        dir,
        world,
        snapshot,
        loaded,
        _state: state,
    }
}

/// A kubeconfig at `path` for `served` with a context and no user at all, as kubectl reads one
/// for a server that asks for no credentials.
pub fn kubeconfig_without_a_user(
    served: &labcheck::serve::RunningServer,
    path: std::path::PathBuf,
) -> std::path::PathBuf {
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: serve\n  cluster:\n    server: {}\ncontexts:\n- name: serve\n  context:\n    cluster: serve\ncurrent-context: serve\n",
            served.url()
        ),
    )
    .expect("a kubeconfig");
    path
}

/// A finished process's output and errors, as text.
pub fn texts(output: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `labcheck serve` of `snapshot` on a free loopback port, with `options`.
pub fn serve_on_loopback(
    snapshot: labcheck::snapshot::Snapshot,
    options: labcheck::serve::ServeOptions,
) -> labcheck::serve::RunningServer {
    plane::block_on(labcheck::serve::start(
        snapshot,
        std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        options,
    ))
    .expect("serve starts")
}
