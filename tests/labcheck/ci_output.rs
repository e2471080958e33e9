//! Module 10 checked in a CI pipeline: JUnit and TAP documents, `--output FILE` beside the human
//! report, and the exit codes a pipeline acts on.

use labcheck::lab::cluster::{self, Revisions};

use crate::harness::{Run, World, labcheck};

/// Write the cluster of `point` for `world` and return the `--snapshot` path.
pub(crate) fn cluster_file(world: &World, point: &str) -> String {
    let revs = Revisions::of_world(&world.lab).expect("pushed revisions");
    let path = world.home().join("cluster.yaml");
    let snapshot = cluster::solved(point, &revs).expect("a fixture state");
    std::fs::write(&path, snapshot.to_yaml().expect("snapshot as YAML")).expect("write snapshot");
    path.display().to_string()
}

fn run(world: &World, args: &[&str]) -> Run {
    labcheck(world.home(), args)
}

/// XML text back to plain text (the five entities quick-junit writes).
fn unescape(xml: &str) -> String {
    xml.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
fn a_failing_step_in_junit_has_one_failure_per_failed_check_with_its_hint() {
    // The learner did steps 1–3 and runs step 4 before doing it.
    let world = World::at("step-3");
    let snapshot = cluster_file(&world, "step-3");
    let base = ["module-10", "step-4", "--no-wait", "--snapshot", &snapshot];

    let json_run = run(&world, &[&base[..], &["--format", "json"]].concat());
    let report = json_run.json();
    let failed: Vec<&serde_json::Value> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == "fail")
        .collect();
    // Step 4 not started: every one of its checks fails, none is left out of the count below.
    let every_check: Vec<&serde_json::Value> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert_eq!(
        failed.iter().map(|c| &c["id"]).collect::<Vec<_>>(),
        every_check,
        "step 4 not done: {report:#}"
    );

    let file = world.home().join("reports/labcheck.xml");
    std::fs::create_dir_all(world.home().join("reports")).expect("reports folder");
    let file_arg = file.display().to_string();
    let junit_run = run(
        &world,
        &[&base[..], &["--format", "junit", "--output", &file_arg]].concat(),
    );
    assert_eq!(junit_run.code, 1, "a failed check fails the pipeline");
    assert_eq!(junit_run.code, json_run.code);
    assert!(
        junit_run.stdout.contains("step-4: not done yet"),
        "the person at the terminal still gets the human report: {}",
        junit_run.stdout
    );
    let xml = std::fs::read_to_string(&file).expect("the JUnit file was written");
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert_eq!(xml.matches("<testsuite ").count(), 1, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), failed.len(), "{xml}");
    let text = unescape(&xml);
    assert!(
        failed.iter().any(|c| c["hint"].is_string()),
        "step 4's failures come with hints: {report:#}"
    );
    for check in failed {
        let id = check["id"].as_str().unwrap_or_default();
        let hint = check["hint"].as_str().unwrap_or_default();
        assert!(
            text.contains(&format!("name=\"{id}: ")),
            "no test case for {id}"
        );
        assert!(
            text.contains(&format!(
                "<failure message=\"{}\"",
                check["summary"].as_str().unwrap_or_default()
            )),
            "summary of {id} missing\n{xml}"
        );
        assert!(
            hint.is_empty() || text.contains(&format!("hint: {hint}")),
            "hint of {id} missing: {hint}\n{xml}"
        );
    }
}

#[test]
fn a_module_run_gives_one_junit_and_one_tap_document_with_every_step() {
    let world = World::at("step-2");
    let snapshot = cluster_file(&world, "step-2");
    let base = ["module-10", "--no-wait", "--snapshot", &snapshot];
    let steps = run(&world, &[&base[..], &["--format", "json"]].concat()).json()["steps"]
        .as_array()
        .map(Vec::len)
        .unwrap_or_default();
    assert_eq!(steps, 7, "steps 1–5 and both break-it stages");

    let junit = run(&world, &[&base[..], &["--format", "junit"]].concat());
    assert_eq!(junit.code, 1);
    assert_eq!(junit.stdout.matches("<?xml").count(), 1);
    assert_eq!(junit.stdout.matches("<testsuite ").count(), steps);
    assert!(
        junit
            .stdout
            .contains(r#"<testsuite name="module-10 step-2""#)
    );

    let tap = run(&world, &[&base[..], &["--format", "tap"]].concat());
    assert_eq!(tap.code, 1);
    assert!(
        tap.stdout
            .starts_with("TAP version 13\n1..7\n# Subtest: module-10 step-1\n"),
        "{}",
        tap.stdout
    );
    assert_eq!(tap.stdout.matches("# Subtest: ").count(), steps);
    tap.assert_stdout_has(&[
        "\nok 2 - module-10 step-2: ",
        "\nnot ok 4 - module-10 step-4: ",
    ]);
}

#[test]
fn an_unreachable_cluster_is_a_junit_error_never_a_failure() {
    // Step 2 done in git, but no kubeconfig on this machine: the cluster checks cannot look.
    let world = World::at("step-2");
    let run = run(
        &world,
        &["module-10", "step-2", "--no-wait", "--format", "junit"],
    );
    assert_eq!(run.code, 3, "could not check: {}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("<failure"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("<error message=\"could not check: no kubeconfig found"),
        "{}",
        run.stdout
    );
}

#[test]
fn output_needs_a_machine_format_and_a_folder_that_exists() {
    let world = World::at("fresh");
    let human = run(&world, &["module-10", "step-1", "--output", "report.xml"]);
    assert_eq!(human.code, 2);
    human.assert_stderr_has(&["add -o junit, tap, json or yaml"]);
    assert!(!world.home().join("report.xml").exists());

    let missing = run(
        &world,
        &[
            "module-10",
            "step-1",
            "--no-wait",
            "--format",
            "tap",
            "--output",
            "no/such/folder/report.tap",
        ],
    );
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("cannot write the report to no/such/folder/report.tap"),
        "{}",
        missing.stderr
    );
}

#[test]
fn docs_ci_documents_every_format_and_exit_code_the_help_offers() {
    let world = World::at("fresh");
    let help = run(&world, &["--help"]).stdout;
    let doc = include_str!("../../docs/ci.md");
    let formats: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("-o, --format"))
        .skip_while(|l| !l.contains("Possible values"))
        .skip(1)
        .take_while(|l| l.trim_start().starts_with("- "))
        .filter_map(|l| l.trim_start().strip_prefix("- ")?.split(':').next())
        .collect();
    assert_eq!(
        formats,
        crate::report_snapshots::formats().collect::<Vec<_>>(),
        "{help}"
    );
    for format in formats {
        assert!(
            doc.contains(&format!("`-o {format}`")),
            "docs/ci.md lost {format}"
        );
    }
    for code in ["| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"] {
        assert!(doc.contains(code), "docs/ci.md lost exit code {code}");
    }
    assert!(
        doc.contains("labcheck module-10 --report junit=labcheck.xml --report json=labcheck.json")
    );
}
