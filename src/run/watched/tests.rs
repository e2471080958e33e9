use super::*;
use crate::course::Course;
use crate::run::Recall;

fn picked(passed: &[&str], step: Option<&str>, recheck: bool) -> Option<String> {
    let course = Course::embedded().expect("the built-in course");
    let module = course.module("module-10").expect("module 10");
    // What the learner's progress recalls of steps it saw pass (`progress` hands it over).
    let recall = Recall {
        seen_passed: passed
            .iter()
            .map(|s| (s.to_string(), "1970-01-01".to_string()))
            .collect(),
        ..Recall::default()
    };
    pick(module, step, &recall, recheck)
        .expect("a known step")
        .map(|s| s.name.clone())
}

#[test]
fn watch_picks_the_step_next_and_status_name_skipping_one_a_later_pass_replaced() {
    // Step 4's failed sync is gone once step 5 passed: watching it could never end.
    let done = ["step-1", "step-2", "step-3", "step-5"];
    assert_eq!(
        picked(&done, None, false).as_deref(),
        Some("break-it/break")
    );
    // Named, it is watched all the same; --recheck starts from the first step.
    assert_eq!(
        picked(&done, Some("step-4"), false).as_deref(),
        Some("step-4")
    );
    assert_eq!(picked(&done, None, true).as_deref(), Some("step-1"));
    assert_eq!(picked(&[], None, false).as_deref(), Some("step-1"));
}

#[test]
fn watch_on_an_exercise_picks_its_first_stage_not_passed() {
    assert_eq!(
        picked(&["break-it/break"], Some("break-it"), false).as_deref(),
        Some("break-it/fix")
    );
}
