//! Errors that stop a run before any verdict, and the exit codes every command shares.

use std::path::PathBuf;

/// Exit codes, documented in the README; CI depends on them.
pub mod exit {
    /// Every check passed.
    pub const PASS: u8 = 0;
    /// At least one check failed.
    pub const FAIL: u8 = 1;
    /// Usage error or a broken course file.
    pub const USAGE: u8 = 2;
    /// Nothing failed, but something could not be checked (cluster unreachable, no permission, …).
    pub const COULD_NOT_CHECK: u8 = 3;
    /// Stopped by Ctrl-C (SIGINT) before the checks finished: 128 + 2, as shells report it.
    pub const INTERRUPTED: u8 = 130;
}

/// Something that keeps labcheck from running the requested checks at all.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{file}:{line}:{column}: {message}")]
    CourseFile {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    CourseContent { file: String, message: String },
    #[error(
        "no module `{module}` in this course{suggestion}; available: {available}. Run `labcheck list` to see them all"
    )]
    UnknownModule {
        module: String,
        /// ` (did you mean `module-10`?)` or empty.
        suggestion: String,
        available: String,
    },
    #[error(
        "module `{module}` has no step `{step}`{suggestion}; available: {available}. Run `labcheck list` to see them all"
    )]
    UnknownStep {
        module: String,
        step: String,
        /// ` (did you mean `step-4`?)` or empty.
        suggestion: String,
        available: String,
    },
    #[error("track `{track}` is not offered by {module}; choose one of: {available}")]
    UnknownTrack {
        track: String,
        module: String,
        available: String,
    },
    #[error(
        "cannot read {path}: {source}. Check that --course-dir points at a course (a folder with modules/ and expected/)"
    )]
    CourseIo {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the report to {}: {source}. Check that its folder exists and is writable", path.display())]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("will not write the report to {}: {reason}", path.display())]
    OutputRefused { path: PathBuf, reason: String },
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Environment(String),
    #[error(
        "interrupted (Ctrl-C) before the checks finished: no verdict, nothing was changed. Run it again, or use --no-wait not to wait for the cluster"
    )]
    Interrupted,
}

impl Error {
    /// The exit code this error ends the process with.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Environment(_) => exit::COULD_NOT_CHECK,
            Error::Interrupted => exit::INTERRUPTED,
            _ => exit::USAGE,
        }
    }
}
