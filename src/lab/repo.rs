//! The shared repo driver of every lab world: a learner's clone driven with the real `git` CLI
//! (write, add, commit, push, revert) under a fixed identity and a clock that advances
//! one minute per commit, so the same world always has the same SHAs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Seconds since the epoch of the first commit (2025-01-06 09:00:00 UTC, a Monday morning).
const FIRST_COMMIT_EPOCH: u64 = 1_736_154_000;

/// What went wrong while building a lab world.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A point name that is not one of the module's points.
    #[error("`{name}` is not a point of the course; use one of: {points}")]
    UnknownPoint {
        /// What was asked for.
        name: String,
        /// The module's points, comma-separated.
        points: String,
    },
    /// git could not be started.
    #[error("cannot run `git {args}` in {}: {source}. Is git installed and on PATH?", dir.display())]
    Spawn {
        /// The git arguments.
        args: String,
        /// Where git was to run.
        dir: PathBuf,
        /// Why it could not start.
        source: std::io::Error,
    },
    /// git ran and failed.
    #[error("`git {args}` failed in {}: {stderr}", dir.display())]
    Git {
        /// The git arguments.
        args: String,
        /// Where git ran.
        dir: PathBuf,
        /// What git said.
        stderr: String,
    },
    /// A file or folder of the world could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The world's folder is not empty.
    #[error("{} already holds files; a lab world needs an empty folder", path.display())]
    NotEmpty {
        /// The folder.
        path: PathBuf,
    },
    /// A repo the world does not have.
    #[error("no work repo `{0}` in the lab world; its repos are the module's `repos:`")]
    UnknownRepo(String),
    /// The built-in course's fixtures do not load or do not declare what was asked for.
    #[error("the built-in course's fixtures cannot build this lab: {0}")]
    Fixtures(String),
}

/// Make `root` (empty or absent) the root of a new lab world, with its `remotes/` and `work/`
/// folders, and hand back the world's clock (shared by its repos: one minute per commit).
pub fn new_root(root: &Path) -> Result<Arc<AtomicU64>, LabError> {
    if root.exists() {
        let mut entries = std::fs::read_dir(root).map_err(|source| LabError::Io {
            path: root.to_path_buf(),
            source,
        })?;
        if entries.next().is_some() {
            return Err(LabError::NotEmpty {
                path: root.to_path_buf(),
            });
        }
    }
    for name in ["remotes", "work"] {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).map_err(|source| LabError::Io { path: dir, source })?;
    }
    Ok(Arc::new(AtomicU64::new(0)))
}

/// The git environment of the lab's learner: no user or system config, a fixed identity, the C
/// locale, so the same steps make the same commits wherever they run (the lab builder and the
/// course walk's scripts alike).
pub const LEARNER_GIT_ENV: [(&str, &str); 7] = [
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_AUTHOR_NAME", "Course Learner"),
    ("GIT_AUTHOR_EMAIL", "learner@course.local"),
    ("GIT_COMMITTER_NAME", "Course Learner"),
    ("GIT_COMMITTER_EMAIL", "learner@course.local"),
    ("LC_ALL", "C"),
];

/// One of the learner's clones, driven with the real `git` CLI.
#[derive(Debug, Clone)]
pub struct LabRepo {
    path: PathBuf,
    clock: Arc<AtomicU64>,
    /// The paths [`LabRepo::write`] and [`LabRepo::delete`] touched since they were last
    /// committed: what [`LabRepo::commit_written`] adds, by name.
    written: Arc<Mutex<Vec<String>>>,
}

impl LabRepo {
    /// A bare remote `remotes/<name>.git` under `root`, the learner's clone of it in
    /// `work/<name>`, and `files` committed and pushed as the state before the module's first step.
    pub fn create(
        root: &Path,
        name: &str,
        clock: Arc<AtomicU64>,
        files: &[(String, String)],
    ) -> Result<LabRepo, LabError> {
        LabRepo::create_in(root, name, name, clock, files)
    }

    /// [`LabRepo::create`] with the clone in `work/<dir>` (a course may name a repo's folder).
    pub fn create_in(
        root: &Path,
        name: &str,
        dir: &str,
        clock: Arc<AtomicU64>,
        files: &[(String, String)],
    ) -> Result<LabRepo, LabError> {
        let remotes = root.join("remotes");
        let remote = format!("{name}.git");
        LabRepo::open(remotes.clone(), clock.clone())
            .git(&["init", "--quiet", "--bare", &remote])?;
        let remote_path = remotes.join(&remote).display().to_string();
        LabRepo::open(root.join("work"), clock.clone()).git(&[
            "clone",
            "--quiet",
            &remote_path,
            dir,
        ])?;
        let repo = LabRepo::open(root.join("work").join(dir), clock);
        for (rel, text) in files {
            repo.write(rel, text)?;
        }
        let written: Vec<&str> = files.iter().map(|(rel, _)| rel.as_str()).collect();
        repo.commit_paths(&written, &format!("{name}: as the earlier modules left it"))?;
        repo.git(&["push", "--quiet", "-u", "origin", "main"])?;
        Ok(repo)
    }

    /// A repo (or a folder to run git in) at `path`, sharing `clock` with the other repos of its
    /// world so every commit of the world gets its own reproducible time.
    pub fn open(path: PathBuf, clock: Arc<AtomicU64>) -> LabRepo {
        LabRepo {
            path,
            clock,
            written: Arc::default(),
        }
    }

    /// The touched paths, locked (a panic elsewhere leaves a list of paths, still valid).
    fn written(&self) -> MutexGuard<'_, Vec<String>> {
        self.written.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn touched(&self, rel: &str) {
        let mut written = self.written();
        if !written.iter().any(|w| w == rel) {
            written.push(rel.to_string());
        }
    }

    /// Delete `rel` from the working tree, as `rm` would.
    pub fn delete(&self, rel: &str) -> Result<(), LabError> {
        let path = self.path.join(rel);
        std::fs::remove_file(&path).map_err(|source| LabError::Io { path, source })?;
        self.touched(rel);
        Ok(())
    }

    /// Where the clone lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write `text` to `rel` (creating folders), as a learner's editor would.
    pub fn write(&self, rel: &str, text: &str) -> Result<(), LabError> {
        let path = self.path.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| LabError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| LabError::Io { path, source })?;
        self.touched(rel);
        Ok(())
    }

    /// `git add -- PATH… && git commit -qm MESSAGE`: the files named (written or deleted), and
    /// nothing else of the working tree. With no path, whatever is staged already is committed.
    pub fn commit_paths(&self, paths: &[&str], message: &str) -> Result<(), LabError> {
        if !paths.is_empty() {
            let mut args = vec!["add", "--"];
            args.extend_from_slice(paths);
            self.git(&args)?;
            self.written().retain(|w| !paths.contains(&w.as_str()));
        }
        self.tick();
        self.git(&["commit", "--quiet", "-m", message])?;
        Ok(())
    }

    /// The files written or deleted through this repo since they were last committed, committed
    /// by name ([`LabRepo::commit_paths`]): a stray file a test planted beside them (an `.env`, a
    /// swap file) stays out, as it does in every hint and solution.
    pub fn commit_written(&self, message: &str) -> Result<(), LabError> {
        let written = self.written().clone();
        let paths: Vec<&str> = written.iter().map(String::as_str).collect();
        self.commit_paths(&paths, message)
    }

    /// `git push -q`.
    pub fn push(&self) -> Result<(), LabError> {
        self.git(&["push", "--quiet"])?;
        Ok(())
    }

    /// `git revert --no-edit HEAD`.
    pub fn revert_head(&self) -> Result<(), LabError> {
        self.tick();
        self.git(&["revert", "--no-edit", "HEAD"])?;
        Ok(())
    }

    /// The full sha of HEAD.
    pub fn head_sha(&self) -> Result<String, LabError> {
        Ok(self.git(&["rev-parse", "HEAD"])?.trim().to_string())
    }

    /// The full sha of the upstream (`origin/main`), what the last push left there.
    pub fn upstream_sha(&self) -> Result<String, LabError> {
        Ok(self.git(&["rev-parse", "@{upstream}"])?.trim().to_string())
    }

    /// The text of `rel` in the working tree; `None` when the file is not there.
    pub fn read(&self, rel: &str) -> Result<Option<String>, LabError> {
        let path = self.path.join(rel);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(LabError::Io { path, source }),
        }
    }

    /// `git ARGS` as a step's solution runs it: a command that makes a commit (`commit`,
    /// `revert`, `merge`, `cherry-pick`) gets the next minute of the world's clock.
    pub fn run_git(&self, args: &[&str]) -> Result<String, LabError> {
        if matches!(
            args.first(),
            Some(&"commit" | &"revert" | &"merge" | &"cherry-pick")
        ) {
            self.tick();
        }
        self.git(args)
    }

    /// Run `git ARGS` in the clone with the world's fixed identity and clock; returns stdout.
    pub fn git(&self, args: &[&str]) -> Result<String, LabError> {
        self.git_bytes(args)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// [`LabRepo::git`], stdout as bytes (a file's version, `git show REV:FILE`).
    pub fn git_bytes(&self, args: &[&str]) -> Result<Vec<u8>, LabError> {
        let seconds = FIRST_COMMIT_EPOCH + 60 * self.clock.load(Ordering::SeqCst);
        let date = format!("@{seconds} +0000");
        let shown = args.join(" ");
        let output = Command::new("git")
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "user.name=Course Learner",
                "-c",
                "user.email=learner@course.local",
                "-c",
                "advice.detachedHead=false",
            ])
            .args(args)
            .current_dir(&self.path)
            // The learner's own configuration and any git environment the tests run in must not
            // change what the world looks like.
            .envs(LEARNER_GIT_ENV)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .output()
            .map_err(|source| LabError::Spawn {
                args: shown.clone(),
                dir: self.path.clone(),
                source,
            })?;
        if !output.status.success() {
            return Err(LabError::Git {
                args: shown,
                dir: self.path.clone(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            });
        }
        Ok(output.stdout)
    }

    /// Advance the world's clock one minute: each commit gets its own, reproducible time.
    fn tick(&self) {
        self.clock.fetch_add(1, Ordering::SeqCst);
    }
}
