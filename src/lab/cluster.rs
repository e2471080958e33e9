//! A module's cluster in each state its fixtures declare (`modules/<module>/fixtures/cluster/
//! <name>.yaml`): what Argo CD and Kubernetes show after the learner did a step (solved states)
//! and the broken states a learner meets (not synced yet, sync still running, hooks that failed, a
//! Job kept from an earlier sync). The fixtures name revisions by placeholder
//! (`${pushed:checkout-config}`); a lab world's revisions fill them in. The demo and the tests
//! serve these.

use std::collections::BTreeMap;

use serde_json::Value;

use super::fixtures;
use super::world::{FRESH, LabError, LabWorld};
use crate::course::fixtures::State;
use crate::course::placeholders::{self, Revision};
use crate::snapshot::Snapshot;

/// The revisions a lab world's repos stand at, which Argo CD's state refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revisions {
    module: String,
    /// Repo name → (revision kind → SHA), only the revisions the repo has.
    repos: BTreeMap<String, BTreeMap<&'static str, String>>,
}

impl Revisions {
    /// Read the revisions of a lab world: each repo's pushed HEAD, the one before it, and HEAD.
    pub fn of_world(world: &LabWorld) -> Result<Revisions, LabError> {
        let mut repos = BTreeMap::new();
        for name in world.repo_names() {
            let mut revs = BTreeMap::new();
            for revision in [Revision::Pushed, Revision::Previous, Revision::Head] {
                if let Ok(sha) = world.revision(revision, name) {
                    revs.insert(kind(revision), sha);
                }
            }
            repos.insert(name.to_string(), revs);
        }
        Ok(Revisions {
            module: world.module().to_string(),
            repos,
        })
    }

    /// Made-up revisions (all `0`) for every repo of `module`: for a state whose snapshot keeps
    /// none of the learner's commits.
    pub fn nobody(module: &str) -> Result<Revisions, LabError> {
        let course = fixtures::course()?;
        let found = course
            .module(module)
            .map_err(|e| LabError::Fixtures(e.to_string()))?;
        let all = |_| {
            [Revision::Pushed, Revision::Previous, Revision::Head]
                .into_iter()
                .map(|r| (kind(r), "0".repeat(40)))
                .collect()
        };
        Ok(Revisions {
            module: module.to_string(),
            repos: found
                .manifest
                .repo_names()
                .map(|name| (name.to_string(), all(name)))
                .collect(),
        })
    }

    /// The module whose repos these are.
    pub fn module(&self) -> &str {
        &self.module
    }

    /// The pushed HEAD (`@{upstream}`) of `repo`.
    pub fn pushed(&self, repo: &str) -> Option<&str> {
        self.get(Revision::Pushed, repo)
    }

    /// The pushed revision before the last one (`@{upstream}~1`): what Argo CD had before.
    pub fn previous(&self, repo: &str) -> Option<&str> {
        self.get(Revision::Previous, repo)
    }

    fn get(&self, revision: Revision, repo: &str) -> Option<&str> {
        self.repos
            .get(repo)?
            .get(kind(revision))
            .map(String::as_str)
    }

    /// The SHA a fixture's placeholder stands for.
    fn resolve(&self, revision: Revision, repo: &str) -> Result<String, String> {
        self.get(revision, repo).map(str::to_string).ok_or_else(|| {
            format!(
                "{repo} has no {} revision in this lab world (its repos: {})",
                kind(revision),
                self.repos.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        })
    }
}

fn kind(revision: Revision) -> &'static str {
    match revision {
        Revision::Pushed => "pushed",
        Revision::Previous => "previous",
        Revision::Head => "head",
    }
}

/// The cluster state `fixtures/cluster/<name>.yaml` (`step-4-sync-running`) of the revisions'
/// module, with `revs` filled in.
pub fn state(name: &str, revs: &Revisions) -> Result<Snapshot, LabError> {
    let (file, text) = fixtures::cluster_file(&revs.module, &format!("cluster/{name}.yaml"))?;
    load(&file, &text, revs)
}

/// The cluster of one state of a step's fixtures (as [`LabWorld::in_state`] builds its repos).
pub fn of_state(state: &State, revs: &Revisions) -> Result<Snapshot, LabError> {
    load(&state.cluster_file, &state.cluster_text, revs)
}

fn load(file: &str, text: &str, revs: &Revisions) -> Result<Snapshot, LabError> {
    let fixture = |e: crate::error::Error| LabError::Fixtures(e.to_string());
    let text = placeholders::substitute(file, text, |rev, repo| revs.resolve(rev, repo))
        .map_err(fixture)?;
    placeholders::load_snapshot(file, &text).map_err(fixture)
}

/// The cluster after the learner did every step up to `point` correctly and Argo CD caught up:
/// the step's fixture `solved:` cluster (`fresh`: the fresh lab's).
pub fn solved(point: &str, revs: &Revisions) -> Result<Snapshot, LabError> {
    if point == FRESH {
        return of_state(&fixtures::module(&revs.module)?.fresh, revs);
    }
    of_state(&fixtures::step(&revs.module, point)?.solved, revs)
}

/// A cluster without Argo CD: `module`'s fresh lab's cluster with no Application CRD, no `argocd`
/// namespace and nothing of Argo CD's (so no revision of the learner's either).
pub fn argo_cd_missing(module: &str) -> Result<Snapshot, LabError> {
    // No commit of a learner survives the filter below; this fills in the placeholders only.
    let revs = Revisions::nobody(module)?;
    let fresh = solved(FRESH, &revs)?;
    let mut snapshot =
        Snapshot::new().with_description(&format!("{module}: a cluster without Argo CD"));
    for object in fresh.objects.into_iter().filter(|o| !of_argo_cd(o)) {
        snapshot = snapshot.with_object(object);
    }
    snapshot.logs = fresh
        .logs
        .into_iter()
        .filter(|(key, _)| !key.starts_with("argocd/"))
        .collect();
    Ok(snapshot)
}

/// Argo CD's own objects: its API group, its namespace, and everything in it.
fn of_argo_cd(object: &Value) -> bool {
    let api = object["apiVersion"].as_str().unwrap_or("");
    let kind = object["kind"].as_str().unwrap_or("");
    let name = object["metadata"]["name"].as_str().unwrap_or("");
    api.starts_with("argoproj.io/")
        || object["metadata"]["namespace"] == "argocd"
        || (kind == "Namespace" && name == "argocd")
        || (kind == "CustomResourceDefinition" && name.ends_with(".argoproj.io"))
}

/// `first`, then `next` once `after` has passed (for `--wait`): objects of `next` replace or add
/// to those of `first`, objects only in `first` are deleted.
pub fn then(first: Snapshot, after: std::time::Duration, next: Snapshot) -> Snapshot {
    let key = |o: &Value| {
        (
            o["apiVersion"].as_str().unwrap_or("").to_string(),
            o["kind"].as_str().unwrap_or("").to_string(),
            o["metadata"]["namespace"]
                .as_str()
                .unwrap_or("")
                .to_string(),
            o["metadata"]["name"].as_str().unwrap_or("").to_string(),
        )
    };
    let kept: std::collections::HashSet<_> = next.objects.iter().map(key).collect();
    let deleted = first
        .objects
        .iter()
        .map(key)
        .filter(|k| !kept.contains(k))
        .map(
            |(api_version, kind, namespace, name)| crate::snapshot::ObjectRef {
                api_version,
                kind,
                namespace: (!namespace.is_empty()).then_some(namespace),
                name,
            },
        )
        .collect();
    let mut snapshot = first;
    snapshot.timeline.push(crate::snapshot::TimelineEntry {
        after,
        objects: next.objects,
        deleted,
        logs: next.logs,
    });
    snapshot
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "module-10";

    fn revs() -> Revisions {
        Revisions::nobody(MODULE).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_declared_state_loads_with_the_revisions_filled_in() {
        let all = fixtures::files_under(MODULE, "cluster").unwrap_or_default();
        assert!(all.len() > 5, "{all:?}");
        for file in all {
            let name = file.strip_suffix(".yaml").unwrap_or(&file);
            let snapshot = state(name, &revs()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let yaml = snapshot.to_yaml().unwrap_or_default();
            assert!(!yaml.contains("${"), "{name} keeps a placeholder");
        }
    }

    #[test]
    fn every_point_of_the_course_has_a_solved_cluster() {
        let course = fixtures::course().unwrap_or_else(|e| panic!("{e}"));
        for module in &course.modules {
            let revs = Revisions::nobody(&module.manifest.module).unwrap_or_else(|e| panic!("{e}"));
            for point in std::iter::once(FRESH).chain(module.step_names()) {
                assert!(
                    solved(point, &revs).is_ok(),
                    "{} {point}: {:?}",
                    module.manifest.module,
                    solved(point, &revs).err()
                );
            }
        }
    }

    #[test]
    fn step_4_keeps_the_smoke_test_job_of_step_2() {
        // Step 4's sync stopped in PreSync: the PostSync smoke test it kept is step 2's Job.
        let smoke_uid = |point: &str| {
            let snapshot = solved(point, &revs()).unwrap_or_else(|e| panic!("{e}"));
            snapshot
                .objects
                .iter()
                .find(|o| o["kind"] == "Job" && o["metadata"]["name"] == "checkout-smoke-test")
                .and_then(|o| o["metadata"]["uid"].as_str().map(str::to_string))
        };
        let step_2 = smoke_uid("step-2");
        assert!(step_2.is_some(), "step 2 ran the smoke test");
        assert_eq!(smoke_uid("step-4"), step_2);
    }

    #[test]
    fn a_cluster_without_argo_cd_still_runs_the_checkout_app() {
        let snapshot = argo_cd_missing(MODULE).unwrap_or_else(|e| panic!("{e}"));
        let kinds: Vec<(&str, &str)> = snapshot
            .objects
            .iter()
            .map(|o| {
                (
                    o["kind"].as_str().unwrap_or(""),
                    o["metadata"]["name"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert!(kinds.contains(&("Namespace", "checkout-dev")), "{kinds:?}");
        assert!(kinds.contains(&("Deployment", "checkout")), "{kinds:?}");
        assert!(!snapshot.objects.iter().any(of_argo_cd), "{kinds:?}");
        let yaml = snapshot.to_yaml().unwrap_or_default();
        assert!(!yaml.contains("0000000"), "no made-up revision survives");
        assert!(snapshot.check().is_ok(), "{:?}", snapshot.check());
    }
}
