//! The fixtures are recordings: each step's solved cluster state in
//! `modules/module-10/fixtures/cluster/` is the `labcheck snapshot` the walk took of the real
//! cluster at that point (Argo CD v3.6.2 wrote it), made a fixture: the served URLs written as
//! the course's, each repo's pushed commit and the one before it as `${pushed:repo}` and
//! `${previous:repo}`. `LABCHECK_TIER_RECORD=1` writes them (a maintainer's re-recording); every
//! run compares the committed fixture with the fresh recording field by field. Every difference
//! must be listed in `tests/real_argocd/fixture-differences.yaml` with why it is legitimate (what
//! differs from run to run by nature), and every listed difference must still be there.
//!
//! What is compared: the Applications and Jobs both hold, as paths to values. Values that differ
//! from run to run by nature (times, uids, resource versions, commit hashes, generated names) are
//! compared by kind (a time against a time), everything else exactly; list items are matched by
//! what names them (a resource row by kind and name, a condition by type), not by position.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;

use crate::walk::walked;

/// The walk's recording of each step, and the fixture of its solved state.
const POINTS: &[(&str, &str)] = &[
    ("step-1", "step-1-solved"),
    ("step-2", "step-2-solved"),
    ("step-3", "step-3-solved"),
    ("step-4", "step-4-solved"),
    ("step-5", "step-5-solved"),
    ("break-it-break", "break-it-solved"),
    ("break-it-fix", "break-it-fixed-solved"),
];

/// Whether the maintainer asked for the fixtures to be written from this run
/// (`LABCHECK_TIER_RECORD=1`).
pub fn recording_asked() -> bool {
    std::env::var_os("LABCHECK_TIER_RECORD").is_some()
}

/// Each URL the tier serves a course URL at, and that course URL.
fn served(cluster: &crate::cluster::Cluster, lab: &crate::lab::Lab) -> [(String, String); 2] {
    [
        (
            format!("{}/", lab.git_url),
            "http://git.course.local/".to_string(),
        ),
        (
            cluster.argocd.charts.url.clone(),
            crate::charts::UPSTREAM.to_string(),
        ),
    ]
}

/// Write the lab as it is now as the fixture state `name` (`labcheck snapshot` of the cluster,
/// each clone's pushed commit and the one before it as placeholders): a broken variant the
/// course declares, recorded where the real Argo CD made it.
pub fn record_state(
    cluster: &crate::cluster::Cluster,
    lab: &crate::lab::Lab,
    name: &str,
    what: &str,
) {
    let snapshot = cluster.dir.join(format!("{name}-snapshot.yaml"));
    let output = lab
        .command("labcheck")
        .args(["snapshot", crate::lab::MODULE, "--out"])
        .arg(&snapshot)
        .output()
        .expect("labcheck runs");
    crate::lab::ok(&output, "labcheck snapshot").unwrap_or_else(|e| panic!("{e}"));
    let mut revisions = String::new();
    for entry in std::fs::read_dir(&lab.work).into_iter().flatten().flatten() {
        let rev = |spec: &str| {
            let out = lab
                .command("git")
                .args(["rev-parse", "--verify", "-q", spec])
                .current_dir(entry.path())
                .output()
                .expect("git runs");
            let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if text.is_empty() {
                "none".to_string()
            } else {
                text
            }
        };
        revisions.push_str(&format!(
            "{} {} {}\n",
            entry.file_name().to_string_lossy(),
            rev("@{upstream}"),
            rev("@{upstream}~1")
        ));
    }
    let served = served(cluster, lab);
    let served: Vec<(&str, &str)> = served
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let recorded = std::fs::read_to_string(&snapshot).unwrap_or_else(|e| panic!("{e}"));
    let path = fixtures().join(format!("{name}.yaml"));
    std::fs::write(&path, as_fixture(&recorded, &revisions, &served, what))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// A recorded snapshot as a fixture: `revisions` is the walk's `<step>-revisions.txt` (each repo,
/// its pushed commit, the one before it), `served` each URL the tier served a course URL at.
fn as_fixture(recording: &str, revisions: &str, served: &[(&str, &str)], what: &str) -> String {
    let mut text = without_crd_schemas(recording);
    for line in revisions.lines() {
        let mut words = line.split_whitespace();
        let (Some(repo), Some(pushed), Some(previous)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        text = text.replace(pushed, &format!("${{pushed:{repo}}}"));
        if previous != "none" {
            text = text.replace(previous, &format!("${{previous:{repo}}}"));
        }
    }
    for (url, course) in served {
        text = text.replace(url, course);
    }
    // Everything but the two header lines, which the fixture words itself.
    let body = text
        .lines()
        .filter(|l| !l.starts_with("format:") && !l.starts_with("description:"))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "format: labcheck-snapshot/v1\n# Recorded by the real-Argo-CD tier (tests/real_argocd/recordings.rs): what Argo CD v3.6.2\n# wrote at this point ({what}), with the course's URLs and revision placeholders.\ndescription: 'module 10 {what} (recorded from Argo CD v3.6.2)'\n{body}"
    )
}

/// The snapshot with each CRD's schema left open: a fixture's CRD only declares the kind to
/// serve, and Argo CD's Application schema is 400 kB a state.
fn without_crd_schemas(recording: &str) -> String {
    let Ok(mut snapshot) = serde_yaml::from_str::<Value>(recording) else {
        return recording.to_string();
    };
    for object in snapshot["objects"].as_array_mut().into_iter().flatten() {
        if object["kind"] != "CustomResourceDefinition" {
            continue;
        }
        for version in object["spec"]["versions"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            if version.get("schema").is_some() {
                version["schema"] = serde_json::json!({"openAPIV3Schema":
                    {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
            }
        }
        if let Some(map) = object.as_object_mut() {
            map.remove("status");
        }
    }
    // The header lines go: the fixture writes its own (see `as_fixture`).
    if let Some(map) = snapshot.as_object_mut() {
        map.remove("format");
        map.remove("description");
    }
    serde_yaml::to_string(&snapshot).unwrap_or_else(|_| recording.to_string())
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("modules/module-10/fixtures/cluster")
}

/// The objects of a snapshot file, by `Kind/namespace/name`, for the kinds compared.
fn objects(text: &str) -> BTreeMap<String, Value> {
    let snapshot: Value = serde_yaml::from_str(text).unwrap_or(Value::Null);
    snapshot["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|o| matches!(o["kind"].as_str(), Some("Application" | "Job")))
        .map(|o| {
            let key = format!(
                "{}/{}/{}",
                o["kind"].as_str().unwrap_or(""),
                o["metadata"]["namespace"].as_str().unwrap_or(""),
                o["metadata"]["name"].as_str().unwrap_or("")
            );
            (key, o.clone())
        })
        .collect()
}

/// What names an item of a list, so the same item is compared whatever its position.
fn item_key(item: &Value, index: usize) -> String {
    for keys in [
        &["kind", "name"][..],
        &["type"][..],
        &["name"][..],
        &["id"][..],
    ] {
        let parts: Vec<&str> = keys.iter().filter_map(|k| item[*k].as_str()).collect();
        if parts.len() == keys.len() {
            return parts.join("/");
        }
        if let Some(n) = keys.first().and_then(|k| item[*k].as_i64()) {
            return n.to_string();
        }
    }
    index.to_string()
}

/// A value as compared: by kind where it differs from run to run by nature.
fn class(value: &str) -> String {
    static KINDS: std::sync::LazyLock<Vec<(Regex, &str)>> = std::sync::LazyLock::new(|| {
        [
            (r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$", "<time>"),
            (r"^[0-9a-f]{40}$", "<commit>"),
            (r"^\$\{(pushed|previous):[a-z-]+\}$", "<commit>"),
            (
                r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
                "<uid>",
            ),
        ]
        .into_iter()
        .filter_map(|(re, kind)| Regex::new(re).ok().map(|re| (re, kind)))
        .collect()
    });
    KINDS
        .iter()
        .find(|(re, _)| re.is_match(value))
        .map(|(_, kind)| kind.to_string())
        .unwrap_or_else(|| value.to_string())
}

/// Fields that name nothing a check reads and differ from run to run.
fn ignored(path: &str) -> bool {
    [
        "/metadata/resourceVersion",
        "/metadata/managedFields",
        "/metadata/generation",
        "/metadata/uid",
        "/metadata/creationTimestamp",
        "/metadata/ownerReferences",
        "/spec/selector",
        "/spec/template/metadata/labels",
        "/metadata/labels/controller-uid",
        "/metadata/labels/batch.kubernetes.io/controller-uid",
        "/status/reconciledAt",
        "/status/observedAt",
        "/status/controllerNamespace",
    ]
    .iter()
    .any(|prefix| path.starts_with(prefix))
}

/// `value` as paths to compared values.
fn flatten(value: &Value, path: String, out: &mut BTreeMap<String, String>) {
    if ignored(&path) {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                flatten(value, format!("{path}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                flatten(item, format!("{path}[{}]", item_key(item, index)), out);
            }
        }
        Value::String(s) => {
            out.insert(path, class(s));
        }
        other => {
            out.insert(path, other.to_string());
        }
    }
}

/// What the cluster generated for each object (its uid; for a pod also its name, and for a
/// Deployment's pods their template hash), by what the object is: `Kind/namespace/name`, but a
/// Job's pod by its Job (`Pod/namespace/job-name`) and a Deployment's by its kind alone.
fn generated(text: &str) -> BTreeMap<String, String> {
    let snapshot: Value = serde_yaml::from_str(text).unwrap_or(Value::Null);
    let mut generated = BTreeMap::new();
    for object in snapshot["objects"].as_array().into_iter().flatten() {
        let metadata = &object["metadata"];
        let kind = object["kind"].as_str().unwrap_or("");
        let namespace = metadata["namespace"].as_str().unwrap_or("");
        let name = metadata["name"].as_str().unwrap_or("");
        let key = match (kind, metadata["labels"]["job-name"].as_str()) {
            ("Pod", Some(job)) => format!("Pod/{namespace}/{job}"),
            ("Pod" | "ReplicaSet", None) => format!("{kind}/{namespace}"),
            _ => format!("{kind}/{namespace}/{name}"),
        };
        if matches!(kind, "Pod" | "ReplicaSet") {
            generated.insert(format!("{key} name"), name.to_string());
        }
        if let Some(hash) = metadata["labels"]["pod-template-hash"].as_str() {
            generated.insert(format!("{namespace} pod-template-hash"), hash.to_string());
        }
        if let Some(uid) = metadata["uid"].as_str() {
            generated.insert(format!("{key} uid"), uid.to_string());
        }
    }
    generated
}

/// Each generated name or uid of the old fixture and what the recording has for the same thing.
fn renamed(old: &str, recording: &str) -> Vec<(String, String)> {
    let new = generated(recording);
    generated(old)
        .into_iter()
        .filter_map(|(what, old)| {
            new.get(&what)
                .filter(|n| **n != old)
                .map(|n| (old, n.clone()))
        })
        .collect()
}

/// `text` with each old generated name made the new one, the longest first: a pod's name holds
/// its ReplicaSet's hash, and renaming the hash first would leave the old pod's suffix behind.
fn renamed_in(text: &str, renames: &BTreeMap<String, String>) -> String {
    let mut by_length: Vec<(&String, &String)> = renames.iter().collect();
    by_length.sort_by_key(|(old, _)| std::cmp::Reverse(old.len()));
    by_length
        .into_iter()
        .fold(text.to_string(), |text, (old, new)| {
            text.replace(old.as_str(), new)
        })
}

#[test]
fn a_pod_named_in_a_derived_state_is_renamed_whole_not_by_its_hash_alone() {
    let renames = BTreeMap::from([
        ("7b7d464cf5".to_string(), "5f6c8d9b7a".to_string()),
        (
            "checkout-7b7d464cf5-vtfhg".to_string(),
            "checkout-5f6c8d9b7a-q2xkz".to_string(),
        ),
    ]);
    let text = "message: back-off restarting failed container=podinfo pod=checkout-7b7d464cf5-vtfhg\nReplicaSet \"checkout-7b7d464cf5\"";
    assert_eq!(
        renamed_in(text, &renames),
        "message: back-off restarting failed container=podinfo pod=checkout-5f6c8d9b7a-q2xkz\nReplicaSet \"checkout-5f6c8d9b7a\""
    );
}

/// The derived states (`based_on:`) take everything from their recording but what their moment
/// changes; the few generated names a change spells out (a pod named in kubelet's message) are
/// renamed with the recording.
fn rename_in_other_states(renames: &BTreeMap<String, String>) {
    let solved: Vec<String> = POINTS.iter().map(|(_, f)| format!("{f}.yaml")).collect();
    for entry in std::fs::read_dir(fixtures())
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if solved.contains(&name) || !name.ends_with(".yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let changed = renamed_in(&text, renames);
        if changed != text {
            std::fs::write(&path, changed).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

/// Each difference between the fixture's and the recording's objects, one line each.
fn differences(fixture: &str, recording: &str) -> Vec<String> {
    let (fixture, recording) = (objects(fixture), objects(recording));
    let mut lines = Vec::new();
    for (key, object) in &fixture {
        let Some(recorded) = recording.get(key) else {
            lines.push(format!("{key}: in the fixture, not recorded"));
            continue;
        };
        let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
        flatten(object, String::new(), &mut a);
        flatten(recorded, String::new(), &mut b);
        for (path, value) in &a {
            match b.get(path) {
                None => lines.push(format!("{key}{path}: fixture {value}, not recorded")),
                Some(other) if other != value => {
                    lines.push(format!("{key}{path}: fixture {value}, recorded {other}"))
                }
                _ => {}
            }
        }
        for (path, value) in &b {
            if !a.contains_key(path) {
                lines.push(format!("{key}{path}: recorded {value}, not in the fixture"));
            }
        }
    }
    for key in recording.keys().filter(|k| !fixture.contains_key(*k)) {
        lines.push(format!("{key}: recorded, not in the fixture"));
    }
    lines
}

#[test]
fn every_solved_fixture_is_the_recording_but_for_its_listed_differences() {
    let (cluster, walked, _lab) = walked();
    let served = served(cluster, &walked.lab);
    let served: Vec<(&str, &str)> = served
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let record = recording_asked();
    let mut all = Vec::new();
    let mut renames = BTreeMap::new();
    for (recorded, fixture) in POINTS {
        let fixture_path = fixtures().join(format!("{fixture}.yaml"));
        let read = |path: &Path| {
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let recording = as_fixture(
            &read(&walked.out.join(format!("{recorded}-snapshot.yaml"))),
            &read(&walked.out.join(format!("{recorded}-revisions.txt"))),
            &served,
            &format!("{recorded}: solved"),
        );
        if record {
            renames.extend(renamed(&read(&fixture_path), &recording));
            std::fs::write(&fixture_path, &recording)
                .unwrap_or_else(|e| panic!("{}: {e}", fixture_path.display()));
        }
        let fixture_text = read(&fixture_path);
        for line in differences(&fixture_text, &recording) {
            all.push(format!("{fixture}: {line}"));
        }
    }
    if record {
        rename_in_other_states(&renames);
    }
    let listed = crate::differences::listed();
    let unlisted: Vec<&String> = all
        .iter()
        .filter(|l| !listed.iter().any(|d| d.covers(l)))
        .collect();
    let stale: Vec<_> = listed
        .iter()
        .filter(|d| !d.sometimes && !all.iter().any(|l| d.covers(l)))
        .collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "fixtures differ from what Argo CD v3.6.2 wrote, unlisted:\n{}\n\nlisted but no longer seen:\n{stale:#?}",
        unlisted
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
