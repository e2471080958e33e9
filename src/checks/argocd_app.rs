//! Check kind `argocd_app`: an Argo CD Application's sync and health status, the revision it is
//! at, and its last operation (phase, message, hook results, the order things were applied in).

use regex::Regex;
use serde::Deserialize;

use crate::checks::cluster_common::{self, LOG_TAIL_LINES, could_not_check, short, tail};
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{DetailKind, Outcome, Status};
use crate::probe::cluster::LogRead;
use crate::probe::cluster::argocd::{Application, ResourceResult};
use crate::run::Context;

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
    pub name: String,
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
    name: String,
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
        Ok(ArgocdAppSpec {
            name: raw.name,
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
}

impl Pushed {
    fn is_pushed(&self) -> bool {
        self.upstream.as_deref() == Some(self.head.as_str())
    }
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
        let ns = &ctx.argocd_namespace;
        let app = match ctx.cluster.application(ns, &self.name).await {
            Ok(Some(app)) => app,
            Ok(None) => return cluster_common::app_missing(ns, &self.name),
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
                    .with_hint(format!("push it: `cd {} && git push`", pushed.dir_shown)),
                );
            }
            let want = pushed.head.as_str();
            let at = status.sync.revision.as_deref().unwrap_or("");
            if at != want && !status.sync.revisions.iter().any(|r| r == want) {
                let shown = if at.is_empty() {
                    "no revision".to_string()
                } else {
                    short(at).to_string()
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
                    // Argo CD polls git (every 60 s on the course cluster), so it may still get there.
                    .still_in_progress(),
                );
            }
            if self.asks_about_operation() {
                let op_rev = app.operation_revision().unwrap_or("");
                if op_rev != want {
                    let outcome = match op {
                        None => Outcome::fail(format!("no sync of {name} has run yet")),
                        Some(_) => Outcome::fail(format!(
                            "the last sync of {name} ran {}, not your push {}",
                            if op_rev.is_empty() {
                                "an unknown revision"
                            } else {
                                short(op_rev)
                            },
                            short(want)
                        )),
                    }
                    .with_expected(format!("a sync of {}", short(want)))
                    .with_hint(format!("start the sync: `argocd app sync {name}`"));
                    return with_chain(if running {
                        outcome.still_in_progress()
                    } else {
                        outcome
                    });
                }
            }
            seen.push(format!("at {}", short(want)));
        }

        if let Some(want) = &self.sync {
            if sync_now != want {
                let mut outcome = Outcome::fail(format!("{name} is {sync_now}, expected {want}"))
                    .with_expected(want.clone())
                    .with_actual(sync_now);
                outcome = match (want.as_str(), running) {
                    (_, true) => outcome.still_in_progress().with_hint(format!(
                        "a sync is running: wait (`argocd app wait {name}`)"
                    )),
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
                if health_now == "Progressing" || running {
                    outcome = outcome
                        .with_hint(format!(
                            "it is still rolling out: wait (`argocd app wait {name} --health`)"
                        ))
                        .still_in_progress();
                }
                return with_story(outcome);
            }
            seen.push(health_now.to_string());
        }

        if self.asks_about_operation() && op.is_none() {
            return Outcome::fail(format!(
                "no sync of {name} has run yet, so there is no operation to read"
            ))
            .with_hint(format!("start one: `argocd app sync {name}`"));
        }

        if !self.phase.is_empty() {
            let now = op_phase.unwrap_or("none");
            if !self.phase.iter().any(|p| p == now) {
                let outcome = Outcome::fail(format!(
                    "the last sync of {name} is {now}, expected {}",
                    self.phase.join(" or ")
                ))
                .with_expected(self.phase.join(" or "))
                .with_actual(now);
                return with_story(if running {
                    outcome
                        .with_hint(format!(
                            "the sync is still running: wait (`argocd app wait {name}`)"
                        ))
                        .still_in_progress()
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
                .with_actual(message);
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
                        ));
                return with_story(if running {
                    outcome.still_in_progress()
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
                ));
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
                            .with_actual(actual_order(entries));
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

/// The GitOps chain, link by link: committed → pushed → Argo CD saw it → synced → healthy →
/// hooks done; the first link that does not hold is where the learner stands.
pub fn chain_text(app: &Application, pushed: &Pushed) -> String {
    let want = pushed.head.as_str();
    let at = app.status.sync.revision.as_deref().unwrap_or("");
    let seen = at == want;
    let synced = seen && app.status.sync.status.as_deref() == Some("Synced");
    let healthy = app.status.health.status.as_deref() == Some("Healthy");
    let op_phase = app.last_operation().and_then(|o| o.phase.as_deref());
    let hooks_done = app.operation_revision() == Some(want) && op_phase == Some("Succeeded");
    let links = [
        ("committed", true, format!("HEAD {}", short(want))),
        (
            "pushed",
            pushed.is_pushed(),
            format!(
                "to {}",
                pushed
                    .upstream
                    .as_deref()
                    .map(short)
                    .unwrap_or("no upstream")
            ),
        ),
        (
            "Argo CD saw it",
            seen,
            format!("at {}", if at.is_empty() { "nothing" } else { short(at) }),
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
    Ok(Pushed {
        repo: repo.to_string(),
        dir_shown: crate::probe::files::PathShower::from_env().show(&dir),
        head: head.sha.clone(),
        upstream: snapshot.upstream.as_ref().map(|u| u.sha.clone()),
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
                    let diagnosis = format!(
                        "{}\nLast lines of {} (pod {pod_name}, `kubectl -n {ns} logs job/{}`) below.",
                        outcome.diagnosis.clone().unwrap_or_default(),
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
    if unhealthy
        && let Some(ns) = app.spec.destination.namespace.as_deref()
        && let Ok(pods) = cluster.pods(ns, "").await
        && let Some(stuck) = cluster_common::stuck_diagnosis(&pods)
    {
        let diagnosis = match &outcome.diagnosis {
            Some(d) => format!("{d}\n{stuck}"),
            None => stuck,
        };
        return outcome.with_diagnosis(diagnosis);
    }
    outcome
}

impl KindReads for ArgocdAppSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads {
            apps: vec![self.name.clone()],
            ..ClusterReads::none()
        }
    }

    fn rename_for_learner(&mut self, names: &mut dyn LearnerNames) {
        names.app(&mut self.name);
    }
}

#[cfg(test)]
mod tests;
