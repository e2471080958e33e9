//! The command line itself: tracks, unknown names, exit codes, help that tells the truth.

use crate::harness::{World, labcheck};

/// A course with two tracks, where one check only applies to `kind`.
fn two_track_course() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let module = dir.path().join("modules/module-t");
    std::fs::create_dir_all(&module).expect("module dir");
    std::fs::create_dir_all(dir.path().join("expected")).expect("expected dir");
    std::fs::write(
        module.join("module.yaml"),
        format!(
            "format: labcheck/v1\nmodule: module-t\ntitle: Tracks\ntracks:\n  default: kind\n  available: [kind, cloud]\n{}steps: [step-1]\n",
            crate::harness::REPOS_YAML
        ),
    )
    .expect("module.yaml");
    std::fs::write(
        module.join("step-1.yaml"),
        r#"format: labcheck/v1
title: "Tracks"
checks:
  - id: pushed
    title: "argocd-platform is pushed"
    git: { repo: argocd-platform, pushed: true }
  - id: kind-only
    title: "helm values only the kind track has"
    tracks: [kind]
    yaml_value: { repo: checkout-config, file: helm/kind.yaml, path: cluster, equals: kind }
"#,
    )
    .expect("step file");
    dir
}

#[test]
fn a_check_of_another_track_is_skipped_and_does_not_fail_the_step() {
    let world = World::at("step-1");
    let course = two_track_course();
    let course_dir = course.path().display().to_string();
    let step_1 = |more: &[&str]| {
        let args = ["--course-dir", &course_dir, "module-t", "step-1"];
        labcheck(
            world.home(),
            &[&args[..], &["--format", "json"], more].concat(),
        )
    };
    let on_kind = step_1(&[]);
    assert_eq!(
        on_kind.check("kind-only")["status"],
        "fail",
        "{}",
        on_kind.stdout
    );
    assert_eq!(on_kind.code, 1);

    let on_cloud = step_1(&["--track", "cloud"]);
    let skipped = on_cloud.check("kind-only");
    assert_eq!(skipped["status"], "skip", "{}", on_cloud.stdout);
    assert!(
        skipped["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("cloud")
    );
    assert_eq!(on_cloud.json()["track"], "cloud");
    assert_eq!(on_cloud.json()["status"], "pass");
    assert_eq!(on_cloud.code, 0);
}

#[test]
fn an_unknown_track_step_or_module_is_a_usage_error_that_lists_the_choices() {
    let world = World::at("fresh");
    let track = labcheck(world.home(), &["module-10", "step-1", "--track", "mars"]);
    assert_eq!(track.code, 2);
    track.assert_stderr_has(&["choose one of: kind"]);

    let step = labcheck(world.home(), &["module-10", "step-9"]);
    assert_eq!(step.code, 2);
    step.assert_stderr_has(&["no step `step-9`", "break-it/fix"]);

    let module = labcheck(world.home(), &["module-99"]);
    assert_eq!(module.code, 2);
    module.assert_stderr_has(&["available: module-10"]);

    let nothing = labcheck(world.home(), &[]);
    assert_eq!(nothing.code, 2);
    nothing.assert_stderr_has(&["labcheck list"]);
}

#[test]
fn a_bad_wait_in_a_check_file_points_at_the_check_that_holds_it() {
    let world = World::at("fresh");
    let course = crate::harness::TestCourse::new(&[(
        "step-1",
        "  - id: slow\n    title: slow\n    wait: soon\n    git: { repo: argocd-platform, pushed: true }\n",
    )]);
    let run = labcheck(
        world.home(),
        &[
            "--course-dir",
            &course.path().display().to_string(),
            "module-t",
            "step-1",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&[
        "step-1.yaml:4:5: checks[0]",
        "`wait: soon` is not a duration",
    ]);
}

#[test]
fn list_shows_every_step_and_stage_of_module_10() {
    let world = World::at("fresh");
    let run = labcheck(world.home(), &["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for step in ["step-1", "step-5", "break-it/break", "break-it/fix"] {
        run.assert_stdout_has(&[step]);
    }
}

#[test]
fn help_names_the_exit_codes_the_readme_documents() {
    let world = World::at("fresh");
    let run = labcheck(world.home(), &["--help"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains(
            "0 passed, 1 a check failed, 2 usage or course-file error, 3 could not check"
        )
    );
    let readme = include_str!("../../README.md");
    for line in [
        "| 0 | every check passed |",
        "| 1 | at least one check failed |",
        "| 3 | nothing failed, but something could not be checked |",
    ] {
        assert!(readme.contains(line), "README lost `{line}`");
    }
}

#[test]
fn version_names_labcheck_its_version_and_the_course_it_carries() {
    let home = tempfile::tempdir().expect("temp dir");
    let run = labcheck(home.path(), &["--version"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run.stdout.trim_end();
    let prefix = format!(
        "labcheck {} (course module-10 module-11, fingerprint ",
        env!("CARGO_PKG_VERSION")
    );
    let fingerprint = line
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("`{line}` does not start with `{prefix}`"));
    assert!(
        fingerprint.len() == 16 && fingerprint.chars().all(|c| c.is_ascii_hexdigit()),
        "the course's fingerprint is 16 hex digits: `{fingerprint}`"
    );
}
