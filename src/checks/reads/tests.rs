use crate::course::Course;

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
