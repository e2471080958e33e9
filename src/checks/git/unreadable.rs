//! A work repo that could not be read (missing, not a repo, shallow, bare, not owned, damaged):
//! "could not check", with the fix, never a fail. Every check that reads a work repo's git
//! (the `git` kind, `argocd_app`'s pushed revision) says it in these words.

use crate::checks::Context;
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::files::PathShower;
use crate::probe::git::GitProbeError;

use super::GitSpec;

impl GitSpec {
    /// The repo is missing or unreadable: labcheck could not look, which is not a verdict.
    pub(super) fn unreadable(&self, ctx: &Context, shown: &str, error: &GitProbeError) -> Outcome {
        unreadable(ctx, &self.repo, shown, error)
    }
}

/// Work repo `repo` (shown as `shown`) is missing or unreadable: labcheck could not look, which is
/// not a verdict.
pub(crate) fn unreadable(ctx: &Context, repo: &str, shown: &str, error: &GitProbeError) -> Outcome {
    let (what, cause) = what_is_wrong(&ctx.paths, shown, error);
    let mut outcome =
        Outcome::could_not_check(format!("{repo}: {what}")).with_cause(Cause::new(cause));
    match error.fix(shown) {
        Some(fix) => outcome = outcome.with_hint(fix),
        None => {
            outcome = outcome.with_diagnosis(
                "labcheck looks for work repos in --work-dir (default ~/work, or $LABCHECK_WORK_DIR)",
            );
            if let Some(spec) = ctx.repo(repo) {
                outcome = outcome.with_hint(format!("get {}", spec.get));
            }
        }
    }
    outcome
}

/// What keeps git from reading the repo shown as `shown`, in words with paths as `paths` shows
/// them (never the probe's raw path), and its cause.
pub(crate) fn what_is_wrong(
    paths: &PathShower,
    shown: &str,
    error: &GitProbeError,
) -> (String, CauseId) {
    match error {
        GitProbeError::Missing { .. } => (
            format!("labcheck looked in {shown}, and it does not exist"),
            CauseId::RepoMissing,
        ),
        GitProbeError::NotARepo { .. } => (
            format!("{shown} exists but is not a git repository (no .git folder)"),
            CauseId::NotARepo,
        ),
        GitProbeError::Shallow { .. } => (
            format!(
                "{shown} is a shallow clone (git clone --depth), so the commits this check looks for may be in the history that was not fetched"
            ),
            CauseId::ShallowClone,
        ),
        GitProbeError::Bare { .. } => (
            format!(
                "{shown} is a bare repository (made by `git clone --bare` or `git init --bare`): it has no working tree, so there is nothing to check in it"
            ),
            CauseId::BareRepo,
        ),
        GitProbeError::GitdirGone { gitdir, .. } => (
            format!(
                "{shown}/.git is a file pointing at {}, which no longer exists, so git cannot read this repo",
                paths.show(gitdir)
            ),
            CauseId::GitdirGone,
        ),
        GitProbeError::NotOwned { .. } => (
            format!(
                "{shown} belongs to another user, and git refuses to read such a repository unless it is listed in safe.directory"
            ),
            CauseId::RepoNotOwned,
        ),
        GitProbeError::Corrupt { source, .. } => (
            format!(
                "{shown} is damaged: an object git needs is missing or broken ({}), so labcheck cannot tell what it holds",
                source.message()
            ),
            CauseId::RepoDamaged,
        ),
        GitProbeError::Git { source, .. } => (
            format!(
                "cannot read the git repository in {shown}: {}",
                source.message()
            ),
            CauseId::RepoUnreadable,
        ),
    }
}

/// `~/work/<dir>` when the work dir is `~/work` (as the course writes it), else the real path.
pub(crate) fn shown_path(ctx: &Context, repo: &str) -> String {
    let dir = ctx.repo_dir(repo);
    match dir.strip_prefix(&ctx.work_dir) {
        Ok(rest) if ctx.paths.is_home_work(&ctx.work_dir) => {
            format!("~/work/{}", rest.display())
        }
        _ => dir.display().to_string(),
    }
}
