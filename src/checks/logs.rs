//! Check kind `logs`: the log of a Job's pod, chosen as `kubectl logs job/NAME` chooses it,
//! contains a text or matches a regex.

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use regex::Regex;
use serde::Deserialize;

use crate::checks::Context;
use crate::checks::cluster_common::{self, LOG_TAIL_LINES, could_not_check, tail};
use crate::checks::sync_binding;
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{Cause, CauseId, DetailKind, Outcome};
use crate::probe::cluster::argocd::Application;
use crate::probe::cluster::pods;
use crate::probe::cluster::{LogRead, MAX_LOG_BYTES};

/// Fields of a `logs` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawLogsSpec")]
pub struct LogsSpec {
    pub namespace: String,
    pub job: String,
    pub expect: LogExpect,
    /// Container to read (default: as kubectl, the default-container annotation or the first).
    pub container: Option<String>,
    /// The Job must belong to this Application's last operation.
    pub app: Option<String>,
}

/// What the log must hold.
#[derive(Debug, Clone)]
pub enum LogExpect {
    Contains(String),
    Matches(Regex),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLogsSpec {
    namespace: String,
    job: String,
    #[serde(default)]
    contains: Option<String>,
    #[serde(default)]
    matches: Option<String>,
    #[serde(default)]
    container: Option<String>,
    #[serde(default)]
    app: Option<String>,
}

impl TryFrom<RawLogsSpec> for LogsSpec {
    type Error = String;

    fn try_from(raw: RawLogsSpec) -> Result<Self, Self::Error> {
        let expect = match (raw.contains, raw.matches) {
            (Some(text), None) => LogExpect::Contains(text),
            (None, Some(pattern)) => LogExpect::Matches(
                Regex::new(&pattern)
                    .map_err(|e| format!("`matches: {pattern}` is not a valid regex: {e}"))?,
            ),
            _ => {
                return Err(
                    "a logs check needs exactly one of `contains` (a text) or `matches` (a regex)"
                        .to_string(),
                );
            }
        };
        Ok(LogsSpec {
            namespace: raw.namespace,
            job: raw.job,
            expect,
            container: raw.container,
            app: raw.app,
        })
    }
}

impl LogExpect {
    fn holds(&self, log: &str) -> bool {
        match self {
            LogExpect::Contains(text) => log.contains(text.as_str()),
            LogExpect::Matches(re) => re.is_match(log),
        }
    }

    fn describe(&self) -> String {
        match self {
            LogExpect::Contains(text) => format!("contains \"{text}\""),
            LogExpect::Matches(re) => format!("matches /{}/", re.as_str()),
        }
    }
}

/// What was read for a logs check.
#[derive(Debug, Clone)]
pub struct LogObservation {
    pub job: Option<Job>,
    /// The pod kubectl would pick and what its log read gave; `None` when the Job has no pods.
    pub pod_log: Option<(Pod, LogRead)>,
}

impl LogsSpec {
    /// Work repos this check reads (none).
    pub fn repos(&self) -> Vec<&str> {
        Vec::new()
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let cluster = &ctx.cluster;
        // The Job's pods are listed by `job-name` alongside the Job (the result waits in the
        // cache for `job_log`), so the log is the second round trip, not the third.
        let (read, _) = futures::join!(
            cluster_common::app_and_job(ctx, self.app.as_deref(), &self.namespace, &self.job),
            cluster.job_pods_by_name(&self.namespace, &self.job)
        );
        let (app, job) = match read {
            Ok(read) => read,
            Err(outcome) => return *outcome,
        };
        let pod_log = match &job {
            Some(job) => {
                match cluster_common::job_log(
                    cluster,
                    &self.namespace,
                    job,
                    self.container.as_deref(),
                )
                .await
                {
                    Ok(found) => found,
                    Err(e) => return could_not_check(&e),
                }
            }
            None => None,
        };
        let outcome = self.decide(
            &LogObservation {
                job: job.clone(),
                pod_log,
            },
            app.as_ref(),
        );
        // Which sync made the Job cannot be told from the cluster: the learner's commit may.
        match (&job, &app, &self.app) {
            (Some(job), Some(app), Some(name)) => {
                sync_binding::judged_by_the_commit(ctx, outcome, job, app, name)
            }
            _ => outcome,
        }
    }

    /// The verdict from what was observed.
    pub fn decide(&self, seen: &LogObservation, app: Option<&Application>) -> Outcome {
        let command = format!("kubectl -n {} logs job/{}", self.namespace, self.job);
        let Some(job) = &seen.job else {
            let outcome = Outcome::fail(format!(
                "Job {} in {} does not exist, so it has no log",
                self.job, self.namespace
            ));
            if let (Some(app), Some(name)) = (app, &self.app)
                && let Some(explained) = crate::checks::sync_binding::missing_job_outcome(app, name)
            {
                return explained;
            }
            if let (Some(app), Some(name)) = (app, &self.app)
                && let Some(entry) = crate::checks::hook_refused::refused_entry(app, &self.job)
            {
                let who = format!("Job {} in {} (so no log)", self.job, self.namespace);
                return crate::checks::hook_refused::refused_outcome(app, name, entry, &who);
            }
            let outcome = outcome
                .with_cause(Cause::about(CauseId::LogsMissing, &self.job))
                .with_hint(format!("once the Job is there, read its log: `{command}`"));
            return match (app, &self.app) {
                (Some(app), Some(name)) if app.operation_running() => outcome
                    .still_moving(format!("the sync of {name} is still running: wait for it")),
                (Some(app), Some(_)) => match cluster_common::sync_entry(app, "Job", &self.job) {
                    Some(entry) => outcome.with_diagnosis(format!(
                        "the last sync ran {} ({}), and the Job is gone with its log: {}",
                        entry.describe(),
                        entry.hook_phase.as_deref().unwrap_or("no phase"),
                        crate::checks::sync_binding::why_hook_gone(app, entry)
                    )),
                    None => outcome,
                },
                _ => outcome,
            };
        };
        if let (Some(app), Some(name)) = (app, &self.app)
            && let Some(stale) = sync_binding::job_outcome(job, app, name)
        {
            return stale;
        }
        let Some((pod, log)) = &seen.pod_log else {
            return Outcome::fail(format!(
                "Job {} has no pods left to read a log from",
                self.job
            ))
            .with_diagnosis(
                "its pods were deleted (ttlSecondsAfterFinished, or someone deleted them)",
            )
            .with_cause(Cause::about(CauseId::LogsPodsGone, &self.job))
            .with_hint(format!(
                "run the sync again so the Job runs again, then `{command}`"
            ));
        };
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        let (text, skipped) = match log {
            LogRead::Text(text) => (text, 0),
            LogRead::Tail { text, skipped } => (text, *skipped),
            LogRead::Unended {
                text,
                skipped,
                within,
            } => return self.decide_unended(&pod_name, text, *skipped, within),
            LogRead::NotAvailable(why) => {
                let outcome =
                    Outcome::fail(format!("pod {pod_name} of Job {} has no log yet", self.job))
                        .with_actual(why.clone())
                        .with_hint(format!("read it once the container started: `{command}`"))
                        .with_cause(Cause::about(CauseId::LogsNotYet, &self.job));
                let outcome = match pods::stuck_container(pod) {
                    Some(stuck) => outcome.with_diagnosis(cluster_common::explain_stuck(&stuck)),
                    None => outcome.still_in_progress(),
                };
                return outcome;
            }
        };
        if let Some(pass) = self.passed(&pod_name, text, "") {
            return pass;
        }
        if skipped > 0 {
            // The part not read may hold it: no verdict either way.
            return Outcome::could_not_check(format!(
                "the log of pod {pod_name} (Job {}) is too long to read whole; its last {} MiB do not contain what was expected, and labcheck did not read the {skipped} bytes before them",
                self.job,
                MAX_LOG_BYTES / (1024 * 1024)
            ))
            .with_expected(format!("a log that {}", self.expect.describe()))
            .with_hint(format!("search it yourself: `{command} | grep …`"))
            .with_cause(Cause::about(CauseId::LogTooLong, &self.job))
            .with_detail(DetailKind::Log, tail(text, LOG_TAIL_LINES));
        }
        let running = pod
            .status
            .as_ref()
            .and_then(|s| s.phase.as_deref())
            .is_some_and(|p| p == "Running" || p == "Pending");
        let outcome = Outcome::fail(format!(
            "the log of pod {pod_name} (Job {}) does not contain what was expected",
            self.job
        ))
        .with_expected(format!("a log that {}", self.expect.describe()))
        .with_cause(Cause::about(CauseId::LogMismatch, &self.job))
        .with_hint(format!("read it whole: `{command}`"))
        .with_actual(format!(
            "{} lines, the last shown below",
            text.lines().count()
        ))
        .with_detail(DetailKind::Log, tail(text, LOG_TAIL_LINES));
        if running {
            outcome.still_in_progress()
        } else {
            outcome
        }
    }
}

impl LogsSpec {
    /// `: "the line"` that holds what is expected: the evidence the course asks the learner to
    /// find, shown in the pass summary (empty when no single line holds it).
    fn evidence(&self, text: &str) -> String {
        text.lines()
            .find(|l| self.expect.holds(l))
            .map(|l| format!(": \"{}\"", l.trim()))
            .unwrap_or_default()
    }

    /// The pass, when `text` holds what is expected: the summary names the line that holds it,
    /// then `how_read` (how the log was read, when not to its end).
    fn passed(&self, pod_name: &str, text: &str, how_read: &str) -> Option<Outcome> {
        self.expect.holds(text).then(|| {
            Outcome::pass(format!(
                "the log of pod {pod_name} (Job {}) {}{}{how_read}",
                self.job,
                self.expect.describe(),
                self.evidence(text)
            ))
        })
    }

    /// A log that was still coming when the read's time was up (it streams on, as a followed
    /// log does): what was read passes if it holds what is expected; otherwise the part not
    /// read may, so there is no verdict.
    fn decide_unended(&self, pod_name: &str, text: &str, skipped: u64, within: &str) -> Outcome {
        let command = format!("kubectl -n {} logs job/{}", self.namespace, self.job);
        let read = text.len() as u64 + skipped;
        let how_read =
            format!(" (the log did not end within {within}; this was in the {read} bytes read)");
        if let Some(pass) = self.passed(pod_name, text, &how_read) {
            return pass;
        }
        // An API server flushes an unfollowed log only as its buffer fills: a log that writes
        // little may reach nobody before the bound.
        let what_came = match read {
            0 => "and none of it arrived in that time (a server or proxy between may hold a log back until it has a buffer's worth)".to_string(),
            _ => format!(
                "labcheck read {read} bytes of it, {} lines, and they do not contain what was expected",
                text.lines().count()
            ),
        };
        Outcome::could_not_check(format!(
            "the log of pod {pod_name} (Job {}) did not end within {within} (it streams on); {what_came}",
            self.job,
        ))
        .with_expected(format!("a log that {}", self.expect.describe()))
        .with_hint(format!(
            "read it yourself: `{command} | grep …`; if the log should have ended, something keeps it open (a proxy that follows logs?)"
        ))
        .with_cause(Cause::about(CauseId::LogUnended, &self.job))
        .with_detail(DetailKind::Log, tail(text, LOG_TAIL_LINES))
    }
}

impl KindReads for LogsSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::job_of_app(&self.namespace, &self.job, self.app.as_ref())
    }

    fn rename_for_learner(&mut self, names: &mut dyn LearnerNames) {
        names.job_of_app(&mut self.namespace, self.app.as_mut());
    }

    fn can_fail(&self) -> crate::checks::can_fail::Causes {
        use crate::checks::can_fail::{Causes, sync_binding};
        let job = self.job.as_str();
        let causes = [
            CauseId::LogsMissing,
            CauseId::LogsPodsGone,
            CauseId::LogsNotYet,
            CauseId::LogMismatch,
        ]
        .into_iter()
        .fold(Causes::new(), |causes, id| causes.about(id, job, true));
        match &self.app {
            Some(app) => causes
                .and(sync_binding(job))
                .and(crate::checks::can_fail::app_lookup(app)),
            None => causes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Status;
    use serde_json::json;

    fn spec(yaml: &str) -> LogsSpec {
        crate::yaml::testing::parsed(yaml)
    }

    fn seen(phase: &str, log: LogRead) -> LogObservation {
        let job: Job = serde_json::from_value(json!({"metadata": {"name": "checkout-migrate"}}))
            .unwrap_or_default();
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": "checkout-migrate-abcde"},
            "status": {"phase": phase}
        }))
        .unwrap_or_default();
        LogObservation {
            job: Some(job),
            pod_log: Some((pod, log)),
        }
    }

    #[test]
    fn a_migration_log_with_the_expected_line_passes() {
        let s = spec("{namespace: checkout-dev, job: checkout-migrate, contains: migration}");
        let outcome = s.decide(
            &seen(
                "Succeeded",
                LogRead::Text("running migration 42\ndone\n".into()),
            ),
            None,
        );
        assert_eq!(outcome.status, Status::Pass);
        assert!(outcome.summary.contains("checkout-migrate-abcde"));
    }

    #[test]
    fn a_log_without_the_line_fails_and_shows_its_last_ten_lines() {
        let s =
            spec("{namespace: checkout-dev, job: checkout-smoke-test, matches: 'HTTP/1.1 200'}");
        let log: String = (1..=15).map(|i| format!("line {i}\n")).collect();
        let outcome = s.decide(&seen("Failed", LogRead::Text(log)), None);
        assert_eq!(outcome.status, Status::Fail);
        assert!(!outcome.pending);
        let detail = outcome
            .detail
            .map(|d| (d.kind, d.text))
            .unwrap_or((DetailKind::Text, String::new()));
        assert_eq!(detail.0, DetailKind::Log);
        assert!(
            detail.1.starts_with("line 6\n") && detail.1.ends_with("line 15"),
            "{}",
            detail.1
        );
    }

    #[test]
    fn a_cut_log_passes_on_its_tail_and_is_never_failed_for_the_part_not_read() {
        let s =
            spec("{namespace: checkout-dev, job: checkout-migrate, contains: 'migration failed'}");
        let cut = |text: &str| LogRead::Tail {
            text: text.to_string(),
            skipped: 9_000_000,
        };
        let found = s.decide(&seen("Failed", cut("noise\nmigration failed\n")), None);
        assert_eq!(found.status, Status::Pass);
        let not_found = s.decide(&seen("Failed", cut("noise\nmore noise\n")), None);
        assert_eq!(not_found.status, Status::Error, "{not_found:?}");
        not_found.assert_says("9000000 bytes");
        // The status says "could not check"; every reporter writes it once, from the status.
        assert!(
            !not_found.summary.starts_with("could not check"),
            "{}",
            not_found.summary
        );
        assert!(
            not_found
                .detail
                .is_some_and(|d| d.text.ends_with("more noise"))
        );
    }

    #[test]
    fn a_log_that_never_ends_is_judged_on_what_came_within_the_bound_never_failed() {
        let s = spec("{namespace: checkout-dev, job: checkout-migrate, matches: '(?i)error'}");
        let unended = |text: &str| LogRead::Unended {
            text: text.to_string(),
            skipped: 0,
            within: "2s".to_string(),
        };
        // (what came before the bound, status, words of the summary)
        let cases = [
            (
                "migrating\nERROR: column exists\n",
                Status::Pass,
                "the log did not end within 2s; this was in the 31 bytes read",
            ),
            (
                "migrating\nstill migrating\n",
                Status::Error,
                "did not end within 2s (it streams on); labcheck read 26 bytes of it, 2 lines",
            ),
            (
                "",
                Status::Error,
                "did not end within 2s (it streams on); and none of it arrived in that time",
            ),
        ];
        for (text, status, words) in cases {
            let outcome = s.decide(&seen("Running", unended(text)), None);
            assert_eq!(outcome.status, status, "{text:?}: {outcome:?}");
            assert!(
                outcome.summary.contains(words),
                "{text:?}: {}",
                outcome.summary
            );
        }
    }

    #[test]
    fn contains_and_matches_together_are_a_course_file_error() {
        let parsed: Result<LogsSpec, _> =
            serde_yaml::from_str("{namespace: a, job: b, contains: x, matches: y}");
        assert!(parsed.is_err());
        let bad_regex: Result<LogsSpec, _> =
            serde_yaml::from_str("{namespace: a, job: b, matches: '('}");
        assert!(bad_regex.is_err());
    }
}
