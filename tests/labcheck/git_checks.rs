//! The `git` check kind on real lab worlds: what a learner did, and what labcheck says.

use crate::harness::{lab_commit, lab_file};

use crate::harness::{TestCourse, World, files_with_bytes};

/// One step with one git check on `repo` with the given condition lines (YAML, 6-space indent).
fn one_check(repo: &str, conditions: &str) -> TestCourse {
    TestCourse::new(&[(
        "step-1",
        &format!(
            "  - id: the-check\n    title: \"the git check\"\n    git:\n      repo: {repo}\n{conditions}"
        ),
    )])
}

fn run_json(world: &World, course: &TestCourse) -> crate::harness::Run {
    world.labcheck(course, &["module-t", "step-1", "--format", "json"])
}

/// The JSON report run from `home` on a work dir somewhere else.
fn run_json_from(
    home: &std::path::Path,
    course: &TestCourse,
    work: &std::path::Path,
) -> crate::harness::Run {
    crate::harness::labcheck(
        home,
        &[
            "--course-dir",
            course.path().to_str().unwrap(),
            "module-t",
            "step-1",
            "--format",
            "json",
            "--work-dir",
            work.to_str().unwrap(),
        ],
    )
}

/// A check's text field (`summary`, `hint`).
fn text<'a>(check: &'a serde_json::Value, field: &str) -> &'a str {
    check[field]
        .as_str()
        .unwrap_or_else(|| panic!("`{field}` is not text: {check:#}"))
}

/// Step 5 as the course's recovery: every condition the kind has, on the solved world.
const SOLVED_STEP_5: &str = r#"  - id: on-main
    title: "checkout-config is on main, clean and pushed"
    git: { repo: checkout-config, branch: main, clean: true, pushed: true }
  - id: reverted
    title: "the broken release is reverted"
    git:
      repo: checkout-config
      undoes: { file: helm/dev.yaml, path: migration.fail, equals: true, step: step-4 }
  - id: hooks-commit
    title: "the hooks commit is pushed"
    git: { repo: checkout-config, has_commit: "^checkout: migration and smoke test in dev$" }
  - id: dev-touched
    title: "dev.yaml changed since step 2"
    git:
      repo: checkout-config
      touched: { path: helm/dev.yaml, since: "^checkout: migration and smoke test" }
  - id: platform
    title: "step 1's commit is pushed"
    git: { repo: argocd-platform, pushed: true, head_message: "^Argo CD: health status for Applications$" }
"#;

#[test]
fn reverting_the_broken_release_and_pushing_passes_every_git_condition() {
    let world = World::at("step-5");
    let course = TestCourse::new(&[("step-1", SOLVED_STEP_5)]);
    let run = run_json(&world, &course);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let json = run.json();
    assert_eq!(json["status"], "pass");
    for check in json["checks"].as_array().unwrap() {
        assert_eq!(check["status"], "pass", "{check:#}");
        assert_eq!(check["kind"], "git");
    }
    let head = world.repo("checkout-config").head_sha().unwrap();
    let reverted = run.check("reverted");
    assert!(
        reverted["summary"].as_str().unwrap().contains(&head[..7]),
        "{reverted:#}"
    );
}

#[test]
fn committed_but_not_pushed_fails_with_a_hint_to_push() {
    let world = World::in_state("step-1", "not-pushed");
    let course = one_check("argocd-platform", "      pushed: true\n");
    let run = run_json(&world, &course);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail");
    assert_eq!(
        check["summary"],
        "main is 1 commit ahead of origin/main: committed but not pushed"
    );
    assert_eq!(check["hint"], "cd ~/work/argocd-platform && git push");
    assert_eq!(check["actual"], "1 commit ahead");
}

#[test]
fn pulled_nothing_after_a_teammate_pushed_fails_with_a_hint_to_pull() {
    let world = World::at("step-2");
    let repo = world.repo("checkout-config");
    repo.git(&["reset", "--quiet", "--hard", "HEAD~1"]).unwrap();
    let run = run_json(
        &world,
        &one_check("checkout-config", "      pushed: true\n"),
    );
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail");
    assert_eq!(check["hint"], "cd ~/work/checkout-config && git pull");

    repo.write("notes.txt", "local\n").unwrap();
    repo.commit_written("local work").unwrap();
    let run = run_json(
        &world,
        &one_check("checkout-config", "      pushed: true\n"),
    );
    let check = run.check("the-check");
    assert_eq!(
        check["hint"],
        "cd ~/work/checkout-config && git pull --rebase && git push"
    );
    assert_eq!(check["actual"], "1 ahead, 1 behind");
}

#[test]
fn editing_without_committing_fails_on_the_tracked_change_only_and_adds_it_by_name() {
    let world = World::at("step-1");
    let repo = world.repo("checkout-config");
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-2", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    for i in 0..6 {
        repo.write(&format!("scratch-{i}.txt"), "x\n").unwrap();
    }
    let run = run_json(&world, &one_check("checkout-config", "      clean: true\n"));
    assert_eq!(run.code, 1);
    let check = run.check("the-check");
    assert_eq!(
        check["summary"],
        "~/work/checkout-config has 1 uncommitted change: helm/dev.yaml"
    );
    assert_eq!(
        check["hint"],
        "cd ~/work/checkout-config && git add -- helm/dev.yaml && git commit -m \"…\" (or undo what you did not mean to change)"
    );
    let note = text(&check, "note");
    assert!(
        note.contains("scratch-0.txt") && note.contains("scratch-5.txt"),
        "{note}"
    );
}

#[test]
fn staged_files_count_and_more_than_five_are_all_in_the_detail() {
    let world = World::at("step-1");
    let repo = world.repo("checkout-config");
    for i in 0..6 {
        repo.write(&format!("scratch-{i}.txt"), "x\n").unwrap();
    }
    repo.git(&[
        "add",
        "--",
        "scratch-0.txt",
        "scratch-1.txt",
        "scratch-2.txt",
        "scratch-3.txt",
        "scratch-4.txt",
        "scratch-5.txt",
    ])
    .unwrap();
    let run = run_json(&world, &one_check("checkout-config", "      clean: true\n"));
    assert_eq!(run.code, 1);
    let check = run.check("the-check");
    assert_eq!(
        check["summary"],
        "~/work/checkout-config has 6 uncommitted changes: scratch-0.txt, scratch-1.txt, scratch-2.txt, scratch-3.txt, scratch-4.txt and 1 more"
    );
    assert!(text(&check, "detail").contains("scratch-5.txt"));
    assert!(
        text(&check, "hint").contains("git add -- scratch-0.txt scratch-1.txt"),
        "{check:#}"
    );
}

#[test]
fn working_on_another_branch_fails_with_a_hint_to_switch_to_main() {
    let world = World::at("step-2");
    world
        .repo("checkout-config")
        .git(&["switch", "--quiet", "-c", "my-fix"])
        .unwrap();
    let run = run_json(
        &world,
        &one_check("checkout-config", "      branch: main\n"),
    );
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail");
    assert_eq!(
        check["summary"],
        "~/work/checkout-config is on branch my-fix, not main"
    );
    assert_eq!(
        check["hint"],
        "cd ~/work/checkout-config && git switch main"
    );
}

#[test]
fn a_detached_head_fails_with_a_hint_to_switch_to_main() {
    let world = World::at("step-2");
    let repo = world.repo("checkout-config");
    repo.git(&["switch", "--quiet", "--detach", "HEAD~1"])
        .unwrap();
    let run = run_json(
        &world,
        &one_check(
            "checkout-config",
            "      branch: main\n      pushed: true\n",
        ),
    );
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail");
    assert!(
        text(&check, "summary").contains("HEAD is detached at"),
        "{check:#}"
    );
    assert_eq!(
        check["hint"],
        "cd ~/work/checkout-config && git switch main"
    );
}

#[test]
fn a_revert_stopped_by_a_conflict_fails_with_continue_or_abort() {
    let world = World::at("step-4");
    let repo = world.repo("checkout-config");
    repo.git(&["revert", "--no-commit", "HEAD"]).unwrap();
    let run = run_json(
        &world,
        &one_check("checkout-config", "      branch: main\n"),
    );
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail");
    assert!(text(&check, "summary").contains("a revert is in progress"));
    assert!(text(&check, "hint").contains("git revert --continue"));
}

/// The change step 5 undoes, as the course declares it.
const UNDOES_STEP_4: &str =
    "      undoes: { file: helm/dev.yaml, path: migration.fail, equals: true, step: step-4 }\n";

#[test]
fn not_reverting_yet_fails_with_a_hint_to_revert_the_release_commit() {
    let world = World::at("step-4");
    let release = world.repo("checkout-config").head_sha().unwrap();
    let run = run_json(&world, &one_check("checkout-config", UNDOES_STEP_4));
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert_eq!(
        check["hint"],
        format!(
            "cd ~/work/checkout-config && git revert --no-edit {} && git push",
            &release[..7]
        )
    );
}

#[test]
fn a_commit_that_only_says_revert_is_not_a_revert() {
    let world = World::at("step-4");
    let repo = world.repo("checkout-config");
    let bad = repo.head_sha().unwrap();
    repo.write("notes.txt", "we should revert\n").unwrap();
    repo.commit_written(&format!(
        "Revert \"{}\"\n\nThis reverts commit {bad}.",
        &lab_commit("step-4", "checkout-config")
    ))
    .unwrap();
    repo.push().unwrap();
    let conditions = format!("      pushed: true\n{UNDOES_STEP_4}");
    let run = run_json(&world, &one_check("checkout-config", &conditions));
    assert_eq!(run.code, 1);
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail");
    let summary = text(&check, "summary");
    assert!(summary.contains("still has `migration.fail`"), "{summary}");
    assert!(summary.contains(&bad[..7]), "{summary}");
    assert_eq!(
        check["hint"],
        format!(
            "cd ~/work/checkout-config && git revert --no-edit {} && git push",
            &bad[..7]
        )
    );
}

#[test]
fn a_step_commit_made_but_not_pushed_fails_has_commit_with_a_hint_to_push() {
    let world = World::in_state("step-2", "not-pushed");
    let course = one_check(
        "checkout-config",
        "      has_commit: \"^checkout: migration and smoke test in dev$\"\n",
    );
    let check = run_json(&world, &course).check("the-check");
    assert_eq!(check["status"], "fail");
    assert!(
        text(&check, "summary")
            .ends_with("is committed in ~/work/checkout-config but not pushed to origin/main")
    );
    assert_eq!(check["hint"], "cd ~/work/checkout-config && git push");

    world.repo("checkout-config").push().unwrap();
    let check = run_json(&world, &course).check("the-check");
    assert_eq!(check["status"], "pass", "{check:#}");
}

#[test]
fn a_step_never_committed_fails_has_commit_with_the_course_commit_command() {
    let world = World::at("step-1");
    let course = one_check(
        "checkout-config",
        "      has_commit: \"^checkout: migration and smoke test in dev$\"\n",
    );
    let check = run_json(&world, &course).check("the-check");
    assert_eq!(check["status"], "fail");
    assert_eq!(
        check["hint"],
        "make the step's change, then cd ~/work/checkout-config && git add -- <each file you changed, by name> && git commit -m \"checkout: migration and smoke test in dev\" && git push"
    );
}

#[test]
fn touched_passes_once_the_change_is_pushed_and_not_before() {
    let touched =
        "      touched: { path: helm/dev.yaml, since: \"^checkout: migration and smoke test\" }\n";
    let world = World::at("step-2");
    let check = run_json(&world, &one_check("checkout-config", touched)).check("the-check");
    assert_eq!(check["status"], "fail");
    assert!(
        text(&check, "summary").starts_with("no commit after"),
        "{check:#}"
    );

    let repo = world.repo("checkout-config");
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-4", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    let check = run_json(&world, &one_check("checkout-config", touched)).check("the-check");
    assert_eq!(check["actual"], "changed, not committed", "{check:#}");

    repo.commit_written(&lab_commit("step-4", "checkout-config"))
        .unwrap();
    let check = run_json(&world, &one_check("checkout-config", touched)).check("the-check");
    assert_eq!(check["actual"], "committed, not pushed", "{check:#}");
    assert_eq!(check["hint"], "cd ~/work/checkout-config && git push");

    repo.push().unwrap();
    let check = run_json(&world, &one_check("checkout-config", touched)).check("the-check");
    assert_eq!(check["status"], "pass", "{check:#}");
}

#[test]
fn a_missing_repo_cannot_be_checked_and_says_how_to_get_it() {
    let world = World::at("fresh");
    std::fs::remove_dir_all(world.repo("checkout-config").path()).unwrap();
    let run = run_json(
        &world,
        &one_check("checkout-config", "      pushed: true\n"),
    );
    assert_eq!(run.code, 3, "{}", run.stdout);
    let check = run.check("the-check");
    assert_eq!(check["status"], "error");
    assert_eq!(
        check["summary"],
        "checkout-config: labcheck looked in ~/work/checkout-config, and it does not exist"
    );
    assert_eq!(
        check["hint"],
        "get git clone <your Git server>/team-checkout/checkout-config.git ~/work/checkout-config"
    );
    assert_eq!(run.json()["status"], "error");
}

/// The same repo missing for a learner who keeps the course elsewhere (`--work-dir`): the way to
/// get it clones it into their folder, not into `~/work`.
#[test]
fn a_missing_repo_in_a_work_dir_of_the_learners_own_says_to_clone_it_there() {
    let home = tempfile::tempdir().expect("a home");
    let work = home.path().join("my course");
    std::fs::create_dir_all(&work).expect("the learner's work dir");
    let course = one_check("checkout-config", "      pushed: true\n");
    let run = run_json_from(home.path(), &course, &work);
    assert_eq!(run.code, 3, "{}", run.stdout);
    let check = run.check("the-check");
    assert_eq!(
        text(&check, "hint"),
        format!(
            "get git clone <your Git server>/team-checkout/checkout-config.git '{}'",
            work.join("checkout-config").display()
        )
    );
}

#[test]
fn a_plain_folder_where_the_repo_should_be_cannot_be_checked() {
    let world = World::at("fresh");
    let path = world.repo("checkout-config").path().to_path_buf();
    std::fs::remove_dir_all(&path).unwrap();
    std::fs::create_dir_all(path.join("helm")).unwrap();
    let run = run_json(&world, &one_check("checkout-config", "      clean: true\n"));
    assert_eq!(run.code, 3);
    assert!(
        run.check("the-check")["summary"]
            .as_str()
            .unwrap()
            .contains("is not a git repository")
    );
}

#[test]
fn a_work_dir_outside_home_is_shown_as_its_real_path() {
    let world = World::at("fresh");
    let elsewhere = tempfile::tempdir().unwrap();
    let work = world.lab.work_dir();
    let course = one_check("checkout-config", "      branch: dev\n");
    let run = run_json_from(elsewhere.path(), &course, &work);
    let check = run.check("the-check");
    assert_eq!(
        check["hint"],
        format!("cd {}/checkout-config && git switch dev", work.display())
    );
}

#[test]
fn the_json_report_carries_the_contract_fields() {
    let world = World::at("step-1");
    world
        .repo("checkout-config")
        .write("helm/dev.yaml", "x: 1\n")
        .unwrap();
    let run = run_json(&world, &one_check("checkout-config", "      clean: true\n"));
    let json = run.json();
    assert_eq!(json["module"], "module-t");
    assert_eq!(json["step"], "step-1");
    assert_eq!(json["track"], "kind");
    assert_eq!(json["status"], "fail");
    let check = &json["checks"][0];
    assert_eq!(check["id"], "the-check");
    assert_eq!(check["kind"], "git");
    assert_eq!(check["expected"], "a clean working tree");
    assert_eq!(check["actual"], "1 uncommitted change");
    assert!(check["hint"].is_string());
}

#[test]
fn a_bad_regex_in_a_check_file_is_a_course_error_with_its_position() {
    let world = World::at("fresh");
    let course = one_check(
        "checkout-config",
        "      head_message: \"checkout: (6.7.0\"\n",
    );
    let run = run_json(&world, &course);
    assert_eq!(run.code, 2);
    run.assert_stderr_has(&["step-1.yaml:8:21: ", "is not a valid regex"]);
}

#[test]
fn checking_leaves_the_repos_byte_identical() {
    let world = World::at("step-4");
    let repo = world.repo("checkout-config");
    // Same bytes, newer mtime: a stat-dirty index entry that `git status` would refresh and write.
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-4", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(repo.path().join("helm/dev.yaml"))
        .and_then(|file| file.set_modified(later))
        .expect("the file's mtime moved on");
    repo.write("untracked.txt", "mine\n").unwrap();
    let before = files_with_bytes(&world.lab.work_dir());
    let course = TestCourse::new(&[("step-1", SOLVED_STEP_5)]);
    let run = run_json(&world, &course);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(files_with_bytes(&world.lab.work_dir()), before);
}

#[test]
fn the_human_report_of_a_failing_git_step() {
    let world = World::at("step-4");
    let course = TestCourse::new(&[("step-1", SOLVED_STEP_5)]);
    let run = world.labcheck(&course, &["module-t", "step-1"]);
    assert_eq!(run.code, 1);
    let head = world.repo("checkout-config").head_sha().unwrap();
    let stable = run.stdout.replace(&head[..7], "<step-4 sha>");
    insta::assert_snapshot!(stable);
}

#[test]
fn touched_without_since_looks_only_at_the_pushed_tip() {
    let world = World::at("step-1");
    let values = one_check(
        "argocd-platform",
        "      touched: { path: argocd/values.yaml }\n",
    );
    assert_eq!(
        run_json(&world, &values).check("the-check")["status"],
        "pass"
    );
    let apps = one_check("argocd-platform", "      touched: { path: apps }\n");
    let check = run_json(&world, &apps).check("the-check");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert_eq!(check["actual"], "apps unchanged");
}

// ---- repos in odd states: each with its own message and a fix that works ----

/// `git` run as a process in `dir` (the test sets the world up the way a learner would).
fn git_in(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_clean_sparse_checkout_is_clean() {
    let world = World::at("step-1");
    let platform = world.repo("argocd-platform");
    git_in(platform.path(), &["sparse-checkout", "set", "argocd"]);
    assert!(!platform.path().join("apps").exists(), "apps/ is left out");
    assert_eq!(git_in(platform.path(), &["status", "--porcelain"]), "");
    let run = run_json(
        &world,
        &one_check("argocd-platform", "      clean: true\n      pushed: true\n"),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.check("the-check")["status"], "pass");
    // An edit inside the sparse cone still counts.
    platform
        .write("argocd/values.yaml", "changed: true\n")
        .unwrap();
    let run = run_json(&world, &one_check("argocd-platform", "      clean: true\n"));
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert!(
        text(&check, "summary").ends_with("1 uncommitted change: argocd/values.yaml"),
        "{check:#}"
    );
}

#[test]
fn a_deleted_tree_object_is_could_not_check_with_git_fsck_advice() {
    let world = World::at("step-2");
    let repo = world.repo("checkout-config");
    let tree = git_in(repo.path(), &["rev-parse", "HEAD^{tree}"]);
    let tree = tree.trim();
    let object = repo
        .path()
        .join(".git/objects")
        .join(&tree[..2])
        .join(&tree[2..]);
    std::fs::remove_file(&object).expect("the tree is a loose object");
    let run = run_json(
        &world,
        &one_check("checkout-config", "      branch: main\n      clean: true\n"),
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let check = run.check("the-check");
    assert_eq!(check["status"], "error", "{check:#}");
    assert!(text(&check, "summary").contains("is damaged"), "{check:#}");
    assert!(
        text(&check, "hint").starts_with("cd ~/work/checkout-config && git fsck --full"),
        "{check:#}"
    );
}

#[test]
fn a_deleted_file_object_in_history_is_could_not_check_not_a_verdict() {
    let world = World::at("step-4");
    let repo = world.repo("checkout-config");
    // The step-2 version of helm/dev.yaml, which only history holds now.
    let blob = git_in(repo.path(), &["rev-parse", "HEAD~1:helm/dev.yaml"]);
    let blob = blob.trim();
    std::fs::remove_file(
        repo.path()
            .join(".git/objects")
            .join(&blob[..2])
            .join(&blob[2..]),
    )
    .expect("the blob is a loose object");
    let run = run_json(
        &world,
        &one_check(
            "checkout-config",
            "      made: { file: helm/dev.yaml, path: migration.fail, equals: true }\n",
        ),
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let check = run.check("the-check");
    assert_eq!(check["status"], "error", "{check:#}");
    assert!(text(&check, "hint").contains("git fsck"), "{check:#}");
}

#[test]
fn a_bare_repo_in_the_work_dir_is_told_to_work_in_a_clone() {
    let world = World::at("step-1");
    let work = world.lab.work_dir();
    let repo = work.join("checkout-config");
    let remote = git_in(&repo, &["remote", "get-url", "origin"]);
    // The lab's clones name their remote relative to themselves.
    let remote = std::fs::canonicalize(repo.join(remote.trim())).unwrap();
    let remote = remote.display().to_string();
    std::fs::remove_dir_all(&repo).unwrap();
    git_in(
        &work,
        &[
            "clone",
            "--quiet",
            "--bare",
            remote.trim(),
            "checkout-config",
        ],
    );
    let run = run_json(&world, &one_check("checkout-config", "      clean: true\n"));
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let check = run.check("the-check");
    assert!(
        text(&check, "summary").contains("is a bare repository"),
        "{check:#}"
    );
    assert!(
        text(&check, "hint").contains("work in a clone of it"),
        "{check:#}"
    );
}

#[test]
fn a_git_file_whose_gitdir_is_gone_says_so() {
    let world = World::at("step-1");
    let repo = world.lab.work_dir().join("checkout-config");
    std::fs::remove_dir_all(repo.join(".git")).unwrap();
    std::fs::write(
        repo.join(".git"),
        "gitdir: /nowhere/main-repo/.git/worktrees/checkout-config\n",
    )
    .unwrap();
    let run = run_json(&world, &one_check("checkout-config", "      clean: true\n"));
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let check = run.check("the-check");
    let summary = text(&check, "summary");
    assert!(
        summary.contains("/.git is a file pointing at /nowhere/main-repo/.git/worktrees/checkout-config, which no longer exists"),
        "{summary}"
    );
    assert!(
        text(&check, "hint").contains("clone the repo again"),
        "{check:#}"
    );
}

#[test]
fn a_literal_tilde_in_work_dir_is_a_usage_error_with_the_fix() {
    let world = World::at("fresh");
    let run = run_json_with(
        &world,
        &one_check("checkout-config", "      clean: true\n"),
        &["--work-dir", "~/work"],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    run.assert_stderr_has(&["write --work-dir \"$HOME/work\""]);
}

#[test]
fn a_dirty_submodule_is_named_with_the_commands_to_run_inside_it() {
    let world = World::at("step-1");
    let repo = world.repo("checkout-config");
    let gitops = world.lab.work_dir().join("argocd-gitops");
    git_in(
        repo.path(),
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "--quiet",
            gitops.to_str().unwrap(),
            "vendor/gitops",
        ],
    );
    git_in(
        repo.path(),
        &["commit", "--quiet", "-m", "vendor the gitops repo"],
    );
    repo.push().unwrap();
    std::fs::write(
        repo.path()
            .join("vendor/gitops/platform/argocd/values.yaml"),
        "edited inside\n",
    )
    .unwrap();
    let run = run_json(&world, &one_check("checkout-config", "      clean: true\n"));
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert!(
        text(&check, "summary").contains("inside its submodule vendor/gitops"),
        "{check:#}"
    );
    assert!(
        text(&check, "hint").starts_with("cd ~/work/checkout-config/vendor/gitops && git status"),
        "{check:#}"
    );
}

fn run_json_with(world: &World, course: &TestCourse, extra: &[&str]) -> crate::harness::Run {
    let mut args = vec!["module-t", "step-1", "--format", "json"];
    args.extend_from_slice(extra);
    world.labcheck(course, &args)
}

/// A work dir with a space: the hint is quoted, and running it as pasted works.
#[test]
fn a_work_dir_with_a_space_gets_hints_that_paste_and_run() {
    let root = tempfile::tempdir().unwrap();
    let lab = labcheck::lab::cache::at(&root.path().join("my lab"), "module-10", "step-1").unwrap();
    let repo = lab.repo("checkout-config").unwrap();
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-2", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    repo.commit_written(&lab_commit("step-2", "checkout-config"))
        .unwrap();
    let course = one_check("checkout-config", "      pushed: true\n");
    let home = tempfile::tempdir().unwrap();
    let work = lab.work_dir();
    let run = run_json_from(home.path(), &course, &work);
    let check = run.check("the-check");
    let hint = text(&check, "hint").to_string();
    let quoted = format!("cd '{}/checkout-config' && git push", work.display());
    assert_eq!(hint, quoted);
    let pasted = std::process::Command::new("sh")
        .arg("-c")
        .arg(&hint)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        pasted.status.success(),
        "{}",
        String::from_utf8_lossy(&pasted.stderr)
    );
    let again = run_json_from(home.path(), &course, &work);
    assert_eq!(
        again.check("the-check")["status"],
        "pass",
        "{}",
        again.stdout
    );
}
