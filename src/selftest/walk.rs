//! The walk: a module's solutions run for real, in course order, on one fixture world built from
//! the lab's files. Before each step, its repo-side checks must not all pass yet; then the script
//! `labcheck solution` prints for it runs under `bash` (real edits through this labcheck's `edit`,
//! commits, pushes to the world's bare remotes, a real `git revert`), with stand-in `argocd` and
//! `kubectl` on PATH that only record their arguments; after it, every repo-side check of the
//! step must pass and the recorded cluster commands must be the solution's, in its order.
//!
//! Each script runs twice: the second run must exit 0 and change nothing (no edit, no commit, no
//! push). And each step's solution runs again, twice, from the same start on the learner's
//! variants of the YAML files it edits ([`super::variants`]: comments removed or changed, keys
//! reordered, flow style, CRLF) and on the step half done (its first edit made, not committed);
//! the step's repo-side checks must pass after each.
//!
//! Cluster checks are not judged here: no cluster runs, and the fixtures' snapshots stand for
//! it (the solved states judge them). The kind workflow runs the same scripts on a real one.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use super::variants::Variant;
use super::{StateKind, StateResult, run_on};
use crate::course::fixtures::ModuleFixtures;
use crate::course::solution::{SolutionAction, is_yaml_file};
use crate::course::{Course, CourseSource, Module, Step};
use crate::error::Error;
use crate::lab::world::LabWorld;
use crate::outcome::Status;
use crate::run::StepReport;
use crate::run::solution::RevertTarget;

/// How `labcheck solution` words a step's solution as a bash script: `(module, step, work dir,
/// revert targets, course dir)`. The reporters own the wording; the caller hands it in, so the
/// walk runs exactly the script a learner is shown.
pub type ScriptWriter = fn(&str, &Step, &str, &[RevertTarget], Option<&str>) -> String;

/// How long one step's script may take: it only edits, commits and pushes on local disk.
const SCRIPT_LIMIT: Duration = Duration::from_secs(60);

/// Separates a recorded command's words (a byte no argument of the course holds).
const SEP: char = '\u{1f}';

/// A stand-in for a cluster tool: one line per call, its name and arguments.
const STAND_IN: &str = "#!/bin/sh\n{ printf '%s' \"$(basename \"$0\")\"; for a in \"$@\"; do printf '\\037%s' \"$a\"; done; printf '\\n'; } >>\"$LABCHECK_WALK_LOG\"\n";

/// Walk every step of `module` in `scratch`, with `labcheck` (this binary) for the scripts' own
/// `labcheck` calls; for each step one result for "not yet", one for the solution run twice, and
/// one per variant of the learner's files.
pub async fn walk_module(
    course: &Arc<Course>,
    module: &Module,
    only: super::Only<'_>,
    fixtures: &ModuleFixtures,
    scratch: &Path,
    labcheck: &Path,
    script: ScriptWriter,
) -> Result<Vec<StateResult>, Error> {
    let env = |e: String| Error::Environment(format!("cannot walk the solutions: {e}"));
    let world = LabWorld::create(&scratch.join("world"), module, &fixtures.initial)
        .map_err(|e| env(e.to_string()))?;
    let tools = Tools::new(scratch, labcheck).map_err(|e| env(e.to_string()))?;
    let course_dir = match course.source() {
        CourseSource::Embedded => None,
        CourseSource::Disk(dir) => Some(std::path::absolute(dir).unwrap_or_else(|_| dir.clone())),
    };
    let course_dir = course_dir
        .as_ref()
        .map(|d| d.to_string_lossy().into_owned());
    let track = module.manifest.tracks.default.clone();
    let mut results = Vec::new();
    for (index, step_fixtures) in fixtures.steps.iter().enumerate() {
        if only.is_past(fixtures, index) {
            break;
        }
        if !only.selects(&step_fixtures.step) {
            // Not walked: the lab moves on by the step's solution, applied as the fixtures do.
            world
                .apply(&step_fixtures.solved.changes)
                .map_err(|e| env(e.to_string()))?;
            continue;
        }
        let step = module.step(&step_fixtures.step)?;
        let state = &step_fixtures.solved;
        // Before: only the repo-side checks are judged, so the fresh lab's cluster will do (the
        // solved one may name revisions that do not exist yet).
        let before = run_on(course, module, step, &world, &fixtures.fresh, &track).await?;
        results.push(not_yet(step, &before));
        let start = world
            .copy_to(&scratch.join(format!("{index:02}-start")))
            .map_err(|e| env(e.to_string()))?;

        let mut problems = run_twice(
            module,
            step,
            &world,
            &tools,
            course_dir.as_deref(),
            "lab",
            script,
        )
        .await?;
        let after = run_on(course, module, step, &world, state, &track).await?;
        problems.extend(not_passing(step, &after));
        results.push(StateResult {
            step: step.name.clone(),
            state: "walk".to_string(),
            kind: StateKind::Walk,
            description: Some(
                "the step's solution, run for real on the walked lab, twice".to_string(),
            ),
            must_fail: Vec::new(),
            failed: failed(&after),
            problems,
        });

        // The learner's starts are separate worlds: their scripts run side by side.
        let starts =
            learner_starts(step, &start, scratch, index).map_err(|e| env(e.to_string()))?;
        let runs = starts.iter().map(|(name, description, world)| {
            let (tools, track, course_dir) = (&tools, &track, &course_dir);
            async move {
                let tag = format!("{index:02}-{name}");
                let mut problems = run_twice(
                    module,
                    step,
                    world,
                    tools,
                    course_dir.as_deref(),
                    &tag,
                    script,
                )
                .await?;
                let after = run_on(course, module, step, world, state, track).await?;
                problems.extend(not_passing(step, &after));
                Ok::<_, Error>(StateResult {
                    step: step.name.clone(),
                    state: format!("walk-{name}"),
                    kind: StateKind::Walk,
                    description: Some(description.clone()),
                    must_fail: Vec::new(),
                    failed: failed(&after),
                    problems,
                })
            }
        });
        for result in futures::future::join_all(runs).await {
            results.push(result?);
        }
    }
    Ok(results)
}

/// The step's repo-side checks that do not pass, as problems.
fn not_passing(step: &Step, report: &StepReport) -> Vec<String> {
    repo_side(step, report)
        .filter(|(_, status, _)| !matches!(status, Status::Pass | Status::Skip))
        .map(|(id, _, summary)| format!("`{id}` does not pass after the solution ran: {summary}"))
        .collect()
}

/// The folder with the stand-ins and this labcheck, and a home of the walk's own (the scripts'
/// `labcheck` calls keep their progress there, never in the user's).
struct Tools {
    bin: std::path::PathBuf,
    home: std::path::PathBuf,
    scratch: std::path::PathBuf,
}

impl Tools {
    fn new(scratch: &Path, labcheck: &Path) -> std::io::Result<Tools> {
        let bin = scratch.join("bin");
        let home = scratch.join("home");
        std::fs::create_dir_all(&bin)?;
        std::fs::create_dir_all(&home)?;
        for tool in ["argocd", "kubectl"] {
            write_executable(&bin.join(tool), STAND_IN)?;
        }
        // `labcheck edit` is this labcheck; a check of a step reads the cluster, and the walk has
        // none: it answers as labcheck does without one, "could not check" (exit 3), so the
        // script's "done already?" goes on to the actions (without a process that would only
        // find no cluster).
        write_executable(
            &bin.join("labcheck"),
            &format!(
                "#!/bin/sh\nif [ \"$1\" = edit ]; then exec {} \"$@\"; fi\nexit 3\n",
                crate::shell::quote(&labcheck.to_string_lossy())
            ),
        )?;
        Ok(Tools {
            bin,
            home,
            scratch: scratch.to_path_buf(),
        })
    }
}

/// Print the step's script for `world` and run it twice: the first run must succeed and call the
/// solution's cluster commands; the second must succeed too and change nothing in any repo.
async fn run_twice(
    module: &Module,
    step: &Step,
    world: &LabWorld,
    tools: &Tools,
    course_dir: Option<&str>,
    tag: &str,
    script: ScriptWriter,
) -> Result<Vec<String>, Error> {
    let log = tools.scratch.join(format!("{tag}.log"));
    let reverts = crate::run::solution::revert_targets(module, step, &world.work_dir());
    let text = script(
        &module.manifest.module,
        step,
        &world.work_dir().to_string_lossy(),
        &reverts,
        course_dir,
    );
    let _ = std::fs::remove_file(&log);
    let mut problems = run_script(&text, tools, &log, tag).await?;
    let recorded = std::fs::read_to_string(&log).unwrap_or_default();
    problems.extend(compare_cluster_commands(step, &recorded));
    if !problems.is_empty() {
        return Ok(problems);
    }
    let first = repos_state(module, world);
    problems.extend(
        run_script(&text, tools, &log, tag)
            .await?
            .into_iter()
            .map(|p| format!("run a second time, {p}")),
    );
    let second = repos_state(module, world);
    if first != second {
        problems.push(format!(
            "run a second time, the solution changed the repos again: {}",
            first
                .iter()
                .zip(&second)
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("before [{a}], after [{b}]"))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok(problems)
}

/// Per repo: HEAD, its upstream, `git status` and the uncommitted changes.
fn repos_state(module: &Module, world: &LabWorld) -> Vec<String> {
    module
        .manifest
        .repos
        .iter()
        .map(|spec| match world.repo(&spec.name) {
            Ok(repo) => {
                let git = |args: &[&str]| repo.git(args).unwrap_or_else(|e| e.to_string());
                format!(
                    "{}: HEAD {} upstream {} status {:?} diff {:?}",
                    spec.name,
                    git(&["rev-parse", "HEAD"]).trim(),
                    git(&["rev-parse", "@{upstream}"]).trim(),
                    git(&["status", "--porcelain"]),
                    git(&["diff", "HEAD"])
                )
            }
            Err(e) => format!("{}: {e}", spec.name),
        })
        .collect()
}

/// The starts a learner may be at when they run the step's solution, besides the lab's own: each
/// variant of the YAML files the solution edits by path (committed and pushed as their own way
/// of writing them), and the step half done. (name, description, world).
fn learner_starts(
    step: &Step,
    start: &LabWorld,
    scratch: &Path,
    index: usize,
) -> Result<Vec<(String, String, LabWorld)>, crate::lab::world::LabError> {
    let mut files: Vec<(&str, &str)> = Vec::new();
    for action in &step.solution {
        if let SolutionAction::Set { repo, file, .. } | SolutionAction::Remove { repo, file, .. } =
            action
            && is_yaml_file(file)
            && !files.contains(&(repo.as_str(), file.as_str()))
        {
            files.push((repo, file));
        }
    }
    let mut starts = Vec::new();
    if files.is_empty() {
        return Ok(starts);
    }
    for variant in Variant::ALL {
        let mut changed = Vec::new();
        let world = start.copy_to(&scratch.join(format!("{index:02}-{}", variant.name())))?;
        for (repo, file) in &files {
            let clone = world.repo(repo)?;
            let Ok(text) = std::fs::read_to_string(clone.path().join(file)) else {
                continue;
            };
            if let Some(made) = variant.apply(&text) {
                clone.write(file, &made)?;
                changed.push(format!("{repo}/{file}"));
            }
        }
        if changed.is_empty() {
            continue;
        }
        let mut repos: Vec<&str> = files.iter().map(|(r, _)| *r).collect();
        repos.dedup();
        for repo in repos {
            // The files this variant rewrote, by name: never whatever else the tree holds.
            let rewritten: Vec<&str> = files
                .iter()
                .filter(|(r, f)| *r == repo && changed.contains(&format!("{r}/{f}")))
                .map(|(_, f)| *f)
                .collect();
            if rewritten.is_empty() {
                continue;
            }
            let clone = world.repo(repo)?;
            clone.commit_paths(&rewritten, "my own way of writing the files")?;
            clone.push()?;
        }
        starts.push((
            variant.name().to_string(),
            format!(
                "the step's solution, twice, on the learner's files with {} ({})",
                variant.name().replace('-', " "),
                changed.join(", ")
            ),
            world,
        ));
    }
    // Half done: the solution's first edit made by hand, not committed yet.
    if let Some(SolutionAction::Set {
        repo,
        file,
        edit,
        value,
    }) = step
        .solution
        .iter()
        .find(|a| matches!(a, SolutionAction::Set { .. }))
    {
        let world = start.copy_to(&scratch.join(format!("{index:02}-half-done")))?;
        let clone = world.repo(repo)?;
        let text = std::fs::read_to_string(clone.path().join(file)).unwrap_or_default();
        let made = crate::yaml::edit::set(&text, edit.document, &edit.path, value, &edit.placement)
            .map_err(|e| crate::lab::world::LabError::Fixtures(format!("{repo}/{file}: {e}")))?;
        if let Some(made) = made {
            clone.write(file, &made)?;
            starts.push((
                "half-done".to_string(),
                format!(
                    "the step's solution, twice, with `{}` already set in {repo}/{file} (not committed yet)",
                    edit.path
                ),
                world,
            ));
        }
    }
    Ok(starts)
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
    tools: &Tools,
    log: &Path,
    tag: &str,
) -> Result<Vec<String>, Error> {
    let bin = &tools.bin;
    let file = tools.scratch.join(format!("{tag}.sh"));
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
        // The scripts' own labcheck calls: no cluster (the "done already?" check cannot pass,
        // so the actions run) and a home of the walk's own.
        .env("HOME", &tools.home)
        .env("KUBECONFIG", tools.home.join("no-kubeconfig"))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("LABCHECK_WORK_DIR")
        .envs(crate::lab::repo::LEARNER_GIT_ENV)
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
