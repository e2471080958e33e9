//! `labcheck solution`: the course's own actions printed as a bash script, read-only.

use std::io::Write;
use std::process::{Command, Stdio};

use std::path::{Path, PathBuf};

use labcheck::lab::cluster::{self, Revisions};
use labcheck::serve::ServeOptions;

use crate::harness::{
    Labcheck, World, kubeconfig_at, labcheck, labcheck_with_env, runtime, serve_on,
};

/// Feed `script` to `program args…` on stdin; (exit code, stdout + stderr).
fn pipe(program: &str, args: &[&str], script: &str) -> (i32, String) {
    let mut command = Command::new(program);
    command.args(args);
    pipe_into(command, script)
}

/// Feed `script` to `command` on stdin; (exit code, stdout + stderr).
fn pipe_into(mut command: Command, script: &str) -> (i32, String) {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("script written");
    let out = child.wait_with_output().expect("it ends");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn on_path(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn every_step_of_both_modules_prints_a_script_bash_reads_and_shellcheck_accepts() {
    let home = tempfile::tempdir().expect("a temp dir");
    let shellcheck = on_path("shellcheck");
    for module in ["module-10", "module-11"] {
        let list = labcheck(home.path(), &["solution", module]);
        assert_eq!(list.code, 0, "{}", list.stderr);
        let steps: Vec<&str> = list.stdout.lines().collect();
        assert!(steps.len() >= 5, "{module}: {steps:?}");
        for step in steps {
            let run = labcheck(
                home.path(),
                &["solution", module, step, "--work-dir", "/tmp/a work dir"],
            );
            assert_eq!(run.code, 0, "{module} {step}: {}", run.stderr);
            let script = &run.stdout;
            assert!(script.starts_with("#!/usr/bin/env bash\n"), "{script}");
            assert!(script.contains("\nset -euo pipefail\n"), "{script}");
            assert!(script.contains("\nwork='/tmp/a work dir'\n"), "{script}");
            let (code, said) = pipe("bash", &["-n"], script);
            assert_eq!(code, 0, "{module} {step}: bash -n: {said}\n{script}");
            if shellcheck {
                let (code, said) = pipe("shellcheck", &["-s", "bash", "-"], script);
                assert_eq!(code, 0, "{module} {step}: shellcheck: {said}\n{script}");
            }
        }
    }
}

#[test]
fn step_5_reverts_the_commit_that_made_migration_fail_true_found_by_content() {
    let world = World::at("step-4");
    let work = world.lab.work_dir();
    let sha = world.repo("checkout-config").head_sha().expect("a HEAD");
    let run = Labcheck::new(world.home())
        .args(["solution", "module-10", "step-5", "--work-dir"])
        .arg(&work)
        .run_writing_nothing();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("\n  git revert --no-edit {sha}\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("# the commit that made `migration.fail` true in helm/dev.yaml"),
        "{}",
        run.stdout
    );
}

#[test]
fn before_step_4_the_step_5_script_stops_and_says_there_is_nothing_to_revert() {
    let world = World::at("step-3");
    let run = Labcheck::new(world.home())
        .args(["solution", "module-10", "step-5", "--work-dir"])
        .arg(world.lab.work_dir())
        .run_writing_nothing();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "no commit in checkout-config makes `migration.fail` true in helm/dev.yaml yet"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("git revert"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("\nlab_stop 'no commit in checkout-config"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_unknown_step_is_a_usage_error_naming_the_steps() {
    let home = tempfile::tempdir().expect("a temp dir");
    let run = labcheck(home.path(), &["solution", "module-10", "step-9"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&["step-9"]);
}

#[test]
fn doctor_for_ci_asks_for_bash_and_awk_and_takes_the_identity_from_the_environment() {
    let home = tempfile::tempdir().expect("a temp dir");
    let env = [
        ("GIT_AUTHOR_NAME", "Course CI"),
        ("GIT_AUTHOR_EMAIL", "ci@course.local"),
        ("GIT_COMMITTER_NAME", "Course CI"),
        ("GIT_COMMITTER_EMAIL", "ci@course.local"),
    ];
    let ci = labcheck_with_env(
        home.path(),
        &["doctor", "module-10", "--for", "ci", "-o", "json"],
        &env,
    );
    let learner = labcheck_with_env(home.path(), &["doctor", "module-10", "-o", "json"], &env);
    let ids = |run: &crate::harness::Run| -> Vec<(String, String)> {
        run.json()["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap_or_default().to_string(),
                    c["status"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    };
    let (ci, learner) = (ids(&ci), ids(&learner));
    for tool in ["tool-bash", "tool-awk"] {
        assert!(ci.iter().any(|(id, _)| id == tool), "{ci:?}");
        assert!(!learner.iter().any(|(id, _)| id == tool), "{learner:?}");
    }
    let identity = |checks: &[(String, String)]| {
        checks
            .iter()
            .find(|(id, _)| id == "git-identity")
            .map(|(_, s)| s.clone())
    };
    // The environment names CI's commits; a learner's own commits need git's config.
    assert_eq!(identity(&ci).as_deref(), Some("pass"), "{ci:?}");
    assert_eq!(identity(&learner).as_deref(), Some("fail"), "{learner:?}");
}

/// The printed script of `module step` for `world`.
fn printed(world: &World, module: &str, step: &str) -> String {
    let run = Labcheck::new(world.home())
        .args(["solution", module, step, "--work-dir"])
        .arg(world.lab.work_dir())
        .run_writing_nothing();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// A folder with this labcheck and stand-ins for argocd and kubectl that record their calls.
struct Tools {
    dir: tempfile::TempDir,
}

impl Tools {
    fn new() -> Tools {
        let dir = tempfile::tempdir().expect("a temp dir");
        let log = dir.path().join("calls.log");
        for tool in ["argocd", "kubectl"] {
            write_executable(
                &dir.path().join(tool),
                &format!(
                    "#!/bin/sh\necho \"$(basename \"$0\") $*\" >>'{}'\n",
                    log.display()
                ),
            );
        }
        write_executable(
            &dir.path().join("labcheck"),
            &format!(
                "#!/bin/sh\nexec '{}' \"$@\"\n",
                env!("CARGO_BIN_EXE_labcheck")
            ),
        );
        Tools { dir }
    }

    fn calls(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("calls.log")).unwrap_or_default()
    }

    /// Run `script` under bash as the learner in `world` would; (exit code, stdout + stderr).
    fn run(&self, world: &World, script: &str, kubeconfig: Option<&Path>) -> (i32, String) {
        let path = format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let none = world.home().join("no-kubeconfig");
        let mut bash = Command::new("bash");
        bash.env("PATH", path)
            .env("HOME", world.home())
            .env("KUBECONFIG", kubeconfig.unwrap_or(&none))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Ana")
            .env("GIT_AUTHOR_EMAIL", "ana@course.local")
            .env("GIT_COMMITTER_NAME", "Ana")
            .env("GIT_COMMITTER_EMAIL", "ana@course.local")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("LABCHECK_WORK_DIR");
        pipe_into(bash, script)
    }
}

fn write_executable(path: &PathBuf, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).expect("written");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("executable");
}

fn dev_yaml(world: &World) -> String {
    std::fs::read_to_string(world.lab.work_dir().join("checkout-config/helm/dev.yaml"))
        .expect("helm/dev.yaml")
}

#[test]
fn learner_who_runs_step_4s_script_twice_releases_once_and_is_told_nothing_was_left() {
    let world = World::at("step-3");
    let tools = Tools::new();
    let script = printed(&world, "module-10", "step-4");
    let repo = world.repo("checkout-config");
    let start = repo.head_sha().expect("HEAD");

    let (code, said) = tools.run(&world, &script, None);
    assert_eq!(code, 0, "{said}");
    let after = dev_yaml(&world);
    assert!(after.contains("  tag: \"6.7.0\"\n"), "{after}");
    assert!(after.contains("  enabled: true\n  fail: true\n"), "{after}");
    let released = repo.head_sha().expect("HEAD");
    assert_ne!(released, start, "{said}");
    assert_eq!(repo.upstream_sha().expect("upstream"), released, "pushed");
    assert!(
        tools
            .calls()
            .contains("argocd app get checkout-dev --refresh"),
        "{}",
        tools.calls()
    );

    let (code, said) = tools.run(&world, &script, None);
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        repo.head_sha().expect("HEAD"),
        released,
        "no second commit: {said}"
    );
    assert_eq!(dev_yaml(&world), after, "{said}");
    for words in [
        "helm/dev.yaml: `image.tag` is already so; nothing to change",
        "helm/dev.yaml: `migration.fail` is already so; nothing to change",
        "checkout-config: nothing to commit",
    ] {
        assert!(said.contains(words), "{words} in {said}");
    }
}

#[test]
fn learner_with_a_flow_style_crlf_values_file_keeps_their_layout_and_passes_the_repo_checks() {
    let world = World::at("step-3");
    let repo = world.repo("checkout-config");
    let theirs = "# my dev values\r\nimage: {repository: ghcr.io/stefanprodan/podinfo, tag: \"6.7.1\"}\r\nreplicaCount: 1\r\nsmokeTest:\r\n  enabled: true\r\nmigration:\r\n  enabled: true   # on since step 2\r\n";
    repo.write("helm/dev.yaml", theirs).expect("written");
    repo.commit_written("values my way").expect("committed");
    repo.push().expect("pushed");
    let tools = Tools::new();
    let script = printed(&world, "module-10", "step-4");
    for _ in 0..2 {
        let (code, said) = tools.run(&world, &script, None);
        assert_eq!(code, 0, "{said}");
    }
    assert_eq!(
        dev_yaml(&world),
        "# my dev values\r\nimage: {repository: ghcr.io/stefanprodan/podinfo, tag: \"6.7.0\"}\r\nreplicaCount: 1\r\nsmokeTest:\r\n  enabled: true\r\nmigration:\r\n  enabled: true   # on since step 2\r\n  fail: true\r\n"
    );
    let check = labcheck(
        world.home(),
        &["module-10", "step-4", "--no-wait", "--format", "json"],
    );
    for id in ["tag-670", "migration-fails", "release-pushed"] {
        assert_eq!(check.check(id)["status"], "pass", "{id}: {}", check.stdout);
    }
}

#[test]
fn learner_whose_step_is_done_is_told_so_and_the_script_does_nothing() {
    let world = World::at("step-4");
    let revisions = Revisions::of_world(&world.lab).expect("pushed revisions");
    let snapshot = cluster::solved("step-4", &revisions).expect("a fixture state");
    let rt = runtime();
    let server = serve_on(&rt, snapshot, ServeOptions::default());
    let kubeconfig = kubeconfig_at(
        &world.home().join("served.kubeconfig"),
        &server.url(),
        "lab",
    );
    let tools = Tools::new();
    let repo = world.repo("checkout-config");
    let head = repo.head_sha().expect("HEAD");
    let before = dev_yaml(&world);
    let script = printed(&world, "module-10", "step-4");
    let (code, said) = tools.run(&world, &script, Some(&kubeconfig));
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        said.trim(),
        "module-10 step-4 is done already (labcheck module-10 step-4 passes): nothing to do."
    );
    assert_eq!(repo.head_sha().expect("HEAD"), head);
    assert_eq!(dev_yaml(&world), before);
    assert_eq!(tools.calls(), "", "no cluster command ran");
}

#[test]
fn step_5s_script_run_twice_reverts_once() {
    let world = World::at("step-4");
    let tools = Tools::new();
    let script = printed(&world, "module-10", "step-5");
    let repo = world.repo("checkout-config");
    let (code, said) = tools.run(&world, &script, None);
    assert_eq!(code, 0, "{said}");
    let reverted = repo.head_sha().expect("HEAD");
    assert!(
        !dev_yaml(&world).contains("fail: true"),
        "{}",
        dev_yaml(&world)
    );
    let (code, said) = tools.run(&world, &script, None);
    assert_eq!(code, 0, "{said}");
    assert_eq!(repo.head_sha().expect("HEAD"), reverted, "{said}");
    assert!(
        said.contains("is undone already; nothing to revert"),
        "{said}"
    );
}

/// `labcheck edit` on a learner's file: (what, the file, the command's arguments, stdin, exit
/// code, the file after, words said).
#[test]
fn labcheck_edit_changes_only_the_lines_of_the_path_and_says_what_it_did() {
    type Case = (
        &'static str,
        &'static str,
        &'static [&'static str],
        &'static str,
        i32,
        &'static str,
        &'static str,
    );
    let cases: &[Case] = &[
        (
            "set a scalar",
            "image:\n  tag: \"6.7.1\" # pinned\n",
            &["set", "dev.yaml", "image.tag", "--value", "6.7.0"],
            "",
            0,
            "image:\n  tag: \"6.7.0\" # pinned\n",
            "dev.yaml: set `image.tag`",
        ),
        (
            "set a map from stdin, already there",
            "migration:\n  enabled: true\n",
            &["set", "dev.yaml", "migration"],
            "enabled: true\n",
            0,
            "migration:\n  enabled: true\n",
            "is already so; nothing to change",
        ),
        (
            "remove",
            "smokeTest:\n  enabled: true\n  path: /status/503\n",
            &["remove", "dev.yaml", "smokeTest.path"],
            "",
            0,
            "smokeTest:\n  enabled: true\n",
            "dev.yaml: removed `smokeTest.path`",
        ),
        (
            "a path through a text value is refused and the file stays",
            "image: x\n",
            &["set", "dev.yaml", "image.tag", "--value", "1"],
            "",
            2,
            "image: x\n",
            "dev.yaml: `image.tag`: `image` is not a map, so it cannot hold `tag`; the file is unchanged",
        ),
        (
            "a bad path is a usage error",
            "a: 1\n",
            &["set", "dev.yaml", "a[", "--value", "1"],
            "",
            2,
            "a: 1\n",
            "path `a[`",
        ),
    ];
    for (what, text, args, stdin, code, after, says) in cases {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::write(dir.path().join("dev.yaml"), text).expect("written");
        let mut all = vec!["edit"];
        all.extend_from_slice(args);
        let run = Labcheck::new(dir.path())
            .args(&all)
            .current_dir(dir.path())
            .stdin(stdin.as_bytes().to_vec())
            .run();
        assert_eq!(run.code, *code, "{what}: {}{}", run.stdout, run.stderr);
        let now = std::fs::read_to_string(dir.path().join("dev.yaml")).expect("read");
        assert_eq!(now, *after, "{what}");
        assert!(
            format!("{}{}", run.stdout, run.stderr).contains(says),
            "{what}: {says} in {}{}",
            run.stdout,
            run.stderr
        );
    }
}
