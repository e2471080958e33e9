//! The shipped course as the other parts read it: what module 10's checks read of the cluster,
//! and its quiz. Here, above `checks` and `quiz`, so neither imports the course for a test.

use super::Course;

/// A snapshot captures what the checks read: step 1 finds the app of apps through its child,
/// so it asks for every Application, and step 4's Job checks name their Jobs.
#[test]
fn module_10_declares_what_its_checks_read_of_the_cluster() {
    let course = Course::embedded().unwrap_or_else(|e| panic!("{e}"));
    let module = course.module("module-10").unwrap_or_else(|e| panic!("{e}"));
    let reads = |step: &str| {
        let step = module.step(step).unwrap_or_else(|e| panic!("{e}"));
        step.checks
            .iter()
            .map(|c| c.kind.cluster_reads())
            .collect::<Vec<_>>()
    };
    assert!(reads("step-1").iter().any(|r| r.every_app));
    assert!(reads("step-4").iter().any(|r| {
        r.jobs
            .contains(&("checkout-dev".into(), "checkout-migrate".into()))
    }));
    assert!(
        reads("step-4")
            .iter()
            .any(|r| !r.is_empty() && r.apps == ["checkout-dev"])
    );
}

#[test]
fn module_10_ships_three_questions_each_with_an_explanation_per_option() {
    let course = Course::embedded().expect("the course loads");
    let quiz = course
        .module("module-10")
        .expect("module 10")
        .quiz
        .as_ref()
        .expect("a quiz");
    assert_eq!(quiz.questions.len(), 3);
    for q in &quiz.questions {
        assert!(q.options.iter().all(|o| !o.why.is_empty()));
    }
}
