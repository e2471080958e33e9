//! Checks on a parsed snapshot that serde cannot make. Each message names the place
//! (`objects[2]`, `timeline[0].deleted[1]`) and says what to write instead.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::Value;

use super::state::{ClusterState, LogKey, ObjectKey};
use super::{FORMAT, ResourceTable, Snapshot};

pub(super) fn snapshot(snapshot: &Snapshot) -> Result<(), String> {
    if snapshot.format != FORMAT {
        return Err(format!(
            "has `format: {}`, but this labcheck reads `format: {FORMAT}`",
            snapshot.format
        ));
    }
    let table = snapshot.resource_table();
    objects("objects", &snapshot.objects, &table)?;
    logs("logs", snapshot.logs.keys())?;
    let mut state = ClusterState::new(&snapshot.objects, &snapshot.logs);
    let mut last = Duration::ZERO;
    for (i, entry) in snapshot.timeline.iter().enumerate() {
        let place = format!("timeline[{i}]");
        if entry.after < last {
            return Err(format!(
                "{place}: `after: {}` comes before the previous entry's `after: {}`; list timeline entries in time order",
                humantime::format_duration(entry.after),
                humantime::format_duration(last)
            ));
        }
        last = entry.after;
        objects(&format!("{place}.objects"), &entry.objects, &table)?;
        logs(&format!("{place}.logs"), entry.logs.keys())?;
        for (j, gone) in entry.deleted.iter().enumerate() {
            let key = ObjectKey {
                api_version: gone.api_version.clone(),
                kind: gone.kind.clone(),
                namespace: gone.namespace.clone().unwrap_or_default(),
                name: gone.name.clone(),
            };
            if !state.contains(&key) {
                return Err(format!(
                    "{place}.deleted[{j}]: {key} does not exist at that point, so it cannot be deleted; check apiVersion, kind, namespace and name"
                ));
            }
        }
        state.apply(entry);
    }
    Ok(())
}

fn objects(place: &str, objects: &[Value], table: &ResourceTable) -> Result<(), String> {
    let mut seen = HashSet::new();
    for (i, object) in objects.iter().enumerate() {
        let here = format!("{place}[{i}]");
        let key = object_key(&here, object)?;
        let Some(resource) = table.by_kind(&key.api_version, &key.kind) else {
            let elsewhere = super::resources::api_versions_of(&key.kind, table);
            let hint = if elsewhere.is_empty() {
                format!(
                    "labcheck serves {}. For a custom resource, add its CustomResourceDefinition to `objects`",
                    table.known_kinds()
                )
            } else {
                format!(
                    "{} is served as apiVersion {}; use that",
                    key.kind,
                    elsewhere.join(" or ")
                )
            };
            return Err(format!(
                "{here} ({}): unknown kind {} (apiVersion {}); {hint}",
                key.name, key.kind, key.api_version
            ));
        };
        match (resource.namespaced, key.namespace.is_empty()) {
            (true, true) => {
                return Err(format!(
                    "{here} ({} {}): {} objects live in a namespace; add metadata.namespace",
                    key.kind, key.name, key.kind
                ));
            }
            (false, false) => {
                return Err(format!(
                    "{here} ({} {}): {} objects are cluster-scoped; remove metadata.namespace",
                    key.kind, key.name, key.kind
                ));
            }
            _ => {}
        }
        if key.kind == "CustomResourceDefinition" {
            crd(&here, object)?;
        }
        if !seen.insert(key.clone()) {
            return Err(format!(
                "{here}: {key} appears twice; each object may appear once per list"
            ));
        }
    }
    Ok(())
}

fn object_key(here: &str, object: &Value) -> Result<ObjectKey, String> {
    if !object.is_object() {
        return Err(format!(
            "{here}: is not a mapping; each object is a Kubernetes object with apiVersion, kind and metadata"
        ));
    }
    for (pointer, field) in [
        ("/apiVersion", "apiVersion"),
        ("/kind", "kind"),
        ("/metadata/name", "metadata.name"),
    ] {
        match object.pointer(pointer) {
            Some(Value::String(s)) if !s.is_empty() => {}
            _ => {
                return Err(format!(
                    "{here}: has no {field}; every object needs apiVersion, kind and metadata.name (as `kubectl get -o yaml` prints them)"
                ));
            }
        }
    }
    if let Some(ns) = object.pointer("/metadata/namespace")
        && !ns.is_string()
    {
        return Err(format!("{here}: metadata.namespace must be a string"));
    }
    ObjectKey::of(object).ok_or_else(|| format!("{here}: has no apiVersion, kind or metadata.name"))
}

fn crd(here: &str, object: &Value) -> Result<(), String> {
    for (pointer, field) in [
        ("/spec/group", "spec.group"),
        ("/spec/names/kind", "spec.names.kind"),
        ("/spec/names/plural", "spec.names.plural"),
    ] {
        if object.pointer(pointer).and_then(Value::as_str).is_none() {
            return Err(format!(
                "{here}: this CustomResourceDefinition has no {field}; copy it whole from `kubectl get crd NAME -o yaml`"
            ));
        }
    }
    if object
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .is_none_or(|v| v.is_empty())
    {
        return Err(format!(
            "{here}: this CustomResourceDefinition has no spec.versions; copy it whole from `kubectl get crd NAME -o yaml`"
        ));
    }
    Ok(())
}

fn logs<'a>(place: &str, keys: impl Iterator<Item = &'a String>) -> Result<(), String> {
    for key in keys {
        if LogKey::parse(key).is_none() {
            return Err(format!(
                "{place}: key `{key}` is not `<namespace>/<pod>` or `<namespace>/<pod>/<container>` (optionally ending in `@previous`)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Changes, Snapshot};
    use serde_json::json;
    use std::time::Duration;

    fn job(name: &str) -> serde_json::Value {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "checkout-dev"}})
    }

    /// What `check` says about a snapshot it must refuse.
    fn refusal(s: Snapshot) -> String {
        s.check().expect_err("invalid").to_string()
    }

    #[test]
    fn an_object_the_api_could_not_serve_is_rejected_saying_why() {
        // (what is wrong, the one object, what the error must say)
        let cases: [(&str, serde_json::Value, &[&str]); 4] = [
            (
                "no name: named with its place",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}),
                &["objects[0]: has no metadata.name"],
            ),
            (
                "an unknown kind without its CRD",
                json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}),
                &[
                    "unknown kind Widget (apiVersion example.com/v1)",
                    "CustomResourceDefinition",
                ],
            ),
            (
                "a known kind at the wrong version: the right one named",
                json!({"apiVersion": "batch/v1beta1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"}}),
                &["Job is served as apiVersion batch/v1"],
            ),
            (
                "a namespaced kind without a namespace",
                json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}}),
                &["add metadata.namespace"],
            ),
        ];
        for (case, object, says) in cases {
            let error = refusal(Snapshot::new().with_object(object));
            for words in says {
                assert!(error.contains(words), "{case}: {error}");
            }
        }
    }

    #[test]
    fn deleting_an_object_that_is_not_there_is_a_mistake() {
        let s = Snapshot::new().with_object(job("a")).then_after(
            Duration::from_secs(1),
            Changes::new().deleting("batch/v1", "Job", "checkout-dev", "b"),
        );
        let error = refusal(s);
        assert!(error.contains("timeline[0].deleted[0]"), "{error}");
    }

    #[test]
    fn timeline_entries_must_be_in_time_order() {
        let s = Snapshot::new()
            .with_object(job("a"))
            .then_after(Duration::from_secs(5), Changes::new())
            .then_after(Duration::from_secs(2), Changes::new());
        let error = refusal(s);
        assert!(error.contains("timeline[1]"), "{error}");
    }
}
