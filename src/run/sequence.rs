//! Break-it as a sequence: a `fix` stage counts only when the break really happened, either
//! seen by labcheck for this learner (the `break` stage passed, recorded in the progress of
//! this work dir) or shown by the work repo's history (the commit that made the breaking change,
//! then a commit that undoes it), found by content, never by commit message.

use super::{CheckReport, Recall};
use crate::checks::Context;
use crate::checks::git::unreadable::{shown_path, what_is_wrong};
use crate::course::Step;
use crate::course::schema::AfterSpec;
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::git::{RepoReader, reverted_sha};

/// The id of the check this adds to a stage with `after:`.
pub const CHECK_ID: &str = "break-came-first";

/// The extra check of a stage with `after:`; `None` for other steps.
pub fn after_check(ctx: &Context, recall: &Recall, step: &Step) -> Option<CheckReport> {
    let after = step.after.as_ref()?;
    let exercise = step.name.split('/').next().unwrap_or_default();
    let earlier = format!("{exercise}/{}", after.stage);
    let outcome = match (recall.seen_passed.get(&earlier), ctx.unchecked_repos()) {
        (Some(day), _) => Outcome::pass(format!("labcheck saw {earlier} pass on {day}")),
        (None, Some(unchecked)) => unchecked,
        (None, None) => from_history(ctx, &earlier, after),
    };
    Some(CheckReport::new(
        CHECK_ID,
        "sequence",
        format!("the break ({earlier}) really happened before this fix"),
        outcome,
    ))
}

fn from_history(ctx: &Context, earlier: &str, after: &AfterSpec) -> Outcome {
    let module = &ctx.module;
    let repo_dir = ctx.repo_dir(&after.repo);
    let change = &after.change;
    let what = change.describe();
    let found = RepoReader::open(&repo_dir).and_then(|reader| {
        let Some(head) = reader.snapshot()?.head else {
            return Ok(None);
        };
        let holds = |c: Option<&[u8]>| change.holds(c);
        let Some(breaking) = reader.newest_change(&head.sha, &change.file, &holds)? else {
            return Ok(None);
        };
        // Undone later: a `git revert` of it, or the change no longer there at HEAD.
        let later = reader.commits_after(&head.sha, &breaking.sha)?;
        let revert = later
            .iter()
            .find(|c| reverted_sha(&c.message).as_deref() == Some(breaking.sha.as_str()))
            .cloned();
        let undone = !change.holds(reader.read_blob(&head.sha, &change.file)?.as_deref());
        Ok(Some((breaking, revert, undone)))
    });
    match found {
        Err(e) => Outcome::could_not_check(format!(
            "cannot read the history of {}: {}",
            after.repo,
            what_is_wrong(&ctx.paths, &shown_path(ctx, &after.repo), &e).0
        ))
        .with_cause(Cause::about(CauseId::HistoryUnreadable, &after.repo)),
        Ok(Some((breaking, revert, true))) => Outcome::pass(match revert {
            Some(revert) => format!(
                "{}'s history shows the break {} \"{}\" ({what}) and its revert {}",
                after.repo,
                breaking.short(),
                breaking.summary,
                revert.short()
            ),
            None => format!(
                "{}'s history shows the break {} \"{}\" ({what}), undone after it",
                after.repo,
                breaking.short(),
                breaking.summary
            ),
        }),
        Ok(Some((breaking, _, false))) => Outcome::fail(format!(
            "labcheck never saw {earlier} pass in this work dir; {}'s history has the break {} \"{}\", but HEAD has not undone it yet",
            after.repo,
            breaking.short(),
            breaking.summary
        ))
        .with_hint(format!(
            "undo the break as this stage says (see the checks above); `labcheck {module} {earlier}` checks the break itself"
        ))
        .with_cause(Cause::new(CauseId::BreakNotUndone)),
        Ok(None) => Outcome::fail(format!(
            "labcheck never saw {earlier} pass in this work dir, and {}'s history has no commit that made {what}",
            after.repo
        ))
        .with_hint(format!(
            "do the break first: `labcheck {module} {earlier}` shows what it asks; then fix it"
        ))
        .with_cause(Cause::new(CauseId::BreakNotSeen)),
    }
}
