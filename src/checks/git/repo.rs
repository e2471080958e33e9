//! The conditions on a work repo's state — branch, clean tree, pushed, HEAD's message — each
//! a pass summary or the failing outcome with its hint.

use std::path::Path;

use crate::outcome::{Cause, CauseId, DetailKind, Outcome};
use crate::probe::git::{CommitInfo, GitProbeError, RepoSnapshot};

use super::Pattern;
use super::stray::{Untracked, add_by_name, looks_secret, names_itself};

/// How many dirty paths a summary names before "and N more".
const DIRTY_SHOWN: usize = 5;

/// One repo's snapshot with the path to show; each method checks one condition and returns a
/// pass summary or the failing outcome.
pub(crate) struct Repo<'a> {
    pub(crate) shown: &'a str,
    pub(crate) snap: &'a RepoSnapshot,
    /// The repo's folder, for the working-tree version of a file.
    pub(crate) dir: &'a Path,
    /// How the repo is read (live, recorded, replayed).
    pub(crate) probe: &'a crate::probe::repos::Repos,
    /// The module being checked, for `labcheck MODULE STEP` in hints.
    pub(crate) module: &'a str,
    /// How paths are shown (the context's).
    pub(crate) paths: &'a crate::probe::files::PathShower,
    /// The files of this repo the step names (see [`super::GitSpec::step_paths`]).
    pub(crate) step_paths: &'a [String],
}

/// A condition holds (with a summary) or fails (with the outcome to report). Boxed: an outcome
/// is large and mostly travels the rare path.
pub(crate) type Verdict = Result<String, Box<Outcome>>;

pub(crate) fn broken(outcome: Outcome) -> Verdict {
    Err(Box::new(outcome))
}

/// Why a condition that reads history does not pass: it does not hold (with the outcome to
/// report), or the repo's history could not be read (worded by [`super::unreadable`]).
pub(crate) enum Stop {
    Failed(Box<Outcome>),
    Unreadable(GitProbeError),
}

/// A condition that reads history: a pass summary, or why it stopped.
pub(crate) type Checked = Result<String, Stop>;

/// A condition that reads history does not hold: `outcome` says how.
pub(crate) fn failed(outcome: Outcome) -> Stop {
    Stop::Failed(Box::new(outcome))
}

impl From<Box<Outcome>> for Stop {
    fn from(outcome: Box<Outcome>) -> Stop {
        Stop::Failed(outcome)
    }
}

impl From<GitProbeError> for Stop {
    fn from(error: GitProbeError) -> Stop {
        Stop::Unreadable(error)
    }
}

impl Repo<'_> {
    /// `cd <repo>`, quoted so it pastes (a work dir with a space).
    pub(crate) fn cd(&self) -> String {
        crate::shell::cd(self.shown)
    }

    pub(super) fn branch_name(&self) -> &str {
        self.snap.branch.as_deref().unwrap_or("main")
    }

    pub(super) fn operation_in_progress(&self, operation: &str) -> Outcome {
        // The files to mark resolved are the conflicted ones, by name; with none left, the
        // operation only needs its last step.
        let resolved = add_by_name(self.snap.conflicted.iter().map(String::as_str))
            .map(|add| format!("{add} && "))
            .unwrap_or_default();
        let hint = match operation {
            "bisect" => format!("{} && git bisect reset", self.cd()),
            "merge" => format!(
                "resolve the conflicts, then `{resolved}git commit --no-edit` (or give up with `git merge --abort`) in {}",
                self.shown
            ),
            op => format!(
                "resolve the conflicts and `{resolved}git {op} --continue` (or give up with `git {op} --abort`) in {}",
                self.shown
            ),
        };
        Outcome::fail(format!(
            "a {operation} is in progress in {}, so the step's commit is not finished",
            self.shown
        ))
        .with_actual(format!("{operation} in progress"))
        .with_cause(Cause::new(CauseId::OperationInProgress))
        .with_hint(hint)
    }

    pub(super) fn branch(&self, expected: &str) -> Verdict {
        match (&self.snap.branch, &self.snap.head) {
            (Some(branch), _) if branch == expected => Ok(format!("on {branch}")),
            (Some(branch), _) => broken(
                Outcome::fail(format!(
                    "{} is on branch {branch}, not {expected}",
                    self.shown
                ))
                .with_expected(expected)
                .with_actual(branch.as_str())
                .with_cause(Cause::new(CauseId::WrongBranch))
                .with_hint(format!("{} && git switch {expected}", self.cd())),
            ),
            (None, head) => {
                let at = head.as_ref().map(CommitInfo::short).unwrap_or("?");
                broken(
                    Outcome::fail(format!(
                        "{} is not on a branch: HEAD is detached at {at}",
                        self.shown
                    ))
                    .with_expected(expected)
                    .with_actual(format!("detached HEAD at {at}"))
                    .with_cause(Cause::new(CauseId::DetachedHead))
                    .with_hint(format!("{} && git switch {expected}", self.cd())),
                )
            }
        }
    }

    /// `clean`: nothing the step's commit should hold is left out of it. Counts tracked files
    /// changed in the working tree or the index (staged included), and untracked files where
    /// the step names them. Other untracked files (a `.env`, an editor's swap file) never fail
    /// the step: they are named in a note, a secret-looking one with "keep it out of git".
    pub(super) fn clean(&self) -> Verdict {
        let untracked = Untracked::sort(&self.snap.untracked, self.step_paths);
        let changed: Vec<&str> = self
            .snap
            .dirty
            .iter()
            .map(String::as_str)
            .chain(untracked.named.iter().copied())
            .collect();
        if changed.is_empty() {
            return Ok(if untracked == Untracked::default() {
                "nothing uncommitted".to_string()
            } else {
                "nothing of the step uncommitted".to_string()
            });
        }
        let mut named = changed
            .iter()
            .take(DIRTY_SHOWN)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if changed.len() > DIRTY_SHOWN {
            named.push_str(&format!(" and {} more", changed.len() - DIRTY_SHOWN));
        }
        // A submodule is dirty from inside (edits or a new commit there); adding it in the
        // outer repo would record a half-done submodule, so send the learner into it.
        if let Some(sub) = self.snap.dirty_submodules.first() {
            let inside = format!("{}/{}", self.shown, sub.trim_end_matches('/'));
            return broken(
                Outcome::fail(format!(
                    "{} has uncommitted changes inside its submodule {sub} (edited files, or a commit there the outer repo does not record yet)",
                    self.shown
                ))
                .with_expected("a clean working tree")
                .with_actual(format!("submodule {sub} changed"))
                .with_hint(format!(
                    "{} && git status   # commit (or undo) what changed in the submodule; then record it from {}: git add {} && git commit -m \"…\"",
                    crate::shell::cd(&inside),
                    crate::shell::quote_path(self.shown),
                    crate::shell::quote(sub.trim_end_matches('/'))
                ))
                .with_cause(Cause::about(CauseId::SubmoduleDirty, sub.trim_end_matches('/'))),
            );
        }
        let count = plural(changed.len(), "uncommitted change");
        // A secret-looking file the step does not name (a `.env` added by `git add .`) is
        // never added by the hint: committed, it would be pushed. Unstaging it is safe either
        // way (the working tree keeps it).
        let (secret, to_add): (Vec<&str>, Vec<&str>) = changed
            .iter()
            .partition(|path| looks_secret(path) && !names_itself(self.step_paths, path));
        let mut hint = match add_by_name(to_add.iter().copied()) {
            Some(add) => format!(
                "{} && {add} && git commit -m \"…\" (or undo what you did not mean to change)",
                self.cd()
            ),
            None => format!("{} && git status", self.cd()),
        };
        if let Some(unstage) = add_by_name(secret.iter().copied()) {
            let unstage = unstage.replacen("git add", "git restore --staged", 1);
            hint.push_str(&format!(
                "\n{} may hold a secret, so this hint leaves it out: never commit it; if you staged it, `{unstage}` takes it out of the commit and keeps the file",
                secret.join(", ")
            ));
        }
        let mut outcome = Outcome::fail(format!("{} has {count}: {named}", self.shown))
            .with_expected("a clean working tree")
            .with_actual(count)
            .with_cause(Cause::new(CauseId::UncommittedChanges))
            .with_hint(hint);
        if changed.len() > DIRTY_SHOWN {
            outcome = outcome.with_detail(DetailKind::Text, changed.join("\n"));
        }
        broken(outcome)
    }

    /// What git does not track here and the step leaves alone, for a note under the check.
    pub(super) fn untracked_note(&self) -> Option<String> {
        Untracked::sort(&self.snap.untracked, self.step_paths).note(self.shown)
    }

    /// `git add -- <the step's files> && `, or an instruction to add them by name when the step
    /// names none (never a command that adds everything).
    pub(super) fn add_step_files(&self) -> String {
        match add_by_name(self.step_paths.iter().map(String::as_str)) {
            Some(add) => format!("{add} && "),
            None => "git add -- <each file you changed, by name> && ".to_string(),
        }
    }

    pub(crate) fn unborn(&self) -> Outcome {
        let branch = self.branch_name();
        Outcome::fail(format!("{} has no commit yet on {branch}", self.shown))
            .with_actual("no commits")
            .with_cause(Cause::new(CauseId::NoCommits))
            .with_hint(format!(
                "{} && {}git commit -m \"…\" && git push -u origin {branch}",
                self.cd(),
                self.add_step_files()
            ))
    }

    pub(super) fn pushed(&self) -> Verdict {
        let Some(head) = &self.snap.head else {
            return broken(self.unborn());
        };
        let branch = self.branch_name();
        let shown = self.shown;
        // Nothing of the branch reached origin: `first` is what the push must come after.
        let nothing_pushed = |summary: String, actual: &str, cause: CauseId, first: &str| {
            broken(
                Outcome::fail(summary)
                    .with_expected(format!("{branch} pushed to origin/{branch}"))
                    .with_actual(actual)
                    .with_cause(Cause::new(cause))
                    .with_hint(format!(
                        "{} && {first}git push -u origin {branch}",
                        self.cd()
                    )),
            )
        };
        if !self.snap.has_origin && self.snap.upstream.is_none() {
            return nothing_pushed(
                format!("{shown} has no remote `origin`, so nothing can be pushed"),
                "no remote origin",
                CauseId::NoRemote,
                "git remote add origin <the repo's URL on your Git server> && ",
            );
        }
        let Some(up) = &self.snap.upstream else {
            return nothing_pushed(
                format!(
                    "{branch} in {shown} has no upstream: nothing was pushed to origin/{branch}"
                ),
                "no upstream branch",
                CauseId::NotPushed,
                "",
            );
        };
        let expected = format!("{branch} equal to {}", up.name);
        let cause = match (up.ahead, up.behind) {
            (_, 0) => CauseId::NotPushed,
            (0, _) => CauseId::BehindUpstream,
            _ => CauseId::Diverged,
        };
        let (summary, actual, hint) = match (up.ahead, up.behind) {
            (0, 0) => {
                return Ok(format!(
                    "{branch} is pushed ({} at {})",
                    up.name,
                    head.short()
                ));
            }
            (ahead, 0) => (
                format!(
                    "{branch} is {} ahead of {}: committed but not pushed",
                    plural(ahead, "commit"),
                    up.name
                ),
                format!("{} ahead", plural(ahead, "commit")),
                format!("{} && git push", self.cd()),
            ),
            (0, behind) => (
                format!(
                    "{branch} is {} behind {}: someone pushed after your last pull",
                    plural(behind, "commit"),
                    up.name
                ),
                format!("{} behind", plural(behind, "commit")),
                format!("{} && git pull", self.cd()),
            ),
            (ahead, behind) => (
                format!(
                    "{branch} and {} have diverged: {} not pushed, {} not pulled",
                    up.name,
                    plural(ahead, "local commit"),
                    plural(behind, "commit")
                ),
                format!("{ahead} ahead, {behind} behind"),
                format!("{} && git pull --rebase && git push", self.cd()),
            ),
        };
        broken(
            Outcome::fail(summary)
                .with_expected(expected)
                .with_actual(actual)
                .with_hint(hint)
                .with_cause(Cause::new(cause)),
        )
    }

    pub(super) fn head_message(&self, pattern: &Pattern) -> Verdict {
        let Some(head) = &self.snap.head else {
            return broken(self.unborn());
        };
        if pattern.is_match(&head.message) {
            return Ok(format!("HEAD is {} \"{}\"", head.short(), head.summary));
        }
        broken(
            Outcome::fail(format!(
                "HEAD of {} is {} \"{}\", not the step's commit",
                self.shown,
                head.short(),
                head.summary
            ))
            .with_expected(format!("HEAD's message matching /{}/", pattern.as_str()))
            .with_actual(head.summary.as_str())
            .with_cause(Cause::new(CauseId::WrongHeadCommit))
            .with_hint(self.commit_hint(pattern)),
        )
    }

    /// `git add -- <the step's files> && git commit -m "<message>" && git push`, with the message
    /// when the pattern is plain text.
    pub(super) fn commit_hint(&self, pattern: &Pattern) -> String {
        let add = self.add_step_files();
        match pattern.literal() {
            Some(message) => format!(
                "make the step's change, then {} && {add}git commit -m \"{message}\" && git push",
                self.cd()
            ),
            None => format!(
                "make the step's change, then commit it (message matching /{}/) and push: {} && {add}git commit -m \"…\" && git push",
                pattern.as_str(),
                self.cd()
            ),
        }
    }

    /// The pushed tip: the upstream, what the Git server (and so Argo CD) has.
    pub(super) fn pushed_tip(&self) -> Result<&str, Box<Outcome>> {
        match &self.snap.upstream {
            Some(up) => Ok(up.sha.as_str()),
            None => {
                let branch = self.branch_name();
                Err(Box::new(
                    Outcome::fail(format!(
                        "nothing of {} is pushed to origin/{branch} yet",
                        self.shown
                    ))
                    .with_actual("no upstream branch")
                    .with_cause(Cause::new(CauseId::NotPushed))
                    .with_hint(format!("{} && git push -u origin {branch}", self.cd())),
                ))
            }
        }
    }

    pub(super) fn upstream_name(&self) -> String {
        self.snap
            .upstream
            .as_ref()
            .map(|u| u.name.clone())
            .unwrap_or_else(|| format!("origin/{}", self.branch_name()))
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
