//! The resource types a snapshot may hold: kind ↔ plural ↔ scope ↔ short names, as discovery
//! reports them. Built-in types come from a fixed table; custom ones from the
//! CustomResourceDefinitions in the snapshot.

use serde_json::Value;

/// One resource type as the API serves it (one group/version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceType {
    /// API group; `""` for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The plural used in URLs (`jobs`).
    pub plural: String,
    pub singular: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    /// `kubectl get all` uses the `all` category.
    pub categories: Vec<String>,
    /// Served from a CustomResourceDefinition (or a well-known CRD such as Argo CD's): list items
    /// keep their apiVersion and kind, as a real server renders custom resources.
    pub custom: bool,
    /// `additionalPrinterColumns` of the CRD, used for `kubectl get` tables.
    pub printer_columns: Vec<PrinterColumn>,
    /// Whether `.status` is a subresource (`{plural}/status` in discovery): every built-in kind
    /// but those in [`NO_STATUS`]; a CRD's version when it declares `subresources.status` (Argo
    /// CD's do not).
    pub status_subresource: bool,
}

/// Built-in kinds without a status subresource (they have no `.status`).
const NO_STATUS: &[&str] = &["ConfigMap", "Secret", "Event", "ServiceAccount"];

/// A column `kubectl get` shows for a custom resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    pub name: String,
    pub json_path: String,
    pub priority: i64,
}

impl ResourceType {
    /// `batch/v1`, or `v1` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `jobs.batch`, or `pods` for the core group: how the API names the resource in messages.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// (group, version, kind, plural, namespaced, short names, in category `all`)
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    &'static [&'static str],
    bool,
);

const BUILTIN: &[Row] = &[
    ("", "v1", "Pod", "pods", true, &["po"], true),
    ("", "v1", "ConfigMap", "configmaps", true, &["cm"], false),
    ("", "v1", "Secret", "secrets", true, &[], false),
    ("", "v1", "Namespace", "namespaces", false, &["ns"], false),
    ("", "v1", "Service", "services", true, &["svc"], true),
    ("", "v1", "Event", "events", true, &["ev"], false),
    (
        "",
        "v1",
        "ServiceAccount",
        "serviceaccounts",
        true,
        &["sa"],
        false,
    ),
    (
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        true,
        &["pvc"],
        false,
    ),
    ("", "v1", "Node", "nodes", false, &["no"], false),
    (
        "apps",
        "v1",
        "Deployment",
        "deployments",
        true,
        &["deploy"],
        true,
    ),
    (
        "apps",
        "v1",
        "ReplicaSet",
        "replicasets",
        true,
        &["rs"],
        true,
    ),
    (
        "apps",
        "v1",
        "StatefulSet",
        "statefulsets",
        true,
        &["sts"],
        true,
    ),
    ("apps", "v1", "DaemonSet", "daemonsets", true, &["ds"], true),
    ("batch", "v1", "Job", "jobs", true, &[], true),
    ("batch", "v1", "CronJob", "cronjobs", true, &["cj"], true),
    (
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        true,
        &["ing"],
        false,
    ),
    (
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false,
        &["crd", "crds"],
        false,
    ),
];

/// Argo CD's types: known without their CRD in the snapshot, but served only when the snapshot
/// holds one of their objects or their CRD, so a snapshot without Argo CD looks like a cluster
/// without Argo CD.
const ARGOCD: &[Row] = &[
    (
        "argoproj.io",
        "v1alpha1",
        "Application",
        "applications",
        true,
        &["app", "apps"],
        false,
    ),
    (
        "argoproj.io",
        "v1alpha1",
        "AppProject",
        "appprojects",
        true,
        &["appproj", "appprojs"],
        false,
    ),
];

fn from_row(row: &Row, custom: bool) -> ResourceType {
    let (group, version, kind, plural, namespaced, short_names, all) = *row;
    ResourceType {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.to_string(),
        plural: plural.to_string(),
        singular: kind.to_lowercase(),
        namespaced,
        short_names: short_names.iter().map(|s| s.to_string()).collect(),
        categories: if all { vec!["all".to_string()] } else { vec![] },
        custom,
        status_subresource: !custom && !NO_STATUS.contains(&kind),
        printer_columns: if kind == "Application" {
            // Argo CD's CRD columns, so `kubectl get app` looks the same with or without the CRD.
            vec![
                column("Sync Status", ".status.sync.status", 0),
                column("Health Status", ".status.health.status", 0),
                column("Revision", ".status.sync.revision", 10),
                column("Project", ".spec.project", 10),
            ]
        } else {
            vec![]
        },
    }
}

fn column(name: &str, json_path: &str, priority: i64) -> PrinterColumn {
    PrinterColumn {
        name: name.to_string(),
        json_path: json_path.to_string(),
        priority,
    }
}

/// Every resource type served for a set of objects: the built-ins, Argo CD's when present, and
/// one per served version of each CustomResourceDefinition among the objects.
#[derive(Debug, Clone, Default)]
pub struct ResourceTable {
    pub types: Vec<ResourceType>,
}

impl ResourceTable {
    /// The table for these objects (all states of a snapshot, so discovery does not change when a
    /// timeline adds the first Application).
    pub fn for_objects<'a>(objects: impl IntoIterator<Item = &'a Value>) -> ResourceTable {
        let mut types: Vec<ResourceType> = BUILTIN.iter().map(|r| from_row(r, false)).collect();
        let mut argocd_present = Vec::new();
        let mut crd_types = Vec::new();
        for object in objects {
            let api_version = object.get("apiVersion").and_then(Value::as_str);
            let kind = object.get("kind").and_then(Value::as_str);
            if let (Some(api_version), Some(kind)) = (api_version, kind) {
                for row in ARGOCD {
                    if api_version == format!("{}/{}", row.0, row.1) && kind == row.2 {
                        argocd_present.push(row.2);
                    }
                }
                if kind == "CustomResourceDefinition" {
                    crd_types.extend(types_from_crd(object));
                }
            }
        }
        for row in ARGOCD {
            let from_crd = crd_types
                .iter()
                .any(|t| t.group == row.0 && t.version == row.1 && t.kind == row.2);
            if argocd_present.contains(&row.2) && !from_crd {
                types.push(from_row(row, true));
            }
        }
        for t in crd_types {
            if !types
                .iter()
                .any(|k| k.group == t.group && k.version == t.version && k.plural == t.plural)
            {
                types.push(t);
            }
        }
        ResourceTable { types }
    }

    /// The type of objects with this apiVersion and kind.
    pub fn by_kind(&self, api_version: &str, kind: &str) -> Option<&ResourceType> {
        self.types
            .iter()
            .find(|t| t.api_version() == api_version && t.kind == kind)
    }

    /// The type served at `/apis/{group}/{version}/{plural}`.
    pub fn by_plural(&self, group: &str, version: &str, plural: &str) -> Option<&ResourceType> {
        self.types
            .iter()
            .find(|t| t.group == group && t.version == version && t.plural == plural)
    }

    /// Every group (in a stable order, core first) with its versions.
    pub fn group_versions(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for t in &self.types {
            match groups.iter_mut().find(|(g, _)| *g == t.group) {
                Some((_, versions)) => {
                    if !versions.contains(&t.version) {
                        versions.push(t.version.clone());
                    }
                }
                None => groups.push((t.group.clone(), vec![t.version.clone()])),
            }
        }
        groups
    }

    /// Names of all known kinds, for "unknown kind" messages.
    pub fn known_kinds(&self) -> String {
        self.types
            .iter()
            .map(|t| format!("{} {}", t.api_version(), t.kind))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The apiVersions under which `kind` is known (built in, Argo CD's, or in this table).
pub fn api_versions_of(kind: &str, table: &ResourceTable) -> Vec<String> {
    let mut versions: Vec<String> = BUILTIN
        .iter()
        .chain(ARGOCD)
        .map(|row| from_row(row, false))
        .chain(table.types.iter().cloned())
        .filter(|t| t.kind == kind)
        .map(|t| t.api_version())
        .collect();
    versions.dedup();
    versions
}

/// The kinds a CustomResourceDefinition object declares (one per served version). A CRD that
/// lacks the fields declares nothing; snapshot validation reports it.
fn types_from_crd(crd: &Value) -> Vec<ResourceType> {
    let spec = &crd["spec"];
    let (Some(group), Some(kind), Some(plural)) = (
        spec["group"].as_str(),
        spec["names"]["kind"].as_str(),
        spec["names"]["plural"].as_str(),
    ) else {
        return vec![];
    };
    let singular = spec["names"]["singular"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| kind.to_lowercase());
    let short_names = texts(&spec["names"]["shortNames"]);
    let categories = texts(&spec["names"]["categories"]);
    let namespaced = spec["scope"].as_str() != Some("Cluster");
    let Some(versions) = spec["versions"].as_array() else {
        return vec![];
    };
    versions
        .iter()
        .filter(|v| v["served"].as_bool().unwrap_or(true))
        .filter_map(|v| {
            let version = v["name"].as_str()?;
            let printer_columns = v["additionalPrinterColumns"]
                .as_array()
                .map(|cols| {
                    cols.iter()
                        .filter_map(|c| {
                            Some(PrinterColumn {
                                name: c["name"].as_str()?.to_string(),
                                json_path: c["jsonPath"].as_str()?.to_string(),
                                priority: c["priority"].as_i64().unwrap_or(0),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(ResourceType {
                group: group.to_string(),
                version: version.to_string(),
                kind: kind.to_string(),
                plural: plural.to_string(),
                singular: singular.clone(),
                namespaced,
                short_names: short_names.clone(),
                categories: categories.clone(),
                custom: true,
                printer_columns,
                status_subresource: v["subresources"]["status"].is_object(),
            })
        })
        .collect()
}

/// The strings of a JSON list (none when it is not a list).
fn texts(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn argo_cd_types_are_served_only_when_argo_cd_is_in_the_snapshot() {
        let without =
            ResourceTable::for_objects(&[json!({"apiVersion": "batch/v1", "kind": "Job"})]);
        assert!(
            without
                .by_plural("argoproj.io", "v1alpha1", "applications")
                .is_none()
        );
        let with = ResourceTable::for_objects(&[
            json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application"}),
        ]);
        let app = with
            .by_plural("argoproj.io", "v1alpha1", "applications")
            .expect("served");
        assert_eq!(app.short_names, vec!["app", "apps"]);
        assert!(app.custom);
    }

    #[test]
    fn a_crd_declares_its_kind_with_scope_and_columns() {
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Cluster",
                     "names": {"kind": "Widget", "plural": "widgets", "shortNames": ["wd"]},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "additionalPrinterColumns": [{"name": "Size", "jsonPath": ".spec.size", "type": "integer"}]},
                                  {"name": "v0", "served": false}]}
        });
        let table = ResourceTable::for_objects(&[crd]);
        let widget = table.by_kind("example.com/v1", "Widget").expect("declared");
        assert!(!widget.namespaced);
        assert_eq!(widget.printer_columns[0].json_path, ".spec.size");
        assert!(table.by_kind("example.com/v0", "Widget").is_none());
    }
}
