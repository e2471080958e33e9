//! Rules `api-server-refuses` and `fields-not-checked`: an object with a field of the wrong type
//! or shape for its kind (`backoffLimit: "0"`, `containers` written as a map, a label whose value
//! is a number) is refused by the API server when Argo CD applies it, so the sync fails at that
//! object, and a hook refused so never runs.
//!
//! What is refused is found by reading the object as the API server reads it
//! (`typed_read`): the JSON Argo CD sends (the YAML read as `sigs.k8s.io/yaml` reads it, numbers
//! that are whole as integers, as Go marshals them) decoded into the kind's typed struct. The
//! words: the API server's `<Kind> in version "<v>" cannot be handled as a <Kind>: <decode
//! error>` (`k8s.io/apiserver pkg/endpoints/handlers/rest.go:252`); Argo CD's apply strips
//! kubectl's `error when creating "<file>": ` (`gitops-engine pkg/utils/kube/kube.go:223-239`)
//! and ends the operation `one or more objects failed to apply, reason: <that>` (facts §1). Argo
//! CD's dry run is a client dry run (`sync_context.go:1436-1442`) that leaves field validation to
//! the server, so it does not catch this: the steps before the object's are applied first.

use k8s_openapi::api;
use serde_json::Value as Json;
use serde_yaml::Value;

use super::typed_read::{Unreadable, unreadable};
use crate::plan::object::untag;
use crate::plan::{Object, Plan};
use crate::rules::{Finding, Rule, Severity};

/// The rule for a field the API server cannot read.
pub const REFUSED: Rule = Rule {
    id: "api-server-refuses",
    severity: Severity::Error,
    about: "a field of the wrong type or shape for its kind (`backoffLimit: \"0\"`, `containers` as a map, a label that is a number): the API server refuses the object and the sync fails there; a hook refused so never runs",
};

/// The note for a built-in kind whose fields labcheck does not read.
pub const NOT_CHECKED: Rule = Rule {
    id: "fields-not-checked",
    severity: Severity::Note,
    about: "a Kubernetes kind and apiVersion whose fields labcheck does not check (an old or unknown apiVersion, or a kind it has no type for)",
};

type Reader = fn(&Json) -> Vec<Unreadable>;

/// The kinds read, by `apiVersion` and `kind`: k8s-openapi's types for Kubernetes 1.33.
const KINDS: &[(&str, &str, Reader)] = &[
    ("v1", "ConfigMap", unreadable::<api::core::v1::ConfigMap>),
    ("v1", "Secret", unreadable::<api::core::v1::Secret>),
    ("v1", "Service", unreadable::<api::core::v1::Service>),
    ("v1", "Pod", unreadable::<api::core::v1::Pod>),
    (
        "v1",
        "ServiceAccount",
        unreadable::<api::core::v1::ServiceAccount>,
    ),
    (
        "v1",
        "PersistentVolumeClaim",
        unreadable::<api::core::v1::PersistentVolumeClaim>,
    ),
    ("v1", "Namespace", unreadable::<api::core::v1::Namespace>),
    ("v1", "LimitRange", unreadable::<api::core::v1::LimitRange>),
    (
        "v1",
        "ResourceQuota",
        unreadable::<api::core::v1::ResourceQuota>,
    ),
    ("batch/v1", "Job", unreadable::<api::batch::v1::Job>),
    ("batch/v1", "CronJob", unreadable::<api::batch::v1::CronJob>),
    (
        "apps/v1",
        "Deployment",
        unreadable::<api::apps::v1::Deployment>,
    ),
    (
        "apps/v1",
        "StatefulSet",
        unreadable::<api::apps::v1::StatefulSet>,
    ),
    (
        "apps/v1",
        "DaemonSet",
        unreadable::<api::apps::v1::DaemonSet>,
    ),
    (
        "apps/v1",
        "ReplicaSet",
        unreadable::<api::apps::v1::ReplicaSet>,
    ),
    (
        "networking.k8s.io/v1",
        "Ingress",
        unreadable::<api::networking::v1::Ingress>,
    ),
    (
        "networking.k8s.io/v1",
        "NetworkPolicy",
        unreadable::<api::networking::v1::NetworkPolicy>,
    ),
    (
        "policy/v1",
        "PodDisruptionBudget",
        unreadable::<api::policy::v1::PodDisruptionBudget>,
    ),
    (
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        unreadable::<api::autoscaling::v2::HorizontalPodAutoscaler>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "Role",
        unreadable::<api::rbac::v1::Role>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        unreadable::<api::rbac::v1::RoleBinding>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        unreadable::<api::rbac::v1::ClusterRole>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding",
        unreadable::<api::rbac::v1::ClusterRoleBinding>,
    ),
];

/// Kubernetes' own API groups: a kind in one of them that is not in `KINDS` is named as not
/// checked (a custom resource's fields are its CRD's business, and are passed over).
const BUILT_IN_GROUPS: &[&str] = &[
    "",
    "apps",
    "batch",
    "networking.k8s.io",
    "policy",
    "autoscaling",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "node.k8s.io",
    "extensions",
];

/// The object as the JSON Argo CD sends: keys as text, whole numbers as integers (Go marshals a
/// float64 with no fraction as an integer), YAML tags dropped.
pub fn as_sent(value: &Value) -> Json {
    match untag(value) {
        Value::Null | Value::Tagged(_) => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Json::from(i)
            } else if let Some(u) = n.as_u64() {
                Json::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.fract() == 0.0 && f.abs() < 9.0e15 {
                    #[expect(clippy::cast_possible_truncation, reason = "whole and within range")]
                    Json::from(f as i64)
                } else {
                    serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number)
                }
            }
        }
        Value::String(s) => Json::String(s.clone()),
        Value::Sequence(list) => Json::Array(list.iter().map(as_sent).collect()),
        Value::Mapping(map) => Json::Object(
            map.iter()
                .map(|(k, v)| {
                    let key = match untag(k) {
                        Value::String(s) => s.clone(),
                        other => serde_yaml::to_string(other)
                            .map(|t| t.trim_end().to_string())
                            .unwrap_or_default(),
                    };
                    (key, as_sent(v))
                })
                .collect(),
        ),
    }
}

/// Flag every object the API server would refuse, and name the built-in kinds not checked.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for object in plan.applied_objects() {
        let known = KINDS
            .iter()
            .find(|(v, k, _)| *v == object.api_version && *k == object.kind);
        let Some((_, _, read)) = known else {
            if BUILT_IN_GROUPS.contains(&object.group()) {
                findings.push(NOT_CHECKED.found(
                    object,
                    format!(
                        "labcheck does not know the fields of `{}` `{}`, so it did not check that the API server can read them",
                        object.api_version, object.kind
                    ),
                    "check the apiVersion against `kubectl api-resources`; Argo CD applies the object as written".to_string(),
                ));
            }
            continue;
        };
        let found = read(&as_sent(&object.body));
        if let Some(first) = found.first() {
            findings.push(refused(object, first, &found[1..]));
        }
    }
}

/// Go's word for what is written, as a person says it.
fn plain(found: &str) -> String {
    match found.split_once(' ').map_or(found, |(word, _)| word) {
        "string" => "a string".to_string(),
        "number" => "a number".to_string(),
        "bool" => "a boolean".to_string(),
        "object" => "a map".to_string(),
        "array" => "a list".to_string(),
        other => other.to_string(),
    }
}

fn refused(object: &Object, first: &Unreadable, more: &[Unreadable]) -> Finding {
    let version = object
        .api_version
        .rsplit_once('/')
        .map_or(object.api_version.as_str(), |(_, v)| v);
    let said = match first.go_message() {
        Some(go) => format!(
            "the API server refuses it: `{kind} in version \"{version}\" cannot be handled as a {kind}: {go}`",
            kind = object.kind
        ),
        None => format!(
            "the API server refuses it: its reader for {} takes no {}",
            first.needs,
            plain(&first.found)
        ),
    };
    let hook = match (object.is_hook(), object.kind.as_str()) {
        (false, _) => "",
        (true, "Job" | "Pod") => " It is a hook, so it never runs.",
        (true, _) => " It is a hook, so it is never created.",
    };
    let others = if more.is_empty() {
        String::new()
    } else {
        format!(
            " It would then refuse {} too.",
            more.iter()
                .map(|u| format!("`{}` ({})", u.path, plain(&u.found)))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let needs = |u: &Unreadable| {
        let how = match u.go_type.as_deref() {
            Some("int32" | "int64" | "float64") => "a number, unquoted".to_string(),
            Some("string") => "text, quoted if it reads as a number or `yes`/`no`".to_string(),
            Some("bool") => "`true` or `false`, unquoted".to_string(),
            Some(list) if list.starts_with("[]") => "a list (`- item` lines)".to_string(),
            Some(_) => "a map (`key: value` lines)".to_string(),
            None => u.needs.clone(),
        };
        format!("`{}` as {how}", u.path)
    };
    let fix: Vec<String> = std::iter::once(first).chain(more).map(needs).collect();
    REFUSED.found(
        object,
        format!(
            "`{}` is {} where {} reads {}: {said}. Argo CD applies the steps before it, then the sync fails at it: `one or more objects failed to apply, reason: …`.{hook}{others}",
            first.path,
            plain(&first.found),
            object.kind,
            first.go_type.clone().unwrap_or_else(|| first.needs.clone())
        ),
        format!("write {}", fix.join("; ")),
    )
}
