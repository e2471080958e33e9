//! Why a work repository could not be read, and what the learner runs to fix it.

use std::path::{Path, PathBuf};

use git2::{ErrorClass, ErrorCode};

/// Why a repository could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitProbeError {
    /// Nothing at the path.
    #[error("{} does not exist", path.display())]
    Missing { path: PathBuf },
    /// A plain folder.
    #[error("{} is not a git repository (it has no .git folder)", path.display())]
    NotARepo { path: PathBuf },
    /// A shallow clone (`git clone --depth`) whose cut-off history may hold what was asked for.
    #[error("{} is a shallow clone: the history labcheck needs was not fetched", path.display())]
    Shallow { path: PathBuf },
    /// A bare repository (`git clone --bare`, or the server's copy): it has no working tree.
    #[error("{} is a bare repository: it has no working tree to work in", path.display())]
    Bare { path: PathBuf },
    /// `.git` is a file (a worktree or a submodule) naming a git folder that is gone.
    #[error("{}/.git points at {}, which does not exist", path.display(), gitdir.display())]
    GitdirGone { path: PathBuf, gitdir: PathBuf },
    /// Owned by another user: git refuses it unless it is listed in `safe.directory`.
    #[error("{} belongs to another user, and git refuses such a repository unless it is marked safe", path.display())]
    NotOwned { path: PathBuf },
    /// An object the check needs (HEAD's commit or tree, a blob) is missing or damaged.
    #[error("{} is damaged: {}", path.display(), source.message())]
    Corrupt {
        path: PathBuf,
        #[source]
        source: git2::Error,
    },
    /// Any other libgit2 error.
    #[error("cannot read the git repository at {}: {}", path.display(), source.message())]
    Git {
        path: PathBuf,
        #[source]
        source: git2::Error,
    },
    /// A replayed run asked a question the learner's bundle holds no answer to (see
    /// `probe::tape`).
    #[error("the bundle holds no answer to `{question}` about {}", path.display())]
    NotInBundle { path: PathBuf, question: String },
}

impl GitProbeError {
    /// A `map_err` helper: classify every libgit2 error of the repo at `path`.
    pub(super) fn git(path: &Path) -> impl Fn(git2::Error) -> GitProbeError + '_ {
        move |source| GitProbeError::classify(path, source)
    }

    /// Sort a libgit2 error: a missing object is damage (`git fsck` finds it), a foreign owner is
    /// `safe.directory`, anything else is a plain read error.
    pub fn classify(path: &Path, source: git2::Error) -> GitProbeError {
        let path = path.to_path_buf();
        match (source.code(), source.class()) {
            (ErrorCode::Owner, _) => GitProbeError::NotOwned { path },
            (_, ErrorClass::Odb | ErrorClass::Zlib) => GitProbeError::Corrupt { path, source },
            (ErrorCode::NotFound, ErrorClass::Object | ErrorClass::Tree | ErrorClass::Index) => {
                GitProbeError::Corrupt { path, source }
            }
            _ => GitProbeError::Git { path, source },
        }
    }

    /// What the learner runs to fix it, for the path as shown (`~/work/checkout-config`);
    /// `None` when the repo's own `get:` text says it better (missing, not a repo).
    pub fn fix(&self, shown: &str) -> Option<String> {
        let cd = crate::shell::cd(shown);
        Some(match self {
            GitProbeError::Missing { .. } | GitProbeError::NotARepo { .. } => return None,
            GitProbeError::Shallow { .. } => format!("{cd} && git fetch --unshallow"),
            GitProbeError::Bare { .. } => format!(
                "work in a clone of it instead: `git clone {} <your work dir>/<repo>` (a bare repo is what you push to)",
                crate::shell::quote_path(shown)
            ),
            GitProbeError::GitdirGone { gitdir, .. } => format!(
                "its git data at {} is gone (the main repo of this worktree was moved or deleted): move {} aside and clone the repo again",
                crate::shell::quote_path(&gitdir.display().to_string()),
                crate::shell::quote_path(shown)
            ),
            GitProbeError::NotOwned { path } => format!(
                "if you trust it, mark it safe: `git config --global --add safe.directory {}` (or work in a clone you own)",
                crate::shell::quote_path(&path.display().to_string())
            ),
            GitProbeError::Corrupt { .. } => format!(
                "{cd} && git fsck --full   # names what is missing; if it is, clone the repo again and copy your changes over"
            ),
            GitProbeError::Git { .. } => {
                format!("{cd} && git status   # shows what git itself says")
            }
            GitProbeError::NotInBundle { .. } => NEW_BUNDLE.to_string(),
        })
    }
}

/// What to do about a question a bundle holds no answer to.
pub const NEW_BUNDLE: &str = "ask the learner for a new bundle (`labcheck bundle MODULE STEP -o FILE` with this labcheck, for this step): this one was made for another step or by another labcheck";

/// A [`GitProbeError`] as a tape keeps it: without the repo's path (the replay's own is put
/// back) and with libgit2's words as text.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(tag = "error", rename_all = "kebab-case")]
pub enum RecordedGitError {
    Missing,
    NotARepo,
    Shallow,
    Bare,
    GitdirGone { gitdir: PathBuf },
    NotOwned,
    Corrupt { message: String },
    Git { message: String },
    NotInBundle { question: String },
}

impl RecordedGitError {
    /// How a tape keeps `error`.
    pub fn of(error: &GitProbeError) -> RecordedGitError {
        match error {
            GitProbeError::Missing { .. } => RecordedGitError::Missing,
            GitProbeError::NotARepo { .. } => RecordedGitError::NotARepo,
            GitProbeError::Shallow { .. } => RecordedGitError::Shallow,
            GitProbeError::Bare { .. } => RecordedGitError::Bare,
            GitProbeError::GitdirGone { gitdir, .. } => RecordedGitError::GitdirGone {
                gitdir: gitdir.clone(),
            },
            GitProbeError::NotOwned { .. } => RecordedGitError::NotOwned,
            GitProbeError::Corrupt { source, .. } => RecordedGitError::Corrupt {
                message: source.message().to_string(),
            },
            GitProbeError::Git { source, .. } => RecordedGitError::Git {
                message: source.message().to_string(),
            },
            GitProbeError::NotInBundle { question, .. } => RecordedGitError::NotInBundle {
                question: question.clone(),
            },
        }
    }

    /// The error again, about the repo at `path`.
    pub fn replay(self, path: &Path) -> GitProbeError {
        let path = path.to_path_buf();
        match self {
            RecordedGitError::Missing => GitProbeError::Missing { path },
            RecordedGitError::NotARepo => GitProbeError::NotARepo { path },
            RecordedGitError::Shallow => GitProbeError::Shallow { path },
            RecordedGitError::Bare => GitProbeError::Bare { path },
            RecordedGitError::GitdirGone { gitdir } => GitProbeError::GitdirGone { path, gitdir },
            RecordedGitError::NotOwned => GitProbeError::NotOwned { path },
            RecordedGitError::Corrupt { message } => GitProbeError::Corrupt {
                path,
                source: git2::Error::from_str(&message),
            },
            RecordedGitError::Git { message } => GitProbeError::Git {
                path,
                source: git2::Error::from_str(&message),
            },
            RecordedGitError::NotInBundle { question } => {
                GitProbeError::NotInBundle { path, question }
            }
        }
    }
}

/// The folder a `.git` *file* names (`gitdir: …`, as a worktree or submodule has), when that
/// folder does not exist.
pub(super) fn gone_gitdir(path: &Path) -> Option<PathBuf> {
    let dotgit = path.join(".git");
    if !dotgit.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(&dotgit).ok()?;
    let named = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = path.join(named);
    (!gitdir.exists()).then_some(gitdir)
}
