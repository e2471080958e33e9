//! The learner's own history, read by content: module 10's real step files on real git worlds
//! where the learner's commit messages are not the course's, reverts are made by `git revert` (run
//! as a process) or by hand, and nothing at all was done yet. No cluster is given, so the cluster
//! checks report "could not check"; these tests look at the repo-side checks.

use crate::harness::lab_file;
use labcheck::lab::world::LabRepo;
use serde_json::Value;

use crate::harness::{FIX_REPO_CHECKS, Run, STEP_5_REPO_CHECKS, World, labcheck};

fn step(world: &World, step: &str) -> Run {
    labcheck(world.home(), &["module-10", step, "--format", "json"])
}

fn text<'a>(check: &'a Value, field: &str) -> &'a str {
    check[field].as_str().unwrap_or_default()
}

/// Every 7-or-more-hex-digit word in `hint`: the commits it names.
fn shas_named(hint: &str) -> Vec<String> {
    hint.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 7 && w.chars().all(|c| c.is_ascii_hexdigit()))
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// Step 3 done; then step 4's change committed under the learner's own message, and pushed.
fn released_as(message: &str) -> (World, String) {
    let world = World::at("step-3");
    let repo = world.repo("checkout-config");
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-4", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    repo.commit_written(message).unwrap();
    repo.push().unwrap();
    let sha = repo.head_sha().unwrap();
    (world, sha)
}

/// The release pushed, then its change undone in the work tree by writing step 2's file back,
/// not committed yet; with the clone that wrote it, which remembers the file for `commit_written`.
fn undone_in_the_tree() -> (World, LabRepo, String) {
    let (world, release) = released_as("checkout: 6.7.0 with a broken migration");
    let repo = world.repo("checkout-config");
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-2", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    (world, repo, release)
}

#[test]
fn a_release_committed_as_wip_then_git_reverted_passes_step_5s_repo_checks() {
    let (world, release) = released_as("wip");
    let repo = world.repo("checkout-config");
    repo.git(&["revert", "--no-edit", "HEAD"]).unwrap();
    repo.push().unwrap();
    let revert = repo.head_sha().unwrap();
    let run = step(&world, "step-5");
    run.assert_pass(&STEP_5_REPO_CHECKS);
    let summary = text(&run.check("head-is-revert"), "summary").to_string();
    assert!(
        summary.contains(&format!(
            "HEAD {} reverts {} \"wip\"",
            &revert[..7],
            &release[..7]
        )),
        "{summary}"
    );
    assert!(!summary.contains("by hand"), "{summary}");
}

#[test]
fn a_release_undone_by_hand_passes_with_a_note_that_git_revert_is_the_course_s_way() {
    let (world, repo, release) = undone_in_the_tree();
    repo.commit_written("back to 6.7.1").unwrap();
    repo.push().unwrap();
    let run = step(&world, "step-5");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "pass", "{check:#}");
    let summary = text(&check, "summary");
    assert!(
        summary.contains("undone by hand; `git revert` is the course's way"),
        "{summary}"
    );
    assert!(summary.contains(&release[..7]), "{summary}");
    assert_eq!(run.check("revert-pushed")["status"], "pass");
}

#[test]
fn undone_by_hand_with_a_comment_passes_and_says_diff_still_prints_lines() {
    let (world, _) = released_as("release");
    let repo = world.repo("checkout-config");
    let text_with_comment = format!(
        "# back to the good release\n{}",
        lab_file("step-2", "checkout-config", "helm/dev.yaml")
    );
    repo.write("helm/dev.yaml", &text_with_comment).unwrap();
    repo.commit_written("undo").unwrap();
    let run = step(&world, "step-5");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "pass", "{check:#}");
    assert!(
        text(&check, "summary").contains("means the same to Helm"),
        "{check:#}"
    );
}

#[test]
fn a_later_commit_after_the_revert_still_counts_as_undone() {
    let (world, release) = released_as("checkout: 6.7.0 with a broken migration");
    let repo = world.repo("checkout-config");
    repo.git(&["revert", "--no-edit", "HEAD"]).unwrap();
    let revert = repo.head_sha().unwrap();
    repo.write("NOTES.md", "smoke test notes\n").unwrap();
    repo.commit_written("smoke test notes").unwrap();
    repo.push().unwrap();
    let run = step(&world, "step-5");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "pass", "{check:#}");
    let summary = text(&check, "summary");
    assert!(summary.contains(&revert[..7]), "{summary}");
    assert!(summary.contains(&release[..7]), "{summary}");
}

#[test]
fn a_commit_after_the_release_is_never_named_as_the_one_to_revert() {
    // The release under a message the old patterns never matched, then an unrelated commit whose
    // message talks about migrations: the hint must name the release and nothing else.
    let (world, release) = released_as("bump");
    let repo = world.repo("checkout-config");
    repo.write("NOTES.md", "6.7.0 migration is broken, revert later\n")
        .unwrap();
    repo.commit_written("notes on the broken migration")
        .unwrap();
    repo.push().unwrap();
    let head = repo.head_sha().unwrap();
    let run = step(&world, "step-5");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "fail", "{check:#}");
    let hint = text(&check, "hint");
    assert!(
        hint.contains(&format!("git revert --no-edit {}", &release[..7])),
        "{hint}"
    );
    assert_eq!(shas_named(hint), vec![release[..7].to_string()], "{hint}");
    assert!(!hint.contains(&head[..7]), "{hint}");
    // The course's words come first, the state-aware command below them.
    assert!(
        hint.starts_with("Undo the broken release with `git revert`"),
        "{hint}"
    );
}

#[test]
fn reverting_the_wrong_commit_fails_and_names_only_the_release() {
    let world = World::at("step-3");
    let repo = world.repo("checkout-config");
    repo.write("NOTES.md", "release notes\n").unwrap();
    repo.commit_written("notes").unwrap();
    let notes = repo.head_sha().unwrap();
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-4", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    repo.commit_written("checkout: 6.7.0 with a broken migration")
        .unwrap();
    let release = repo.head_sha().unwrap();
    // The wrong one: the commit below the release.
    repo.git(&["revert", "--no-edit", &notes]).unwrap();
    repo.push().unwrap();
    let run = step(&world, "step-5");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert_eq!(
        shas_named(text(&check, "hint")),
        vec![release[..7].to_string()],
        "{check:#}"
    );
}

#[test]
fn a_revert_left_uncommitted_is_told_to_commit_not_to_revert_again() {
    let (world, _repo, release) = undone_in_the_tree();
    let run = step(&world, "step-5");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert!(
        text(&check, "summary").contains("have not committed it"),
        "{check:#}"
    );
    // `git revert` refuses a dirty tree; the hint keeps the learner's edits with `git stash`.
    let hint = text(&check, "hint");
    assert!(
        hint.contains(&format!(
            "git stash && git revert --no-edit {}",
            &release[..7]
        )),
        "{hint}"
    );
    assert!(
        !hint.contains("restore") && !hint.contains("reset"),
        "{hint}"
    );
}

#[test]
fn partly_undone_names_what_is_left_of_the_release() {
    let (world, release) = released_as("checkout: 6.7.0 with a broken migration");
    let repo = world.repo("checkout-config");
    let without_fail =
        lab_file("step-4", "checkout-config", "helm/dev.yaml").replace("  fail: true\n", "");
    assert_ne!(
        without_fail,
        lab_file("step-4", "checkout-config", "helm/dev.yaml")
    );
    repo.write("helm/dev.yaml", &without_fail).unwrap();
    repo.commit_written("no more fail").unwrap();
    let run = step(&world, "step-5");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert!(
        text(&check, "summary").contains("part of that commit's change is still there"),
        "{check:#}"
    );
    assert_eq!(
        shas_named(text(&check, "hint")),
        vec![release[..7].to_string(); 3],
        "{check:#}"
    );
    // The hint's own command, run in the clone beside an untracked .env, puts the file back as
    // it was before the release and commits that file alone.
    repo.write(".env", "DB_PASSWORD=not-for-git\n").unwrap();
    let hint = text(&check, "hint");
    let put_back = hint
        .split("put the file back as before it: ")
        .nth(1)
        .expect("the hint says how to put the file back");
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(put_back)
        .current_dir(repo.path())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Learner")
        .env("GIT_AUTHOR_EMAIL", "learner@course.local")
        .env("GIT_COMMITTER_NAME", "Learner")
        .env("GIT_COMMITTER_EMAIL", "learner@course.local")
        .output()
        .expect("sh runs");
    assert!(ran.status.success(), "{put_back}: {ran:?}");
    let before = repo
        .git(&["show", &format!("{release}~1:helm/dev.yaml")])
        .unwrap();
    assert_eq!(repo.git(&["show", "HEAD:helm/dev.yaml"]).unwrap(), before);
    let committed = repo
        .git(&["show", "--name-only", "--format=", "HEAD"])
        .unwrap();
    assert_eq!(committed.trim(), "helm/dev.yaml");
    assert!(repo.git(&["ls-files", ".env"]).unwrap().is_empty());
}

#[test]
fn on_a_fresh_lab_step_5_gives_no_tick_for_what_never_happened() {
    let world = World::at("fresh");
    let run = step(&world, "step-5");
    assert_eq!(run.code, 1, "{}", run.stdout);
    for id in [
        "head-is-revert",
        "revert-pushed",
        "tag-back-to-671",
        "fail-switch-gone",
    ] {
        assert_eq!(run.check(id)["status"], "fail", "{id}: {}", run.stdout);
    }
    let check = run.check("head-is-revert");
    let hint = text(&check, "hint");
    assert!(hint.contains("do step-4 first"), "{hint}");
    assert!(shas_named(hint).is_empty(), "names a commit: {hint}");
    assert!(
        text(&check, "summary").contains("nothing to undo yet"),
        "{check:#}"
    );
    // "the revert is pushed" names what must be pushed: there is no revert.
    let pushed = run.check("revert-pushed");
    assert!(
        text(&pushed, "summary").contains("nothing to undo yet"),
        "{pushed:#}"
    );
}

#[test]
fn on_a_fresh_lab_step_4_s_push_check_fails_because_nothing_was_committed() {
    let world = World::at("fresh");
    let run = step(&world, "step-4");
    let check = run.check("release-pushed");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert!(
        text(&check, "summary").contains(
            "no commit in ~/work/checkout-config makes `migration.fail` true in helm/dev.yaml"
        ),
        "{check:#}"
    );
}

#[test]
fn the_break_committed_under_any_message_and_reverted_passes_the_fix_stage_s_repo_checks() {
    let world = World::at("step-5");
    let repo = world.repo("checkout-config");
    repo.write(
        "helm/dev.yaml",
        &lab_file("break-it/break", "checkout-config", "helm/dev.yaml"),
    )
    .unwrap();
    // A message with none of the words the old pattern looked for.
    repo.commit_written("try it").unwrap();
    repo.push().unwrap();
    repo.git(&["revert", "--no-edit", "HEAD"]).unwrap();
    repo.push().unwrap();
    let run = step(&world, "break-it/fix");
    run.assert_pass(&FIX_REPO_CHECKS);
}

#[test]
fn the_fix_stage_never_names_step_2_s_smoke_test_commit() {
    // Step 5 done: the history holds step 2's "migration and smoke test" commit, and no break.
    let world = World::at("step-5");
    let run = step(&world, "break-it/fix");
    let check = run.check("head-is-revert");
    assert_eq!(check["status"], "fail", "{check:#}");
    let hint = text(&check, "hint");
    assert!(shas_named(hint).is_empty(), "names a commit: {hint}");
    assert!(hint.contains("do break-it/break first"), "{hint}");
    let first = run.check("break-came-first");
    assert_eq!(first["status"], "fail", "{first:#}");
    assert!(
        text(&first, "hint").contains("do the break first"),
        "{first:#}"
    );
}

/// The flat-key trap: `migration.enabled: true` typed on one line at the top level. Following the
/// course's words again would change nothing, so labcheck says what YAML made of it, below the
/// course's hint.
#[test]
fn a_flat_dotted_key_is_explained_below_the_course_s_hint() {
    let world = World::at("step-1");
    let repo = world.repo("checkout-config");
    let flat = format!(
        "{}migration.enabled: true\n",
        &lab_file("fresh", "checkout-config", "helm/dev.yaml")
    );
    repo.write("helm/dev.yaml", &flat).unwrap();
    let run = step(&world, "step-2");
    let check = run.check("migration-enabled");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert!(
        text(&check, "summary").contains("there is a key named `migration.enabled` instead"),
        "{check:#}"
    );
    assert!(
        text(&check, "diagnosis")
            .starts_with("you wrote a key named `migration.enabled`; YAML nests by indentation"),
        "{check:#}"
    );
    let hint = text(&check, "hint");
    let (course, seen) = hint
        .split_once('\n')
        .expect("two lines: the course's, then labcheck's");
    assert!(
        course.starts_with("Add `migration:` with `enabled: true`"),
        "{hint}"
    );
    assert!(
        seen.contains("`migration:` then `  enabled: …`, each on its own line"),
        "{hint}"
    );
}
