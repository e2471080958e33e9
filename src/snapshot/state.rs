//! One state of a snapshot: the objects and logs the server answers with at one moment.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::TimelineEntry;

/// Identifies an object: (apiVersion, kind, namespace, name); namespace is `""` when cluster-scoped.
/// The order (namespace, then name within a kind) is the order a real server lists objects in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl ObjectKey {
    /// The key of an object value; `None` when it lacks apiVersion, kind or metadata.name.
    pub fn of(object: &Value) -> Option<ObjectKey> {
        Some(ObjectKey {
            api_version: object.get("apiVersion")?.as_str()?.to_string(),
            kind: object.get("kind")?.as_str()?.to_string(),
            namespace: object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            name: object.pointer("/metadata/name")?.as_str()?.to_string(),
        })
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {} {}", self.api_version, self.kind, self.name)
        } else {
            write!(
                f,
                "{} {} {}/{}",
                self.api_version, self.kind, self.namespace, self.name
            )
        }
    }
}

/// Where a log belongs: `<namespace>/<pod>` (the pod's first container), or
/// `<namespace>/<pod>/<container>`; a trailing `@previous` marks the log of the previous
/// (crashed) instance of the container, which `kubectl logs --previous` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogKey {
    pub namespace: String,
    pub pod: String,
    pub container: Option<String>,
    pub previous: bool,
}

impl LogKey {
    /// The log of a pod's first (usually only) container.
    pub fn pod(namespace: &str, pod: &str) -> LogKey {
        LogKey {
            namespace: namespace.to_string(),
            pod: pod.to_string(),
            container: None,
            previous: false,
        }
    }

    /// The log of a named container.
    pub fn container(namespace: &str, pod: &str, container: &str) -> LogKey {
        LogKey {
            container: Some(container.to_string()),
            ..LogKey::pod(namespace, pod)
        }
    }

    /// Read a key as written in a snapshot; `None` when it has not 2 or 3 non-empty parts.
    pub fn parse(key: &str) -> Option<LogKey> {
        let (path, previous) = match key.strip_suffix("@previous") {
            Some(path) => (path, true),
            None => (key, false),
        };
        let parts: Vec<&str> = path.split('/').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return None;
        }
        match parts.as_slice() {
            [ns, pod] => Some(LogKey {
                previous,
                ..LogKey::pod(ns, pod)
            }),
            [ns, pod, container] => Some(LogKey {
                previous,
                ..LogKey::container(ns, pod, container)
            }),
            _ => None,
        }
    }
}

impl fmt::Display for LogKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.pod)?;
        if let Some(container) = &self.container {
            write!(f, "/{container}")?;
        }
        if self.previous {
            write!(f, "@previous")?;
        }
        Ok(())
    }
}

/// The objects and logs served at one moment.
#[derive(Debug, Clone, Default)]
pub struct ClusterState {
    objects: BTreeMap<ObjectKey, Value>,
    logs: BTreeMap<String, String>,
}

impl ClusterState {
    pub(super) fn new(objects: &[Value], logs: &BTreeMap<String, String>) -> ClusterState {
        let mut state = ClusterState::default();
        for object in objects {
            state.put(object);
        }
        state.put_logs(logs);
        state
    }

    pub(super) fn apply(&mut self, entry: &TimelineEntry) {
        for gone in &entry.deleted {
            self.objects.remove(&ObjectKey {
                api_version: gone.api_version.clone(),
                kind: gone.kind.clone(),
                namespace: gone.namespace.clone().unwrap_or_default(),
                name: gone.name.clone(),
            });
        }
        for object in &entry.objects {
            self.put(object);
        }
        self.put_logs(&entry.logs);
    }

    fn put(&mut self, object: &Value) {
        // Validation has rejected objects without a key; skipping keeps this total anyway.
        if let Some(key) = ObjectKey::of(object) {
            self.objects.insert(key, object.clone());
        }
    }

    fn put_logs(&mut self, logs: &BTreeMap<String, String>) {
        for (key, text) in logs {
            // Normalised so `ns/pod` and its parsed form compare equal on lookup.
            let key = LogKey::parse(key).map_or_else(|| key.clone(), |k| k.to_string());
            self.logs.insert(key, text.clone());
        }
    }

    /// True when the state holds this key.
    pub fn contains(&self, key: &ObjectKey) -> bool {
        self.objects.contains_key(key)
    }

    /// One object; `namespace` is `""` for cluster-scoped kinds.
    pub fn get(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Option<&Value> {
        self.objects.get(&ObjectKey {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
        })
    }

    /// All objects of a kind, in one namespace or (`None`) in all, ordered by namespace and name.
    pub fn list<'a>(
        &'a self,
        api_version: &'a str,
        kind: &'a str,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Value> + 'a {
        self.objects
            .iter()
            .filter(move |(k, _)| {
                k.api_version == api_version
                    && k.kind == kind
                    && namespace.is_none_or(|ns| k.namespace == ns)
            })
            .map(|(_, v)| v)
    }

    /// Every object, ordered by key.
    pub fn objects(&self) -> impl Iterator<Item = &Value> {
        self.objects.values()
    }

    /// The log of one container. A `<namespace>/<pod>` entry stands for the pod's first container
    /// (`first_container` tells whether `container` is that one).
    pub fn log(
        &self,
        namespace: &str,
        pod: &str,
        container: &str,
        first_container: bool,
        previous: bool,
    ) -> Option<&str> {
        let exact = LogKey {
            previous,
            ..LogKey::container(namespace, pod, container)
        };
        if let Some(text) = self.logs.get(&exact.to_string()) {
            return Some(text);
        }
        if first_container {
            let whole_pod = LogKey {
                previous,
                ..LogKey::pod(namespace, pod)
            };
            return self.logs.get(&whole_pod.to_string()).map(String::as_str);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_keys_read_back_as_written() {
        for key in [
            "ns/pod",
            "ns/pod/main",
            "ns/pod/main@previous",
            "ns/pod@previous",
        ] {
            assert_eq!(
                LogKey::parse(key).map(|k| k.to_string()).as_deref(),
                Some(key)
            );
        }
        assert_eq!(LogKey::parse("just-a-pod"), None);
        assert_eq!(LogKey::parse("ns//main"), None);
        assert_eq!(LogKey::parse("a/b/c/d"), None);
    }
}
