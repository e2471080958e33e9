//! The control plane's binaries: `scripts/kube-testbin.sh` builds them into
//! `target/kube-testbin/` (or `KUBE_TESTBIN_DIR`) and returns at once when they are up to date. The
//! harness runs it before every start, under a file lock, so `cargo test` on a fresh machine
//! builds them once however many test processes start together.

use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::Command;

/// Where the two programs are.
pub struct Binaries {
    pub apiserver: PathBuf,
    pub etcd: PathBuf,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folder the script builds into (the same rule as the script's).
pub fn dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KUBE_TESTBIN_DIR") {
        return PathBuf::from(dir);
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
        .join("kube-testbin")
}

/// Build (or find up to date) both binaries.
pub fn binaries() -> Binaries {
    let dir = dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let lock_path = dir.with_extension("lock");
    let lock = std::fs::File::create(&lock_path)
        .unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    // SAFETY: flock on a descriptor this function owns; released when `lock` is dropped.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        panic!(
            "cannot lock {}: {}",
            lock_path.display(),
            std::io::Error::last_os_error()
        );
    }
    let script = repo().join("scripts/kube-testbin.sh");
    let output = Command::new("bash")
        .arg(&script)
        .env("KUBE_TESTBIN_DIR", &dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} failed ({}); the real-API-server tier needs Go 1.26 to build its control plane:\n{}{}",
        script.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    drop(lock);
    Binaries {
        apiserver: dir.join("kube-apiserver"),
        etcd: dir.join("etcd"),
    }
}
