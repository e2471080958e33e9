//! Whose progress a run may write: progress belongs to the learner whose work repos are checked,
//! and is kept per work dir (its canonical path) in labcheck's state folder.
//!
//! **The runner's own work dir** is `$LABCHECK_WORK_DIR` when that is set, else `~/work`, the
//! folder the course sets up. A run whose work dir is that folder (however it is written: a
//! symlink, `./work`, a trailing slash) records the runner's progress. A `--work-dir` naming any
//! other folder is someone else's work (an instructor checking a learner's clone): that run reads
//! the progress kept for that folder, to show the same hint levels, but never writes any. A
//! learner who keeps their repos elsewhere says so once with `LABCHECK_WORK_DIR`.

use std::path::{Component, Path, PathBuf};

use crate::error::Error;

/// The work dir of a run and whether it is the runner's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkDir {
    /// As given (or the default): what checks read and hints show.
    pub path: PathBuf,
    /// Its canonical path: the key its progress is kept under.
    pub canonical: PathBuf,
    /// Whether it is the runner's own work dir (see the module docs).
    pub own: bool,
}

impl WorkDir {
    /// The work dir of a run: `given` (`--work-dir`, or `$LABCHECK_WORK_DIR` through clap), else
    /// `~/work`. A path starting with a literal `~` that does not exist is a usage error: the
    /// shell did not expand it, and labcheck will not guess whose home it meant.
    pub fn resolve(given: Option<&Path>) -> Result<WorkDir, Error> {
        let own = own_work_dir()?;
        let path = match given {
            Some(path) => {
                refuse_literal_tilde(path)?;
                path.to_path_buf()
            }
            None => own.clone(),
        };
        let canonical = canonical(&path);
        let own = canonical == canonical_of(&own);
        Ok(WorkDir {
            path,
            canonical,
            own,
        })
    }

    /// The runner's own work dir (for commands without `--work-dir`: status, hint, quiz, reset).
    pub fn own() -> Result<WorkDir, Error> {
        WorkDir::resolve(None)
    }
}

/// `$LABCHECK_WORK_DIR` if set (and not empty), else `$HOME/work`.
fn own_work_dir() -> Result<PathBuf, Error> {
    if let Some(dir) = std::env::var_os("LABCHECK_WORK_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    crate::paths::home_dir()
        .map(|home| home.join("work"))
        .ok_or_else(|| {
            Error::Usage(
                "HOME is not set, so labcheck cannot find ~/work; pass --work-dir DIR".to_string(),
            )
        })
}

fn canonical_of(path: &Path) -> PathBuf {
    canonical(path)
}

/// The real path when it exists; else the absolute path with `.` and `..` folded, so a work dir
/// not cloned yet still has a stable key.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let absolute = match std::env::current_dir() {
        Ok(cwd) if path.is_relative() => cwd.join(path),
        _ => path.to_path_buf(),
    };
    let mut out = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn refuse_literal_tilde(path: &Path) -> Result<(), Error> {
    let starts_with_tilde = path
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .is_some_and(|first| first.starts_with('~'));
    if starts_with_tilde && !path.exists() {
        let shown = path.display();
        let rest = path
            .to_string_lossy()
            .trim_start_matches('~')
            .trim_start_matches('/')
            .to_string();
        let fixed = if rest.is_empty() {
            "\"$HOME\"".to_string()
        } else {
            format!("\"$HOME/{rest}\"")
        };
        return Err(Error::Usage(format!(
            "--work-dir {shown}: the `~` reached labcheck as a literal character (the shell expands `~` only at the start of an unquoted word, not in quotes nor after `--work-dir=`), and there is no folder named `{shown}`; write --work-dir {fixed}"
        )));
    }
    Ok(())
}

/// The file name a work dir's progress is kept under: a hash of its canonical path (so two
/// folders never share a file) and a readable tail of it.
pub fn progress_file_name(canonical: &Path) -> String {
    let text = canonical.to_string_lossy();
    // FNV-1a, 64 bit: stable across runs and versions (std's hasher is not).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let readable: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let tail: String = readable
        .trim_matches('_')
        .chars()
        .rev()
        .take(60)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{hash:016x}-{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_work_dirs_never_share_a_progress_file() {
        let a = progress_file_name(Path::new("/home/ana/work"));
        let b = progress_file_name(Path::new("/home/ana/work2"));
        let c = progress_file_name(Path::new("/srv/class/ana_work"));
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert!(a.ends_with("-home_ana_work"), "{a}");
        assert_eq!(a, progress_file_name(Path::new("/home/ana/work")));
    }

    #[test]
    fn a_literal_tilde_that_does_not_exist_is_a_usage_error_with_the_fix() {
        let error = refuse_literal_tilde(Path::new("~/no-such-labcheck-dir/work"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            error.contains("write --work-dir \"$HOME/no-such-labcheck-dir/work\""),
            "{error}"
        );
        assert!(refuse_literal_tilde(Path::new("/tmp")).is_ok());
    }

    #[test]
    fn canonical_folds_dots_of_a_folder_that_does_not_exist_yet() {
        assert_eq!(
            canonical(Path::new("/nowhere/labcheck/./a/../work")),
            PathBuf::from("/nowhere/labcheck/work")
        );
    }
}
