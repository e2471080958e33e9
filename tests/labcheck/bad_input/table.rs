//! Hostile input, one row per case (issue 16): what is handed to labcheck, the exit code, words the
//! output must hold (and words it must never hold: a credential, a Secret's value), a time bound,
//! and proof that nothing was modified: a hash of every byte under HOME (work repos with `.git`,
//! remotes, kubeconfig) and the course folder before and after, and the served API's request log
//! holding no write.

use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use labcheck::lab::cluster::{self, Revisions};

use labcheck::serve::{Misbehave, RunningServer, ServeOptions};
use serde_json::json;

use super::{
    CLUSTER_CHECKS, Case, DIFF_CHECK, DIFF_REPO_CHECK, GIT_CHECK, LOG_CHECK, LOG_STREAM_CHECK,
    VALUE_CHECK, runtime, serve,
};
use crate::harness::{StdoutTo as Out, files_with_bytes};

/// One hostile input.
struct Row {
    name: &'static str,
    point: &'static str,
    checks: &'static str,
    /// Prepares the world (before the hash is taken) and returns the extra arguments.
    setup: fn(&mut Env) -> Vec<String>,
    code: i32,
    says: &'static [&'static str],
    never_says: &'static [&'static str],
    within: Duration,
    out: Out,
}

/// A row's world: the case, servers it started, and helpers kept alive until the run ends.
struct Env {
    case: Case,
    rt: tokio::runtime::Runtime,
    servers: Vec<RunningServer>,
    keep: Vec<Box<dyn std::any::Any>>,
    /// Environment variables the run gets (`KUBECONFIG` with several files).
    vars: Vec<(String, String)>,
}

impl Env {
    fn home(&self) -> PathBuf {
        self.case.world.home().to_path_buf()
    }

    fn work(&self, relative: &str) -> PathBuf {
        self.home().join("work").join(relative)
    }

    fn course(&self, relative: &str) -> PathBuf {
        self.case.course_file(relative)
    }

    fn write(&self, path: &Path, bytes: &[u8]) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    fn fifo(&self, path: &Path) {
        let _ = std::fs::remove_file(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap_or_else(|e| panic!("mkfifo: {e}"));
        assert!(made.success());
    }

    /// An executable script under HOME/bin.
    fn script(&self, name: &str, body: &str) -> String {
        let path = self.home().join("bin").join(name);
        self.write(&path, format!("#!/bin/sh\n{body}").as_bytes());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        path.display().to_string()
    }

    /// Serve the solved cluster at the row's point with `options`; its URL.
    fn served(&mut self, point: &'static str, options: ServeOptions) -> String {
        let revs = Revisions::of_world(&self.case.world.lab).unwrap_or_else(|e| panic!("{e}"));
        let server = serve(
            &self.rt,
            cluster::solved(point, &revs).expect("a fixture state"),
            options,
        );
        let url = server.url();
        self.servers.push(server);
        url
    }

    /// Write `text` as HOME/kubeconfig; the `--kubeconfig` arguments.
    fn kubeconfig(&self, text: &str) -> Vec<String> {
        let path = self.home().join("kubeconfig");
        self.write(&path, text.as_bytes());
        vec!["--kubeconfig".to_string(), path.display().to_string()]
    }

    /// Two kubeconfig files with the same names (context, cluster and user `lab`), one for
    /// each server, given as `KUBECONFIG=first:second`.
    fn kubeconfigs(&mut self, first_url: &str, second_url: &str) {
        let first = self.home().join("first-kubeconfig");
        let second = self.home().join("second-kubeconfig");
        self.write(
            &first,
            labcheck::serve::kubeconfig(first_url, "lab").as_bytes(),
        );
        self.write(
            &second,
            labcheck::serve::kubeconfig(second_url, "lab").as_bytes(),
        );
        self.vars.push((
            "KUBECONFIG".to_string(),
            format!("{}:{}", first.display(), second.display()),
        ));
    }

    fn misbehaving(&mut self, point: &'static str, misbehave: Misbehave) -> Vec<String> {
        let url = self.served(
            point,
            ServeOptions {
                misbehave: Some(misbehave),
                ..ServeOptions::default()
            },
        );
        self.kubeconfig(&labcheck::serve::kubeconfig(&url, "lab"))
    }
}

/// The API answers 429 for ever, asking to retry after `retry_after_secs`.
fn rate_limited(env: &mut Env, retry_after_secs: u64) -> Vec<String> {
    env.misbehaving("step-1", Misbehave::RateLimit { retry_after_secs })
}

/// The API answers `code` with Retry-After 1 s once, then serves; the run is verbose (`-v`).
fn busy_once_verbose(env: &mut Env, code: u16) -> Vec<String> {
    let mut args = env.misbehaving(
        "step-1",
        Misbehave::BusyFor {
            code,
            retry_after_secs: 1,
            times: 1,
        },
    );
    args.push("-v".to_string());
    args
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A kubeconfig whose user gets its credentials from `plugin`.
fn exec_kubeconfig(url: &str, plugin: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: \"{url}\"\ncontexts:\n- name: lab\n  context:\n    cluster: lab\n    user: learner\ncurrent-context: lab\nusers:\n- name: learner\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: \"{plugin}\"\n      interactiveMode: Never\n"
    )
}

const TOKEN: &str = "sha256~SeCrEtToKeN1234567890abcdefXYZ";

const MODULE_HEAD: &str = "format: labcheck/v1\nmodule: module-t\ntitle: \"A test module\"\ntracks:\n  default: kind\n  available: [kind]\n";

fn module_yaml(env: &Env, repos: &str, steps: &str) {
    env.write(
        &env.course("modules/module-t/module.yaml"),
        format!("{MODULE_HEAD}{repos}{steps}").as_bytes(),
    );
}

/// Writes the module file with the usual repositories and `steps`; no extra arguments.
fn module_steps(env: &Env, steps: &str) -> Vec<String> {
    module_yaml(env, crate::harness::REPOS_YAML, steps);
    vec![]
}

fn step_yaml(env: &Env, text: &[u8]) {
    env.write(&env.course("modules/module-t/step-1.yaml"), text);
}

const STEP_HEAD: &str = "format: labcheck/v1\ntitle: \"Test step-1\"\n";

fn rows() -> Vec<Row> {
    let row = |name, point, checks, setup, code, says, within| Row {
        name,
        point,
        checks,
        setup,
        code,
        says,
        never_says: &[],
        within,
        out: Out::Piped,
    };
    vec![
        // ---- Writes: never into a work repo, only over a regular file
        row(
            "output inside a work repo",
            "step-1",
            GIT_CHECK,
            |env| {
                vec![
                    "--output".into(),
                    env.work("checkout-config/labcheck.xml")
                        .display()
                        .to_string(),
                ]
            },
            2,
            &["will not write the report to", "inside your work repo"],
            secs(30),
        ),
        row(
            "output over a repo's .git/HEAD",
            "step-1",
            GIT_CHECK,
            |env| {
                vec![
                    "--output".into(),
                    env.work("checkout-config/.git/HEAD").display().to_string(),
                ]
            },
            2,
            &["inside your work repo"],
            secs(30),
        ),
        row(
            "output through a symlink into a repo",
            "step-1",
            GIT_CHECK,
            |env| {
                #[cfg(unix)]
                std::os::unix::fs::symlink(env.work("checkout-config"), env.home().join("reports"))
                    .unwrap_or_else(|e| panic!("{e}"));
                vec![
                    "--output".into(),
                    env.home().join("reports/r.json").display().to_string(),
                ]
            },
            2,
            &["inside your work repo"],
            secs(30),
        ),
        row(
            "output over a FIFO",
            "step-1",
            GIT_CHECK,
            |env| {
                env.fifo(&env.home().join("report.fifo"));
                vec![
                    "--output".into(),
                    env.home().join("report.fifo").display().to_string(),
                ]
            },
            2,
            &[
                "is a named pipe (FIFO)",
                "only as a new file or over a regular file",
            ],
            secs(30),
        ),
        // ---- Files that are not regular files never block a read
        row(
            "the progress file is a FIFO",
            "step-1",
            GIT_CHECK,
            |env| {
                env.fifo(&env.home().join(".local/state/labcheck/progress"));
                vec![]
            },
            0,
            &[
                "cannot read your progress",
                "named pipe (FIFO), not a regular file",
            ],
            secs(30),
        ),
        row(
            "a learner's values file is a FIFO",
            "step-2",
            VALUE_CHECK,
            |env| {
                env.fifo(&env.work("checkout-config/helm/dev.yaml"));
                vec![]
            },
            3,
            &["helm/dev.yaml is a named pipe (FIFO), not a regular file"],
            secs(30),
        ),
        row(
            "a step file is a FIFO",
            "step-1",
            GIT_CHECK,
            |env| {
                env.fifo(&env.course("modules/module-t/step-1.yaml"));
                vec![]
            },
            2,
            &["step-1.yaml: is a named pipe (FIFO), not a regular file"],
            secs(30),
        ),
        // ---- Secrets and credentials
        Row {
            never_says: &[TOKEN, "SeCrEtToKeN"],
            ..row(
                "an exec plugin that fails after printing a token",
                "step-1",
                CLUSTER_CHECKS,
                |env| {
                    let plugin = env.script("plugin-fails", &format!(
                    "echo '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{TOKEN}\"}}}}'\necho \"refresh failed: token {TOKEN} expired\" >&2\nexit 1\n"
                ));
                    let url = env.served("step-1", ServeOptions::default());
                    env.kubeconfig(&exec_kubeconfig(&url, &plugin))
                },
                3,
                &[
                    "plugin-fails` (kubeconfig user `learner`) failed (exit status: 1)",
                    "refresh failed: token (redacted) expired",
                    "kubectl get nodes",
                ],
                secs(30),
            )
        },
        Row {
            never_says: &[TOKEN, "SeCrEtToKeN"],
            ..row(
                "an exec plugin that answers with a token",
                "step-1",
                CLUSTER_CHECKS,
                |env| {
                    let plugin = env.script("plugin-ok", &format!(
                    "echo '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{TOKEN}\"}}}}'\n"
                ));
                    let url = env.served("step-1", ServeOptions::default());
                    env.kubeconfig(&exec_kubeconfig(&url, &plugin))
                },
                0,
                &["\"status\": \"pass\""],
                secs(30),
            )
        },
        row(
            "an exec plugin that never returns",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let plugin = env.script("plugin-hangs", "sleep 30\n");
                let url = env.served("step-1", ServeOptions::default());
                env.kubeconfig(&exec_kubeconfig(&url, &plugin))
            },
            3,
            &["plugin-hangs` (kubeconfig user `learner`) did not answer within 4 s"],
            secs(7),
        ),
        Row {
            never_says: &["aHVudGVyMg==", "hunter2"],
            ..row(
                "a ConfigMap path answered with a Secret",
                "step-1",
                CLUSTER_CHECKS,
                |env| {
                    let secret = json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                    "metadata": {"name": "argocd-cm", "namespace": "argocd", "annotations": {
                        "kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"password\":\"aHVudGVyMg==\"}}"}},
                    "data": {"password": "aHVudGVyMg==", "resource.customizations.health.argoproj.io_Application": "aHVudGVyMg=="}});
                    env.misbehaving(
                        "step-1",
                        Misbehave::Substitute {
                            plural: "configmaps".into(),
                            object: secret,
                        },
                    )
                },
                3,
                &[
                    "the API returned a Secret labcheck cannot read: labcheck asked for a ConfigMap, and the answer is a Secret",
                ],
                secs(30),
            )
        },
        // ---- Hangs and time bounds
        row(
            "a check file nested 100 000 levels deep",
            "step-1",
            GIT_CHECK,
            |env| {
                let deep = format!(
                    "{STEP_HEAD}summary: {}{}\nchecks: []\n",
                    "[".repeat(100_000),
                    "]".repeat(100_000)
                );
                step_yaml(env, deep.as_bytes());
                vec![]
            },
            2,
            &["step-1.yaml:3:", "nested more than 100 levels deep"],
            secs(10),
        ),
        row(
            "a values file nested 100 000 levels deep",
            "step-2",
            VALUE_CHECK,
            |env| {
                let deep = format!(
                    "migration: {}{}\n",
                    "[".repeat(100_000),
                    "]".repeat(100_000)
                );
                env.write(&env.work("checkout-config/helm/dev.yaml"), deep.as_bytes());
                vec![]
            },
            3,
            &["helm/dev.yaml: line 1: the YAML is nested more than 100 levels deep"],
            secs(10),
        ),
        row(
            "a log endpoint that never ends",
            "step-4",
            LOG_CHECK,
            |env| {
                let mut args = env.misbehaving("step-4", Misbehave::EndlessLogs);
                args.extend(["--request-timeout".to_string(), "3s".to_string()]);
                args
            },
            3,
            &[
                "did not end within 3s (it streams on); labcheck read ",
                "and they do not contain what was expected",
                "migrate: still running, line 2",
            ],
            secs(10),
        ),
        row(
            "a log that never ends but already shows the line",
            "step-4",
            LOG_STREAM_CHECK,
            |env| {
                let mut args = env.misbehaving("step-4", Misbehave::EndlessLogs);
                args.extend(["--request-timeout".to_string(), "3s".to_string()]);
                args
            },
            0,
            &[
                "matches /still running, line [0-9]+/: \\\"migrate: still running, line 0\\\" (the log did not end within 3s; this was in the ",
            ],
            secs(10),
        ),
        row(
            "429 with a Retry-After longer than the request may take",
            "step-1",
            CLUSTER_CHECKS,
            |env| rate_limited(env, 30),
            3,
            &[
                "answered 429 Too Many Requests",
                "and asked to retry after 30 s; labcheck did not wait: that is longer than what is left of the 10s one request may take (--request-timeout)",
                "wait 30 s and run labcheck again",
            ],
            secs(5),
        ),
        row(
            "429 with a Retry-After longer than --request-timeout",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let mut args = rate_limited(env, 5);
                args.extend(["--request-timeout".to_string(), "2s".to_string()]);
                args
            },
            3,
            &[
                "and asked to retry after 5 s; labcheck did not wait: that is longer than what is left of the 2s one request may take (--request-timeout)",
            ],
            secs(4),
        ),
        row(
            "429 with a short Retry-After is retried, as kubectl does",
            "step-1",
            CLUSTER_CHECKS,
            |env| busy_once_verbose(env, 429),
            0,
            &[
                "\"status\": \"pass\"",
                "→ 200 in ",
                " ms (retried 1 time(s), as kubectl does: 429 Too Many Requests, Retry-After 1 s)",
            ],
            secs(15),
        ),
        row(
            "503 with a Retry-After while the API server starts is retried",
            "step-1",
            CLUSTER_CHECKS,
            |env| busy_once_verbose(env, 503),
            0,
            &[
                "\"status\": \"pass\"",
                "(retried 1 time(s), as kubectl does: 503 Service Unavailable, Retry-After 1 s)",
            ],
            secs(15),
        ),
        row(
            "429 with Retry-After 0 for ever stops after kubectl's 10 retries",
            "step-1",
            CLUSTER_CHECKS,
            |env| rate_limited(env, 0),
            3,
            &[
                "answered 429 Too Many Requests",
                "and asked to retry after 0 s; labcheck retried 10 times, as kubectl does, and stopped",
            ],
            secs(10),
        ),
        Row {
            never_says: &["retried"],
            ..row(
                "500 without Retry-After is not retried",
                "step-1",
                CLUSTER_CHECKS,
                |env| {
                    let url = env.served(
                        "step-1",
                        ServeOptions {
                            fail_with: Some(500),
                            ..ServeOptions::default()
                        },
                    );
                    let mut args = env.kubeconfig(&labcheck::serve::kubeconfig(&url, "lab"));
                    args.push("-v".to_string());
                    args
                },
                3,
                &["the Kubernetes API answered 500 to GET"],
                secs(10),
            )
        },
        row(
            "a body that trickles in a byte a second",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let mut args = env.misbehaving(
                    "step-1",
                    Misbehave::Trickle {
                        every: Duration::from_secs(1),
                    },
                );
                args.extend(["--request-timeout".to_string(), "3s".to_string()]);
                args
            },
            3,
            &[
                "did not end within 3s, the time one request may take (headers to last byte): labcheck read ",
                "--request-timeout 30s",
            ],
            secs(6),
        ),
        row(
            "301 to another address",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                env.misbehaving(
                    "step-1",
                    Misbehave::Redirect {
                        location: "https://elsewhere.example:6443/".into(),
                    },
                )
            },
            3,
            &[
                "answered 301",
                "sending labcheck to https://elsewhere.example:6443/",
                "does not follow redirects",
            ],
            secs(15),
        ),
        row(
            "a body that stalls half way",
            "step-1",
            CLUSTER_CHECKS,
            |env| env.misbehaving("step-1", Misbehave::StallBody),
            3,
            &["began answering GET", "and then stopped: no byte for 4 s"],
            secs(25),
        ),
        // ---- Paths and trust
        row(
            "a repo path leaving the work dir",
            "step-1",
            GIT_CHECK,
            |env| {
                let repos = crate::harness::REPOS_YAML.replace(
                    "  - name: checkout-config\n",
                    "  - name: checkout-config\n    path: ../../etc\n",
                );
                module_yaml(env, &repos, "steps: [step-1]\n");
                vec![]
            },
            2,
            &[
                "module.yaml:11:11:",
                "`path: ../../etc` leaves the folder it is relative to (it goes up with `..`)",
            ],
            secs(30),
        ),
        row(
            "a steps entry leaving the course folder",
            "step-1",
            GIT_CHECK,
            |env| module_steps(env, "steps:\n  - step-1\n  - ../../outside\n"),
            2,
            &[
                "module.yaml:16:5:",
                "`steps: ../../outside` leaves the folder",
            ],
            secs(30),
        ),
        // ---- Check files: BOM, tab, merge key, alias bomb, duplicate key, non-UTF-8
        row(
            "a check file with a UTF-8 BOM",
            "step-1",
            GIT_CHECK,
            |env| {
                let text = format!("\u{feff}{STEP_HEAD}checks:\n{GIT_CHECK}");
                step_yaml(env, text.as_bytes());
                vec![]
            },
            0,
            &["\"status\": \"pass\""],
            secs(30),
        ),
        row(
            "a tab indenting a check file",
            "step-1",
            GIT_CHECK,
            |env| {
                step_yaml(env, format!("{STEP_HEAD}checks:\n\t- id: a\n").as_bytes());
                vec![]
            },
            2,
            &["step-1.yaml:4:1: tab characters cannot indent YAML; indent with spaces"],
            secs(30),
        ),
        row(
            "a merge key in a check file",
            "step-1",
            GIT_CHECK,
            |env| {
                step_yaml(
                    env,
                    format!("{STEP_HEAD}checks:\n  - <<: {{id: a}}\n    title: x\n").as_bytes(),
                );
                vec![]
            },
            2,
            &["step-1.yaml:4:5: merge keys (`<<: *anchor`) are not read in course files"],
            secs(30),
        ),
        row(
            "an alias bomb in a check file",
            "step-1",
            GIT_CHECK,
            |env| {
                let mut text = format!("{STEP_HEAD}checks:\n");
                for i in 0..9 {
                    let value = if i == 0 {
                        "[k, k, k, k, k, k, k, k, k, k]".to_string()
                    } else {
                        format!("[{}]", vec![format!("*a{}", i - 1); 10].join(", "))
                    };
                    text.push_str(&format!(
                    "  - id: c{i}\n    title: t\n    yaml_value: {{repo: checkout-config, file: helm/dev.yaml, path: a, equals: &a{i} {value}}}\n"
                ));
                }
                step_yaml(env, text.as_bytes());
                vec![]
            },
            2,
            &["step-1.yaml:", "(an alias bomb)"],
            secs(10),
        ),
        row(
            "a duplicate key in a check file",
            "step-1",
            GIT_CHECK,
            |env| {
                step_yaml(
                    env,
                    format!("{STEP_HEAD}checks:\n{GIT_CHECK}title: \"again\"\n").as_bytes(),
                );
                vec![]
            },
            2,
            &["step-1.yaml:7:1: the key `title` appears twice in this map"],
            secs(30),
        ),
        row(
            "a duplicate key in a flow map of a check file",
            "step-1",
            GIT_CHECK,
            |env| {
                step_yaml(
                    env,
                    format!("{STEP_HEAD}checks:\n  - id: a\n    title: t\n    git: {{repo: checkout-config, branch: main, repo: other}}\n").as_bytes(),
                );
                vec![]
            },
            2,
            &["step-1.yaml:6:48: the key `repo` appears twice in this map; keep one"],
            secs(30),
        ),
        row(
            "a duplicate key deep in module.yaml",
            "step-1",
            GIT_CHECK,
            |env| {
                let head =
                    MODULE_HEAD.replace("  default: kind\n", "  default: kind\n  default: k3d\n");
                env.write(
                    &env.course("modules/module-t/module.yaml"),
                    format!("{head}{}steps: [step-1]\n", crate::harness::REPOS_YAML).as_bytes(),
                );
                vec![]
            },
            2,
            &["module.yaml:6:3: the key `default` appears twice in this map; keep one"],
            secs(30),
        ),
        row(
            "a byte that is not UTF-8 in a check file",
            "step-1",
            GIT_CHECK,
            |env| {
                let mut text = format!("{STEP_HEAD}checks:\n").into_bytes();
                text.extend_from_slice(b"  - id: caf\xe9\n");
                step_yaml(env, &text);
                vec![]
            },
            2,
            &["step-1.yaml:4:12: the byte 0xe9 is not UTF-8 text"],
            secs(30),
        ),
        // ---- Course files
        row(
            "a duplicate check id",
            "step-1",
            GIT_CHECK,
            |env| {
                step_yaml(
                    env,
                    format!("{STEP_HEAD}checks:\n{GIT_CHECK}{GIT_CHECK}").as_bytes(),
                );
                vec![]
            },
            2,
            &["step-1.yaml:7:", "two checks have the id `the-check`"],
            secs(30),
        ),
        row(
            "an empty steps list",
            "step-1",
            GIT_CHECK,
            |env| module_steps(env, "steps: []\n"),
            2,
            &["module.yaml:14:", "`steps:` is empty"],
            secs(30),
        ),
        row(
            "a step named quiz",
            "step-1",
            GIT_CHECK,
            |env| module_steps(env, "steps: [step-1, quiz]\n"),
            2,
            &[
                "module.yaml:14:",
                "a step may not be called `quiz`",
                "`labcheck MODULE quiz` runs the module's quiz",
            ],
            secs(30),
        ),
        row(
            "a step named Quiz in another case",
            "step-1",
            GIT_CHECK,
            |env| module_steps(env, "steps: [step-1, Quiz]\n"),
            2,
            &[
                "module.yaml:14:17: steps: a step may not be called `Quiz`: `quiz` is a name the course format reserves",
            ],
            secs(30),
        ),
        row(
            "a step named quiz.yaml with its extension",
            "step-1",
            GIT_CHECK,
            |env| module_steps(env, "steps: [step-1, quiz.yaml]\n"),
            2,
            &[
                "module.yaml:14:17: steps: a step may not be called `quiz.yaml`: `quiz` is a name the course format reserves",
            ],
            secs(30),
        ),
        row(
            "a step listed with its file's extension",
            "step-1",
            GIT_CHECK,
            |env| module_steps(env, "steps: [step-1.yaml]\n"),
            2,
            &[
                "module.yaml:14:9: steps: step `step-1.yaml` is written with its file's extension",
                "write `step-1`",
            ],
            secs(30),
        ),
        row(
            "a quiz: that names a step's file",
            "step-1",
            GIT_CHECK,
            |env| module_steps(env, "steps: [step-1]\nquiz: step-1.yaml\n"),
            2,
            &[
                "module.yaml:15:7: `quiz: step-1.yaml` names the file of step `step-1`",
                "give the quiz its own file",
            ],
            secs(30),
        ),
        row(
            "a reference path that is a folder",
            "step-1",
            DIFF_CHECK,
            |env| {
                std::fs::create_dir_all(env.course("expected/kind/module-t/values"))
                    .unwrap_or_else(|e| panic!("{e}"));
                vec![]
            },
            3,
            &[
                "cannot read the course's reference file: ",
                "expected/kind/module-t/values: is a folder, not a regular file: labcheck expected one file here; name a file inside the folder",
            ],
            secs(30),
        ),
        row(
            "a reference in a repo that is a folder",
            "step-1",
            DIFF_REPO_CHECK,
            |_| vec![],
            3,
            &[
                "checkout-config/helm is a folder, not a regular file: labcheck expected one file here",
                "must name a file: tell the course's author (`labcheck course lint` finds it)",
            ],
            secs(30),
        ),
        row(
            "a reference that is a named pipe",
            "step-1",
            DIFF_CHECK,
            |env| {
                env.fifo(&env.course("expected/kind/module-t/values"));
                vec![]
            },
            3,
            &[
                "expected/kind/module-t/values: is a named pipe (FIFO), not a regular file: labcheck expected a file here and reads only regular files (reading a named pipe (FIFO) could wait for ever); put the file itself at this path",
            ],
            secs(30),
        ),
        row(
            "a ConfigMap whose data is a list",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let listed = json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "argocd-cm", "namespace": "argocd"}, "data": ["a", "b"]});
                env.misbehaving(
                    "step-1",
                    Misbehave::Substitute {
                        plural: "configmaps".into(),
                        object: listed,
                    },
                )
            },
            3,
            &[
                "the API returned a ConfigMap labcheck cannot read: invalid type: sequence, expected a map",
            ],
            secs(30),
        ),
        // ---- kubeconfig as kubectl reads it
        row(
            "proxy-url is honoured",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let url = env.served("step-1", ServeOptions::default());
                let target = url.trim_start_matches("http://").to_string();
                let proxy = connect_proxy(target);
                env.kubeconfig(&proxied_kubeconfig(&format!("http://{proxy}")))
            },
            0,
            &["\"status\": \"pass\""],
            secs(30),
        ),
        row(
            "proxy-url socks5 is honoured",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let url = env.served("step-1", ServeOptions::default());
                let target = url.trim_start_matches("http://").to_string();
                let proxy = socks5_proxy(target);
                env.kubeconfig(&proxied_kubeconfig(&format!("socks5://{proxy}")))
            },
            0,
            &["\"status\": \"pass\""],
            secs(30),
        ),
        row(
            "proxy-url socks5h is refused with what to write",
            "step-1",
            CLUSTER_CHECKS,
            |env| env.kubeconfig(&proxied_kubeconfig("socks5h://learner:pw@127.0.0.1:1080")),
            3,
            &[
                "sends cluster `lab` through proxy-url socks5h://127.0.0.1:1080, which labcheck cannot use: `socks5h://` (names resolved by the proxy) is not one labcheck can use; `socks5://` is",
                "write proxy-url as http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT",
            ],
            secs(30),
        ),
        Row {
            never_says: &["learner:pw", "pw@"],
            ..row(
                "proxy-url without a scheme",
                "step-1",
                CLUSTER_CHECKS,
                |env| env.kubeconfig(&proxied_kubeconfig("127.0.0.1:3128")),
                3,
                &[
                    "through proxy-url",
                    "which labcheck cannot use: it has no scheme such as `http://`",
                ],
                secs(30),
            )
        },
        Row {
            never_says: &["learner:pw", "pw@"],
            ..row(
                "proxy-url pointing at no proxy",
                "step-1",
                CLUSTER_CHECKS,
                |env| env.kubeconfig(&proxied_kubeconfig("http://learner:pw@127.0.0.1:9")),
                3,
                &[
                    "cannot reach the Kubernetes API at context lab (http://cluster.invalid:6443/, through the proxy http://127.0.0.1:9)",
                    "check that the proxy runs",
                ],
                secs(30),
            )
        },
        row(
            "two contexts with one name",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let url = env.served("step-1", ServeOptions::default());
                let text = format!(
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {{server: \"{url}\"}}\n- name: b\n  cluster: {{server: \"http://127.0.0.1:9\"}}\ncontexts:\n- name: lab\n  context: {{cluster: a, user: u}}\n- name: lab\n  context: {{cluster: b, user: u}}\ncurrent-context: lab\nusers:\n- name: u\n  user: {{}}\n"
                );
                env.kubeconfig(&text)
            },
            3,
            &[
                "has two contexts named `lab` (for cluster `a` and cluster `b`); kubectl refuses such a file",
                "and uses neither, and so does labcheck",
                "rename or remove one of the contexts named `lab`",
            ],
            secs(30),
        ),
        row(
            "two clusters with one name",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let url = env.served("step-1", ServeOptions::default());
                let text = format!(
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {{server: \"{url}\"}}\n- name: a\n  cluster: {{server: \"http://127.0.0.1:9\"}}\ncontexts:\n- name: lab\n  context: {{cluster: a, user: u}}\ncurrent-context: lab\nusers:\n- name: u\n  user: {{}}\n"
                );
                env.kubeconfig(&text)
            },
            3,
            &["has two clusters named `a` (for server http://127.0.0.1:"],
            secs(30),
        ),
        row(
            "two contexts with one name in two KUBECONFIG files: the first is used",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                // kubectl merges KUBECONFIG's files and the first file to name a context wins;
                // the second `lab` points at a dead port and must not be used.
                let url = env.served("step-1", ServeOptions::default());
                env.kubeconfigs(&url, "http://127.0.0.1:9");
                vec![]
            },
            0,
            &["\"status\": \"pass\""],
            secs(30),
        ),
        row(
            "two contexts with one name in two KUBECONFIG files: the second is named",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let url = env.served("step-1", ServeOptions::default());
                env.kubeconfigs("http://127.0.0.1:9", &url);
                vec![]
            },
            3,
            &[
                "context lab (http://127.0.0.1:9/); ",
                "second-kubeconfig also has context `lab`, cluster `lab`, user `lab`, which kubectl and labcheck ignore (the first file in $KUBECONFIG to name one wins)",
            ],
            secs(30),
        ),
        row(
            "no current-context",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let url = env.served("step-1", ServeOptions::default());
                let text = format!(
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {{server: \"{url}\"}}\ncontexts:\n- name: kind-course\n  context: {{cluster: a, user: u}}\n- name: kind-other\n  context: {{cluster: a, user: u}}\nusers:\n- name: u\n  user: {{}}\n"
                );
                env.kubeconfig(&text)
            },
            3,
            &[
                "has no current context (it has: kind-course, kind-other)",
                "--context NAME",
            ],
            secs(30),
        ),
        row(
            "a certificate signed by an unknown CA",
            "step-1",
            CLUSTER_CHECKS,
            |env| {
                let (url, other_ca) = tls_server(env);
                let text = format!(
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: \"{url}\"\n    certificate-authority-data: {other_ca}\ncontexts:\n- name: lab\n  context: {{cluster: lab, user: u}}\ncurrent-context: lab\nusers:\n- name: u\n  user: {{}}\n"
                );
                env.kubeconfig(&text)
            },
            3,
            &[
                "the cluster's certificate is not signed by a CA in your kubeconfig",
                "kind export kubeconfig",
            ],
            secs(30),
        ),
        // ---- Output
        Row {
            out: Out::DevFull,
            ..row(
                "stdout is /dev/full",
                "step-1",
                GIT_CHECK,
                |_| vec![],
                3,
                &[
                    "cannot write the report to standard output: No space left on device",
                    "no verdict was delivered",
                ],
                secs(30),
            )
        },
        Row {
            out: Out::Closed,
            never_says: &["panicked", "Broken pipe", "standard output"],
            ..row(
                "stdout is a closed pipe",
                "step-1",
                GIT_CHECK,
                |_| vec![],
                0,
                &[],
                secs(30),
            )
        },
    ]
}

/// A CONNECT (and plain absolute-form) HTTP proxy on loopback that sends everything to `target`,
/// whatever host was asked for: a kubeconfig `server:` that does not resolve works only through it.
fn connect_proxy(target: String) -> String {
    relay(target, |client| {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && client.read(&mut byte).is_ok_and(|n| n == 1) {
            head.push(byte[0]);
        }
        Some(if head.starts_with(b"CONNECT ") {
            Greeting {
                to_client: b"HTTP/1.1 200 Connection established\r\n\r\n".to_vec(),
                to_upstream: Vec::new(),
            }
        } else {
            Greeting {
                to_client: Vec::new(),
                to_upstream: head,
            }
        })
    })
}

/// What a proxy says once its client has asked: the answer to the client and the bytes that go
/// ahead of the client's to `target`.
struct Greeting {
    to_client: Vec<u8>,
    to_upstream: Vec<u8>,
}

/// A proxy on loopback: each client is greeted by `greet` (`None` drops it), then connected to
/// `target` whatever it asked for, and the bytes copied both ways.
fn relay(target: String, greet: fn(&mut TcpStream) -> Option<Greeting>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    std::thread::spawn(move || {
        for client in listener.incoming().take(64) {
            let Ok(mut client) = client else { continue };
            let target = target.clone();
            std::thread::spawn(move || {
                let Some(greeting) = greet(&mut client) else {
                    return;
                };
                let Ok(mut upstream) = TcpStream::connect(&target) else {
                    return;
                };
                if !greeting.to_client.is_empty() {
                    let _ = client.write_all(&greeting.to_client);
                }
                if !greeting.to_upstream.is_empty() {
                    let _ = upstream.write_all(&greeting.to_upstream);
                }
                let (Ok(mut c2), Ok(mut u2)) = (client.try_clone(), upstream.try_clone()) else {
                    return;
                };
                std::thread::spawn(move || std::io::copy(&mut u2, &mut c2));
                let _ = std::io::copy(&mut client, &mut upstream);
            });
        }
    });
    addr.to_string()
}

/// A kubeconfig whose cluster (`http://cluster.invalid:6443`, a name that never resolves) is
/// reached only through `proxy`.
fn proxied_kubeconfig(proxy: &str) -> String {
    labcheck::serve::kubeconfig("http://cluster.invalid:6443", "lab").replace(
        "    server: \"http://cluster.invalid:6443\"\n",
        &format!("    server: \"http://cluster.invalid:6443\"\n    proxy-url: \"{proxy}\"\n"),
    )
}

/// A SOCKS5 proxy on loopback (RFC 1928: no authentication, CONNECT only) that connects every
/// request to `target`, whatever address was asked for.
fn socks5_proxy(target: String) -> String {
    relay(target, |client| {
        fn read(client: &mut TcpStream, n: usize) -> std::io::Result<Vec<u8>> {
            let mut buf = vec![0u8; n];
            client.read_exact(&mut buf).map(|_| buf)
        }
        // Greeting: version, the number of methods, the methods; "no authentication".
        let head = read(client, 2).ok()?;
        if read(client, usize::from(head[1])).is_err() || client.write_all(&[5, 0]).is_err() {
            return None;
        }
        // Request: version, CONNECT, reserved, the address type, the address, the port.
        let request = read(client, 4).ok()?;
        let address_len = match request[3] {
            1 => 4,
            4 => 16,
            3 => usize::from(read(client, 1).ok()?[0]),
            _ => return None,
        };
        read(client, address_len + 2).ok()?;
        Some(Greeting {
            to_client: vec![5, 0, 0, 1, 127, 0, 0, 1, 0, 0],
            to_upstream: Vec::new(),
        })
    })
}

/// An HTTPS server (`openssl s_server`) with a self-signed certificate, and the base64 of another
/// CA's certificate, which did not sign it.
fn tls_server(env: &mut Env) -> (String, String) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("openssl: {e}"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for name in ["server", "other"] {
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-addext",
            "basicConstraints=critical,CA:FALSE",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.pem"),
        ]);
    }
    let other_ca = openssl(&["base64", "-A", "-in", "other.pem"]);
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("{e}"));
    let server = std::process::Command::new("openssl")
        .args([
            "s_server",
            "-quiet",
            "-www",
            "-accept",
            &port.to_string(),
            "-cert",
            "server.pem",
            "-key",
            "server.key",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("openssl s_server: {e}"));
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() && started.elapsed() < secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    env.keep.push(Box::new(KillOnDrop(server)));
    env.keep.push(Box::new(dir));
    (
        format!("https://127.0.0.1:{port}"),
        other_ca.trim().to_string(),
    )
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One hash of every byte under HOME and the course folder.
fn fingerprint(env: &Env) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    files_with_bytes(env.case.world.home()).hash(&mut hasher);
    files_with_bytes(&env.case.course.path()).hash(&mut hasher);
    hasher.finish()
}

fn run_row(row: &Row) -> Result<(), String> {
    let mut env = Env {
        case: Case::new(row.point, row.checks),
        rt: runtime(),
        servers: Vec::new(),
        keep: Vec::new(),
        vars: Vec::new(),
    };
    let extra = (row.setup)(&mut env);
    let before = fingerprint(&env);
    let run = env
        .case
        .labcheck()
        .args([
            "--course-dir",
            &env.case.course.path().display().to_string(),
            "module-t",
            "step-1",
            "--format",
            "json",
            "--no-wait",
        ])
        .args(&extra)
        .envs(&env.vars)
        .stdout(row.out)
        .limit(row.within)
        .try_run()?;
    let elapsed = run.elapsed;
    let all = format!("{}\n{}", run.stdout, run.stderr);
    let mut problems = Vec::new();
    if run.code != row.code {
        problems.push(format!("exit {} (wanted {})", run.code, row.code));
    }
    for word in row.says {
        if !all.contains(word) {
            problems.push(format!("does not say `{word}`"));
        }
    }
    for word in row.never_says {
        if all.contains(word) {
            problems.push(format!("says `{word}`, which it must never show"));
        }
    }
    if fingerprint(&env) != before {
        problems.push("modified a file under HOME or the course".to_string());
    }
    for server in &env.servers {
        let writes = server.requests.writes();
        if !writes.is_empty() {
            problems.push(format!("sent write requests: {writes:?}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} (after {elapsed:?})\n--- stdout\n{}\n--- stderr\n{}",
            problems.join("; "),
            run.stdout,
            run.stderr
        ))
    }
}

#[test]
fn every_hostile_input_gets_its_message_and_exit_code_and_changes_nothing() {
    let only = std::env::var("LABCHECK_ROW").ok();
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|row| only.as_deref().is_none_or(|o| row.name.contains(o)))
        .collect();
    // Most rows wait (a server that stalls, a plugin that hangs, a log that never ends), few
    // compute: three at a time, each in its own world, its own servers and runtime.
    let lanes = 3;
    let mut failures: Vec<String> = std::thread::scope(|scope| {
        let lanes: Vec<_> = (0..lanes)
            .map(|lane| {
                let rows = &rows;
                scope.spawn(move || {
                    rows.iter()
                        .skip(lane)
                        .step_by(lanes)
                        .filter_map(|row| {
                            run_row(row)
                                .err()
                                .map(|why| format!("== {}: {why}", row.name))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        lanes
            .into_iter()
            .flat_map(|lane| {
                lane.join()
                    .unwrap_or_else(|_| vec!["a lane panicked".into()])
            })
            .collect()
    });
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_catalogue_has_a_row_for_every_class_of_the_issue() {
    let names: Vec<&str> = rows().iter().map(|r| r.name).collect();
    for class in [
        "output inside a work repo",
        "FIFO",
        "exec plugin",
        "answered with a Secret",
        "never returns",
        "nested 100 000",
        "never ends",
        "already shows the line",
        "429",
        "503",
        "Retry-After 0",
        "trickles",
        "301",
        "stalls",
        "repo path",
        "steps entry",
        "BOM",
        "tab",
        "merge key",
        "alias bomb",
        "duplicate key",
        "not UTF-8",
        "duplicate check id",
        "empty steps",
        "quiz",
        "Quiz in another case",
        "quiz.yaml",
        "extension",
        "quiz: that names",
        "flow map",
        "deep in module.yaml",
        "reference path that is a folder",
        "reference in a repo",
        "reference that is a named pipe",
        "data is a list",
        "proxy-url",
        "socks5",
        "no proxy",
        "two contexts",
        "two clusters",
        "KUBECONFIG files",
        "current-context",
        "unknown CA",
        "/dev/full",
        "closed pipe",
    ] {
        assert!(
            names.iter().any(|n| n.contains(class)),
            "no row for `{class}`"
        );
    }
}
