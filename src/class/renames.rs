//! A learner's names on a shared cluster (`--learners` with `--namespace-template`,
//! `--app-template`): rather than teach every cluster check kind about renaming, each learner gets
//! a copy of the step whose checks name that learner's namespaces and Applications. Summaries then
//! show the learner's real names; `hint:` texts of check files stay as written.

use std::collections::BTreeSet;

use crate::checks::CheckKind;
use crate::course::Step;
use crate::error::Error;

/// A template with `{learner}` and a placeholder for the name it replaces (`{namespace}`, `{app}`).
#[derive(Debug, Clone, Default)]
pub struct Renames {
    pub namespace: Option<String>,
    pub app: Option<String>,
}

/// `name` through `template`: `{learner}` becomes the learner, `slot` the course's name; a
/// template without `slot` stands for the whole name.
fn rename(template: Option<&str>, slot: &str, learner: &str, name: &str) -> String {
    match template {
        Some(t) => t.replace("{learner}", learner).replace(slot, name),
        None => name.to_string(),
    }
}

/// The namespaces a step's cluster checks name (Argo CD's excluded), sorted.
pub fn namespaces(steps: &[&Step], argocd_namespace: &str) -> BTreeSet<String> {
    steps
        .iter()
        .flat_map(|s| &s.checks)
        .flat_map(|check| {
            let reads = check.kind.cluster_reads();
            reads
                .namespaces()
                .filter(|n| *n != argocd_namespace)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The Applications a step's checks read, sorted.
pub fn applications(steps: &[&Step]) -> BTreeSet<String> {
    steps
        .iter()
        .flat_map(|s| &s.checks)
        .flat_map(|check| check.kind.cluster_reads().apps)
        .collect()
}

/// Renames a check's names through a learner's templates and remembers each change as
/// (placeholder slot, course name, learner's name).
struct Renaming<'a> {
    learner: &'a str,
    renames: &'a Renames,
    argocd_ns: &'a str,
    changed: Vec<(&'static str, String, String)>,
}

impl Renaming<'_> {
    fn apply(&mut self, slot: &'static str, template: Option<&str>, name: &mut String) {
        let renamed = rename(template, slot, self.learner, name);
        if renamed != *name {
            self.changed.push((slot, name.clone(), renamed.clone()));
            *name = renamed;
        }
    }
}

impl crate::checks::LearnerNames for Renaming<'_> {
    fn namespace(&mut self, namespace: &mut String) {
        // Argo CD's own namespace is shared by the whole class.
        if namespace != self.argocd_ns {
            let template = self.renames.namespace.clone();
            self.apply("{namespace}", template.as_deref(), namespace);
        }
    }

    fn app(&mut self, app: &mut String) {
        let template = self.renames.app.clone();
        self.apply("{app}", template.as_deref(), app);
    }
}

/// Check a `--namespace-template`/`--app-template`: it needs `{learner}`, and without the name
/// placeholder it can only stand for one name.
pub fn check_template(
    flag: &str,
    template: &str,
    slot: &str,
    names: &BTreeSet<String>,
) -> Result<(), Error> {
    if !template.contains("{learner}") {
        return Err(Error::Usage(format!(
            "{flag} `{template}` has no {{learner}}: every learner would get the same names (e.g. '{{learner}}-{}')",
            &slot[1..slot.len() - 1]
        )));
    }
    if !template.contains(slot) && names.len() > 1 {
        return Err(Error::Usage(format!(
            "{flag} `{template}` names one {}, but the step reads {}: write {slot} where the course's name goes, e.g. '{{learner}}-{slot}'",
            &slot[1..slot.len() - 1],
            names.iter().cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// `step` as `learner` sees it: namespaces and Application names through the templates. Without
/// `{namespace}` (`{app}`) a template replaces every name, which [`check_template`] allows only
/// when the step names one.
pub fn for_learner(step: &Step, learner: &str, renames: &Renames, argocd_ns: &str) -> Step {
    let mut renaming = Renaming {
        learner,
        renames,
        argocd_ns,
        changed: Vec::new(),
    };
    let mut step = step.clone();
    for check in &mut step.checks {
        check.kind.rename_for_learner(&mut renaming);
    }
    step
}

/// The names [`for_learner`] changes in `course` for `env`.
pub(super) fn renamed(
    course: &CheckKind,
    learner: &str,
    renames: &Renames,
    argocd_ns: &str,
) -> Vec<(&'static str, String, String)> {
    let mut renaming = Renaming {
        learner,
        renames,
        argocd_ns,
        changed: Vec::new(),
    };
    course.clone().rename_for_learner(&mut renaming);
    renaming.changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::Course;

    fn step_4_for(template: &str, app: Option<&str>) -> Step {
        let course = Course::embedded().expect("the built-in course loads");
        let module = course.module("module-10").expect("module 10");
        let step = module.step("step-4").expect("step 4");
        let renames = Renames {
            namespace: Some(template.to_string()),
            app: app.map(str::to_string),
        };
        for_learner(step, "alice", &renames, "argocd")
    }

    /// What the step's checks read of the cluster, by name: `ns` of an object, `Job ns/name`,
    /// `app NAME` of an Application (through each kind's own declaration).
    fn names(step: &Step) -> std::collections::BTreeSet<String> {
        let mut names = std::collections::BTreeSet::new();
        for check in &step.checks {
            let reads = check.kind.cluster_reads();
            names.extend(reads.objects.iter().filter_map(|o| o.namespace.clone()));
            names.extend(
                reads
                    .jobs
                    .iter()
                    .map(|(ns, name)| format!("Job {ns}/{name}")),
            );
            names.extend(reads.apps.iter().map(|app| format!("app {app}")));
        }
        names
    }

    #[test]
    fn a_learner_reads_their_own_namespace_and_the_shared_application_by_default() {
        let step = step_4_for("{learner}-checkout-dev", None);
        assert_eq!(
            names(&step),
            [
                "Job alice-checkout-dev/checkout-migrate",
                "Job alice-checkout-dev/checkout-sync-failed",
                "alice-checkout-dev",
                "app checkout-dev",
            ]
            .map(String::from)
            .into()
        );
    }

    #[test]
    fn templates_with_the_course_name_rename_namespaces_and_applications() {
        let step = step_4_for("{learner}-{namespace}", Some("{learner}-{app}"));
        assert_eq!(
            names(&step),
            [
                "Job alice-checkout-dev/checkout-migrate",
                "Job alice-checkout-dev/checkout-sync-failed",
                "alice-checkout-dev",
                "app alice-checkout-dev",
            ]
            .map(String::from)
            .into()
        );
    }
}
