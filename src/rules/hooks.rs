//! Rules on hook annotations: Helm install hooks that run on every sync, and hook types Argo CD
//! does not know.

use std::sync::LazyLock;

use regex::Regex;

use crate::plan::Plan;
use crate::plan::object::{HELM_HOOK, HOOK};
use crate::rules::{Finding, Rule, Severity, command_line, containers};

/// `helm-pre-install-every-sync`
pub const HELM_PRE_INSTALL: Rule = Rule {
    id: "helm-pre-install-every-sync",
    severity: Severity::Note,
    about: "a Helm `pre-install` hook that looks like it must run only once (it runs on every sync)",
};

/// `hook-type-unknown`
pub const UNKNOWN_HOOK: Rule = Rule {
    id: "hook-type-unknown",
    severity: Severity::Warning,
    about: "a hook annotation with a type Argo CD does not know (the object never runs)",
};

static ONCE_ONLY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)create\s+(database|schema|user|role)\b|\bcreatedb\b|\bdb:create\b|\bdb:setup\b",
    )
    .ok()
});
static IDEMPOTENT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)if\s+not\s+exists").ok());

/// Check hook annotations.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for object in &plan.objects {
        let words = object.unknown_hook_words();
        if !words.is_empty() {
            findings.push(UNKNOWN_HOOK.found(
                object,
                format!(
                    "{} names hook type {}, which Argo CD does not know{}",
                    object.reference(),
                    words.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", "),
                    if object.sync_phases().is_empty() && object.deletion_hooks().is_empty() {
                        ": it is a hook without a phase and is never applied"
                    } else {
                        " (ignored)"
                    }
                ),
                "use PreSync, Sync, PostSync, SyncFail, Skip, PreDelete or PostDelete (with `argocd.argoproj.io/hook`), or pre-install, pre-upgrade, post-install, post-upgrade, pre-delete, post-delete (with `helm.sh/hook`); case matters".to_string(),
            ));
        }
        let pre_install = object
            .annotation(HELM_HOOK)
            .is_some_and(|v| v.split(',').any(|w| w.trim() == "pre-install"));
        // An Argo CD hook annotation with a valid type replaces the Helm one.
        let helm_decides = object.annotation(HOOK).is_none_or(|v| {
            v.split(',').all(|w| {
                !matches!(
                    w.trim(),
                    "PreSync" | "Sync" | "PostSync" | "SyncFail" | "Skip"
                )
            })
        });
        if !(pre_install && helm_decides) {
            continue;
        }
        let once_only = containers(object)
            .iter()
            .map(|c| command_line(c))
            .any(|line| {
                ONCE_ONLY.as_ref().is_some_and(|r| r.is_match(&line))
                    && !IDEMPOTENT.as_ref().is_some_and(|r| r.is_match(&line))
            });
        if once_only {
            findings.push(HELM_PRE_INSTALL.found(
                object,
                format!(
                    "{} is a Helm `pre-install` hook that creates something (a database, schema or user). Argo CD only renders the chart and cannot tell an install from an upgrade: it runs pre-install hooks as PreSync on every sync",
                    object.reference()
                ),
                "make it safe to run again (`CREATE DATABASE IF NOT EXISTS …`), or create the database once outside the app's sync".to_string(),
            ));
        }
    }
}
