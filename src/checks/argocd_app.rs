//! Check kind `argocd_app`: an Argo CD Application's sync and health status, the revision it is
//! at, and its last operation (phase, message, hook results, the order things were applied in).

use regex::Regex;
use serde::Deserialize;

use crate::checks::Context;
use crate::checks::cluster_common::{self, LOG_TAIL_LINES, could_not_check, short, tail};
use crate::checks::revisions::{Lookup, RepoId, RevisionView, spec_sources_for};
use crate::checks::sync_binding;
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{Cause, DetailKind, Outcome, Status};
use crate::probe::cluster::LogRead;
use crate::probe::cluster::argocd::{Application, ResourceResult};
use crate::probe::git::OriginView;

const SYNC_WORDS: &[&str] = &["Synced", "OutOfSync", "Unknown"];
const HEALTH_WORDS: &[&str] = &[
    "Healthy",
    "Progressing",
    "Degraded",
    "Suspended",
    "Missing",
    "Unknown",
];
const PHASE_WORDS: &[&str] = &["Running", "Terminating", "Succeeded", "Failed", "Error"];
const SYNC_PHASES: &[&str] = &["PreSync", "Sync", "PostSync", "SyncFail"];

/// Fields of an `argocd_app` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawAppSpec")]
pub struct ArgocdAppSpec {
    /// The Application read first: the one judged, or with `parent_of` the child whose app of
    /// apps is judged.
    pub name: String,
    /// `name` is a child Application: judge the Application that manages it (the app of apps),
    /// found by Argo CD's resource tracking on the child.
    pub parent_of: bool,
    pub sync: Option<String>,
    pub health: Option<String>,
    /// Work repo whose pushed HEAD Argo CD must be at.
    pub revision_of: Option<String>,
    /// The last operation's phase must be one of these.
    pub phase: Vec<String>,
    pub message: Option<Regex>,
    pub hook: Option<HookSpec>,
    pub order: Vec<EntrySpec>,
}

/// A syncResult entry and the hook phase it must have ended in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    pub kind: String,
    pub name: String,
    /// The sync phase it ran in (PreSync, Sync, PostSync, SyncFail).
    #[serde(default)]
    pub phase: Option<String>,
    /// Its `hookPhase`: Succeeded, Failed, Error, Running.
    #[serde(default)]
    pub result: Option<String>,
}

/// A syncResult entry, matched by kind, name and (optionally) sync phase — never by index.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub phase: Option<String>,
}

/// `phase: Failed` or `phase: [Failed, Error]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAppSpec {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    parent_of: Option<String>,
    #[serde(default)]
    sync: Option<String>,
    #[serde(default)]
    health: Option<String>,
    #[serde(default)]
    revision_of: Option<String>,
    #[serde(default)]
    phase: Option<OneOrMany>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    hook: Option<HookSpec>,
    #[serde(default)]
    order: Vec<EntrySpec>,
}

fn one_of(field: &str, value: &str, words: &[&str]) -> Result<(), String> {
    if words.contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "`{field}: {value}` is not a value Argo CD uses; expected one of {}",
            words.join(", ")
        ))
    }
}

impl TryFrom<RawAppSpec> for ArgocdAppSpec {
    type Error = String;

    fn try_from(raw: RawAppSpec) -> Result<Self, Self::Error> {
        if let Some(sync) = &raw.sync {
            one_of("sync", sync, SYNC_WORDS)?;
        }
        if let Some(health) = &raw.health {
            one_of("health", health, HEALTH_WORDS)?;
        }
        let phase = match raw.phase {
            None => Vec::new(),
            Some(OneOrMany::One(p)) => vec![p],
            Some(OneOrMany::Many(ps)) => ps,
        };
        for p in &phase {
            one_of("phase", p, PHASE_WORDS)?;
        }
        if let Some(hook) = &raw.hook {
            if let Some(p) = &hook.phase {
                one_of("hook.phase", p, SYNC_PHASES)?;
            }
            if let Some(r) = &hook.result {
                one_of(
                    "hook.result",
                    r,
                    &["Running", "Succeeded", "Failed", "Error"],
                )?;
            }
        }
        for entry in &raw.order {
            if let Some(p) = &entry.phase {
                one_of("order[].phase", p, SYNC_PHASES)?;
            }
        }
        if raw.order.len() == 1 {
            return Err("`order` needs at least two entries: it says which came first".to_string());
        }
        let message = match raw.message {
            Some(pattern) => Some(
                Regex::new(&pattern)
                    .map_err(|e| format!("`message: {pattern}` is not a valid regex: {e}"))?,
            ),
            None => None,
        };
        let (name, parent_of) = match (raw.name, raw.parent_of) {
            (Some(name), None) => (name, false),
            (None, Some(child)) => (child, true),
            _ => {
                return Err(
                    "an argocd_app check needs exactly one of `name` (the Application) or `parent_of` (a child Application: its app of apps is judged)"
                        .to_string(),
                );
            }
        };
        Ok(ArgocdAppSpec {
            name,
            parent_of,
            sync: raw.sync,
            health: raw.health,
            revision_of: raw.revision_of,
            phase,
            message,
            hook: raw.hook,
            order: raw.order,
        })
    }
}

/// What the learner's repo says about the revision Argo CD should be at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
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
    fn is_pushed(&self) -> bool {
        self.upstream.as_deref() == Some(self.head.as_str())
    }

    fn repo_id(&self) -> RepoId {
        RepoId {
            name: self.repo.clone(),
            origin_url: self.origin.as_ref().and_then(|o| o.url.clone()),
        }
    }

    /// The branch the push went to (`feature` for `origin/feature`).
    fn pushed_branch(&self) -> String {
        let name = self.upstream_name.as_deref().unwrap_or("?");
        name.strip_prefix("origin/").unwrap_or(name).to_string()
    }

    /// The branch an Application tracks, of those it follows in this repo, that does not hold
    /// HEAD: `None` when every tracked branch holds it or labcheck cannot tell (a tag, a SHA, a
    /// branch it has no remote-tracking ref for).
    fn branch_missing_head(&self, app: &Application) -> Option<String> {
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
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        self.revision_of.iter().map(String::as_str).collect()
    }

    fn asks_about_operation(&self) -> bool {
        !self.phase.is_empty()
            || self.message.is_some()
            || self.hook.is_some()
            || !self.order.is_empty()
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        if self.parent_of {
            return match self.with_parent(ctx, &self.name).await {
                Ok(spec) => Box::pin(spec.evaluate(ctx)).await,
                Err(outcome) => *outcome,
            };
        }
        let ns = &ctx.argocd_namespace;
        let app = match ctx.cluster.application(ns, &self.name).await {
            Ok(Some(app)) => app,
            Ok(None) => return cluster_common::app_not_found(ctx, &self.name).await,
            Err(e) => return could_not_check(&e),
        };
        let pushed = match &self.revision_of {
            Some(repo) => match read_pushed(ctx, repo).await {
                Ok(pushed) => Some(pushed),
                Err(outcome) => return *outcome,
            },
            None => None,
        };
        let outcome = self.decide(&app, pushed.as_ref());
        if outcome.status != Status::Fail {
            return outcome;
        }
        enrich(ctx, &app, outcome).await
    }

    /// This check aimed at the Application that manages `child` (its app of apps).
    async fn with_parent(&self, ctx: &Context, child: &str) -> Result<ArgocdAppSpec, Box<Outcome>> {
        let ns = &ctx.argocd_namespace;
        let app = match ctx.cluster.application(ns, child).await {
            Ok(Some(app)) => app,
            Ok(None) => return Err(Box::new(cluster_common::app_not_found(ctx, child).await)),
            Err(e) => return Err(Box::new(could_not_check(&e))),
        };
        let Some(parent) = app.metadata.managed_by() else {
            return Err(Box::new(
                Outcome::fail(format!(
                    "Application {child} is not managed by another Application (no Argo CD tracking annotation or label), so there is no app of apps to read"
                ))
                .with_hint(format!(
                    "it is created by the app of apps once that syncs: `kubectl -n {ns} get application {child} -o yaml | grep -A1 tracking-id`"
                ))
                .with_cause(Cause::about("no-parent-app", child)),
            ));
        };
        let mut spec = self.clone();
        spec.name = parent;
        spec.parent_of = false;
        Ok(spec)
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
                    .with_cause(Cause::new("not-pushed")),
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
                    .with_cause(Cause::about("pushed-elsewhere", &branch)),
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
                        .with_cause(Cause::new("revisions-unreadable"))
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
                        .with_cause(Cause::new("app-not-following-repo")),
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
                        .with_cause(Cause::new("not-seen-yet"))
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
                    .with_cause(Cause::new("sync-not-of-push"));
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
            .with_cause(Cause::new("selective-sync"));
        }

        if let Some(want) = &self.sync {
            if sync_now != want {
                let mut outcome = Outcome::fail(format!("{name} is {sync_now}, expected {want}"))
                    .with_expected(want.clone())
                    .with_actual(sync_now)
                    .with_cause(Cause::about("sync-status", sync_now));
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
                            "app-degraded"
                        } else {
                            "app-not-healthy"
                        },
                        first,
                    )),
                    None => outcome.with_cause(Cause::about("app-health", health_now)),
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
            .with_cause(Cause::new("no-sync"));
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
                .with_cause(Cause::about("sync-phase", now));
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
                .with_cause(Cause::new("sync-message"));
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
                        .with_cause(Cause::about("hook-not-run", &hook.name));
                return with_story(if running {
                    outcome.with_hint(running_hint(name)).still_in_progress()
                } else if phase == Some("SyncFail") && matches!(op_phase, Some("Failed" | "Error"))
                {
                    // The sync did fail and still ran no SyncFail hook: syncing again runs none either.
                    outcome
                        .with_cause(Cause::about("syncfail-hook-missing", &hook.name))
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
                .with_cause(Cause::about("hook-result", &hook.name));
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
                            .with_cause(Cause::about("not-applied", &item.name));
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
                        .with_cause(Cause::about("wrong-order", &item.name))
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

/// The app's resources that are not Healthy, as `Deployment checkout: Degraded (message)`, from
/// `status.resources[].health` (persisted up to v2.x; v3.0+ keeps health in the resource tree,
/// so `enrich` reads the pods and Deployments instead).
fn unhealthy_resources(app: &Application) -> Vec<(String, String)> {
    app.status
        .resources
        .iter()
        .filter(|r| r.hook != Some(true))
        .filter_map(|r| {
            let health = r.health.as_ref()?;
            let status = health.status.as_deref()?;
            if status == "Healthy" {
                return None;
            }
            let text = match health.message.as_deref().filter(|m| !m.is_empty()) {
                Some(m) => format!("{} {}: {status} ({m})", r.kind, r.name),
                None => format!("{} {}: {status}", r.kind, r.name),
            };
            Some((format!("{}/{}", r.kind, r.name), text))
        })
        .collect()
}

/// The GitOps chain, link by link: committed → pushed → Argo CD saw it → synced → healthy →
/// hooks done; the first link that does not hold is where the learner stands.
pub fn chain_text(app: &Application, pushed: &Pushed) -> String {
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

/// Why the last sync failed, from its entries: which hook failed and where, what that means,
/// whether the SyncFail hook ran. `None` when the last operation did not fail.
pub fn failure_story(app: &Application) -> Option<String> {
    let op = app.last_operation()?;
    let phase = op.phase.as_deref()?;
    if phase != "Failed" && phase != "Error" {
        return None;
    }
    let entries = app.sync_results();
    let failed: Vec<&ResourceResult> = entries
        .iter()
        .filter(|e| {
            e.sync_phase.as_deref() != Some("SyncFail")
                && (matches!(e.hook_phase.as_deref(), Some("Failed" | "Error"))
                    || e.status.as_deref() == Some("SyncFailed"))
        })
        .collect();
    let mut parts = Vec::new();
    let generic = op.message.as_deref().unwrap_or("");
    match failed.first() {
        Some(entry) => {
            let what = format!(
                "{} failed: {}",
                entry.describe(),
                entry.message.as_deref().unwrap_or("no message")
            );
            let stage = entry.sync_phase.as_deref().or(entry.hook_type.as_deref());
            let synced = app.status.sync.status.as_deref() == Some("Synced");
            let healthy = app.status.health.status.as_deref() == Some("Healthy");
            parts.push(match stage {
                Some("PostSync") if synced && healthy => format!(
                    "The sync failed after the deploy: the PostSync hook {what}. The app still shows Synced and Healthy because hooks count for neither."
                ),
                Some("PreSync") => format!(
                    "The sync stopped in PreSync: {what}. Nothing of the Sync phase was applied, so the running version is unchanged."
                ),
                _ => format!("The sync failed: {what}."),
            });
            if !generic.is_empty() {
                parts.push(format!("(Argo CD's own message is the generic \"{generic}\"; the hook's entry says what failed.)"));
            }
        }
        None if !generic.is_empty() => {
            parts.push(format!("The last sync ended {phase}: {generic}"))
        }
        None => parts.push(format!("The last sync ended {phase}.")),
    }
    let sync_fail: Vec<&ResourceResult> = entries
        .iter()
        .filter(|e| {
            e.sync_phase.as_deref() == Some("SyncFail")
                || e.hook_type.as_deref() == Some("SyncFail")
        })
        .collect();
    parts.push(match sync_fail.as_slice() {
        [] => "No SyncFail hook ran.".to_string(),
        hooks => hooks
            .iter()
            .map(|h| {
                format!(
                    "The SyncFail hook {} ran: {}.",
                    h.name,
                    h.hook_phase.as_deref().unwrap_or("no phase")
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
    });
    Some(parts.join(" "))
}

/// The pushed state of work repo `repo`, or the outcome that says why it cannot be read.
async fn read_pushed(ctx: &Context, repo: &str) -> Result<Pushed, Box<Outcome>> {
    let dir = ctx.repo_dir(repo);
    let snapshot = ctx.git.get(&dir).await;
    let snapshot = match snapshot.as_ref() {
        Ok(s) => s,
        Err(e) => {
            let get = ctx.repo(repo).map(|r| r.get.clone()).unwrap_or_default();
            return Err(Box::new(
                Outcome::could_not_check(format!("cannot tell which revision you pushed: {e}"))
                    .with_hint(if get.is_empty() {
                        "clone the work repo".to_string()
                    } else {
                        get
                    }),
            ));
        }
    };
    let Some(head) = &snapshot.head else {
        return Err(Box::new(
            Outcome::fail(format!(
                "{repo} has no commit yet, so there is nothing for Argo CD to sync"
            ))
            .with_hint("commit and push your change"),
        ));
    };
    let (path, sha) = (dir.clone(), head.sha.clone());
    // A second short read of the same repo: origin's URL and branches (the snapshot has neither).
    let origin = tokio::task::spawn_blocking(move || crate::probe::git::origin_view(&path, &sha))
        .await
        .ok()
        .and_then(Result::ok);
    Ok(Pushed {
        repo: repo.to_string(),
        dir_shown: crate::probe::files::PathShower::from_env().show(&dir),
        head: head.sha.clone(),
        upstream: snapshot.upstream.as_ref().map(|u| u.sha.clone()),
        upstream_name: snapshot.upstream.as_ref().map(|u| u.name.clone()),
        origin,
    })
}

/// Evidence for a failure, read from the cluster: the failed hook's last log lines, or the pod
/// that cannot start.
async fn enrich(ctx: &Context, app: &Application, outcome: Outcome) -> Outcome {
    let cluster = &ctx.cluster;
    let failed_job = app.sync_results().iter().find(|e| {
        e.kind == "Job"
            && e.is_hook()
            && matches!(e.hook_phase.as_deref(), Some("Failed" | "Error"))
    });
    if outcome.detail.is_none()
        && let Some(entry) = failed_job
    {
        let ns = if entry.namespace.is_empty() {
            app.spec.destination.namespace.clone().unwrap_or_default()
        } else {
            entry.namespace.clone()
        };
        match cluster.job(&ns, &entry.name).await {
            Ok(Some(job)) => {
                if let Ok(Some((pod, LogRead::Text(text) | LogRead::Tail { text, .. }))) =
                    cluster_common::job_log(cluster, &ns, &job, None).await
                {
                    let pod_name = pod.metadata.name.unwrap_or_default();
                    // The line the hook died on is the evidence the learner is asked to find.
                    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                    let last_line = lines
                        .iter()
                        .rev()
                        .find(|l| l.to_ascii_lowercase().contains("error"))
                        .or(lines.last())
                        .map(|l| format!(" Its log says \"{}\".", l.trim()))
                        .unwrap_or_default();
                    let diagnosis = format!(
                        "{}\n{} failed.{last_line} Last lines of {} (pod {pod_name}, `kubectl -n {ns} logs job/{}`) below.",
                        outcome.diagnosis.clone().unwrap_or_default(),
                        entry.describe(),
                        entry.name,
                        entry.name
                    );
                    return outcome
                        .with_diagnosis(diagnosis.trim_start().to_string())
                        .with_detail(DetailKind::Log, tail(&text, LOG_TAIL_LINES));
                }
            }
            Ok(None) => {
                let diagnosis = format!(
                    "{}\nThe Job {} is gone: its hook delete policy removed it (HookFailed deletes hooks after a failed sync), so its log is gone too.",
                    outcome.diagnosis.clone().unwrap_or_default(),
                    entry.name
                );
                return outcome.with_diagnosis(diagnosis.trim_start().to_string());
            }
            Err(_) => {}
        }
    }
    // A sync waiting on a hook Job whose pod cannot start (a PreSync migration without its
    // config): say why, with the manifest rule's reason.
    let waiting_hook = app
        .last_operation()
        .filter(|_| app.operation_running())
        .and_then(|op| op.message.as_deref())
        .and_then(|m| m.split("waiting for completion of hook batch/Job/").nth(1))
        .and_then(|rest| rest.split_whitespace().next());
    if let Some(job_name) = waiting_hook
        && let Some(ns) = app.spec.destination.namespace.as_deref()
        && let Ok(Some(job)) = cluster.job(ns, job_name).await
        && let Ok(pods) = cluster.job_pods(ns, &job).await
        && let Some(stuck) = cluster_common::job_stuck_diagnosis(&job, &pods)
    {
        let diagnosis = match &outcome.diagnosis {
            Some(d) => format!("{d}\n{stuck}"),
            None => stuck,
        };
        return outcome.with_diagnosis(diagnosis);
    }
    let unhealthy = matches!(
        app.status.health.status.as_deref(),
        Some("Progressing" | "Degraded")
    );
    let Some(ns) = app
        .spec
        .destination
        .namespace
        .as_deref()
        .filter(|_| unhealthy)
    else {
        return outcome;
    };
    // Named causes that waiting will not fix: a pod that cannot start, a rollout past its deadline.
    let deployments =
        crate::probe::cluster::api::ApiPath::new("apps/v1", "deployments").in_namespace(ns);
    let (pods, deployments) = futures::join!(
        cluster.pods(ns, ""),
        cluster.list(&deployments, "the apps/v1 API")
    );
    let mut found = Vec::new();
    let mut cause = None;
    if let Ok(pods) = &pods
        && let Some(stuck) = pods
            .iter()
            .find_map(crate::probe::cluster::pods::stuck_container)
    {
        found.push(cluster_common::explain_stuck(&stuck));
        cause = Some(Cause::about("pod-stuck", &stuck.reason));
    }
    for deployment in deployments.iter().flatten() {
        let name = deployment["metadata"]["name"].as_str().unwrap_or("");
        let past_deadline = deployment["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "Progressing" && c["reason"] == "ProgressDeadlineExceeded");
        if let Some(condition) = past_deadline {
            found.push(format!(
                "Deployment {name}: ProgressDeadlineExceeded ({})",
                condition["message"].as_str().unwrap_or("")
            ));
            cause.get_or_insert_with(|| Cause::about("progress-deadline-exceeded", name));
        }
    }
    if found.is_empty() {
        return outcome;
    }
    let text = found.join("\n");
    let diagnosis = match &outcome.diagnosis {
        Some(d) => format!("{d}\n{text}"),
        None => text,
    };
    let mut outcome = outcome.with_diagnosis(diagnosis);
    if !app.operation_running() {
        // Waiting does not fix these: the change in git does.
        outcome.pending = false;
        if outcome.hint.as_deref().is_some_and(|h| h.contains("wait")) {
            outcome.hint = Some(
                "waiting will not fix this: change what the diagnosis names in git, push, and let Argo CD sync it".to_string(),
            );
        }
        if let Some(cause) = cause {
            outcome = outcome.with_cause(cause);
        }
    }
    outcome
}

impl KindReads for ArgocdAppSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads {
            apps: vec![self.name.clone()],
            every_app: self.parent_of,
            ..ClusterReads::none()
        }
    }

    fn rename_for_learner(&mut self, names: &mut dyn LearnerNames) {
        names.app(&mut self.name);
    }
}

#[cfg(test)]
mod tests;
