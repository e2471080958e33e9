//! Rule `duplicate-resource`: the same object written twice. Argo CD applies only the last copy
//! and shows a `RepeatedResourceWarning` condition (`AC: controller/state.go`).

use crate::plan::Plan;
use crate::rules::{Finding, Rule, Severity};

/// The rule.
pub const RULE: Rule = Rule {
    id: "duplicate-resource",
    severity: Severity::Warning,
    about: "the same group/kind/namespace/name more than once (Argo CD keeps only the last)",
};

/// One finding per duplicated key, on the copy Argo CD keeps.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for duplicate in &plan.duplicates {
        let Some((kept, earlier)) = duplicate.sources.split_last() else {
            continue;
        };
        let object = duplicate.key.rsplit('/').next().unwrap_or("");
        let kind = duplicate.key.split('/').nth(1).unwrap_or("");
        findings.push(Finding {
            rule: RULE.id,
            severity: RULE.severity,
            object: format!("{kind}/{object}"),
            source: kept.to_string(),
            reason: format!(
                "{} Argo CD applies only the copy at {kept}; {} ignored, so an edit there has no effect",
                duplicate.message(),
                earlier
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
                    + if earlier.len() == 1 { " is" } else { " are" }
            ),
            fix: "keep one copy of the object (with Helm or Kustomize, check which templates or overlays both render it)".to_string(),
        });
    }
}
