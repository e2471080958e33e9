//! Module 10's cluster in each state the course's fixtures declare
//! (`modules/module-10/fixtures/cluster/<point>-<state>.yaml`): what Argo CD and Kubernetes show
//! after the learner did a step (solved states) and the broken states a learner meets (not
//! synced yet, sync still running, hooks that failed, a Job kept from an earlier sync). The
//! fixtures name revisions by placeholder (`${pushed:checkout-config}`); a lab world's pushed
//! revisions fill them in. The demo and the tests serve these.

use serde_json::Value;

use super::fixtures;
use super::world::{CoursePoint, LabError, LabWorld, MODULE};
use crate::course::fixtures::State;
use crate::course::placeholders::{self, Revision};
use crate::snapshot::Snapshot;

/// The revisions the learner pushed, which Argo CD's state refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revisions {
    /// `argocd-platform`'s pushed HEAD.
    pub platform: String,
    /// `checkout-config`'s pushed HEAD.
    pub checkout: String,
    /// `checkout-config`'s revision before the last push (what Argo CD had before).
    pub checkout_before: String,
}

impl Revisions {
    /// Read the pushed revisions of a lab world.
    pub fn of_world(world: &LabWorld) -> Result<Revisions, LabError> {
        let checkout = world.repo("checkout-config")?;
        let head = checkout.upstream_sha()?;
        let before = checkout
            .git(&["rev-parse", "@{upstream}~1"])
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| head.clone());
        Ok(Revisions {
            platform: world.repo("argocd-platform")?.upstream_sha()?,
            checkout: head,
            checkout_before: before,
        })
    }

    /// The SHA a fixture's placeholder stands for.
    fn resolve(&self, revision: Revision, repo: &str) -> Result<String, String> {
        match (revision, repo) {
            (Revision::Pushed, "checkout-config") => Ok(self.checkout.clone()),
            (Revision::Previous, "checkout-config") => Ok(self.checkout_before.clone()),
            (Revision::Pushed, "argocd-platform") => Ok(self.platform.clone()),
            _ => Err(format!(
                "a lab world's revisions name checkout-config (pushed, previous) and argocd-platform (pushed), not {repo}"
            )),
        }
    }
}

/// The cluster state `fixtures/cluster/<name>.yaml` (`step-4-sync-running`) with `revs` filled in.
pub fn state(name: &str, revs: &Revisions) -> Result<Snapshot, LabError> {
    let (file, text) = fixtures::file(MODULE, &format!("cluster/{name}.yaml"))?;
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

/// The cluster after the learner did `point` correctly and Argo CD caught up.
pub fn solved(point: CoursePoint, revs: &Revisions) -> Result<Snapshot, LabError> {
    state(&format!("{point}-solved"), revs)
}

/// The learner pushed `point`, but Argo CD is still at the previous revision (it has not polled
/// git yet). Only points that push have this state.
pub fn not_seen_yet(point: CoursePoint, revs: &Revisions) -> Result<Snapshot, LabError> {
    state(&format!("{point}-not-seen-yet"), revs)
}

/// The names of every cluster state the fixtures declare for `point` (`step-4-sync-running`).
pub fn states_at(point: CoursePoint) -> Result<Vec<String>, LabError> {
    let names = fixtures::files_under(MODULE, "cluster")?;
    Ok(names
        .iter()
        .filter_map(|file| file.strip_suffix(".yaml"))
        .filter(|name| point_of(name) == Some(point))
        .map(str::to_string)
        .collect())
}

/// The point a state's name starts with (the longest: `break-it-fixed-…` is not `break-it`).
fn point_of(name: &str) -> Option<CoursePoint> {
    CoursePoint::ALL
        .into_iter()
        .filter(|p| name.starts_with(&format!("{p}-")))
        .max_by_key(|p| p.as_str().len())
}

/// A cluster without Argo CD: the fresh lab's cluster with no Application CRD, no `argocd`
/// namespace and nothing of Argo CD's (so no revision of the learner's either).
pub fn argo_cd_missing() -> Result<Snapshot, LabError> {
    // No commit of a learner survives the filter below; this fills in the placeholders only.
    let nobody = "0".repeat(40);
    let revs = Revisions {
        platform: nobody.clone(),
        checkout: nobody.clone(),
        checkout_before: nobody,
    };
    let fresh = solved(CoursePoint::Fresh, &revs)?;
    let mut snapshot = Snapshot::new().with_description("module 10: a cluster without Argo CD");
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

    fn revs() -> Revisions {
        Revisions {
            platform: "1".repeat(40),
            checkout: "9b7e4d2c5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c".to_string(),
            checkout_before: "3f2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b".to_string(),
        }
    }

    #[test]
    fn every_declared_state_belongs_to_a_point_and_loads_with_the_revisions_filled_in() {
        let all = fixtures::files_under(MODULE, "cluster").unwrap_or_default();
        assert!(all.len() >= CoursePoint::ALL.len(), "{all:?}");
        let mut counted = 0;
        for point in CoursePoint::ALL {
            let names = states_at(point).unwrap_or_default();
            assert!(
                names.contains(&format!("{point}-solved")),
                "{point} has a solved cluster: {names:?}"
            );
            for name in names {
                let snapshot = state(&name, &revs()).unwrap_or_else(|e| panic!("{name}: {e}"));
                let yaml = snapshot.to_yaml().unwrap_or_default();
                assert!(!yaml.contains("${"), "{name} keeps a placeholder");
                counted += 1;
            }
        }
        assert_eq!(counted, all.len(), "every state file names its point");
    }

    #[test]
    fn step_4_keeps_the_smoke_test_job_of_step_2() {
        let snapshot = solved(CoursePoint::Step4, &revs()).unwrap_or_else(|e| panic!("{e}"));
        let smoke = snapshot
            .objects
            .iter()
            .find(|o| o["kind"] == "Job" && o["metadata"]["name"] == "checkout-smoke-test");
        assert_eq!(
            smoke.and_then(|o| o["metadata"]["creationTimestamp"].as_str()),
            Some("2026-05-02T10:00:30Z")
        );
    }

    #[test]
    fn a_cluster_without_argo_cd_still_runs_the_checkout_app() {
        let snapshot = argo_cd_missing().unwrap_or_else(|e| panic!("{e}"));
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
