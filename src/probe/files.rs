//! Reading files in a learner's work repo: only inside the repo, only up to a size, only UTF-8.
//! Read-only: nothing here opens a file for writing.

use std::path::{Path, PathBuf};

use crate::paths::ReadError;

use globset::GlobMatcher;

/// Files larger than this are not read (a values file is a few kilobytes).
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;

/// A glob walk stops after this many entries, so a huge tree cannot stall a check.
pub const MAX_WALK_ENTRIES: usize = 200_000;

/// Why a file in a work repo could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The repo folder itself is missing.
    #[error("{shown} does not exist")]
    RepoMissing { shown: String },
    /// The file is not there (the learner has not created it, or it is misnamed).
    #[error("{shown} does not exist")]
    Missing { shown: String },
    /// A folder (or something else) where a file should be.
    #[error("{shown} is {}", crate::paths::not_regular("a folder"))]
    NotAFile { shown: String },
    /// The path leaves the repo (`..`, absolute, or a symlink pointing outside it).
    #[error("{shown} leaves the repo {repo}; labcheck reads only inside it")]
    OutsideRepo { shown: String, repo: String },
    /// A FIFO, socket or device: reading it could block forever.
    #[error("{shown} is {}", crate::paths::not_regular(kind))]
    NotRegular { shown: String, kind: &'static str },
    /// Too big to read safely.
    #[error("{shown} is {size} bytes; labcheck reads files up to {MAX_FILE_BYTES} bytes")]
    TooLarge { shown: String, size: u64 },
    /// Not text.
    #[error("{shown} is not UTF-8 text (first bad byte on line {line})")]
    NotUtf8 { shown: String, line: usize },
    /// Too many files under the repo to look through.
    #[error("{shown} holds more than {MAX_WALK_ENTRIES} entries; labcheck stops looking there")]
    TooManyEntries { shown: String },
    /// Anything else the operating system said.
    #[error("cannot read {shown}: {source}")]
    Io {
        shown: String,
        source: std::io::Error,
    },
    /// A replayed run asked for a file (or a folder's listing) the learner's bundle does not
    /// hold (see `probe::tape`).
    #[error("the bundle holds no answer to `{question}`")]
    NotInBundle { question: String },
}

impl FileError {
    /// Whether this is the learner's doing (a missing or broken file), as opposed to something that
    /// keeps labcheck from looking.
    pub fn is_learners(&self) -> bool {
        matches!(
            self,
            FileError::Missing { .. } | FileError::NotAFile { .. } | FileError::NotUtf8 { .. }
        )
    }
}

/// Shows paths the way the course writes them: `~/work/…` when under the learner's home. Made
/// once, by whoever builds the checks' context (a session from `$HOME`, a test with its own), so
/// no check reads the environment and a test's report does not depend on who runs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathShower {
    home: Option<PathBuf>,
}

impl PathShower {
    /// Shorten paths under `home` to `~/…`.
    pub fn new(home: Option<PathBuf>) -> PathShower {
        PathShower { home }
    }

    /// Shorten paths under `$HOME`.
    pub fn from_env() -> PathShower {
        PathShower::new(crate::paths::home_dir())
    }

    /// The home paths are shortened under, if any.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Whether `work_dir` is `~/work`, the folder the course sets up.
    pub fn is_home_work(&self, work_dir: &Path) -> bool {
        self.home
            .as_ref()
            .is_some_and(|home| !home.as_os_str().is_empty() && home.join("work") == work_dir)
    }

    /// The work dir as hints show it: `~/work` when it is the course's, else its path as given.
    pub fn work_dir(&self, work_dir: &Path) -> String {
        if self.is_home_work(work_dir) {
            "~/work".to_string()
        } else {
            work_dir.display().to_string()
        }
    }

    /// `path` for a message.
    pub fn show(&self, path: &Path) -> String {
        if let Some(home) = &self.home
            && !home.as_os_str().is_empty()
            && let Ok(rest) = path.strip_prefix(home)
        {
            return format!("~/{}", rest.display());
        }
        path.display().to_string()
    }
}

/// Read `relative` (a path with `/`) inside the repo at `repo_dir`, safely.
pub fn read_repo_file(
    repo_dir: &Path,
    relative: &str,
    shower: &PathShower,
) -> Result<String, FileError> {
    let path = repo_dir.join(relative);
    let shown = shower.show(&path);
    let repo = shower.show(repo_dir);
    if crate::paths::relative_inside(relative).is_err() {
        return Err(FileError::OutsideRepo { shown, repo });
    }
    if !repo_dir.is_dir() {
        return Err(FileError::RepoMissing { shown: repo });
    }
    let real_repo = std::fs::canonicalize(repo_dir).map_err(|source| FileError::Io {
        shown: repo.clone(),
        source,
    })?;
    let real = match std::fs::canonicalize(&path) {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A dangling symlink is also "not found"; say where it points if it leaves the repo.
            return Err(FileError::Missing { shown });
        }
        Err(source) => return Err(FileError::Io { shown, source }),
    };
    if !real.starts_with(&real_repo) {
        return Err(FileError::OutsideRepo { shown, repo });
    }
    read_bounded(&real, shown)
}

/// Read a file the check already located, up to [`MAX_FILE_BYTES`], as UTF-8: only a regular
/// file (a FIFO or a device in the repo would block the read forever).
fn read_bounded(real: &Path, shown: String) -> Result<String, FileError> {
    let bytes = crate::paths::read_regular(real, MAX_FILE_BYTES).map_err(|e| match e {
        ReadError::NotRegular("a folder") => FileError::NotAFile {
            shown: shown.clone(),
        },
        ReadError::NotRegular(kind) => FileError::NotRegular {
            shown: shown.clone(),
            kind,
        },
        ReadError::TooLarge { size, .. } => FileError::TooLarge {
            shown: shown.clone(),
            size,
        },
        ReadError::Io(source) => FileError::Io {
            shown: shown.clone(),
            source,
        },
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        FileError::NotUtf8 { shown, line }
    })
}

/// Repo-relative paths (with `/`) of the files under `repo_dir` matching `glob`, sorted. The `.git`
/// folder is skipped and symlinked folders are not followed.
pub fn glob_repo_files(
    repo_dir: &Path,
    glob: &GlobMatcher,
    shower: &PathShower,
) -> Result<Vec<String>, FileError> {
    if !repo_dir.is_dir() {
        return Err(FileError::RepoMissing {
            shown: shower.show(repo_dir),
        });
    }
    let mut found = Vec::new();
    let mut pending = vec![(repo_dir.to_path_buf(), String::new())];
    let mut seen = 0usize;
    while let Some((dir, prefix)) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| FileError::Io {
            shown: shower.show(&dir),
            source,
        })?;
        for entry in entries {
            seen += 1;
            if seen > MAX_WALK_ENTRIES {
                return Err(FileError::TooManyEntries {
                    shown: shower.show(repo_dir),
                });
            }
            let entry = entry.map_err(|source| FileError::Io {
                shown: shower.show(&dir),
                source,
            })?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let relative = format!("{prefix}{name}");
            let kind = entry.file_type().map_err(|source| FileError::Io {
                shown: shower.show(&entry.path()),
                source,
            })?;
            if kind.is_dir() {
                if relative != ".git" {
                    pending.push((entry.path(), format!("{relative}/")));
                }
            } else if glob.is_match(&relative) {
                found.push(relative);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> tempfile::TempDir {
        match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("{e}"),
        }
    }

    fn write(path: &Path, text: &[u8]) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).ok();
        }
        if let Err(e) = std::fs::write(path, text) {
            panic!("{e}");
        }
    }

    #[test]
    fn paths_under_home_are_shown_with_a_tilde() {
        let shower = PathShower::new(Some(PathBuf::from("/home/ada")));
        assert_eq!(
            shower.show(Path::new("/home/ada/work/checkout-config/helm/dev.yaml")),
            "~/work/checkout-config/helm/dev.yaml"
        );
        assert_eq!(shower.show(Path::new("/srv/work/x")), "/srv/work/x");
    }

    #[test]
    fn reads_a_file_inside_the_repo() {
        let dir = world();
        let repo = dir.path().join("checkout-config");
        write(
            &repo.join("helm/dev.yaml"),
            b"migration:\n  enabled: true\n",
        );
        let text = read_repo_file(&repo, "helm/dev.yaml", &PathShower::new(None));
        assert_eq!(text.ok().as_deref(), Some("migration:\n  enabled: true\n"));
    }

    #[test]
    fn a_missing_file_is_the_learners_and_a_missing_repo_is_not() {
        let dir = world();
        let repo = dir.path().join("checkout-config");
        let shower = PathShower::new(Some(dir.path().to_path_buf()));
        match read_repo_file(&repo, "helm/dev.yaml", &shower) {
            Err(e @ FileError::RepoMissing { .. }) => {
                assert!(!e.is_learners());
                assert_eq!(e.to_string(), "~/checkout-config does not exist");
            }
            other => panic!("{other:?}"),
        }
        write(&repo.join("README.md"), b"hi");
        match read_repo_file(&repo, "helm/dev.yaml", &shower) {
            Err(e @ FileError::Missing { .. }) => {
                assert!(e.is_learners());
                assert_eq!(
                    e.to_string(),
                    "~/checkout-config/helm/dev.yaml does not exist"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// Reading `relative` in `repo` is refused, with an error `is` accepts.
    fn assert_refused(repo: &Path, relative: &str, is: fn(&FileError) -> bool) {
        match read_repo_file(repo, relative, &PathShower::new(None)) {
            Err(error) => assert!(is(&error), "{relative}: {error:?}"),
            Ok(text) => panic!("{relative} was read: {text:?}"),
        }
    }

    #[test]
    fn paths_that_leave_the_repo_are_refused() {
        let dir = world();
        let repo = dir.path().join("r");
        write(&repo.join("a.yaml"), b"a: 1");
        write(&dir.path().join("secret.txt"), b"s");
        let outside: fn(&FileError) -> bool = |e| matches!(e, FileError::OutsideRepo { .. });
        for relative in ["../secret.txt", "/etc/passwd", "a/../../secret.txt"] {
            assert_refused(&repo, relative, outside);
        }
        #[cfg(unix)]
        {
            if std::os::unix::fs::symlink(dir.path().join("secret.txt"), repo.join("link.yaml"))
                .is_ok()
            {
                assert_refused(&repo, "link.yaml", outside);
            }
        }
    }

    #[test]
    fn big_and_binary_files_are_refused_clearly() {
        let dir = world();
        let repo = dir.path().join("r");
        write(&repo.join("bin.yaml"), b"a: 1\nb: \xff\n");
        assert_refused(&repo, "bin.yaml", |e| {
            matches!(e, FileError::NotUtf8 { line: 2, .. })
        });
        let big = vec![b'#'; (MAX_FILE_BYTES + 1) as usize];
        write(&repo.join("big.yaml"), &big);
        assert_refused(&repo, "big.yaml", |e| {
            matches!(e, FileError::TooLarge { .. })
        });
    }

    #[test]
    fn glob_finds_files_and_skips_git() {
        let dir = world();
        let repo = dir.path().join("argocd-platform");
        for f in [
            "apps/projects.yaml",
            "apps/namespaces.yaml",
            "apps/x/deep.yaml",
            ".git/apps.yaml",
        ] {
            write(&repo.join(f), b"a: 1");
        }
        let glob = match globset::GlobBuilder::new("apps/{projects,namespaces}.yaml")
            .literal_separator(true)
            .build()
        {
            Ok(g) => g.compile_matcher(),
            Err(e) => panic!("{e}"),
        };
        let found = glob_repo_files(&repo, &glob, &PathShower::new(None)).unwrap_or_default();
        assert_eq!(found, vec!["apps/namespaces.yaml", "apps/projects.yaml"]);
    }
}
