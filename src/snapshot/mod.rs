//! Snapshots (`labcheck-snapshot/v1`): Kubernetes objects as the API returns them, pod logs and an
//! optional timeline of later states. `labcheck serve` serves one as a read-only API; tests and the
//! demo build them from Rust. The format is documented in `docs/snapshot.md`.

pub mod resources;
mod state;
mod validate;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use resources::{PrinterColumn, ResourceTable, ResourceType};
pub use state::{ClusterState, LogKey, ObjectKey};

/// The format this labcheck reads and writes.
pub const FORMAT: &str = "labcheck-snapshot/v1";

/// The largest snapshot file labcheck reads (logs included).
pub const MAX_SNAPSHOT_BYTES: u64 = 1024 * 1024 * 1024;

/// A snapshot file, or one built in Rust.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Objects exactly as the API returns them.
    #[serde(default)]
    pub objects: Vec<Value>,
    /// Pod logs by `<namespace>/<pod>` or `<namespace>/<pod>/<container>` (see [`LogKey`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub logs: BTreeMap<String, String>,
    /// Later states, each applied on top of the previous one once `after` has passed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineEntry>,
}

/// One later state: changes applied `after` this long from server start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineEntry {
    #[serde(with = "human_duration")]
    pub after: Duration,
    /// Replace-or-add by (apiVersion, kind, namespace, name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deleted: Vec<ObjectRef>,
    /// Replace-or-add by key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub logs: BTreeMap<String, String>,
}

/// Names one object, for `deleted:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    /// Left out for cluster-scoped objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

/// Changes for [`Snapshot::then_after`], built like a snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    objects: Vec<Value>,
    deleted: Vec<ObjectRef>,
    logs: BTreeMap<String, String>,
}

impl Changes {
    /// No changes yet.
    pub fn new() -> Changes {
        Changes::default()
    }

    /// Add an object, or replace the one with the same apiVersion, kind, namespace and name.
    pub fn with_object(mut self, object: Value) -> Changes {
        self.objects.push(object);
        self
    }

    /// Delete an object (`namespace` empty for cluster-scoped ones).
    pub fn deleting(
        mut self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Changes {
        self.deleted.push(ObjectRef {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
            name: name.to_string(),
        });
        self
    }
}

/// Pod logs set while building a snapshot or one of its later states.
pub trait WithLogs: Sized {
    /// The logs by [`LogKey`].
    fn logs_mut(&mut self) -> &mut BTreeMap<String, String>;

    /// Set the log of a single-container pod.
    fn with_log(mut self, namespace: &str, pod: &str, text: &str) -> Self {
        self.logs_mut()
            .insert(LogKey::pod(namespace, pod).to_string(), text.to_string());
        self
    }

    /// Set the log of one container of a pod.
    fn with_container_log(
        mut self,
        namespace: &str,
        pod: &str,
        container: &str,
        text: &str,
    ) -> Self {
        self.logs_mut().insert(
            LogKey::container(namespace, pod, container).to_string(),
            text.to_string(),
        );
        self
    }
}

impl WithLogs for Changes {
    fn logs_mut(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.logs
    }
}

impl WithLogs for Snapshot {
    fn logs_mut(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.logs
    }
}

/// Why a snapshot cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot read snapshot {path}: {source}; check the path")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("cannot write the snapshot as YAML: {0}")]
    Serialize(String),
}

/// The name used in messages for a snapshot that did not come from a file.
const IN_MEMORY: &str = "<snapshot>";

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot::new()
    }
}

impl Snapshot {
    /// An empty snapshot (no objects: a cluster with nothing but the built-in types).
    pub fn new() -> Snapshot {
        Snapshot {
            format: FORMAT.to_string(),
            description: None,
            objects: Vec::new(),
            logs: BTreeMap::new(),
            timeline: Vec::new(),
        }
    }

    /// Read and validate a snapshot file (YAML or JSON).
    ///
    /// At most [`MAX_SNAPSHOT_BYTES`] are read.
    pub fn load(path: &Path) -> Result<Snapshot, SnapshotError> {
        // Only a regular file: a FIFO given as --snapshot would block the read forever.
        let text = crate::paths::read_regular_text(path, MAX_SNAPSHOT_BYTES).map_err(|e| {
            SnapshotError::Io {
                path: path.display().to_string(),
                source: match e {
                    crate::paths::ReadTextError::Read(crate::paths::ReadError::Io(source)) => {
                        source
                    }
                    other => {
                        std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string())
                    }
                },
            }
        })?;
        Self::parse(&path.display().to_string(), &text)
    }

    /// Parse and validate a snapshot from YAML (or JSON, which YAML includes).
    pub fn from_yaml_str(text: &str) -> Result<Snapshot, SnapshotError> {
        Self::parse(IN_MEMORY, text)
    }

    fn parse(file: &str, text: &str) -> Result<Snapshot, SnapshotError> {
        if let Err(deep) = crate::yaml::guard::check_depth(text) {
            return Err(SnapshotError::Parse {
                file: file.to_string(),
                line: deep.line,
                column: deep.column,
                message: deep.message(),
            });
        }
        let snapshot: Snapshot = serde_yaml::from_str(text).map_err(|e| {
            let (line, column) = crate::yaml::location::line_column(&e);
            SnapshotError::Parse {
                file: file.to_string(),
                line,
                column,
                message: crate::yaml::location::strip_every_location(&e.to_string()),
            }
        })?;
        snapshot
            .validate()
            .map_err(|message| SnapshotError::Invalid {
                file: file.to_string(),
                message,
            })?;
        Ok(snapshot)
    }

    /// Check what serde cannot: formats, kinds, namespaces, log keys, timeline order.
    pub fn check(&self) -> Result<(), SnapshotError> {
        self.validate().map_err(|message| SnapshotError::Invalid {
            file: IN_MEMORY.to_string(),
            message,
        })
    }

    fn validate(&self) -> Result<(), String> {
        validate::snapshot(self)
    }

    /// The snapshot as YAML, readable by [`Snapshot::load`].
    pub fn to_yaml(&self) -> Result<String, SnapshotError> {
        serde_yaml::to_string(self).map_err(|e| SnapshotError::Serialize(e.to_string()))
    }

    /// Set the description shown by `labcheck serve`.
    pub fn with_description(mut self, description: &str) -> Snapshot {
        self.description = Some(description.to_string());
        self
    }

    /// Add an object.
    pub fn with_object(mut self, object: Value) -> Snapshot {
        self.objects.push(object);
        self
    }

    /// Add a later state: `changes` apply once `after` has passed since the server started.
    pub fn then_after(mut self, after: Duration, changes: Changes) -> Snapshot {
        self.timeline.push(TimelineEntry {
            after,
            objects: changes.objects,
            deleted: changes.deleted,
            logs: changes.logs,
        });
        self
    }

    /// Every resource type this snapshot serves, over all its states.
    pub fn resource_table(&self) -> ResourceTable {
        ResourceTable::for_objects(
            self.objects
                .iter()
                .chain(self.timeline.iter().flat_map(|t| t.objects.iter())),
        )
    }

    /// The states in order: the initial one at zero, then one per timeline entry (cumulative).
    pub fn states(&self) -> Vec<(Duration, Arc<ClusterState>)> {
        let mut current = ClusterState::new(&self.objects, &self.logs);
        let mut states = vec![(Duration::ZERO, Arc::new(current.clone()))];
        for entry in &self.timeline {
            current.apply(entry);
            states.push((entry.after, Arc::new(current.clone())));
        }
        states
    }
}

/// `after: 3s` / `1m 30s`, as humantime reads and writes it.
mod human_duration {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&humantime::format_duration(*d).to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let text = String::deserialize(d)?;
        humantime::parse_duration(&text).map_err(|e| {
            serde::de::Error::custom(format!(
                "`after: {text}` is not a duration ({e}); write e.g. `after: 3s` or `after: 1m 30s`"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What reading the snapshot `text` says when it must refuse it.
    fn refusal(text: &str) -> String {
        Snapshot::from_yaml_str(text)
            .expect_err("a snapshot that must be refused")
            .to_string()
    }

    fn job(name: &str) -> Value {
        json!({"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": name, "namespace": "checkout-dev"}, "status": {"active": 1}})
    }

    #[test]
    fn a_snapshot_built_in_rust_reads_back_from_its_yaml() {
        let built = Snapshot::new()
            .with_description("smoke test running, then gone")
            .with_object(job("checkout-smoke-test"))
            .with_log(
                "checkout-dev",
                "checkout-smoke-test-abcde",
                "GET /status/503\n",
            )
            .then_after(
                Duration::from_secs(3),
                Changes::new()
                    .deleting("batch/v1", "Job", "checkout-dev", "checkout-smoke-test")
                    .with_container_log("checkout-dev", "p", "main", "x\n"),
            );
        let yaml = built.to_yaml().expect("serialises");
        assert!(yaml.contains("after: 3s"), "{yaml}");
        let read = Snapshot::from_yaml_str(&yaml).expect("reads back");
        assert_eq!(read, built);
    }

    #[test]
    fn a_yaml_mistake_points_at_file_line_and_column() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("broken.yaml");
        std::fs::write(
            &path,
            "format: labcheck-snapshot/v1\nobjects: []\ntimeline:\n  - after: soon\n",
        )
        .expect("written");
        let error = Snapshot::load(&path).expect_err("broken").to_string();
        let prefix = format!("{}:4:", path.display());
        assert!(error.starts_with(&prefix), "{error}");
        assert!(error.contains("`after: soon` is not a duration"), "{error}");
        assert!(!error.contains("at line"), "{error}");
    }

    #[test]
    fn json_snapshots_load_too() {
        let text = r#"{"format": "labcheck-snapshot/v1", "objects": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "argocd"}}]}"#;
        let snapshot = Snapshot::from_yaml_str(text).expect("JSON is YAML");
        assert_eq!(snapshot.objects.len(), 1);
    }

    #[test]
    fn a_snapshot_labcheck_cannot_read_is_refused_saying_where_and_why() {
        let cases = [
            // (what the author wrote, the snapshot, how the error starts, what it says after)
            (
                "an unknown top-level key is an error, not ignored",
                "format: labcheck-snapshot/v1\nobject: []\n",
                "<snapshot>:2:1: unknown field `object`",
                "",
            ),
            (
                "another format is refused with the one expected",
                "format: labcheck-snapshot/v2\n",
                "<snapshot>: ",
                "reads `format: labcheck-snapshot/v1`",
            ),
        ];
        for (what, text, starts, says) in cases {
            let error = refusal(text);
            assert!(
                error.starts_with(starts) && error.contains(says),
                "{what}: {error}"
            );
        }
    }

    #[test]
    fn each_timeline_state_builds_on_the_one_before() {
        let snapshot = Snapshot::new()
            .with_object(job("a"))
            .then_after(Duration::from_secs(1), Changes::new().with_object(job("b")))
            .then_after(
                Duration::from_secs(2),
                Changes::new().deleting("batch/v1", "Job", "checkout-dev", "a"),
            );
        let names = |state: &ClusterState| -> Vec<String> {
            state
                .list("batch/v1", "Job", None)
                .filter_map(|o| o.pointer("/metadata/name")?.as_str().map(str::to_string))
                .collect()
        };
        let states = snapshot.states();
        assert_eq!(states.len(), 3);
        assert_eq!(names(&states[0].1), ["a"]);
        assert_eq!(names(&states[1].1), ["a", "b"]);
        assert_eq!(names(&states[2].1), ["b"]);
    }
}
