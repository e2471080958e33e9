//! Module 10's cluster at each point of the course, as snapshots: what Argo CD and Kubernetes
//! show after the learner did a step (solved states), and the broken states a learner meets (not
//! synced yet, sync still running, hooks that failed, a stale Job, Argo CD missing). The demo and
//! the tests serve these; shapes follow `shared/reference/argocd-facts.md` (a7, e).

pub mod objects;

use serde_json::Value;

use crate::lab::world::{CoursePoint, LabError, LabWorld};
use crate::snapshot::Snapshot;
use objects::{AppState, HookJob, JobEnd, entry, operation_state};

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

    /// The same, as if the last checkout push had not happened.
    fn one_push_earlier(&self) -> Revisions {
        Revisions {
            checkout: self.checkout_before.clone(),
            ..self.clone()
        }
    }
}

/// Start times of the syncs of the story, one per point that syncs.
const T_FRESH: &str = "2026-05-02T09:30:00Z";
const T_STEP2: &str = "2026-05-02T10:00:00Z";
const T_STEP4: &str = "2026-05-02T10:14:58Z";
const T_STEP5: &str = "2026-05-02T10:30:00Z";
const T_BREAK: &str = "2026-05-02T10:45:00Z";
const T_FIX: &str = "2026-05-02T11:00:00Z";

const MIGRATE: &str = "checkout-migrate";
const SMOKE: &str = "checkout-smoke-test";
const SYNC_FAILED: &str = "checkout-sync-failed";
const REACHED: &str = "Reached expected number of succeeded pods";
const BACKOFF: &str = "Job has reached the specified backoff limit";
const TASKS_FAILED: &str = "one or more synchronization tasks completed unsuccessfully";

/// The log of a migration that worked.
pub const MIGRATE_LOG_OK: &str =
    "running migration 0042_add_orders_index\napplying schema changes ...\nmigration complete\n";
/// The log of the migration step 4 breaks on purpose.
pub const MIGRATE_LOG_FAILED: &str = "running migration 0042_add_orders_index\napplying schema changes ...\nERROR: migration failed (migration.fail=true)\n";
/// The smoke test against `/readyz`.
pub const SMOKE_LOG_OK: &str = "smoke test: GET http://checkout.checkout-dev:9898/readyz\n{\"status\":\"OK\"}\nsmoke test passed\n";
/// The smoke test the break-it exercise points at `/status/503`.
pub const SMOKE_LOG_503: &str = "smoke test: GET http://checkout.checkout-dev:9898/status/503\ncurl: (22) The requested URL returned error: 503\nsmoke test FAILED\n";
/// The SyncFail hook's report.
pub const SYNC_FAILED_LOG: &str =
    "sync of checkout-dev failed: notifying team-checkout\nnotified #team-checkout\n";

/// A snapshot under construction.
struct Builder {
    snapshot: Snapshot,
}

impl Builder {
    fn new(description: &str) -> Builder {
        Builder {
            snapshot: Snapshot::new().with_description(description),
        }
    }

    fn object(mut self, object: Value) -> Builder {
        self.snapshot = self.snapshot.with_object(object);
        self
    }

    /// Namespaces, Argo CD's CRD and `argocd-cm`, the ConfigMap, the Deployment and its pod.
    fn base(self, health_key: bool, tag: &str) -> Builder {
        let mut builder = self;
        for app in objects::platform_apps() {
            builder = builder.object(app);
        }
        builder
            .object(objects::namespace(objects::ARGOCD_NS))
            .object(objects::namespace(objects::NS))
            .object(objects::application_crd())
            .object(objects::argocd_cm(health_key))
            .object(objects::checkout_config())
            .object(objects::deployment(tag, true))
            .object(objects::deployment_pod(tag, "2026-05-02T09:20:30Z", None))
    }

    fn job(mut self, job: &HookJob) -> Builder {
        let (job, pod, key, log) = objects::hook_job(job);
        self.snapshot = self.snapshot.with_object(job).with_object(pod);
        self.snapshot.logs.insert(key, log);
        self
    }

    fn app(self, state: &AppState) -> Builder {
        self.object(objects::application(state))
    }

    fn done(self) -> Snapshot {
        self.snapshot
    }
}

fn hook<'a>(
    name: &'a str,
    created: &'a str,
    end: JobEnd,
    log: &'a str,
    tag: &'a str,
) -> HookJob<'a> {
    let (phase, container) = match name {
        MIGRATE => ("PreSync", "migrate"),
        SMOKE => ("PostSync", "smoke-test"),
        _ => ("SyncFail", "notify"),
    };
    HookJob {
        name,
        hook: phase,
        container,
        tag,
        created,
        end,
        log,
    }
}

fn at(start: &str, seconds: i64) -> String {
    objects::plus_seconds(start, seconds)
}

/// The entries of a sync that ran every hook and succeeded.
fn full_sync_entries(smoke: &str) -> Vec<Value> {
    vec![
        entry("Job", MIGRATE, "PreSync", true, "Succeeded", REACHED),
        entry(
            "ConfigMap",
            "checkout-config",
            "Sync",
            false,
            "Succeeded",
            "configmap/checkout-config unchanged",
        ),
        entry(
            "Deployment",
            "checkout",
            "Sync",
            false,
            "Succeeded",
            "deployment.apps/checkout configured",
        ),
        entry(
            "Job",
            SMOKE,
            "PostSync",
            true,
            smoke,
            if smoke == "Failed" { BACKOFF } else { REACHED },
        ),
    ]
}

/// A succeeded sync of `rev` started at `start`, running both hooks.
fn hooks_sync(rev: &str, start: &str) -> Value {
    operation_state(
        "Succeeded",
        "successfully synced (no more tasks)",
        rev,
        start,
        Some(&at(start, 40)),
        full_sync_entries("Succeeded"),
    )
}

/// The sync before module 10: no hooks; plain resources in the last step keep `hookPhase:
/// Running` although the operation succeeded (facts a2).
fn plain_sync(rev: &str) -> Value {
    operation_state(
        "Succeeded",
        "successfully synced (all tasks run)",
        rev,
        T_FRESH,
        Some(&at(T_FRESH, 5)),
        vec![
            entry(
                "ConfigMap",
                "checkout-config",
                "Sync",
                false,
                "Running",
                "configmap/checkout-config created",
            ),
            entry(
                "Deployment",
                "checkout",
                "Sync",
                false,
                "Running",
                "deployment.apps/checkout created",
            ),
        ],
    )
}

/// The cluster after the learner did `point` correctly and Argo CD caught up.
pub fn solved(point: CoursePoint, revs: &Revisions) -> Snapshot {
    let rev = revs.checkout.as_str();
    let before = revs.checkout_before.as_str();
    let describe = format!("module 10 {point}: solved");
    match point {
        CoursePoint::Fresh | CoursePoint::Step1 => Builder::new(&describe)
            .base(point == CoursePoint::Step1, "6.7.1")
            .app(&AppState {
                sync: "Synced",
                revision: rev,
                health: "Healthy",
                operation_state: Some(plain_sync(rev)),
                history: vec![(rev, T_FRESH)],
            })
            .done(),
        CoursePoint::Step2 | CoursePoint::Step3 => Builder::new(&describe)
            .base(true, "6.7.1")
            .app(&AppState {
                sync: "Synced",
                revision: rev,
                health: "Healthy",
                operation_state: Some(hooks_sync(rev, T_STEP2)),
                history: vec![(before, T_FRESH), (rev, T_STEP2)],
            })
            .job(&hook(
                MIGRATE,
                &at(T_STEP2, 1),
                JobEnd::Complete,
                MIGRATE_LOG_OK,
                "6.7.1",
            ))
            .job(&hook(
                SMOKE,
                &at(T_STEP2, 30),
                JobEnd::Complete,
                SMOKE_LOG_OK,
                "6.7.1",
            ))
            .done(),
        CoursePoint::Step4 => presync_failed(revs, &describe),
        CoursePoint::Step5 | CoursePoint::BreakItFixed => {
            let (start, left) = if point == CoursePoint::Step5 {
                (T_STEP5, at(T_STEP4, 22))
            } else {
                (T_FIX, at(T_BREAK, 60))
            };
            Builder::new(&describe)
                .base(true, "6.7.1")
                .app(&AppState {
                    sync: "Synced",
                    revision: rev,
                    health: "Healthy",
                    operation_state: Some(hooks_sync(rev, start)),
                    history: vec![(before, T_STEP2), (rev, start)],
                })
                .job(&hook(
                    MIGRATE,
                    &at(start, 1),
                    JobEnd::Complete,
                    MIGRATE_LOG_OK,
                    "6.7.1",
                ))
                .job(&hook(
                    SMOKE,
                    &at(start, 30),
                    JobEnd::Complete,
                    SMOKE_LOG_OK,
                    "6.7.1",
                ))
                // BeforeHookCreation deletes a hook only when it runs again: the SyncFail Job of
                // the failed sync stays.
                .job(&hook(
                    SYNC_FAILED,
                    &left,
                    JobEnd::Complete,
                    SYNC_FAILED_LOG,
                    "6.7.1",
                ))
                .done()
        }
        CoursePoint::BreakIt => postsync_failed(revs, true),
    }
}

/// Step 4: the PreSync migration failed, nothing of the Sync phase ran, the SyncFail hook ran.
fn presync_failed(revs: &Revisions, describe: &str) -> Snapshot {
    let rev = revs.checkout.as_str();
    let op = operation_state(
        "Failed",
        TASKS_FAILED,
        rev,
        T_STEP4,
        Some(&at(T_STEP4, 42)),
        vec![
            entry("Job", MIGRATE, "PreSync", true, "Failed", BACKOFF),
            entry("Job", SYNC_FAILED, "SyncFail", true, "Succeeded", REACHED),
        ],
    );
    Builder::new(describe)
        .base(true, "6.7.1")
        .app(&AppState {
            sync: "OutOfSync",
            revision: rev,
            health: "Healthy",
            operation_state: Some(op),
            history: vec![(revs.checkout_before.as_str(), T_STEP2)],
        })
        .job(&hook(
            MIGRATE,
            &at(T_STEP4, 1),
            JobEnd::Failed,
            MIGRATE_LOG_FAILED,
            "6.7.0",
        ))
        .job(&hook(
            SYNC_FAILED,
            &at(T_STEP4, 22),
            JobEnd::Complete,
            SYNC_FAILED_LOG,
            "6.7.1",
        ))
        // The smoke test never ran in this sync: the Job in the cluster is step 2's.
        .job(&hook(
            SMOKE,
            &at(T_STEP2, 30),
            JobEnd::Complete,
            SMOKE_LOG_OK,
            "6.7.1",
        ))
        .done()
}

/// Break-it: the PostSync smoke test failed while the app is Synced and Healthy; with
/// `sync_fail_ran` the SyncFail hook ran (the solved "break" stage), without it it never did.
pub fn postsync_failed(revs: &Revisions, sync_fail_ran: bool) -> Snapshot {
    let rev = revs.checkout.as_str();
    let mut entries = full_sync_entries("Failed");
    if sync_fail_ran {
        entries.push(entry(
            "Job",
            SYNC_FAILED,
            "SyncFail",
            true,
            "Succeeded",
            REACHED,
        ));
    }
    let op = operation_state(
        "Failed",
        TASKS_FAILED,
        rev,
        T_BREAK,
        Some(&at(T_BREAK, 90)),
        entries,
    );
    let describe = if sync_fail_ran {
        "module 10 break-it: smoke test failed, SyncFail ran"
    } else {
        "module 10 break-it: smoke test failed, SyncFail never ran"
    };
    let mut b = Builder::new(describe)
        .base(true, "6.7.1")
        .app(&AppState {
            sync: "Synced",
            revision: rev,
            health: "Healthy",
            operation_state: Some(op),
            history: vec![(revs.checkout_before.as_str(), T_STEP5)],
        })
        .job(&hook(
            MIGRATE,
            &at(T_BREAK, 1),
            JobEnd::Complete,
            MIGRATE_LOG_OK,
            "6.7.1",
        ))
        .job(&hook(
            SMOKE,
            &at(T_BREAK, 30),
            JobEnd::Failed,
            SMOKE_LOG_503,
            "6.7.1",
        ));
    b = if sync_fail_ran {
        b.job(&hook(
            SYNC_FAILED,
            &at(T_BREAK, 60),
            JobEnd::Complete,
            SYNC_FAILED_LOG,
            "6.7.1",
        ))
    } else {
        // Left from step 4's failed sync.
        b.job(&hook(
            SYNC_FAILED,
            &at(T_STEP4, 22),
            JobEnd::Complete,
            SYNC_FAILED_LOG,
            "6.7.1",
        ))
    };
    b.done()
}

/// The learner pushed, but Argo CD is still at the previous revision (it has not polled git
/// yet): the cluster is as it was one point earlier.
pub fn not_seen_yet(point: CoursePoint, revs: &Revisions) -> Snapshot {
    let earlier = match point {
        CoursePoint::Step2 | CoursePoint::Step3 => CoursePoint::Step1,
        CoursePoint::Step4 => CoursePoint::Step3,
        CoursePoint::Step5 => CoursePoint::Step4,
        CoursePoint::BreakIt => CoursePoint::Step5,
        CoursePoint::BreakItFixed => CoursePoint::BreakIt,
        CoursePoint::Fresh | CoursePoint::Step1 => point,
    };
    let mut revs = revs.one_push_earlier();
    // What Argo CD had before that is not known here; the earlier state only needs a different sha.
    revs.checkout_before = revs.checkout.clone();
    solved(earlier, &revs).with_description(&format!(
        "module 10 {point}: pushed, Argo CD still at the previous revision"
    ))
}

/// Step 2 pushed and seen (hooks change nothing Argo CD compares, so it is Synced), but no sync
/// ran: the hooks never ran and there are no Jobs.
pub fn hooks_never_synced(revs: &Revisions) -> Snapshot {
    Builder::new("module 10 step-2: pushed and Synced, but no sync ran the hooks")
        .base(true, "6.7.1")
        .app(&AppState {
            sync: "Synced",
            revision: &revs.checkout,
            health: "Healthy",
            operation_state: Some(plain_sync(&revs.checkout_before)),
            history: vec![(revs.checkout_before.as_str(), T_FRESH)],
        })
        .done()
}

/// Step 4 pushed and seen (OutOfSync), the sync not started yet: the Jobs are step 2's.
pub fn seen_not_synced(revs: &Revisions) -> Snapshot {
    let before = revs.checkout_before.as_str();
    Builder::new("module 10 step-4: Argo CD saw the push, no sync yet; the Jobs are from step 2")
        .base(true, "6.7.1")
        .app(&AppState {
            sync: "OutOfSync",
            revision: &revs.checkout,
            health: "Healthy",
            operation_state: Some(hooks_sync(before, T_STEP2)),
            history: vec![(before, T_STEP2)],
        })
        .job(&hook(
            MIGRATE,
            &at(T_STEP2, 1),
            JobEnd::Complete,
            MIGRATE_LOG_OK,
            "6.7.1",
        ))
        .job(&hook(
            SMOKE,
            &at(T_STEP2, 30),
            JobEnd::Complete,
            SMOKE_LOG_OK,
            "6.7.1",
        ))
        .done()
}

/// Step 4's sync still running: the PreSync migration is at work.
pub fn sync_running(revs: &Revisions) -> Snapshot {
    let op = operation_state(
        "Running",
        "waiting for completion of hook batch/Job/checkout-migrate",
        &revs.checkout,
        T_STEP4,
        None,
        vec![entry(
            "Job",
            MIGRATE,
            "PreSync",
            true,
            "Running",
            "job.batch/checkout-migrate created",
        )],
    );
    Builder::new("module 10 step-4: sync running, migration in progress")
        .base(true, "6.7.1")
        .app(&AppState {
            sync: "OutOfSync",
            revision: &revs.checkout,
            health: "Healthy",
            operation_state: Some(op),
            history: vec![(revs.checkout_before.as_str(), T_STEP2)],
        })
        .job(&hook(
            MIGRATE,
            &at(T_STEP4, 1),
            JobEnd::Running,
            "running migration 0042_add_orders_index\n",
            "6.7.0",
        ))
        .job(&hook(
            SMOKE,
            &at(T_STEP2, 30),
            JobEnd::Complete,
            SMOKE_LOG_OK,
            "6.7.1",
        ))
        .done()
}

/// A sync stuck on the Deployment: its new pod cannot start because the ConfigMap it reads is
/// missing (CreateContainerConfigError), so the app is Progressing.
pub fn config_missing(revs: &Revisions) -> Snapshot {
    let op = operation_state(
        "Running",
        "waiting for healthy state of apps/Deployment/checkout",
        &revs.checkout,
        T_STEP5,
        None,
        vec![
            entry("Job", MIGRATE, "PreSync", true, "Succeeded", REACHED),
            entry(
                "Deployment",
                "checkout",
                "Sync",
                false,
                "Running",
                "deployment.apps/checkout configured",
            ),
        ],
    );
    let mut snapshot =
        Builder::new("module 10: the Deployment's pod cannot start, its ConfigMap is missing")
            .object(objects::namespace(objects::ARGOCD_NS))
            .object(objects::namespace(objects::NS))
            .object(objects::application_crd())
            .object(objects::argocd_cm(true))
            .object(objects::deployment("6.7.1", false))
            .object(objects::deployment_pod(
                "6.7.1",
                &at(T_STEP5, 12),
                Some((
                    "CreateContainerConfigError",
                    "configmap \"checkout-config\" not found",
                )),
            ))
            .app(&AppState {
                sync: "Synced",
                revision: &revs.checkout,
                health: "Progressing",
                operation_state: Some(op),
                history: vec![(revs.checkout_before.as_str(), T_STEP2)],
            })
            .job(&hook(
                MIGRATE,
                &at(T_STEP5, 1),
                JobEnd::Complete,
                MIGRATE_LOG_OK,
                "6.7.1",
            ))
            .done();
    snapshot.description = Some("module 10: CreateContainerConfigError".to_string());
    snapshot
}

/// A cluster without Argo CD: no Application CRD, no `argocd` namespace.
pub fn argo_cd_missing() -> Snapshot {
    Builder::new("module 10: a cluster without Argo CD")
        .object(objects::namespace(objects::NS))
        .object(objects::checkout_config())
        .object(objects::deployment("6.7.1", true))
        .object(objects::deployment_pod(
            "6.7.1",
            "2026-05-02T09:20:30Z",
            None,
        ))
        .done()
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
    fn every_state_is_a_valid_snapshot() {
        let r = revs();
        let mut all: Vec<Snapshot> = CoursePoint::ALL.iter().map(|p| solved(*p, &r)).collect();
        all.extend(CoursePoint::ALL.iter().map(|p| not_seen_yet(*p, &r)));
        all.extend([
            postsync_failed(&r, false),
            hooks_never_synced(&r),
            seen_not_synced(&r),
            sync_running(&r),
            config_missing(&r),
            argo_cd_missing(),
        ]);
        for snapshot in all {
            let description = snapshot.description.clone().unwrap_or_default();
            assert!(
                snapshot.check().is_ok(),
                "{description}: {:?}",
                snapshot.check()
            );
            let text = snapshot.to_yaml().unwrap_or_default();
            assert!(
                Snapshot::from_yaml_str(&text).is_ok(),
                "{description} does not round-trip"
            );
        }
    }

    #[test]
    fn step_4_keeps_the_smoke_test_job_of_step_2() {
        let snapshot = solved(CoursePoint::Step4, &revs());
        let smoke = snapshot
            .objects
            .iter()
            .find(|o| o["kind"] == "Job" && o["metadata"]["name"] == SMOKE);
        assert_eq!(
            smoke.and_then(|o| o["metadata"]["creationTimestamp"].as_str()),
            Some("2026-05-02T10:00:30Z")
        );
    }
}
