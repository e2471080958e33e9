//! `labcheck doctor module-10` on a learner's machine: a served cluster (with and without Argo CD)
//! reached through a kubeconfig, the lab world's real repos, a private HOME for git's config and a
//! private PATH for the tools.

use std::path::{Path, PathBuf};

use labcheck::lab::cluster::{self, Revisions};
use labcheck::serve::{RunningServer, ServeOptions};
use labcheck::snapshot::Snapshot;
use serde_json::{Value, json};

use crate::cluster_checks::check;
use crate::harness::Labcheck;

/// A learner's machine: HOME, a bin folder on PATH, maybe the lab's repos.
struct Machine {
    home: tempfile::TempDir,
    work_dir: PathBuf,
    bin: PathBuf,
}

struct Doctor {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Doctor {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", self.stdout, self.stderr))
    }
}

impl Machine {
    /// A machine with nothing set up: no repos, no git identity, no argocd CLI.
    fn bare() -> Machine {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let bin = home.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
        let work_dir = home.path().join("work");
        Machine {
            home,
            work_dir,
            bin,
        }
    }

    /// The course's set-up done: the lab's repos at `point`, git's identity, the argocd CLI.
    fn ready(point: &str) -> (Machine, Revisions) {
        let mut machine = Machine::bare();
        let world = labcheck::lab::cache::at(&machine.home.path().join("lab"), "module-10", point)
            .unwrap_or_else(|e| panic!("lab world: {e}"));
        let revs = Revisions::of_world(&world).unwrap_or_else(|e| panic!("{e}"));
        machine.work_dir = world.work_dir();
        std::fs::write(
            machine.home.path().join(".gitconfig"),
            "[user]\n\tname = Course Learner\n\temail = learner@course.local\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        machine.install_argocd_cli();
        (machine, revs)
    }

    /// A stand-in `argocd` that answers `argocd version --client --short` as v3.1 does.
    fn install_argocd_cli(&self) {
        let path = self.bin.join("argocd");
        std::fs::write(&path, "#!/bin/sh\necho 'argocd: v3.1.5+cfeed49'\n")
            .unwrap_or_else(|e| panic!("{e}"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }

    fn kubeconfig(&self, server: &RunningServer) -> PathBuf {
        crate::harness::kubeconfig_at(
            &self.home.path().join("kubeconfig"),
            &server.url(),
            "kind-course",
        )
    }

    /// `doctor module-10` in JSON on `server`'s cluster.
    async fn doctor_on(&self, server: &RunningServer) -> Doctor {
        let kubeconfig = self.kubeconfig(server);
        let kubeconfig = kubeconfig.to_string_lossy();
        self.doctor(&["module-10", "--format", "json", "--kubeconfig", &kubeconfig])
            .await
    }

    /// `labcheck doctor ARGS` with this machine's HOME and PATH (kubectl from /usr/bin).
    async fn doctor(&self, args: &[&str]) -> Doctor {
        let path =
            std::env::join_paths([self.bin.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
                .unwrap_or_else(|e| panic!("{e}"));
        let run = Labcheck::new(self.home.path())
            .arg("doctor")
            .args(args)
            .arg("--work-dir")
            .arg(&self.work_dir)
            .env("PATH", path)
            .run_async()
            .await;
        Doctor {
            code: run.code,
            stdout: run.stdout,
            stderr: run.stderr,
        }
    }
}

async fn serve(snapshot: Snapshot) -> RunningServer {
    crate::harness::serve(snapshot, ServeOptions::default()).await
}

/// Argo CD's three parts as `kubectl apply -f install.yaml` leaves them, `controller_ready` of 1
/// controller replicas ready.
fn with_argo_cd(mut snapshot: Snapshot, controller_ready: i64) -> Snapshot {
    let workload = |kind: &str, name: &str, ready: i64| {
        json!({"apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": name, "namespace": "argocd", "creationTimestamp": "2026-05-02T09:00:20Z",
                "labels": {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "argocd"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app.kubernetes.io/name": name}}},
            "status": {"replicas": 1, "readyReplicas": ready, "availableReplicas": ready}})
    };
    for object in [
        workload("Deployment", "argocd-server", 1),
        workload("Deployment", "argocd-repo-server", 1),
        workload(
            "StatefulSet",
            "argocd-application-controller",
            controller_ready,
        ),
    ] {
        snapshot = snapshot.with_object(object);
    }
    snapshot
}

fn field<'a>(report: &'a Value, id: &str, name: &str) -> &'a str {
    check(report, id)[name].as_str().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_on_a_cluster_without_argo_cd_names_each_missing_part_with_its_fix() {
    let machine = Machine::bare();
    let server = serve(cluster::argo_cd_missing("module-10").expect("a fixture state")).await;
    let run = machine.doctor_on(&server).await;
    let report = run.json();
    assert_eq!(run.code, 1, "{report:#}");
    assert_eq!(report["step"], "doctor");

    assert_eq!(field(&report, "kubeconfig", "status"), "pass");
    assert!(field(&report, "kubeconfig", "summary").contains("context kind-course"));
    assert_eq!(field(&report, "api", "status"), "pass");
    assert!(
        field(&report, "api", "summary").starts_with("Kubernetes v1.33"),
        "{report:#}"
    );
    assert_eq!(field(&report, "clock", "status"), "pass", "{report:#}");

    assert_eq!(field(&report, "argocd-crd", "status"), "fail");
    assert!(field(&report, "argocd-crd", "hint").contains("manifests/install.yaml"));
    for part in [
        "argocd-server",
        "argocd-repo-server",
        "argocd-application-controller",
    ] {
        assert_eq!(field(&report, part, "status"), "fail", "{part}");
        assert!(
            field(&report, part, "summary").contains("namespace argocd does not exist"),
            "{part}: {report:#}"
        );
        assert!(field(&report, part, "hint").contains("kubectl create namespace argocd"));
    }
    // Without Argo CD the Application cannot be looked for: not a verdict on the learner.
    assert_eq!(field(&report, "app-checkout-dev", "status"), "error");
    assert!(field(&report, "app-checkout-dev", "summary").contains("Argo CD is not installed"));

    assert_eq!(field(&report, "repo-checkout-config", "status"), "fail");
    assert!(
        field(&report, "repo-checkout-config", "hint").contains(
            "git clone <your Git server>/team-checkout/checkout-config.git ~/work/checkout-config"
        ),
        "the module's own clone command, into the work dir: {report:#}"
    );
    assert_eq!(field(&report, "git-identity", "status"), "fail");
    assert!(field(&report, "git-identity", "hint").contains("git config --global user.email"));
    assert_eq!(field(&report, "tool-kubectl", "status"), "pass");
    assert!(field(&report, "tool-kubectl", "summary").contains("Client Version"));
    assert_eq!(field(&report, "tool-argocd", "status"), "fail");
    assert!(field(&report, "tool-argocd", "hint").contains("cli_installation"));

    assert!(server.requests.writes().is_empty(), "doctor only reads");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_passes_once_the_course_set_up_is_done_and_writes_junit_for_ci() {
    let (machine, revs) = Machine::ready("step-1");
    let server = serve(with_argo_cd(
        cluster::solved("step-1", &revs).expect("a fixture state"),
        1,
    ))
    .await;
    // The same kubeconfig serves the JUnit run below.
    let kubeconfig = machine.kubeconfig(&server);
    let kubeconfig = kubeconfig.to_string_lossy();
    let run = machine
        .doctor(&["module-10", "--format", "json", "--kubeconfig", &kubeconfig])
        .await;
    let report = run.json();
    assert_eq!(report["status"], "pass", "{report:#}");
    assert_eq!(run.code, 0);
    assert_eq!(
        field(&report, "argocd-application-controller", "summary"),
        "statefulset/argocd-application-controller: 1/1 ready"
    );
    assert!(field(&report, "app-checkout-dev", "summary").contains("sync: Synced"));
    assert_eq!(
        field(&report, "tool-argocd", "summary"),
        format!(
            "argocd: v3.1.5+cfeed49 ({})",
            machine.bin.join("argocd").display()
        )
    );
    assert!(
        field(&report, "git-identity", "summary")
            .starts_with("Course Learner <learner@course.local>")
    );

    let junit = machine.home.path().join("doctor.xml");
    let junit_arg = junit.to_string_lossy();
    let run = machine
        .doctor(&[
            "module-10",
            "--format",
            "junit",
            "--output",
            &junit_arg,
            "--kubeconfig",
            &kubeconfig,
        ])
        .await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("doctor: done"),
        "the terminal gets the human report: {}",
        run.stdout
    );
    let xml = std::fs::read_to_string(&junit).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        xml.contains(r#"<testsuite name="module-10 doctor""#),
        "{xml}"
    );
    assert!(xml.contains(r#"failures="0" errors="0""#), "{xml}");
}

/// A learner keeps the course in a folder of their own (`--work-dir`): doctor's way to get each
/// missing repo clones it there, never into `~/work`, which the module's `get:` names as
/// `${work}` (the default folder stays `~/work`, as the test above shows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_clones_a_missing_repo_into_the_learners_own_work_dir() {
    let mut machine = Machine::bare();
    machine.work_dir = machine.home.path().join("gitops course");
    let server = serve(cluster::argo_cd_missing("module-10").expect("a fixture state")).await;
    let report = machine.doctor_on(&server).await.json();
    let hint = field(&report, "repo-checkout-config", "hint");
    let folder = machine.work_dir.join("checkout-config");
    assert!(
        hint.ends_with(&format!("checkout-config.git '{}'", folder.display())),
        "{hint}"
    );
    assert!(!hint.contains("~/work"), "{hint}");
    assert!(!hint.contains("${work}"), "{hint}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_finds_a_controller_not_ready_and_an_application_not_created_yet() {
    let (machine, revs) = Machine::ready("fresh");
    // Argo CD installed, its controller still starting, nothing of the platform synced yet: its
    // namespace and CRD as the fresh lab's cluster has them, no Application.
    let fresh = cluster::solved("fresh", &revs).expect("a fixture state");
    let installed = fresh.objects.iter().filter(|o| {
        (o["kind"] == "Namespace" && o["metadata"]["name"] == "argocd")
            || (o["kind"] == "CustomResourceDefinition"
                && o["metadata"]["name"] == "applications.argoproj.io")
    });
    let mut without_apps = cluster::argo_cd_missing("module-10").expect("a fixture state");
    for object in installed {
        without_apps = without_apps.with_object(object.clone());
    }
    assert_eq!(
        without_apps.objects.len(),
        cluster::argo_cd_missing("module-10")
            .expect("a fixture state")
            .objects
            .len()
            + 2
    );
    let snapshot = with_argo_cd(without_apps, 0);
    let server = serve(snapshot).await;
    let run = machine.doctor_on(&server).await;
    let report = run.json();
    assert_eq!(run.code, 1, "{report:#}");
    assert_eq!(field(&report, "argocd-crd", "status"), "pass");
    assert_eq!(field(&report, "argocd-server", "status"), "pass");
    assert_eq!(
        field(&report, "argocd-application-controller", "status"),
        "fail"
    );
    assert!(
        field(&report, "argocd-application-controller", "hint")
            .contains("describe statefulset/argocd-application-controller")
    );
    assert_eq!(field(&report, "app-checkout-dev", "status"), "fail");
    assert!(field(&report, "app-checkout-dev", "hint").contains("apps/checkout-dev.yaml"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_without_a_kubeconfig_fails_once_and_does_not_guess_about_the_cluster() {
    let machine = Machine::bare();
    let run = machine.doctor(&["module-10", "--format", "json"]).await;
    let report = run.json();
    assert_eq!(run.code, 1);
    assert_eq!(field(&report, "kubeconfig", "status"), "fail");
    assert!(field(&report, "kubeconfig", "hint").contains("--kubeconfig"));
    for id in [
        "api",
        "clock",
        "argocd-crd",
        "argocd-server",
        "app-checkout-dev",
    ] {
        assert_eq!(field(&report, id, "status"), "error", "{id}: {report:#}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_for_ci_finds_awk_running_whether_it_is_mawk_or_gawk() {
    // mawk (Debian's and Ubuntu's awk) refuses `--version` with exit 2; gawk takes both forms.
    let awks = [
        (
            "mawk",
            "case \"$1\" in -W) echo 'mawk 1.3.4 20200120';; *) echo \"awk: not an option: $1\" >&2; exit 2;; esac",
        ),
        ("gawk", "echo 'GNU Awk 5.2.1, API 3.2'"),
    ];
    for (name, script) in awks {
        let machine = Machine::bare();
        let path = machine.bin.join("awk");
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap_or_else(|e| panic!("{e}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let run = machine
            .doctor(&["module-10", "--for", "ci", "--format", "json"])
            .await;
        let report = run.json();
        assert_eq!(
            field(&report, "tool-awk", "status"),
            "pass",
            "{name}: {report:#}"
        );
        let version = if name == "mawk" {
            "mawk 1.3.4"
        } else {
            "GNU Awk"
        };
        assert!(
            field(&report, "tool-awk", "summary").contains(version),
            "{name}: {report:#}"
        );
    }
}
