//! `labcheck demo`: a throwaway lab world (real git repos, a served cluster snapshot) checked the way a
//! learner's would be, so a newcomer sees passing and failing steps, hints and a diff without a cluster.

use std::path::{Path, PathBuf};

use clap::Args;

use super::output::HumanOrJsonArgs;
use super::{RunArgs, emit};
use crate::error::{Error, exit};
use crate::lab::cluster::{self as lab_cluster, Revisions};
use crate::lab::fixtures;
use crate::lab::world::{LabError, LabWorld};
use crate::outcome::Status;
use crate::report::{Format, Styles, render};
use crate::run::{Session, SessionRun};
use crate::snapshot::Snapshot;

/// `labcheck demo` options.
#[derive(Debug, Args, Clone)]
pub struct DemoArgs {
    /// Build the lab at this point of module 10 (`fresh`, or a step or stage it lists: step-1 …
    /// step-5, break-it/break, break-it/fix) from the course's own files and solutions, and check
    /// the whole module there, instead of the guided tour.
    #[arg(long, value_name = "POINT")]
    pub at: Option<String>,

    /// Keep the lab in DIR (must be empty or absent) to poke at it afterwards.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,

    /// `-o human|json` and `--color`.
    #[command(flatten)]
    pub output: HumanOrJsonArgs,
}

/// The module the demo builds and checks.
const MODULE: &str = "module-10";

/// One situation of the tour: a state the course's fixtures declare for a step (its work repos
/// and its cluster), and what labcheck must say about it.
struct Scenario {
    story: &'static str,
    step: &'static str,
    /// `solved` or the name of a broken variant in `modules/module-10/fixtures/<step>.yaml`.
    state: &'static str,
    expect: Status,
}

const TOUR: &[Scenario] = &[
    Scenario {
        story: "A learner did step 1 as the course says: the health check is in, committed and pushed.",
        step: "step-1",
        state: "solved",
        expect: Status::Pass,
    },
    Scenario {
        story: "A learner typed step 1's Lua script with a mistake and pushed it.",
        step: "step-1",
        state: "typo-in-lua",
        expect: Status::Fail,
    },
    Scenario {
        story: "A learner switched the hooks on in step 2 and committed, but forgot to push.",
        step: "step-2",
        state: "not-pushed",
        expect: Status::Fail,
    },
    Scenario {
        story: "A learner released 6.7.0 with a failing migration in step 4: the sync stopped in PreSync, as intended.",
        step: "step-4",
        state: "solved",
        expect: Status::Pass,
    },
];

/// Run the demo; the exit code says whether every scenario came out as the tour expects.
pub async fn demo(args: &DemoArgs) -> Result<u8, Error> {
    let run = &RunArgs {
        report: super::output::ReportArgs {
            format: args.output.format.into(),
            ..Default::default()
        },
        color: args.output.color,
        ..RunArgs::default()
    };
    let scratch;
    let root: PathBuf = match &args.keep {
        Some(dir) => dir.clone(),
        None => {
            scratch = tempfile::Builder::new()
                .prefix("labcheck-demo-")
                .tempdir()
                .map_err(|e| {
                    Error::Environment(format!(
                        "cannot make a temporary folder for the demo lab: {e}; try --keep DIR"
                    ))
                })?;
            scratch.path().to_path_buf()
        }
    };
    let styles = Styles::decide(run.color);
    match &args.at {
        Some(point) => at_point(&root, point, run, styles).await,
        None => tour(&root, run, styles).await,
    }
}

async fn at_point(root: &Path, point: &str, run: &RunArgs, styles: Styles) -> Result<u8, Error> {
    let world = LabWorld::at(&root.join("lab"), MODULE, point).map_err(lab_error)?;
    let revisions = Revisions::of_world(&world).map_err(lab_error)?;
    let cluster = lab_cluster::solved(point, &revisions).map_err(lab_error)?;
    let session = lab_session(run, &world, root, &cluster, "lab", None)?;
    emit(&format!(
        "Demo lab at {point}: work repos in {}\n\n",
        world.work_dir().display()
    ));
    let result = session.run(None, &|_| {}).await?;
    emit(&render(&result.reports, true, run.report.format, styles));
    Ok(exit::PASS)
}

async fn tour(root: &Path, run: &RunArgs, styles: Styles) -> Result<u8, Error> {
    let mut surprises = Vec::new();
    let mut documents = Vec::new();
    for (i, scenario) in TOUR.iter().enumerate() {
        let name = format!("scenario-{}", i + 1);
        let world = LabWorld::in_state(&root.join(&name), MODULE, scenario.step, scenario.state)
            .map_err(lab_error)?;
        let state = fixtures::state(MODULE, scenario.step, scenario.state).map_err(lab_error)?;
        let revisions = Revisions::of_world(&world).map_err(lab_error)?;
        let cluster = lab_cluster::of_state(state, &revisions).map_err(lab_error)?;
        let session = lab_session(run, &world, root, &cluster, &name, Some(scenario.step))?;
        let SessionRun {
            reports, verdict, ..
        } = session.run(None, &|_| {}).await?;
        if run.report.format == Format::Human {
            emit(&format!(
                "── {}/{}  {}\n   $ labcheck module-10 {}\n\n",
                i + 1,
                TOUR.len(),
                scenario.story,
                scenario.step
            ));
            emit(&render(&reports, false, run.report.format, styles));
            emit("\n");
        } else {
            documents.push(crate::report::json::scenario(
                scenario.story,
                scenario.step,
                scenario.expect,
                &reports,
            ));
        }
        let got = verdict;
        if got != scenario.expect {
            surprises.push(format!(
                "scenario {} ({}) ended {} instead of {}",
                i + 1,
                scenario.step,
                got.as_str(),
                scenario.expect.as_str()
            ));
        }
    }
    if run.report.format == Format::Json {
        let document = serde_json::json!({ "scenarios": documents });
        emit(&format!("{document:#}\n"));
    }
    if surprises.is_empty() {
        if run.report.format == Format::Human {
            emit(
                "The demo's lab was built with real git repos and a served cluster snapshot; nothing was left behind.\nTry `labcheck demo --at step-4` for a whole-module run, or `labcheck list`.\n",
            );
        }
        Ok(exit::PASS)
    } else {
        eprintln!("labcheck demo: {}", surprises.join("; "));
        Ok(exit::FAIL)
    }
}

/// A session of module 10 (`step`, or all of it) on the lab world and its cluster snapshot
/// (written next to it), never waiting.
fn lab_session(
    run: &RunArgs,
    world: &LabWorld,
    root: &Path,
    snapshot: &Snapshot,
    name: &str,
    step: Option<&str>,
) -> Result<Session, Error> {
    let path = root.join(format!("{name}-cluster.yaml"));
    let text = snapshot.to_yaml().map_err(|e| {
        Error::Environment(format!("cannot write the demo's cluster snapshot: {e}"))
    })?;
    std::fs::write(&path, text)
        .map_err(|e| Error::Environment(format!("cannot write {}: {e}", path.display())))?;
    let mut args = run.clone();
    args.setup.course.course_dir = None;
    args.no_wait = true;
    args.wait = None;
    args.cluster.snapshot = Some(path);
    args.cluster.kubeconfig = None;
    args.cluster.context = None;
    Ok(args.session(MODULE, step, world.work_dir()))
}

fn lab_error(e: LabError) -> Error {
    match e {
        // `--at` names no point of the module: the user's word, not the machine's.
        LabError::UnknownPoint { .. } => Error::Usage(format!("--at: {e}")),
        e => Error::Environment(format!("cannot build the demo lab: {e}")),
    }
}
