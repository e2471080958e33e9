//! The `git` conditions about a step's change, found by content ([`ChangeSpec`]):
//!
//! - `made`: HEAD's history has the commit that made the change, and HEAD still has it.
//! - `undoes`: HEAD undoes that commit — a `git revert` of it (the trailer `This reverts commit
//!   <sha>` and the inverse change), or later commits that put the file back as it was before it
//!   (a pass with a note: `git revert` is the course's way).
//!
//! Hints name no commit but the one that made the change: the commit a learner happened to make
//! before or after it is never "the one to revert".

use crate::checks::change::{ChangeSpec, same_meaning};
use crate::checks::git::repo::{Checked, Repo, Stop, failed};
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::git::{CommitInfo, RevertFinding, reverted_sha};
use crate::probe::repos::Reader;

/// One version of the declared file (`None`: not there).
type Content = Option<Vec<u8>>;

impl Repo<'_> {
    /// HEAD and the newest commit in its history that makes `change` (none: not made yet), or
    /// the outcome of a repo without a commit.
    fn newest_change(
        &self,
        reader: &Reader,
        change: &ChangeSpec,
    ) -> Result<(&CommitInfo, Option<CommitInfo>), Stop> {
        let Some(head) = &self.snap.head else {
            return Err(failed(self.unborn()));
        };
        let made = reader.newest_change(&head.sha, &change.file, change)?;
        Ok((head, made))
    }

    /// `made:` — the change is committed (and, with `pushed:`, pushed: HEAD is the upstream).
    pub(crate) fn made(&self, reader: &Reader, change: &ChangeSpec) -> Checked {
        let (head, made) = self.newest_change(reader, change)?;
        let what = change.describe();
        let Some(made) = made else {
            if change.holds(self.working_file(&change.file).as_deref()) {
                return Err(failed(
                    Outcome::fail(format!(
                        "{what}: you made the change in {}, but have not committed it",
                        self.shown
                    ))
                    .with_expected(format!("a commit that makes {what}"))
                    .with_actual("changed, not committed")
                    .with_hint(format!(
                        "{} && {} && git commit -m \"…\" && git push",
                        self.cd(),
                        add_file(&change.file)
                    ))
                    .with_cause(Cause::new(CauseId::NotCommitted)),
                ));
            }
            return Err(failed(
                Outcome::fail(format!(
                    "no commit in {} makes {what}: the step's change is not made yet",
                    self.shown
                ))
                .with_expected(format!("a commit that makes {what}"))
                .with_actual(format!("HEAD {} \"{}\" does not", head.short(), head.summary))
                .with_hint(format!(
                    "make the step's change ({what}), then {} && {} && git commit -m \"…\" && git push",
                    self.cd(),
                    add_file(&change.file)
                ))
                .with_cause(Cause::new(CauseId::ChangeNotMade)),
            ));
        };
        let at_head = reader.read_blob(&head.sha, &change.file)?;
        if !change.holds(at_head.as_deref()) {
            return Err(failed(
                Outcome::fail(format!(
                    "{} \"{}\" made {what}, but a later commit changed it back",
                    made.short(),
                    made.summary
                ))
                .with_expected(format!("HEAD still has {what}"))
                .with_actual(format!("HEAD {} no longer has it", head.short()))
                .with_hint(format!(
                    "this step looks at the state right after {}; if you already went on (a later step undoes it), check that step instead",
                    made.short()
                ))
                .with_cause(Cause::new(CauseId::ChangeUndone)),
            ));
        }
        Ok(format!(
            "{} \"{}\" makes {what}",
            made.short(),
            made.summary
        ))
    }

    /// `undoes:` — HEAD undoes the commit that made the change.
    pub(crate) fn undoes(&self, reader: &Reader, change: &ChangeSpec) -> Checked {
        let (head, target) = self.newest_change(reader, change)?;
        let what = change.describe();
        let Some(target) = target else {
            return Err(failed(self.nothing_to_undo(change, head)));
        };
        let revert_it = format!(
            "{} && git revert --no-edit {} && git push",
            self.cd(),
            target.short()
        );
        let named = format!("{} \"{}\"", target.short(), target.summary);
        let working_undone = !change.holds(self.working_file(&change.file).as_deref());
        if target.sha == head.sha && !working_undone {
            return Err(failed(
                Outcome::fail(format!(
                    "HEAD {named} is the commit that made {what}: it is not undone yet"
                ))
                .with_expected(format!("a commit after {} that undoes it", target.short()))
                .with_actual(format!("HEAD is {named}"))
                .with_hint(revert_it)
                .with_cause(Cause::new(CauseId::NotReverted)),
            ));
        }
        let at_head = reader.read_blob(&head.sha, &change.file)?;
        let before = match reader.parent(&target.sha)? {
            Some(parent) => reader.read_blob(&parent, &change.file)?,
            None => None,
        };
        if change.holds(at_head.as_deref()) {
            // Undone in the working tree but not committed: say so, the revert is nearly there.
            let summary = if working_undone {
                format!(
                    "you undid {what} in {}, but have not committed it: HEAD {} still has it from {named}",
                    self.shown,
                    head.short()
                )
            } else {
                format!(
                    "HEAD {} still has {what}, made by {named}: it is not undone",
                    head.short()
                )
            };
            // `git revert` refuses a dirty tree; `git stash` puts the learner's edits aside
            // without losing them (never a hint that throws work away).
            let hint = if self.snap.dirty.is_empty() {
                revert_it
            } else {
                format!(
                    "{} && git stash && git revert --no-edit {} && git push   # `git stash` keeps your uncommitted edits aside (`git stash list`)",
                    self.cd(),
                    target.short()
                )
            };
            return Err(failed(
                Outcome::fail(summary)
                    .with_expected(format!("a commit after {} that undoes it", target.short()))
                    .with_actual(format!("HEAD {} \"{}\"", head.short(), head.summary))
                    .with_hint(hint)
                    .with_cause(Cause::new(CauseId::NotReverted)),
            ));
        }
        let restored = restored(&at_head, &before);
        let reverts = reader
            .commits_after(&head.sha, &target.sha)?
            .into_iter()
            .find(|c| reverted_sha(&c.message).as_deref() == Some(target.sha.as_str()));
        match restored {
            Restored::Exactly | Restored::SameMeaning => {
                let note = match restored {
                    Restored::SameMeaning => format!(
                        "; {} means the same to Helm as before {} (comments, order or quoting differ, so `git diff {}~1 -- {}` still prints lines)",
                        change.file,
                        target.short(),
                        target.short(),
                        change.file
                    ),
                    _ => String::new(),
                };
                let outcome = match reverts {
                    Some(revert) if revert.sha == head.sha => {
                        match reader.revert_finding(&head.sha, &target.sha)? {
                            RevertFinding::Reverts => Outcome::pass(format!(
                                "HEAD {} reverts {named}{note}",
                                head.short()
                            )),
                            _ => Outcome::pass(format!(
                                "HEAD {} reverts {named}: {} is back as before it (the revert also changed other files){note}",
                                head.short(),
                                change.file
                            )),
                        }
                    }
                    Some(revert) => Outcome::pass(format!(
                        "{} \"{}\" reverts {named}, and {} is still as before it at HEAD {}{note}",
                        revert.short(),
                        revert.summary,
                        change.file,
                        head.short()
                    )),
                    None => Outcome::pass(format!(
                        "HEAD {} has {} back as before {named}: undone by hand; `git revert` is the course's way (it records what it undoes){note}",
                        head.short(),
                        change.file
                    )),
                };
                Ok(outcome.summary)
            }
            Restored::No => Err(failed(
                Outcome::fail(format!(
                    "HEAD {} no longer has {what}, but {} is not as it was before {named}: part of that commit's change is still there",
                    head.short(),
                    change.file
                ))
                .with_expected(format!("{} as before {}", change.file, target.short()))
                .with_actual("partly undone")
                .with_hint(format!(
                    "see what is left: {cd} && git diff {sha}~1 -- {file}; put the file back as before it: git restore --source={sha}~1 --staged --worktree -- {file} && git commit -qm \"Undo the rest of {sha}\" -- {file} && git push",
                    cd = self.cd(),
                    sha = target.short(),
                    file = crate::shell::quote(&change.file),
                ))
                .with_cause(Cause::new(CauseId::PartlyReverted)),
            )),
        }
    }

    /// No commit ever made the change: do the step that makes it first. Names no commit.
    fn nothing_to_undo(&self, change: &ChangeSpec, head: &CommitInfo) -> Outcome {
        let what = change.describe();
        let first = match &change.step {
            Some(step) => format!(
                "do {step} first (its commit makes {what}; `labcheck {} {step}` checks it), then undo it",
                self.module
            ),
            None => format!("first make and push the commit that makes {what}, then undo it"),
        };
        Outcome::fail(format!(
            "no commit in {} made {what}, so there is nothing to undo yet",
            self.shown
        ))
        .with_expected(format!("the commit that made {what}, then its revert"))
        .with_actual(format!("HEAD is {} \"{}\"", head.short(), head.summary))
        .with_hint(first)
        .with_cause(Cause::new(CauseId::NothingToRevert))
    }

    /// The declared file in the working tree (uncommitted edits count); `None` when it cannot be
    /// read.
    fn working_file(&self, rel: &str) -> Content {
        self.probe
            .read_file(self.dir, rel, self.paths)
            .ok()
            .map(String::into_bytes)
    }
}

/// How HEAD's version of the file compares with the one before the change.
enum Restored {
    /// Byte for byte.
    Exactly,
    /// The same values to Helm, but `diff` would print lines.
    SameMeaning,
    No,
}

fn restored(at_head: &Content, before: &Content) -> Restored {
    match (at_head, before) {
        (a, b) if a == b => Restored::Exactly,
        (Some(a), Some(b)) if same_meaning(a, b) == Some(true) => Restored::SameMeaning,
        _ => Restored::No,
    }
}

/// `git add -- FILE`: the file the change is in, never everything.
fn add_file(file: &str) -> String {
    super::git::stray::add_by_name([file]).unwrap_or_default()
}
