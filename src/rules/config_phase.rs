//! Rule `presync-config-in-sync-phase`: a PreSync hook reads a ConfigMap or Secret that Argo CD
//! applies only later (in the Sync phase, or a later PreSync wave).

use serde_yaml::Value;

use crate::plan::object::untag;
use crate::plan::{Object, Phase, Plan};
use crate::rules::{Finding, Rule, Severity};

/// The rule.
pub const RULE: Rule = Rule {
    id: "presync-config-in-sync-phase",
    severity: Severity::Warning,
    about: "a PreSync hook reads a ConfigMap or Secret that is applied after it",
};

/// Why a PreSync hook's pod waits in `CreateContainerConfigError`, in a sentence the live
/// diagnosis shares with this rule.
pub const WHY_STUCK: &str = "A PreSync hook runs before anything of the Sync phase is applied, so a ConfigMap or Secret in the Sync phase (even in wave -1) does not exist yet on a first install";

/// How to fix it, shared with the live diagnosis.
pub const FIX: &str = "make the ConfigMap/Secret a PreSync hook too, in a lower wave than the Job; or run the migration as a plain Job in the Sync phase, in a wave after the config and before the Deployments, with a name per release or `argocd.argoproj.io/sync-options: Replace=true` (a Job cannot be changed in place)";

/// A ConfigMap or Secret a pod template reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigRef {
    pub(crate) kind: &'static str,
    pub(crate) name: String,
}

fn push_ref(refs: &mut Vec<ConfigRef>, kind: &'static str, holder: Option<&Value>, key: &str) {
    let Some(holder) = holder.map(untag) else {
        return;
    };
    let optional = holder
        .get("optional")
        .map(untag)
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(name) = holder.get(key).map(untag).and_then(Value::as_str)
        && !optional
    {
        let found = ConfigRef {
            kind,
            name: name.to_string(),
        };
        if !refs.contains(&found) {
            refs.push(found);
        }
    }
}

fn list(value: Option<&Value>) -> &[Value] {
    match value.map(untag) {
        Some(Value::Sequence(items)) => items,
        _ => &[],
    }
}

/// Every ConfigMap and Secret the object's pods need to start (envFrom, env valueFrom, volumes).
pub(crate) fn config_refs(object: &Object) -> Vec<ConfigRef> {
    let mut refs = Vec::new();
    for container in super::containers(object) {
        for from in list(container.get("envFrom")) {
            push_ref(&mut refs, "ConfigMap", from.get("configMapRef"), "name");
            push_ref(&mut refs, "Secret", from.get("secretRef"), "name");
        }
        for env in list(container.get("env")) {
            let value_from = env.get("valueFrom").map(untag);
            push_ref(
                &mut refs,
                "ConfigMap",
                value_from.and_then(|v| v.get("configMapKeyRef")),
                "name",
            );
            push_ref(
                &mut refs,
                "Secret",
                value_from.and_then(|v| v.get("secretKeyRef")),
                "name",
            );
        }
    }
    let spec = match object.kind.as_str() {
        "Pod" => object.get(&["spec"]),
        _ => object.get(&["spec", "template", "spec"]),
    };
    for volume in list(spec.and_then(|s| s.get("volumes"))) {
        push_ref(&mut refs, "ConfigMap", volume.get("configMap"), "name");
        push_ref(&mut refs, "Secret", volume.get("secret"), "secretName");
        let projected = volume.get("projected").map(untag);
        for source in list(projected.and_then(|p| p.get("sources"))) {
            push_ref(&mut refs, "ConfigMap", source.get("configMap"), "name");
            push_ref(&mut refs, "Secret", source.get("secret"), "name");
        }
    }
    refs
}

/// Whether `object` makes the ConfigMap/Secret `wanted`: the object itself, or an operator's
/// resource that produces the Secret (ExternalSecret, SealedSecret).
pub(crate) fn provides(object: &Object, wanted: &ConfigRef) -> bool {
    if object.kind == wanted.kind && object.name == wanted.name {
        return true;
    }
    if wanted.kind != "Secret" {
        return false;
    }
    match (object.group(), object.kind.as_str()) {
        ("external-secrets.io", "ExternalSecret") => {
            let target = object
                .get(&["spec", "target", "name"])
                .and_then(Value::as_str)
                .unwrap_or(&object.name);
            target == wanted.name
        }
        ("bitnami.com", "SealedSecret") => object.name == wanted.name,
        _ => false,
    }
}

/// Find PreSync hooks whose config is applied in a later step, or in the same step but by an
/// operator (the Secret appears only after the operator reconciles).
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for (step_index, step) in plan.steps.iter().enumerate() {
        for task in step
            .tasks
            .iter()
            .filter(|t| t.hook && t.phase == Phase::PreSync)
        {
            let job = plan.object(task);
            for wanted in config_refs(job) {
                let provider = plan.steps.iter().enumerate().find_map(|(i, s)| {
                    s.tasks
                        .iter()
                        .filter(|t| !t.prune)
                        .map(|t| (i, s, plan.object(t)))
                        .find(|(_, _, o)| {
                            provides(o, &wanted)
                                && (o.namespace.is_empty()
                                    || job.namespace.is_empty()
                                    || o.namespace == job.namespace)
                        })
                });
                let Some((provider_step, s, provider)) = provider else {
                    continue;
                };
                let by_operator = provider.kind != wanted.kind;
                if provider_step < step_index || (provider_step == step_index && !by_operator) {
                    continue;
                }
                let when = format!("{} wave {}", s.phase, s.wave);
                let made = if by_operator {
                    format!(
                        "Secret/{}, which {} creates (applied in {when}; the Secret appears only once its operator has reconciled it)",
                        wanted.name,
                        provider.reference()
                    )
                } else {
                    format!("{}, which Argo CD applies in {when}", provider.reference())
                };
                findings.push(RULE.found(
                    job,
                    format!(
                        "{} runs in PreSync wave {} and reads {made}. {WHY_STUCK}: its pod waits in CreateContainerConfigError and the sync hangs in PreSync. On later syncs it runs with the previous version of the config.",
                        job.reference(),
                        step.wave
                    ),
                    format!("for {}: {FIX}", provider.reference()),
                ));
            }
        }
    }
}
