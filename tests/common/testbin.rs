//! The tiers' parts, built from Go modules by scripts that return at once when they are up to
//! date: `scripts/kube-testbin.sh` (the control plane, into `target/kube-testbin/` or
//! `KUBE_TESTBIN_DIR`) and `scripts/argocd-testbin.sh` (Argo CD, KWOK, Helm, and Argo CD's CRDs
//! from the same argo-cd module, into `target/argocd-testbin/` or `ARGOCD_TESTBIN_DIR`). The
//! harness runs them before every start, under a file lock, so `cargo test` on a fresh machine
//! builds them once however many test processes start together.

#![allow(dead_code)] // each tier uses its own part of this file

use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::Command;

/// Where the control plane's programs are.
pub struct Binaries {
    pub apiserver: PathBuf,
    pub etcd: PathBuf,
    pub controller_manager: PathBuf,
    pub scheduler: PathBuf,
}

/// Where the real-Argo-CD tier's own parts are.
pub struct ArgoCdParts {
    /// Argo CD's one binary: it is each of its programs by the name it is called by.
    pub argocd: PathBuf,
    pub kwok: PathBuf,
    pub helm: PathBuf,
    /// `git-verify-wrapper.sh` and `gpg-wrapper.sh`, which the repo server runs from its PATH.
    pub hack: PathBuf,
    /// KWOK's own Stage manifests (`kustomize/stage/` of its module).
    pub kwok_stages: PathBuf,
    /// Argo CD's CRDs.
    pub crds: PathBuf,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
}

/// The folder `scripts/kube-testbin.sh` builds into (the same rule as the script's).
pub fn dir() -> PathBuf {
    std::env::var_os("KUBE_TESTBIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target().join("kube-testbin"))
}

/// The folder `scripts/argocd-testbin.sh` builds into (the same rule as the script's).
pub fn argocd_dir() -> PathBuf {
    std::env::var_os("ARGOCD_TESTBIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target().join("argocd-testbin"))
}

/// Run `script` (with `args`) under a lock beside `out`, which it builds into (`env_var` tells it).
fn run_locked(script: &str, args: &[&str], env_var: &str, out: &PathBuf) {
    std::fs::create_dir_all(out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let lock_path = out.with_extension("lock");
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
    let script = repo().join(script);
    let output = Command::new("bash")
        .arg(&script)
        .args(args)
        .env(env_var, out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} {} failed ({}); the tier builds its parts with Go (1.26, and 1.27 from the module proxy for Argo CD):\n{}{}",
        script.display(),
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    drop(lock);
}

/// Build (or find up to date) kube-apiserver and etcd.
pub fn binaries() -> Binaries {
    built(&[])
}

/// [`binaries`] and kube-controller-manager and kube-scheduler.
pub fn binaries_with_controllers() -> Binaries {
    built(&["controllers"])
}

fn built(args: &[&str]) -> Binaries {
    let dir = dir();
    run_locked("scripts/kube-testbin.sh", args, "KUBE_TESTBIN_DIR", &dir);
    Binaries {
        apiserver: dir.join("kube-apiserver"),
        etcd: dir.join("etcd"),
        controller_manager: dir.join("kube-controller-manager"),
        scheduler: dir.join("kube-scheduler"),
    }
}

/// Argo CD's CRDs, from the argo-cd module the real-Argo-CD tier runs (downloaded, not built:
/// seconds). `LABCHECK_ARGOCD_CRDS` names another folder.
pub fn argocd_crds() -> PathBuf {
    if let Some(dir) = std::env::var_os("LABCHECK_ARGOCD_CRDS") {
        return PathBuf::from(dir);
    }
    let dir = argocd_dir();
    run_locked(
        "scripts/argocd-testbin.sh",
        &["crds"],
        "ARGOCD_TESTBIN_DIR",
        &dir,
    );
    dir.join("crds")
}

/// Build (or find up to date) Argo CD, KWOK and Helm.
pub fn argocd_parts() -> ArgoCdParts {
    let dir = argocd_dir();
    run_locked("scripts/argocd-testbin.sh", &[], "ARGOCD_TESTBIN_DIR", &dir);
    ArgoCdParts {
        argocd: dir.join("argocd"),
        kwok: dir.join("kwok"),
        helm: dir.join("helm"),
        hack: dir.join("hack"),
        kwok_stages: dir.join("kwok-stages"),
        crds: dir.join("crds"),
    }
}
