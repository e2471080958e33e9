//! Break-it as a sequence: a `fix` stage counts only when the break really happened, either
//! seen by labcheck (the `break` stage passed, recorded in progress) or shown by the work repo's
//! history (the breaking commit, then its `git revert`).

use std::path::Path;

use super::{CheckReport, Context};
use crate::course::Step;
use crate::course::schema::AfterSpec;
use crate::outcome::{Cause, Outcome};
use crate::probe::git::{RepoReader, reverted_sha};

/// The id of the check this adds to a stage with `after:`.
pub const CHECK_ID: &str = "break-came-first";

/// How far back the history is searched for the breaking commit.
const HISTORY_LIMIT: usize = 500;

/// The extra check of a stage with `after:`; `None` for other steps.
pub fn after_check(ctx: &Context, step: &Step) -> Option<CheckReport> {
    let after = step.after.as_ref()?;
    let exercise = step.name.split('/').next().unwrap_or_default();
    let earlier = format!("{exercise}/{}", after.stage);
    let outcome = match (ctx.seen_passed.get(&earlier), ctx.unchecked_repos()) {
        (Some(day), _) => Outcome::pass(format!("labcheck saw {earlier} pass on {day}")),
        (None, Some(unchecked)) => unchecked,
        (None, None) => from_history(&ctx.module, &earlier, after, &ctx.repo_dir(&after.repo)),
    };
    Some(CheckReport {
        id: CHECK_ID.to_string(),
        kind: "sequence",
        title: format!("the break ({earlier}) really happened before this fix"),
        outcome,
    })
}

fn from_history(module: &str, earlier: &str, after: &AfterSpec, repo_dir: &Path) -> Outcome {
    let do_it_first = format!(
        "do the break first: `labcheck {module} {earlier}` shows what it asks; then fix it"
    );
    let commits = RepoReader::open(repo_dir).and_then(|reader| {
        let head = reader.snapshot()?.head;
        match head {
            Some(head) => reader.history(&head.sha, HISTORY_LIMIT),
            None => Ok(Vec::new()),
        }
    });
    let commits = match commits {
        Ok(commits) => commits,
        Err(e) => {
            return Outcome::could_not_check(format!(
                "cannot read the history of {}: {e}",
                after.repo
            ))
            .with_cause(Cause::about("history-unreadable", &after.repo));
        }
    };
    // Newest first: a revert of the break must come before (be newer than) the break.
    for (i, breaking) in commits.iter().enumerate() {
        if !after.commit.is_match(breaking.message.trim_end()) {
            continue;
        }
        if let Some(revert) = commits[..i]
            .iter()
            .find(|c| reverted_sha(&c.message).as_deref() == Some(breaking.sha.as_str()))
        {
            return Outcome::pass(format!(
                "{}'s history shows the break {} \"{}\" and its revert {}",
                after.repo,
                breaking.short(),
                breaking.summary,
                revert.short()
            ));
        }
    }
    Outcome::fail(format!(
        "labcheck never saw {earlier} pass, and {}'s history has no commit matching `{}` followed by its revert",
        after.repo,
        after.commit.as_str()
    ))
    .with_hint(do_it_first)
    .with_cause(Cause::new("break-not-seen"))
}
