//! Module 10's real check files against lab worlds: what a learner did → what labcheck says.

use crate::harness::{FIX_REPO_CHECKS, STEP_5_REPO_CHECKS, World, labcheck};

/// Run a module 10 step from the built-in course in `world`, JSON out, no waiting.
fn step(world: &World, step: &str, extra: &[&str]) -> crate::harness::Run {
    let mut args = vec!["module-10", step, "--format", "json", "--no-wait"];
    args.extend_from_slice(extra);
    labcheck(world.home(), &args)
}

fn statuses_of_kinds(run: &crate::harness::Run, kinds: &[&str]) -> Vec<(String, String)> {
    run.json()["checks"]
        .as_array()
        .map(|checks| {
            checks
                .iter()
                .filter(|c| kinds.contains(&c["kind"].as_str().unwrap_or_default()))
                .map(|c| {
                    (
                        c["id"].as_str().unwrap_or_default().to_string(),
                        c["status"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn step_1_done_passes_every_repo_and_file_check() {
    let world = World::at("step-1");
    let run = step(&world, "step-1", &[]);
    let kinds = ["git", "yaml_value", "files", "diff"];
    let repo_checks = statuses_of_kinds(&run, &kinds);
    // Every repo and file check the course's step 1 declares, none left out of the report.
    let course = labcheck::course::Course::embedded().expect("the built-in course");
    let declared: Vec<String> = course
        .module("module-10")
        .and_then(|m| m.step("step-1"))
        .expect("module 10 step 1")
        .checks
        .iter()
        .filter(|c| kinds.contains(&c.kind.name()))
        .map(|c| c.id.clone())
        .collect();
    let reported: Vec<String> = repo_checks.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(reported, declared, "{}", run.stdout);
    assert!(!declared.is_empty());
    for (id, status) in &repo_checks {
        assert_eq!(status, "pass", "check {id}:\n{}", run.stdout);
    }
}

#[test]
fn step_1_committed_but_not_pushed_fails_the_push_check_with_a_hint_to_push() {
    let world = World::in_state("step-1", "not-pushed");
    let run = step(&world, "step-1", &[]);
    let pushed = run.check("platform-pushed");
    assert_eq!(pushed["status"], "fail", "{}", run.stdout);
    assert!(
        pushed["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("git push"),
        "{pushed:#}"
    );
    assert!(
        pushed["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("ahead"),
        "{pushed:#}"
    );
    assert_eq!(run.check("same-as-reference")["status"], "pass");
    assert_eq!(run.json()["status"], "fail");
    assert_eq!(run.code, 1);
}

#[test]
fn step_1_with_a_different_values_file_fails_the_diff_with_the_diff_in_detail() {
    let world = World::in_state("step-1", "typo-in-lua");
    let run = step(&world, "step-1", &[]);
    let diff = run.check("same-as-reference");
    assert_eq!(diff["status"], "fail", "{}", run.stdout);
    let detail = diff["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("-        hs.status = obj.status.health.status"),
        "{detail}"
    );
    assert!(
        detail.contains("+        hs.status = obj.status.health\n"),
        "{detail}"
    );
    assert_eq!(run.check("platform-pushed")["status"], "pass");
}

#[test]
fn step_1_with_a_slip_in_the_lua_block_shows_the_slip_once_and_never_says_add_the_block() {
    let world = World::in_state("step-1", "typo-in-lua");
    let run = step(&world, "step-1", &[]);
    let added = run.check("health-check-added");
    assert_eq!(added["cause"], "differs-in-file", "{added:#}");
    let hint = added["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("with a slip"), "{hint}");
    assert!(!hint.contains("Add the block"), "{hint}");
    // The whole-file comparison shows the same two lines: it points at the check above.
    let whole = run.check("same-as-reference");
    assert_eq!(
        whole["detail_shown_under"], "health-check-added",
        "{whole:#}"
    );
    assert!(added.get("detail_shown_under").is_none(), "{added:#}");

    let human = labcheck(
        world.home(),
        &["module-10", "step-1", "--no-wait", "--color", "never"],
    );
    let slipped_lines = human
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with('+') && l.contains("hs.status = obj.status.health"))
        .count();
    assert_eq!(slipped_lines, 1, "{}", human.stdout);
    assert!(
        human.stdout.contains(
            "(the same lines as under \"argocd/values.yaml has the health check for Applications under configs.cm\" above)"
        ),
        "{}",
        human.stdout
    );
}

#[test]
fn step_1_before_anything_was_done_fails_with_the_block_to_add() {
    let world = World::at("fresh");
    let run = step(&world, "step-1", &[]);
    let added = run.check("health-check-added");
    assert_eq!(added["status"], "fail", "{}", run.stdout);
    assert_eq!(added["cause"], "missing-in-file", "{added:#}");
    assert!(
        added["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("resource.customizations.health.argoproj.io_Application"),
        "{added:#}"
    );
    assert_eq!(run.check("waves-first")["status"], "pass");
}

#[test]
fn step_2_values_not_edited_yet_fail_with_the_key_to_add() {
    let world = World::at("step-1");
    let run = step(&world, "step-2", &[]);
    for id in ["migration-enabled", "smoke-test-enabled"] {
        let check = run.check(id);
        assert_eq!(check["status"], "fail", "{id}: {}", run.stdout);
        assert!(
            check["hint"]
                .as_str()
                .unwrap_or_default()
                .contains("enabled: true"),
            "{check:#}"
        );
    }
}

#[test]
fn step_4_and_5_repo_checks_follow_the_release_and_its_revert() {
    let world = World::at("step-4");
    let run = step(&world, "step-4", &[]);
    run.assert_pass(&["tag-670", "migration-fails", "release-pushed"]);
    let before_revert = step(&world, "step-5", &[]);
    assert_eq!(before_revert.check("head-is-revert")["status"], "fail");

    world.lab.do_step("step-5").expect("revert and push");
    let run = step(&world, "step-5", &[]);
    run.assert_pass(&STEP_5_REPO_CHECKS);
}

#[test]
fn break_it_stages_follow_the_break_and_the_fix() {
    let world = World::at("break-it/break");
    let run = step(&world, "break-it/break", &[]);
    run.assert_pass(&["smoke-path-503", "break-pushed"]);
    let fix_too_early = step(&world, "break-it/fix", &[]);
    assert_eq!(fix_too_early.check("smoke-path-gone")["status"], "fail");
    // The break is in the history but not undone yet: the fix is not done, the break was.
    let first = fix_too_early.check("break-came-first");
    assert_eq!(first["status"], "fail", "{first:#}");
    assert_eq!(first["cause"], "break-not-undone", "{first:#}");

    world.lab.do_step("break-it/fix").expect("revert");
    let run = step(&world, "break-it/fix", &[]);
    run.assert_pass(&FIX_REPO_CHECKS);
}

#[test]
fn a_missing_work_repo_is_could_not_check_with_how_to_get_it() {
    let world = World::at("step-1");
    std::fs::remove_dir_all(world.lab.work_dir().join("argocd-gitops")).expect("remove");
    let run = step(&world, "step-1", &[]);
    let diff = run.check("same-as-reference");
    assert_eq!(diff["status"], "error", "{}", run.stdout);
    assert!(
        diff["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("git clone"),
        "{diff:#}"
    );
}

#[test]
fn the_fix_stage_does_not_pass_for_a_learner_who_never_did_the_break() {
    // Step 5 done: HEAD is a revert (of the broken release), but the smoke test was never broken.
    let world = World::at("step-5");
    let run = step(&world, "break-it/fix", &[]);
    let revert = run.check("head-is-revert");
    assert_eq!(revert["status"], "fail", "{}", run.stdout);
    assert_eq!(revert["cause"], "nothing-to-revert", "{revert:#}");
    // The sequence check is what says why: the break never happened here.
    let first = run.check("break-came-first");
    assert_eq!(first["status"], "fail", "{first:#}");
    assert_eq!(first["cause"], "break-not-seen", "{first:#}");
    assert!(
        first["hint"]
            .as_str()
            .unwrap_or_default()
            .starts_with("do the break first: `labcheck module-10 break-it/break`"),
        "{first:#}"
    );
    assert_eq!(run.json()["status"], "fail");
}
