//! A file error as a tape keeps it, and back.

use serde::{Deserialize, Serialize};

use crate::probe::files::FileError;

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
