//! What the learner pushed (read from their work repo) and the GitOps chain from their commit
//! to a finished sync.

use crate::checks::Context;
use crate::checks::cluster_common::short;
use crate::checks::revisions::{Lookup, RepoId, RevisionView, spec_sources_for};
use crate::outcome::Outcome;
use crate::probe::cluster::argocd::Application;
use crate::probe::git::OriginView;

/// What the learner's repo says about the revision Argo CD should be at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    /// The work repo's name in the course.
    pub repo: String,
    /// The repo's folder as the learner knows it (`~/work/checkout-config`, or the real path).
    pub dir_shown: String,
    /// Local HEAD.
    pub head: String,
    /// The remote-tracking branch's sha, when the branch has one.
    pub upstream: Option<String>,
    /// The upstream branch as git names it (`origin/feature`).
    pub upstream_name: Option<String>,
    /// What `origin` says: its URL and which of its branches hold HEAD (`None`: not read).
    pub origin: Option<OriginView>,
}

impl Pushed {
    pub(super) fn is_pushed(&self) -> bool {
        self.upstream.as_deref() == Some(self.head.as_str())
    }

    pub(super) fn repo_id(&self) -> RepoId {
        RepoId {
            name: self.repo.clone(),
            origin_url: self.origin.as_ref().and_then(|o| o.url.clone()),
        }
    }

    /// The branch the push went to (`feature` for `origin/feature`).
    pub(super) fn pushed_branch(&self) -> String {
        let name = self.upstream_name.as_deref().unwrap_or("?");
        name.strip_prefix("origin/").unwrap_or(name).to_string()
    }

    /// The branch an Application tracks, of those it follows in this repo, that does not hold
    /// HEAD: `None` when every tracked branch holds it or labcheck cannot tell (a tag, a SHA, a
    /// branch it has no remote-tracking ref for).
    pub(super) fn branch_missing_head(&self, app: &Application) -> Option<String> {
        if !self.is_pushed() {
            return None;
        }
        let origin = self.origin.as_ref()?;
        spec_sources_for(app, &self.repo_id())
            .into_iter()
            .filter_map(|source| {
                let target = source
                    .target_revision
                    .as_deref()
                    .filter(|t| !t.is_empty() && *t != "HEAD")
                    .map(str::to_string)
                    .or_else(|| origin.default_branch.clone())?;
                let branch = target
                    .strip_prefix("refs/heads/")
                    .unwrap_or(&target)
                    .to_string();
                (origin.branches.contains(&branch) && !origin.containing.contains(&branch))
                    .then_some(branch)
            })
            .next()
    }
}

/// The GitOps chain, link by link: committed → pushed → Argo CD saw it → synced → healthy →
/// hooks done; the first link that does not hold is where the learner stands.
pub(super) fn chain_text(app: &Application, pushed: &Pushed) -> String {
    let want = pushed.head.as_str();
    let id = pushed.repo_id();
    let at_revs = match RevisionView::compared(app).lookup(&id) {
        Lookup::Found(revs) => revs,
        _ => Vec::new(),
    };
    let at = at_revs
        .iter()
        .map(|r| short(r))
        .collect::<Vec<_>>()
        .join(", ");
    let seen = !at_revs.is_empty() && at_revs.iter().all(|r| r == want);
    let synced = seen && app.status.sync.status.as_deref() == Some("Synced");
    let healthy = app.status.health.status.as_deref() == Some("Healthy");
    let op_phase = app.last_operation().and_then(|o| o.phase.as_deref());
    let ran_push = matches!(
        RevisionView::operation(app).map(|v| v.lookup(&id)),
        Some(Lookup::Found(revs)) if revs.iter().all(|r| r == want)
    );
    let hooks_done = ran_push && op_phase == Some("Succeeded");
    let tracked_gap = pushed.branch_missing_head(app);
    let pushed_evidence = match &tracked_gap {
        Some(tracked) => format!(
            "to `{}`, but {} follows `{tracked}`",
            pushed.pushed_branch(),
            app.metadata.name
        ),
        None => format!(
            "to {}",
            pushed
                .upstream
                .as_deref()
                .map(short)
                .unwrap_or("no upstream")
        ),
    };
    let links = [
        ("committed", true, format!("HEAD {}", short(want))),
        (
            "pushed",
            pushed.is_pushed() && tracked_gap.is_none(),
            pushed_evidence,
        ),
        (
            "Argo CD saw it",
            seen,
            format!("at {}", if at.is_empty() { "nothing" } else { &at }),
        ),
        (
            "synced",
            synced,
            app.status
                .sync
                .status
                .clone()
                .unwrap_or_else(|| "Unknown".into()),
        ),
        (
            "healthy",
            healthy,
            app.status
                .health
                .status
                .clone()
                .unwrap_or_else(|| "Unknown".into()),
        ),
        (
            "hooks done",
            hooks_done,
            format!("last sync {}", op_phase.unwrap_or("none")),
        ),
    ];
    let mut text = String::from("GitOps chain:");
    let mut broken = false;
    for (link, holds, evidence) in links {
        let mark = match (broken, holds) {
            (true, _) => "?",
            (false, true) => "ok",
            (false, false) => {
                broken = true;
                "BROKEN"
            }
        };
        text.push_str(&format!(" {link} [{mark}: {evidence}] →"));
    }
    text.trim_end_matches(" →").to_string()
}

/// The pushed state of work repo `repo`, or the outcome that says why it cannot be read.
pub(super) async fn read_pushed(ctx: &Context, repo: &str) -> Result<Pushed, Box<Outcome>> {
    let dir = ctx.repo_dir(repo);
    let snapshot = ctx.git.get(&ctx.repo_probe, &dir).await;
    let snapshot = match snapshot.as_ref() {
        Ok(s) => s,
        Err(e) => {
            // In the git check's words (paths shown as the context shows them, with its cause).
            let shown = crate::checks::git::unreadable::shown_path(ctx, repo);
            let mut outcome = crate::checks::git::unreadable::unreadable(ctx, repo, &shown, e);
            outcome.summary = format!("cannot tell which revision you pushed: {}", outcome.summary);
            return Err(Box::new(outcome));
        }
    };
    let Some(head) = &snapshot.head else {
        return Err(Box::new(
            Outcome::fail(format!(
                "{repo} has no commit yet, so there is nothing for Argo CD to sync"
            ))
            .with_hint("commit and push your change")
            .with_cause(crate::outcome::Cause::new(
                crate::outcome::CauseId::NoCommits,
            )),
        ));
    };
    // A second short read of the same repo: origin's URL and branches (the snapshot has neither).
    let origin = ctx.repo_probe.origin_view(&dir, &head.sha).await.ok();
    Ok(Pushed {
        repo: repo.to_string(),
        dir_shown: ctx.paths.show(&dir),
        head: head.sha.clone(),
        upstream: snapshot.upstream.as_ref().map(|u| u.sha.clone()),
        upstream_name: snapshot.upstream.as_ref().map(|u| u.name.clone()),
        origin,
    })
}
