//! A Job whose sync the cluster cannot tell, told by the learner's commit: made before the commit
//! existed, no sync of that push made it.

use k8s_openapi::api::batch::v1::Job;

use super::{Binding, bind};
use crate::checks::Context;
use crate::checks::cluster_common::short;
use crate::checks::operation::Shape;
use crate::outcome::{Cause, Outcome};
use crate::probe::cluster::argocd::Application;

/// A Job whose sync cannot be told from the history (no successful sync was running when it was
/// created), after an operation that runs no hooks: when it was created before the commit Argo CD
/// targets now was even made (`committed`, Unix seconds, from the learner's clone), no sync of
/// that push made it, whatever failed or fell out of the history. A fail naming the operation;
/// `None` when the Job is younger than the commit (a failed sync of the push may have made it).
pub fn older_than_the_commit(
    job: &Job,
    app: &Application,
    app_name: &str,
    commit: &str,
    committed: i64,
) -> Option<Outcome> {
    let shape = Shape::of(app).filter(|s| !s.runs_hooks())?;
    if !matches!(
        bind(job, app),
        Binding::Unknown(_) | Binding::NoHookSyncOfTarget { .. }
    ) {
        return None;
    }
    let created = job.metadata.creation_timestamp.as_ref()?.0;
    let committed_at = k8s_openapi::jiff::Timestamp::from_second(committed).ok()?;
    if created >= committed_at {
        return None;
    }
    let name = job.metadata.name.clone().unwrap_or_default();
    let started = app.last_operation_started_at();
    Some(
        Outcome::fail(format!(
            "Job {name} (created {created}) is older than your commit {} (committed {committed_at}): no sync of your push made it, and the last operation of {app_name} (started {started}) was {}, which runs no hooks",
            short(commit),
            shape.what()
        ))
        .with_expected(format!("Job {name} run by a sync of your commit"))
        .with_actual(format!("a Job created {created}, before your commit"))
        .with_diagnosis(
            "the history holds no successful sync of your commit, and the Job was made before it existed: the hooks of your push never ran",
        )
        .with_hint(shape.full_sync_hint(app_name))
        .with_cause(Cause::new(shape.cause()?)),
    )
}

/// `outcome` (a Job check's verdict on `job`) unless it is "could not check" and the learner's
/// commit tells: then [`older_than_the_commit`]'s fail.
pub fn judged_by_the_commit(
    ctx: &Context,
    outcome: Outcome,
    job: &Job,
    app: &Application,
    app_name: &str,
) -> Outcome {
    // "Could not check" may be settled by the commit; a fail for a Job no recorded sync made is
    // worded more plainly by it ("made before your commit existed").
    let settled_by_history = matches!(bind(job, app), Binding::NoHookSyncOfTarget { .. })
        && outcome.cause.as_ref().map(|c| c.id()) == Shape::of(app).and_then(|s| s.cause());
    if outcome.status != crate::outcome::Status::Error && !settled_by_history {
        return outcome;
    }
    compared_commit_time(ctx, app)
        .and_then(|(commit, committed)| {
            older_than_the_commit(job, app, app_name, &commit, committed)
        })
        .unwrap_or(outcome)
}

/// The commit Argo CD targets now in one of the module's work repos, and when it was committed;
/// `None` when no work repo has it (or none can be read: the verdict then stays as it was).
fn compared_commit_time(ctx: &Context, app: &Application) -> Option<(String, i64)> {
    use crate::checks::revisions::{Lookup, RepoId, RevisionView};
    let view = RevisionView::compared(app);
    ctx.repos.iter().find_map(|repo| {
        let id = RepoId {
            name: repo.name.clone(),
            origin_url: None,
        };
        let Lookup::Found(revisions) = view.lookup(&id) else {
            return None;
        };
        let reader = ctx.repo_probe.open(&ctx.repo_dir(&repo.name)).ok()?;
        revisions.iter().find_map(|sha| {
            let time = reader.commit_time(sha).ok().flatten()?;
            Some((sha.clone(), time))
        })
    })
}
