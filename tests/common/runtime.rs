//! The runtime a tier runs its own tasks and its tests' requests on (the clients, the kubelet,
//! the harness's servers), for test threads that are not async.

use std::sync::LazyLock;

/// The tier's runtime: two workers, as the machine has two cores.
pub static RT: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
});

/// Run `future` on [`RT`] from a test's thread.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    RT.block_on(future)
}

/// Start a tier's cluster with the future `start` makes (on [`RT`]), panicking with its error;
/// and how long that took, finding the binaries included.
pub fn start_timed<T, F>(start: impl FnOnce() -> F) -> (T, std::time::Duration)
where
    F: std::future::Future<Output = Result<T, String>>,
{
    let started = std::time::Instant::now();
    let value = block_on(start()).unwrap_or_else(|e| panic!("{e}"));
    (value, started.elapsed())
}
