//! The bad-input catalogue (`docs/errors.md`): every case runs the real binary and asserts the
//! message says what is wrong and what to do, the documented exit code, that labcheck ended within a
//! bound (no hang), and that nothing was modified (every byte under HOME, the course and the work
//! repos is the same after the run).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use labcheck::lab::cluster::{self, Revisions};
use labcheck::serve::{self, ServeOptions};
use labcheck::snapshot::Snapshot;
use serde_json::Value;

use crate::harness::{Labcheck, Run, TestCourse, World, files_with_bytes};

mod table;

/// No case may take longer than this (a hang fails the test instead of stalling CI).
const LIMIT: Duration = Duration::from_secs(30);

/// A world, a test course and the bytes of both before anything ran.
struct Case {
    world: World,
    course: TestCourse,
}

impl Case {
    fn new(point: &str, checks: &str) -> Case {
        Case {
            world: World::at(point),
            course: TestCourse::new(&[("step-1", checks)]),
        }
    }

    fn repo(&self, name: &str) -> PathBuf {
        self.world.repo(name).path().to_path_buf()
    }

    fn git(&self, repo: &str, args: &[&str]) -> String {
        self.world
            .repo(repo)
            .git(args)
            .unwrap_or_else(|e| panic!("git {args:?}: {e}"))
    }

    fn course_file(&self, relative: &str) -> PathBuf {
        self.course.path().join(relative)
    }

    /// `labcheck --course-dir C module-t step-1 --format json --no-wait EXTRA`, asserting nothing
    /// under HOME or the course changed and that it ended within [`LIMIT`].
    fn run(&self, extra: &[&str]) -> Run {
        let mut args: Vec<String> = [
            "--course-dir",
            &self.course.path().display().to_string(),
            "module-t",
            "step-1",
            "--format",
            "json",
            "--no-wait",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        self.run_args(&args)
    }

    fn run_args(&self, args: &[String]) -> Run {
        self.labcheck()
            .args(args)
            .limit(LIMIT)
            .watching(&self.course.path())
            .run_writing_nothing()
    }

    /// The binary with this case's HOME (every run of the catalogue starts here).
    fn labcheck(&self) -> Labcheck {
        Labcheck::new(self.world.home())
    }
}

fn text<'a>(check: &'a Value, field: &str) -> &'a str {
    check[field].as_str().unwrap_or("")
}

/// The check's verdict in `run`: its status, the exit code, and the words each field says.
fn assert_check(run: &Run, status: &str, code: i32, says: &[(&str, &str)]) {
    let check = run.check("the-check");
    assert_eq!(check["status"], status, "{check:#}");
    for (field, words) in says {
        assert!(text(&check, field).contains(words), "{field}: {check:#}");
    }
    assert_eq!(run.code, code, "{check:#}");
}

/// The check could not check (`error`, exit 3) and says `says`.
fn assert_cannot_check(run: &Run, says: &[(&str, &str)]) {
    assert_check(run, "error", 3, says);
}

/// A course error: exit 2, `labcheck: FILE:LINE:COL: …` naming `file` and holding every one of
/// `words`, an empty stdout.
fn assert_course_error(run: &Run, file: &str, words: &[&str]) {
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.starts_with("labcheck: "), "{}", run.stderr);
    assert!(run.stderr.contains(file), "names {file}: {}", run.stderr);
    for word in words {
        assert!(run.stderr.contains(word), "says `{word}`: {}", run.stderr);
    }
}

const GIT_CHECK: &str = "  - id: the-check\n    title: \"checkout-config: on main, clean, pushed\"\n    git: {repo: checkout-config, branch: main, clean: true, pushed: true}\n";

const VALUE_CHECK: &str = "  - id: the-check\n    title: \"migration is on\"\n    yaml_value: {repo: checkout-config, file: helm/dev.yaml, path: migration.enabled, equals: true}\n";

// ---------------------------------------------------------------------------------------------
// Check files (exit 2, `file:line:col`)

/// A check file a course author got wrong: (what is wrong, the point, the checks, where the
/// message must point, what it must say).
const BROKEN_CHECK_FILES: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        "a step file that is not yaml names its line and column",
        "fresh",
        "  - id: a\n    title: \"never closed\n    git: {repo: checkout-config}\n",
        "step-1.yaml:7:1",
        &["while scanning a quoted scalar"],
    ),
    (
        "a field of the wrong type says what was expected",
        "fresh",
        "  - id: a\n    title: \"two files\"\n    files: {repo: checkout-config, glob: \"helm/*.yaml\", min_count: many}\n",
        "step-1.yaml:6:",
        &["invalid type", "expected"],
    ),
    (
        "an unknown check kind lists the kinds there are",
        "fresh",
        "  - id: a\n    title: \"typo\"\n    gti: {repo: checkout-config, pushed: true}\n",
        "step-1.yaml:4:5",
        &["checks[0]: unknown field `gti`", "`git`", "`argocd_app`"],
    ),
    (
        "a bad regex is refused at its line",
        "fresh",
        "  - id: a\n    title: \"message\"\n    git: {repo: checkout-config, head_message: \"^checkout: (6.7\"}\n",
        "step-1.yaml:6:",
        &["head_message", "is not a valid regex", "unclosed group"],
    ),
    (
        "a reference outside the course is refused",
        "step-1",
        "  - id: the-check\n    title: \"values as the reference\"\n    diff: {repo: argocd-platform, file: argocd/values.yaml, reference: {expected: ../../../../etc/passwd}, mode: text}\n",
        "step-1.yaml:6:",
        &[
            "`expected: ../../../../etc/passwd` leaves the folder",
            "without `..`",
        ],
    ),
    (
        "a file outside the repo is refused",
        "fresh",
        "  - id: the-check\n    title: \"outside\"\n    yaml_value: {repo: checkout-config, file: ../argocd-platform/argocd/values.yaml, path: a, present: true}\n",
        "step-1.yaml:",
        &["`file: ../argocd-platform/argocd/values.yaml` leaves the folder"],
    ),
    (
        "a check that would read a secret value is refused",
        "fresh",
        "  - id: the-check\n    title: \"the password\"\n    object: {api: v1, kind: Secret, namespace: checkout-dev, name: db,\n             field: {path: data.password, equals: c2VjcmV0}}\n",
        "step-1.yaml:4:5",
        &["never reads Secret data", "present: true"],
    ),
];

#[test]
fn every_broken_check_file_is_refused_at_its_file_line_and_column_saying_what_is_wrong() {
    for (what, point, checks, at, words) in BROKEN_CHECK_FILES {
        let case = Case::new(point, checks);
        let run = case.run(&[]);
        assert_eq!(run.code, 2, "{what}: {}", run.stderr);
        assert_course_error(&run, at, words);
    }
}

#[test]
fn an_unknown_key_in_module_yaml_is_refused_at_its_line() {
    let case = Case::new("fresh", GIT_CHECK);
    let manifest = case.course_file("modules/module-t/module.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap_or_default();
    std::fs::write(&manifest, format!("{text}colour: red\n")).unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_course_error(
        &run,
        "module.yaml:",
        &["unknown field `colour`", "expected one of"],
    );
}

#[test]
fn a_step_that_does_not_exist_lists_the_steps_there_are() {
    let case = Case::new("fresh", GIT_CHECK);
    let args: Vec<String> = [
        "--course-dir",
        &case.course.path().display().to_string(),
        "module-t",
        "step-9",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let run = case.run_args(&args);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("module `module-t` has no step `step-9`; available: step-1"),
        "{}",
        run.stderr
    );
    run.assert_stderr_has(&["labcheck list"]);
}

#[test]
fn a_step_listed_in_module_yaml_without_its_file_is_named() {
    let case = Case::new("fresh", GIT_CHECK);
    std::fs::remove_file(case.course_file("modules/module-t/step-1.yaml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("step-1.yaml") && run.stderr.contains("No such file"),
        "{}",
        run.stderr
    );
    run.assert_stderr_has(&["--course-dir"]);
}

#[test]
fn a_missing_reference_file_is_could_not_check_naming_it() {
    let case = Case::new(
        "step-1",
        "  - id: the-check\n    title: \"values as the reference\"\n    diff: {repo: argocd-platform, file: argocd/values.yaml, reference: {expected: argocd-values.yaml}, mode: yaml}\n",
    );
    let run = case.run(&[]);
    assert_cannot_check(&run, &[("summary", "argocd-values.yaml")]);
}

#[test]
fn a_check_file_of_another_format_version_says_to_update() {
    let case = Case::new("fresh", GIT_CHECK);
    let step = case.course_file("modules/module-t/step-1.yaml");
    let text = std::fs::read_to_string(&step).unwrap_or_default();
    std::fs::write(&step, text.replace("labcheck/v1", "labcheck/v9"))
        .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_course_error(
        &run,
        "step-1.yaml",
        &["format: labcheck/v9", "update labcheck or the file"],
    );
}

#[test]
fn a_course_dir_without_modules_is_a_usage_error() {
    let case = Case::new("fresh", GIT_CHECK);
    let empty = case.world.home().join("not-a-course");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let args: Vec<String> = ["list", "--course-dir", &empty.display().to_string()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let run = case.run_args(&args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("is not a course folder: it has no modules/ folder"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// Work repos

#[test]
fn a_missing_repo_cannot_be_checked_and_says_how_to_get_it() {
    let case = Case::new("fresh", GIT_CHECK);
    std::fs::remove_dir_all(case.repo("checkout-config")).unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_cannot_check(
        &run,
        &[("summary", "does not exist"), ("hint", "git clone")],
    );
}

#[test]
fn a_folder_that_is_not_a_git_repo_cannot_be_checked() {
    let case = Case::new("fresh", GIT_CHECK);
    std::fs::remove_dir_all(case.repo("checkout-config").join(".git"))
        .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_cannot_check(&run, &[("summary", "is not a git repository")]);
    let check = run.check("the-check");
    assert!(!text(&check, "hint").is_empty(), "{check:#}");
}

#[test]
fn a_corrupt_git_repo_cannot_be_checked() {
    let case = Case::new("fresh", GIT_CHECK);
    std::fs::write(case.repo("checkout-config").join(".git/HEAD"), "garbage\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_cannot_check(&run, &[("summary", "cannot read the git repository")]);
}

#[test]
fn a_detached_head_fails_with_a_hint_to_switch_to_main() {
    let case = Case::new("step-2", GIT_CHECK);
    case.git(
        "checkout-config",
        &["switch", "--quiet", "--detach", "HEAD~1"],
    );
    let run = case.run(&[]);
    assert_check(
        &run,
        "fail",
        1,
        &[("summary", "detached"), ("hint", "git switch main")],
    );
}

/// A commit on main and one on `side` that change `conflict.txt` differently.
fn conflicting_branches(case: &Case) {
    let repo = case.world.repo("checkout-config");
    let fail = |e| panic!("{e}");
    repo.write("conflict.txt", "main\n").unwrap_or_else(fail);
    repo.commit_written("main's line").unwrap_or_else(fail);
    case.git(
        "checkout-config",
        &["switch", "--quiet", "-c", "side", "HEAD~1"],
    );
    repo.write("conflict.txt", "side\n").unwrap_or_else(fail);
    repo.commit_written("side's line").unwrap_or_else(fail);
    case.git("checkout-config", &["switch", "--quiet", "main"]);
}

#[test]
fn a_rebase_or_merge_stopped_by_a_conflict_fails_with_continue_or_abort() {
    // What stopped; how to go on, the conflicted file marked resolved by name (nothing else is
    // added); how to give up.
    for (stopped, go_on, give_up) in [
        (
            "rebase",
            "git add -- conflict.txt && git rebase --continue",
            "git rebase --abort",
        ),
        (
            "merge",
            "git add -- conflict.txt && git commit --no-edit",
            "git merge --abort",
        ),
    ] {
        let case = Case::new("step-2", GIT_CHECK);
        conflicting_branches(&case);
        assert!(
            case.world
                .repo("checkout-config")
                .git(&[stopped, "side"])
                .is_err(),
            "the {stopped} stops"
        );
        let run = case.run(&[]);
        let check = run.check("the-check");
        assert_eq!(check["status"], "fail", "{check:#}");
        assert!(text(&check, "summary").contains(stopped), "{check:#}");
        let hint = text(&check, "hint");
        assert!(hint.contains(go_on) && hint.contains(give_up), "{check:#}");
        assert_eq!(run.code, 1);
    }
}

/// Replace the learner's clone of checkout-config by a `--depth 1` clone of its remote.
fn shallow_clone(case: &Case) {
    let repo = case.repo("checkout-config");
    let origin = case.git("checkout-config", &["remote", "get-url", "origin"]);
    // The lab's clones name their remote relative to themselves.
    let origin = std::fs::canonicalize(repo.join(origin.trim())).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_dir_all(&repo).unwrap_or_else(|e| panic!("{e}"));
    let status = Command::new("git")
        .args(["clone", "--quiet", "--depth", "1"])
        .arg(format!("file://{}", origin.display()))
        .arg(&repo)
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(status.success());
}

#[test]
fn a_shallow_clone_passes_what_it_can_see() {
    let case = Case::new("step-2", GIT_CHECK);
    shallow_clone(&case);
    let run = case.run(&[]);
    assert_eq!(run.check("the-check")["status"], "pass", "{}", run.stdout);
    assert_eq!(run.code, 0);
}

#[test]
fn a_shallow_clone_without_the_history_a_check_needs_is_not_a_verdict() {
    let case = Case::new(
        "step-2",
        "  - id: the-check\n    title: \"the fresh commit is there\"\n    git: {repo: checkout-config, has_commit: \"^checkout: migration and smoke test in dev$\"}\n  - id: older\n    title: \"an older commit is there\"\n    git: {repo: checkout-config, has_commit: \"^checkout-config: as the earlier modules left it$\"}\n",
    );
    let before = case.git("checkout-config", &["log", "--format=%s"]);
    shallow_clone(&case);
    let run = case.run(&[]);
    assert_eq!(run.check("the-check")["status"], "pass", "{}", run.stdout);
    let older = run.check("older");
    // An older commit is cut off by the shallow clone: labcheck cannot tell, so no fail.
    assert_eq!(
        older["status"], "error",
        "{older:#}\nhistory was:\n{before}"
    );
    assert!(text(&older, "summary").contains("shallow"), "{older:#}");
    assert!(
        text(&older, "hint").contains("git fetch --unshallow"),
        "{older:#}"
    );
    assert_eq!(run.code, 3);
}

#[test]
fn no_origin_remote_fails_with_a_hint_to_add_it() {
    let case = Case::new("step-2", GIT_CHECK);
    case.git("checkout-config", &["remote", "remove", "origin"]);
    let run = case.run(&[]);
    assert_check(
        &run,
        "fail",
        1,
        &[
            ("summary", "has no remote `origin`"),
            ("hint", "git remote add origin"),
        ],
    );
}

#[test]
fn never_pushed_fails_with_a_hint_to_push_with_upstream() {
    let case = Case::new("step-2", GIT_CHECK);
    case.git("checkout-config", &["branch", "--unset-upstream"]);
    case.git(
        "checkout-config",
        &["update-ref", "-d", "refs/remotes/origin/main"],
    );
    let run = case.run(&[]);
    assert_check(&run, "fail", 1, &[("hint", "git push -u origin main")]);
}

#[test]
fn an_unborn_branch_fails_with_a_hint_to_commit() {
    let case = Case::new("fresh", GIT_CHECK);
    let repo = case.repo("checkout-config");
    std::fs::remove_dir_all(&repo).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(&repo).unwrap_or_else(|e| panic!("{e}"));
    let status = Command::new("git")
        .args(["-c", "init.defaultBranch=main", "init", "--quiet"])
        .current_dir(&repo)
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(status.success());
    let run = case.run(&[]);
    assert_check(&run, "fail", 1, &[("hint", "git commit")]);
}

#[test]
fn a_values_file_that_is_not_utf8_fails_naming_it() {
    let case = Case::new("step-2", VALUE_CHECK);
    std::fs::write(
        case.repo("checkout-config").join("helm/dev.yaml"),
        b"migration:\n  enabled: \xff\xfe\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_check(
        &run,
        "fail",
        1,
        &[("summary", "UTF-8"), ("summary", "helm/dev.yaml")],
    );
}

#[test]
fn a_symlink_out_of_the_work_dir_is_not_followed() {
    let case = Case::new("step-2", VALUE_CHECK);
    let outside = case.world.home().join("outside.yaml");
    std::fs::write(&outside, "migration: {enabled: true}\n").unwrap_or_else(|e| panic!("{e}"));
    let file = case.repo("checkout-config").join("helm/dev.yaml");
    std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&outside, &file).unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_cannot_check(
        &run,
        &[
            ("summary", "helm/dev.yaml"),
            ("summary", "leaves the repo"),
            ("hint", "inside the repo"),
        ],
    );
}

#[test]
fn a_50_mb_values_file_is_not_read() {
    let case = Case::new("step-2", VALUE_CHECK);
    let mut big = String::from("migration:\n  enabled: true\n");
    let line = "# padding padding padding padding padding padding padding padding padding\n";
    while big.len() < 50 * 1024 * 1024 {
        big.push_str(line);
    }
    std::fs::write(case.repo("checkout-config").join("helm/dev.yaml"), big)
        .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_cannot_check(
        &run,
        &[
            ("summary", "labcheck reads files up to 5242880 bytes"),
            ("hint", "a few kilobytes"),
        ],
    );
}

#[test]
fn a_yaml_alias_bomb_is_refused_not_expanded() {
    let case = Case::new("step-2", VALUE_CHECK);
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    bomb.push_str("migration: {enabled: true}\n");
    std::fs::write(case.repo("checkout-config").join("helm/dev.yaml"), bomb)
        .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&[]);
    assert_cannot_check(&run, &[("summary", "alias"), ("hint", "write the values")]);
}

#[test]
fn a_work_dir_that_does_not_exist_cannot_be_checked() {
    let case = Case::new("fresh", GIT_CHECK);
    let run = case.run(&["--work-dir", "/nonexistent/labcheck-work"]);
    assert_cannot_check(
        &run,
        &[
            ("summary", "/nonexistent/labcheck-work/checkout-config"),
            ("hint", "git clone"),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// The cluster (exit 3, within a few seconds)

const CLUSTER_CHECKS: &str = r#"  - id: health-key
    title: "argocd-cm has the Application health check"
    object: {api: v1, kind: ConfigMap, namespace: argocd, name: argocd-cm,
             field: {path: 'data["resource.customizations.health.argoproj.io_Application"]', present: true}}
  - id: app
    title: "checkout-dev is synced"
    argocd_app: {name: checkout-dev, sync: Synced}
"#;

const LOG_CHECK: &str = r#"  - id: migrate-log
    title: "the migration logged its failure"
    logs: {namespace: checkout-dev, job: checkout-migrate, contains: "migration failed"}
"#;

/// A diff check against the course's reference `values` (under expected/kind/module-t/).
const DIFF_CHECK: &str = r#"  - id: the-check
    title: "the values are the reference's"
    diff: {repo: checkout-config, file: helm/dev.yaml, reference: {expected: values}}
"#;

/// A diff check whose reference in a work repo is the folder `helm`.
const DIFF_REPO_CHECK: &str = r#"  - id: the-check
    title: "the values are the reference's"
    diff: {repo: checkout-config, file: helm/dev.yaml, reference: {repo: checkout-config, file: helm}}
"#;

/// A logs check the endless log of `Misbehave::EndlessLogs` satisfies from its first line.
const LOG_STREAM_CHECK: &str = r#"  - id: migrate-log
    title: "the migration logged its progress"
    logs: {namespace: checkout-dev, job: checkout-migrate, matches: "still running, line [0-9]+"}
"#;

/// A runtime for the in-process servers (the binary runs as a child process).
use crate::harness::{runtime, serve_on as serve};

/// Write a kubeconfig for `url` into HOME (so the no-write assertion covers it) and return its path.
fn kubeconfig(case: &Case, url: &str) -> String {
    let path = case.world.home().join("kubeconfig");
    serve::write_kubeconfig(&path, url, "lab").unwrap_or_else(|e| panic!("{e}"));
    path.display().to_string()
}

/// Run the cluster checks against `url`; every check must be `error` with `words` in its summary.
fn assert_cluster_error(case: &Case, url: &str, words: &[&str], hint: &str) -> Duration {
    let config = kubeconfig(case, url);
    let started = Instant::now();
    let run = case.run(&["--kubeconfig", &config]);
    let elapsed = started.elapsed();
    for id in ["health-key", "app"] {
        let check = run.check(id);
        assert_eq!(check["status"], "error", "never a verdict: {check:#}");
        for word in words {
            assert!(
                text(&check, "summary").contains(word),
                "`{word}`: {check:#}"
            );
        }
        assert!(text(&check, "hint").contains(hint), "`{hint}`: {check:#}");
    }
    assert_eq!(run.code, 3);
    elapsed
}

/// A TCP server on loopback that answers every connection with `answer` (then closes), or with
/// nothing at all (holds the connection open) when `answer` is `None`. Stops with the test process.
fn raw_server(answer: Option<&'static [u8]>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    std::thread::spawn(move || {
        let mut held = Vec::new();
        // Bounded: a run makes a handful of connections.
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = stream.read(&mut request);
            match answer {
                Some(bytes) => {
                    let _ = stream.write_all(bytes);
                }
                None => held.push(stream),
            }
        }
    });
    format!("http://{addr}")
}

#[test]
fn no_kubeconfig_at_the_given_path_says_where_it_looked() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let run = case.run(&["--kubeconfig", "/nonexistent/kubeconfig"]);
    let check = run.check("health-key");
    assert_eq!(check["status"], "error");
    assert!(
        text(&check, "summary").contains("no kubeconfig at /nonexistent/kubeconfig"),
        "{check:#}"
    );
    assert!(text(&check, "hint").contains("--kubeconfig"), "{check:#}");
    assert_eq!(run.code, 3);
}

#[test]
fn a_malformed_kubeconfig_is_named_with_how_to_get_a_good_one() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let path = case.world.home().join("kubeconfig");
    std::fs::write(&path, "clusters: [this is: not: a kubeconfig\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&["--kubeconfig", &path.display().to_string()]);
    let check = run.check("health-key");
    assert_eq!(check["status"], "error");
    assert!(
        text(&check, "summary").contains("cannot read the kubeconfig"),
        "{check:#}"
    );
    assert!(
        text(&check, "hint").contains("kind get kubeconfig"),
        "{check:#}"
    );
    assert_eq!(run.code, 3);
}

#[test]
fn a_closed_port_is_could_not_check_within_seconds() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("{e}"));
    let elapsed = assert_cluster_error(
        &case,
        &format!("http://127.0.0.1:{port}"),
        &["cannot reach the Kubernetes API"],
        "",
    );
    assert!(elapsed < Duration::from_secs(12), "{elapsed:?}");
}

#[test]
fn a_server_that_never_answers_times_out_within_seconds() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let url = raw_server(None);
    let elapsed = assert_cluster_error(&case, &url, &["cannot reach the Kubernetes API"], "");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

/// Step 1's solved cluster served on `rt`, every read answered with `status`.
fn solved_step_1_failing(
    case: &Case,
    rt: &tokio::runtime::Runtime,
    status: u16,
) -> labcheck::serve::RunningServer {
    let revs = Revisions::of_world(&case.world.lab).unwrap_or_else(|e| panic!("{e}"));
    serve(
        rt,
        cluster::solved("step-1", &revs).expect("a fixture state"),
        ServeOptions {
            fail_with: Some(status),
            ..ServeOptions::default()
        },
    )
}

#[test]
fn a_server_error_is_could_not_check() {
    let case = Case::new("step-1", CLUSTER_CHECKS);
    let rt = runtime();
    let server = solved_step_1_failing(&case, &rt, 500);
    assert_cluster_error(&case, &server.url(), &["answered 500"], "");
}

#[test]
fn expired_credentials_say_to_fetch_a_fresh_kubeconfig() {
    let case = Case::new("step-1", CLUSTER_CHECKS);
    let rt = runtime();
    let server = serve(
        &rt,
        Snapshot::new(),
        ServeOptions {
            fail_with: Some(401),
            ..ServeOptions::default()
        },
    );
    assert_cluster_error(
        &case,
        &server.url(),
        &["did not accept your credentials"],
        "kind export kubeconfig",
    );
}

#[test]
fn forbidden_names_what_may_not_be_read_and_how_to_ask() {
    let case = Case::new("step-1", CLUSTER_CHECKS);
    let rt = runtime();
    let server = solved_step_1_failing(&case, &rt, 403);
    assert_cluster_error(&case, &server.url(), &["forbidden"], "kubectl auth can-i");
}

#[test]
fn argo_cd_not_installed_is_could_not_check() {
    let case = Case::new("step-1", CLUSTER_CHECKS);
    let rt = runtime();
    let server = serve(
        &rt,
        cluster::argo_cd_missing("module-10").expect("a fixture state"),
        ServeOptions::default(),
    );
    let config = kubeconfig(&case, &server.url());
    let run = case.run(&["--kubeconfig", &config]);
    let app = run.check("app");
    assert_eq!(app["status"], "error", "{app:#}");
    assert!(
        text(&app, "summary").contains("applications.argoproj.io) is not installed"),
        "{app:#}"
    );
    assert!(!text(&app, "hint").is_empty(), "{app:#}");
    assert_eq!(run.code, 3);
}

#[test]
fn a_server_answering_html_is_not_a_kubernetes_api() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let url = raw_server(Some(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 27\r\nConnection: close\r\n\r\n<html>login required</html>",
    ));
    assert_cluster_error(&case, &url, &["not"], "not a Kubernetes API");
}

#[test]
fn a_server_answering_with_bytes_that_are_not_http_is_could_not_check() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let url = raw_server(Some(b"\x16\x03\x01 this is not HTTP at all\r\n\r\n"));
    assert_cluster_error(&case, &url, &["cannot reach the Kubernetes API"], "");
}

#[test]
fn a_bundle_file_that_is_not_a_bundle_is_refused_with_what_it_is() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let path = case.world.home().join("bundle.tar.zst");
    std::fs::write(&path, "format: labcheck-snapshot/v1\n").unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&["--bundle", &path.display().to_string()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot read the bundle") && run.stderr.contains("not zstd-compressed"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn a_snapshot_file_that_is_not_a_snapshot_says_how_to_fix_it() {
    let case = Case::new("fresh", CLUSTER_CHECKS);
    let path = case.world.home().join("cluster.yaml");
    std::fs::write(
        &path,
        "format: labcheck-snapshot/v1\nobjects: {not: a list}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let run = case.run(&["--snapshot", &path.display().to_string()]);
    let check = run.check("health-key");
    assert_eq!(check["status"], "error", "{check:#}");
    assert!(
        text(&check, "summary").contains("cannot use the snapshot"),
        "{check:#}"
    );
    assert!(
        text(&check, "hint").contains("labcheck snapshot"),
        "{check:#}"
    );
    assert_eq!(run.code, 3);
}

/// Step 4's solved cluster with the migration pod's log replaced by `log`.
fn with_migrate_log(revs: &Revisions, log: &str) -> Snapshot {
    let mut snapshot = cluster::solved("step-4", revs).expect("a fixture state");
    let key = snapshot
        .logs
        .keys()
        .find(|k| k.starts_with("checkout-dev/checkout-migrate"))
        .cloned()
        .unwrap_or_else(|| panic!("no migrate log in {:?}", snapshot.logs.keys()));
    snapshot.logs.insert(key, log.to_string());
    snapshot
}

/// About 20 MB of log lines, then `last`.
fn huge_log(last: &str) -> String {
    let line = "migrate: applying change set, nothing to report yet, still going fine\n";
    let mut log = String::with_capacity(21 * 1024 * 1024);
    while log.len() < 20 * 1024 * 1024 {
        log.push_str(line);
    }
    log.push_str(last);
    log
}

#[test]
fn a_pod_log_of_many_megabytes_is_read_bounded_and_its_tail_shown() {
    let case = Case::new("step-4", LOG_CHECK);
    let rt = runtime();
    let revs = Revisions::of_world(&case.world.lab).unwrap_or_else(|e| panic!("{e}"));

    // The line at the end is found.
    let server = serve(
        &rt,
        with_migrate_log(&revs, &huge_log("migration failed: column exists\n")),
        ServeOptions::default(),
    );
    let config = kubeconfig(&case, &server.url());
    let run = case.run(&["--kubeconfig", &config]);
    assert_eq!(run.check("migrate-log")["status"], "pass", "{}", run.stdout);
    assert!(run.stdout.len() < 64 * 1024, "the report stays small");
    drop(server);

    // Not in the tail: labcheck read only the tail, so it cannot say the line is not there.
    let server = serve(
        &rt,
        with_migrate_log(&revs, &huge_log("the very last line\n")),
        ServeOptions::default(),
    );
    let config = kubeconfig(&case, &server.url());
    let run = case.run(&["--kubeconfig", &config]);
    let check = run.check("migrate-log");
    assert_eq!(check["status"], "error", "{check:#}");
    assert!(
        text(&check, "summary").contains("too long to read whole"),
        "{check:#}"
    );
    assert!(text(&check, "hint").contains("kubectl -n checkout-dev logs job/checkout-migrate"));
    assert!(
        text(&check, "detail").ends_with("the very last line"),
        "{check:#}"
    );
    assert!(run.stdout.len() < 64 * 1024, "the report stays small");
    assert_eq!(run.code, 3);
}

#[test]
fn ctrl_c_while_waiting_ends_cleanly_with_exit_130() {
    let case = Case::new(
        "step-4",
        "  - id: sync-failed\n    title: \"the sync of your push failed\"\n    argocd_app: {name: checkout-dev, phase: [Failed, Error]}\n",
    );
    let rt = runtime();
    let revs = Revisions::of_world(&case.world.lab).unwrap_or_else(|e| panic!("{e}"));
    let server = serve(
        &rt,
        cluster::state("step-4-sync-running", &revs).expect("a fixture state"),
        ServeOptions::default(),
    );
    let config = kubeconfig(&case, &server.url());
    let before = files_with_bytes(case.world.home());
    let labcheck = case
        .labcheck()
        .args([
            "--course-dir",
            &case.course.path().display().to_string(),
            "module-t",
            "step-1",
            "--wait",
            "5m",
            "--kubeconfig",
            &config,
        ])
        .limit(LIMIT)
        .spawn();
    let started = Instant::now();
    // Let it reach the waiting loop (the running sync keeps it there), then press Ctrl-C.
    while server.requests.entries().len() < 2 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1500));
    labcheck.interrupt();
    let stopped = labcheck.wait_within(Duration::from_secs(5));
    let (status, stdout, stderr) = (stopped.code, stopped.stdout, stopped.stderr);
    assert_eq!(status, 130, "{stderr}");
    assert!(stderr.contains("interrupted (Ctrl-C)"), "{stderr}");
    assert!(stderr.contains("nothing was changed"), "{stderr}");
    assert!(stdout.is_empty(), "no half report: {stdout}");
    assert!(server.requests.writes().is_empty());
    assert!(before == files_with_bytes(case.world.home()));
}
