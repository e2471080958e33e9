//! A learner's machine for install.sh: its own home and temp folder, the script run with `sh`
//! (from the file, or piped as the README's line does) under a time limit, and what it left.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::INSTALL_SH;
use super::release::Release;
use crate::harness::Run;

/// A learner's machine: a home of its own and a temp folder install.sh must leave empty.
pub struct Learner {
    pub home: tempfile::TempDir,
    pub tmp: tempfile::TempDir,
}

impl Learner {
    /// A fresh home and temp folder, both removed when the learner is dropped.
    pub fn new() -> Learner {
        Learner {
            home: tempfile::tempdir().expect("a home"),
            tmp: tempfile::tempdir().expect("a temp folder"),
        }
    }

    /// Where install.sh puts labcheck unless told otherwise.
    pub fn local_bin(&self) -> PathBuf {
        self.home.path().join(".local/bin")
    }

    /// `sh install.sh ARGS` on a Linux x86_64 machine (as uname would say) with only `env` set
    /// besides PATH, HOME and TMPDIR, downloading from `release`.
    pub fn install(&self, release: &Release, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new("sh");
        command.arg(INSTALL_SH).args(args);
        self.run(command, release, env, None)
    }

    /// `… | sh -s -- ARGS`, as the README's line runs it: `script` is what arrived on stdin.
    pub fn install_piped(&self, release: &Release, script: &[u8], args: &[&str]) -> Run {
        let mut command = Command::new("sh");
        command.args(["-s", "--"]).args(args);
        self.run(command, release, &[], Some(script))
    }

    fn run(
        &self,
        mut command: Command,
        release: &Release,
        env: &[(&str, &str)],
        stdin: Option<&[u8]>,
    ) -> Run {
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("TMPDIR", self.tmp.path())
            .env("LABCHECK_RELEASES_URL", &release.url)
            .env("LABCHECK_UNAME_S", "Linux")
            .env("LABCHECK_UNAME_M", "x86_64")
            .envs(env.iter().copied())
            .current_dir(self.home.path());
        run_within(command, stdin, Duration::from_secs(120))
    }

    /// The refusal left no trace: the temp folder is empty, and `dir` holds what it held before.
    pub fn assert_nothing_installed(&self, run: &Run, dir: &Path, before: &[String]) {
        assert_eq!(
            run.code, 1,
            "install.sh refuses with exit 1: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("nothing was installed"),
            "it says nothing was installed: {}",
            run.stderr
        );
        assert_eq!(
            listing(self.tmp.path()),
            Vec::<String>::new(),
            "temp is clean"
        );
        assert_eq!(listing(dir), before, "{} is as it was", dir.display());
    }
}

/// The names in `dir`, sorted; none when it does not exist.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Run `command` with `stdin` to its end, killed (and the test failed) if it takes longer than
/// `limit`.
fn run_within(mut command: Command, stdin: Option<&[u8]>, limit: Duration) -> Run {
    let start = Instant::now();
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("sh starts: {e}"));
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // The script is small: the pipe takes it whole, then closes so sh sees its end.
        pipe.write_all(bytes)
            .unwrap_or_else(|e| panic!("the script reaches sh: {e}"));
    }
    while child.try_wait().ok().flatten().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("install.sh took longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("sh ends: {e}"));
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: start.elapsed(),
    }
}

/// What `labcheck --version` says, for the binary at `path`.
pub fn version_of(path: &Path) -> String {
    let out = Command::new(path)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", path.display()));
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}
