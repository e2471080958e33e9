use super::*;
use crate::outcome::Outcome;
use crate::run::CheckReport;

fn report(step: &str, checks: &[(&str, Status)]) -> StepReport {
    let checks: Vec<CheckReport> = checks
        .iter()
        .map(|(id, status)| {
            let outcome = match status {
                Status::Pass => Outcome::pass("ok"),
                _ => Outcome::fail("not yet"),
            };
            CheckReport::new(*id, "git", *id, outcome)
        })
        .collect();
    crate::run::fixtures::step(step, step, checks)
}

fn check_with_levels(levels: &[&str]) -> CheckSpec {
    // `{:?}` of a list of plain words is a YAML flow list of quoted strings.
    let text =
        format!("id: pushed\ntitle: pushed\nhint: {levels:?}\ngit: {{ repo: r, pushed: true }}\n");
    crate::course::parse_yaml("t.yaml", &text).expect("a check")
}

fn now() -> Timestamp {
    "2025-01-06T09:00:00Z".parse().expect("a timestamp")
}

#[test]
fn a_passed_step_survives_a_save_and_a_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("state/progress");
    let (mut progress, warnings) = Progress::load(&path);
    assert!(warnings.is_empty());
    progress.record_run(&[report("step-1", &[("a", Status::Pass)])], now());
    progress.save().expect("saved");
    let (again, warnings) = Progress::load(&path);
    assert!(warnings.is_empty(), "{warnings:?}");
    let passed = again.passed("module-10", "step-1").expect("recorded");
    assert_eq!(day(passed.at), "2025-01-06");
    assert_eq!(passed.track, "kind");
}

#[test]
fn a_damaged_progress_file_keeps_every_readable_line_and_is_copied_aside() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("progress");
    let text = format!(
        "{HEADER}\npassed\tmodule-10\tstep-1\t2025-01-06T09:00:00Z\tkind\n\u{0}\u{0}garbage\npassed\tmodule-10\tstep-2\tnot-a-date\tkind\nfailures\tmodule-10\tstep-3\tx\t2\n"
    );
    std::fs::write(&path, text).expect("written");
    let (mut progress, warnings) = Progress::load(&path);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("line 3, line 4"), "{warnings:?}");
    assert!(progress.passed("module-10", "step-1").is_some());
    assert!(progress.passed("module-10", "step-2").is_none());
    assert_eq!(progress.failures("module-10", "step-3", "x"), 2);
    assert!(path.with_extension("damaged").exists());
    progress.save().expect("rewritten clean");
    let (_, warnings) = Progress::load(&path);
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn a_file_without_a_header_or_in_binary_is_read_as_far_as_it_goes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("progress");
    std::fs::write(&path, [0xff, 0xfe, 0x00, b'\n', 0x80]).expect("written");
    let (progress, warnings) = Progress::load(&path);
    assert_eq!(warnings.len(), 1);
    assert!(progress.passed("module-10", "step-1").is_none());
}

#[test]
fn a_newer_labcheck_file_is_left_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("progress");
    let text = "format\tlabcheck-progress/v2\nsomething new\n";
    std::fs::write(&path, text).expect("written");
    let (mut progress, warnings) = Progress::load(&path);
    assert!(warnings[0].contains("newer labcheck"), "{warnings:?}");
    progress.record_run(&[report("step-1", &[("a", Status::Pass)])], now());
    progress.save().expect("nothing to do");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
}

#[test]
fn each_failed_run_raises_the_hint_one_level_up_to_the_last() {
    let check = check_with_levels(&["nudge", "where", "command"]);
    let mut progress = Progress::in_memory();
    let failed = report("step-4", &[("pushed", Status::Fail)]);
    assert_eq!(progress.hint_level("module-10", "step-4", &check), 1);
    progress.record_run(std::slice::from_ref(&failed), now());
    assert_eq!(progress.hint_level("module-10", "step-4", &check), 2);
    progress.record_run(std::slice::from_ref(&failed), now());
    progress.record_run(std::slice::from_ref(&failed), now());
    assert_eq!(progress.hint_level("module-10", "step-4", &check), 3);
    progress.record_run(&[report("step-4", &[("pushed", Status::Pass)])], now());
    assert_eq!(progress.hint_level("module-10", "step-4", &check), 1);
}

#[test]
fn asking_for_a_hint_reveals_the_next_level_and_runs_do_not_go_back_below_it() {
    let check = check_with_levels(&["nudge", "where", "command"]);
    let mut progress = Progress::in_memory();
    assert_eq!(progress.reveal_hint("module-10", "step-4", &check), 1);
    assert_eq!(progress.reveal_hint("module-10", "step-4", &check), 2);
    assert_eq!(progress.hint_level("module-10", "step-4", &check), 2);
    assert_eq!(progress.reveal_hint("module-10", "step-4", &check), 3);
    assert_eq!(progress.reveal_hint("module-10", "step-4", &check), 3);
}

#[test]
fn a_plain_text_hint_is_one_level() {
    let text = "id: a\ntitle: a\nhint: \"git push\"\ngit: { repo: r, pushed: true }\n";
    let check: CheckSpec = crate::course::parse_yaml("t.yaml", text).expect("a check");
    assert_eq!(check.hint_levels(None), 1);
    assert_eq!(check.hint_at(3, None), Some("git push"));
}

#[test]
fn an_empty_hint_list_is_refused_at_its_line() {
    let text = "id: a\ntitle: a\nhint: []\ngit: { repo: r, pushed: true }\n";
    let err = crate::course::parse_yaml::<CheckSpec>("t.yaml", text).expect_err("refused");
    assert!(err.to_string().starts_with("t.yaml:3:"), "{err}");
}

fn failed_with(cause: crate::outcome::CauseId, pending: bool) -> StepReport {
    let mut r = report("step-4", &[("pushed", Status::Fail)]);
    let outcome = Outcome::fail("not yet").with_cause(crate::outcome::Cause::new(cause));
    r.checks[0].outcome = if pending {
        outcome.still_in_progress()
    } else {
        outcome
    };
    r
}

#[test]
fn the_hint_level_rises_only_while_the_same_cause_stays_and_not_while_pending() {
    use crate::outcome::CauseId;
    let check = check_with_levels(&["nudge", "where", "command"]);
    let mut progress = Progress::in_memory();
    // Each run's failing cause, whether it is still in progress, and the level shown after it.
    let runs = [
        // A sync still running is not the learner stuck: no rise.
        (CauseId::Retrying, true, 1),
        (CauseId::Retrying, true, 1),
        (CauseId::NotPushed, false, 2),
        (CauseId::NotPushed, false, 3),
        // The learner pushed; now Argo CD has not seen it: a new cause starts the ladder again.
        (CauseId::NotSeenYet, false, 2),
    ];
    for (run, (cause, pending, level)) in runs.into_iter().enumerate() {
        progress.record_run(&[failed_with(cause, pending)], now());
        let shown = progress.hint_level("module-10", "step-4", &check);
        assert_eq!(shown, level, "after run {}", run + 1);
    }
    // And it survives a save and a load.
    let text = progress.to_text();
    assert!(
        text.contains("cause\tmodule-10\tstep-4\tpushed\tnot-seen-yet"),
        "{text}"
    );
}
