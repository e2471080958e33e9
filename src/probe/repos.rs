//! The learner's work repos as checks read them: every question a check asks of a repo (its
//! state, a history question, a file, a folder's listing) goes through [`Repos`], which answers
//! from the repo itself, records the answer on a tape as well (`labcheck bundle`), or answers
//! from a tape alone (a bundle's replay); see `probe::tape`. Checks never see the difference.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use globset::GlobMatcher;
use regex::Regex;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::argocd_dir::{DirectorySettings, read_folder};
use super::files::{self, FileError, PathShower};
use super::git::{CommitInfo, GitProbeError, OriginView, RepoReader, RepoSnapshot, RevertFinding};
use super::tape::{Mode, Question};

mod recorded;
pub use recorded::RecordedFileError;
use recorded::TapedError;

/// A test of one version of a file that a history question carries (`newest_change`): what it
/// decides, and a key naming it on a tape (the same test always gives the same key).
pub trait ContentTest {
    /// Whether the test holds for this version (`None`: the file is not there).
    fn holds(&self, content: Option<&[u8]>) -> bool;
    /// The test as a tape's key.
    fn key(&self) -> String;
}

/// The learner's work repos under one work dir, read live, recorded or replayed.
#[derive(Debug, Clone, Default)]
pub struct Repos {
    mode: Mode,
    work_dir: PathBuf,
    opened: Arc<Opened>,
}

/// The repositories a run has opened, each opened once: opening one reads its config files
/// (and the global and system ones) again, which was most of what a learner of a class cost.
/// A run is short and every read goes to disk (refs, index, objects), so what an open
/// repository caches is never staler than the run.
#[derive(Default)]
struct Opened(Mutex<HashMap<PathBuf, Arc<Mutex<RepoReader>>>>);

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened").finish_non_exhaustive()
    }
}

/// The lock of a shared repository: a poisoned lock only means another read panicked, and
/// every read leaves the repository as it found it.
fn lock(reader: &Mutex<RepoReader>) -> MutexGuard<'_, RepoReader> {
    reader
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A kept answer: the value, or the error as a tape keeps it.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Kept<'a, T, E> {
    Ok(&'a T),
    Err(E),
}

/// A kept answer read back.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Replayed<T, E> {
    Ok(T),
    Err(E),
}

/// What a manifests path holds: a folder read as Argo CD's repo server reads it, or a file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifests {
    /// The path is a folder.
    pub folder: bool,
    /// A tool Argo CD would run on the folder (its name and the file that says so).
    pub tool: Option<(String, String)>,
    /// (path relative to the folder, or the file's path; text).
    pub files: Vec<(String, String)>,
}

impl Repos {
    /// The repos under `work_dir`, answered as `mode` says.
    pub fn new(mode: Mode, work_dir: PathBuf) -> Repos {
        Repos {
            mode,
            work_dir,
            opened: Arc::default(),
        }
    }

    /// The repo at `dir`, opened on first use in this run (an open that fails is tried again
    /// by the next read, which then fails the same way).
    fn opened(&self, dir: &Path) -> Result<Arc<Mutex<RepoReader>>, GitProbeError> {
        let mut opened = self
            .opened
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(reader) = opened.get(dir) {
            return Ok(reader.clone());
        }
        let reader = Arc::new(Mutex::new(RepoReader::open(dir)?));
        opened.insert(dir.to_path_buf(), reader.clone());
        Ok(reader)
    }

    /// `read` on the repo at `dir`, opened once per run.
    fn with_repo<T>(
        &self,
        dir: &Path,
        read: impl FnOnce(&RepoReader) -> Result<T, GitProbeError>,
    ) -> Result<T, GitProbeError> {
        let reader = self.opened(dir)?;
        read(&lock(&reader))
    }

    /// Whether answers come from a tape (no repo is touched).
    pub fn replaying(&self) -> bool {
        self.mode.replaying()
    }

    /// A repo's area on the tape: its folder under the work dir.
    fn area(&self, dir: &Path) -> String {
        match dir.strip_prefix(&self.work_dir) {
            Ok(rest) => rest.display().to_string(),
            Err(_) => dir.display().to_string(),
        }
    }

    /// `live`'s answer about the repo at `dir`, as the mode says: read, read and kept on the
    /// tape, or the tape's answer to `question`.
    fn ask<T, E>(
        &self,
        dir: &Path,
        question: Question,
        live: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E>
    where
        T: Serialize + DeserializeOwned,
        E: TapedError,
    {
        match &self.mode {
            Mode::Live => live(),
            Mode::Record(tape) => {
                let answer = live();
                let kept = match &answer {
                    Ok(value) => Kept::Ok(value),
                    Err(e) => Kept::Err(e.keep()),
                };
                tape.record(&self.area(dir), &question, &kept);
                answer
            }
            Mode::Replay(tape) => {
                match tape.answer::<Replayed<T, E::Kept>>(&self.area(dir), &question) {
                    Some(Replayed::Ok(value)) => Ok(value),
                    Some(Replayed::Err(kept)) => Err(E::replay(kept, dir)),
                    None => Err(E::not_in_bundle(question.0, dir)),
                }
            }
        }
    }

    /// The state of the repo at `dir`: branch, HEAD, upstream, dirty paths, operation.
    pub fn snapshot(&self, dir: &Path) -> Result<RepoSnapshot, GitProbeError> {
        self.ask(dir, Question::new("snapshot", &[]), || {
            self.with_repo(dir, RepoReader::snapshot)
        })
        .map(|mut snapshot| {
            snapshot.path = dir.to_path_buf();
            snapshot
        })
    }

    /// The repo at `dir`, open for history questions.
    pub fn open(&self, dir: &Path) -> Result<Reader, GitProbeError> {
        let mut live = None;
        self.ask(dir, Question::new("open", &[]), || {
            live = Some(self.opened(dir)?);
            Ok(())
        })?;
        Ok(Reader {
            repos: self.clone(),
            dir: dir.to_path_buf(),
            live,
        })
    }

    /// What `origin` holds: its URL, default branch and the branches that contain `sha`.
    pub async fn origin_view(&self, dir: &Path, sha: &str) -> Result<OriginView, GitProbeError> {
        if self.replaying() {
            return self.origin_view_now(dir, sha);
        }
        let (repos, dir_owned, sha_owned) = (self.clone(), dir.to_path_buf(), sha.to_string());
        match tokio::task::spawn_blocking(move || repos.origin_view_now(&dir_owned, &sha_owned))
            .await
        {
            Ok(answer) => answer,
            // The blocking read panicked or was cancelled: read again here rather than hang.
            Err(_) => self.origin_view_now(dir, sha),
        }
    }

    fn origin_view_now(&self, dir: &Path, sha: &str) -> Result<OriginView, GitProbeError> {
        self.ask(dir, Question::new("origin_view", &[sha]), || {
            self.with_repo(dir, |reader| super::git::origin_view(reader, sha))
        })
    }

    /// The file `relative` of the repo at `dir` (only inside it, bounded, UTF-8).
    pub fn read_file(
        &self,
        dir: &Path,
        relative: &str,
        shower: &PathShower,
    ) -> Result<String, FileError> {
        self.ask(dir, Question::new("read_file", &[relative]), || {
            files::read_repo_file(dir, relative, shower)
        })
    }

    /// The repo's files matching `glob`, sorted.
    pub fn glob(
        &self,
        dir: &Path,
        glob: &GlobMatcher,
        shower: &PathShower,
    ) -> Result<Vec<String>, FileError> {
        self.ask(dir, Question::new("glob", &[glob.glob().glob()]), || {
            files::glob_repo_files(dir, glob, shower)
        })
    }

    /// The manifests at `path` of the repo at `dir`: a folder as Argo CD reads it, else a file.
    pub fn manifests(
        &self,
        dir: &Path,
        path: &str,
        shower: &PathShower,
    ) -> Result<Manifests, FileError> {
        self.ask(dir, Question::new("manifests", &[path]), || {
            let folder = dir.join(path.trim_end_matches('/'));
            if folder.is_dir() {
                let found = read_folder(&folder, &DirectorySettings::default(), shower)?;
                Ok(Manifests {
                    folder: true,
                    tool: found
                        .tool
                        .map(|(tool, file)| (tool.as_str().to_string(), file)),
                    files: found
                        .files
                        .into_iter()
                        .map(|f| (f.relative, f.text))
                        .collect(),
                })
            } else {
                Ok(Manifests {
                    folder: false,
                    tool: None,
                    files: super::manifests::read_manifests(dir, path, shower)?,
                })
            }
        })
    }
}

/// One repo open for history questions (see [`RepoReader`] for what each answers).
pub struct Reader {
    repos: Repos,
    dir: PathBuf,
    /// The repo itself (shared with the run's other reads of it); `None` in a replay.
    live: Option<Arc<Mutex<RepoReader>>>,
}

impl Reader {
    fn ask<T: Serialize + DeserializeOwned>(
        &self,
        question: Question,
        live: impl FnOnce(&RepoReader) -> Result<T, GitProbeError>,
    ) -> Result<T, GitProbeError> {
        self.repos.ask(&self.dir, question, || match &self.live {
            Some(reader) => live(&lock(reader)),
            // Not reached: a reader without its repo exists only in a replay, which never asks it.
            None => Err(GitProbeError::NotInBundle {
                path: self.dir.clone(),
                question: "open".to_string(),
            }),
        })
    }

    /// [`RepoReader::newest_matching`].
    pub fn newest_matching(
        &self,
        tip: &str,
        pattern: &Regex,
    ) -> Result<Option<CommitInfo>, GitProbeError> {
        self.ask(
            Question::new("newest_matching", &[tip, pattern.as_str()]),
            |r| r.newest_matching(tip, pattern),
        )
    }

    /// [`RepoReader::commit_time`].
    pub fn commit_time(&self, sha: &str) -> Result<Option<i64>, GitProbeError> {
        self.ask(Question::new("commit_time", &[sha]), |r| r.commit_time(sha))
    }

    /// [`RepoReader::tip_touches`].
    pub fn tip_touches(&self, tip: &str, rel: &str) -> Result<Option<CommitInfo>, GitProbeError> {
        self.ask(Question::new("tip_touches", &[tip, rel]), |r| {
            r.tip_touches(tip, rel)
        })
    }

    /// [`RepoReader::commits_touching`].
    pub fn commits_touching(
        &self,
        tip: &str,
        since: Option<&str>,
        rel: &str,
    ) -> Result<Vec<CommitInfo>, GitProbeError> {
        let question = Question::new("commits_touching", &[tip, since.unwrap_or(""), rel]);
        self.ask(question, |r| r.commits_touching(tip, since, rel))
    }

    /// [`RepoReader::newest_change`], with a test a tape can name.
    pub fn newest_change(
        &self,
        tip: &str,
        rel: &str,
        test: &dyn ContentTest,
    ) -> Result<Option<CommitInfo>, GitProbeError> {
        let question = Question::new("newest_change", &[tip, rel, &test.key()]);
        self.ask(question, |r| {
            r.newest_change(tip, rel, &|content| test.holds(content))
        })
    }

    /// [`RepoReader::commits_after`].
    pub fn commits_after(&self, tip: &str, since: &str) -> Result<Vec<CommitInfo>, GitProbeError> {
        self.ask(Question::new("commits_after", &[tip, since]), |r| {
            r.commits_after(tip, since)
        })
    }

    /// [`RepoReader::parent`].
    pub fn parent(&self, sha: &str) -> Result<Option<String>, GitProbeError> {
        self.ask(Question::new("parent", &[sha]), |r| r.parent(sha))
    }

    /// [`RepoReader::revert_finding`].
    pub fn revert_finding(&self, head: &str, target: &str) -> Result<RevertFinding, GitProbeError> {
        self.ask(Question::new("revert_finding", &[head, target]), |r| {
            r.revert_finding(head, target)
        })
    }

    /// [`RepoReader::read_blob`].
    pub fn read_blob(&self, rev: &str, rel: &str) -> Result<Option<Vec<u8>>, GitProbeError> {
        self.ask(Question::new("read_blob", &[rev, rel]), |r| {
            Ok(r.read_blob(rev, rel)?.map(Blob::of))
        })
        .map(|blob| blob.map(Blob::into_bytes))
    }
}

/// A file's content on a tape: text when it is text (what a values file is), else bytes.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Blob {
    Text(String),
    Bytes(Vec<u8>),
}

impl Blob {
    fn of(bytes: Vec<u8>) -> Blob {
        match String::from_utf8(bytes) {
            Ok(text) => Blob::Text(text),
            Err(e) => Blob::Bytes(e.into_bytes()),
        }
    }

    fn into_bytes(self) -> Vec<u8> {
        match self {
            Blob::Text(text) => text.into_bytes(),
            Blob::Bytes(bytes) => bytes,
        }
    }
}

#[cfg(test)]
mod tests;
