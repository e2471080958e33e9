//! Check kind `object`: a Kubernetes object exists (or is absent), and a field in it holds a
//! condition (equals, one_of, matches, ends_with, present, absent).

use serde::Deserialize;
use serde_json::Value;

use crate::checks::Context;
use crate::checks::cluster_common::could_not_check;
use crate::checks::condition::{PathCondition, ValueCondition};
use crate::checks::{ClusterReads, KindReads, LearnerNames, ObjectRead};
use crate::outcome::Outcome;
use crate::outcome::{Cause, CauseId};
use crate::probe::cluster::ApiPath;
use crate::probe::cluster::api::plural_of;
use crate::yaml::path::Segment;

/// Fields of an `object` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawObjectSpec")]
pub struct ObjectSpec {
    /// `apiVersion`: `apps/v1`, `v1`, `argoproj.io/v1alpha1`.
    pub api: String,
    pub kind: String,
    /// Omitted for cluster-scoped kinds.
    pub namespace: Option<String>,
    pub name: String,
    /// The URL plural, when the English rule from `kind` is wrong.
    pub resource: String,
    pub field: Option<PathCondition>,
    /// The object must not exist.
    pub absent: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawObjectSpec {
    api: String,
    kind: String,
    #[serde(default)]
    namespace: Option<String>,
    name: String,
    #[serde(default)]
    resource: Option<String>,
    #[serde(default)]
    field: Option<PathCondition>,
    #[serde(default)]
    absent: bool,
}

impl TryFrom<RawObjectSpec> for ObjectSpec {
    type Error = String;

    fn try_from(raw: RawObjectSpec) -> Result<Self, Self::Error> {
        if raw.absent && raw.field.is_some() {
            return Err(
                "`absent: true` says the object must not exist, so it cannot also have a `field`; to say a field is unset, write `field: {path: …, absent: true}`"
                    .to_string(),
            );
        }
        if raw.api.is_empty() || raw.api.split('/').count() > 2 {
            return Err(format!(
                "`api: {}` is not an apiVersion such as apps/v1 or v1",
                raw.api
            ));
        }
        let resource = raw.resource.unwrap_or_else(|| plural_of(&raw.kind));
        if let Some(field) = &raw.field
            && !raw.api.contains('/')
            && resource == "secrets"
        {
            refuse_secret_values(field)?;
        }
        Ok(ObjectSpec {
            resource,
            api: raw.api,
            kind: raw.kind,
            namespace: raw.namespace,
            name: raw.name,
            field: raw.field,
            absent: raw.absent,
        })
    }
}

/// labcheck never reads a Secret's values: under `data`/`stringData` a check may only ask whether
/// one key is `present` or `absent` (the values it would compare are blanked when read anyway).
fn refuse_secret_values(field: &PathCondition) -> Result<(), String> {
    let segments = field.path.segments();
    let under_values =
        matches!(segments.first(), Some(Segment::Key(k)) if k == "data" || k == "stringData");
    let key_existence = segments.len() == 2
        && matches!(
            field.condition,
            ValueCondition::Present | ValueCondition::Absent
        );
    if under_values && !key_existence {
        return Err(format!(
            "`field: {{path: {}}}` would read a Secret's values, and labcheck never reads Secret data; ask only whether a key exists: `field: {{path: data.KEY, present: true}}`",
            field.path
        ));
    }
    Ok(())
}

impl ObjectSpec {
    /// Work repos this check reads (none).
    pub fn repos(&self) -> Vec<&str> {
        Vec::new()
    }

    /// Where the object lives in the API.
    pub fn path(&self) -> ApiPath {
        let mut path = ApiPath::new(&self.api, &self.resource);
        if let Some(ns) = &self.namespace {
            path = path.in_namespace(ns);
        }
        path.named(&self.name)
    }

    fn who(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    fn kubectl(&self) -> String {
        let ns = self
            .namespace
            .as_deref()
            .map(|ns| format!("-n {ns} "))
            .unwrap_or_default();
        format!(
            "kubectl {ns}get {} {} -o yaml",
            self.kind.to_ascii_lowercase(),
            self.name
        )
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let crd = format!("the {} API ({} {})", self.api, self.kind, self.resource);
        match ctx.cluster.get(&self.path(), &crd).await {
            Ok(object) => self.decide(object.as_ref()),
            Err(e) => could_not_check(&e),
        }
    }

    /// The verdict from the object (or its absence).
    pub fn decide(&self, object: Option<&Value>) -> Outcome {
        let who = self.who();
        let Some(object) = object else {
            return if self.absent {
                Outcome::pass(format!("{who} does not exist"))
            } else {
                Outcome::fail(format!("{who} does not exist"))
                    .with_expected(format!("{who} in the cluster"))
                    .with_actual("not found")
                    .with_cause(Cause::about(
                        CauseId::ObjectMissing,
                        format!("{}/{}", self.kind, self.name),
                    ))
            };
        };
        if self.absent {
            return Outcome::fail(format!("{who} exists"))
                .with_cause(Cause::about(
                    CauseId::ObjectExists,
                    format!("{}/{}", self.kind, self.name),
                ))
                .with_expected("no such object")
                .with_actual("it exists");
        }
        let Some(field) = &self.field else {
            return Outcome::pass(format!("{who} exists"));
        };
        let path = field.path.to_string();
        let result = field.condition.test_json(field.path.lookup_json(object));
        if result.holds {
            return Outcome::pass(format!("{who}: {path} is {}", result.actual));
        }
        if let Some(why) = field.path.selector_miss(object) {
            return Outcome::fail(format!("{who}: `{path}` names nothing: {why}"))
                .with_expected(result.expected)
                .with_hint(format!("look at it: `{}`", self.kubectl()))
                .with_cause(Cause::new(CauseId::SelectorMiss));
        }
        let mut outcome = Outcome::fail(format!("{who}: {path} is {}", result.actual))
            .with_expected(result.expected)
            .with_actual(result.actual)
            .with_hint(format!("look at it: `{}`", self.kubectl()))
            .with_cause(Cause::about(
                CauseId::FieldMismatch,
                format!("{}/{}", self.kind, self.name),
            ));
        if let Some(note) = result.note {
            outcome = outcome.with_diagnosis(note);
        }
        outcome
    }
}

impl KindReads for ObjectSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads {
            objects: vec![ObjectRead {
                api: self.api.clone(),
                resource: self.resource.clone(),
                namespace: self.namespace.clone(),
                name: self.name.clone(),
            }],
            ..ClusterReads::none()
        }
    }

    fn rename_for_learner(&mut self, names: &mut dyn LearnerNames) {
        if let Some(namespace) = &mut self.namespace {
            names.namespace(namespace);
        }
    }

    fn can_fail(&self) -> crate::checks::can_fail::Causes {
        let causes = crate::checks::can_fail::Causes::new();
        let object = format!("{}/{}", self.kind, self.name);
        if self.absent {
            return causes.about(CauseId::ObjectExists, object, false);
        }
        let causes = causes.about(CauseId::ObjectMissing, object.clone(), false);
        match &self.field {
            Some(field) => {
                let causes = causes.about(CauseId::FieldMismatch, object, true);
                if field
                    .path
                    .segments()
                    .iter()
                    .any(|s| matches!(s, Segment::Select { .. }))
                {
                    causes.hinted(CauseId::SelectorMiss)
                } else {
                    causes
                }
            }
            None => causes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Status;
    use serde_json::json;

    fn spec(yaml: &str) -> ObjectSpec {
        crate::yaml::testing::parsed(yaml)
    }

    fn deployment(image: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "checkout", "namespace": "checkout-dev"},
            "spec": {"template": {"spec": {"containers": [{"name": "podinfo", "image": image}]}}}})
    }

    const IMAGE_CHECK: &str = "{api: apps/v1, kind: Deployment, namespace: checkout-dev, name: checkout, field: {path: 'spec.template.spec.containers[0].image', ends_with: ':6.7.1'}}";

    #[test]
    fn the_deployment_untouched_by_a_failed_presync_still_runs_6_7_1() {
        let outcome =
            spec(IMAGE_CHECK).decide(Some(&deployment("ghcr.io/stefanprodan/podinfo:6.7.1")));
        assert_eq!(outcome.status, Status::Pass, "{outcome:?}");
    }

    #[test]
    fn a_deployment_rolled_to_6_7_0_fails_with_both_values() {
        let outcome =
            spec(IMAGE_CHECK).decide(Some(&deployment("ghcr.io/stefanprodan/podinfo:6.7.0")));
        assert_eq!(outcome.status, Status::Fail);
        assert_eq!(
            outcome.actual.as_deref(),
            Some("\"ghcr.io/stefanprodan/podinfo:6.7.0\"")
        );
        assert!(
            outcome
                .expected
                .clone()
                .unwrap_or_default()
                .contains(":6.7.1")
        );
        outcome.assert_hint_names(&["kubectl -n checkout-dev get deployment checkout -o yaml"]);
    }

    #[test]
    fn the_health_key_in_argocd_cm_is_found_by_its_dotted_name() {
        let s = spec(
            r#"{api: v1, kind: ConfigMap, namespace: argocd, name: argocd-cm, field: {path: 'data["resource.customizations.health.argoproj.io_Application"]', present: true}}"#,
        );
        assert_eq!(
            s.path().url(),
            "/api/v1/namespaces/argocd/configmaps/argocd-cm"
        );
        let with =
            json!({"data": {"resource.customizations.health.argoproj.io_Application": "hs = {}"}});
        assert_eq!(s.decide(Some(&with)).status, Status::Pass);
        let without = json!({"data": {"ui.bannercontent": "x"}});
        assert_eq!(s.decide(Some(&without)).status, Status::Fail);
    }

    #[test]
    fn absent_passes_only_when_the_object_is_not_there() {
        let s = spec(
            "{api: batch/v1, kind: Job, namespace: checkout-dev, name: checkout-smoke-test, absent: true}",
        );
        assert_eq!(s.decide(None).status, Status::Pass);
        assert_eq!(s.decide(Some(&json!({}))).status, Status::Fail);
        let must_exist = spec("{api: batch/v1, kind: Job, namespace: checkout-dev, name: x}");
        assert_eq!(must_exist.decide(None).status, Status::Fail);
    }

    #[test]
    fn a_secret_check_may_ask_for_a_key_but_never_read_a_value() {
        let key = spec(
            "{api: v1, kind: Secret, namespace: checkout-dev, name: db, field: {path: data.password, present: true}}",
        );
        let secret = json!({"metadata": {"name": "db"}, "data": {"password": "c2VjcmV0"}});
        assert_eq!(key.decide(Some(&secret)).status, Status::Pass);
        for bad in [
            "{api: v1, kind: Secret, name: db, field: {path: data.password, equals: c2VjcmV0}}",
            "{api: v1, kind: Secret, name: db, field: {path: data.password, matches: '^c2'}}",
            "{api: v1, kind: Secret, name: db, field: {path: data, present: true}}",
            "{api: v1, kind: Secret, name: db, field: {path: 'stringData[\"x\"]', ends_with: x}}",
            "{api: v1, kind: Thing, resource: secrets, name: db, field: {path: data.x, equals: z}}",
        ] {
            let error = serde_yaml::from_str::<ObjectSpec>(bad)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(error.contains("never reads Secret data"), "{bad}: {error}");
        }
        // Labels of a Secret are not its data.
        spec(
            "{api: v1, kind: Secret, name: db, field: {path: metadata.labels.app, equals: checkout}}",
        );
    }

    #[test]
    fn absent_with_a_field_or_an_unknown_key_is_a_course_file_error() {
        for bad in [
            "{api: v1, kind: ConfigMap, name: x, absent: true, field: {path: data.x, present: true}}",
            "{api: v1, kind: ConfigMap, name: x, colour: red}",
            "{api: v1, kind: ConfigMap, name: x, field: {path: data.x}}",
        ] {
            assert!(serde_yaml::from_str::<ObjectSpec>(bad).is_err(), "{bad}");
        }
    }
}
