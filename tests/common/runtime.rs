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
