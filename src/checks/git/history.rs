//! The conditions that walk a work repo's pushed history: a commit whose message matches, a
//! commit that changed a path.

use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::repos::Reader;

use super::repo::{Checked, Repo, failed};
use super::{Pattern, Touched};

impl Repo<'_> {
    pub(super) fn has_commit(&self, reader: &Reader, pattern: &Pattern) -> Checked {
        let tip = self.pushed_tip()?;
        let upstream = self.upstream_name();
        if let Some(found) = reader.newest_matching(tip, pattern.regex())? {
            return Ok(format!(
                "{upstream} has {} \"{}\"",
                found.short(),
                found.summary
            ));
        }
        let expected = format!("a commit matching /{}/ on {upstream}", pattern.as_str());
        if let Some(head) = &self.snap.head
            && let Some(local) = reader.newest_matching(&head.sha, pattern.regex())?
        {
            return Err(failed(
                Outcome::fail(format!(
                    "{} \"{}\" is committed in {} but not pushed to {upstream}",
                    local.short(),
                    local.summary,
                    self.shown
                ))
                .with_expected(expected)
                .with_actual("committed, not pushed")
                .with_cause(Cause::new(CauseId::NotPushed))
                .with_hint(format!("{} && git push", self.cd())),
            ));
        }
        Err(failed(
            Outcome::fail(format!(
                "{upstream} in {} has no commit matching /{}/",
                self.shown,
                pattern.as_str()
            ))
            .with_expected(expected)
            .with_actual("no such commit")
            .with_cause(Cause::new(CauseId::CommitMissing))
            .with_hint(self.commit_hint(pattern)),
        ))
    }

    pub(super) fn touched(&self, reader: &Reader, touched: &Touched) -> Checked {
        let tip = self.pushed_tip()?;
        let upstream = self.upstream_name();
        let path = touched.path.as_str();
        let since = match &touched.since {
            None => None,
            Some(pattern) => match reader.newest_matching(tip, pattern.regex())? {
                Some(commit) => Some(commit),
                None => {
                    return Err(failed(Outcome::fail(format!(
                        "{upstream} in {} has no commit matching /{}/, the change this step builds on",
                        self.shown,
                        pattern.as_str()
                    ))
                    .with_expected(format!("a commit matching /{}/ on {upstream}", pattern.as_str()))
                    // Its hint is the cause table's, given by the runner.
                    .with_cause(Cause::new(CauseId::EarlierStepMissing))));
                }
            },
        };
        let found = match &since {
            Some(since) => reader.commits_touching(tip, Some(&since.sha), path)?,
            // Only the pushed tip itself: compare it with its parent.
            None => reader.tip_touches(tip, path)?.into_iter().collect(),
        };
        if let Some(newest) = found.first() {
            return Ok(format!(
                "{} \"{}\" on {upstream} changed {path}",
                newest.short(),
                newest.summary
            ));
        }
        let after = match &since {
            Some(since) => format!("after {} \"{}\"", since.short(), since.summary),
            None => format!("at the tip of {upstream}"),
        };
        let expected = format!("a commit {after} that changes {path}");
        let not_pushed = match &self.snap.head {
            Some(head) => reader.commits_touching(&head.sha, Some(tip), path)?,
            None => Vec::new(),
        };
        if let Some(local) = not_pushed.first() {
            return Err(failed(
                Outcome::fail(format!(
                    "{} \"{}\" changes {path} but is not pushed to {upstream}",
                    local.short(),
                    local.summary
                ))
                .with_expected(expected)
                .with_actual("committed, not pushed")
                .with_cause(Cause::new(CauseId::NotPushed))
                .with_hint(format!("{} && git push", self.cd())),
            ));
        }
        let uncommitted = self.snap.dirty.iter().any(|d| {
            d == path || (d.ends_with('/') && path.starts_with(d.as_str())) || {
                let dir = format!("{}/", path.trim_end_matches('/'));
                d.starts_with(&dir)
            }
        });
        if uncommitted {
            return Err(failed(
                Outcome::fail(format!(
                    "you changed {path} in {} but have not committed it",
                    self.shown
                ))
                .with_expected(expected)
                .with_actual("changed, not committed")
                .with_cause(Cause::new(CauseId::NotCommitted))
                .with_hint(format!(
                    "{} && {} && git commit -m \"…\" && git push",
                    self.cd(),
                    add_path(path)
                )),
            ));
        }
        Err(failed(
            Outcome::fail(format!("no commit {after} on {upstream} changes {path}"))
                .with_expected(expected)
                .with_actual(format!("{path} unchanged"))
                .with_cause(Cause::new(CauseId::FileUnchanged))
                .with_hint(format!(
                    "edit {path} in {} as the step says, then {} && {} && git commit -m \"…\" && git push",
                    self.shown,
                    self.cd(),
                    add_path(path)
                )),
        ))
    }
}

/// `git add -- PATH`: the one path the condition names, never everything.
fn add_path(path: &str) -> String {
    super::stray::add_by_name([path]).unwrap_or_default()
}
