//! `labcheck course test|lint`: module 10's fixtures are the lab worlds of the demo and the tests;
//! the self-test passes on them, and catches a fixture, a check or a reference an instructor broke.

use std::path::Path;

use crate::harness::{Labcheck, MODULE_10_STEPS, labcheck};

/// `course test` runs every solution for real, twice and on the learner's variants (real git
/// commits and pushes): on a machine shared by parallel tests it takes minutes, not seconds.
const COURSE_TEST_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// `labcheck ARGS` from `home`, given the time a course test takes.
fn course_test(home: &Path, args: &[&str]) -> crate::harness::Run {
    Labcheck::new(home)
        .args(args)
        .limit(COURSE_TEST_LIMIT)
        .run()
}

/// The demo and the tests build a world at a point by running the solutions up to it (and copy it
/// from this run's built worlds); `course test` applies each step's fixture `solved:` state on
/// its own world. They must be the same worlds, to the commit: same files, same messages, same
/// clock, so a test's SHAs are the ones the course test vouched for.
#[test]
fn the_lab_world_is_the_world_the_course_test_builds_to_the_commit() {
    use labcheck::course::Course;
    use labcheck::course::fixtures::ModuleFixtures;
    use labcheck::course::placeholders::Revision;
    use labcheck::lab::world::LabWorld;

    let scratch = tempfile::tempdir().expect("a temp dir");
    let course = Course::embedded().expect("the built-in course");
    let module = course.module("module-10").expect("module 10");
    let fixtures = ModuleFixtures::load(&course, module).expect("its fixtures");
    let course_test = LabWorld::create(
        &scratch.path().join("course-test"),
        module,
        &fixtures.initial,
    )
    .expect("the course test's world");
    for step in &fixtures.steps {
        course_test
            .apply(&step.solved.changes)
            .expect("the step's solved changes");
    }
    let lab = labcheck::lab::cache::at(&scratch.path().join("lab"), "module-10", "break-it/fix")
        .expect("the lab world");
    let repos: Vec<&str> = lab.repo_names().collect();
    assert_eq!(repos.len(), 3, "{repos:?}");
    for repo in repos {
        let head = course_test.revision(Revision::Head, repo).expect("a HEAD");
        assert_eq!(
            lab.repo(repo).and_then(|r| r.head_sha()).expect("a HEAD"),
            head,
            "{repo}: the lab world and the course test's world differ"
        );
    }
}

/// A copy of the shipped course (modules/ and expected/) that a test may edit.
struct CourseCopy {
    dir: tempfile::TempDir,
}

impl CourseCopy {
    fn new() -> CourseCopy {
        let dir = tempfile::tempdir().expect("a temp dir");
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for part in ["modules", "expected"] {
            copy_dir(&root.join(part), &dir.path().join(part));
        }
        CourseCopy { dir }
    }

    fn path(&self) -> &str {
        self.dir.path().to_str().expect("a UTF-8 temp path")
    }

    /// Run labcheck with `args` on this course (`--course-dir` added), from an empty home.
    fn run(&self, args: &[&str]) -> crate::harness::Run {
        let home = tempfile::tempdir().expect("a temp dir");
        let mut all = args.to_vec();
        all.extend(["--course-dir", self.path()]);
        course_test(home.path(), &all)
    }

    /// Replace `old` (which must be there once) with `new` in the course file `rel`.
    fn edit(&self, rel: &str, old: &str, new: &str) {
        let path = self.dir.path().join(rel);
        let text = std::fs::read_to_string(&path).expect("a course file");
        assert_eq!(text.matches(old).count(), 1, "`{old}` once in {rel}");
        std::fs::write(&path, text.replacen(old, new, 1)).expect("course file written");
    }

    /// Module 10 with step 1 only, so a run builds a handful of worlds.
    fn step_1_only(self) -> CourseCopy {
        self.edit(
            "modules/module-10/module.yaml",
            "steps: [step-1, step-2, step-3, step-4, step-5, break-it]",
            "steps: [step-1]",
        );
        self
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("readable folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("file copied");
        }
    }
}

/// Module 10 as shipped, in the whole course's run: every step and stage has its solved state
/// and at least two broken variants, and step 4's not-pushed variant fails on the push check.
fn module_10_as_shipped(json: &serde_json::Value) {
    assert_eq!(json["status"], "pass");
    let states = json["modules"]
        .as_array()
        .and_then(|modules| modules.iter().find(|m| m["module"] == "module-10"))
        .and_then(|m| m["states"].as_array())
        .cloned()
        .unwrap_or_default();
    for step in MODULE_10_STEPS {
        let solved = states
            .iter()
            .filter(|s| s["step"] == step && s["kind"] == "solved")
            .count();
        let broken = states
            .iter()
            .filter(|s| s["step"] == step && s["kind"] == "broken")
            .count();
        assert_eq!(solved, 1, "{step} has one solved state");
        assert!(broken >= 2, "{step} has at least two broken variants");
    }
    let not_pushed = states
        .iter()
        .find(|s| s["step"] == "step-4" && s["state"] == "not-pushed")
        .expect("step-4 not-pushed");
    assert!(
        not_pushed["failed"]
            .as_array()
            .is_some_and(|f| f.iter().any(|id| id == "release-pushed")),
        "{not_pushed:#}"
    );
}

#[test]
fn instructor_who_puts_the_typo_into_the_solution_sees_course_test_fail() {
    // The solved state is the solution applied: a slip in the solution fails it, and the walk.
    let course = CourseCopy::new().step_1_only();
    course.edit(
        "modules/module-10/step-1.yaml",
        "          hs.status = obj.status.health.status\n",
        "          hs.status = obj.status.health\n",
    );
    let run = course.run(&["course", "test", "module-10"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("✗ step-1           solved                 must pass, but does not"),
        "{}",
        run.stdout
    );
    run.assert_stdout_has(&["`health-check-added` failed:"]);
    assert!(
        // Six fixture states, the solved one again beside a learner's stray files, and the
        // walk's eight (before, the lab's files and six learner variants): every state built on
        // the solution fails; the typo variant, the fresh lab and the walk's "before" hold.
        run.stdout.contains("15 states, 3 as declared, 12 not"),
        "{}",
        run.stdout
    );
}

#[test]
fn instructor_who_lists_changes_under_solved_is_told_the_solution_is_the_solved_state() {
    let course = CourseCopy::new().step_1_only();
    course.edit(
        "modules/module-10/fixtures/step-1.yaml",
        "solved:\n",
        "solved:\n  changes:\n    - { repo: argocd-platform, push: true }\n",
    );
    let run = course.run(&["course", "lint"]);
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("fixtures/step-1.yaml")
            && said.contains("the solved state is the step's own `solution:`"),
        "{said}"
    );
}

#[test]
fn instructor_who_weakens_the_push_check_sees_the_not_pushed_variant_slip_through() {
    let course = CourseCopy::new().step_1_only();
    course.edit(
        "modules/module-10/step-1.yaml",
        "    git:\n      repo: argocd-platform\n      pushed: true\n      made:\n        file: argocd/values.yaml\n        path: 'configs.cm[\"resource.customizations.health.argoproj.io_Application\"]'\n        present: true\n",
        "    git: { repo: argocd-platform, branch: main }\n",
    );
    let run = course.run(&["course", "test", "module-10", "--format", "json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    let states = json["modules"][0]["states"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let bad: Vec<&serde_json::Value> = states
        .iter()
        .filter(|s| s["problems"] != serde_json::json!([]))
        .collect();
    assert_eq!(bad.len(), 2, "{json:#}");
    assert_eq!(bad[0]["state"], "not-pushed");
    let problem = bad[0]["problems"][0].as_str().unwrap_or_default();
    assert!(
        problem.starts_with("`platform-pushed` must fail but passed"),
        "{problem}"
    );
    // The fresh lab catches it too: "your commit is pushed" with nothing committed.
    assert_eq!(bad[1]["state"], "fresh");
    assert_eq!(bad[1]["kind"], "fresh");
    let problem = bad[1]["problems"][0].as_str().unwrap_or_default();
    assert!(
        problem.starts_with("`platform-pushed` (\"your commit is pushed to origin/main\") claims an action (`commit`) but passes on the fresh lab"),
        "{problem}"
    );
}

#[test]
fn course_lint_passes_on_the_shipped_course() {
    let home = tempfile::tempdir().expect("a temp dir");
    let run = labcheck(home.path(), &["course", "lint"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.starts_with("✓ course lint: "), "{}", run.stdout);
    assert!(
        run.stdout.ends_with(" module(s), no problems\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn course_lint_names_a_misspelt_reference_and_a_fixture_that_names_no_check() {
    let course = CourseCopy::new();
    course.edit(
        "modules/module-10/step-1.yaml",
        "expected: argocd-health-check.yaml",
        "expected: argocd-health-checks.yaml",
    );
    course.edit(
        "modules/module-10/fixtures/step-3.yaml",
        "fails: [last-sync-order]\n    causes: {last-sync-order: sync-not-of-push}\n",
        "fails: [last-sync-ordre]\n",
    );
    let run = course.run(&["course", "lint"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].contains("step-1.yaml: step-1: check `health-check-added` compares with `expected: argocd-health-checks.yaml`, and labcheck cannot read expected/kind/module-10/argocd-health-checks.yaml") && lines[0].contains("No such file or directory"), "{}", lines[0]);
    assert!(lines[1].ends_with("modules/module-10/fixtures/step-3.yaml: step-3: broken variant `hooks-never-synced` names check `last-sync-ordre` in `fails:`, but the step has no such check; it has configmap-wave, last-sync-order"), "{}", lines[1]);
    assert_eq!(lines[2], "course lint: 2 problem(s)");
}

#[test]
fn course_lint_points_at_a_misspelt_placeholder() {
    let course = CourseCopy::new();
    let rel = "modules/module-10/fixtures/cluster/step-3-solved.yaml";
    let text = std::fs::read_to_string(course.dir.path().join(rel)).expect("snapshot");
    let line = text
        .lines()
        .position(|l| l.contains("${pushed:checkout-config}"))
        .expect("a placeholder")
        + 1;
    std::fs::write(
        course.dir.path().join(rel),
        text.replacen("${pushed:checkout-config}", "${pushd:checkout-config}", 1),
    )
    .expect("snapshot written");
    let run = course.run(&["course", "lint"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let expected = format!("step-3-solved.yaml:{line}:");
    assert!(
        run.stdout.contains(&expected),
        "{expected} in {}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("`${pushd:checkout-config}` is not a placeholder"),
        "{}",
        run.stdout
    );
}

/// What `course lint` says of the course with one edit (`from` → `to` in `file`), which it
/// must refuse.
fn lint_refuses_after(file: &str, from: &str, to: &str) -> String {
    let course = CourseCopy::new();
    course.edit(file, from, to);
    let run = course.run(&["course", "lint"]);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{to}: {said}");
    said
}

/// A course file keys a hint by a cause labcheck never gives, writes the course's default work
/// dir instead of `${work}`, or uses a placeholder hints do not know: `course lint` refuses each,
/// the first two at the file's line.
#[test]
fn course_lint_refuses_an_unknown_cause_a_literal_work_dir_and_a_bad_hint_placeholder() {
    let step5 = "modules/module-10/step-5.yaml";
    let cases: [(&str, &str, &str, &str); 3] = [
        (
            "        app-degraded: &step5-degraded \"A resource",
            "        app-degradd: &step5-degraded \"A resource",
            "`app-degradd` is not a cause labcheck gives (did you mean `app-degraded`?)",
            "step-5.yaml:",
        ),
        (
            "cd ${work}/checkout-config && git push -q",
            "cd ~/work/checkout-config && git push -q",
            "check `revert-pushed` writes `~/work` in a hint",
            "step-5.yaml: step-5:",
        ),
        (
            "cd ${work}/checkout-config && git push -q",
            "cd ${workdir}/checkout-config && git push -q",
            "`${workdir}` is not a placeholder a hint may use",
            "step-5.yaml:",
        ),
    ];
    for (from, to, says, at) in cases {
        let all = lint_refuses_after(step5, from, to);
        assert!(all.contains(says), "{to}: {all}");
        assert!(all.contains(at), "{to}: {all}");
    }
}

/// A hint sends the learner to a file: `course lint` refuses one the lab does not have and no
/// solution up to the step writes (a mistyped ending), and a `${work}/REPO` of no listed repo.
/// The shipped course names only files that are there (the test above), among them one a
/// solution creates (module 11's smoke test) and paths that end a sentence.
#[test]
fn course_lint_refuses_a_hint_that_names_a_file_the_lab_does_not_have() {
    let step4 = "modules/module-10/step-4.yaml";
    let cases: [(&str, &str, &str, &str); 3] = [
        (
            step4,
            "is in ${work}/checkout-config/helm/dev.yaml already",
            "is in ${work}/checkout-config/helm/dev.yml already",
            "check `migration-fails` sends the learner to `${work}/checkout-config/helm/dev.yml`, which the lab does not have",
        ),
        (
            step4,
            "is in ${work}/checkout-config/helm/dev.yaml already",
            "is in ${work}/checkout-confg/helm/dev.yaml already",
            "names `${work}/checkout-confg/helm/dev.yaml` in a hint, and no repo module.yaml lists is there",
        ),
        // The repo's folder under the work dir is its `path:` when it has one: the hints that
        // still name `${work}/checkout-config` send the learner where the repo is not.
        (
            "modules/module-10/module.yaml",
            "  - name: checkout-config\n",
            "  - name: checkout-config\n    path: team/checkout-config\n",
            "names `${work}/checkout-config/helm/dev.yaml` in a hint, and no repo module.yaml lists is there (argocd-platform, team/checkout-config, argocd-gitops)",
        ),
    ];
    for (file, from, to, says) in cases {
        let all = lint_refuses_after(file, from, to);
        assert!(all.contains(says), "{to}: {all}");
        assert!(all.contains("step-4.yaml: step-4:"), "{to}: {all}");
    }
}

/// module.yaml's `get:` texts name the work dir as hints do: `course lint` refuses `~/work`
/// written out (doctor would send a learner with a work dir of their own to clone elsewhere)
/// and a placeholder other than `${work}`, at the line and column in module.yaml.
#[test]
fn course_lint_refuses_a_get_text_that_writes_the_work_dir_out() {
    let module = "modules/module-10/module.yaml";
    let cases = [
        (
            "checkout-config.git ${work}/checkout-config",
            "checkout-config.git ~/work/checkout-config",
            "module.yaml:12:",
            "repo `checkout-config`: its `get:` writes `~/work`",
        ),
        (
            "apps/checkout-dev.yaml in ${work}/argocd-platform",
            "apps/checkout-dev.yaml in ${workdir}/argocd-platform",
            "module.yaml:20:",
            "application `checkout-dev`: its `get:`: `${workdir}` is not a placeholder",
        ),
    ];
    for (from, to, at, says) in cases {
        let said = lint_refuses_after(module, from, to);
        assert!(said.contains(says), "{to}: {said}");
        assert!(said.contains(at), "{to}: {said}");
    }
}

/// A course edit that leaves a cause a check can fail with without a hint, or shows a text for
/// causes its author never said it fits, is refused by `course lint` at the file, line and
/// column of the hint part at fault; the shipped course has none (see the test above).
#[test]
fn course_lint_refuses_a_cause_left_without_a_hint_at_its_file_line_and_column() {
    struct Case {
        file: &'static str,
        from: &'static str,
        to: &'static str,
        /// The text the problem is pointed at (its first character), in the edited file.
        at: &'static str,
        says: &'static str,
    }
    let cases = [
        // A by_cause key taken out: the smoke test that did not fail gets no hint.
        Case {
            file: "modules/module-10/break-it.yaml",
            from: "            hook-result: \"checkout-smoke-test did not fail",
            to: "            hook-not-run: \"checkout-smoke-test did not fail",
            at: "by_cause:\n            hook-not-run",
            says: "check `postsync-hook-failed` can fail with `hook-result:checkout-smoke-test`, and no hint says what to do then",
        },
        // One text for every cause, on a check that can fail with many.
        Case {
            file: "modules/module-10/step-2.yaml",
            from: "    hint:\n      by_cause:\n        not-seen-yet: \"Let Argo CD see your push: `argocd app get checkout-dev --refresh`.\"",
            to: "    hint: \"Let Argo CD see your push: `argocd app get checkout-dev --refresh`.\"",
            at: "\"Let Argo CD see your push",
            says: "check `app-synced` has one `hint:` for every cause",
        },
        // A default nothing declares fit, the only hint for two causes.
        Case {
            file: "modules/module-10/step-4.yaml",
            from: "      default_for: [job-complete, job-missing]\n",
            to: "",
            at: "\"The migration fails only with",
            says: "check `migrate-job-failed`'s `default:` would be the only hint for `job-complete:checkout-migrate`, `job-missing:checkout-migrate`",
        },
        // Declared fit for a cause the check cannot give.
        Case {
            file: "modules/module-10/step-4.yaml",
            from: "default_for: [job-complete, job-missing]",
            to: "default_for: [job-complete, job-missing, log-mismatch]",
            at: "log-mismatch]",
            says: "check `migrate-job-failed` declares `default:` fits `log-mismatch`, a cause it cannot fail with",
        },
        // Keyed by a cause the check cannot give (it has no `clean:`).
        Case {
            file: "modules/module-10/step-1.yaml",
            from: "by_cause: { not-committed: *commit-and-push }",
            to: "by_cause: { uncommitted-changes: *commit-and-push }",
            at: "uncommitted-changes: *commit",
            says: "check `platform-pushed` keys a hint by `uncommitted-changes`, a cause it cannot fail with",
        },
    ];
    for case in cases {
        let course = CourseCopy::new();
        course.edit(case.file, case.from, case.to);
        let text = std::fs::read_to_string(course.dir.path().join(case.file)).expect("edited");
        let offset = text.find(case.at).expect("the edited text");
        let line = text[..offset].matches('\n').count() + 1;
        let column = offset - text[..offset].rfind('\n').map_or(0, |n| n + 1) + 1;
        let run = course.run(&["course", "lint"]);
        assert_eq!(run.code, 1, "{}: {}{}", case.says, run.stdout, run.stderr);
        let problem = run
            .stdout
            .lines()
            .find(|l| l.contains(case.says))
            .unwrap_or_else(|| panic!("{}: {}", case.says, run.stdout));
        let at = format!("{}:{line}:{column}: ", case.file);
        assert!(problem.contains(&at), "{at} in {problem}");
        assert_eq!(
            run.stdout.lines().filter(|l| l.starts_with('✗')).count(),
            1,
            "only this problem: {}",
            run.stdout
        );
    }
}

/// `course lint --causes` lists each check's causes by what serves them, the same in JSON.
#[test]
fn course_lint_lists_each_checks_causes_by_the_hint_that_serves_them() {
    let home = tempfile::tempdir().expect("a temp dir");
    let run = labcheck(home.path(), &["course", "lint", "--causes", "-o", "json"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let rows = json["causes"].as_array().expect("causes");
    let row = |step: &str, check: &str| {
        rows.iter()
            .find(|r| r["module"] == "module-10" && r["step"] == step && r["check"] == check)
            .unwrap_or_else(|| panic!("{step} {check}"))
    };
    let names = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(String::from))
            .collect()
    };
    let sync = row("break-it/break", "sync-failed-app-healthy");
    assert_eq!(sync["kind"], "argocd_app");
    for keyed in [
        "sync-phase:Succeeded",
        "app-degraded",
        "app-not-healthy",
        "app-health",
    ] {
        assert!(
            names(&sync["keyed"]).contains(&keyed.to_string()),
            "{keyed}: {sync}"
        );
    }
    // The "sync it" default is declared for no cause here that lacks labcheck's own hint.
    assert!(names(&sync["default"]).is_empty(), "{sync}");
    assert!(
        names(&sync["labcheck"]).contains(&"not-seen-yet".to_string()),
        "{sync}"
    );
    let job = row("step-4", "migrate-job-failed");
    assert_eq!(
        names(&job["default"]),
        [
            "job-complete:checkout-migrate",
            "job-missing:checkout-migrate"
        ]
    );
    for row in rows {
        assert!(names(&row["none"]).is_empty(), "{row}");
    }
}

/// The walk's states of a `course test --format json` run: (module, step, state, problems).
fn walk_states(json: &serde_json::Value) -> Vec<(String, String, String, Vec<String>)> {
    let mut out = Vec::new();
    for module in json["modules"].as_array().into_iter().flatten() {
        for state in module["states"].as_array().into_iter().flatten() {
            let kind = state["kind"].as_str().unwrap_or_default();
            if kind == "walk" || kind == "walk-before" {
                out.push((
                    module["module"].as_str().unwrap_or_default().to_string(),
                    state["step"].as_str().unwrap_or_default().to_string(),
                    state["state"].as_str().unwrap_or_default().to_string(),
                    state["problems"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|p| p.as_str().map(str::to_string))
                        .collect(),
                ));
            }
        }
    }
    out
}

#[test]
fn course_test_passes_on_the_shipped_course_and_walks_every_solution_for_real() {
    let home = tempfile::tempdir().expect("a temp dir");
    let run = course_test(home.path(), &["course", "test", "--format", "json"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    module_10_as_shipped(&run.json());
    let walked = walk_states(&run.json());
    let course = labcheck::course::Course::embedded().expect("the course loads");
    for module in &course.modules {
        for step in &module.steps {
            // A step that edits a YAML file by path is walked on the learner's variants too.
            let edits = step
                .solution
                .iter()
                .any(|a| matches!(a, labcheck::course::solution::SolutionAction::Set { .. }));
            let variants: &[&str] = if edits {
                &[
                    "walk-keys-reordered",
                    "walk-flow-style",
                    "walk-crlf",
                    "walk-half-done",
                    "walk-comments-changed",
                ]
            } else {
                &[]
            };
            for state in ["walk-before", "walk"].iter().chain(variants) {
                assert!(
                    walked
                        .iter()
                        .any(|(m, s, st, problems)| m == &module.manifest.module
                            && s == &step.name
                            && st == state
                            && problems.is_empty()),
                    "{} {} {state}: {walked:?}",
                    module.manifest.module,
                    step.name
                );
            }
        }
    }
}

#[test]
fn a_solution_that_forgets_to_push_fails_the_walk_on_the_push_check() {
    let course = CourseCopy::new();
    course.edit(
        "modules/module-10/step-4.yaml",
        "  - run: { repo: checkout-config, command: [git, push, -q] }\n  - argocd: [app, get, checkout-dev, --refresh]",
        "  - argocd: [app, get, checkout-dev, --refresh]",
    );
    let run = course.run(&["course", "test", "module-10", "step-4", "--format", "json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let walked = walk_states(&run.json());
    let bad: Vec<_> = walked
        .iter()
        .filter(|(.., problems)| !problems.is_empty())
        .collect();
    let (_, step, state, problems) = bad.first().expect("a walk state that does not hold");
    assert_eq!(
        (step.as_str(), state.as_str()),
        ("step-4", "walk"),
        "{bad:?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with(
            "`release-pushed` does not pass after the solution ran: main is 1 commit ahead"
        )),
        "{problems:?}"
    );
}

#[test]
fn a_solution_that_sets_a_misspelt_path_fails_the_walk_on_the_check_that_reads_it() {
    let course = CourseCopy::new();
    course.edit(
        "modules/module-10/step-4.yaml",
        "path: migration.fail, value: true",
        "path: migration.fails, value: true",
    );
    let run = course.run(&["course", "test", "module-10", "step-4", "--format", "json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let walked = walk_states(&run.json());
    let step_4 = walked
        .iter()
        .find(|(_, step, state, _)| step == "step-4" && state == "walk")
        .expect("step 4's walk");
    assert!(
        step_4
            .3
            .iter()
            .any(|p| p.starts_with("`migration-fails` does not pass after the solution ran")),
        "{:?}",
        step_4.3
    );
}

/// `git revert --no-edit HEAD` by hand is the course text's own words, but run twice it reverts
/// the revert: the walk's second run catches what a learner who re-runs the script would get.
#[test]
fn a_solution_that_reverts_head_by_hand_is_caught_undoing_itself_on_its_second_run() {
    let course = CourseCopy::new();
    course.edit(
        "modules/module-10/step-5.yaml",
        "  - revert: { repo: checkout-config, change: { file: helm/dev.yaml, path: migration.fail, equals: true } }",
        "  - run: { repo: checkout-config, command: [git, revert, --no-edit, HEAD] }",
    );
    let run = course.run(&["course", "test", "module-10", "step-5", "--format", "json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let walked = walk_states(&run.json());
    let step_5 = walked
        .iter()
        .find(|(_, step, state, _)| step == "step-5" && state == "walk")
        .expect("step 5's walk");
    assert!(
        step_5
            .3
            .iter()
            .any(|p| p.starts_with("run a second time, the solution changed the repos again")),
        "{:?}",
        step_5.3
    );
}

/// A solution edits a YAML file by line: `course lint` refuses it at the item's own line and
/// column. (A solution command that adds everything is refused at its line too: stray files.)
#[test]
fn course_lint_places_a_line_edit_of_a_yaml_file_at_the_item() {
    let step4 = "modules/module-10/step-4.yaml";
    let from = "  - set: { repo: checkout-config, file: helm/dev.yaml, path: image.tag, value: \"6.7.0\" }";
    let to = "  - replace: { repo: checkout-config, file: helm/dev.yaml, line: '  tag: \"6.7.1\"', with: '  tag: \"6.7.0\"' }";
    let course = CourseCopy::new();
    course.edit(step4, from, to);
    let text = std::fs::read_to_string(course.dir.path().join(step4)).expect("step 4");
    let line = text.lines().position(|l| l == to).expect("the edited line") + 1;
    let run = course.run(&["course", "lint"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let at = format!(
        "step-4.yaml:{line}:5: step-4: solution item 3: `helm/dev.yaml` is a YAML file: edit it by path with `set:`"
    );
    assert!(run.stdout.contains(&at), "{at} in {}", run.stdout);
}

/// Replacement is course data: `course lint` holds every `replaced_by:` to later steps of the
/// module, and says what took `transient:`'s place.
#[test]
fn course_lint_refuses_a_replacement_the_course_cannot_mean() {
    let cases = [
        (
            "a step that does not exist",
            "replaced_by: [step-5]",
            "replaced_by: [step-6]",
            "`replaced_by:` names `step-6`, which is not a step of this module",
        ),
        (
            "an earlier step",
            "replaced_by: [step-5]",
            "replaced_by: [step-3]",
            "step `step-4` says it is `replaced_by: [step-3]`, but `step-3` does not come after it",
        ),
        (
            "itself",
            "replaced_by: [step-5]",
            "replaced_by: [step-4]",
            "`step-4` does not come after it",
        ),
        (
            "the old spelling",
            "replaced_by: [step-5]",
            "transient: true",
            "`transient:` is no longer read: say which later steps replace what this step looks at, e.g. `replaced_by: [step-5]`",
        ),
    ];
    for (what, from, to, says) in cases {
        let course = CourseCopy::new();
        course.edit("modules/module-10/step-4.yaml", from, to);
        let run = course.run(&["course", "lint"]);
        assert_ne!(run.code, 0, "{what}: {}{}", run.stdout, run.stderr);
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(said.contains("step-4.yaml"), "{what}: {said}");
        assert!(said.contains(says), "{what}: {says} in {said}");
    }
}

/// A broken state declares why its checks fail (`causes:`): lint refuses a cause labcheck never
/// gives or one for a check outside `fails:`, and course test fails a state that fails for
/// another reason than the declared one.
#[test]
fn a_broken_state_must_fail_for_the_cause_it_declares() {
    let lint_cases = [
        (
            "sync-failed: \"sync-phase:Running\"",
            "sync-failed: sync-fase",
            "says `sync-failed` fails with cause `sync-fase`, which labcheck never gives",
        ),
        (
            "sync-failed: \"sync-phase:Running\"",
            "release-pushed: not-pushed",
            "declares a cause for `release-pushed`, which is not in its `fails:`",
        ),
    ];
    for (from, to, says) in lint_cases {
        let said = lint_refuses_after("modules/module-10/fixtures/step-4.yaml", from, to);
        assert!(said.contains(says), "{says} in {said}");
    }

    let course = CourseCopy::new();
    course.edit(
        "modules/module-10/fixtures/step-4.yaml",
        "sync-failed: \"sync-phase:Running\"",
        "sync-failed: retrying",
    );
    let run = course.run(&["course", "test", "module-10", "step-4"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "`sync-failed` fails, but with cause `sync-phase:Running`, not the declared `retrying`"
        ),
        "{}",
        run.stdout
    );
}

/// A hint or a solution that adds everything (`git add -A`, `git add .`, `git add --all`, `git
/// commit -a`) would commit a learner's `.env` and push it: `course lint` refuses each at its line.
#[test]
fn course_lint_refuses_a_hint_or_solution_that_adds_everything() {
    let step4 = "modules/module-10/step-4.yaml";
    let cases = [
        (
            "git add -- helm/dev.yaml && git commit -qm \"checkout: 6.7.0",
            "git add -A && git commit -qm \"checkout: 6.7.0",
            "`git add -A`",
        ),
        (
            "git add -- helm/dev.yaml && git commit -qm \"checkout: 6.7.0",
            "git add . && git commit -qm \"checkout: 6.7.0",
            "`git add .`",
        ),
        (
            "git add -- helm/dev.yaml && git commit -qm \"checkout: 6.7.0",
            "git commit -qam \"checkout: 6.7.0",
            "`git commit -qam`",
        ),
        (
            "command: [git, add, --, helm/dev.yaml]",
            "command: [git, add, --all]",
            "solution item",
        ),
    ];
    let at = regex::Regex::new(r"step-4\.yaml:\d+:\d+: ").unwrap();
    for (from, to, says) in cases {
        let course = CourseCopy::new();
        course.edit(step4, from, to);
        let run = course.run(&["course", "lint"]);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert_ne!(run.code, 0, "{to}: {all}");
        assert!(all.contains(says), "{to}: {all}");
        assert!(all.contains("adds everything"), "{to}: {all}");
        assert!(at.is_match(&all), "{to}: {all}");
    }
}

/// An instructor who changed step 2 tests only step 2: its states, its fresh state and its walk;
/// nothing of another step is judged, and a step the module does not have is a usage error.
/// (An exercise selecting its stages: `selftest`'s unit tests.)
#[test]
fn instructor_tests_only_the_step_they_changed() {
    let home = tempfile::tempdir().expect("a temp dir");
    let run = course_test(
        home.path(),
        &["course", "test", "module-10", "step-2", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    let states = json["modules"][0]["states"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let steps: std::collections::BTreeSet<&str> =
        states.iter().filter_map(|s| s["step"].as_str()).collect();
    assert_eq!(
        steps,
        std::collections::BTreeSet::from(["step-2"]),
        "{json:#}"
    );
    for kind in ["solved", "broken", "walk"] {
        assert!(states.iter().any(|s| s["kind"] == kind), "{kind}: {json:#}");
    }

    let unknown = course_test(home.path(), &["course", "test", "module-10", "step-9"]);
    assert_eq!(unknown.code, 2, "{}{}", unknown.stdout, unknown.stderr);
    assert!(
        unknown
            .stderr
            .contains("module-10 has no step step-9 to test; its steps: step-1"),
        "{}",
        unknown.stderr
    );
}
