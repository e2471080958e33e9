//! The verdict of an `argocd_app` check on one Application: the revision against the learner's
//! push, then sync and health, then the last operation (phase, message, hook, order).

use crate::checks::cluster_common::short;
use crate::checks::revisions::{Lookup, RevisionView};
use crate::checks::sync_binding;
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::{Application, ResourceResult};

use super::ArgocdAppSpec;
use super::diagnosis::{failure_story, unhealthy_resources};
use super::pushed::{Pushed, chain_text};

/// The Argo CD hint while an operation runs: it refuses a second sync until this one ends.
fn running_hint(name: &str) -> String {
    format!(
        "a sync is running and Argo CD refuses another until it ends: wait (`argocd app wait {name}`), or stop it (`argocd app terminate-op {name}`) and then sync"
    )
}

fn entry_matches(entry: &ResourceResult, kind: &str, name: &str, phase: Option<&str>) -> bool {
    entry.kind.eq_ignore_ascii_case(kind)
        && entry.name == name
        && phase.is_none_or(|p| {
            entry.sync_phase.as_deref() == Some(p) || entry.hook_type.as_deref() == Some(p)
        })
}

fn describe_entry(kind: &str, name: &str, phase: Option<&str>) -> String {
    match phase {
        Some(p) => format!("{kind} {name} ({p})"),
        None => format!("{kind} {name}"),
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
        let name = &self.name;
        let status = &app.status;
        let sync_now = status.sync.status.as_deref().unwrap_or("Unknown");
        let health_now = status.health.status.as_deref().unwrap_or("Unknown");
        let op = app.last_operation();
        let op_phase = op.and_then(|o| o.phase.as_deref());
        let running = app.operation_running();
        let story = failure_story(app);
        let with_story = |o: Outcome| match &story {
            Some(s) => o.with_diagnosis(s.clone()),
            None => o,
        };
        let mut seen = Vec::new();

        if let Some(pushed) = pushed {
            let chain = chain_text(app, pushed);
            let with_chain = |o: Outcome| {
                let text = match &story {
                    Some(s) => format!("{chain}\n{s}"),
                    None => chain.clone(),
                };
                o.with_diagnosis(text)
            };
            if !pushed.is_pushed() {
                let actual = match &pushed.upstream {
                    Some(up) => format!(
                        "HEAD {} is not on the remote (it has {})",
                        short(&pushed.head),
                        short(up)
                    ),
                    None => format!("HEAD {} has no upstream branch", short(&pushed.head)),
                };
                return with_chain(
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
                );
            }
            if let Some(tracked) = pushed.branch_missing_head(app) {
                let branch = pushed.pushed_branch();
                return with_chain(
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
                );
            }
            let want = pushed.head.as_str();
            let id = pushed.repo_id();
            let compared = RevisionView::compared(app);
            match compared.lookup(&id) {
                Lookup::Found(revs) if revs.iter().all(|r| r == want) => {}
                Lookup::Mismatch { revisions, sources } => {
                    return with_chain(
                        Outcome::could_not_check(format!(
                            "cannot tell which revision {name} has for {}: it lists {revisions} revisions for {sources} sources (its comparison failed or is still running)",
                            pushed.repo
                        ))
                        .with_hint(format!("look at its conditions: `argocd app get {name} --refresh`"))
                        .with_cause(Cause::new(CauseId::RevisionsUnreadable))
                        .still_in_progress(),
                    );
                }
                Lookup::NotFollowed(urls) => {
                    return with_chain(
                        Outcome::fail(format!(
                            "{name} does not deploy from {}: its sources are {}",
                            pushed.repo,
                            urls.join(", ")
                        ))
                        .with_expected(format!(
                            "a source whose repoURL is {}'s origin",
                            pushed.repo
                        ))
                        .with_actual(urls.join(", "))
                        .with_cause(Cause::new(CauseId::AppNotFollowingRepo)),
                    );
                }
                found => {
                    let shown = match &found {
                        Lookup::Found(revs) => {
                            revs.iter().map(|r| short(r)).collect::<Vec<_>>().join(", ")
                        }
                        _ => "no revision".to_string(),
                    };
                    return with_chain(
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
                        .still_in_progress(),
                    );
                }
            }
            if self.asks_about_operation() {
                let ran = RevisionView::operation(app).map(|v| v.lookup(&id));
                let of_push =
                    matches!(&ran, Some(Lookup::Found(revs)) if revs.iter().all(|r| r == want));
                if !of_push {
                    let shown = match &ran {
                        Some(Lookup::Found(revs)) => {
                            revs.iter().map(|r| short(r)).collect::<Vec<_>>().join(", ")
                        }
                        _ => "an unknown revision".to_string(),
                    };
                    let outcome = match op {
                        None => Outcome::fail(format!("no sync of {name} has run yet")),
                        Some(_) => Outcome::fail(format!(
                            "the last sync of {name} ran {shown}, not your push {}",
                            short(want)
                        )),
                    }
                    .with_expected(format!("a sync of {}", short(want)))
                    .with_cause(Cause::new(CauseId::SyncNotOfPush));
                    return with_chain(if running {
                        outcome.with_hint(running_hint(name)).still_in_progress()
                    } else {
                        outcome.with_hint(format!("start the sync: `argocd app sync {name}`"))
                    });
                }
            }
            seen.push(format!("at {}", short(want)));
        }

        // A retrying or terminated operation is neither the failure nor the success a step
        // asks about: say what it is.
        if (self.asks_about_operation() || self.sync.is_some())
            && let Some((attempt, limit)) = app.retrying()
        {
            return with_story(sync_binding::retrying_outcome(name, attempt, limit));
        }
        if self.asks_about_operation() && app.operation_terminated() {
            return sync_binding::terminated_outcome(app, name);
        }
        // A selective sync (a self-heal of a few resources) runs no hooks and replaced the
        // result of the full sync before it: its hook entries and order are no longer recorded.
        if (self.hook.is_some() || !self.order.is_empty()) && app.operation_is_selective() {
            return Outcome::could_not_check(format!(
                "the last operation of {name} synced only some resources (a self-heal or a selective sync): it runs no hooks, and the full sync's hook results and order are no longer in the Application"
            ))
            .with_hint(format!(
                "the hook Jobs still tell (`kubectl -n {} get jobs`); to see the order again, run a full sync: `argocd app sync {name}`",
                app.spec.destination.namespace.as_deref().unwrap_or("<namespace>")
            ))
            .with_cause(Cause::new(CauseId::SelectiveSync));
        }

        if let Some(want) = &self.sync {
            if sync_now != want {
                let mut outcome = Outcome::fail(format!("{name} is {sync_now}, expected {want}"))
                    .with_expected(want.clone())
                    .with_actual(sync_now)
                    .with_cause(Cause::about(CauseId::SyncStatus, sync_now));
                outcome = match (want.as_str(), running) {
                    (_, true) => outcome.still_in_progress().with_hint(running_hint(name)),
                    ("Synced", false) => {
                        outcome.with_hint(format!("sync it: `argocd app sync {name}`"))
                    }
                    _ => outcome,
                };
                return with_story(outcome);
            }
            seen.push(sync_now.to_string());
        }

        if let Some(want) = &self.health {
            if health_now != want {
                let mut outcome = Outcome::fail(format!("{name} is {health_now}, expected {want}"))
                    .with_expected(want.clone())
                    .with_actual(health_now);
                let unhealthy = unhealthy_resources(app);
                outcome = match unhealthy.first() {
                    Some((first, _)) => outcome.with_cause(Cause::about(
                        if health_now == "Degraded" {
                            CauseId::AppDegraded
                        } else {
                            CauseId::AppNotHealthy
                        },
                        first,
                    )),
                    None => outcome.with_cause(Cause::about(CauseId::AppHealth, health_now)),
                };
                if !unhealthy.is_empty() {
                    let texts: Vec<&str> = unhealthy.iter().map(|(_, t)| t.as_str()).collect();
                    let text = format!("not Healthy: {}", texts.join("; "));
                    outcome = outcome.with_diagnosis(match &story {
                        Some(s) => format!("{s}\n{text}"),
                        None => text,
                    });
                } else if let Some(s) = &story {
                    outcome = outcome.with_diagnosis(s.clone());
                }
                if running {
                    outcome = outcome.with_hint(running_hint(name)).still_in_progress();
                } else if health_now == "Progressing" {
                    // `enrich` takes the wait back when a pod shows waiting will not help.
                    outcome = outcome
                        .with_hint(format!(
                            "it is still rolling out: wait (`argocd app wait {name} --health`)"
                        ))
                        .still_in_progress();
                }
                return outcome;
            }
            seen.push(health_now.to_string());
        }

        if self.asks_about_operation() && op.is_none() {
            return Outcome::fail(format!(
                "no sync of {name} has run yet, so there is no operation to read"
            ))
            .with_hint(format!("start one: `argocd app sync {name}`"))
            .with_cause(Cause::new(CauseId::NoSync));
        }

        if !self.phase.is_empty() {
            let now = op_phase.unwrap_or("none");
            if !self.phase.iter().any(|p| p == now) {
                let outcome = Outcome::fail(format!(
                    "the last sync of {name} is {now}, expected {}",
                    self.phase.join(" or ")
                ))
                .with_expected(self.phase.join(" or "))
                .with_actual(now)
                .with_cause(Cause::about(CauseId::SyncPhase, now));
                return with_story(if running {
                    outcome.with_hint(running_hint(name)).still_in_progress()
                } else {
                    outcome
                });
            }
            seen.push(format!("last sync {now}"));
        }

        if let Some(re) = &self.message {
            let message = op.and_then(|o| o.message.as_deref()).unwrap_or("");
            if !re.is_match(message) {
                let mut outcome = Outcome::fail(format!(
                    "the last sync's message does not match /{}/",
                    re.as_str()
                ))
                .with_expected(format!("a message matching /{}/", re.as_str()))
                .with_actual(message)
                .with_cause(Cause::new(CauseId::SyncMessage));
                if running {
                    outcome = outcome.still_in_progress();
                }
                return with_story(outcome);
            }
            seen.push(format!("message \"{message}\""));
        }

        if let Some(hook) = &self.hook {
            let phase = hook.phase.as_deref();
            let wanted = describe_entry(&hook.kind, &hook.name, phase);
            let Some(entry) = app
                .sync_results()
                .iter()
                .find(|e| entry_matches(e, &hook.kind, &hook.name, phase))
            else {
                let outcome =
                    Outcome::fail(format!("the last sync of {name} did not run {wanted}"))
                        .with_expected(format!("{wanted} in the last sync"))
                        .with_actual(format!(
                            "not among its {} entries",
                            app.sync_results().len()
                        ))
                        .with_cause(Cause::about(CauseId::HookNotRun, &hook.name));
                return with_story(if running {
                    outcome.with_hint(running_hint(name)).still_in_progress()
                } else if phase == Some("SyncFail") && matches!(op_phase, Some("Failed" | "Error"))
                {
                    // The sync did fail and still ran no SyncFail hook: syncing again runs none either.
                    outcome
                        .with_cause(Cause::about(CauseId::SyncfailHookMissing, &hook.name))
                        .with_hint(format!(
                            "the sync failed and ran no SyncFail hook, so running it again will not either: check that the chart renders the Job {} with the annotation `argocd.argoproj.io/hook: SyncFail` (and that it is switched on in the values){}",
                            hook.name,
                            if op_phase == Some("Error") {
                                "; a sync that ends in Error (a hook failed in a wave, Argo CD v3.4+) runs no SyncFail hook at all"
                            } else {
                                ""
                            }
                        ))
                } else {
                    outcome.with_hint(format!(
                        "check the hook is switched on, then sync: `argocd app sync {name}`"
                    ))
                });
            };
            let result = entry.hook_phase.as_deref().unwrap_or("none");
            if let Some(want) = &hook.result
                && result != want
            {
                let mut outcome = Outcome::fail(format!(
                    "{wanted} ended {result} in the last sync, expected {want}"
                ))
                .with_expected(want.clone())
                .with_actual(format!(
                    "{result}: {}",
                    entry.message.as_deref().unwrap_or("")
                ))
                .with_cause(Cause::about(CauseId::HookResult, &hook.name));
                if result == "Running" && running {
                    outcome = outcome.still_in_progress();
                }
                return with_story(outcome);
            }
            seen.push(format!(
                "{wanted} {result}: {}",
                entry.message.as_deref().unwrap_or("")
            ));
        }

        if !self.order.is_empty() {
            let entries = app.sync_results();
            let mut last: Option<(usize, String)> = None;
            for item in &self.order {
                let phase = item.phase.as_deref();
                let wanted = describe_entry(&item.kind, &item.name, phase);
                let Some(index) = entries
                    .iter()
                    .position(|e| entry_matches(e, &item.kind, &item.name, phase))
                else {
                    let outcome =
                        Outcome::fail(format!("the last sync of {name} did not apply {wanted}"))
                            .with_expected(self.order_text())
                            .with_actual(actual_order(entries))
                            .with_cause(Cause::about(CauseId::NotApplied, &item.name));
                    return with_story(if running {
                        outcome.still_in_progress()
                    } else {
                        outcome
                    });
                };
                if let Some((prev_index, prev)) = &last
                    && index < *prev_index
                {
                    return Outcome::fail(format!("the last sync applied {wanted} before {prev}"))
                        .with_cause(Cause::about(CauseId::WrongOrder, &item.name))
                        .with_expected(self.order_text())
                        .with_actual(actual_order(entries))
                        .with_diagnosis("Argo CD orders by phase, then sync wave, then kind: check the `argocd.argoproj.io/hook` and `argocd.argoproj.io/sync-wave` annotations");
                }
                last = Some((index, wanted));
            }
            seen.push(format!("order {}", self.order_text()));
        }

        Outcome::pass(format!("{name}: {}", seen.join(", ")))
    }

    fn order_text(&self) -> String {
        self.order
            .iter()
            .map(|e| describe_entry(&e.kind, &e.name, e.phase.as_deref()))
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

fn actual_order(entries: &[ResourceResult]) -> String {
    if entries.is_empty() {
        return "no entries".to_string();
    }
    entries
        .iter()
        .map(ResourceResult::describe)
        .collect::<Vec<_>>()
        .join(" → ")
}
