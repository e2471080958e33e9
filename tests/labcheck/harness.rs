//! Running the real labcheck binary against a lab world, and writing small test courses.

#![allow(dead_code)] // Each test module uses a different part of the harness.

use std::path::{Path, PathBuf};
use std::process::Command;

use labcheck::lab::world::{CoursePoint, LabWorld};

/// What one run of labcheck printed and returned.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
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

    /// The check with `id` in a single-step JSON report.
    pub fn check(&self, id: &str) -> serde_json::Value {
        let json = self.json();
        json["checks"]
            .as_array()
            .and_then(|checks| checks.iter().find(|c| c["id"] == id).cloned())
            .unwrap_or_else(|| panic!("no check `{id}` in {json:#}"))
    }
}

/// Run `labcheck ARGS` with `HOME` set to `home` (so `~/work` is the world's work dir and nothing
/// of the real user leaks in), no colour, and no inherited labcheck or git settings.
pub fn labcheck(home: &Path, args: &[&str]) -> Run {
    labcheck_with_env(home, args, &[("NO_COLOR", "1")])
}

/// [`labcheck`] with exactly these variables besides `PATH`, `HOME` and git's (no `NO_COLOR`
/// unless given).
pub fn labcheck_with_env(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_labcheck"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .envs(env.iter().copied())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .current_dir(home)
        .output()
        .expect("the labcheck binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A lab world in a temp dir that doubles as `HOME`, so `~/work` is its work dir.
pub struct World {
    _dir: tempfile::TempDir,
    pub lab: LabWorld,
}

impl World {
    /// The world with every step up to `point` done.
    pub fn at(point: CoursePoint) -> World {
        let dir = tempfile::tempdir().expect("a temp dir");
        let lab = LabWorld::at(dir.path(), point).expect("the lab world builds");
        World { _dir: dir, lab }
    }

    /// The temp dir standing in for `HOME`.
    pub fn home(&self) -> &Path {
        self.lab.root()
    }

    /// One of the learner's clones.
    pub fn repo(&self, name: &str) -> labcheck::lab::world::LabRepo {
        self.lab.repo(name).expect("a module 10 repo")
    }

    /// Run labcheck in this world with the test course `course`.
    pub fn labcheck(&self, course: &TestCourse, args: &[&str]) -> Run {
        let mut all = vec!["--course-dir", course.path_str()];
        all.extend_from_slice(args);
        labcheck(self.home(), &all)
    }
}

/// The repos module 10 works with, as a test course's module.yaml lists them.
pub const REPOS_YAML: &str = r#"repos:
  - name: argocd-platform
    get: "git clone <your Git server>/platform/argocd-platform.git ~/work/argocd-platform"
  - name: checkout-config
    get: "git clone <your Git server>/team-checkout/checkout-config.git ~/work/checkout-config"
  - name: argocd-gitops
    get: "git clone <your Git server>/course/argocd-gitops.git ~/work/argocd-gitops"
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
