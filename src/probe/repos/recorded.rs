//! The errors of a repo's reads as a tape keeps them, and back.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::probe::files::FileError;
use crate::probe::git::{GitProbeError, RecordedGitError};

/// An error of a repo's read that a tape keeps, and gives back about the replay's own repo.
pub(super) trait TapedError: Sized {
    /// The error as a tape keeps it.
    type Kept: Serialize + DeserializeOwned;
    /// How a tape keeps this error.
    fn keep(&self) -> Self::Kept;
    /// The kept error again, about the repo at `dir`.
    fn replay(kept: Self::Kept, dir: &Path) -> Self;
    /// The tape holds no answer to `question` about the repo at `dir`.
    fn not_in_bundle(question: String, dir: &Path) -> Self;
}

impl TapedError for GitProbeError {
    type Kept = RecordedGitError;
    fn keep(&self) -> RecordedGitError {
        RecordedGitError::of(self)
    }
    fn replay(kept: RecordedGitError, dir: &Path) -> Self {
        kept.replay(dir)
    }
    fn not_in_bundle(question: String, dir: &Path) -> Self {
        GitProbeError::NotInBundle {
            path: dir.to_path_buf(),
            question,
        }
    }
}

impl TapedError for FileError {
    type Kept = RecordedFileError;
    fn keep(&self) -> RecordedFileError {
        RecordedFileError::of(self)
    }
    /// File errors name their paths as they were shown, so the replay's folder is not needed.
    fn replay(kept: RecordedFileError, _: &Path) -> Self {
        kept.replay()
    }
    fn not_in_bundle(question: String, _: &Path) -> Self {
        FileError::NotInBundle { question }
    }
}

/// A [`FileError`] as a tape keeps it (paths as they were shown to the learner).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "kebab-case")]
pub enum RecordedFileError {
    RepoMissing { shown: String },
    Missing { shown: String },
    NotAFile { shown: String },
    OutsideRepo { shown: String, repo: String },
    NotRegular { shown: String, kind: String },
    TooLarge { shown: String, size: u64 },
    NotUtf8 { shown: String, line: usize },
    TooManyEntries { shown: String },
    Io { shown: String, message: String },
    NotInBundle { question: String },
}

impl RecordedFileError {
    /// How a tape keeps `error`.
    pub fn of(error: &FileError) -> RecordedFileError {
        let shown = |s: &String| s.clone();
        match error {
            FileError::RepoMissing { shown: s } => {
                RecordedFileError::RepoMissing { shown: shown(s) }
            }
            FileError::Missing { shown: s } => RecordedFileError::Missing { shown: shown(s) },
            FileError::NotAFile { shown: s } => RecordedFileError::NotAFile { shown: shown(s) },
            FileError::OutsideRepo { shown: s, repo } => RecordedFileError::OutsideRepo {
                shown: shown(s),
                repo: repo.clone(),
            },
            FileError::NotRegular { shown: s, kind } => RecordedFileError::NotRegular {
                shown: shown(s),
                kind: kind.to_string(),
            },
            FileError::TooLarge { shown: s, size } => RecordedFileError::TooLarge {
                shown: shown(s),
                size: *size,
            },
            FileError::NotUtf8 { shown: s, line } => RecordedFileError::NotUtf8 {
                shown: shown(s),
                line: *line,
            },
            FileError::TooManyEntries { shown: s } => {
                RecordedFileError::TooManyEntries { shown: shown(s) }
            }
            FileError::Io { shown: s, source } => RecordedFileError::Io {
                shown: shown(s),
                message: source.to_string(),
            },
            FileError::NotInBundle { question } => RecordedFileError::NotInBundle {
                question: question.clone(),
            },
        }
    }

    /// The error again.
    pub fn replay(self) -> FileError {
        match self {
            RecordedFileError::RepoMissing { shown } => FileError::RepoMissing { shown },
            RecordedFileError::Missing { shown } => FileError::Missing { shown },
            RecordedFileError::NotAFile { shown } => FileError::NotAFile { shown },
            RecordedFileError::OutsideRepo { shown, repo } => {
                FileError::OutsideRepo { shown, repo }
            }
            RecordedFileError::NotRegular { shown, kind } => FileError::NotRegular {
                shown,
                kind: crate::paths::KINDS
                    .iter()
                    .copied()
                    .find(|k| *k == kind)
                    .unwrap_or("not a file"),
            },
            RecordedFileError::TooLarge { shown, size } => FileError::TooLarge { shown, size },
            RecordedFileError::NotUtf8 { shown, line } => FileError::NotUtf8 { shown, line },
            RecordedFileError::TooManyEntries { shown } => FileError::TooManyEntries { shown },
            RecordedFileError::Io { shown, message } => FileError::Io {
                shown,
                source: std::io::Error::other(message),
            },
            RecordedFileError::NotInBundle { question } => FileError::NotInBundle { question },
        }
    }
}
