//! One builder for every lab world: a module written only as files (a `--course-dir` with its
//! `lab/` folder and its steps' `solution:`) gets worlds at every point, with no Rust of its own;
//! the built-in modules' worlds at a point are the lab's files with the solutions before it run.

use std::path::Path;

use labcheck::course::Course;
use labcheck::lab::world::{LabError, LabWorld};

use crate::harness::{World, lab_commit, lab_file, labcheck};

/// A course folder with one small module, `module-n`: a `notes` repo whose `config.yaml` step 1
/// switches on and step 2 reverts, each step checked and solved as the course's own are.
fn notes_course(dir: &Path) {
    let module = dir.join("modules/module-n");
    let files = [
        (
            "module.yaml",
            r#"format: labcheck/v1
module: module-n
title: "A module written only as files"
tracks: { default: kind, available: [kind] }
repos:
  - name: notes
    get: "git clone <your Git server>/notes.git ${work}/notes"
steps: [step-1, step-2]
"#,
        ),
        (
            "lab/notes/config.yaml",
            "# The team's settings.\nfeature:\n  enabled: false   # off until step 1\nname: notes\n",
        ),
        ("lab/notes/README.md", "Notes.\n"),
        (
            "step-1.yaml",
            r#"format: labcheck/v1
title: "Switch the feature on"
checks:
  - id: feature-on
    title: "config.yaml sets feature.enabled: true"
    yaml_value: { repo: notes, file: config.yaml, path: feature.enabled, equals: true }
    hint: "Set `feature.enabled: true` in ${work}/notes/config.yaml."
  - id: pushed
    title: "your commit is pushed"
    git: { repo: notes, branch: main, clean: true, pushed: true, made: { file: config.yaml, path: feature.enabled, equals: true } }
    hint: "cd ${work}/notes && git add -- config.yaml && git commit -qm 'notes: feature on' && git push -q"
solution:
  - run: { repo: notes, command: [git, pull, -q] }
  - set: { repo: notes, file: config.yaml, path: feature.enabled, value: true }
  - set: { repo: notes, file: config.yaml, path: feature.level, value: 3, after: enabled, comment: "how much of it" }
  - run: { repo: notes, command: [git, add, --, config.yaml] }
  - run: { repo: notes, command: [git, commit, -qm, "notes: feature on"] }
  - run: { repo: notes, command: [git, push, -q] }
"#,
        ),
        (
            "step-2.yaml",
            r#"format: labcheck/v1
title: "Undo it"
checks:
  - id: feature-off
    title: "config.yaml no longer sets feature.enabled: true"
    yaml_value: { repo: notes, file: config.yaml, path: feature.enabled, equals: false }
    hint: "git revert the commit that switched it on, in ${work}/notes."
solution:
  - revert: { repo: notes, change: { file: config.yaml, path: feature.enabled, equals: true } }
  - run: { repo: notes, command: [git, push, -q] }
"#,
        ),
    ];
    for (rel, text) in files {
        let path = module.join(rel);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("course folder");
        std::fs::write(&path, text).expect("course file");
    }
    std::fs::create_dir_all(dir.join("expected/kind/module-n")).expect("expected folder");
}

fn head_subject(world: &LabWorld, repo: &str) -> String {
    let clone = world.repo(repo).expect("the repo");
    clone
        .git(&["log", "-1", "--format=%s"])
        .expect("a commit")
        .trim()
        .to_string()
}

#[test]
fn a_module_written_only_as_files_gets_a_world_at_every_step() {
    let course_dir = tempfile::tempdir().expect("a temp dir");
    notes_course(course_dir.path());
    let course = Course::from_dir(course_dir.path()).expect("the course loads");
    let root = tempfile::tempdir().expect("a temp dir");
    let build = |point: &str| {
        LabWorld::at_in(&root.path().join(point), &course, "module-n", point)
            .unwrap_or_else(|e| panic!("module-n at {point}: {e}"))
    };

    let fresh = build("fresh");
    let lab_config = std::fs::read_to_string(
        course_dir
            .path()
            .join("modules/module-n/lab/notes/config.yaml"),
    )
    .expect("the lab file");
    assert_eq!(
        fresh.file("notes", "config.yaml").expect("config"),
        lab_config
    );
    assert_eq!(
        fresh.file("notes", "README.md").expect("readme"),
        "Notes.\n"
    );

    let step_1 = build("step-1");
    assert_eq!(
        step_1.file("notes", "config.yaml").expect("config"),
        "# The team's settings.\nfeature:\n  enabled: true   # off until step 1\n  # how much of it\n  level: 3\nname: notes\n",
        "the solution's edits, by path, the learner's comments kept"
    );
    assert_eq!(head_subject(&step_1, "notes"), "notes: feature on");
    let notes = step_1.repo("notes").expect("notes");
    assert_eq!(
        notes.head_sha().expect("HEAD"),
        notes.upstream_sha().expect("pushed")
    );

    let step_2 = build("step-2");
    assert_eq!(
        step_2.file("notes", "config.yaml").expect("config"),
        lab_config
    );
    assert!(
        head_subject(&step_2, "notes").starts_with("Revert \"notes: feature on\""),
        "{}",
        head_subject(&step_2, "notes")
    );

    // The worlds pass the steps the way a learner's would, and fail them before.
    let run = |world: &LabWorld, step: &str| {
        let mut args = vec![
            "--course-dir".to_string(),
            course_dir.path().display().to_string(),
            "--work-dir".to_string(),
            world.work_dir().display().to_string(),
            "module-n".to_string(),
            step.to_string(),
            "--format".to_string(),
            "json".to_string(),
        ];
        args.push("--no-wait".to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        labcheck(world.root(), &args)
    };
    assert_eq!(
        run(&step_1, "step-1").code,
        0,
        "{}",
        run(&step_1, "step-1").stdout
    );
    assert_eq!(
        run(&fresh, "step-1").code,
        1,
        "{}",
        run(&fresh, "step-1").stdout
    );
    assert_eq!(
        run(&step_2, "step-2").code,
        0,
        "{}",
        run(&step_2, "step-2").stdout
    );
    assert_eq!(
        run(&step_1, "step-2").code,
        1,
        "{}",
        run(&step_1, "step-2").stdout
    );
}

#[test]
fn a_point_the_module_does_not_list_is_refused_with_its_points() {
    let course_dir = tempfile::tempdir().expect("a temp dir");
    notes_course(course_dir.path());
    let course = Course::from_dir(course_dir.path()).expect("the course loads");
    let root = tempfile::tempdir().expect("a temp dir");
    match LabWorld::at_in(root.path(), &course, "module-n", "step-3") {
        Err(LabError::UnknownPoint { name, points }) => {
            assert_eq!(name, "step-3");
            assert_eq!(points, "fresh, step-1, step-2");
        }
        other => panic!("expected an unknown point, got {other:?}"),
    }
}

#[test]
fn module_10_at_a_step_is_the_fresh_lab_with_the_solutions_before_it_run() {
    // Step 2's solution sets `migration` and `smokeTest` by path: the lab's lines stay, the two
    // maps are added at the end.
    let fresh = lab_file("fresh", "checkout-config", "helm/dev.yaml");
    let step_2 = lab_file("step-2", "checkout-config", "helm/dev.yaml");
    assert_eq!(
        step_2,
        format!("{fresh}migration:\n  enabled: true\nsmokeTest:\n  enabled: true\n")
    );
    // Each step commits with the message its solution names.
    assert_eq!(
        lab_commit("step-2", "checkout-config"),
        "checkout: migration and smoke test in dev"
    );
    // A world is copied from this run's built worlds, and is the learner's own to change.
    let one = World::at("step-2");
    let two = World::at("step-2");
    one.repo("checkout-config")
        .write("helm/dev.yaml", "changed: true\n")
        .expect("written");
    assert_eq!(
        two.lab
            .file("checkout-config", "helm/dev.yaml")
            .expect("dev.yaml"),
        step_2
    );
}

#[test]
fn the_typo_fixture_differs_from_what_step_1s_solution_writes_only_in_the_health_status_line() {
    // A broken variant's file is kept where no solution writes it; it must still be the solved
    // file with the one mistake, or the variant tests something else.
    let (_, typo) = labcheck::lab::fixtures::file("module-10", "files/platform-values-typo.yaml")
        .expect("the typo fixture");
    let solved = lab_file("step-1", "argocd-platform", "argocd/values.yaml");
    assert_eq!(
        typo,
        solved.replacen(
            "hs.status = obj.status.health.status",
            "hs.status = obj.status.health",
            1
        )
    );
}
