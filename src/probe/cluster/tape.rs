//! A run's cluster reads on a tape (see `probe::tape`), and the snapshot of what they read.
//!
//! Recording keeps, per URL asked, how the API answered: a 2xx is kept as "served" (its body goes
//! into a snapshot, Secrets blanked, which the replay serves in-process as `--snapshot` does), any
//! other status with its response, and a read that got no answer with its error. A replay
//! answers each URL the same way, so a 403 or a timeout replays as itself, and a URL the live run
//! never asked is a miss: "could not check", never a 404 that a check would read as "missing".
//!
//! [`snapshot_of`] turns the 2xx reads into a snapshot: the objects the checks got (by name or in
//! a list), the logs they read, and, so the file serves as an API, the Namespaces of those objects
//! and the CustomResourceDefinition of every custom resource they read (read from the cluster, or
//! made from the objects when the learner may not read CRDs).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::api::{self, ApiPath, ProbeError, RawResponse};
use super::{Cluster, redact_secret};
use crate::probe::tape::{CLUSTER, Question, Tape};
use crate::snapshot::{ResourceTable, Snapshot, WithLogs};

/// How the API answered one URL, as a tape keeps it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
enum Kept {
    /// A 2xx: the body is in the snapshot; only a log's cut is kept here.
    Served { skipped: u64, unended: bool },
    /// Any other status, as the server sent it.
    Answered { response: RawResponse },
    /// No answer.
    Failed { error: ProbeError },
}

/// What a replay answers to a URL.
pub(super) enum Replayed {
    /// Read it from the served snapshot, and give it this log cut.
    Served { skipped: u64, unended: bool },
    /// This answer.
    Answer(Result<RawResponse, ProbeError>),
}

fn question(path: &ApiPath) -> Question {
    Question::new("get", &[&path.url()])
}

/// Keep the answer to GET `path`.
pub(super) fn record(tape: &Tape, path: &ApiPath, answer: &Result<RawResponse, ProbeError>) {
    let kept = match answer {
        Ok(raw) if (200..300).contains(&raw.code) => {
            tape.keep_read(path.clone(), raw.body.clone());
            Kept::Served {
                skipped: raw.skipped,
                unended: raw.unended,
            }
        }
        Ok(raw) => Kept::Answered {
            response: raw.clone(),
        },
        Err(error) => Kept::Failed {
            error: error.clone(),
        },
    };
    tape.record(CLUSTER, &question(path), &kept);
}

/// The answer to GET `path` in a replay.
pub(super) fn replayed(tape: &Tape, path: &ApiPath) -> Replayed {
    match tape.answer::<Kept>(CLUSTER, &question(path)) {
        Some(Kept::Served { skipped, unended }) => Replayed::Served { skipped, unended },
        Some(Kept::Answered { response }) => Replayed::Answer(Ok(response)),
        Some(Kept::Failed { error }) => Replayed::Answer(Err(error)),
        None => Replayed::Answer(Err(ProbeError::NotConfigured {
            reason: format!("the bundle holds no answer to GET {}", path.url()),
            fix: crate::probe::git::NEW_BUNDLE.to_string(),
        })),
    }
}

/// Objects by (apiVersion, kind, namespace, name), each once.
type Objects = BTreeMap<(String, String, String, String), Value>;

/// The snapshot of what a recorded run read of the cluster (see the module's comment); `live` is
/// the same cluster, without a tape, for the Namespaces and CRDs that make the file an API.
pub async fn snapshot_of(tape: &Tape, live: &Cluster, description: &str) -> Snapshot {
    let mut objects = Objects::new();
    let mut logs: Vec<(String, String, Option<String>, String)> = Vec::new();
    // Types read, by (group, version, plural): namespaced, and the kind when an object says it.
    let mut types: BTreeMap<(String, String, String), (bool, Option<String>)> = BTreeMap::new();
    for (path, body) in tape.kept_reads() {
        if path.subresource.as_deref() == Some("log") {
            if let (Some(ns), Some(pod)) = (&path.namespace, &path.name) {
                logs.push((ns.clone(), pod.clone(), container_of(&path), body));
            }
            continue;
        }
        if path.subresource.is_some() {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(&body) else {
            continue;
        };
        let entry = types
            .entry((
                path.group.clone(),
                path.version.clone(),
                path.resource.clone(),
            ))
            .or_insert((path.namespace.is_some(), None));
        if path.name.is_some() {
            entry.1 = value["kind"]
                .as_str()
                .map(str::to_string)
                .or(entry.1.take());
            add(&mut objects, value, path.is_secret());
            continue;
        }
        // List items carry no apiVersion and kind; the list says what they are.
        let kind = value["kind"]
            .as_str()
            .and_then(|k| k.strip_suffix("List"))
            .map(str::to_string);
        let api_version = value["apiVersion"].as_str().map(str::to_string);
        let all_secrets = path.is_secret() || api::looks_like_secret(&value);
        for mut item in value["items"].as_array().cloned().unwrap_or_default() {
            if let (Some(v), Some(k)) = (&api_version, &kind) {
                item["apiVersion"] = Value::from(v.as_str());
                item["kind"] = Value::from(k.as_str());
            }
            add(&mut objects, item, all_secrets);
        }
        if kind.is_some() {
            entry.1 = kind;
        }
    }
    let builtin = ResourceTable::for_objects(std::iter::empty());
    for ((group, version, plural), (namespaced, kind)) in types {
        if builtin.by_plural(&group, &version, &plural).is_some() {
            continue;
        }
        let crd_path = ApiPath::new("apiextensions.k8s.io/v1", "customresourcedefinitions")
            .named(&format!("{plural}.{group}"));
        match live.get(&crd_path, "the apiextensions API").await {
            Ok(Some(crd)) => add(&mut objects, crd, false),
            // Reading CRDs needs a cluster-wide grant a learner may lack: say what the objects
            // read say of their type.
            _ => {
                if let Some(kind) = kind {
                    add(
                        &mut objects,
                        made_crd(&group, &version, &plural, &kind, namespaced),
                        false,
                    );
                }
            }
        }
    }
    let namespaces: BTreeSet<String> = objects
        .keys()
        .map(|(_, _, ns, _)| ns.clone())
        .filter(|ns| !ns.is_empty())
        .collect();
    for ns in namespaces {
        let key = ("v1".to_string(), "Namespace".to_string(), String::new(), ns);
        if objects.contains_key(&key) {
            continue;
        }
        let path = ApiPath::new("v1", "namespaces").named(&key.3);
        if let Ok(Some(namespace)) = live.get(&path, "the core API").await {
            add(&mut objects, namespace, false);
        }
    }
    let mut snapshot = Snapshot::new().with_description(description);
    for object in objects.into_values() {
        snapshot = snapshot.with_object(object);
    }
    for (ns, pod, container, text) in logs {
        snapshot = match container {
            Some(container) => snapshot.with_container_log(&ns, &pod, &container, &text),
            None => snapshot.with_log(&ns, &pod, &text),
        };
    }
    snapshot
}

/// Keep `object` (Secret values blanked, `managedFields` dropped), once per identity.
fn add(objects: &mut Objects, mut object: Value, secret: bool) {
    if secret || api::looks_like_secret(&object) {
        redact_secret(&mut object);
    }
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        // Large, never read by a check, and noise in a file people read.
        meta.remove("managedFields");
    }
    let text = |pointer: &str| {
        object
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let key = (
        text("/apiVersion"),
        text("/kind"),
        text("/metadata/namespace"),
        text("/metadata/name"),
    );
    if key.1.is_empty() || key.3.is_empty() {
        return;
    }
    objects.entry(key).or_insert(object);
}

/// The container a log read named (`?container=NAME`), if any.
fn container_of(path: &ApiPath) -> Option<String> {
    let query = path.query.as_deref()?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == "container")
        .map(|(_, value)| value.into_owned())
}

/// A CustomResourceDefinition serving `plural.group` at `version`, as far as the objects read tell
/// it: the fields of `apiextensions.k8s.io/v1` `CustomResourceDefinitionSpec` (k8s.io/
/// apiextensions-apiserver `pkg/apis/apiextensions/v1/types.go`: group, names {plural, singular,
/// kind, listKind}, scope `Namespaced`/`Cluster`, versions [{name, served, storage}]).
fn made_crd(group: &str, version: &str, plural: &str, kind: &str, namespaced: bool) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "names": {
                "plural": plural,
                "singular": kind.to_lowercase(),
                "kind": kind,
                "listKind": format!("{kind}List"),
            },
            "scope": if namespaced { "Namespaced" } else { "Cluster" },
            "versions": [{"name": version, "served": true, "storage": true}],
        },
    })
}
