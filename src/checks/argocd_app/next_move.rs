//! What Argo CD will do next without the learner: an auto-sync about to start, an older
//! operation still retrying. Both the verdict on the last sync and the reading of its shape ask
//! these, so they live below both.

use crate::checks::cluster_common::short;
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::Application;

/// Whether auto-sync will start a sync of the target by itself, when the last operation ran
/// another revision: automated and OutOfSync (auto-sync skips only a revision the last operation
/// already tried, `controller/appcontroller.go:2589-2597`; a Synced app gets no auto-sync).
pub(super) fn auto_sync_pending(app: &Application) -> bool {
    app.spec
        .sync_policy
        .as_ref()
        .is_some_and(|p| p.get("automated").is_some())
        && app.status.sync.status.as_deref() == Some("OutOfSync")
}

/// An older operation retries while Argo CD targets the push: name it, its revision and the way
/// out. Without `retry.refresh` every attempt syncs the same revision (the controller keeps
/// `operation.sync.revision`), and Argo CD refuses a new sync while one runs; with it, the next
/// attempt syncs the latest revision (`controller/appcontroller.go:1626-1632`).
pub(super) fn retrying_other_revision(
    app: &Application,
    name: &str,
    shown: &str,
    want: &str,
    (attempt, limit, refresh): (i64, Option<i64>, bool),
) -> Outcome {
    let of = match limit {
        Some(l) if l < 0 => " (no limit)".to_string(),
        Some(l) => format!(" of {l}"),
        None => String::new(),
    };
    let outcome = Outcome::fail(format!(
        "an older sync of {name} is retrying ({shown}, retry {attempt}{of}); your push {} has not been synced",
        short(want)
    ))
    .with_expected(format!("a sync of {}", short(want)))
    .with_actual(format!("retries of the sync of {shown}"))
    .with_cause(Cause::new(CauseId::RetryingOtherRevision));
    if refresh {
        return outcome.still_moving(format!(
            "its retries take the latest revision (`retry.refresh`), so the next attempt syncs your push: wait (`argocd app wait {name}`)"
        ));
    }
    let outcome = outcome.with_hint(format!(
        "Argo CD retries {shown} and refuses another sync until the retries end: stop them (`argocd app terminate-op {name}`), then sync your commit (`argocd app sync {name}`)"
    ));
    let automated = app
        .spec
        .sync_policy
        .as_ref()
        .is_some_and(|p| p.get("automated").is_some());
    if automated {
        // Once the retries run out, auto-sync starts a sync of the target: waiting gets there.
        outcome.still_in_progress()
    } else {
        outcome
    }
}
