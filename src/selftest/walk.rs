//! The walk: a module's solutions run for real, in course order, on one fixture world built from
//! the lab's files. Before each step, its repo-side checks must not all pass yet; then the script
//! `labcheck solution` prints for it runs under `bash` (real edits, commits, pushes to the world's
//! bare remotes, a real `git revert`), with stand-in `argocd` and `kubectl` on PATH that only
//! record their arguments; after it, every repo-side check of the step must pass and the
//! recorded cluster commands must be the solution's, in its order.
//!
//! Cluster checks are not judged here: no cluster runs, and the fixtures' snapshots stand for
//! it (the solved states judge them). The kind workflow runs the same scripts on a real one.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use super::world::FixtureWorld;
use super::{StateKind, StateResult, run_on};
use crate::course::fixtures::ModuleFixtures;
use crate::course::solution::SolutionAction;
use crate::course::{Course, Module, Step};
use crate::error::Error;
use crate::outcome::Status;
use crate::report::solution::script;
use crate::run::StepReport;

/// How long one step's script may take: it only edits, commits and pushes on local disk.
const SCRIPT_LIMIT: Duration = Duration::from_secs(60);

/// Separates a recorded command's words (a byte no argument of the course holds).
const SEP: char = '\u{1f}';

/// A stand-in for a cluster tool: one line per call, its name and arguments.
const STAND_IN: &str = "#!/bin/sh\n{ printf '%s' \"$(basename \"$0\")\"; for a in \"$@\"; do printf '\\037%s' \"$a\"; done; printf '\\n'; } >>\"$LABCHECK_WALK_LOG\"\n";

/// Walk every step of `module` in `scratch`; one result for "not yet" and one for "done" per step.
pub async fn walk_module(
    course: &Arc<Course>,
    module: &Module,
    fixtures: &ModuleFixtures,
    scratch: &Path,
) -> Result<Vec<StateResult>, Error> {
    let env = |e: String| Error::Environment(format!("cannot walk the solutions: {e}"));
    let world = FixtureWorld::create(&scratch.join("world"), module, &fixtures.initial)
        .map_err(|e| env(e.to_string()))?;
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| env(e.to_string()))?;
    for tool in ["argocd", "kubectl"] {
        write_executable(&bin.join(tool), STAND_IN).map_err(|e| env(e.to_string()))?;
    }
    let log = scratch.join("cluster-commands.log");
    let track = module.manifest.tracks.default.clone();
    let mut results = Vec::new();
    for step_fixtures in &fixtures.steps {
        let step = module.step(&step_fixtures.step)?;
        let state = &step_fixtures.solved;
        // Before: only the repo-side checks are judged, so the fresh lab's cluster will do (the
        // solved one may name revisions that do not exist yet).
        let before = run_on(course, module, step, &world, &fixtures.fresh, &track).await?;
        results.push(not_yet(step, &before));

        let reverts = crate::run::solution::revert_targets(module, step, &world.work_dir());
        let text = script(
            &module.manifest.module,
            step,
            &world.work_dir().to_string_lossy(),
            &reverts,
        );
        let _ = std::fs::remove_file(&log);
        let mut problems = run_script(&text, &bin, &log, scratch).await?;
        let recorded = std::fs::read_to_string(&log).unwrap_or_default();
        problems.extend(compare_cluster_commands(step, &recorded));
        let after = run_on(course, module, step, &world, state, &track).await?;
        problems.extend(repo_side(step, &after).filter_map(|(id, status, summary)| {
            (status != Status::Pass && status != Status::Skip)
                .then(|| format!("`{id}` does not pass after the solution ran: {summary}"))
        }));
        results.push(StateResult {
            step: step.name.clone(),
            state: "walk".to_string(),
            kind: StateKind::Walk,
            description: Some("the step's solution, run for real on the walked lab".to_string()),
            must_fail: Vec::new(),
            failed: failed(&after),
            problems,
        });
    }
    Ok(results)
}

/// Before a step's solution runs, at least one of its repo-side checks must fail (a step with
/// none, which only reads the cluster, has nothing to judge here).
fn not_yet(step: &Step, report: &StepReport) -> StateResult {
    let repo_checks: Vec<_> = repo_side(step, report).collect();
    let problems = if !repo_checks.is_empty()
        && repo_checks
            .iter()
            .all(|(_, status, _)| *status == Status::Pass)
    {
        vec![format!(
            "every repo-side check already passes before the step's solution ran ({}): the step would pass for what the previous step did",
            repo_checks
                .iter()
                .map(|(id, _, _)| *id)
                .collect::<Vec<_>>()
                .join(", ")
        )]
    } else {
        Vec::new()
    };
    StateResult {
        step: step.name.clone(),
        state: "walk-before".to_string(),
        kind: StateKind::WalkBefore,
        description: Some("the walked lab before the step's solution ran".to_string()),
        must_fail: Vec::new(),
        failed: failed(report),
        problems,
    }
}

/// The step's checks that read only repos and files (and the runner's own, such as "the break
/// came first", which reads the history): (id, status, summary).
fn repo_side<'r>(
    step: &'r Step,
    report: &'r StepReport,
) -> impl Iterator<Item = (&'r str, Status, &'r str)> {
    report
        .checks
        .iter()
        .filter(|c| {
            !step
                .checks
                .iter()
                .any(|spec| spec.id == c.id && spec.kind.reads_cluster())
        })
        .map(|c| (c.id.as_str(), c.outcome.status, c.outcome.summary.as_str()))
}

fn failed(report: &StepReport) -> Vec<String> {
    report
        .checks
        .iter()
        .filter(|c| c.outcome.status == Status::Fail)
        .map(|c| c.id.clone())
        .collect()
}

/// Run the script under bash with the stand-ins first on PATH and git's identity fixed.
async fn run_script(
    text: &str,
    bin: &Path,
    log: &Path,
    scratch: &Path,
) -> Result<Vec<String>, Error> {
    let file = scratch.join("solution.sh");
    std::fs::write(&file, text)
        .map_err(|e| Error::Environment(format!("cannot write {}: {e}", file.display())))?;
    let path = match std::env::var_os("PATH") {
        Some(rest) => {
            let mut all = vec![bin.to_path_buf()];
            all.extend(std::env::split_paths(&rest));
            std::env::join_paths(all).unwrap_or_default()
        }
        None => bin.as_os_str().to_owned(),
    };
    let child = tokio::process::Command::new("bash")
        .arg(&file)
        .env("PATH", path)
        .env("LABCHECK_WALK_LOG", log)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Course Learner")
        .env("GIT_AUTHOR_EMAIL", "learner@course.local")
        .env("GIT_COMMITTER_NAME", "Course Learner")
        .env("GIT_COMMITTER_EMAIL", "learner@course.local")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Error::Environment(format!("cannot run bash for the walk: {e}")))?;
    match tokio::time::timeout(SCRIPT_LIMIT, child.wait_with_output()).await {
        Err(_) => Ok(vec![format!(
            "the solution script did not end within {} s",
            SCRIPT_LIMIT.as_secs()
        )]),
        Ok(Err(e)) => Err(Error::Environment(format!("bash: {e}"))),
        Ok(Ok(output)) if output.status.success() => Ok(Vec::new()),
        Ok(Ok(output)) => Ok(vec![format!(
            "the solution script failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )]),
    }
}

/// The recorded calls must be the solution's cluster commands, in its order.
fn compare_cluster_commands(step: &Step, recorded: &str) -> Option<String> {
    let expected: Vec<String> = step
        .solution
        .iter()
        .filter_map(|a| match a {
            SolutionAction::Cluster { tool, args, .. } => Some(
                std::iter::once(tool.as_str().to_string())
                    .chain(args.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(&SEP.to_string()),
            ),
            _ => None,
        })
        .collect();
    let got: Vec<&str> = recorded.lines().collect();
    (got != expected).then(|| {
        let show = |lines: &[&str]| {
            lines
                .iter()
                .map(|l| l.replace(SEP, " "))
                .collect::<Vec<_>>()
                .join("; ")
        };
        format!(
            "the script ran the cluster commands [{}], but the solution names [{}]",
            show(&got),
            show(&expected.iter().map(String::as_str).collect::<Vec<_>>())
        )
    })
}

fn write_executable(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}
