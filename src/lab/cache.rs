//! Lab worlds of the built-in course built once per process and copied: the tests ask for a world
//! at a point (or in a fixture state) dozens of times, and building it means a `git` process per
//! commit, push and clone. Each point is built once, from a copy of the point before it plus its
//! step's solution, in a folder of this process (`labcheck-lab-worlds-<pid>` in the temp dir);
//! a caller gets its own copy. The clones' remotes are relative paths, so a copy is whole; the
//! fixed clock makes a copy's SHAs those of a world built from scratch.
//!
//! The folders of processes that are gone are removed when a process first builds here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::fixtures;
use super::world::{FRESH, LabError, LabWorld, point_before};

type Built = Arc<OnceLock<Result<LabWorld, String>>>;

struct Shared {
    dir: PathBuf,
    worlds: Mutex<HashMap<(String, String), Built>>,
}

static SHARED: OnceLock<Result<Shared, String>> = OnceLock::new();

const PREFIX: &str = "labcheck-lab-worlds-";

fn shared() -> Result<&'static Shared, LabError> {
    SHARED
        .get_or_init(|| {
            let temp = std::env::temp_dir();
            remove_stale(&temp);
            let dir = temp.join(format!("{PREFIX}{}", std::process::id()));
            // A folder of an earlier process that had this id: its worlds may be of another course.
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
            Ok(Shared {
                dir,
                worlds: Mutex::new(HashMap::new()),
            })
        })
        .as_ref()
        .map_err(|e| LabError::Fixtures(e.clone()))
}

/// Remove the world folders of processes that no longer run (Linux: no `/proc/<pid>`).
fn remove_stale(temp: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The world of `module` at `point` ([`LabWorld::at`]), copied into `root` from this process's
/// built worlds.
pub fn at(root: &Path, module: &str, point: &str) -> Result<LabWorld, LabError> {
    built(module, point)?.copy_to(root)
}

/// The world of one state of a step's fixtures ([`LabWorld::in_state`]), from a copy of the
/// built world before the step.
pub fn in_state(root: &Path, module: &str, step: &str, state: &str) -> Result<LabWorld, LabError> {
    let before = point_before(fixtures::course()?, module, step)?;
    let world = at(root, module, &before)?;
    world.finish_state(step, state)?;
    Ok(world)
}

/// The text of `path` in the clone of `repo` in `module`'s world at `point`: what a test that
/// edits a repo by hand writes, read from the course's own lab and solutions.
pub fn file_at(module: &str, point: &str, repo: &str, path: &str) -> Result<String, LabError> {
    built(module, point)?.file(repo, path)
}

fn built(module: &str, point: &str) -> Result<LabWorld, LabError> {
    let shared = shared()?;
    let cell = {
        let mut worlds = shared
            .worlds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        worlds
            .entry((module.to_string(), point.to_string()))
            .or_default()
            .clone()
    };
    cell.get_or_init(|| build(&shared.dir, module, point).map_err(|e| e.to_string()))
        .clone()
        .map_err(LabError::Fixtures)
}

fn build(dir: &Path, module: &str, point: &str) -> Result<LabWorld, LabError> {
    let course = fixtures::course()?;
    let here = dir.join(format!("{module}@{}", point.replace('/', "@")));
    let found = course
        .module(module)
        .map_err(|e| LabError::Fixtures(e.to_string()))?;
    if point == FRESH {
        return LabWorld::fresh(&here, course, found);
    }
    // An unknown point fails here, with the module's points named.
    super::world::steps_through(found, point)?;
    let before = built(module, &point_before(course, module, point)?)?;
    let world = before.copy_to(&here)?;
    world.solve(found, point)?;
    Ok(world)
}
