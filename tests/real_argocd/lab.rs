//! Module 10's lab on the real Argo CD, set up as the course's kind workflow sets it up: its
//! repos served by `git daemon` (started here, by PID) and made by the workflow's own
//! `.github/scripts/kind-lab-git.sh` (the lab's files committed and pushed, every
//! `http://git.course.local/` rewritten to the served URL, the learner's clones in a work dir);
//! then every repo's `bootstrap/` applied with `kubectl` (the platform project and the app of
//! apps), and the lab up once `labcheck doctor module-10 --for ci` passes, as the workflow's
//! `kind-argocd.sh` waits.
//!
//! One thing differs from the workflow, and is named in docs/real-argocd.md: the copy of the lab
//! the script reads names the stand-in chart repository ([`crate::charts`]) instead of
//! argoproj.github.io, which this machine cannot reach.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::cluster::{Cluster, start_part};
use crate::processes::free_port;

/// The module the lab is of.
pub const MODULE: &str = "module-10";

/// The lab, served and cloned.
pub struct Lab {
    /// The learner's clones (`~/work`).
    pub work: PathBuf,
    /// `git://127.0.0.1:<port>`: what `http://git.course.local` is in the served lab.
    pub git_url: String,
    /// A HOME for the learner's programs: the `argocd` CLI's login.
    pub home: PathBuf,
    /// PATH for the learner's programs: labcheck, `argocd`, then the machine's (git, kubectl).
    pub path: String,
    pub kubeconfig: PathBuf,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Serve and clone the lab, bootstrap it, and wait until it is up.
pub fn set_up(cluster: &Cluster) -> Result<Lab, String> {
    let dir = cluster.dir.join("lab");
    let root = dir.join("git");
    let work = dir.join("work");
    for folder in [&root, &work] {
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    let port = free_port();
    let daemon = start_part(
        &cluster.dir,
        "git-daemon",
        Path::new("git"),
        vec![
            "daemon".into(),
            "--reuseaddr".into(),
            "--export-all".into(),
            "--enable=receive-pack".into(),
            "--informative-errors".into(),
            format!("--base-path={}", root.display()),
            "--listen=127.0.0.1".into(),
            format!("--port={port}"),
            root.display().to_string(),
        ],
        Vec::new(),
    )?;
    cluster.adopt(daemon)?;
    let git_url = format!("git://127.0.0.1:{port}");
    wait_for_port(port)?;

    let course = stand_in_course(&dir, &cluster.argocd.charts.url)?;
    let labcheck_bin = PathBuf::from(env!("CARGO_BIN_EXE_labcheck"));
    let path = format!(
        "{}:{}:{}",
        labcheck_bin
            .parent()
            .map(Path::display)
            .map(|d| d.to_string())
            .unwrap_or_default(),
        cluster.argocd.bin.display(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
    );
    let lab = Lab {
        work,
        git_url,
        home: cluster.argocd.home.clone(),
        path,
        kubeconfig: cluster.admin_kubeconfig.clone(),
    };
    let script = repo().join(".github/scripts/kind-lab-git.sh");
    let output = lab
        .command("bash")
        .arg(&script)
        .env("COURSE_DIR", &course)
        .env("MODULE", MODULE)
        .env("GIT_ROOT", &root)
        .env("SERVED_URL", &lab.git_url)
        .output()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    ok(&output, "kind-lab-git.sh")?;

    for repo in std::fs::read_dir(&lab.work).map_err(|e| e.to_string())? {
        let bootstrap = repo.map_err(|e| e.to_string())?.path().join("bootstrap");
        if bootstrap.is_dir() {
            let output = lab
                .command("kubectl")
                .args(["apply", "-f"])
                .arg(&bootstrap)
                .output()
                .map_err(|e| format!("kubectl apply: {e}"))?;
            ok(&output, "kubectl apply -f bootstrap/")?;
        }
    }
    lab.wait_for_doctor(cluster)?;
    settled(cluster)?;
    Ok(lab)
}

impl Lab {
    /// A command as the learner runs it: their PATH, HOME (the `argocd` login), kubeconfig, work
    /// dir, and the git identity the kind workflow gives.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("WORK_DIR", &self.work)
            .env("LABCHECK_WORK_DIR", &self.work)
            .env("GIT_AUTHOR_NAME", "Course CI")
            .env("GIT_AUTHOR_EMAIL", "ci@course.local")
            .env("GIT_COMMITTER_NAME", "Course CI")
            .env("GIT_COMMITTER_EMAIL", "ci@course.local")
            .env("NO_COLOR", "1")
            .current_dir(&self.work);
        command
    }

    /// With `LABCHECK_TIER_PAUSE=SECONDS`, keep the cluster up that long for a person to look at
    /// what went wrong (the environment to do it in is printed): a maintainer's aid.
    pub fn pause_for_a_look(&self) {
        let Some(seconds) = std::env::var("LABCHECK_TIER_PAUSE")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
        else {
            return;
        };
        eprintln!(
            "the cluster stays up {seconds}s; look with:\n  export KUBECONFIG={} HOME={} PATH={} LABCHECK_WORK_DIR={}",
            self.kubeconfig.display(),
            self.home.display(),
            self.path,
            self.work.display()
        );
        std::thread::sleep(Duration::from_secs(seconds));
    }

    /// `labcheck doctor module-10 --for ci` passes (five minutes at most, as the workflow waits).
    fn wait_for_doctor(&self, cluster: &Cluster) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            cluster.alive()?;
            let output = self
                .command("labcheck")
                .args(["doctor", MODULE, "--for", "ci"])
                .output()
                .map_err(|e| format!("labcheck doctor: {e}"))?;
            if output.status.success() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the lab did not come up within five minutes:\n{}\n{}",
                    String::from_utf8_lossy(&output.stdout),
                    cluster.logs()
                ));
            }
            std::thread::sleep(Duration::from_secs(2));
        }
    }
}

/// Module 10 starts where module 9 left the platform: every Application Synced and Healthy,
/// its last sync over (doctor passes once they exist, while their first syncs still run).
fn settled(cluster: &Cluster) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let list = crate::cluster::block_on(crate::cluster::get(
            &cluster.admin,
            "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications",
        ))?;
        let unsettled: Vec<String> = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|app| {
                let status = &app["status"];
                status["sync"]["status"] != "Synced"
                    || status["health"]["status"] != "Healthy"
                    || app.get("operation").is_some()
                    || status["operationState"]["phase"] != "Succeeded"
            })
            .map(|app| app["metadata"]["name"].as_str().unwrap_or("").to_string())
            .collect();
        if unsettled.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the platform's Applications did not settle within 3 minutes: {}\n{}",
                unsettled.join(", "),
                cluster.logs()
            ));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A course folder whose `modules/module-10/lab/` is the course's own, but for the chart
/// repository Argo CD's own Application names (see the module's doc).
fn stand_in_course(dir: &Path, charts_url: &str) -> Result<PathBuf, String> {
    let course = dir.join("course");
    let lab = course.join("modules").join(MODULE).join("lab");
    copy_dir(&repo().join("modules").join(MODULE).join("lab"), &lab)?;
    let mut rewritten = 0;
    for entry in walk(&lab)? {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        if text.contains(crate::charts::UPSTREAM) {
            std::fs::write(&entry, text.replace(crate::charts::UPSTREAM, charts_url))
                .map_err(|e| format!("{}: {e}", entry.display()))?;
            rewritten += 1;
        }
    }
    if rewritten == 0 {
        return Err(format!(
            "no file of the lab names {}: the stand-in chart repository replaces nothing",
            crate::charts::UPSTREAM
        ));
    }
    Ok(course)
}

fn walk(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            files.extend(walk(&path)?);
        } else {
            files.push(path);
        }
    }
    Ok(files)
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let target = to.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            copy_dir(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn wait_for_port(port: u16) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err(format!("git daemon does not listen on port {port}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// An error with what `what` printed unless it succeeded.
pub fn ok(output: &Output, what: &str) -> Result<(), String> {
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}
