//! Rule `source-ref-unresolved`: a multi-source Application whose `$name/…` value file names no
//! `ref:` source, names a `ref:` source that also has a `chart:`, or whose ref names Argo CD
//! refuses. Argo CD's repo server fails before anything renders: the app shows a
//! `ComparisonError` and nothing of it is synced. Checked for every Application in the input
//! (the one the plan is for, those it applies, those read beside it), in Argo CD's words
//! (`crate::plan::refs`).

use crate::plan::refs::ref_error;
use crate::plan::{AppSettings, Object, Plan};
use crate::rules::{Finding, Rule, Severity};

/// The rule.
pub const RULE: Rule = Rule {
    id: "source-ref-unresolved",
    severity: Severity::Error,
    about: "a multi-source Application whose `$name/…` value file names no `ref:` source (or a `ref:` source with a chart), or whose ref names Argo CD refuses: nothing renders",
};

/// Every Application in the input, each once: the plan's own, those it applies, those read
/// beside it.
fn applications(plan: &Plan) -> Vec<&Object> {
    let is_app = |o: &&Object| o.group() == "argoproj.io" && o.kind == "Application";
    let mut found: Vec<&Object> = Vec::new();
    let all = plan
        .app
        .as_ref()
        .map(|a| &a.object)
        .into_iter()
        .chain(plan.objects.iter().filter(is_app))
        .chain(plan.context.iter().map(|(o, _)| o).filter(is_app));
    for app in all {
        if !found
            .iter()
            .any(|f| f.name == app.name && f.source == app.source)
        {
            found.push(app);
        }
    }
    found
}

/// Flag each Application whose refs Argo CD cannot resolve.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for object in applications(plan) {
        let Some(app) = AppSettings::of(object) else {
            continue;
        };
        let Some(error) = ref_error(&app) else {
            continue;
        };
        let which = error.source.map_or_else(
            || "its `ref` names".to_string(),
            |n| format!("source {n}'s value files"),
        );
        findings.push(RULE.found(
            object,
            format!(
                "Argo CD's repo server cannot resolve {which}: `{}`. The app renders nothing and syncs nothing; it shows the ComparisonError `{}`",
                error.message,
                error.condition(app.sources.len())
            ),
            "give every `$name/…` value file a source with `ref: name` (a git source with `repoURL` and `targetRevision`, no `chart:`), or write the file's path without `$name/`; ref names use letters, digits, `_` and `-` only, each once".to_string(),
        ));
    }
}
