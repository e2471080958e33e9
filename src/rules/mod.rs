//! Manifest rules: what can go wrong with database migrations run as Argo CD hooks, found before
//! anything reaches a cluster. Each finding is data — rule, severity, object, reason, fix — and
//! reporters print it. One file per rule family.

pub mod api_refused;
#[cfg(test)]
mod api_refused_tests;
pub mod app_sources;
pub mod commands;
pub mod config_phase;
pub mod duplicates;
pub mod expand_contract;
pub mod hooks;
pub mod migration_job;
pub mod migration_phase;
pub mod shell;
pub mod sync_policy;
#[cfg(test)]
mod tests;
mod typed_read;
pub mod typos;
mod unknown_fields;
pub mod validation;
pub mod workers;

use crate::plan::{Object, Plan};

pub use crate::findings::{Finding, Severity};

/// A rule: its id, its severity, and one line saying what it looks for.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub about: &'static str,
}

/// Every rule, in the order reports list them.
pub const RULES: &[Rule] = &[
    app_sources::RULE,
    api_refused::REFUSED,
    api_refused::NOT_CHECKED,
    config_phase::RULE,
    migration_phase::RULE,
    migration_job::BACKOFF_LIMIT,
    migration_job::DEADLINE,
    migration_job::IMAGE_TAG,
    migration_job::DELETE_POLICY,
    commands::LARAVEL_FORCE,
    commands::LARAVEL_ISOLATED,
    commands::MAGENTO_KEEP_GENERATED,
    commands::MAGENTO_DB_STATUS,
    commands::UNPARSED,
    hooks::HELM_PRE_INSTALL,
    sync_policy::RETRY,
    hooks::UNKNOWN_HOOK,
    typos::DELETE_POLICY,
    typos::WAVE,
    typos::SYNC_OPTION,
    typos::APP_HOOK,
    workers::RULE,
    expand_contract::RULE,
    duplicates::RULE,
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// Run every rule over a plan; findings in plan order of their objects, warnings first per object.
pub fn check(plan: &Plan) -> Vec<Finding> {
    check_with_sources(plan, &[])
}

/// Every rule, with migration files given beside the manifests ((file as shown, text)) for
/// `expand-contract`.
pub fn check_with_sources(plan: &Plan, sources: &[(String, String)]) -> Vec<Finding> {
    let mut findings = Vec::new();
    app_sources::check(plan, &mut findings);
    api_refused::check(plan, &mut findings);
    duplicates::check(plan, &mut findings);
    config_phase::check(plan, &mut findings);
    migration_phase::check(plan, &mut findings);
    migration_job::check(plan, &mut findings);
    commands::check(plan, &mut findings);
    hooks::check(plan, &mut findings);
    typos::check(plan, &mut findings);
    sync_policy::check(plan, &mut findings);
    workers::check(plan, &mut findings);
    expand_contract::check(plan, sources, &mut findings);
    findings
}

impl Rule {
    /// A finding of this rule on `object`.
    pub(crate) fn found(&self, object: &Object, reason: String, fix: String) -> Finding {
        Finding {
            rule: self.id,
            severity: self.severity,
            object: object.reference(),
            source: object.source.to_string(),
            reason,
            fix,
        }
    }
}

/// The containers (and init containers) of a Pod template or a Pod.
pub(crate) fn containers(object: &Object) -> Vec<&serde_yaml::Value> {
    let spec = match object.kind.as_str() {
        "Pod" => object.get(&["spec"]),
        "CronJob" => object.get(&["spec", "jobTemplate", "spec", "template", "spec"]),
        _ => object.get(&["spec", "template", "spec"]),
    };
    let mut found = Vec::new();
    for key in ["initContainers", "containers"] {
        if let Some(serde_yaml::Value::Sequence(list)) = spec
            .and_then(|s| s.get(key))
            .map(crate::plan::object::untag)
        {
            found.extend(list.iter().map(crate::plan::object::untag));
        }
    }
    found
}

/// A container's command and args as one line (for rules that look for words, not commands).
pub(crate) fn command_line(container: &serde_yaml::Value) -> String {
    let found = shell::of_container(container);
    let mut parts: Vec<String> = found.run.iter().map(shell::RunCommand::line).collect();
    parts.extend(found.heredocs.iter().map(|h| h.body.clone()));
    parts.join("\n")
}

/// A Job that migrates a database: its name says so, or a container runs a migration command.
pub(crate) fn is_migration(object: &Object) -> bool {
    if !(object.kind == "Job" && object.group() == "batch") {
        return false;
    }
    let lower = object.name.to_ascii_lowercase();
    lower.contains("migrat")
        || commands::object_commands(object)
            .iter()
            .flat_map(|c| c.run.iter())
            .any(commands::is_migration_command)
}
