//! What `labcheck solution` needs from the learner's repos before it prints a script: for each
//! `revert:` of the solution, the commit that made the named change, found by content in the
//! repo's history (read-only, as the `git` checks find it).

use std::path::Path;

use crate::course::solution::SolutionAction;
use crate::course::{Module, Step};
use crate::probe::git::RepoReader;

/// What `labcheck solution` found for a `revert:` when it printed the script: the commit to
/// revert, or why there is none yet (read-only, from the learner's repo).
pub type RevertTarget = Result<String, String>;

/// One target per `revert:` of `step`'s solution, in order.
pub fn revert_targets(module: &Module, step: &Step, work_dir: &Path) -> Vec<RevertTarget> {
    step.solution
        .iter()
        .filter_map(|action| match action {
            SolutionAction::Revert { repo, change } => Some((repo, change)),
            _ => None,
        })
        .map(|(repo, change)| {
            let dir = module
                .manifest
                .repos
                .iter()
                .find(|r| &r.name == repo)
                .map_or(repo.as_str(), |r| r.dir_name());
            let path = work_dir.join(dir);
            let what = change.describe();
            let reader = RepoReader::open(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let snapshot = reader
                .snapshot()
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let Some(head) = snapshot.head else {
                return Err(format!("{repo} has no commit yet, so none makes {what}"));
            };
            let holds = |c: Option<&[u8]>| change.holds(c);
            match reader.newest_change(&head.sha, &change.file, &holds) {
                Ok(Some(commit)) => Ok(commit.sha),
                Ok(None) => Err(format!(
                    "no commit in {repo} makes {what} yet: do {} first",
                    change.step.as_deref().unwrap_or("the step that makes it")
                )),
                Err(e) => Err(format!("cannot read the history of {repo}: {e}")),
            }
        })
        .collect()
}
