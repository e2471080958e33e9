//! Which sync operation a hook Job belongs to (facts-2 §2).
//!
//! A Job counts for the current operation only when that operation's `syncResult.resources` lists
//! it as a hook (SyncFail hooks included) **and** it was created at or after the operation's
//! `startedAt`. An operation that runs no hooks (a selective sync or self-heal, an apply-strategy
//! sync, a dry run: `checks::operation::Shape`) created no Job, so a Job older than it is tied to
//! the successful sync that was running when it was created, through `history[].deployStartedAt`
//! and `deployedAt`. A Job kept by `BeforeHookCreation` from an earlier sync never passes; a
//! retrying operation is still going; a sync of local files is not of any commit.

use k8s_openapi::api::batch::v1::Job;

use crate::checks::cluster_common::{parse_time, short};
use crate::checks::operation::Shape;
use crate::checks::revisions::RevisionView;
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::{Application, HistoryEntry, ResourceResult, Termination};

/// How a Job relates to an Application's operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// Listed as a hook of the current operation and created at or after its start.
    ThisSync,
    /// The current operation ran no hooks; the Job is from the successful sync recorded in
    /// history that started at `started`, which ran `revision`.
    FullSyncBefore { started: String, revision: String },
    /// The current operation synced local files (`argocd app sync --local`), not a commit.
    LocalSync,
    /// Left by an earlier sync (kept by `BeforeHookCreation`).
    Earlier {
        created: String,
        started: Option<String>,
        revision: Option<String>,
    },
    /// The operation failed an attempt and is retrying: nothing is final yet.
    Retrying { attempt: i64, limit: Option<i64> },
    /// Created while the current operation ran, but not one of its hooks.
    NotListed { created: String },
    /// The current operation ran no hooks, and no successful sync of the revision Argo CD
    /// targets made the Job: `why` says what the history shows.
    NoHookSyncOfTarget { created: String, why: String },
    /// The Application never ran an operation.
    NoSync,
    /// A timestamp is missing; labcheck will not guess.
    Unknown(String),
}

/// The full sync in history that was running when `created` happened: the newest entry that
/// started at or before it and had not finished (`deployedAt`) before it. History holds
/// successful syncs only, so a Job of a failed sync (a SyncFail hook) matches none.
fn history_entry_before(
    app: &Application,
    created: k8s_openapi::jiff::Timestamp,
) -> Option<&HistoryEntry> {
    app.status
        .history
        .iter()
        .filter_map(|h| Some((parse_time(h.deploy_started_at.as_deref()?)?, h)))
        .filter(|(started, _)| *started <= created)
        .max_by_key(|(started, _)| *started)
        .map(|(_, h)| h)
        .filter(|h| {
            h.deployed_at
                .as_deref()
                .and_then(parse_time)
                .is_none_or(|done| created <= done)
        })
}

fn history_revision(entry: &HistoryEntry) -> String {
    let shown = RevisionView::history(entry).shown();
    shown.split(", ").map(short).collect::<Vec<_>>().join(", ")
}

/// Tie `job` to one of `app`'s operations.
pub fn bind(job: &Job, app: &Application) -> Binding {
    let Some(op) = app.last_operation() else {
        return Binding::NoSync;
    };
    let name = job.metadata.name.clone().unwrap_or_default();
    let Some(created) = job.metadata.creation_timestamp.as_ref().map(|t| t.0) else {
        return Binding::Unknown(format!("Job {name} has no creationTimestamp"));
    };
    let Some(started) = op.started_at.as_deref().and_then(parse_time) else {
        return Binding::Unknown("the last operation has no startedAt".to_string());
    };
    let earlier = |app: &Application| {
        let entry = history_entry_before(app, created);
        Binding::Earlier {
            created: created.to_string(),
            started: entry.and_then(|h| h.deploy_started_at.clone()),
            revision: entry.map(history_revision),
        }
    };
    let shape = Shape::of(app).unwrap_or(Shape::Full);
    if shape == Shape::Local {
        return Binding::LocalSync;
    }
    if !shape.runs_hooks() {
        // It created no Job (`controller/sync.go:386`; a dry run creates nothing,
        // `gitops-engine/pkg/sync/sync_context.go:1770-1776`), though a dry run lists its hooks.
        if created >= started {
            return Binding::NotListed {
                created: created.to_string(),
            };
        }
        // The evidence is the successful sync that was running when the Job was created
        // (hook-strategy and apply-strategy syncs alike write history, `controller/sync.go:483`).
        let Some(full) = history_entry_before(app, created) else {
            return no_hook::made_by_no_recorded_sync(app, created, &name, shape);
        };
        return Binding::FullSyncBefore {
            started: full.deploy_started_at.clone().unwrap_or_default(),
            revision: history_revision(full),
        };
    }
    if let Some((attempt, limit)) = app.retrying() {
        return Binding::Retrying { attempt, limit };
    }
    if created < started {
        return earlier(app);
    }
    let listed = app
        .sync_results()
        .iter()
        .any(|e| e.kind == "Job" && e.name == name && e.is_hook());
    if listed {
        Binding::ThisSync
    } else {
        Binding::NotListed {
            created: created.to_string(),
        }
    }
}

/// The failure for a Job that is not the evidence the step asks for, or `None` when it is (the
/// Job's own state then decides).
pub fn job_outcome(job: &Job, app: &Application, app_name: &str) -> Option<Outcome> {
    let name = job.metadata.name.clone().unwrap_or_default();
    let binding = bind(job, app);
    if Shape::of(app) == Some(Shape::ApplyOnly)
        && let Some(outcome) = before_an_apply_sync(job, app, app_name, &binding)
    {
        return Some(outcome);
    }
    match binding {
        Binding::ThisSync => terminated_hook(app, app_name, &name)
            .or_else(|| older_revision_outcome(&name, app, app_name)),
        Binding::FullSyncBefore { started, revision } => {
            if !synced_another_revision(app, &started)? {
                None
            } else {
                Some(earlier_sync(
                    app,
                    app_name,
                    &name,
                    &job_created(job),
                    Some(&started),
                    Some(&revision),
                ))
            }
        }
        Binding::Earlier {
            created,
            started,
            revision,
        } => Some(earlier_sync(
            app,
            app_name,
            &name,
            &created,
            started.as_deref(),
            revision.as_deref(),
        )),
        Binding::Retrying { attempt, limit } => Some(retrying_outcome(app_name, attempt, limit)),
        Binding::LocalSync => Some(
            Outcome::fail(format!(
                "Job {name} is of {}, not of your commit",
                Shape::Local.what()
            ))
            .with_hint(format!("sync from git: `argocd app sync {app_name}`"))
            .with_cause(Cause::new(CauseId::LocalSync)),
        ),
        Binding::NoHookSyncOfTarget { created, why } => {
            no_hook::no_hook_sync_of_target(app, app_name, &name, &created, &why)
        }
        Binding::NotListed { created } => {
            let outcome = Outcome::fail(format!(
                "Job {name} (created {created}) is not a hook of the last sync of {app_name}"
            ))
            .with_cause(Cause::about(CauseId::JobNotAHookOfSync, &name));
            Some(if app.operation_running() {
                outcome.still_moving(format!(
                    "the sync is still running: wait (`argocd app wait {app_name}`)"
                ))
            } else {
                outcome.with_diagnosis(format!(
                    "the sync's result does not list {name}: it was created some other way (by hand?), so it says nothing about the sync"
                ))
            })
        }
        Binding::NoSync => Some(
            Outcome::fail(format!(
                "Job {name} exists, but Argo CD has no record of a sync of {app_name}"
            ))
            .with_hint(format!("run the sync: `argocd app sync {app_name}`"))
            .with_cause(Cause::new(CauseId::NoSync)),
        ),
        Binding::Unknown(why) => Some(
            Outcome::could_not_check(format!(
                "cannot tell which sync of {app_name} Job {name} belongs to: {why}"
            ))
            .with_cause(Cause::new(CauseId::SyncUnknown)),
        ),
    }
}

/// A Job older than a last sync that used the apply strategy: that sync ran no hooks, so the Job
/// is from an earlier sync; it counts only when the history shows it was created by a full sync
/// of the revision Argo CD targets now (`None` then, and for a Job the apply sync itself saw
/// created, which the binding names). Never "could not check": the apply sync ran no hook
/// whatever the history keeps.
fn before_an_apply_sync(
    job: &Job,
    app: &Application,
    app_name: &str,
    binding: &Binding,
) -> Option<Outcome> {
    let name = job.metadata.name.clone().unwrap_or_default();
    let created = job_created(job);
    let from = match binding {
        Binding::FullSyncBefore { started, revision } => {
            if !synced_another_revision(app, started)? {
                return None;
            }
            format!("the sync of {revision} that started {started}")
        }
        Binding::Unknown(_) | Binding::NoHookSyncOfTarget { .. } => {
            format!("a sync before it (created {created})")
        }
        _ => return None,
    };
    let last_started = app.last_operation_started_at();
    Some(
        Outcome::fail(format!(
            "the last sync of {app_name} (started {last_started}) used the apply strategy and ran no hooks: Job {name} is from {from}"
        ))
        .with_expected(format!("Job {name} run by a sync of your commit"))
        .with_actual(format!("a Job created {created}, before the apply-strategy sync"))
        .with_hint(format!(
            "run a normal sync, which runs the hooks: `argocd app sync {app_name}` (without `--strategy apply`)"
        ))
        .with_cause(Cause::new(CauseId::ApplyStrategySync)),
    )
}

/// Whether the full sync that started at `started` (in the app's history) synced another
/// revision than the one Argo CD compares against now; `None` when history has no such sync.
fn synced_another_revision(app: &Application, started: &str) -> Option<bool> {
    let entry = app
        .status
        .history
        .iter()
        .find(|h| h.deploy_started_at.as_deref() == Some(started))?;
    Some(!RevisionView::history(entry).same_as(&RevisionView::compared(app)))
}

fn job_created(job: &Job) -> String {
    job.metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.to_string())
        .unwrap_or_default()
}

/// "this Job is from an earlier sync (started …, revision …)".
fn earlier_sync(
    app: &Application,
    app_name: &str,
    name: &str,
    created: &str,
    started: Option<&str>,
    revision: Option<&str>,
) -> Outcome {
    let when = match (started, revision) {
        (Some(s), Some(r)) => format!("started {s}, revision {r}"),
        _ => format!("created {created}, before the last sync began"),
    };
    let last_started = app.last_operation_started_at();
    let outcome = Outcome::fail(format!(
        "Job {name}: this Job is from an earlier sync ({when})"
    ))
    .with_expected(format!(
        "a Job {name} created by the sync of your commit (the last sync started {last_started})"
    ))
    .with_actual(format!("a Job created {created}"))
    .with_cause(Cause::about(CauseId::JobFromEarlierSync, name));
    if app.operation_running() {
        return outcome.still_moving(format!(
            "the sync is still running and has not re-created {name} yet: wait for it (`argocd app wait {app_name}`)"
        ));
    }
    let ran = app
        .sync_results()
        .iter()
        .find(|r| r.kind == "Job" && r.name == name);
    let shape = Shape::of(app).unwrap_or(Shape::Full);
    if let Some(entry) = crate::checks::hook_refused::refused_entry(app, name) {
        // The copy in the cluster is older: the last sync could not create the new one.
        let who = format!("Job {name} (created {created}, before the last sync)");
        return crate::checks::hook_refused::refused_outcome(app, app_name, entry, &who);
    }
    let diagnosis = match (ran, !shape.runs_hooks()) {
        (_, true) => format!("the last operation was {}", shape.what()),
        (Some(entry), false) => format!(
            "the last sync lists {} as {}, but the Job in the cluster is older: it was re-applied, not re-run",
            entry.describe(),
            entry.hook_phase.as_deref().unwrap_or("applied")
        ),
        (None, false) => format!(
            "the last sync (phase {}) never ran {name}: {}",
            app.last_operation()
                .and_then(|o| o.phase.as_deref())
                .unwrap_or("unknown"),
            app.last_operation()
                .and_then(|o| o.message.as_deref())
                .unwrap_or("no message")
        ),
    };
    outcome
        .with_hint_to_wait(format!(
            "start the sync of your commit (`argocd app sync {app_name}`), or wait for the one auto-sync starts (`argocd app wait {app_name}`)"
        ))
        .with_diagnosis(diagnosis)
}

/// The operation is between attempts or in a later one: still going, never failed or done.
pub fn retrying_outcome(app_name: &str, attempt: i64, limit: Option<i64>) -> Outcome {
    let of = match limit {
        Some(l) if l < 0 => " (no limit)".to_string(),
        Some(l) => format!(" of {l}"),
        None => String::new(),
    };
    Outcome::fail(format!(
        "the sync of {app_name} failed an attempt and is retrying (retry {attempt}{of}): nothing is final yet"
    ))
    .with_actual(format!("retrying, attempt {attempt}{of}"))
    .with_cause(Cause::new(CauseId::Retrying))
    .still_moving(format!(
        "Argo CD refuses a new sync while it retries: wait for it (`argocd app wait {app_name}`), or stop the retries (`argocd app terminate-op {app_name}`) and then sync"
    ))
}

/// The operation was ended before it finished, by `argocd app terminate-op` or by the
/// controller's sync timeout: Argo CD deleted its hooks that were still running (their entries
/// say `Deleted`, or `Terminated` in later gitops-engine versions). Named as what ended it, never
/// as a hook delete policy or a failing hook.
pub fn terminated_outcome(app: &Application, app_name: &str) -> Outcome {
    let termination = app.termination().unwrap_or(Termination::ByUser);
    let message = app
        .last_operation()
        .and_then(|o| o.message.clone())
        .unwrap_or_default();
    let deleted: Vec<String> = app
        .sync_results()
        .iter()
        .filter(|e| e.is_hook() && ended_by_termination(e))
        .map(ResourceResult::describe)
        .collect();
    let deleted = match deleted.as_slice() {
        [] => "no hook was running then".to_string(),
        some => format!(
            "Argo CD deleted the hooks still running: {}",
            some.join(", ")
        ),
    };
    let (summary, cause) = match termination {
        Termination::ByUser => (
            format!(
                "the sync of {app_name} was stopped with `argocd app terminate-op` (\"{message}\"); {deleted}"
            ),
            CauseId::OperationTerminated,
        ),
        Termination::ByTimeout => (
            format!(
                "the sync of {app_name} ran past the controller's sync timeout, and Argo CD ended it (\"{message}\"); {deleted}"
            ),
            CauseId::OperationTimedOut,
        ),
    };
    let outcome = Outcome::fail(summary).with_cause(Cause::new(cause));
    if app.operation_running() {
        return outcome.still_moving(format!(
            "it is stopping: wait (`argocd app wait {app_name}`), then start the sync again"
        ));
    }
    match termination {
        Termination::ByUser => outcome.with_hint(format!(
            "start the sync again and let it finish: `argocd app sync {app_name}`"
        )),
        Termination::ByTimeout => outcome
            .with_diagnosis(
                "the controller ends a sync that runs longer than its timeout (`controller.sync.timeout.seconds`); a sync again of the same commit waits on the same thing",
            )
            .with_hint(format!(
                "find what the sync waited on (`argocd app get {app_name} --show-operation`: the row still Running when it ended), fix that in git, push, and sync"
            )),
    }
}

/// Whether a hook's entry records that the termination of its operation deleted it.
pub fn ended_by_termination(entry: &ResourceResult) -> bool {
    matches!(entry.message.as_deref(), Some("Deleted" | "Terminated"))
}

/// Why the hook Job of the last sync's `entry` is gone from the cluster: the termination of that
/// sync deleted it, or its hook delete policy did.
pub fn why_hook_gone(app: &Application, entry: &ResourceResult) -> String {
    match app.termination() {
        Some(Termination::ByUser) if ended_by_termination(entry) => {
            "Argo CD deleted it when `argocd app terminate-op` stopped the sync".to_string()
        }
        Some(Termination::ByTimeout) if ended_by_termination(entry) => {
            "Argo CD deleted it when the controller's sync timeout ended the sync".to_string()
        }
        _ => "its hook delete policy removed it (HookSucceeded deletes hooks after a successful sync, HookFailed after a failed one)".to_string(),
    }
}

/// A Job that was running when the operation was terminated.
fn terminated_hook(app: &Application, app_name: &str, name: &str) -> Option<Outcome> {
    if !app.operation_terminated() {
        return None;
    }
    app.sync_results()
        .iter()
        .find(|e| e.kind == "Job" && e.name == name && ended_by_termination(e))
        .map(|_| terminated_outcome(app, app_name))
}

/// What to say about a Job the cluster no longer has, when the operation state explains it.
pub fn missing_job_outcome(app: &Application, app_name: &str) -> Option<Outcome> {
    if let Some((attempt, limit)) = app.retrying() {
        return Some(retrying_outcome(app_name, attempt, limit));
    }
    if app.operation_terminated() {
        return Some(terminated_outcome(app, app_name));
    }
    None
}

/// A Job the cluster does not have, after a last operation that runs no hooks (an apply-strategy
/// sync, a selective sync or self-heal, a dry run: `controller/sync.go:386`): that operation is
/// why, whatever an earlier sync did; a fail naming it, never "run a sync" as if none had run.
pub fn no_hook_operation_outcome(app: &Application, app_name: &str, job: &str) -> Option<Outcome> {
    if app.operation_running() {
        return None;
    }
    let shape = Shape::of(app).filter(|s| !s.runs_hooks())?;
    let started = app.last_operation_started_at();
    Some(
        Outcome::fail(format!(
            "Job {job} does not exist: the last operation of {app_name} (started {started}) was {}",
            shape.what()
        ))
        .with_expected(format!("Job {job} run by a sync of your commit"))
        .with_actual(format!(
            "no such Job; the last operation was a {}",
            shape.word()
        ))
        .with_hint(shape.full_sync_hint(app_name))
        .with_cause(Cause::new(shape.cause()?)),
    )
}

/// A Job of the last sync still is not the step's Job when that sync ran an older revision than
/// the one Argo CD now targets (the learner pushed, the new sync has not run yet).
fn older_revision_outcome(name: &str, app: &Application, app_name: &str) -> Option<Outcome> {
    let target = RevisionView::compared(app);
    let ran = RevisionView::operation(app)?;
    if target.shown().is_empty() || ran.shown().is_empty() {
        return None;
    }
    if ran.same_as(&target) || app.operation_running() {
        return None;
    }
    let outcome = Outcome::fail(format!(
        "Job {name} is from an earlier sync of {}; Argo CD now targets {}, which no sync has run yet",
        short_list(&ran.shown()),
        short_list(&target.shown())
    ))
    .with_expected(format!(
        "a Job {name} from a sync of {}",
        short_list(&target.shown())
    ))
    .with_actual(format!("a Job from the sync of {}", short_list(&ran.shown())))
    .with_hint(format!(
        "start the sync of your commit: `argocd app sync {app_name}`"
    ))
    .with_cause(Cause::about(CauseId::JobFromEarlierSync, name));
    let auto_sync_pending = app
        .spec
        .sync_policy
        .as_ref()
        .is_some_and(|p| p.get("automated").is_some())
        && app.status.sync.status.as_deref() == Some("OutOfSync")
        && !app
            .last_operation()
            .and_then(|o| o.phase.as_deref())
            .is_some_and(|p| p == "Failed" || p == "Error");
    Some(if auto_sync_pending {
        // Auto-sync starts a sync for an OutOfSync app on its own.
        outcome.still_in_progress()
    } else {
        outcome
    })
}

fn short_list(shown: &str) -> String {
    shown.split(", ").map(short).collect::<Vec<_>>().join(", ")
}

mod commit;
mod no_hook;
pub use commit::{judged_by_the_commit, older_than_the_commit};

#[cfg(test)]
mod tests;
