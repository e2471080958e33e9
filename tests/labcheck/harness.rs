//! Running the real labcheck binary against a lab world, and writing small test courses.

#![allow(dead_code)] // Each test module uses a different part of the harness.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use labcheck::lab::world::LabWorld;
use labcheck::serve::{RunningServer, ServeOptions};

/// What one run of labcheck printed and returned.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// How long the run took, from spawn to exit.
    pub elapsed: Duration,
}

impl Run {
    /// The JSON report (`--format json`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// Assert that stdout holds each of `words`.
    pub fn assert_stdout_has(&self, words: &[&str]) {
        for w in words {
            assert!(self.stdout.contains(w), "{w:?} not in:\n{}", self.stdout);
        }
    }

    /// Assert that stderr holds each of `words`.
    pub fn assert_stderr_has(&self, words: &[&str]) {
        for w in words {
            assert!(self.stderr.contains(w), "{w:?} not in:\n{}", self.stderr);
        }
    }

    /// The check with `id` in a single-step JSON report.
    pub fn check(&self, id: &str) -> serde_json::Value {
        let json = self.json();
        json["checks"]
            .as_array()
            .and_then(|checks| checks.iter().find(|c| c["id"] == id).cloned())
            .unwrap_or_else(|| panic!("no check `{id}` in {json:#}"))
    }

    /// Assert that each check in `ids` passed.
    pub fn assert_pass(&self, ids: &[&str]) {
        for id in ids {
            assert_eq!(self.check(id)["status"], "pass", "{id}: {}", self.stdout);
        }
    }
}

/// Module 10's step-5 checks on the learner's repo: the release reverted and pushed.
pub const STEP_5_REPO_CHECKS: [&str; 4] = [
    "head-is-revert",
    "revert-pushed",
    "tag-back-to-671",
    "fail-switch-gone",
];

/// Module 10's break-it/fix checks on the learner's repo: the break reverted and pushed.
pub const FIX_REPO_CHECKS: [&str; 4] = [
    "head-is-revert",
    "fix-pushed",
    "smoke-path-gone",
    "break-came-first",
];

/// No run may take longer than this unless a test says otherwise: a hang fails the test with
/// what was printed instead of stalling CI.
pub const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The one way the tests run the labcheck binary: a clean environment (only `PATH`, an isolated
/// `HOME` with its XDG folders, git's system config off, no colour unless asked), a bound on how
/// long it may run, optional stdin, a pty where a test needs a terminal, and "wrote nothing" as
/// one call.
#[derive(Debug, Clone)]
pub struct Labcheck {
    home: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    removed: Vec<OsString>,
    cwd: Option<PathBuf>,
    stdin: Option<Vec<u8>>,
    limit: Duration,
    watched: Vec<PathBuf>,
    stdout_to: StdoutTo,
}

/// Where a run's stdout goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdoutTo {
    /// A pipe the test reads.
    Piped,
    /// A pipe closed before labcheck writes (the reader went away).
    Closed,
    /// `/dev/full`: every write fails with "no space left".
    DevFull,
}

impl Labcheck {
    /// `labcheck` with `home` as `HOME` (so `~/work` is a world's work dir and nothing of the real
    /// user leaks in), run in `home`.
    pub fn new(home: &Path) -> Labcheck {
        Labcheck {
            home: home.to_path_buf(),
            args: Vec::new(),
            env: vec![("NO_COLOR".into(), "1".into())],
            removed: Vec::new(),
            cwd: None,
            stdin: None,
            limit: RUN_LIMIT,
            watched: Vec::new(),
            stdout_to: StdoutTo::Piped,
        }
    }

    /// One more argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Labcheck {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    /// More arguments.
    pub fn args<I, S>(mut self, args: I) -> Labcheck
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// An environment variable (set after the defaults, so it overrides them).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Labcheck {
        let key = key.as_ref().to_os_string();
        self.removed.retain(|k| *k != key);
        self.env.push((key, value.as_ref().to_os_string()));
        self
    }

    /// Several environment variables.
    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(mut self, env: &[(K, V)]) -> Labcheck {
        for (k, v) in env {
            self = self.env(k, v);
        }
        self
    }

    /// Leave a variable unset, defaults included (e.g. `NO_COLOR` for a colour test, or an XDG
    /// folder to exercise the fallback under `HOME`).
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Labcheck {
        let key = key.as_ref().to_os_string();
        self.env.retain(|(k, _)| *k != key);
        self.removed.push(key);
        self
    }

    /// Run in `dir` instead of `HOME`.
    pub fn current_dir(mut self, dir: &Path) -> Labcheck {
        self.cwd = Some(dir.to_path_buf());
        self
    }

    /// Feed `input` on stdin (otherwise stdin is empty).
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Labcheck {
        self.stdin = Some(input.into());
        self
    }

    /// Fail the test if the run takes longer than `limit` (default [`RUN_LIMIT`]).
    pub fn limit(mut self, limit: Duration) -> Labcheck {
        self.limit = limit;
        self
    }

    /// Also hold `dir` (a course folder, a work dir outside `HOME`) to "wrote nothing".
    pub fn watching(mut self, dir: &Path) -> Labcheck {
        self.watched.push(dir.to_path_buf());
        self
    }

    /// The command as it will run: nothing inherited but `PATH` and the test process's scratch
    /// folder (`TMPDIR`, in memory where the machine has it: `tests/common/scratch.rs`), where
    /// `course test` and `course lint` build their worlds.
    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_labcheck"));
        command
            .args(&self.args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("TMPDIR", std::env::temp_dir())
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(self.cwd.as_deref().unwrap_or(&self.home));
        for (key, value) in &self.env {
            command.env(key, value);
        }
        for key in &self.removed {
            command.env_remove(key);
        }
        command
    }

    /// Where stdout goes (default: piped and returned in [`Run::stdout`]).
    pub fn stdout(mut self, to: StdoutTo) -> Labcheck {
        self.stdout_to = to;
        self
    }

    /// Run to the end; a run past the limit is killed and fails the test with what it printed.
    pub fn run(self) -> Run {
        self.try_run().unwrap_or_else(|why| panic!("{why}"))
    }

    /// [`Labcheck::run`], with a hang (or a failure to start) as an error instead of a panic, for
    /// table-driven tests that collect every row's problems.
    pub fn try_run(self) -> Result<Run, String> {
        let started = Instant::now();
        let mut command = self.command();
        command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(match self.stdout_to {
                StdoutTo::Piped | StdoutTo::Closed => Stdio::piped(),
                StdoutTo::DevFull => std::fs::File::create("/dev/full")
                    .map_err(|e| format!("cannot open /dev/full: {e}"))?
                    .into(),
            })
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run labcheck: {e}"))?;
        if let (Some(input), Some(mut pipe)) = (self.stdin.clone(), child.stdin.take()) {
            // On a thread: a big input must not block us while the child fills its stdout.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&input);
            });
        }
        if self.stdout_to == StdoutTo::Closed {
            // The reader went away (`labcheck … | head -0`): a broken pipe must not be a crash.
            drop(child.stdout.take());
        }
        let (stdout, stderr) = drain(&mut child);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    return Ok(Run {
                        code: status.code().unwrap_or(-1),
                        stdout: join(stdout),
                        stderr: join(stderr),
                        elapsed: started.elapsed(),
                    });
                }
                Ok(None) if started.elapsed() > self.limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "labcheck {:?} hung: still running after {:?}\nstdout:\n{}\nstderr:\n{}",
                        self.args,
                        self.limit,
                        join(stdout),
                        join(stderr)
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(format!("cannot wait for labcheck: {e}")),
            }
        }
    }

    /// [`Labcheck::run`] from async code (a test that serves a cluster in its own runtime).
    pub async fn run_async(self) -> Run {
        tokio::task::spawn_blocking(move || self.run())
            .await
            .unwrap_or_else(|e| panic!("the labcheck run panicked: {e}"))
    }

    /// Run and assert that not one byte changed under `HOME` or a [`Labcheck::watching`] folder.
    pub fn run_writing_nothing(self) -> Run {
        let mut dirs = vec![self.home.clone()];
        dirs.extend(self.watched.iter().cloned());
        let before: Vec<_> = dirs.iter().map(|d| files_with_bytes(d)).collect();
        let run = self.run();
        let after: Vec<_> = dirs.iter().map(|d| files_with_bytes(d)).collect();
        for ((dir, before), after) in dirs.iter().zip(before).zip(after) {
            assert!(
                before == after,
                "labcheck wrote under {}: {:?}\nstderr: {}",
                dir.display(),
                changed(&before, &after),
                run.stderr
            );
        }
        run
    }

    /// Start it and hand back the process (for `serve` and for Ctrl-C tests): stdout and stderr
    /// piped, stdin empty, killed when dropped.
    pub fn spawn(self) -> Spawned {
        let mut command = self.command();
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start labcheck: {e}"));
        Spawned {
            child,
            limit: self.limit,
        }
    }

    /// Run it in a pty, as a person at a terminal would (`TERM=xterm` unless
    /// given); every `expect` on the session is bounded by the limit.
    pub fn in_terminal(self) -> expectrl::session::OsSession {
        let mut with_term = self;
        if !with_term.env.iter().any(|(k, _)| k == "TERM") {
            with_term = with_term.env("TERM", "xterm");
        }
        let mut session = expectrl::Session::spawn(with_term.command())
            .unwrap_or_else(|e| panic!("labcheck does not start in a pty: {e}"));
        session.set_expect_timeout(Some(with_term.limit));
        session
    }

    /// Everything a run in a terminal printed until it ended.
    pub fn terminal_output(self) -> String {
        use expectrl::Expect;

        let mut session = self.in_terminal();
        let found = session
            .expect(expectrl::Eof)
            .unwrap_or_else(|e| panic!("labcheck did not end in the terminal: {e}"));
        String::from_utf8_lossy(found.as_bytes()).into_owned()
    }
}

/// A labcheck process a test started ([`Labcheck::spawn`]); killed when dropped.
pub struct Spawned {
    child: Child,
    limit: Duration,
}

/// `labcheck class serve` of module 10's step 4 on a free loopback port; the source of the
/// learners' states follows.
pub const CLASS_SERVE_STEP_4: [&str; 6] = [
    "class",
    "serve",
    "module-10",
    "step-4",
    "--listen",
    "127.0.0.1:0",
];

impl Spawned {
    /// The URL `labcheck class serve` says it serves the page at, once it says it.
    pub fn class_page_url(&mut self) -> String {
        let banner = self.read_until("labcheck class serve:");
        banner
            .last()
            .and_then(|l| l.split_whitespace().find(|w| w.starts_with("http://")))
            .unwrap_or_else(|| panic!("no URL in {banner:?}"))
            .to_string()
    }

    /// Its stdout, line by line, until a line starting with `marker` (included).
    pub fn read_until(&mut self, marker: &str) -> Vec<String> {
        let Some(stdout) = self.child.stdout.as_mut() else {
            panic!("stdout already taken");
        };
        let mut lines = Vec::new();
        let mut line = String::new();
        // One byte at a time keeps the rest of stdout in the pipe for later reads.
        let mut byte = [0u8; 1];
        loop {
            match stdout.read(&mut byte) {
                Ok(0) => break,
                Ok(_) if byte[0] == b'\n' => {
                    let done = line.starts_with(marker);
                    lines.push(std::mem::take(&mut line));
                    if done {
                        break;
                    }
                }
                Ok(_) => line.push(byte[0] as char),
                Err(e) => panic!("cannot read labcheck's stdout: {e}"),
            }
        }
        lines
    }

    /// The process id (e.g. to wait for it to reach a state).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Press Ctrl-C: send SIGINT.
    pub fn interrupt(&self) {
        let sent = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
        assert!(sent.success(), "SIGINT was not delivered");
    }

    /// Wait for it to end within `within`; (exit code, the rest of stdout, stderr).
    pub fn wait_within(mut self, within: Duration) -> Run {
        let started = Instant::now();
        let (stdout, stderr) = drain(&mut self.child);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return Run {
                        code: status.code().unwrap_or(-1),
                        stdout: join(stdout),
                        stderr: join(stderr),
                        elapsed: started.elapsed(),
                    };
                }
                Ok(None) if started.elapsed() > within.min(self.limit) => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    panic!(
                        "labcheck did not stop within {within:?}\nstdout:\n{}\nstderr:\n{}",
                        join(stdout),
                        join(stderr)
                    );
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => panic!("cannot wait for labcheck: {e}"),
            }
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

type Reader = std::thread::JoinHandle<String>;

/// Read stdout and stderr on threads so a big report cannot block the child on a full pipe.
fn drain(child: &mut Child) -> (Option<Reader>, Option<Reader>) {
    fn spawn(mut pipe: impl Read + Send + 'static) -> Reader {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    }
    (
        child.stdout.take().map(spawn),
        child.stderr.take().map(spawn),
    )
}

fn join(reader: Option<Reader>) -> String {
    reader
        .map(|r| r.join().unwrap_or_default())
        .unwrap_or_default()
}

/// The paths that differ between two [`files_with_bytes`] listings.
fn changed(before: &[(PathBuf, Vec<u8>)], after: &[(PathBuf, Vec<u8>)]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = before
        .iter()
        .filter(|entry| !after.contains(entry))
        .chain(after.iter().filter(|entry| !before.contains(entry)))
        .map(|(path, _)| path.clone())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// Run `labcheck ARGS` with `HOME` set to `home`, no colour, nothing inherited.
pub fn labcheck(home: &Path, args: &[&str]) -> Run {
    Labcheck::new(home).args(args).run()
}

/// [`labcheck`] with exactly these variables besides `PATH`, `HOME` and git's (no `NO_COLOR`
/// unless given).
pub fn labcheck_with_env(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    Labcheck::new(home)
        .env_remove("NO_COLOR")
        .args(args)
        .envs(env)
        .run()
}

/// The module most tests run: the course's module 10.
pub const MODULE: &str = "module-10";

/// A lab world in a temp dir that doubles as `HOME`, so `~/work` is its work dir.
pub struct World {
    _dir: tempfile::TempDir,
    pub lab: LabWorld,
}

impl World {
    /// Module 10 with every step up to and including `point` done (`fresh`: none; a step or stage
    /// name as the course lists it: `step-4`, `break-it/break`), copied from this test run's
    /// built worlds.
    pub fn at(point: &str) -> World {
        World::of(MODULE, point)
    }

    /// [`World::at`] for another module of the course.
    pub fn of(module: &str, point: &str) -> World {
        let dir = tempfile::tempdir().expect("a temp dir");
        let lab = labcheck::lab::cache::at(dir.path(), module, point)
            .unwrap_or_else(|e| panic!("the lab world of {module} at {point} builds: {e}"));
        World { _dir: dir, lab }
    }

    /// The world of one state of a step's fixtures (`("step-2", "not-pushed")`), as `labcheck
    /// course test` builds it.
    pub fn in_state(step: &str, state: &str) -> World {
        let dir = tempfile::tempdir().expect("a temp dir");
        let lab = labcheck::lab::cache::in_state(dir.path(), MODULE, step, state)
            .unwrap_or_else(|e| panic!("the lab world of {step} {state} builds: {e}"));
        World { _dir: dir, lab }
    }

    /// The temp dir standing in for `HOME`.
    pub fn home(&self) -> &Path {
        self.lab.root()
    }

    /// One of the learner's clones.
    pub fn repo(&self, name: &str) -> labcheck::lab::world::LabRepo {
        self.lab.repo(name).expect("a repo of the module")
    }

    /// Run labcheck in this world with the test course `course`.
    pub fn labcheck(&self, course: &TestCourse, args: &[&str]) -> Run {
        let mut all = vec!["--course-dir", course.path_str()];
        all.extend_from_slice(args);
        labcheck(self.home(), &all)
    }
}

/// Module 10's steps and stages in course order, written out: a test over them does not take the
/// list from the course it tests.
pub const MODULE_10_STEPS: [&str; 7] = [
    "step-1",
    "step-2",
    "step-3",
    "step-4",
    "step-5",
    "break-it/break",
    "break-it/fix",
];

/// Module 10's points in course order: `fresh`, then every step and stage the course lists.
pub fn points() -> Vec<String> {
    let course = labcheck::lab::fixtures::course().expect("the built-in course");
    let module = course.module(MODULE).expect("module 10");
    std::iter::once("fresh")
        .chain(module.step_names())
        .map(str::to_string)
        .collect()
}

/// The text of `path` in module 10's repo `repo` once every step up to `point` is done, as the
/// course's own lab files and solutions make it: what a test that edits a repo by hand writes.
pub fn lab_file(point: &str, repo: &str, path: &str) -> String {
    labcheck::lab::cache::file_at(MODULE, point, repo, path)
        .unwrap_or_else(|e| panic!("{repo}/{path} at {point}: {e}"))
}

/// The message of the commit that `point`'s solution made in module 10's repo `repo`.
pub fn lab_commit(point: &str, repo: &str) -> String {
    let dir = tempfile::tempdir().expect("a temp dir");
    let world = labcheck::lab::cache::at(dir.path(), MODULE, point)
        .unwrap_or_else(|e| panic!("the lab world at {point} builds: {e}"));
    let clone = world.repo(repo).expect("a repo of the module");
    clone
        .git(&["log", "-1", "--format=%s"])
        .expect("a commit")
        .trim()
        .to_string()
}

/// The repos module 10 works with, as a test course's module.yaml lists them.
pub const REPOS_YAML: &str = r#"repos:
  - name: argocd-platform
    get: "git clone <your Git server>/platform/argocd-platform.git ${work}/argocd-platform"
  - name: checkout-config
    get: "git clone <your Git server>/team-checkout/checkout-config.git ${work}/checkout-config"
  - name: argocd-gitops
    get: "git clone <your Git server>/course/argocd-gitops.git ${work}/argocd-gitops"
"#;

/// A course folder written by a test: `modules/module-t/` with a module.yaml and step files,
/// and an `expected/` folder.
pub struct TestCourse {
    dir: tempfile::TempDir,
    path: String,
}

impl TestCourse {
    /// Module `module-t` with one step file per `(name, checks)`; `checks` is the YAML list under
    /// `checks:`, indented by two spaces.
    pub fn new(steps: &[(&str, &str)]) -> TestCourse {
        let dir = tempfile::tempdir().expect("a temp dir");
        let module = dir.path().join("modules/module-t");
        std::fs::create_dir_all(&module).expect("module folder");
        std::fs::create_dir_all(dir.path().join("expected/kind/module-t"))
            .expect("expected folder");
        let names: Vec<&str> = steps.iter().map(|(name, _)| *name).collect();
        let manifest = format!(
            "format: labcheck/v1\nmodule: module-t\ntitle: \"A test module\"\ntracks:\n  default: kind\n  available: [kind]\n{REPOS_YAML}steps: [{}]\n",
            names.join(", ")
        );
        std::fs::write(module.join("module.yaml"), manifest).expect("module.yaml");
        for (name, checks) in steps {
            let text = format!("format: labcheck/v1\ntitle: \"Test {name}\"\nchecks:\n{checks}");
            std::fs::write(module.join(format!("{name}.yaml")), text).expect("step file");
        }
        let path = dir.path().display().to_string();
        TestCourse { dir, path }
    }

    /// The course folder (`--course-dir`).
    pub fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    fn path_str(&self) -> &str {
        &self.path
    }
}

/// Every file under `dir` with its bytes, sorted: two equal results mean nothing was written.
pub fn files_with_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable folder") {
            let path = entry.expect("an entry").path();
            let meta = std::fs::symlink_metadata(&path).expect("an entry's type");
            if meta.is_dir() {
                stack.push(path);
            } else if meta.file_type().is_symlink() {
                // A link is its target (never followed: it may point at a FIFO or out of HOME).
                let target = std::fs::read_link(&path).expect("a readable link");
                out.push((path, target.into_os_string().into_encoded_bytes()));
            } else if meta.is_file() {
                let bytes = std::fs::read(&path).expect("readable file");
                out.push((path, bytes));
            } else {
                // A FIFO or socket a test put there: reading it would block.
                out.push((path, b"(not a regular file)".to_vec()));
            }
        }
    }
    out.sort();
    out
}

/// What `prove` (Perl's TAP::Harness) makes of a TAP document: its exit code and its report.
pub fn prove(dir: &Path, tap: &str) -> (i32, String) {
    let file = dir.join("labcheck.tap");
    std::fs::write(&file, tap).expect("the TAP file");
    let output = Command::new("prove")
        .arg("--exec")
        .arg("cat")
        .arg(&file)
        .output()
        .expect("prove runs (perl's TAP::Harness)");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code().unwrap_or(-1), text)
}

/// Module 10's step 4 done, its lab world built in `at`, and its solved cluster with the world's
/// revisions.
pub fn step_4_solved(at: &Path) -> (LabWorld, labcheck::snapshot::Snapshot) {
    use labcheck::lab::cluster::{Revisions, of_state};
    let world = labcheck::lab::cache::in_state(at, MODULE, "step-4", "solved").expect("lab");
    let revs = Revisions::of_world(&world).expect("revisions");
    let fixture =
        labcheck::lab::fixtures::state(MODULE, "step-4", "solved").expect("a fixture state");
    let cluster = of_state(fixture, &revs).expect("a fixture state");
    (world, cluster)
}

/// A learner's work repos at a module-10 point, in a temp dir that is also their HOME, and the
/// revisions they pushed.
pub struct LabAt {
    pub dir: tempfile::TempDir,
    pub world: LabWorld,
    pub revs: labcheck::lab::cluster::Revisions,
}

impl LabAt {
    /// The lab at `point`.
    pub fn new(point: &str) -> LabAt {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("no temp dir: {e}"));
        let world = labcheck::lab::cache::at(&dir.path().join("lab"), MODULE, point)
            .unwrap_or_else(|e| panic!("lab world at {point}: {e}"));
        let revs =
            labcheck::lab::cluster::Revisions::of_world(&world).unwrap_or_else(|e| panic!("{e}"));
        LabAt { dir, world, revs }
    }

    /// A kubeconfig for `server` in the lab folder.
    pub fn kubeconfig(&self, server: &RunningServer) -> PathBuf {
        kubeconfig_at(&self.dir.path().join("kubeconfig"), &server.url(), "lab")
    }
}

/// `labcheck module-10 STEP --format json --no-wait --snapshot FILE` from `home`, with
/// `snapshot` written to `file` (more arguments may follow).
pub fn module_10_on_snapshot(
    home: &Path,
    step: &str,
    snapshot: &labcheck::snapshot::Snapshot,
    file: &Path,
) -> Labcheck {
    let yaml = snapshot.to_yaml().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(file, yaml).unwrap_or_else(|e| panic!("{e}"));
    Labcheck::new(home)
        .args([
            "module-10",
            step,
            "--format",
            "json",
            "--no-wait",
            "--snapshot",
        ])
        .arg(file)
}

/// Serve `snapshot` on loopback as the read-only Kubernetes API `labcheck serve` is.
pub async fn serve(snapshot: labcheck::snapshot::Snapshot, options: ServeOptions) -> RunningServer {
    let loopback = "127.0.0.1:0".parse().expect("a loopback address");
    labcheck::serve::start(snapshot, loopback, options)
        .await
        .unwrap_or_else(|e| panic!("the snapshot does not serve: {e}"))
}

/// A runtime for a test that is not async: it keeps serving while the test waits for labcheck.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("no runtime: {e}"))
}

/// [`serve`] from a test that is not async, on `rt`.
pub fn serve_on(
    rt: &tokio::runtime::Runtime,
    snapshot: labcheck::snapshot::Snapshot,
    options: ServeOptions,
) -> RunningServer {
    rt.block_on(serve(snapshot, options))
}

/// Write a kubeconfig at `path` (creating its folder) whose context `context` points at `url`.
pub fn kubeconfig_at(path: &Path, url: &str, context: &str) -> PathBuf {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).expect("the kubeconfig's folder");
    }
    labcheck::serve::write_kubeconfig(path, url, context)
        .unwrap_or_else(|e| panic!("cannot write the kubeconfig: {e}"));
    path.to_path_buf()
}

/// (step, check id, status, cause) of every check of a JSON report (one step or a module):
/// what a verdict is, for comparing two runs.
pub fn verdicts(report: &serde_json::Value) -> Vec<(String, String, String, String)> {
    let steps = match report["steps"].as_array() {
        Some(steps) => steps.clone(),
        None => vec![report.clone()],
    };
    steps
        .iter()
        .flat_map(|s| {
            let step = s["step"].as_str().unwrap_or_default().to_string();
            s["checks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |c| {
                    (
                        step.clone(),
                        c["id"].as_str().unwrap_or_default().to_string(),
                        c["status"].as_str().unwrap_or_default().to_string(),
                        c["cause"].as_str().unwrap_or_default().to_string(),
                    )
                })
        })
        .collect()
}
