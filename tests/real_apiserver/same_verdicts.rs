//! Same verdicts: every fixture state of modules 10 and 11 (each step's solved state and broken
//! variants, built as `labcheck course test` builds them) loaded into the real API server gives
//! the same step status, check statuses, causes, words and exit code as the same state served by
//! `labcheck serve`, and as a `labcheck snapshot` taken of the real server and replayed. A
//! difference is a bug in one of them (labcheck's reads, serve's answers, or a fixture holding
//! what no real cluster holds); each found is fixed and its state stays here.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use labcheck::checks::Context;
use labcheck::course::fixtures::{Base, ModuleFixtures, State};
use labcheck::course::{Course, Module, Step, placeholders};
use labcheck::lab::world::LabWorld;
use labcheck::probe::cluster::{Cluster, ClusterOptions};
use labcheck::probe::files::PathShower;
use labcheck::run::{self, StepReport, WaitPolicy};
use labcheck::snapshot::Snapshot;

use crate::plane::{block_on, plane};

/// One state to compare: the step, its world and its cluster (placeholders filled in).
pub(crate) struct Case {
    pub(crate) module: String,
    pub(crate) step: String,
    pub(crate) state: String,
    /// The step's solved state (else a broken variant).
    pub(crate) solved: bool,
    pub(crate) world: LabWorld,
    pub(crate) cluster_file: String,
    pub(crate) cluster_text: String,
}

/// Every state of `module`, as `labcheck course test` builds them (`selftest::test_module`).
pub(crate) fn cases(module: &Module, course: &Course, scratch: &Path) -> Vec<Case> {
    let fixtures = ModuleFixtures::load(course, module).expect("the module's fixtures");
    let mut previous = LabWorld::create(&scratch.join("initial"), module, &fixtures.initial)
        .expect("the initial world");
    let mut cases = Vec::new();
    let mut add = |world: LabWorld, step: &str, state: &State, solved: bool| {
        let text =
            placeholders::substitute(&state.cluster_file, &state.cluster_text, |rev, repo| {
                world.revision(rev, repo)
            })
            .expect("the state's cluster, revisions filled in");
        cases.push(Case {
            module: module.manifest.module.clone(),
            step: step.to_string(),
            state: state.name.clone(),
            solved,
            world,
            cluster_file: state.cluster_file.clone(),
            cluster_text: text,
        });
    };
    for (index, step) in fixtures.steps.iter().enumerate() {
        let solved = previous
            .copy_to(&scratch.join(format!("{index:02}-solved")))
            .expect("copy");
        solved
            .apply(&step.solved.changes)
            .expect("the solved changes");
        for (n, state) in step.broken.iter().enumerate() {
            let from = match state.base {
                Base::Solved => &solved,
                Base::Previous => &previous,
            };
            let world = from
                .copy_to(&scratch.join(format!("{index:02}-broken-{n:02}")))
                .expect("copy");
            world.apply(&state.changes).expect("the broken changes");
            add(world, &step.step, state, false);
        }
        let next = solved
            .copy_to(&scratch.join(format!("{index:02}-solved-run")))
            .expect("copy");
        add(solved, &step.step, &step.solved, true);
        previous = next;
    }
    cases
}

/// What a run said, as compared: exit code, step status, and per check its status, cause and
/// words.
#[derive(Debug, Clone, PartialEq)]
struct Verdict {
    exit: u8,
    status: String,
    checks: BTreeMap<String, CheckVerdict>,
}

#[derive(Debug, Clone, PartialEq)]
struct CheckVerdict {
    status: String,
    cause: Option<String>,
    summary: String,
    hint: Option<String>,
    diagnosis: Option<String>,
    expected: Option<String>,
    actual: Option<String>,
}

fn verdict((report, describe): &(StepReport, String)) -> Verdict {
    // A message may name the cluster it read; the two servers' names differ, nothing else may.
    let words = |s: &str| s.replace(describe.as_str(), "<cluster>");
    Verdict {
        exit: labcheck::cli::exit_code(report.status),
        status: format!("{:?}", report.status),
        checks: report
            .checks
            .iter()
            .map(|c| {
                let o = &c.outcome;
                (
                    c.id.clone(),
                    CheckVerdict {
                        status: format!("{:?}", o.status),
                        cause: o.cause.as_ref().map(|c| c.as_str().to_string()),
                        summary: words(&o.summary),
                        hint: labcheck::report::hint::text(&o.hints).map(|h| words(&h)),
                        diagnosis: o.diagnosis.as_deref().map(words),
                        expected: o.expected.as_deref().map(words),
                        actual: o.actual.as_deref().map(words),
                    },
                )
            })
            .collect(),
    }
}

pub(crate) async fn run_on(
    course: &Arc<Course>,
    module: &Module,
    step: &Step,
    work_dir: &Path,
    cluster: Cluster,
) -> (StepReport, String) {
    let describe = cluster.describe();
    let ctx = Context::new(
        module.check_facts(course, None, &PathShower::default().work_dir(work_dir)),
        &module.manifest.tracks.default,
        work_dir.to_path_buf(),
        Arc::new(cluster),
        PathShower::default(),
    );
    let report = run::run_step(
        &ctx,
        &run::Recall::default(),
        step,
        WaitPolicy::Never,
        &|_| {},
    )
    .await;
    (report, describe)
}

/// The differences between two verdicts, one line each.
fn compare(served: &Verdict, real: &Verdict) -> Vec<String> {
    let mut out = Vec::new();
    if served.exit != real.exit {
        out.push(format!(
            "exit code: serve {}, real {}",
            served.exit, real.exit
        ));
    }
    if served.status != real.status {
        out.push(format!(
            "status: serve {}, real {}",
            served.status, real.status
        ));
    }
    for (id, s) in &served.checks {
        match real.checks.get(id) {
            None => out.push(format!("{id}: only serve ran it")),
            Some(r) if r != s => out.push(format!("{id}:\n    serve {s:?}\n    real  {r:?}")),
            Some(_) => {}
        }
    }
    for id in real
        .checks
        .keys()
        .filter(|id| !served.checks.contains_key(*id))
    {
        out.push(format!("{id}: only the real server's run has it"));
    }
    out
}

#[test]
fn every_fixture_state_of_modules_10_and_11_gets_the_same_verdict_from_the_real_api_server() {
    let plane = plane();
    let course = Arc::new(Course::embedded().expect("the built-in course"));
    let scratch = tempfile::tempdir().expect("scratch");
    let mut all = Vec::new();
    for name in ["module-10", "module-11"] {
        let module = course.module(name).expect("module");
        all.extend(cases(module, &course, &scratch.path().join(name)));
    }
    // The worlds are built; the cluster is the shared part.
    let _state = crate::state_lock();
    // One load per distinct cluster (states of a step often share theirs).
    let mut by_cluster: BTreeMap<String, Vec<&Case>> = BTreeMap::new();
    for case in &all {
        by_cluster
            .entry(case.cluster_text.clone())
            .or_default()
            .push(case);
    }
    let started = std::time::Instant::now();
    let mut differences = Vec::new();
    let mut shapes = Vec::new();
    let mut captures = 0;
    let mut bundles_took = std::time::Duration::ZERO;
    let (mut kubectl_ran, mut kubectl_problems) = (0, Vec::new());
    let real_options = ClusterOptions {
        kubeconfig: Some(plane.admin_kubeconfig.clone()),
        ..ClusterOptions::default()
    };
    for (text, cases) in &by_cluster {
        let file = &cases[0].cluster_file;
        let snapshot: Snapshot =
            placeholders::load_snapshot(file, text).expect("the state's snapshot");
        let loaded = match block_on(crate::loader::load(plane, &snapshot)) {
            Ok(loaded) => loaded,
            Err(e) => {
                shapes.push(format!("{file}: cannot be loaded: {e}"));
                continue;
            }
        };
        for d in &loaded.differences {
            shapes.push(format!("{file}: {d}"));
        }
        // `labcheck snapshot` of the real server, replayed, must judge as the live server does.
        let captured_file = scratch.path().join(format!("captured-{}.yaml", captures));
        captures += 1;
        let captured = crate::captures::snapshot_of_real(
            plane,
            &cases[0].module,
            &cases[0].world.work_dir(),
            &captured_file,
        );
        // `labcheck bundle` of the real server, replayed, must say what the live run said.
        let bundle_dir = scratch.path().join(format!("bundle-{captures}"));
        std::fs::create_dir_all(&bundle_dir).expect("a bundle folder");
        let bundling = std::time::Instant::now();
        differences.extend(
            crate::captures::bundle_replay_differences(
                plane,
                &cases[0].module,
                &cases[0].world.work_dir(),
                &bundle_dir,
            )
            .into_iter()
            .map(|d| format!("{file}: {d}")),
        );
        bundles_took += bundling.elapsed();
        for case in cases {
            let module = course.module(&case.module).expect("module");
            let step = module.step(&case.step).expect("step");
            let work = case.world.work_dir();
            // The solution's kubectl looks, on the cluster it leaves.
            if case.solved {
                let (ran, problems) = crate::course_kubectl::run_solution_kubectl(
                    step,
                    &snapshot,
                    &loaded.uids,
                    scratch.path(),
                );
                kubectl_ran += ran;
                kubectl_problems.extend(problems);
            }
            let served = block_on(async {
                let cluster = Cluster::serve(snapshot.clone(), &format!("fixture {file}")).await;
                run_on(&course, module, step, &work, cluster).await
            });
            let real = block_on(async {
                let cluster = Cluster::connect(&real_options).await;
                run_on(&course, module, step, &work, cluster).await
            });
            let replayed = block_on(async {
                let cluster = Cluster::serve(captured.clone(), "the captured snapshot").await;
                run_on(&course, module, step, &work, cluster).await
            });
            let mut found = compare(&verdict(&served), &verdict(&real));
            found.extend(
                compare(&verdict(&real), &verdict(&replayed))
                    .into_iter()
                    .map(|d| format!("replayed from `labcheck snapshot` of the real server: {d}")),
            );
            if !found.is_empty() {
                differences.push(format!(
                    "{} {} `{}` ({file}):\n  {}",
                    case.module,
                    case.step,
                    case.state,
                    found.join("\n  ")
                ));
            }
        }
    }
    eprintln!(
        "same verdicts: {} states ({} distinct clusters) compared in {:.1}s",
        all.len(),
        by_cluster.len(),
        started.elapsed().as_secs_f64()
    );
    eprintln!(
        "same verdicts: {captures} bundles of the real server taken and replayed in {:.1}s",
        bundles_took.as_secs_f64()
    );
    // Every kubectl line of the two modules' solutions ran (each step has a solved state).
    let kubectl_lines: usize = ["module-10", "module-11"]
        .iter()
        .filter_map(|m| course.module(m).ok())
        .flat_map(|m| m.steps.iter())
        .map(|step| crate::course_kubectl::kubectl_lines(step).len())
        .sum();
    eprintln!(
        "same verdicts: {kubectl_ran} kubectl lines of the solutions run on the real server and on serve"
    );
    assert_eq!(
        kubectl_ran,
        kubectl_lines,
        "a solution's kubectl lines were not all run (a state that did not load runs none):\n{}",
        shapes.join("\n")
    );
    assert!(
        kubectl_problems.is_empty(),
        "the solutions' kubectl lines:\n{}",
        kubectl_problems.join("\n")
    );
    assert!(all.len() >= 40, "only {} states", all.len());
    assert!(
        shapes.is_empty() && differences.is_empty(),
        "fixture objects the real API server does not hold as written:\n{}\n\n{} of {} states differ:\n{}",
        shapes.join("\n"),
        differences.len(),
        all.len(),
        differences.join("\n")
    );
}
