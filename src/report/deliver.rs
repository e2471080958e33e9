//! Where a run's reports go, and the writing of them: the terminal's format printed to stdout,
//! documents written to files.
//!
//! A report file is written by [`write_report_file`] only: never inside one of the module's work
//! repos (their working tree or git folder, however the path is spelled or linked), never over
//! anything but a regular file, and atomically (a temporary file in the same folder, then a rename),
//! so a run that stops half way leaves the old report or none, never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::ValueEnum;

use super::{Format, Styles};
use crate::course::schema::RepoSpec;
use crate::error::Error;

/// One `--report FORMAT=FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportFile {
    pub format: Format,
    pub path: PathBuf,
}

impl FromStr for ReportFile {
    type Err = String;

    fn from_str(text: &str) -> Result<ReportFile, String> {
        let names = || {
            Format::value_variants()
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some((format, path)) = text.split_once('=') else {
            return Err(format!(
                "expected FORMAT=FILE, e.g. junit=labcheck.xml (formats: {})",
                names()
            ));
        };
        let format = Format::from_str(format, true)
            .map_err(|_| format!("`{format}` is not a format; choose one of: {}", names()))?;
        if path.is_empty() {
            return Err(format!("no file after `{}=`", format.name()));
        }
        Ok(ReportFile {
            format,
            path: PathBuf::from(path),
        })
    }
}

/// Where one run's reports go: one format printed, documents written to files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outputs {
    pub terminal: Format,
    pub files: Vec<ReportFile>,
}

impl Outputs {
    /// The folders no report file may go into (the module's work repos under `work_dir`, read
    /// from `repos` only when a file is asked for), every file's destination checked against
    /// them now: a refused report file is said before any check runs (or waits).
    pub fn protecting(
        &self,
        work_dir: &Path,
        repos: impl FnOnce() -> Result<Vec<RepoSpec>, Error>,
    ) -> Result<Protected, Error> {
        if self.files.is_empty() {
            return Ok(Protected::default());
        }
        let protected = Protected::work_repos(work_dir, &repos()?);
        self.check_destinations(&protected)?;
        Ok(protected)
    }

    /// Check, before anything runs, that every report file may be written where it is named.
    pub fn check_destinations(&self, protected: &Protected) -> Result<(), Error> {
        for file in &self.files {
            check_destination(&file.path, protected)?;
        }
        Ok(())
    }
}

/// Print the report in the terminal's format, then write every file. Every destination is
/// checked first (a refused file prints nothing); the terminal report comes before the files, so
/// a person sees the result even when a file cannot be written; every file is tried, and the first
/// that could not be written is the error.
pub fn deliver(
    outputs: &Outputs,
    protected: &Protected,
    styles: Styles,
    render: impl Fn(Format, Styles) -> String,
) -> Result<(), Error> {
    outputs.check_destinations(protected)?;
    emit(&render(outputs.terminal, styles));
    let mut first_error = None;
    for file in &outputs.files {
        let document = render(file.format, Styles::plain());
        if let Err(e) = write_report_file(&file.path, document.as_bytes(), protected) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Folders no report may be written into: the module's work repos and their git folders.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    /// (the folder as the user would name it, every spelling of it to compare against)
    dirs: Vec<(String, Vec<PathBuf>)>,
}

impl Protected {
    /// The work repos `repos` under `work_dir`: each repo's folder, its real (symlink-resolved)
    /// location, and the git folder a `.git` file points to (a linked worktree or submodule).
    pub fn work_repos<'a>(
        work_dir: &Path,
        repos: impl IntoIterator<Item = &'a RepoSpec>,
    ) -> Protected {
        let mut dirs = Vec::new();
        for repo in repos {
            let dir = work_dir.join(repo.dir_name());
            let mut spellings = vec![crate::paths::lexical_absolute(&dir)];
            if let Ok(real) = std::fs::canonicalize(&dir) {
                spellings.push(real);
            }
            let dot_git = dir.join(".git");
            // `.git` may be a file naming the real git folder (a linked worktree, a submodule);
            // read only if it is a regular file (a FIFO there would block).
            if let Ok(text) = crate::paths::read_regular_text(&dot_git, 64 * 1024)
                && let Some(target) = text.trim().strip_prefix("gitdir:")
            {
                let git_dir = dir.join(target.trim());
                if let Ok(real) = std::fs::canonicalize(&git_dir) {
                    // A linked worktree's git folder shares the main repo's objects and refs.
                    if let Ok(common) =
                        crate::paths::read_regular_text(&real.join("commondir"), 64 * 1024)
                        && let Ok(common) = std::fs::canonicalize(real.join(common.trim()))
                    {
                        spellings.push(common);
                    }
                    spellings.push(real);
                }
            }
            dirs.push((dir.display().to_string(), spellings));
        }
        Protected { dirs }
    }

    /// Protect `other`'s folders too (a class: every learner's work repos).
    pub fn extend(&mut self, other: Protected) {
        self.dirs.extend(other.dirs);
    }

    /// The repo folder `path` is inside, if any (`real` is its symlink-resolved form).
    fn holding(&self, path: &Path, real: &Path) -> Option<&str> {
        let lexical = crate::paths::lexical_absolute(path);
        self.dirs
            .iter()
            .find(|(_, spellings)| {
                spellings
                    .iter()
                    .any(|dir| real.starts_with(dir) || lexical.starts_with(dir))
            })
            .map(|(shown, _)| shown.as_str())
    }
}

/// Where the report file will really be, or why it may not be written there. Called before the
/// checks run (a refused `--output` costs no waiting) and again just before writing.
pub fn check_destination(path: &Path, protected: &Protected) -> Result<PathBuf, Error> {
    let refuse = |reason: String| Error::OutputRefused {
        path: path.to_path_buf(),
        reason,
    };
    let name = match path.file_name() {
        Some(name) if !path.as_os_str().to_string_lossy().ends_with('/') => name,
        _ => return Err(refuse("it names a folder, not a file".to_string())),
    };
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let real_parent = std::fs::canonicalize(parent).map_err(|source| Error::Output {
        path: path.to_path_buf(),
        source,
    })?;
    let real = real_parent.join(name);
    if let Some(repo) = protected.holding(path, &real) {
        return Err(refuse(format!(
            "it is inside your work repo {repo}, and labcheck never writes into a work repo (the next check would find an uncommitted file, or a broken repo); write it outside, e.g. --output labcheck-report.xml in another folder"
        )));
    }
    match std::fs::symlink_metadata(&real) {
        Ok(meta) if meta.file_type().is_symlink() => Err(refuse(
            "it is a symbolic link; labcheck writes a report only as a regular file (remove the link, or name another file)".to_string(),
        )),
        Ok(meta) if !meta.is_file() => Err(refuse(format!(
            "it is {}; labcheck writes a report only as a new file or over a regular file",
            crate::paths::kind_of(meta.file_type())
        ))),
        _ => Ok(real),
    }
}

/// Write a report document to `path`: refused inside a work repo and over anything but a regular
/// file; written to a temporary file in the same folder and renamed over `path`, so a reader never
/// sees half a report and a failure leaves the old file as it was.
pub fn write_report_file(path: &Path, document: &[u8], protected: &Protected) -> Result<(), Error> {
    let real = check_destination(path, protected)?;
    let io = |source: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        source,
    };
    let folder = real.parent().unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".labcheck-report-").suffix(".tmp");
    // A new report is readable as any new file would be (the umask still applies); an existing
    // one keeps its mode.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&real)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0o666);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut temp = builder.tempfile_in(folder).map_err(io)?;
    temp.write_all(document).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    temp.persist(&real).map_err(|e| io(e.error))?;
    Ok(())
}

/// The first error writing stdout (other than a closed pipe), kept for the end of the run.
static STDOUT_FAILED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Write to stdout. A closed pipe (`labcheck … | head`) is the reader's choice and stays quiet;
/// any other write error (`> /dev/full`, a full disk) is kept, and the run ends non-zero saying so:
/// a report nobody received is no verdict.
pub fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let result = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if let Err(e) = result
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = STDOUT_FAILED.set(e.to_string());
    }
}

/// Why stdout could not be written, if it could not: then no verdict was delivered.
pub fn stdout_failure() -> Option<&'static str> {
    STDOUT_FAILED.get().map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(name: &str) -> RepoSpec {
        RepoSpec {
            name: name.to_string(),
            path: None,
            get: String::new(),
        }
    }

    struct Lab {
        dir: tempfile::TempDir,
        protected: Protected,
    }

    fn lab() -> Lab {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let work = dir.path().join("work");
        for folder in ["work/checkout-config/.git", "work/argocd-platform", "out"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(
            work.join("checkout-config/.git/HEAD"),
            "ref: refs/heads/main\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let protected = Protected::work_repos(
            &work,
            [repo("checkout-config"), repo("argocd-platform")].iter(),
        );
        Lab { dir, protected }
    }

    #[test]
    fn a_report_inside_a_work_repo_is_refused_however_it_is_spelled() {
        let lab = lab();
        let root = lab.dir.path();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("work/checkout-config"), root.join("out/link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut targets = vec![
            root.join("work/checkout-config/labcheck.xml"),
            root.join("work/checkout-config/.git/HEAD"),
            root.join("out/../work/argocd-platform/r.json"),
        ];
        if cfg!(unix) {
            targets.push(root.join("out/link/r.xml"));
        }
        for target in targets {
            let before = std::fs::read(root.join("work/checkout-config/.git/HEAD")).ok();
            let result = write_report_file(&target, b"<xml/>", &lab.protected);
            assert!(
                matches!(&result, Err(Error::OutputRefused { reason, .. }) if reason.contains("inside your work repo")),
                "{target:?}: {result:?}"
            );
            assert_eq!(
                before,
                std::fs::read(root.join("work/checkout-config/.git/HEAD")).ok()
            );
        }
        assert!(!root.join("work/checkout-config/labcheck.xml").exists());
    }

    #[test]
    fn a_report_outside_is_written_whole_and_replaces_a_regular_file() {
        let lab = lab();
        let target = lab.dir.path().join("out/report.json");
        std::fs::write(&target, "old").unwrap_or_else(|e| panic!("{e}"));
        write_report_file(&target, b"{\"status\":\"pass\"}", &lab.protected)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            std::fs::read_to_string(&target).ok().as_deref(),
            Some("{\"status\":\"pass\"}")
        );
        // No temporary file is left next to it.
        let names: Vec<_> = std::fs::read_dir(lab.dir.path().join("out"))
            .map(|d| d.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_report_is_never_written_over_a_fifo_a_link_or_a_folder() {
        let lab = lab();
        let out = lab.dir.path().join("out");
        let fifo = out.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        std::os::unix::fs::symlink(out.join("elsewhere"), out.join("link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut cases = vec![
            (out.join("link"), "symbolic link"),
            (out.clone(), "a folder"),
            (PathBuf::from("/dev/null"), "a device"),
        ];
        if made.is_ok_and(|s| s.success()) {
            cases.push((fifo, "named pipe"));
        }
        for (target, words) in cases {
            let result = write_report_file(&target, b"x", &lab.protected);
            assert!(
                matches!(&result, Err(Error::OutputRefused { reason, .. }) if reason.contains(words)),
                "{target:?}: {result:?}"
            );
        }
        assert!(!out.join("elsewhere").exists());
    }

    #[test]
    fn a_linked_worktrees_git_folder_and_its_main_repo_are_protected_too() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let git_dir = root.join("main-repo/.git/worktrees/wt");
        std::fs::create_dir_all(&git_dir).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(git_dir.join("commondir"), "../..\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(root.join("work/checkout-config"))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            root.join("work/checkout-config/.git"),
            format!("gitdir: {}\n", git_dir.display()),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let protected = Protected::work_repos(&root.join("work"), [repo("checkout-config")].iter());
        for target in [git_dir.join("HEAD"), root.join("main-repo/.git/refs/x")] {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            let result = write_report_file(&target, b"x", &protected);
            assert!(
                matches!(&result, Err(Error::OutputRefused { .. })),
                "{target:?}: {result:?}"
            );
        }
    }
}
