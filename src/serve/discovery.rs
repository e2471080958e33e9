//! Discovery documents: `/version`, `/api`, `/apis`, `/api/v1`, `/apis/{group}/{version}`.
//! kubectl asks for aggregated discovery first; answering plain `application/json` makes it fall
//! back to these legacy documents, which is all this server offers.

use serde_json::{Value, json};

use crate::snapshot::{ResourceTable, ResourceType};

/// The Kubernetes version this server claims (the one k8s-openapi is built for).
pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "33",
        "gitVersion": "v1.33.0-labcheck",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.24.0",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// `/api`: the core group's versions.
pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]
    })
}

fn group_json(name: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    let preferred = versions.first().cloned().unwrap_or(Value::Null);
    json!({"name": name, "versions": versions, "preferredVersion": preferred})
}

/// `/apis`: every named group.
pub fn api_groups(table: &ResourceTable) -> Value {
    let groups: Vec<Value> = table
        .group_versions()
        .iter()
        .filter(|(group, _)| !group.is_empty())
        .map(|(group, versions)| group_json(group, versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`: one group, or `None` when it is not served.
pub fn api_group(table: &ResourceTable, group: &str) -> Option<Value> {
    let (_, versions) = table
        .group_versions()
        .into_iter()
        .find(|(g, _)| g == group && !g.is_empty())?;
    let mut doc = group_json(group, &versions);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    Some(doc)
}

/// `/api/v1` or `/apis/{group}/{version}`, or `None` when nothing is served there.
pub fn resource_list(table: &ResourceTable, group: &str, version: &str) -> Option<Value> {
    let types: Vec<&ResourceType> = table
        .types
        .iter()
        .filter(|t| t.group == group && t.version == version)
        .collect();
    if types.is_empty() {
        return None;
    }
    let mut resources = Vec::new();
    for t in types {
        let mut resource = json!({
            "name": t.plural,
            "singularName": t.singular,
            "namespaced": t.namespaced,
            "kind": t.kind,
            // Read-only: `watch` is listed because clients expect it of every list-able type,
            // but a watch request is refused with a clear Status.
            "verbs": ["get", "list", "watch"],
        });
        if !t.short_names.is_empty() {
            resource["shortNames"] = json!(t.short_names);
        }
        if !t.categories.is_empty() {
            resource["categories"] = json!(t.categories);
        }
        resources.push(resource);
        if t.kind == "Pod" {
            resources.push(json!({
                "name": "pods/log", "singularName": "", "namespaced": true,
                "kind": "Pod", "verbs": ["get"]
            }));
        }
        if t.status_subresource {
            resources.push(json!({
                "name": format!("{}/status", t.plural), "singularName": "",
                "namespaced": t.namespaced, "kind": t.kind, "verbs": ["get"]
            }));
        }
    }
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources
    }))
}
