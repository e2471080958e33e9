//! The real-control-plane tier: labcheck against a real kube-apiserver and etcd (built from Go
//! modules by `scripts/kube-testbin.sh`), one plane per test process, shared by its tests.
//! Tests that load a cluster state take [`state_lock`]: a state is the whole cluster.

mod api;
mod certs;
mod conformance;
mod kubectl;
mod kubelet;
mod loader;
mod plane;
mod refusal;
mod same_verdicts;
mod smoke;
mod testbin;

/// Held while a test loads a state and reads it (the loader replaces the whole cluster).
pub fn state_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
mod waiting;
