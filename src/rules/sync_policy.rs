//! Rule `retry-with-migration`: an Application that retries failed syncs, next to a PreSync
//! migration.

use serde_yaml::Value;

use crate::plan::{Phase, Plan};
use crate::rules::{Finding, Rule, Severity, is_migration};

/// The rule.
pub const RETRY: Rule = Rule {
    id: "retry-with-migration",
    severity: Severity::Warning,
    about: "an Application with `syncPolicy.retry` while a PreSync hook migrates the database",
};

/// Flag Applications with a retry policy when the manifests hold a PreSync migration.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    let Some(migration) = plan
        .objects
        .iter()
        .find(|o| is_migration(o) && o.sync_phases().contains(&Phase::PreSync))
    else {
        return;
    };
    for app in plan
        .objects
        .iter()
        .filter(|o| o.group() == "argoproj.io" && o.kind == "Application")
    {
        let Some(retry) = app.get(&["spec", "syncPolicy", "retry"]) else {
            continue;
        };
        if retry.is_null() {
            continue;
        }
        let limit = retry.get("limit").and_then(Value::as_i64);
        if limit == Some(0) {
            continue;
        }
        findings.push(RETRY.found(
            app,
            format!(
                "{} retries a failed sync{}, and every retry runs the PreSync hook {} again. A MySQL migration that failed halfway stays half applied (MySQL cannot roll back DDL), and the retry runs on top of it",
                app.reference(),
                match limit {
                    Some(n) if n < 0 => " without limit".to_string(),
                    Some(n) => format!(" up to {n} times"),
                    None => String::new(),
                },
                migration.reference()
            ),
            "remove `spec.syncPolicy.retry`: fix a failed migration in git and let the next sync run it once".to_string(),
        ));
    }
}
