//! Where a test process writes its worlds: memory (`/dev/shm`) where the machine has it.
//!
//! The tests build and delete thousands of small git repos. On ext4, creating files among that
//! many freshly deleted inodes is slow (`perf`: a quarter of the integration binary's CPU was the
//! kernel's `recently_deleted` scan), and on tmpfs it is not: the binary took 111 s on disk and
//! 83 s in memory (2 cores). Before `main`, while the process has one thread, `TMPDIR` is pointed
//! at a folder of this user's in `/dev/shm`, so `tempfile`, `std::env::temp_dir()` (the lab's
//! world cache) and every process a test starts (labcheck, git, kubectl) write there.
//!
//! Nothing changes where `TMPDIR` is already set (the person running the tests chose), where
//! `/dev/shm` is missing (macOS) or mounted `noexec` (containers often mount it so, and the tests
//! run scripts they write: stand-ins for `kubectl` and `argocd`, the course's solutions), or
//! where the folder is not ours alone.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

#[ctor::ctor(unsafe)]
fn tests_write_in_memory() {
    if std::env::var_os("TMPDIR").is_some() {
        return;
    }
    if let Some(dir) = memory_scratch(Path::new("/dev/shm")) {
        // SAFETY: a constructor runs before `main`, while the process has no other thread.
        unsafe { std::env::set_var("TMPDIR", dir) };
    }
}

/// `<shm>/labcheck-tests-<uid>`, made when missing, if it is a folder only this user can use.
fn memory_scratch(shm: &Path) -> Option<PathBuf> {
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    if !std::fs::metadata(shm).ok()?.is_dir() || !runs_programs(shm) {
        return None;
    }
    let dir = shm.join(format!("labcheck-tests-{uid}"));
    // Another process of the same tests may make it at the same moment: either one is fine.
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    let ours = meta.is_dir() && meta.uid() == uid && meta.permissions().mode() & 0o077 == 0;
    ours.then_some(dir)
}

/// Whether the file system holding `dir` lets programs run: the options of its mount (the one
/// with the longest mount point above `dir` in `/proc/self/mounts`) do not say `noexec`.
fn runs_programs(dir: &Path) -> bool {
    let Ok(mounts) = std::fs::read_to_string("/proc/self/mounts") else {
        return false;
    };
    let holding = mounts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (_, point, _, options) = (
                fields.next()?,
                fields.next()?,
                fields.next()?,
                fields.next()?,
            );
            dir.starts_with(point).then_some((point.len(), options))
        })
        .max_by_key(|(length, _)| *length);
    holding.is_some_and(|(_, options)| !options.split(',').any(|option| option == "noexec"))
}
