//! Check kind `job`: a Kubernetes Job is complete, failed (for a reason), still running or
//! missing; optionally it must be the Job of an Argo CD app's last sync.

use k8s_openapi::api::batch::v1::Job;
use serde::Deserialize;

use crate::checks::Context;
use crate::checks::can_fail::{self, Causes};
use crate::checks::cluster_common::{self, sync_entry};
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::checks::{hook_refused, sync_binding};
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::Application;

/// What state the Job must be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobExpect {
    Complete,
    Failed,
    Running,
    Missing,
}

/// Fields of a `job` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawJobSpec")]
pub struct JobSpec {
    pub namespace: String,
    pub name: String,
    pub expect: JobExpect,
    /// With `expect: failed`: the reason of the Job's `Failed` condition.
    pub reason: Option<String>,
    /// The Job must belong to this Application's last operation.
    pub app: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJobSpec {
    namespace: String,
    name: String,
    expect: JobExpect,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    app: Option<String>,
}

impl TryFrom<RawJobSpec> for JobSpec {
    type Error = String;

    fn try_from(raw: RawJobSpec) -> Result<Self, Self::Error> {
        if raw.reason.is_some() && raw.expect != JobExpect::Failed {
            return Err(
                "`reason` goes with `expect: failed` (e.g. reason: BackoffLimitExceeded)"
                    .to_string(),
            );
        }
        Ok(JobSpec {
            namespace: raw.namespace,
            name: raw.name,
            expect: raw.expect,
            reason: raw.reason,
            app: raw.app,
        })
    }
}

/// A Job's state, as `kubectl get jobs` shows it in STATUS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobState {
    Complete,
    Failed {
        reason: String,
        message: String,
    },
    Suspended,
    /// Pods active, or about to be (no terminal condition yet).
    Running,
}

impl JobState {
    /// Read the state from the Job's conditions.
    pub fn of(job: &Job) -> JobState {
        let conditions = job
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_deref())
            .unwrap_or(&[]);
        let is_true = |kind: &str| {
            conditions
                .iter()
                .find(|c| c.type_ == kind && c.status == "True")
        };
        if is_true("Complete").is_some() {
            JobState::Complete
        } else if let Some(c) = is_true("Failed") {
            JobState::Failed {
                reason: c.reason.clone().unwrap_or_default(),
                message: c.message.clone().unwrap_or_default(),
            }
        } else if is_true("Suspended").is_some() {
            JobState::Suspended
        } else {
            JobState::Running
        }
    }

    fn word(&self) -> String {
        match self {
            JobState::Complete => "Complete".to_string(),
            JobState::Failed { reason, .. } if !reason.is_empty() => format!("Failed ({reason})"),
            JobState::Failed { .. } => "Failed".to_string(),
            JobState::Suspended => "Suspended".to_string(),
            JobState::Running => "Running".to_string(),
        }
    }
}

/// The cause id of a Job in the wrong state.
fn cause_of(state: &JobState) -> CauseId {
    match state {
        JobState::Complete => CauseId::JobComplete,
        JobState::Failed { .. } => CauseId::JobFailed,
        JobState::Suspended => CauseId::JobSuspended,
        JobState::Running => CauseId::JobRunning,
    }
}

/// `succeeded/completions` as `kubectl get jobs` shows it (`1/1`, `0/1`).
pub fn completions(job: &Job) -> String {
    let succeeded = job.status.as_ref().and_then(|s| s.succeeded).unwrap_or(0);
    let wanted = job.spec.as_ref().and_then(|s| s.completions).unwrap_or(1);
    format!("{succeeded}/{wanted}")
}

impl JobSpec {
    /// Work repos this check reads (none).
    pub fn repos(&self) -> Vec<&str> {
        Vec::new()
    }

    fn expected_text(&self) -> String {
        match (self.expect, &self.reason) {
            (JobExpect::Complete, _) => "Complete".to_string(),
            (JobExpect::Failed, Some(reason)) => format!("Failed ({reason})"),
            (JobExpect::Failed, None) => "Failed".to_string(),
            (JobExpect::Running, _) => "Running".to_string(),
            (JobExpect::Missing, _) => "no such Job".to_string(),
        }
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let cluster = &ctx.cluster;
        let (app, job) = match cluster_common::app_and_job(
            ctx,
            self.app.as_deref(),
            &self.namespace,
            &self.name,
        )
        .await
        {
            Ok(read) => read,
            Err(outcome) => return *outcome,
        };
        let mut outcome = self.decide(job.as_ref(), app.as_ref());
        // Which sync made the Job cannot be told from the cluster: the learner's commit may.
        if let (Some(job), Some(app), Some(app_name)) = (&job, &app, &self.app) {
            outcome = sync_binding::judged_by_the_commit(ctx, outcome, job, app, app_name);
        }
        // A Job that should have finished but has not: its pods may say why.
        if outcome.status == crate::outcome::Status::Fail
            && outcome.diagnosis.is_none()
            && let Some(job) = &job
            && JobState::of(job) == JobState::Running
            && let Ok(pods) = cluster.job_pods(&self.namespace, job).await
            && let Some(diagnosis) = cluster_common::job_stuck_diagnosis(job, &pods)
        {
            outcome = outcome.with_diagnosis(diagnosis);
        }
        outcome
    }

    /// The verdict from what was observed: the Job (if any) and the app (if asked for).
    pub fn decide(&self, job: Option<&Job>, app: Option<&Application>) -> Outcome {
        let who = format!("Job {} in {}", self.name, self.namespace);
        let Some(job) = job else {
            return self.decide_missing(&who, app);
        };
        let state = JobState::of(job);
        let shown = format!("{} {}", state.word(), completions(job));
        if self.expect == JobExpect::Missing {
            return Outcome::fail(format!("{who} exists ({shown})"))
                .with_cause(Cause::about(CauseId::JobExists, &self.name))
                .with_expected("no such Job")
                .with_actual(shown);
        }
        if let (Some(app), Some(app_name)) = (app, &self.app)
            && let Some(stale) = sync_binding::job_outcome(job, app, app_name)
        {
            return stale;
        }
        let expected = self.expected_text();
        let fail = |summary: String| {
            Outcome::fail(summary)
                .with_cause(Cause::about(cause_of(&state), &self.name))
                .with_expected(expected.clone())
                .with_actual(shown.clone())
        };
        match (&state, self.expect) {
            (JobState::Complete, JobExpect::Complete) => {
                Outcome::pass(format!("{who} is complete ({})", completions(job)))
            }
            (JobState::Failed { reason, .. }, JobExpect::Failed) => match &self.reason {
                Some(wanted) if wanted != reason => fail(format!(
                    "{who} failed, but for {} instead of {wanted}",
                    if reason.is_empty() {
                        "no stated reason"
                    } else {
                        reason
                    }
                )),
                _ => Outcome::pass(format!("{who} failed ({})", state.word())),
            },
            (JobState::Running, JobExpect::Running) => {
                Outcome::pass(format!("{who} is running ({})", completions(job)))
            }
            (JobState::Running, JobExpect::Complete | JobExpect::Failed) => {
                fail(format!("{who} is still running ({})", completions(job))).still_moving(
                    format!(
                        "wait for it: `kubectl -n {} get job {} -w`",
                        self.namespace, self.name
                    ),
                )
            }
            (JobState::Failed { reason, message }, _) => fail(format!("{who} failed"))
                .with_diagnosis(format!(
                    "the Job failed{}{}; read its log: `kubectl -n {} logs job/{}`",
                    if reason.is_empty() {
                        String::new()
                    } else {
                        format!(" ({reason})")
                    },
                    if message.is_empty() {
                        String::new()
                    } else {
                        format!(": {message}")
                    },
                    self.namespace,
                    self.name
                )),
            (_, _) => fail(format!("{who} is {}", state.word())),
        }
    }

    fn decide_missing(&self, who: &str, app: Option<&Application>) -> Outcome {
        if self.expect == JobExpect::Missing {
            return Outcome::pass(format!("{who} does not exist"));
        }
        let outcome = Outcome::fail(format!("{who} does not exist"))
            .with_expected(self.expected_text())
            .with_actual("no such Job");
        let (Some(app), Some(app_name)) = (app, &self.app) else {
            return outcome.with_cause(Cause::about(CauseId::JobMissing, &self.name));
        };
        if let Some(explained) = sync_binding::missing_job_outcome(app, app_name)
            .or_else(|| sync_binding::no_hook_operation_outcome(app, app_name, &self.name))
        {
            return explained;
        }
        let outcome = outcome.with_cause(Cause::about(CauseId::JobMissing, &self.name));
        if app.operation_running() {
            return outcome.still_moving(format!(
                "the sync of {app_name} is still running and has not created it yet: wait (`argocd app wait {app_name}`)"
            ));
        }
        let failed = app
            .last_operation()
            .and_then(|op| op.phase.as_deref())
            .filter(|phase| matches!(*phase, "Failed" | "Error"));
        if let Some(entry) = hook_refused::refused_entry(app, &self.name) {
            return hook_refused::refused_outcome(app, app_name, entry, who);
        }
        match (sync_entry(app, "Job", &self.name), failed) {
            (Some(entry), _) => outcome.with_diagnosis(format!(
                "the last sync ran {} ({}), and the Job is gone: {}",
                entry.describe(),
                entry.hook_phase.as_deref().unwrap_or("no phase"),
                sync_binding::why_hook_gone(app, entry)
            )),
            // Syncing the same commit again runs the same hooks: a sync that failed without
            // this one will fail without it again.
            (None, Some(phase)) => outcome.with_diagnosis(format!(
                "the last sync of {app_name} ended {phase} without running it: a failed sync runs only the SyncFail hooks the manifests hold, and syncing the same commit again runs the same ones"
            )),
            (None, None) => outcome.with_hint(format!(
                "the last sync of {app_name} did not run it: run the sync (`argocd app sync {app_name}`)"
            )),
        }
    }
}

impl KindReads for JobSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::job_of_app(&self.namespace, &self.name, self.app.as_ref())
    }

    fn rename_for_learner(&mut self, names: &mut dyn LearnerNames) {
        names.job_of_app(&mut self.namespace, self.app.as_mut());
    }

    fn can_fail(&self) -> Causes {
        use CauseId::*;
        let name = self.name.as_str();
        if self.expect == JobExpect::Missing {
            return Causes::new().about(JobExists, name, false);
        }
        // "Still running" says to wait; any other state is the course's to explain.
        let states: &[CauseId] = match self.expect {
            JobExpect::Complete => &[JobFailed, JobSuspended],
            // Failed for another reason than `reason:` asks.
            JobExpect::Failed if self.reason.is_some() => &[JobComplete, JobSuspended, JobFailed],
            JobExpect::Failed => &[JobComplete, JobSuspended],
            JobExpect::Running | JobExpect::Missing => &[JobComplete, JobFailed, JobSuspended],
        };
        let mut causes = Causes::new().about(JobMissing, name, false);
        for state in states {
            causes = causes.about(*state, name, false);
        }
        if self.expect != JobExpect::Running {
            causes = causes.about(JobRunning, name, true);
        }
        match &self.app {
            Some(app) => causes
                .and(can_fail::sync_binding(name))
                .and(can_fail::app_lookup(app)),
            None => causes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Status;
    use serde_json::json;

    fn spec(expect: JobExpect, reason: Option<&str>, app: Option<&str>) -> JobSpec {
        JobSpec {
            namespace: "checkout-dev".to_string(),
            name: "checkout-migrate".to_string(),
            expect,
            reason: reason.map(str::to_string),
            app: app.map(str::to_string),
        }
    }

    fn job(created: &str, conditions: serde_json::Value, succeeded: i32) -> Job {
        serde_json::from_value(json!({
            "metadata": {"name": "checkout-migrate", "namespace": "checkout-dev", "creationTimestamp": created},
            "spec": {"completions": 1, "template": {}},
            "status": {"succeeded": succeeded, "conditions": conditions}
        }))
        .unwrap_or_default()
    }

    fn complete(created: &str) -> Job {
        job(
            created,
            json!([{"type": "SuccessCriteriaMet", "status": "True"},
                   {"type": "Complete", "status": "True", "reason": "CompletionsReached"}]),
            1,
        )
    }

    fn failed(created: &str, reason: &str) -> Job {
        job(
            created,
            json!([{"type": "FailureTarget", "status": "True", "reason": reason},
                   {"type": "Failed", "status": "True", "reason": reason,
                    "message": "Job has reached the specified backoff limit"}]),
            0,
        )
    }

    fn app(started: &str, phase: &str) -> Application {
        serde_json::from_value(json!({
            "status": {"operationState": {"phase": phase, "startedAt": started,
                "syncResult": {"resources": [
                    {"group": "batch", "kind": "Job", "name": "checkout-migrate", "namespace": "checkout-dev",
                     "hookType": "PreSync", "syncPhase": "PreSync", "hookPhase": "Succeeded"}]}}}
        }))
        .unwrap_or_default()
    }

    #[test]
    fn a_completed_migration_passes_with_kubectl_completions() {
        let outcome = spec(JobExpect::Complete, None, None)
            .decide(Some(&complete("2026-05-02T10:15:00Z")), None);
        assert_eq!(outcome.status, Status::Pass);
        outcome.assert_says("1/1");
    }

    #[test]
    fn a_migration_that_hit_its_backoff_limit_passes_expect_failed_with_that_reason() {
        let job = failed("2026-05-02T10:15:00Z", "BackoffLimitExceeded");
        let outcome =
            spec(JobExpect::Failed, Some("BackoffLimitExceeded"), None).decide(Some(&job), None);
        assert_eq!(outcome.status, Status::Pass);
        let other =
            spec(JobExpect::Failed, Some("DeadlineExceeded"), None).decide(Some(&job), None);
        assert_eq!(other.status, Status::Fail);
        assert!(other.summary.contains("BackoffLimitExceeded"));
    }

    #[test]
    fn a_running_job_is_a_failure_still_in_progress() {
        let running = job("2026-05-02T10:15:00Z", json!([]), 0);
        let outcome = spec(JobExpect::Complete, None, None).decide(Some(&running), None);
        assert_eq!(outcome.status, Status::Fail);
        assert!(outcome.pending);
    }

    #[test]
    fn a_complete_job_from_the_previous_sync_does_not_pass_step_4() {
        let old = complete("2026-05-02T09:00:00Z");
        let outcome = spec(JobExpect::Failed, None, Some("checkout-dev"))
            .decide(Some(&old), Some(&app("2026-05-02T10:14:58Z", "Failed")));
        assert_eq!(outcome.status, Status::Fail);
        assert!(outcome.summary.contains("this Job is from an earlier sync"));
        outcome.assert_hint_names(&["start the sync of your commit"]);
    }

    #[test]
    fn a_hook_job_removed_by_its_delete_policy_is_explained() {
        let outcome = spec(JobExpect::Complete, None, Some("checkout-dev"))
            .decide(None, Some(&app("2026-05-02T10:14:58Z", "Succeeded")));
        assert_eq!(outcome.status, Status::Fail);
        assert!(outcome.diagnosis_text().contains("delete policy"));
    }

    #[test]
    fn expect_missing_passes_only_when_the_job_is_gone() {
        let s = spec(JobExpect::Missing, None, None);
        assert_eq!(s.decide(None, None).status, Status::Pass);
        assert_eq!(
            s.decide(Some(&complete("2026-05-02T10:15:00Z")), None)
                .status,
            Status::Fail
        );
    }

    #[test]
    fn reason_without_expect_failed_is_rejected_in_the_check_file() {
        let parsed: Result<JobSpec, _> = serde_yaml::from_str(
            "{namespace: checkout-dev, name: x, expect: complete, reason: BackoffLimitExceeded}",
        );
        assert!(parsed.is_err());
        let unknown: Result<JobSpec, _> = serde_yaml::from_str(
            "{namespace: checkout-dev, name: x, expect: complete, colour: red}",
        );
        assert!(unknown.is_err());
    }
}
