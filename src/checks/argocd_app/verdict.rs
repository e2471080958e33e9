//! The verdict of an `argocd_app` check on one Application, as a sequence of named gates: the
//! learner's push (pushed, on the tracked branch, seen by Argo CD, the operation is of it), the
//! kind of operation, sync status, health, then the last operation's own gates (`last_sync`).
//! The first gate that closes gives the verdict; each gate that opens adds what it saw.

use std::ops::ControlFlow;

use crate::checks::cluster_common::short;
use crate::checks::operation::Shape;
use crate::checks::revisions::{Lookup, RepoId, RevisionView};
use crate::checks::sync_binding;
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::{Application, OperationState};

use super::ArgocdAppSpec;
use super::diagnosis::{failure_story, unhealthy_resources};
use super::next_move::{auto_sync_pending, retrying_other_revision};
use super::pushed::{Pushed, chain_text};

/// A gate either lets the check go on or ends it with this outcome.
pub(super) type Gate = ControlFlow<Outcome>;

/// The Argo CD hint while an operation runs: it refuses a second sync until this one ends.
pub(super) fn running_hint(name: &str) -> String {
    format!(
        "a sync is running and Argo CD refuses another until it ends: wait (`argocd app wait {name}`), or stop it (`argocd app terminate-op {name}`) and then sync"
    )
}

/// What every gate reads: the check, the Application, and what has been seen so far.
pub(super) struct Verdict<'a> {
    pub(super) spec: &'a ArgocdAppSpec,
    pub(super) app: &'a Application,
    pub(super) name: &'a str,
    pub(super) op: Option<&'a OperationState>,
    pub(super) running: bool,
    /// The story of a failed sync (which hook or resource failed), shown under a failure.
    pub(super) story: Option<String>,
    /// With `revision_of`: the chain from the learner's commit to the sync, shown instead.
    chain: Option<String>,
    /// What each open gate saw, for the pass summary.
    pub(super) seen: Vec<String>,
    /// `status.history` settled the phase: the last operation's own phase is not the sync's.
    pub(super) phase_from_history: bool,
}

impl<'a> Verdict<'a> {
    fn new(spec: &'a ArgocdAppSpec, app: &'a Application) -> Self {
        Verdict {
            spec,
            app,
            name: &spec.name,
            op: app.last_operation(),
            running: app.operation_running(),
            story: failure_story(app),
            chain: None,
            seen: Vec::new(),
            phase_from_history: false,
        }
    }

    /// A failure with the story of the failed sync under it.
    pub(super) fn with_story(&self, outcome: Outcome) -> Outcome {
        match &self.story {
            Some(s) => outcome.with_diagnosis(s.clone()),
            None => outcome,
        }
    }

    /// A failure about the learner's push, with the GitOps chain (and the story) under it.
    fn with_chain(&self, outcome: Outcome) -> Outcome {
        let chain = self.chain.clone().unwrap_or_default();
        outcome.with_diagnosis(match &self.story {
            Some(s) => format!("{chain}\n{s}"),
            None => chain,
        })
    }

    /// Gate: the learner's HEAD is on the remote.
    fn pushed(&self, pushed: &Pushed) -> Gate {
        if pushed.is_pushed() {
            return ControlFlow::Continue(());
        }
        let actual = match &pushed.upstream {
            Some(up) => format!(
                "HEAD {} is not on the remote (it has {})",
                short(&pushed.head),
                short(up)
            ),
            None => format!("HEAD {} has no upstream branch", short(&pushed.head)),
        };
        ControlFlow::Break(
            self.with_chain(
                Outcome::fail(format!(
                    "{}: your commit {} is not pushed, so Argo CD cannot see it",
                    pushed.repo,
                    short(&pushed.head)
                ))
                .with_expected("your HEAD pushed")
                .with_actual(actual)
                .with_hint(format!(
                    "push it: `{} && git push`",
                    crate::shell::cd(&pushed.dir_shown)
                ))
                .with_cause(Cause::new(CauseId::NotPushed)),
            ),
        )
    }

    /// Gate: the push went to the branch the Application follows.
    fn on_tracked_branch(&self, pushed: &Pushed) -> Gate {
        let Some(tracked) = pushed.branch_missing_head(self.app) else {
            return ControlFlow::Continue(());
        };
        let name = self.name;
        let branch = pushed.pushed_branch();
        ControlFlow::Break(self.with_chain(
            Outcome::fail(format!(
                "pushed to `{branch}`, but {name} follows `{tracked}`"
            ))
            .with_expected(format!("your commit {} on `{tracked}`", short(&pushed.head)))
            .with_actual(format!("on `{branch}` only"))
            .with_hint(format!(
                "Argo CD deploys what `{tracked}` holds: merge your commit into `{tracked}` and push it (`{} && git switch {tracked} && git merge {branch} && git push`)",
                crate::shell::cd(&pushed.dir_shown)
            ))
            .with_cause(Cause::about(CauseId::PushedElsewhere, &branch)),
        ))
    }

    /// Gate: Argo CD compares against the pushed commit (it has seen the push).
    fn seen_by_argo_cd(&self, pushed: &Pushed, id: &RepoId) -> Gate {
        let name = self.name;
        let want = pushed.head.as_str();
        let outcome = match RevisionView::compared(self.app).lookup(id) {
            Lookup::Found(revs) if revs.iter().all(|r| r == want) => {
                return ControlFlow::Continue(());
            }
            Lookup::Mismatch { revisions, sources } => Outcome::could_not_check(format!(
                "cannot tell which revision {name} has for {}: it lists {revisions} revisions for {sources} sources (its comparison failed or is still running)",
                pushed.repo
            ))
            .with_hint(format!("look at its conditions: `argocd app get {name} --refresh`"))
            .with_cause(Cause::new(CauseId::RevisionsUnreadable))
            .still_in_progress(),
            Lookup::NotFollowed(urls) => Outcome::fail(format!(
                "{name} does not deploy from {}: its sources are {}",
                pushed.repo,
                urls.join(", ")
            ))
            .with_expected(format!(
                "a source whose repoURL is {}'s origin",
                pushed.repo
            ))
            .with_actual(urls.join(", "))
            .with_hint(format!(
                "{name} deploys what its source's repoURL names: compare it (`argocd app get {name}`, Repo:) with where you push (`{} && git remote get-url origin`)",
                crate::shell::cd(&pushed.dir_shown)
            ))
            .with_cause(Cause::new(CauseId::AppNotFollowingRepo)),
            found => {
                let shown = match &found {
                    Lookup::Found(revs) => revs.iter().map(|r| short(r)).collect::<Vec<_>>().join(", "),
                    _ => "no revision".to_string(),
                };
                Outcome::fail(format!(
                    "Argo CD is still at {shown}, you pushed {}",
                    short(want)
                ))
                .with_expected(format!("{name} at {}", short(want)))
                .with_actual(format!("{name} at {shown}"))
                .with_hint(format!(
                    "make Argo CD look now: `argocd app get {name} --refresh`"
                ))
                .with_cause(Cause::new(CauseId::NotSeenYet))
                // Argo CD polls git (every 60 s on the course cluster), so it may still get there.
                .still_in_progress()
            }
        };
        ControlFlow::Break(self.with_chain(outcome))
    }

    /// Gate: a check about the last operation reads an operation of the pushed commit.
    fn operation_of_push(&self, pushed: &Pushed, id: &RepoId) -> Gate {
        if !self.spec.asks_about_operation() {
            return ControlFlow::Continue(());
        }
        // A dry run is named as one whatever revision it names (`argocd app sync --dry-run
        // --revision X`): it synced nothing, and the gate of its shape reads the history.
        if !self.running && Shape::of(self.app) == Some(Shape::DryRun) {
            return ControlFlow::Continue(());
        }
        let name = self.name;
        let want = pushed.head.as_str();
        let ran = RevisionView::operation(self.app).map(|v| v.lookup(id));
        if matches!(&ran, Some(Lookup::Found(revs)) if revs.iter().all(|r| r == want)) {
            return ControlFlow::Continue(());
        }
        let shown = match &ran {
            Some(Lookup::Found(revs)) => {
                revs.iter().map(|r| short(r)).collect::<Vec<_>>().join(", ")
            }
            _ => "an unknown revision".to_string(),
        };
        if let (Some(op), Some((attempt, limit))) = (self.op, self.app.retrying()) {
            return ControlFlow::Break(self.with_chain(retrying_other_revision(
                self.app,
                name,
                &shown,
                want,
                (
                    attempt,
                    limit,
                    op.operation.retry.as_ref().is_some_and(|r| r.refresh),
                ),
            )));
        }
        let outcome = match self.op {
            None => Outcome::fail(format!("no sync of {name} has run yet")),
            Some(_) => Outcome::fail(format!(
                "the last sync of {name} ran {shown}, not your push {}",
                short(want)
            )),
        }
        .with_expected(format!("a sync of {}", short(want)))
        .with_cause(Cause::new(CauseId::SyncNotOfPush));
        ControlFlow::Break(self.with_chain(if self.running {
            outcome.still_moving(running_hint(name))
        } else if auto_sync_pending(self.app) {
            // Auto-sync starts a sync of an OutOfSync app's target on its own
            // (`controller/appcontroller.go:2589-2597` skips only a revision already tried).
            outcome.still_moving(format!(
                "auto-sync starts the sync of your push on its own: wait (`argocd app wait {name}`), or start it: `argocd app sync {name}`"
            ))
        } else {
            outcome.with_hint(format!("start the sync: `argocd app sync {name}`"))
        }))
    }

    /// The gates of the learner's push, in the order of the GitOps chain.
    fn push_gates(&mut self, pushed: &Pushed) -> Gate {
        self.chain = Some(chain_text(self.app, pushed));
        let id = pushed.repo_id();
        self.pushed(pushed)?;
        self.on_tracked_branch(pushed)?;
        self.seen_by_argo_cd(pushed, &id)?;
        self.operation_of_push(pushed, &id)?;
        self.seen.push(format!("at {}", short(&pushed.head)));
        ControlFlow::Continue(())
    }

    /// Gate: the operation is one whose result the check can read. A retrying or terminated
    /// operation is neither the failure nor the success a step asks about; then the kind of
    /// operation decides (`shape`). A check of sync and health alone reads the Application's
    /// status, whatever operation runs (an older one may retry while the push is Synced).
    fn readable_operation(&mut self) -> Gate {
        if !self.spec.asks_about_operation() {
            return ControlFlow::Continue(());
        }
        let name = self.name;
        let app = self.app;
        if let Some((attempt, limit)) = app.retrying() {
            return ControlFlow::Break(
                self.with_story(sync_binding::retrying_outcome(name, attempt, limit)),
            );
        }
        if app.operation_terminated() {
            return ControlFlow::Break(sync_binding::terminated_outcome(app, name));
        }
        self.operation_shape()
    }

    /// A status gate's comparison of the status the course wants (none: the gate is open) with
    /// the one the Application has (`Unknown` when it has none): `None` when they agree (the
    /// status is seen), else the failure that says both, and the status the Application has.
    fn status_differs(
        &mut self,
        want: Option<&str>,
        now: Option<&'a str>,
    ) -> Option<(Outcome, &'a str)> {
        let want = want?;
        let now = now.unwrap_or("Unknown");
        if now == want {
            self.seen.push(now.to_string());
            return None;
        }
        let outcome = Outcome::fail(format!("{} is {now}, expected {want}", self.name))
            .with_expected(want)
            .with_actual(now);
        Some((outcome, now))
    }

    /// Gate: `sync:` — the Application's sync status.
    fn sync_status(&mut self) -> Gate {
        let (spec, app) = (self.spec, self.app);
        let want = spec.sync.as_deref();
        let Some((outcome, now)) = self.status_differs(want, app.status.sync.status.as_deref())
        else {
            return ControlFlow::Continue(());
        };
        let name = self.name;
        let outcome = outcome.with_cause(Cause::about(CauseId::SyncStatus, now));
        let outcome = match (want, self.running) {
            (_, true) => outcome.still_moving(running_hint(name)),
            (Some("Synced"), false) => {
                outcome.with_hint(format!("sync it: `argocd app sync {name}`"))
            }
            _ => outcome,
        };
        ControlFlow::Break(self.with_story(outcome))
    }

    /// Gate: `health:` — the Application's health, naming what is not healthy.
    fn health(&mut self) -> Gate {
        let (spec, app) = (self.spec, self.app);
        let now = app.status.health.status.as_deref();
        let Some((mut outcome, now)) = self.status_differs(spec.health.as_deref(), now) else {
            return ControlFlow::Continue(());
        };
        let name = self.name;
        let unhealthy = unhealthy_resources(app);
        outcome = match unhealthy.first() {
            Some((first, _)) => outcome.with_cause(Cause::about(
                if now == "Degraded" {
                    CauseId::AppDegraded
                } else {
                    CauseId::AppNotHealthy
                },
                first,
            )),
            None => outcome.with_cause(Cause::about(CauseId::AppHealth, now)),
        };
        if !unhealthy.is_empty() {
            let texts: Vec<&str> = unhealthy.iter().map(|(_, t)| t.as_str()).collect();
            let text = format!("not Healthy: {}", texts.join("; "));
            outcome = outcome.with_diagnosis(match &self.story {
                Some(s) => format!("{s}\n{text}"),
                None => text,
            });
        } else if let Some(s) = &self.story {
            outcome = outcome.with_diagnosis(s.clone());
        }
        if self.running {
            outcome = outcome.still_moving(running_hint(name));
        } else if now == "Progressing" {
            // `enrich` takes the wait back when a pod shows waiting will not help.
            outcome = outcome.still_moving(format!(
                "it is still rolling out: wait (`argocd app wait {name} --health`)"
            ));
        }
        ControlFlow::Break(outcome)
    }

    /// Every gate, in order.
    fn gates(&mut self, pushed: Option<&Pushed>) -> Gate {
        if let Some(pushed) = pushed {
            self.push_gates(pushed)?;
        }
        self.readable_operation()?;
        self.sync_status()?;
        self.health()?;
        self.operation_exists()?;
        self.phase()?;
        self.message()?;
        self.hook()?;
        self.order()?;
        ControlFlow::Continue(())
    }
}

impl ArgocdAppSpec {
    pub(super) fn asks_about_operation(&self) -> bool {
        !self.phase.is_empty()
            || self.message.is_some()
            || self.hook.is_some()
            || !self.order.is_empty()
    }

    /// The verdict from the Application and, with `revision_of`, the learner's repo.
    pub fn decide(&self, app: &Application, pushed: Option<&Pushed>) -> Outcome {
        let mut verdict = Verdict::new(self, app);
        match verdict.gates(pushed) {
            ControlFlow::Break(outcome) => outcome,
            ControlFlow::Continue(()) => {
                Outcome::pass(format!("{}: {}", self.name, verdict.seen.join(", ")))
            }
        }
    }
}
