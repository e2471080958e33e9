//! The learner's loop: progress, status and next, levelled hints, break-it as a sequence, the
//! quiz, tracks, completions, and watch mode in a pseudo-terminal.

use std::path::Path;
use std::time::Duration;

use crate::harness::lab_file;

use crate::harness::{Labcheck, REPOS_YAML, Run, TestCourse, World, labcheck};

/// Step 1 asks for the smoke test to point at /status/503; step 2 is anything after it.
const SMOKE_503: &str = r#"  - id: smoke-503
    title: "helm/dev.yaml sets smokeTest.path: /status/503"
    yaml_value: { repo: checkout-config, file: helm/dev.yaml, path: smokeTest.path, equals: /status/503 }
"#;

/// A check whose kind has no hint of its own for this failure, so the file's levels show.
const PUSHED_WITH_LEVELS: &str = r#"  - id: pushed
    title: "helm/dev.yaml sets image.tag to a 6.8 release"
    yaml_value: { repo: checkout-config, file: helm/dev.yaml, path: image.tag, matches: '^6\.8\.' }
    hint:
      - "Has the new release made it into the dev values yet?"
      - "Look at image.tag in ~/work/checkout-config/helm/dev.yaml."
      - "cd ~/work/checkout-config && sed -i 's/tag: .*/tag: 6.8.0/' helm/dev.yaml"
"#;

fn course_with(steps: &[(&str, &str)]) -> TestCourse {
    TestCourse::new(steps)
}

/// Run labcheck with the test course; `--course-dir` goes after a subcommand (it is each
/// subcommand's own option).
fn run_in(world: &World, course: &TestCourse, args: &[&str]) -> Run {
    run_with_env(world.home(), course, &[], args)
}

fn progress_file(home: &Path) -> std::path::PathBuf {
    home.join(".local/state/labcheck/progress")
}

#[test]
fn a_step_the_learner_passed_shows_on_the_course_map_with_its_date() {
    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    let check = run_in(&world, &course, &["module-t", "step-1"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    let status = run_in(&world, &course, &["status"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let today = jiff::Timestamp::now().to_string()[..10].to_string();
    let step_1 = status
        .stdout
        .lines()
        .find(|l| l.contains("step-1"))
        .unwrap_or_default();
    assert!(
        step_1.contains('✓') && step_1.contains(&today),
        "{}",
        status.stdout
    );
    status.assert_stdout_has(&["· step-2", "1 of 2 done", "next: module-t step-2"]);
}

#[test]
fn next_checks_the_first_step_not_yet_passed() {
    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    run_in(&world, &course, &["module-t", "step-1"]);
    let next = run_in(&world, &course, &["next", "--no-wait"]);
    assert!(
        next.stdout.starts_with("next: module-t step-2"),
        "{}",
        next.stdout
    );
    assert!(
        next.stdout
            .contains("✗ helm/dev.yaml sets image.tag to a 6.8 release"),
        "{}",
        next.stdout
    );
    assert_eq!(next.code, 1);
}

#[test]
fn a_corrupted_progress_file_loses_only_its_broken_lines() {
    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    let file = progress_file(world.home());
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("state dir");
    std::fs::write(
        &file,
        "format\tlabcheck-progress/v1\npassed\tmodule-t\tstep-2\t2025-01-06T09:00:00Z\tkind\n\u{0}\u{7f}half a li",
    )
    .expect("a damaged file");
    let status = run_in(&world, &course, &["status"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    status.assert_stderr_has(&["unreadable line"]);
    status.assert_stdout_has(&["✓ step-2           2025-01-06"]);
    // A check still runs and its pass is recorded next to the one kept.
    let check = run_in(&world, &course, &["module-t", "step-1"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let status = run_in(&world, &course, &["status"]);
    assert!(
        status.stderr.is_empty(),
        "rewritten clean: {}",
        status.stderr
    );
    status.assert_stdout_has(&["2 of 2 done"]);
}

#[test]
fn failing_the_same_check_again_raises_its_hint_until_the_exact_command() {
    let world = World::at("fresh");
    let course = course_with(&[("step-1", PUSHED_WITH_LEVELS)]);
    let first = run_in(&world, &course, &["module-t", "step-1"]);
    assert!(
        first
            .stdout
            .contains("hint: Has the new release made it into the dev values yet?"),
        "{}",
        first.stdout
    );
    assert!(
        first
            .stdout
            .contains("(hint 1 of 3; `labcheck hint module-t step-1 pushed` shows the next)"),
        "{}",
        first.stdout
    );
    let second = run_in(&world, &course, &["module-t", "step-1"]);
    second.assert_stdout_has(&["Look at image.tag"]);
    // A JSON report shows the level the learner has reached, without moving it.
    for _ in 0..2 {
        let json = run_in(&world, &course, &["module-t", "step-1", "--format", "json"]);
        let pushed = json.check("pushed");
        assert_eq!(pushed["hint_level"]["level"], 3, "{pushed:#}");
    }
    let on_demand = run_in(&world, &course, &["hint", "module-t", "step-1"]);
    assert!(
        on_demand.stdout.contains(
            "hint 3 of 3: cd ~/work/checkout-config && sed -i 's/tag: .*/tag: 6.8.0/' helm/dev.yaml"
        ),
        "{}",
        on_demand.stdout
    );
}

#[test]
fn hint_for_a_check_that_does_not_exist_names_the_ones_that_do() {
    let world = World::at("fresh");
    let course = course_with(&[("step-1", PUSHED_WITH_LEVELS)]);
    let run = run_in(&world, &course, &["hint", "module-t", "step-1", "pushd"]);
    assert_eq!(run.code, 2);
    run.assert_stderr_has(&["its checks: pushed"]);
}

/// A course with module 10's break-it exercise shape: a `break` stage and a `fix` that counts
/// only after it.
fn break_it_course() -> TestCourse {
    let course = TestCourse::new(&[("step-1", SMOKE_503)]);
    let module = course.path().join("modules/module-t");
    let manifest = format!(
        "format: labcheck/v1\nmodule: module-t\ntitle: \"A test module\"\ntracks:\n  default: kind\n  available: [kind]\n{REPOS_YAML}steps: [break-it]\n"
    );
    std::fs::write(module.join("module.yaml"), manifest).expect("module.yaml");
    let exercise = format!(
        r#"format: labcheck/v1
title: "Break it"
stages:
  - stage: break
    title: "point the smoke test at /status/503"
    checks:
{}
  - stage: fix
    title: "revert it"
    after:
      stage: break
      repo: checkout-config
      change: {{ file: helm/dev.yaml, path: smokeTest.path, equals: /status/503 }}
    checks:
      - id: smoke-path-gone
        title: "helm/dev.yaml no longer sets smokeTest.path"
        yaml_value: {{ repo: checkout-config, file: helm/dev.yaml, path: smokeTest.path, absent: true }}
"#,
        SMOKE_503
            .lines()
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    std::fs::write(module.join("break-it.yaml"), exercise).expect("break-it.yaml");
    course
}

#[test]
fn fixing_without_ever_breaking_is_told_to_do_the_break_first() {
    let world = World::at("step-5");
    let course = break_it_course();
    let run = run_in(&world, &course, &["module-t", "break-it/fix"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("✓ helm/dev.yaml no longer sets smokeTest.path"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("hint: do the break first: `labcheck module-t break-it/break`"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_fix_after_the_break_and_its_revert_in_history_passes() {
    let world = World::at("break-it/fix");
    let course = break_it_course();
    let run = run_in(&world, &course, &["module-t", "break-it/fix"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("✓ the break (break-it/break) really happened"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_fix_by_hand_counts_when_labcheck_saw_the_break_pass() {
    let world = World::at("break-it/break");
    let course = break_it_course();
    let broke = run_in(&world, &course, &["module-t", "break-it/break"]);
    assert_eq!(broke.code, 0, "{}", broke.stdout);
    // Undone by editing the file, not with git revert: the history alone would not show it.
    let repo = world.repo("checkout-config");
    repo.write(
        "helm/dev.yaml",
        &lab_file("step-2", "checkout-config", "helm/dev.yaml"),
    )
    .expect("edit");
    let run = run_in(
        &world,
        &course,
        &["module-t", "break-it/fix", "--format", "json"],
    );
    let sequence = run.check("break-came-first");
    assert_eq!(sequence["status"], "pass", "{sequence:#}");
    assert!(
        sequence["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("labcheck saw break-it/break pass"),
        "{sequence:#}"
    );
}

#[test]
fn the_quiz_grades_scripted_answers_and_explains_each_one() {
    let home = tempfile::tempdir().expect("home");
    let all_right = labcheck(
        home.path(),
        &["module-10", "quiz", "--answers", "1=b,2=a,3=c"],
    );
    assert_eq!(
        all_right.code, 0,
        "{}{}",
        all_right.stdout, all_right.stderr
    );
    all_right.assert_stdout_has(&["quiz: all right (3 of 3)"]);
    assert_eq!(
        all_right.stdout.matches("why: ").count(),
        3,
        "{}",
        all_right.stdout
    );

    let one_wrong = labcheck(
        home.path(),
        &["module-10", "quiz", "--answers", "1=a,2=a,3=c"],
    );
    assert_eq!(one_wrong.code, 1);
    assert!(
        one_wrong.stdout.contains("✗ you chose a)"),
        "{}",
        one_wrong.stdout
    );
    assert!(
        one_wrong.stdout.contains("right: b)"),
        "{}",
        one_wrong.stdout
    );
    one_wrong.assert_stdout_has(&["(2 of 3)"]);

    let status = labcheck(home.path(), &["status"]);
    status.assert_stdout_has(&["2 of 3 right"]);
}

#[test]
fn the_quiz_without_a_terminal_asks_for_answers_instead_of_hanging() {
    let home = tempfile::tempdir().expect("home");
    let run = labcheck(home.path(), &["module-10", "quiz"]);
    assert_eq!(run.code, 2);
    run.assert_stderr_has(&["--answers 1=a,2=a,3=a"]);
    let bad = labcheck(
        home.path(),
        &["module-10", "quiz", "--answers", "1=b,2=e,3=c"],
    );
    assert_eq!(bad.code, 2);
    bad.assert_stderr_has(&["question 2 has options a–c"]);
}

#[test]
fn a_track_chosen_once_is_kept_and_an_unknown_one_is_refused() {
    let home = tempfile::tempdir().expect("home");
    let set = labcheck(home.path(), &["track", "kind"]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let shown = labcheck(home.path(), &["track"]);
    assert!(
        shown.stdout.starts_with("your track: kind (saved"),
        "{}",
        shown.stdout
    );
    shown.assert_stdout_has(&["module-10    kind  (offers: kind)"]);
    let unknown = labcheck(home.path(), &["track", "eks"]);
    assert_eq!(unknown.code, 2);
    unknown.assert_stderr_has(&["choose one of: kind"]);
}

#[test]
fn completions_and_the_man_page_know_the_modules_and_steps() {
    let home = tempfile::tempdir().expect("home");
    let bash = labcheck(home.path(), &["completions", "bash"]);
    assert_eq!(bash.code, 0, "{}", bash.stderr);
    for word in ["module-10", "step-4", "break-it/fix", "quiz", "status"] {
        assert!(bash.stdout.contains(word), "bash completion lacks {word}");
    }
    let zsh = labcheck(home.path(), &["completions", "zsh"]);
    zsh.assert_stdout_has(&["step-4"]);
    let man = labcheck(home.path(), &["man"]);
    assert!(
        man.stdout.starts_with(".ie"),
        "roff: {}",
        &man.stdout[..80.min(man.stdout.len())]
    );
    assert!(
        man.stdout.contains("\\-\\-watch"),
        "the man page documents --watch"
    );
}

#[test]
fn watch_without_a_terminal_prints_lines_and_ends_with_the_next_step() {
    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    let run = run_in(&world, &course, &["module-t", "step-1", "--watch"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    run.assert_stdout_has(&[
        "watching checkout-config for changes",
        "✓ helm/dev.yaml sets smokeTest.path",
        "next: step-2 — Test step-2",
    ]);
    assert!(
        !run.stdout.contains("\u{1b}["),
        "no escape codes off a terminal"
    );
}

#[test]
fn watching_a_step_a_declared_later_step_replaced_ends_saying_so_never_done() {
    let world = World::at("break-it/break");
    // Step 1 fails now and declares that step 2, which passes, replaces what it looks at: the
    // watch cannot wait for step 1 to pass, and must not call it done.
    let course = course_with(&[("step-1", PUSHED_WITH_LEVELS), ("step-2", SMOKE_503)]);
    std::fs::write(
        course.path().join("modules/module-t/step-1.yaml"),
        format!(
            "format: labcheck/v1\ntitle: \"Test step-1\"\nreplaced_by: [step-2]\nchecks:\n{PUSHED_WITH_LEVELS}"
        ),
    )
    .expect("step-1");
    let run = run_in(&world, &course, &["module-t", "step-1", "--watch"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("step-1: replaced by step-2, a later step\nnext: step-2"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("step-1: done"), "{}", run.stdout);
}

/// `module-t step-1 --watch` on `course` in a pseudo-terminal.
fn watching_in_a_terminal(world: &World, course: &TestCourse) -> expectrl::session::OsSession {
    Labcheck::new(world.home())
        .arg("--course-dir")
        .arg(course.path())
        .args(["module-t", "step-1", "--watch"])
        .env("TERM", "xterm")
        .env("LANG", "C.UTF-8")
        .limit(Duration::from_secs(60))
        .in_terminal()
}

#[test]
fn watching_in_a_terminal_turns_a_check_green_when_the_learner_saves_the_file() {
    use expectrl::Expect;

    let world = World::at("step-2");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    let mut session = watching_in_a_terminal(&world, &course);
    session
        .expect("✗ helm/dev.yaml")
        .expect("the check fails first");
    session
        .expect("watching checkout-config for changes")
        .expect("the live checklist says what it watches");

    world
        .repo("checkout-config")
        .write(
            "helm/dev.yaml",
            &lab_file("break-it/break", "checkout-config", "helm/dev.yaml"),
        )
        .expect("the learner saves the file");

    // No key is sent: the file event alone re-checks, the step passes and watch mode ends.
    session
        .expect("next: step-2")
        .expect("it ends with the next step");
    let status = session.get_process().wait().expect("labcheck exits");
    assert_eq!(
        format!("{status:?}"),
        format!("Exited(Pid({}), 0)", session.get_process().pid())
    );
}

#[test]
fn q_stops_watching() {
    use expectrl::Expect;

    let world = World::at("fresh");
    let course = course_with(&[("step-1", SMOKE_503)]);
    let mut session = watching_in_a_terminal(&world, &course);
    session.expect("q quits").expect("the live checklist");
    session.send("q").expect("a key");
    session.expect("stopped watching").expect("it stops on q");
}

#[test]
fn help_lists_every_command_the_readme_shows_for_the_learners_loop() {
    let home = tempfile::tempdir().expect("home");
    let help = labcheck(home.path(), &["--help"]);
    let readme = include_str!("../../README.md");
    for command in ["status", "next", "hint", "track", "completions", "man"] {
        assert!(
            readme.contains(&format!("labcheck {command}")),
            "README shows `labcheck {command}`"
        );
        assert!(
            help.stdout
                .lines()
                .any(|l| l.trim_start().starts_with(command)),
            "--help lists {command}:\n{}",
            help.stdout
        );
    }
    help.assert_stdout_has(&["--watch", "--answers"]);
}

/// Where labcheck keeps the progress of the learner working in `work_dir`.
fn progress_of(home: &Path, work_dir: &Path) -> std::path::PathBuf {
    let canonical = std::fs::canonicalize(work_dir).expect("the work dir exists");
    home.join(".local/state/labcheck/learners").join(format!(
        "{}.progress",
        labcheck::progress::workdir::progress_file_name(&canonical)
    ))
}

/// Run labcheck as `run_in` does, with extra environment (e.g. `LABCHECK_WORK_DIR`).
fn run_with_env(home: &Path, course: &TestCourse, env: &[(&str, &Path)], args: &[&str]) -> Run {
    let dir = course.path().display().to_string();
    let subcommands = ["status", "next", "hint", "track", "reset"];
    let mut all: Vec<&str> = Vec::new();
    let rest = match args.first() {
        Some(first) if subcommands.contains(first) => {
            all.push(first);
            &args[1..]
        }
        _ => args,
    };
    all.extend(["--course-dir", dir.as_str()]);
    all.extend_from_slice(rest);
    let mut command = Labcheck::new(home).args(&all);
    for (key, value) in env {
        command = command.env(key, value);
    }
    command.run()
}

#[test]
fn progress_is_kept_per_work_dir_and_names_it() {
    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503)]);
    let run = run_in(&world, &course, &["module-t", "step-1"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let file = progress_of(world.home(), &world.lab.work_dir());
    let text = std::fs::read_to_string(&file).expect("the learner's progress file");
    assert!(text.contains("passed\tmodule-t\tstep-1\t"), "{text}");
    let canonical = std::fs::canonicalize(world.lab.work_dir()).expect("work dir");
    assert!(
        text.contains(&format!("workdir\t{}\n", canonical.display())),
        "{text}"
    );
}

/// An instructor (their own HOME, their own ~/work) checks two learners' clones with
/// `--work-dir`: their own progress is untouched, and nothing is written for the learners.
#[test]
fn an_instructor_checking_two_learners_writes_no_progress_at_all() {
    let alice = World::at("break-it/break");
    let bob = World::at("step-5");
    let course = course_with(&[("step-1", SMOKE_503)]);
    let instructor = tempfile::tempdir().expect("the instructor's home");
    let own_work = instructor.path().join("work");
    std::fs::create_dir_all(&own_work).expect("~/work");
    // The instructor's own progress, as their own runs left it.
    let own = progress_of(instructor.path(), &own_work);
    std::fs::create_dir_all(own.parent().expect("state dir")).expect("state dir");
    let kept =
        "format\tlabcheck-progress/v1\npassed\tmodule-t\tstep-1\t2025-01-06T09:00:00Z\tkind\n";
    std::fs::write(&own, kept).expect("own progress");
    let state = instructor.path().join(".local/state/labcheck");
    let before = crate::harness::files_with_bytes(&state);
    for (learner, code) in [(&alice, 0), (&bob, 1)] {
        let dir = learner.lab.work_dir();
        for _ in 0..2 {
            let run = run_with_env(
                instructor.path(),
                &course,
                &[],
                &[
                    "module-t",
                    "step-1",
                    "--work-dir",
                    dir.to_str().expect("utf-8"),
                ],
            );
            assert_eq!(run.code, code, "{}{}", run.stdout, run.stderr);
        }
    }
    assert_eq!(crate::harness::files_with_bytes(&state), before);
    assert_eq!(std::fs::read_to_string(&own).expect("own"), kept);
}

/// Two learners on one machine account, each with their own LABCHECK_WORK_DIR: the first one's
/// break, seen by labcheck, is no evidence for the second one's fix.
#[test]
fn one_learner_s_break_never_counts_for_another_learner_s_fix() {
    let first = World::at("break-it/break");
    let second = World::at("step-5");
    let course = break_it_course();
    let home = tempfile::tempdir().expect("a shared home");
    let first_dir = first.lab.work_dir();
    let broke = run_with_env(
        home.path(),
        &course,
        &[("LABCHECK_WORK_DIR", &first_dir)],
        &["module-t", "break-it/break"],
    );
    assert_eq!(broke.code, 0, "{}{}", broke.stdout, broke.stderr);
    // The second learner "fixes" without ever breaking: smokeTest.path was never set.
    let second_dir = second.lab.work_dir();
    let fix = run_with_env(
        home.path(),
        &course,
        &[("LABCHECK_WORK_DIR", &second_dir)],
        &["module-t", "break-it/fix", "--format", "json"],
    );
    let sequence = fix.check("break-came-first");
    assert_eq!(sequence["status"], "fail", "{sequence:#}");
    assert!(
        sequence["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("do the break first"),
        "{sequence:#}"
    );
    // The first learner's own fix does count their break.
    let first_fix = run_with_env(
        home.path(),
        &course,
        &[("LABCHECK_WORK_DIR", &first_dir)],
        &["module-t", "break-it/fix", "--format", "json"],
    );
    assert!(
        first_fix.check("break-came-first")["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("labcheck saw break-it/break pass"),
        "{}",
        first_fix.stdout
    );
}

#[test]
fn reset_forgets_one_step_and_asks_scripts_for_yes() {
    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    run_in(&world, &course, &["module-t", "step-1"]);
    run_in(&world, &course, &["module-t", "step-2"]);
    let file = progress_of(world.home(), &world.lab.work_dir());
    let before = std::fs::read_to_string(&file).expect("progress");
    assert!(before.contains("passed\tmodule-t\tstep-1"), "{before}");
    assert!(before.contains("failures\tmodule-t\tstep-2"), "{before}");
    // No terminal to ask on, no --yes: refused, nothing forgotten.
    let refused = run_in(&world, &course, &["reset", "module-t", "step-1"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    refused.assert_stderr_has(&["add --yes"]);
    assert_eq!(std::fs::read_to_string(&file).expect("progress"), before);
    let reset = run_in(&world, &course, &["reset", "module-t", "step-1", "--yes"]);
    assert_eq!(reset.code, 0, "{}", reset.stderr);
    reset.assert_stdout_has(&["forgot 1 record(s)"]);
    let after = std::fs::read_to_string(&file).expect("progress");
    assert!(!after.contains("passed\tmodule-t\tstep-1"), "{after}");
    assert!(after.contains("failures\tmodule-t\tstep-2"), "{after}");
    // A step the course does not have is a usage error, not a silent no-op.
    let typo = run_in(&world, &course, &["reset", "module-t", "step-9", "--yes"]);
    assert_eq!(typo.code, 2, "{}", typo.stderr);
    let all = run_in(&world, &course, &["reset", "--yes"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    let status = run_in(&world, &course, &["status"]);
    status.assert_stdout_has(&["0 of 2 done"]);
}

/// On a terminal `reset` asks first: anything but yes forgets nothing; yes forgets the step.
#[test]
fn reset_on_a_terminal_asks_and_forgets_only_on_yes() {
    use expectrl::Expect;

    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    run_in(&world, &course, &["module-t", "step-1"]);
    let file = progress_of(world.home(), &world.lab.work_dir());
    let before = std::fs::read_to_string(&file).expect("progress");
    assert!(before.contains("passed\tmodule-t\tstep-1"), "{before}");
    let course_dir = course.path().display().to_string();
    let reset_in_a_terminal = |answer: &str| {
        let mut session = Labcheck::new(world.home())
            .args([
                "reset",
                "--course-dir",
                course_dir.as_str(),
                "module-t",
                "step-1",
            ])
            .limit(Duration::from_secs(60))
            .in_terminal();
        session
            .expect("Forget your progress (module-t step-1)")
            .expect("reset asks before it forgets");
        session.expect("[y/N]").expect("no is the default");
        session.send_line(answer).expect("the learner answers");
        let rest = session.expect(expectrl::Eof).expect("reset ends");
        String::from_utf8_lossy(rest.as_bytes()).into_owned()
    };
    for no in ["", "n", "nope"] {
        let said = reset_in_a_terminal(no);
        assert!(said.contains("nothing forgotten"), "{no:?}: {said}");
        assert_eq!(
            std::fs::read_to_string(&file).expect("progress"),
            before,
            "{no:?} keeps the progress as it was"
        );
    }
    let said = reset_in_a_terminal("y");
    assert!(said.contains("forgot 1 record(s)"), "{said}");
    let after = std::fs::read_to_string(&file).expect("progress");
    assert!(!after.contains("passed\tmodule-t\tstep-1"), "{after}");
}

#[test]
fn next_never_resumes_at_a_step_a_later_passing_step_replaced() {
    let world = World::at("break-it/break");
    // Step 1 declares step 2 replaces what it looks at, and fails now; step 2 passes.
    let transient = format!(
        "format: labcheck/v1\ntitle: \"Test step-1\"\nreplaced_by: [step-2]\nchecks:\n{PUSHED_WITH_LEVELS}"
    );
    let course = course_with(&[
        ("step-1", PUSHED_WITH_LEVELS),
        ("step-2", SMOKE_503),
        ("step-3", PUSHED_WITH_LEVELS),
    ]);
    std::fs::write(
        course.path().join("modules/module-t/step-1.yaml"),
        transient,
    )
    .expect("step-1");
    let passed = run_in(&world, &course, &["module-t", "step-2"]);
    assert_eq!(passed.code, 0, "{}{}", passed.stdout, passed.stderr);
    let next = run_in(&world, &course, &["next", "--no-wait"]);
    assert!(
        next.stdout
            .contains("- module-t step-1 replaced by step-2, which passed"),
        "{}",
        next.stdout
    );
    next.assert_stdout_has(&["next: module-t step-3"]);
    let status = run_in(&world, &course, &["status"]);
    status.assert_stdout_has(&["next: module-t step-3"]);
    let recheck = run_in(&world, &course, &["next", "--recheck", "--no-wait"]);
    // Checked again, nothing of the progress trusted: each step passed over says why.
    for line in [
        "- module-t step-1 replaced by step-2, a later step",
        "✓ module-t step-2 still passes",
        "next: module-t step-3",
    ] {
        assert!(recheck.stdout.contains(line), "{line}: {}", recheck.stdout);
    }
}

#[test]
fn an_older_single_progress_file_becomes_the_own_work_dir_s() {
    let world = World::at("break-it/break");
    let course = course_with(&[("step-1", SMOKE_503), ("step-2", PUSHED_WITH_LEVELS)]);
    let legacy = progress_file(world.home());
    std::fs::create_dir_all(legacy.parent().expect("state dir")).expect("state dir");
    std::fs::write(
        &legacy,
        "format\tlabcheck-progress/v1\npassed\tmodule-t\tstep-2\t2025-01-06T09:00:00Z\tkind\n",
    )
    .expect("legacy progress");
    let run = run_in(&world, &course, &["module-t", "step-1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !legacy.exists(),
        "the old file is moved, not left to come back"
    );
    let text = std::fs::read_to_string(progress_of(world.home(), &world.lab.work_dir()))
        .expect("the new file");
    assert!(
        text.contains("passed\tmodule-t\tstep-2\t2025-01-06"),
        "{text}"
    );
    assert!(text.contains("passed\tmodule-t\tstep-1\t"), "{text}");
}
