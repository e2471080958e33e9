//! One step: its checks run concurrently, waited for where the course says, then judged as a
//! whole (a check waiting for an earlier one points at it; a check without a cause of its own
//! gets a generic one).

use std::time::Instant;

use futures::future::join_all;

use super::wait::{Waiter, wait_limit};
use super::{CheckReport, Recall, SkipReason, StateChange, StepReport, WaitPolicy, WaitProgress};
use crate::checks::Context;
use crate::course::Step;
use crate::course::placeholders;
use crate::course::schema::CheckSpec;
use crate::course::schema::CourseText;
use crate::outcome::{Cause, CauseId, CourseKey, HintLevel, HintPart, Outcome, Status};
use crate::probe::tape::{noting_misses, noting_misses_sync};

/// Run every check of `step` concurrently; report in the file's order.
pub async fn run_step(
    ctx: &Context,
    recall: &Recall,
    step: &Step,
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
) -> StepReport {
    let started = Instant::now();
    let mut seen = ctx.cluster.generation();
    let mut outcomes: Vec<Outcome> =
        join_all(step.checks.iter().map(|c| evaluate(ctx, recall, step, c))).await;
    let mut waiter = Waiter::new(step.checks.len());
    // The round of the wait in which each check was last judged (0: the first look).
    let mut judged_in = vec![0_usize; step.checks.len()];
    let mut round = 0;

    loop {
        let elapsed = started.elapsed();
        let frozen = ctx.cluster.frozen();
        let waiting = waiter.decide(&step.checks, &mut outcomes, policy, elapsed, frozen);
        let limit = waiting
            .iter()
            .map(|&i| wait_limit(&step.checks[i], policy))
            .max()
            .unwrap_or_default();
        if waiter.any_waited() {
            on_wait(&WaitProgress {
                step: &step.name,
                elapsed,
                limit,
                waiting_for: waiting
                    .iter()
                    .map(|&i| step.checks[i].title.as_str())
                    .collect(),
                changes: std::mem::take(&mut waiter.changes)
                    .into_iter()
                    .map(|(i, from, to)| StateChange {
                        check: step.checks[i].id.as_str(),
                        from,
                        to,
                    })
                    .collect(),
                done: waiting.is_empty(),
            });
        }
        if waiting.is_empty() {
            break;
        }
        // Look again when the cluster changes (a watch event, or the next poll where there is
        // no watch), or at the earliest limit, for a last look before giving up.
        let deadline = waiting
            .iter()
            .map(|&i| waiter.deadline(i, started, wait_limit(&step.checks[i], policy)))
            .min()
            .unwrap_or_else(Instant::now);
        seen = ctx.cluster.wait_for_change(seen, deadline).await;
        let again = join_all(
            waiting
                .iter()
                .map(|&i| evaluate(ctx, recall, step, &step.checks[i])),
        )
        .await;
        round += 1;
        for (i, outcome) in waiting.into_iter().zip(again) {
            waiter.looked(i, &outcomes[i], &outcome);
            outcomes[i] = outcome;
            judged_in[i] = round;
        }
    }

    rejudge_on_fresh_reads(ctx, recall, step, &judged_in, &mut outcomes).await;
    point_blocked_checks_at_their_cause(&step.checks, &mut outcomes);

    let mut checks: Vec<CheckReport> = step
        .checks
        .iter()
        .zip(outcomes)
        .map(|(spec, outcome)| CheckReport {
            id: spec.id.clone(),
            kind: spec.kind.name(),
            title: spec.title.clone(),
            outcome,
        })
        .collect();
    if step.after.is_some() {
        // A short blocking read of one repo's history, after every async check is done.
        let (check, missed) =
            noting_misses_sync(|| super::sequence::after_check(ctx, recall, step));
        checks.extend(check.map(|mut check| {
            if !missed.is_empty() {
                check.outcome = not_in_bundle(&missed);
            }
            check
        }));
    }
    for check in &mut checks {
        give_generic_cause(&mut check.outcome);
    }
    super::mistakes::show_each_mistake_once(&mut checks);
    let mut report = StepReport::new(&ctx.module, &step.name, &step.title, &ctx.track, checks);
    if report.status == Status::Skip {
        report.skipped = Some(why_skipped(step, &ctx.track));
    }
    report
}

/// Judge once more, on fresh reads, each check that failed for good although every check it
/// counts after (`after:`) passed, one of them judged in a later round of the wait than it: its
/// own read is older than the event it counts after. A ConfigMap read before Argo CD applied the
/// learner's values, beside the Application read once the sync had run, would say "argocd-cm
/// lacks your value" next to "Argo CD synced your push" (seen on a real Argo CD). Without a wait
/// every object is read once; this costs one more read only where a wait moved the event on.
async fn rejudge_on_fresh_reads(
    ctx: &Context,
    recall: &Recall,
    step: &Step,
    judged_in: &[usize],
    outcomes: &mut [Outcome],
) {
    let index = |id: &String| step.checks.iter().position(|c| &c.id == id);
    let passed = |id: &String| index(id).is_some_and(|j| outcomes[j].status == Status::Pass);
    let stale: Vec<usize> = step
        .checks
        .iter()
        .enumerate()
        .filter(|(i, spec)| {
            outcomes[*i].status == Status::Fail
                && !outcomes[*i].pending
                && spec.kind.reads_cluster()
                && !spec.after.is_empty()
                && spec.after.iter().all(passed)
                && spec
                    .after
                    .iter()
                    .filter_map(index)
                    .any(|j| judged_in[j] > judged_in[*i])
        })
        .map(|(i, _)| i)
        .collect();
    if stale.is_empty() || ctx.cluster.frozen().is_some() {
        return;
    }
    ctx.cluster.forget();
    let again = join_all(
        stale
            .iter()
            .map(|&i| evaluate(ctx, recall, step, &step.checks[i])),
    )
    .await;
    for (i, outcome) in stale.into_iter().zip(again) {
        outcomes[i] = outcome;
    }
}

/// Why a step whose every check was skipped was skipped: its checks belong to other tracks, or
/// (should a check ever skip for a reason of its own) nothing was left to judge.
fn why_skipped(step: &Step, track: &str) -> SkipReason {
    if step.checks.iter().all(|c| off_track(c, track)) {
        SkipReason::NotOnTrack {
            track: track.to_string(),
        }
    } else {
        SkipReason::NothingToJudge
    }
}

/// Whether `spec` belongs to other tracks than `track` (and so is not judged on it).
fn off_track(spec: &CheckSpec, track: &str) -> bool {
    !spec.tracks.is_empty() && !spec.tracks.iter().any(|t| t == track)
}

/// a class still groups learners by it: `in-progress` (the cluster is still moving), `failed`,
/// `could-not-check`. A check's own cause always wins.
fn give_generic_cause(outcome: &mut Outcome) {
    if outcome.cause.is_none() {
        outcome.cause = generic_cause(outcome);
    }
}

/// The runner's cause for an outcome whose check gave none.
fn generic_cause(outcome: &Outcome) -> Option<Cause> {
    match outcome.status {
        Status::Fail if outcome.pending => Some(CauseId::InProgress.cause()),
        Status::Fail => Some(CauseId::Failed.cause()),
        Status::Error => Some(CauseId::CouldNotCheck.cause()),
        Status::Pass | Status::Skip => None,
    }
}

/// Whether `outcome` is "could not check" only because the run has no work repos to read.
pub(super) fn unread_for_want_of_a_work_dir(outcome: &Outcome) -> bool {
    outcome.status == Status::Error
        && outcome
            .cause
            .as_ref()
            .is_some_and(|c| c.is(CauseId::NoWorkDir))
}

/// A check's outcome with the hint level the learner is at: the course's words first, what the
/// check saw below them. A check off the learner's track is skipped, and one of work repos in a
/// run without them is "could not check".
async fn evaluate(ctx: &Context, recall: &Recall, step: &Step, spec: &CheckSpec) -> Outcome {
    if off_track(spec, &ctx.track) {
        return Outcome::skip(format!(
            "not on the {} track (only {})",
            ctx.track,
            spec.tracks.join(", ")
        ));
    }
    if !spec.kind.repos().is_empty()
        && let Some(unchecked) = ctx.unchecked_repos()
    {
        return unchecked;
    }
    // A replayed check that asked something its bundle does not hold is never judged on the
    // probe's stand-in answer.
    let (mut outcome, missed) = noting_misses(spec.kind.evaluate(ctx)).await;
    if !missed.is_empty() {
        outcome = not_in_bundle(&missed);
    }
    // A failure its kind did not declare would be a cause `course lint` cannot hold the
    // course's hints against: every test run holds each kind to its declaration.
    if cfg!(debug_assertions)
        && outcome.status == Status::Fail
        && let Err(why) = spec.kind.can_fail().admits(
            outcome.cause.as_ref(),
            outcome.hints.iter().any(HintPart::is_the_checks),
        )
    {
        panic!(
            "check `{}` of {} ({} kind) {why}: declare it in the kind's `can_fail`",
            spec.id,
            step.name,
            spec.kind.name()
        );
    }
    assemble_hint(ctx, recall, step, spec, outcome)
}

/// "Could not check" for a replayed check that asked the `missed` questions of a bundle that
/// holds no answer to them.
fn not_in_bundle(missed: &[String]) -> Outcome {
    let mut missed = missed.to_vec();
    missed.dedup();
    Outcome::could_not_check(format!(
        "the bundle holds no answer to what this check asks ({})",
        missed.join("; ")
    ))
    .with_cause(Cause::new(CauseId::NotInBundle))
}

/// The hint of a failed or unchecked outcome in parts: the course's text for its cause (or for
/// every cause), the check's own, or the cause table's where neither has one. Nothing is merged
/// or compared: which parts show is decided by the course file's form and the cause.
fn assemble_hint(
    ctx: &Context,
    recall: &Recall,
    step: &Step,
    spec: &CheckSpec,
    mut outcome: Outcome,
) -> Outcome {
    if !matches!(outcome.status, Status::Fail | Status::Error) {
        return outcome;
    }
    let cause = outcome.cause.clone().or_else(|| generic_cause(&outcome));
    let own = std::mem::take(&mut outcome.hints);
    // The course speaks to failures; "could not check" is the check's (and the table's) to explain.
    let course = (outcome.status == Status::Fail)
        .then(|| spec.hint.for_cause(cause.as_ref()))
        .flatten();
    let mut parts = Vec::new();
    if let Some(text) = course {
        let (key, shown) = match text {
            CourseText::ForCause { key, .. } => (CourseKey::ByCause(key.to_string()), true),
            CourseText::Always(_) => (CourseKey::Always, true),
            // `default:` of a keyed hint is for a state the check has nothing to say about.
            CourseText::Fallback(_) => (CourseKey::Default, own.is_empty()),
        };
        let levels = text.levels();
        if shown && !levels.is_empty() {
            let of = levels.len();
            let level = recall
                .hint_levels
                .get(&(step.name.clone(), spec.id.clone()))
                .copied()
                .unwrap_or(1)
                .clamp(1, of);
            parts.push(HintPart::Course {
                text: placeholders::render_work(&levels[level - 1], &ctx.work_dir_shown()),
                file: step.file.clone(),
                key,
                level: (of > 1).then_some(HintLevel { level, of }),
            });
        }
    }
    parts.extend(own);
    if parts.is_empty()
        && let Some(cause) = &cause
        && cause.id().default_hint().is_some()
    {
        parts.push(HintPart::Cause { cause: cause.id() });
    }
    outcome.hints = parts;
    outcome
}

/// A failed check whose `after:` checks do not pass yet is still reported as failed (the step is not
/// done), but its hint starts with the earliest check in that chain to fix first, and an explanation
/// that only repeats that check's own is dropped: one cause, told once.
fn point_blocked_checks_at_their_cause(specs: &[CheckSpec], outcomes: &mut [Outcome]) {
    let gated = gate_on_events(specs, outcomes);
    let blocker_of = |i: usize, outcomes: &[Outcome]| blocker(specs, outcomes, i);
    let roots: Vec<Option<usize>> = (0..specs.len())
        .map(|i| {
            if outcomes[i].status != Status::Fail {
                return None;
            }
            let mut root = blocker_of(i, outcomes)?;
            // `after:` only names checks above, so this walk ends.
            while let Some(earlier) = blocker_of(root, outcomes) {
                root = earlier;
            }
            Some(root)
        })
        .collect();
    let diagnoses: Vec<Option<String>> = outcomes.iter().map(|o| o.diagnosis.clone()).collect();
    for (i, root) in roots.into_iter().enumerate() {
        let Some(root) = root else { continue };
        // Without a cause of its own, the check failed because of the one it waits for.
        if outcomes[i].cause.is_none() {
            outcomes[i].cause = Some(Cause::about(CauseId::BlockedBy, &specs[root].id));
        }
        // The event this check depends on did not happen: the earlier check's hint is the one
        // to follow, and this check's own says nothing more. Otherwise the learner finds it above.
        let gate = HintPart::First {
            check: specs[root].id.clone(),
            title: specs[root].title.clone(),
            theirs: if gated[i] {
                outcomes[root].hints.clone()
            } else {
                Vec::new()
            },
        };
        let own = std::mem::take(&mut outcomes[i].hints);
        outcomes[i].hints = std::iter::once(gate)
            .chain(own.into_iter().filter(|_| !gated[i]))
            .collect();
        let repeats = |j: usize| diagnoses[j] == diagnoses[i];
        if repeats(root)
            || specs[i]
                .after
                .iter()
                .filter_map(|id| specs.iter().position(|s| s.id == *id))
                .any(repeats)
        {
            outcomes[i].diagnosis = None;
        }
    }
}

/// A check that depends on an event with `after:` ("the sync stopped before the Sync phase"
/// depends on the sync failing) means nothing when the event did not happen: it never passes
/// then. It fails when the event's check fails, and cannot be checked when the event's check
/// could not be. Returns which checks were turned (in file order, so chains carry on down).
fn gate_on_events(specs: &[CheckSpec], outcomes: &mut [Outcome]) -> Vec<bool> {
    let mut gated = vec![false; specs.len()];
    for i in 0..specs.len() {
        if outcomes[i].status != Status::Pass {
            continue;
        }
        let Some(j) = blocker(specs, outcomes, i) else {
            continue;
        };
        let was = std::mem::take(&mut outcomes[i].summary);
        let event = &specs[j].title;
        // The event's own check passed and was turned only because it waits on another: the
        // event did happen, so say what it waits for, never that it did not happen.
        if gated[j] {
            let mut root = j;
            while let Some(earlier) = blocker(specs, outcomes, root) {
                root = earlier;
            }
            let waits = format!(
                "this counts only after \"{event}\", which waits for \"{}\" (see above) (what is there now: {was})",
                specs[root].title
            );
            outcomes[i] = if outcomes[j].status == Status::Fail {
                Outcome::fail(format!("not yet: {waits}"))
            } else {
                Outcome::could_not_check(format!("cannot tell: {waits}"))
            }
            .with_cause(Cause::about(CauseId::BlockedBy, &specs[root].id));
            gated[i] = true;
            continue;
        }
        outcomes[i] = if outcomes[j].status == Status::Fail {
            Outcome::fail(format!(
                "not yet: this counts only after \"{event}\", which has not happened (what is there now: {was})"
            ))
            .with_cause(Cause::about(CauseId::EventMissing, &specs[j].id))
        } else {
            Outcome::could_not_check(format!(
                "cannot tell: this counts only after \"{event}\", which could not be checked (what is there now: {was})"
            ))
            .with_cause(Cause::about(CauseId::EventUnknown, &specs[j].id))
        };
        gated[i] = true;
    }
    gated
}

/// The first check named in check `i`'s `after:` that failed or could not be checked. One left
/// unread for want of a work dir (a class run without `--work-dirs`) blocks nothing: it is not
/// known to be missing, and pointing at it would send the learner to fix what may be done.
fn blocker(specs: &[CheckSpec], outcomes: &[Outcome], i: usize) -> Option<usize> {
    specs[i].after.iter().find_map(|id| {
        let j = specs.iter().position(|s| s.id == *id)?;
        (matches!(outcomes[j].status, Status::Fail | Status::Error)
            && !unread_for_want_of_a_work_dir(&outcomes[j]))
        .then_some(j)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> Vec<CheckSpec> {
        ["id: made\ntitle: your commits undo it\ngit: { repo: r, pushed: true }\n",
         "id: pushed\ntitle: the revert is pushed\nafter: [made]\ngit: { repo: r, pushed: true }\n",
         "id: synced\ntitle: synced to the revert\nafter: [pushed]\ngit: { repo: r, pushed: true }\n"]
            .iter()
            .map(|text| crate::course::parse_yaml::<CheckSpec>("t.yaml", text).expect("a check"))
            .collect()
    }

    /// The chain's outcomes once blocked checks are pointed at their cause, when the commits do
    /// not undo the release, the sync passed on its own and the push's own check said `push`.
    fn pointed_with_push(push: Outcome) -> Vec<Outcome> {
        let mut outcomes = vec![
            Outcome::fail("no revert of the release"),
            push,
            Outcome::pass("Synced"),
        ];
        point_blocked_checks_at_their_cause(&chain(), &mut outcomes);
        outcomes
    }

    #[test]
    fn a_check_after_an_event_that_happened_but_waits_says_what_it_waits_for() {
        // The revert is pushed (its check passed on its own), but it counts only after the commits
        // undo the release, which failed: the check after it must not say the push did not happen.
        let outcomes = pointed_with_push(Outcome::pass("pushed"));
        assert!(
            outcomes[1].summary.contains("which has not happened"),
            "{}",
            outcomes[1].summary
        );
        let synced = &outcomes[2];
        assert_eq!(synced.status, Status::Fail);
        synced.assert_says(
            "\"the revert is pushed\", which waits for \"your commits undo it\" (see above)",
        );
        assert!(
            !synced.summary.contains("has not happened"),
            "{}",
            synced.summary
        );
        assert_eq!(synced.cause, Some(Cause::about(CauseId::BlockedBy, "made")));
        // Neighbour: the push itself did not happen: then it says so.
        let outcomes = pointed_with_push(Outcome::fail("not pushed"));
        assert!(
            outcomes[2]
                .summary
                .contains("\"the revert is pushed\", which has not happened"),
            "{}",
            outcomes[2].summary
        );
    }

    fn step_with_tracks(tracks: &[&[&str]]) -> Step {
        let checks = tracks
            .iter()
            .enumerate()
            .map(|(i, tracks)| {
                let text = format!(
                    "id: c{i}\ntitle: c{i}\ntracks: [{}]\ngit: {{ repo: r, pushed: true }}\n",
                    tracks.join(", ")
                );
                crate::course::parse_yaml::<CheckSpec>("t.yaml", &text).expect("a check")
            })
            .collect();
        Step {
            name: "step-1".to_string(),
            title: "step one".to_string(),
            summary: None,
            file: "step-1.yaml".to_string(),
            replaced_by: Vec::new(),
            checks,
            after: None,
            solution: Vec::new(),
        }
    }

    #[test]
    fn a_step_whose_checks_are_all_on_other_tracks_is_skipped_as_not_on_this_track() {
        let step = step_with_tracks(&[&["eks"], &["eks", "gke"]]);
        assert_eq!(
            why_skipped(&step, "kind"),
            SkipReason::NotOnTrack {
                track: "kind".to_string()
            }
        );
    }

    #[test]
    fn a_step_with_a_check_on_this_track_is_not_skipped_for_the_track() {
        // Had it been skipped anyway, it was not for the track: nothing was left to judge.
        let step = step_with_tracks(&[&["eks"], &["kind"]]);
        assert_eq!(why_skipped(&step, "kind"), SkipReason::NothingToJudge);
        assert!(!off_track(&step.checks[1], "kind"));
        assert!(off_track(&step.checks[0], "kind"));
    }
}
