//! Clones as learners keep them: a `.env` with a password, an editor's swap and backup files,
//! `.DS_Store`, files their own or their global gitignore hides. Git tracks none of them and the
//! step names none, so a done step passes (with a note), a step not done fails on its own change,
//! and no hint adds everything (followed, it would push the password).

use labcheck::checks::git::stray::adds_everything;
use labcheck::lab::cluster;

use crate::harness::{TestCourse, World, labcheck};
use crate::module_10_cluster::{check_with, revisions};

const PASSWORD: &str = "s3cr3t-from-the-dotenv";

/// What a learner's clone of checkout-config holds beside the course's files, and a global
/// gitignore (`core.excludesFile` in `~/.gitconfig`) that hides `*.local`.
fn keep_as_a_learner(world: &World) {
    let repo = world.repo("checkout-config");
    repo.write(".env", &format!("DB_PASSWORD={PASSWORD}\n"))
        .unwrap();
    repo.write("helm/.dev.yaml.swp", "b0VIM 9.0\n").unwrap();
    repo.write("helm/dev.yaml~", "image:\n  tag: old\n")
        .unwrap();
    repo.write("helm/#dev.yaml#", "emacs autosave\n").unwrap();
    repo.write(".DS_Store", "\0\0\0\u{1}Bud1").unwrap();
    repo.write("notes.txt", "ask about waves\n").unwrap();
    // Ignored by the clone's own exclude file: never named, never counted.
    repo.write(".git/info/exclude", "*.log\n").unwrap();
    repo.write("sync.log", "a log\n").unwrap();
    // Ignored by the learner's global gitignore.
    let home = world.home();
    std::fs::write(home.join(".gitignore_global"), "*.local\n").unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        format!(
            "[core]\n\texcludesFile = {}\n",
            home.join(".gitignore_global").display()
        ),
    )
    .unwrap();
    repo.write("values.local", "mine only\n").unwrap();
}

fn no_hint_adds_everything(run: &crate::harness::Run) {
    for check in run.json()["checks"].as_array().unwrap() {
        let hint = check["hint"].as_str().unwrap_or_default();
        assert_eq!(adds_everything(hint), None, "{check:#}");
    }
}

/// Step 4 checked on step 3's solved cluster: `release-pushed` fails on uncommitted changes and
/// its hint commits `helm/dev.yaml`. The run and that check.
fn uncommitted_at_step_4(world: &World) -> (crate::harness::Run, serde_json::Value) {
    let snapshot = cluster::state("step-3-solved", &revisions(world)).expect("fixture");
    let run = check_with(world, &snapshot, "step-4");
    let pushed = run.check("release-pushed");
    assert_eq!(pushed["status"], "fail", "{pushed:#}");
    assert_eq!(pushed["cause"], "uncommitted-changes", "{pushed:#}");
    let hint = pushed["hint"].as_str().unwrap();
    assert!(
        hint.contains("git add -- helm/dev.yaml && git commit"),
        "{hint}"
    );
    (run, pushed)
}

#[test]
fn a_done_step_4_with_a_dotenv_swap_files_and_ignored_files_passes_with_a_note() {
    let world = World::at("step-4");
    keep_as_a_learner(&world);
    let snapshot = cluster::solved("step-4", &revisions(&world)).expect("fixture");
    let run = check_with(&world, &snapshot, "step-4");
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains(PASSWORD), "{}", run.stdout);
    let pushed = run.check("release-pushed");
    assert_eq!(pushed["status"], "pass", "{pushed:#}");
    let note = pushed["note"].as_str().unwrap();
    for named in [
        ".DS_Store",
        "helm/#dev.yaml#",
        "helm/.dev.yaml.swp",
        "helm/dev.yaml~",
        "notes.txt",
    ] {
        assert!(note.contains(named), "{named}: {note}");
    }
    assert!(
        note.contains(".env may hold a secret: keep it out of git"),
        "{note}"
    );
    // Ignored files (the clone's exclude, the global gitignore) are nobody's business.
    assert!(
        !note.contains("sync.log") && !note.contains("values.local"),
        "{note}"
    );
    no_hint_adds_everything(&run);
}

#[test]
fn the_human_report_of_a_done_step_4_in_a_learners_clone() {
    let world = World::at("step-4");
    keep_as_a_learner(&world);
    let snapshot = cluster::solved("step-4", &revisions(&world)).expect("fixture");
    let path = world.home().join("cluster.yaml");
    std::fs::write(&path, snapshot.to_yaml().expect("yaml")).expect("write snapshot");
    let run = labcheck(
        world.home(),
        &[
            "module-10",
            "step-4",
            "--no-wait",
            "--snapshot",
            &path.display().to_string(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout);
}

/// Step 4 edited but not committed, a `.env` beside it: the hint adds `helm/dev.yaml` by name
/// and nothing else, and the note says the `.env` stays out of git.
#[test]
fn step_4_edited_not_committed_beside_a_dotenv_is_told_to_add_its_file_by_name() {
    let world = World::at("step-3");
    keep_as_a_learner(&world);
    let values = world.lab.work_dir().join("checkout-config/helm/dev.yaml");
    let text = std::fs::read_to_string(&values).unwrap();
    std::fs::write(
        &values,
        text.replace("tag: \"6.7.1\"", "tag: \"6.7.0\"")
            .replace("  enabled: true", "  enabled: true\n  fail: true"),
    )
    .unwrap();
    let (run, pushed) = uncommitted_at_step_4(&world);
    let hint = pushed["hint"].as_str().unwrap();
    assert!(
        !hint.contains(".env") && !hint.contains("notes.txt"),
        "{hint}"
    );
    assert!(
        pushed["note"]
            .as_str()
            .unwrap()
            .contains(".env may hold a secret"),
        "{pushed:#}"
    );
    assert!(!run.stdout.contains(PASSWORD));
    no_hint_adds_everything(&run);
}

/// A new file the step names, made but never added: `clean` fails on it (the step's change is
/// not committed) and the hint adds that one file.
#[test]
fn a_new_file_the_step_names_left_untracked_fails_clean_and_is_added_by_name() {
    let world = World::at("step-2");
    keep_as_a_learner(&world);
    world
        .repo("checkout-config")
        .write("helm/smoke.yaml", "smokeTest:\n  enabled: true\n")
        .unwrap();
    let course = TestCourse::new(&[(
        "step-1",
        "  - id: the-check\n    title: \"smoke values committed\"\n    git:\n      repo: checkout-config\n      clean: true\n      touched: { path: helm/smoke.yaml }\n",
    )]);
    let run = world.labcheck(&course, &["module-t", "step-1", "--format", "json"]);
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert_eq!(
        check["summary"],
        "~/work/checkout-config has 1 uncommitted change: helm/smoke.yaml"
    );
    let hint = check["hint"].as_str().unwrap();
    assert!(
        hint.contains("git add -- helm/smoke.yaml && git commit"),
        "{hint}"
    );
    assert!(!hint.contains(".env"), "{hint}");
}

/// The step's new file in a folder git does not know yet, with the learner's `.env` and a note
/// in the same folder: the hint adds the one file (adding the folder would push the password),
/// and the `.env` inside the folder is still told to stay out of git.
#[test]
fn a_new_file_in_a_new_folder_beside_a_dotenv_is_added_alone() {
    let world = World::at("step-2");
    let repo = world.repo("checkout-config");
    repo.write("smoke/test.yaml", "smokeTest:\n  enabled: true\n")
        .unwrap();
    repo.write("smoke/.env", &format!("DB_PASSWORD={PASSWORD}\n"))
        .unwrap();
    repo.write("smoke/try.txt", "scratch\n").unwrap();
    let course = TestCourse::new(&[(
        "step-1",
        "  - id: the-check\n    title: \"smoke test committed\"\n    git:\n      repo: checkout-config\n      clean: true\n      touched: { path: smoke/test.yaml }\n",
    )]);
    let run = world.labcheck(&course, &["module-t", "step-1", "--format", "json"]);
    let check = run.check("the-check");
    assert_eq!(check["status"], "fail", "{check:#}");
    assert_eq!(
        check["summary"],
        "~/work/checkout-config has 1 uncommitted change: smoke/test.yaml"
    );
    let hint = check["hint"].as_str().unwrap();
    assert!(
        hint.contains("git add -- smoke/test.yaml && git commit"),
        "{hint}"
    );
    assert!(!hint.contains("git add -- smoke "), "{hint}");
    let note = check["note"].as_str().unwrap_or_default();
    assert!(note.contains("smoke/.env may hold a secret"), "{note}");
    assert!(note.contains("smoke/try.txt"), "{note}");
    assert!(!run.stdout.contains(PASSWORD), "{}", run.stdout);
    no_hint_adds_everything(&run);
}

/// The learner ran `git add .` (against the course's advice) with step 4's edit and their `.env`
/// in the tree: both are staged. The hint commits the step's file and leaves the `.env` out,
/// telling how to unstage it, never `git add -- .env`.
#[test]
fn a_staged_dotenv_is_never_committed_by_the_hint_and_is_told_how_to_unstage() {
    let world = World::at("step-3");
    keep_as_a_learner(&world);
    let repo = world.repo("checkout-config");
    let values = world.lab.work_dir().join("checkout-config/helm/dev.yaml");
    let text = std::fs::read_to_string(&values).unwrap();
    std::fs::write(&values, text.replace("tag: \"6.7.1\"", "tag: \"6.7.0\"")).unwrap();
    repo.git(&["add", "--", ".env", "helm/dev.yaml"]).unwrap();
    let (run, pushed) = uncommitted_at_step_4(&world);
    let hint = pushed["hint"].as_str().unwrap();
    assert!(!hint.contains("git add -- .env"), "{hint}");
    assert!(!hint.contains("git add -- helm/dev.yaml .env"), "{hint}");
    assert!(hint.contains("git restore --staged -- .env"), "{hint}");
    assert!(!run.stdout.contains(PASSWORD));
    no_hint_adds_everything(&run);
}
