//! A Job made while no successful sync the history keeps was running, after an operation that
//! runs no hooks: decided from what the history shows (issue 40), a fail naming that operation
//! wherever the history answers, "could not check" only where a full history may have lost the
//! sync that made it.

use super::{Binding, short_list};
use crate::checks::cluster_common::parse_time;
use crate::checks::operation::{Recorded, Shape, recorded_sync_of_target};
use crate::checks::revisions::RevisionView;
use crate::outcome::{Cause, Outcome};
use crate::probe::cluster::argocd::Application;

/// The Job was created while no successful sync the history keeps was running, after which an
/// operation that runs no hooks came. What the history shows decides, never a guess: a ✓ would
/// claim the hook ran in a sync of the revision Argo CD targets, so only a sync the history may
/// have lost leaves the question open.
///
/// * The history holds the target's successful sync: it was not running when the Job was made,
///   so the Job is not its hook (a full sync re-creates its hooks, `BeforeHookCreation`).
/// * The history holds none and is not full: no sync of the target ever succeeded (every
///   successful full sync writes an entry, `controller/sync.go:483`). A Job made after the push
///   came from a sync that failed, or from someone's hand; either way no recorded sync ran it.
/// * The history is full: a successful sync of the target may have fallen out, but only one that
///   ended before the oldest kept entry started (operations of one app never overlap, and the
///   oldest entries are dropped first). A Job made after that start is none of them.
pub(super) fn made_by_no_recorded_sync(
    app: &Application,
    created: k8s_openapi::jiff::Timestamp,
    name: &str,
    shape: Shape,
) -> Binding {
    let target = short_list(&RevisionView::compared(app).shown());
    let why = match recorded_sync_of_target(app) {
        Recorded::Synced(entry) => format!(
            "the history's successful sync of {target} (started {}, finished {}) was not running when Job {name} was created, so the Job is not its hook",
            entry
                .deploy_started_at
                .as_deref()
                .unwrap_or("at an unrecorded time"),
            entry
                .deployed_at
                .as_deref()
                .unwrap_or("at an unrecorded time"),
        ),
        Recorded::Never => format!(
            "the history holds no successful sync of {target}, so no sync of it that ran hooks is on record (a sync that failed leaves no history entry; a Job made after your push came from one, or by hand)"
        ),
        Recorded::MaybeTrimmed { limit } => {
            let oldest_kept = app
                .status
                .history
                .iter()
                .filter_map(|h| parse_time(h.deploy_started_at.as_deref()?))
                .min();
            match oldest_kept {
                Some(oldest) if created >= oldest => format!(
                    "the history keeps {limit} syncs, none of {target}, and Job {name} was created after the oldest of them started ({oldest}): no sync that fell out of the history made it"
                ),
                _ => {
                    return Binding::Unknown(format!(
                        "the last operation was {}, and the sync that created Job {name} may have fallen out of the history (it keeps {limit})",
                        shape.what()
                    ));
                }
            }
        }
    };
    Binding::NoHookSyncOfTarget {
        created: created.to_string(),
        why,
    }
}

/// A Job no recorded sync of the target made, after an operation that runs no hooks: a fail
/// naming that operation (its cause, its hint), never a pass and never "could not check".
pub(super) fn no_hook_sync_of_target(
    app: &Application,
    app_name: &str,
    name: &str,
    created: &str,
    why: &str,
) -> Option<Outcome> {
    let shape = Shape::of(app).filter(|s| !s.runs_hooks())?;
    let started = app.last_operation_started_at();
    Some(
        Outcome::fail(format!(
            "Job {name} (created {created}) was run by no sync of {app_name} on record: the last operation (started {started}) was {}",
            shape.what()
        ))
        .with_expected(format!("Job {name} run by a sync of your commit"))
        .with_actual(format!(
            "a Job created {created}, by no sync Argo CD records; then a {}",
            shape.word()
        ))
        .with_diagnosis(why.to_string())
        .with_hint(shape.full_sync_hint(app_name))
        .with_cause(Cause::new(shape.cause()?)),
    )
}
