//! `labcheck solution`: the course's own actions printed as a bash script, read-only.

use std::io::Write;
use std::process::{Command, Stdio};

use labcheck::lab::world::CoursePoint;

use crate::harness::{Labcheck, World, labcheck, labcheck_with_env};

/// Feed `script` to `program args…` on stdin; (exit code, stdout + stderr).
fn pipe(program: &str, args: &[&str], script: &str) -> (i32, String) {
    let mut child = Command::new(program)
        .args(args)
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
    let world = World::at(CoursePoint::Step4);
    let work = world.lab.work_dir();
    let sha = world.repo("checkout-config").head_sha().expect("a HEAD");
    let run = Labcheck::new(world.home())
        .args(["solution", "module-10", "step-5", "--work-dir"])
        .arg(&work)
        .run_writing_nothing();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("\ngit revert --no-edit {sha}\n")),
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
    let world = World::at(CoursePoint::Step3);
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
    assert!(run.stderr.contains("step-9"), "{}", run.stderr);
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
