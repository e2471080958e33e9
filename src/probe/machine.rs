//! Reading the learner's machine for `labcheck doctor`: programs on PATH and their versions, git's
//! identity settings, a work repo's `origin`. Everything here reads; a version is asked with the
//! tool's own read-only `version` command.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use super::git::GitProbeError;

/// How long a `--version` may take before labcheck gives up on it.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Where `name` is on `path` (the value of PATH), as a shell would find it.
pub fn find_on_path(name: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Why a tool's version could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("`{command}` could not be started: {reason}")]
    NotStarted { command: String, reason: String },
    #[error("`{command}` exited with {code}: {output}")]
    Failed {
        command: String,
        code: String,
        output: String,
    },
    #[error("`{command}` gave no answer within {}s", VERSION_TIMEOUT.as_secs())]
    TimedOut { command: String },
}

/// The first non-empty line `program args…` prints (its version), standard input closed.
pub async fn tool_version(program: &Path, args: &[String]) -> Result<String, ToolError> {
    let command = std::iter::once(program.display().to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let run = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = match tokio::time::timeout(VERSION_TIMEOUT, run).await {
        Err(_) => return Err(ToolError::TimedOut { command }),
        Ok(Err(e)) => {
            return Err(ToolError::NotStarted {
                command,
                reason: e.to_string(),
            });
        }
        Ok(Ok(output)) => output,
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(ToolError::Failed {
            command,
            code: output
                .status
                .code()
                .map_or_else(|| "a signal".to_string(), |c| c.to_string()),
            output: first_line(&stderr)
                .or_else(|| first_line(&stdout))
                .unwrap_or_else(|| "(no output)".to_string()),
        });
    }
    Ok(first_line(&stdout)
        .or_else(|| first_line(&stderr))
        .unwrap_or_else(|| "(printed nothing)".to_string()))
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(200).collect())
}

/// git's `user.name` and `user.email` as a commit in `repo` would see them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GitIdentity {
    pub name: Option<String>,
    pub email: Option<String>,
    /// Which configuration was read, for messages.
    pub read_from: String,
}

/// Read git's identity: the repo's configuration (local, then global and system) when `repo` is
/// a repository, else the global and system configuration.
pub fn git_identity(repo: Option<&Path>) -> Result<GitIdentity, git2::Error> {
    let opened = repo.and_then(|path| {
        git2::Repository::open_ext(
            path,
            git2::RepositoryOpenFlags::NO_SEARCH,
            std::iter::empty::<&std::ffi::OsStr>(),
        )
        .ok()
        .map(|r| (path, r))
    });
    let (config, read_from) = match &opened {
        Some((path, repository)) => (
            repository.config()?,
            format!("git config in {}", path.display()),
        ),
        None => (
            git2::Config::open_default()?,
            "your global git config".to_string(),
        ),
    };
    let value = |key: &str| {
        config
            .get_string(key)
            .ok()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    Ok(GitIdentity {
        name: value("user.name"),
        email: value("user.email"),
        read_from,
    })
}

/// The URL of the repository's `origin` remote (`None` when it has none).
pub fn origin_url(repo: &Path) -> Result<Option<String>, GitProbeError> {
    let repository = git2::Repository::open_ext(
        repo,
        git2::RepositoryOpenFlags::NO_SEARCH,
        std::iter::empty::<&std::ffi::OsStr>(),
    )
    .map_err(|source| GitProbeError::Git {
        path: repo.to_path_buf(),
        source,
    })?;
    match repository.find_remote("origin") {
        // `doctor` prints it: a token in it must not go with it.
        Ok(remote) => Ok(Some(super::git::without_credentials(
            remote.url().unwrap_or("(not UTF-8)"),
        ))),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) if e.class() == git2::ErrorClass::Config => Ok(None),
        Err(source) => Err(GitProbeError::Git {
            path: repo.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_found_only_where_it_is_executable() {
        let dir = tempfile::tempdir().expect("temp dir");
        let plain = dir.path().join("argocd");
        std::fs::write(&plain, "not a program").expect("write");
        let path = std::env::join_paths([dir.path()]).expect("a PATH");
        assert_eq!(find_on_path("argocd", &path), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
            assert_eq!(find_on_path("argocd", &path), Some(plain));
        }
    }

    #[tokio::test]
    async fn a_version_is_the_first_line_printed_and_a_failure_says_what_it_printed() {
        let sh = Path::new("/bin/sh");
        let ok = tool_version(
            sh,
            &["-c".into(), "echo; echo 'argocd: v3.1.5'; echo x".into()],
        )
        .await;
        assert_eq!(ok, Ok("argocd: v3.1.5".to_string()));
        let failed = tool_version(sh, &["-c".into(), "echo boom >&2; exit 4".into()]).await;
        assert!(
            matches!(&failed, Err(ToolError::Failed { code, output, .. }) if code == "4" && output == "boom"),
            "{failed:?}"
        );
    }
}
