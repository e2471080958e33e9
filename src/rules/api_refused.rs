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
//!
//! The server reads in three stages and refuses at the first that finds something: decoding (the
//! above), strict decoding (a key the kind has no field for: Argo CD applies with
//! `FieldValidationStrict` unless `Validate=false`, gitops-engine `resource_ops.go`
//! `newApplyOptions`; the words are `runtime.NewStrictDecodingError`'s, `strict decoding error:
//! unknown field "<path>", …`, inside the same "cannot be handled as" sentence), and validation
//! (`rules::validation`: `<Kind>.<group> "<name>" is invalid: <field errors>`, 422).

use k8s_openapi::api;
use serde_json::Value as Json;
use serde_yaml::Value;

use super::typed_read::{TypedRead, Unreadable, read};
use super::{unknown_fields, validation};
use crate::plan::object::untag;
use crate::plan::{Object, Plan};
use crate::rules::{Finding, Rule, Severity};

/// The rule for a field the API server cannot read.
pub const REFUSED: Rule = Rule {
    id: "api-server-refuses",
    severity: Severity::Error,
    about: "a field of the wrong type or shape for its kind (`backoffLimit: \"0\"`, `containers` as a map, a label that is a number), a field its kind does not have (`backoffLimitt`, unless `Validate=false`), or a value validation refuses (a Job without `restartPolicy: Never`, a container without `image`): the API server refuses the object and the sync fails there; a hook refused so never runs",
};

/// The note for a built-in kind whose fields labcheck does not read.
pub const NOT_CHECKED: Rule = Rule {
    id: "fields-not-checked",
    severity: Severity::Note,
    about: "a Kubernetes kind and apiVersion whose fields labcheck does not check (an old or unknown apiVersion, or a kind it has no type for)",
};

type Reader = fn(&Json) -> TypedRead;

/// The kinds read, by `apiVersion` and `kind`: k8s-openapi's types for Kubernetes 1.33.
const KINDS: &[(&str, &str, Reader)] = &[
    ("v1", "ConfigMap", read::<api::core::v1::ConfigMap>),
    ("v1", "Secret", read::<api::core::v1::Secret>),
    ("v1", "Service", read::<api::core::v1::Service>),
    ("v1", "Pod", read::<api::core::v1::Pod>),
    (
        "v1",
        "ServiceAccount",
        read::<api::core::v1::ServiceAccount>,
    ),
    (
        "v1",
        "PersistentVolumeClaim",
        read::<api::core::v1::PersistentVolumeClaim>,
    ),
    ("v1", "Namespace", read::<api::core::v1::Namespace>),
    ("v1", "LimitRange", read::<api::core::v1::LimitRange>),
    ("v1", "ResourceQuota", read::<api::core::v1::ResourceQuota>),
    ("batch/v1", "Job", read::<api::batch::v1::Job>),
    ("batch/v1", "CronJob", read::<api::batch::v1::CronJob>),
    ("apps/v1", "Deployment", read::<api::apps::v1::Deployment>),
    ("apps/v1", "StatefulSet", read::<api::apps::v1::StatefulSet>),
    ("apps/v1", "DaemonSet", read::<api::apps::v1::DaemonSet>),
    ("apps/v1", "ReplicaSet", read::<api::apps::v1::ReplicaSet>),
    (
        "networking.k8s.io/v1",
        "Ingress",
        read::<api::networking::v1::Ingress>,
    ),
    (
        "networking.k8s.io/v1",
        "NetworkPolicy",
        read::<api::networking::v1::NetworkPolicy>,
    ),
    (
        "policy/v1",
        "PodDisruptionBudget",
        read::<api::policy::v1::PodDisruptionBudget>,
    ),
    (
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        read::<api::autoscaling::v2::HorizontalPodAutoscaler>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "Role",
        read::<api::rbac::v1::Role>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        read::<api::rbac::v1::RoleBinding>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        read::<api::rbac::v1::ClusterRole>,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding",
        read::<api::rbac::v1::ClusterRoleBinding>,
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
        // The server's stages, in its order: decoding (a field of the wrong type), strict
        // decoding (a field the kind does not have), then validation. It refuses the object at
        // the first stage that finds something, so one finding per object.
        let sent = as_sent(&object.body);
        let found = read(&sent);
        if let Some(first) = found.unreadable.first() {
            findings.push(refused(object, first, &found.unreadable[1..]));
            continue;
        }
        let invalid = validation::invalid(&object.kind, &sent);
        // `Validate=false` (the Application's or the object's) applies without field
        // validation: the server drops unknown fields then (gitops-engine `resource_ops.go`
        // `newApplyOptions`: `FieldValidationIgnore` unless `validate`), unless server-side.
        // Under server-side apply the server refuses them even with `fieldValidation=Ignore`:
        // the typed patch cannot hold them (measured on kube-apiserver v1.37.2).
        let in_force = plan.in_force(object);
        let ssa = in_force.server_side_apply.is_some();
        if (in_force.no_validate.is_none() || ssa) && !found.unknown.is_empty() {
            findings.push(unknown(object, &sent, ssa, &found.unknown, &invalid));
            continue;
        }
        if !invalid.is_empty() {
            findings.push(not_valid(object, &invalid));
        }
    }
}

/// `Job`, `Deployment.apps`: the kind as the API server names it in "is invalid".
fn qualified_kind(object: &Object) -> String {
    match object.group() {
        "" => object.kind.clone(),
        group => format!("{}.{group}", object.kind),
    }
}

/// What a hook refused never does.
fn hook_note(object: &Object) -> &'static str {
    match (object.is_hook(), object.kind.as_str()) {
        (false, _) => "",
        (true, "Job" | "Pod") => " It is a hook, so it never runs.",
        (true, _) => " It is a hook, so it is never created.",
    }
}

const SYNC_FAILS: &str = "Argo CD applies the steps before it, then the sync fails at it: `one or more objects failed to apply, reason: …`.";

/// Fields the kind does not have, refused by strict field validation, which Argo CD asks for.
fn unknown(
    object: &Object,
    sent: &Json,
    ssa: bool,
    paths: &[String],
    invalid: &[validation::Invalid],
) -> Finding {
    let (reason, fix) = unknown_fields::reason_and_fix(object, sent, ssa, paths);
    REFUSED.found(
        object,
        format!("{reason} {SYNC_FAILS}{}", hook_note(object)) + &unknown_fields::then(invalid),
        fix,
    )
}

/// Fields validation refuses: the server answers 422 with every one of them.
fn not_valid(object: &Object, invalid: &[validation::Invalid]) -> Finding {
    let errors: Vec<String> = invalid.iter().map(validation::Invalid::error).collect();
    // `field.ErrorList.ToAggregate()`: one error as it is, several in brackets.
    let all = match errors.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    let fix: Vec<String> = invalid.iter().map(fix_for).collect();
    REFUSED.found(
        object,
        format!(
            "the API server's validation refuses it: `{} {:?} is invalid: {all}`. {SYNC_FAILS}{}",
            qualified_kind(object),
            object.name,
            hook_note(object),
        ),
        fix.join("; "),
    )
}

fn fix_for(invalid: &validation::Invalid) -> String {
    let field = invalid.path.rsplit('.').next().unwrap_or_default();
    match field {
        "restartPolicy" => format!("set `{}: Never` (or `OnFailure`)", invalid.path),
        _ if field.starts_with("containers") || field.starts_with("initContainers") => {
            format!("give `{}` at least one container", invalid.path)
        }
        _ => format!("set `{}`", invalid.path),
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
    let hook = hook_note(object);
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
