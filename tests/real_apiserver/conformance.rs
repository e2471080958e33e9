//! `labcheck serve` conformance: the requests labcheck and kubectl make, asked of the real API
//! server and of `labcheck serve` holding the same objects (module 10's step-4 state), answers
//! compared field by field: status code, media type, `Status` reason, code, message and details,
//! the names of a list's items and every field serve returns (the real server may add defaults),
//! watch events, Table columns and cells, discovery, pod logs. What differs is either fixed in
//! `src/serve/` or listed in `docs/serve.md` with why it does not matter; [`KNOWN`] is that list,
//! so a new difference fails here and a fixed one must leave the list.

use serde_json::Value;

use labcheck::serve::ServeOptions;
use labcheck::snapshot::Snapshot;

use crate::api::{Answer, call_with};
use crate::kubeconfig::client;
use crate::plane::{block_on, plane};

const JSON: &str = "application/json";
const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/// How two answers are compared.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    /// A Kubernetes object, a list or a Status.
    Object,
    /// A watch stream: its events in order.
    Watch,
    /// A Table (`kubectl get`).
    Table,
    /// Discovery: the resources serve lists must be listed alike.
    Discovery,
    /// Plain text (a pod log).
    Text,
}

/// The differences `docs/serve.md` lists, as (request, what differs): each must still be found.
const KNOWN: &[(&str, &str)] = &[
    // serve is read-only: discovery lists the read verbs only.
    (
        "discovery /api/v1",
        r#"/verbs: serve ["get","list","watch"]"#,
    ),
    ("discovery /api/v1", r#"/verbs: serve ["get"]"#),
    (
        "discovery batch/v1",
        r#"/verbs: serve ["get","list","watch"]"#,
    ),
    ("discovery batch/v1", r#"/verbs: serve ["get"]"#),
    (
        "discovery argoproj.io/v1alpha1",
        r#"/verbs: serve ["get","list","watch"]"#,
    ),
];

fn events(answer: &Answer) -> Vec<Value> {
    answer
        .text()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or(Value::String(l.to_string())))
        .collect()
}

/// Every field of `served` the real answer does not hold the same (paths), ignoring what each
/// server makes its own (`uid`, `resourceVersion`, `managedFields`).
fn subset(at: &str, served: &Value, real: &Value, out: &mut Vec<String>) {
    match (served, real) {
        (Value::Object(s), Value::Object(r)) => {
            for (key, value) in s {
                if ["uid", "resourceVersion", "managedFields"].contains(&key.as_str()) {
                    continue;
                }
                let path = format!("{at}/{key}");
                match r.get(key) {
                    Some(rv) => subset(&path, value, rv, out),
                    None => out.push(format!(
                        "{path}: serve has {value}, the real server nothing"
                    )),
                }
            }
        }
        (Value::Array(s), Value::Array(r)) if s.len() == r.len() => {
            for (i, (sv, rv)) in s.iter().zip(r).enumerate() {
                subset(&format!("{at}/{i}"), sv, rv, out);
            }
        }
        _ if served == real => {}
        _ => out.push(format!("{at}: serve {served}, real {real}")),
    }
}

fn media(answer: &Answer) -> String {
    answer
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

fn names(list: &Value) -> Vec<String> {
    let mut names: Vec<String> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| i["metadata"]["name"].as_str().unwrap_or("").to_string())
        .collect();
    names.sort();
    names
}

/// The differences between serve's answer and the real one.
fn compare(shape: Shape, served: &Answer, real: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    if served.code != real.code {
        out.push(format!(
            "status code: serve {}, real {} ({})",
            served.code,
            real.code,
            real.text().chars().take(300).collect::<String>()
        ));
        return out;
    }
    if media(served) != media(real) {
        out.push(format!(
            "media type: serve {}, real {}",
            media(served),
            media(real)
        ));
    }
    let (s, r) = (&served.body, &real.body);
    match shape {
        Shape::Text => {
            if served.raw != real.raw {
                out.push(format!(
                    "body: serve {:?}, real {:?}",
                    served.text(),
                    real.text()
                ));
            }
        }
        Shape::Object if r["kind"] == "Status" || s["kind"] == "Status" => {
            for field in ["kind", "status", "reason", "code", "message"] {
                if s[field] != r[field] {
                    out.push(format!(
                        "Status {field}: serve {}, real {}",
                        s[field], r[field]
                    ));
                }
            }
            subset("/details", &s["details"], &r["details"], &mut out);
            subset("/details", &r["details"], &s["details"], &mut out);
        }
        Shape::Object if r["items"].is_array() => {
            if s["kind"] != r["kind"] || s["apiVersion"] != r["apiVersion"] {
                out.push(format!(
                    "list kind: serve {} {}, real {} {}",
                    s["apiVersion"], s["kind"], r["apiVersion"], r["kind"]
                ));
            }
            if names(s) != names(r) {
                out.push(format!("items: serve {:?}, real {:?}", names(s), names(r)));
            } else {
                let by_name = |v: &Value| {
                    let mut items = v["items"].as_array().cloned().unwrap_or_default();
                    items.sort_by_key(|i| i["metadata"]["name"].as_str().unwrap_or("").to_string());
                    items
                };
                for (si, ri) in by_name(s).iter().zip(by_name(r).iter()) {
                    let mut d = Vec::new();
                    subset("", si, ri, &mut d);
                    let name = si["metadata"]["name"].as_str().unwrap_or("");
                    out.extend(d.into_iter().map(|d| format!("item {name}: {d}")));
                }
            }
        }
        Shape::Object => subset("", s, r, &mut out),
        Shape::Watch => {
            let (se, re) = (events(served), events(real));
            let brief = |e: &Vec<Value>| -> Vec<String> {
                let mut v: Vec<String> = e
                    .iter()
                    .map(|e| {
                        if e["type"] == "ERROR" {
                            format!("ERROR {} {}", e["object"]["code"], e["object"]["reason"])
                        } else {
                            format!(
                                "{} {}",
                                e["type"].as_str().unwrap_or("?"),
                                e["object"]["metadata"]["name"].as_str().unwrap_or("")
                            )
                        }
                    })
                    .collect();
                v.sort();
                v
            };
            if brief(&se) != brief(&re) {
                out.push(format!(
                    "events: serve {:?}, real {:?}",
                    brief(&se),
                    brief(&re)
                ));
            }
            // `too old resource version: 1 (1000)`: the number in brackets is each server's own.
            let bare = |v: &Value| {
                v.as_str()
                    .map(|m| Value::String(m.split(" (").next().unwrap_or(m).to_string()))
                    .unwrap_or(v.clone())
            };
            for (a, b) in se
                .iter()
                .zip(re.iter())
                .filter(|(a, _)| a["type"] == "ERROR")
            {
                for field in ["message", "reason", "code"] {
                    if bare(&a["object"][field]) != bare(&b["object"][field]) {
                        out.push(format!(
                            "ERROR {field}: serve {}, real {}",
                            a["object"][field], b["object"][field]
                        ));
                    }
                }
            }
        }
        Shape::Table => {
            let columns = |t: &Value| -> Vec<String> {
                t["columnDefinitions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        format!(
                            "{} ({}, priority {})",
                            c["name"].as_str().unwrap_or(""),
                            c["type"].as_str().unwrap_or(""),
                            c["priority"].as_i64().unwrap_or(0)
                        )
                    })
                    .collect()
            };
            if columns(s) != columns(r) {
                out.push(format!(
                    "columns: serve {:?}, real {:?}",
                    columns(s),
                    columns(r)
                ));
            }
            let rows = |t: &Value| -> Vec<String> {
                let mut rows: Vec<String> = t["rows"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|row| row["cells"].to_string())
                    .collect();
                rows.sort();
                rows
            };
            if rows(s) != rows(r) {
                out.push(format!("rows: serve {:?}, real {:?}", rows(s), rows(r)));
            }
        }
        Shape::Discovery => {
            let served_resources = s["resources"].as_array().cloned().unwrap_or_default();
            for resource in &served_resources {
                let name = resource["name"].as_str().unwrap_or("");
                match r["resources"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|x| x["name"] == name)
                {
                    None => out.push(format!("{name}: only serve lists it")),
                    Some(real_resource) => {
                        let mut d = Vec::new();
                        subset("", resource, real_resource, &mut d);
                        out.extend(d.into_iter().map(|d| format!("{name}: {d}")));
                    }
                }
            }
            if s["groupVersion"] != r["groupVersion"] {
                out.push(format!(
                    "groupVersion: serve {}, real {}",
                    s["groupVersion"], r["groupVersion"]
                ));
            }
        }
    }
    out
}

#[test]
fn serve_answers_labcheck_and_kubectls_requests_as_the_real_api_server_does() {
    let plane = plane();
    let done = crate::step_4_done();
    let (migrate_pod, _) = done.migrate_pod();
    // The real server's uids read as the snapshot's, so objects compare field by field.
    let (asked, found) = ask_both(&done.snapshot, &done.real_to_fixture(), &migrate_pod);
    eprintln!(
        "serve conformance: {asked} requests compared, {} differences",
        found.len()
    );
    assert_known(&found);
    // `labcheck serve` of a `labcheck snapshot` of the real server answers as the real server
    // did: its objects are the real ones (uids and all).
    let captured = crate::captures::snapshot_of_real(
        plane,
        "module-10",
        &done.world.work_dir(),
        &done.dir.path().join("captured.yaml"),
    );
    let (asked, found) = ask_both(&captured, &[], &migrate_pod);
    eprintln!(
        "serve conformance of a snapshot of the real server: {asked} requests compared, {} differences",
        found.len()
    );
    assert_known(&found);
}

/// Ask the plane (its state loaded) and `labcheck serve` of `snapshot` the table's requests:
/// how many, and each difference as (request, what differs). `real_to_fixture` maps the real
/// server's uids to the snapshot's; `migrate_pod` is the migration hook's pod.
fn ask_both(
    snapshot: &Snapshot,
    real_to_fixture: &[(String, String)],
    migrate_pod: &str,
) -> (usize, Vec<(String, String)>) {
    let plane = plane();
    let as_fixture = |mut answer: Answer| {
        let mut text = answer.text();
        for (real, fixture) in real_to_fixture {
            text = text.replace(real.as_str(), fixture);
        }
        answer.raw = text.clone().into_bytes();
        answer.body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        answer
    };
    let served = crate::serve_on_loopback(snapshot.clone(), ServeOptions::default());
    let denying = crate::serve_on_loopback(
        snapshot.clone(),
        ServeOptions {
            fail_with: Some(403),
            user: "learner".to_string(),
            ..ServeOptions::default()
        },
    );
    let http_client = |url: &str| {
        let mut config = kube::Config::new(url.parse().expect("a URL"));
        config.root_cert = Some(Vec::new());
        // kube's client spawns its buffer on the runtime it is made in.
        let _in_runtime = crate::plane::RT.enter();
        kube::Client::try_from(config).expect("a client")
    };
    let serve_client = http_client(&served.url());
    let denying_client = http_client(&denying.url());
    let learner = block_on(client(&plane.learner_kubeconfig)).expect("the learner's client");

    let pods = "/api/v1/namespaces/checkout-dev/pods";
    let jobs = "/apis/batch/v1/namespaces/checkout-dev/jobs";
    let apps = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications";
    // A list's resourceVersion, per server, to watch from.
    let list_rv = |c: &kube::Client| {
        block_on(call_with(c, "GET", jobs, None, JSON, JSON))
            .map(|a| {
                a.body["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    };
    let (serve_rv, real_rv) = (list_rv(&serve_client), list_rv(&plane.admin));
    // What kube-apiserver does every 5 minutes, now: resourceVersion 1 is compacted away.
    block_on(async { crate::loader::Etcd::new(&plane.etcd)?.compact().await }).expect("compaction");

    // (name, shape, path, accept, whose: admin or the refused learner)
    let table: Vec<(&str, Shape, String, &str, bool)> = vec![
        (
            "get a Job",
            Shape::Object,
            format!("{jobs}/checkout-migrate"),
            JSON,
            false,
        ),
        (
            "get an Application",
            Shape::Object,
            format!("{apps}/checkout-dev"),
            JSON,
            false,
        ),
        (
            "get a missing Job (404)",
            Shape::Object,
            format!("{jobs}/nope"),
            JSON,
            false,
        ),
        (
            "get a missing Application (404)",
            Shape::Object,
            format!("{apps}/nope"),
            JSON,
            false,
        ),
        (
            "get in a missing namespace (404)",
            Shape::Object,
            "/apis/batch/v1/namespaces/nowhere/jobs/x".into(),
            JSON,
            false,
        ),
        ("list Jobs", Shape::Object, jobs.into(), JSON, false),
        (
            "list pods by label",
            Shape::Object,
            format!("{pods}?labelSelector=job-name%3Dcheckout-migrate"),
            JSON,
            false,
        ),
        (
            "list pods by set label",
            Shape::Object,
            format!(
                "{pods}?labelSelector=job-name+in+%28checkout-migrate%2Ccheckout-sync-failed%29"
            ),
            JSON,
            false,
        ),
        (
            "list pods by field",
            Shape::Object,
            format!("{pods}?fieldSelector=status.phase%3DFailed"),
            JSON,
            false,
        ),
        (
            "list pods by name",
            Shape::Object,
            format!("{pods}?fieldSelector=metadata.name%3D{migrate_pod}"),
            JSON,
            false,
        ),
        (
            "list pods by an unsupported field (400)",
            Shape::Object,
            format!("{pods}?fieldSelector=spec.dnsPolicy%3DDefault"),
            JSON,
            false,
        ),
        (
            "list Applications in all namespaces",
            Shape::Object,
            "/apis/argoproj.io/v1alpha1/applications".into(),
            JSON,
            false,
        ),
        (
            "a group nobody serves (404)",
            Shape::Text,
            "/apis/example.com/v1/namespaces/x/widgets".into(),
            JSON,
            false,
        ),
        (
            "a kind a served group does not have (404)",
            Shape::Object,
            "/apis/batch/v1/namespaces/x/widgets".into(),
            JSON,
            false,
        ),
        (
            "discovery of a group nobody serves (404)",
            Shape::Text,
            "/apis/example.com/v1".into(),
            JSON,
            false,
        ),
        (
            "watch Jobs from the start",
            Shape::Watch,
            format!("{jobs}?watch=1&timeoutSeconds=1"),
            JSON,
            false,
        ),
        (
            "watch Jobs from a list, bookmarks",
            Shape::Watch,
            format!("{jobs}?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=RV"),
            JSON,
            false,
        ),
        (
            "watch Jobs from a list, no bookmarks",
            Shape::Watch,
            format!("{jobs}?watch=1&timeoutSeconds=1&resourceVersion=RV"),
            JSON,
            false,
        ),
        // On a young server resourceVersion 1 is still in the watch cache of kinds served since
        // the start (its window opens at the first list); Applications are served from later.
        (
            "watch from a compacted resourceVersion (410)",
            Shape::Watch,
            format!("{apps}?watch=1&timeoutSeconds=1&resourceVersion=1"),
            JSON,
            false,
        ),
        (
            "kubectl get jobs (Table)",
            Shape::Table,
            jobs.into(),
            TABLE,
            false,
        ),
        (
            "kubectl get pods (Table)",
            Shape::Table,
            pods.into(),
            TABLE,
            false,
        ),
        (
            "kubectl get applications (Table)",
            Shape::Table,
            apps.into(),
            TABLE,
            false,
        ),
        (
            "discovery /api/v1",
            Shape::Discovery,
            "/api/v1".into(),
            JSON,
            false,
        ),
        (
            "discovery batch/v1",
            Shape::Discovery,
            "/apis/batch/v1".into(),
            JSON,
            false,
        ),
        (
            "discovery argoproj.io/v1alpha1",
            Shape::Discovery,
            "/apis/argoproj.io/v1alpha1".into(),
            JSON,
            false,
        ),
        (
            "pod log",
            Shape::Text,
            format!("{pods}/{migrate_pod}/log"),
            "*/*",
            false,
        ),
        (
            "pod log, tailLines=1",
            Shape::Text,
            format!("{pods}/{migrate_pod}/log?tailLines=1"),
            "*/*",
            false,
        ),
        (
            "pod log, limitBytes=10",
            Shape::Text,
            format!("{pods}/{migrate_pod}/log?limitBytes=10"),
            "*/*",
            false,
        ),
        (
            "pod log, follow (ended container)",
            Shape::Text,
            format!("{pods}/{migrate_pod}/log?follow=true"),
            "*/*",
            false,
        ),
        (
            "pod log, previous (none: 400)",
            Shape::Object,
            format!("{pods}/{migrate_pod}/log?previous=true"),
            "*/*",
            false,
        ),
        (
            "pod log, a container it does not have (400)",
            Shape::Object,
            format!("{pods}/{migrate_pod}/log?container=nope"),
            "*/*",
            false,
        ),
        (
            "pod log of a missing pod (404)",
            Shape::Object,
            format!("{pods}/nope/log"),
            "*/*",
            false,
        ),
        (
            "refused: get a Job (403)",
            Shape::Object,
            format!("{jobs}/checkout-migrate"),
            JSON,
            true,
        ),
        (
            "refused: list Applications (403)",
            Shape::Object,
            apps.into(),
            JSON,
            true,
        ),
        (
            "refused: a pod log (403)",
            Shape::Object,
            format!("{pods}/{migrate_pod}/log"),
            "*/*",
            true,
        ),
    ];
    let mut found: Vec<(String, String)> = Vec::new();
    for (name, shape, path, accept, refused) in &table {
        let (serve_path, real_path) = (path.replace("RV", &serve_rv), path.replace("RV", &real_rv));
        let (s_client, r_client) = if *refused {
            (&denying_client, &learner)
        } else {
            (&serve_client, &plane.admin)
        };
        let s = block_on(call_with(s_client, "GET", &serve_path, None, JSON, accept))
            .unwrap_or_else(|e| panic!("{name}: serve: {e}"));
        let r = block_on(call_with(r_client, "GET", &real_path, None, JSON, accept))
            .map(as_fixture)
            .unwrap_or_else(|e| panic!("{name}: real: {e}"));
        for difference in compare(*shape, &s, &r) {
            found.push((name.to_string(), difference));
        }
    }
    (table.len(), found)
}

/// Every difference found is one `docs/serve.md` lists, and every one it lists is still found.
fn assert_known(found: &[(String, String)]) {
    let unexplained: Vec<String> = found
        .iter()
        .filter(|(name, d)| !KNOWN.iter().any(|(n, k)| n == name && d.contains(k)))
        .map(|(name, d)| format!("{name}: {d}"))
        .collect();
    let gone: Vec<String> = KNOWN
        .iter()
        .filter(|(n, k)| !found.iter().any(|(name, d)| name == n && d.contains(k)))
        .map(|(n, k)| format!("{n}: {k}"))
        .collect();
    assert!(
        unexplained.is_empty() && gone.is_empty(),
        "differences not in docs/serve.md:\n{}\n\nlisted in docs/serve.md but no longer found:\n{}",
        unexplained.join("\n"),
        gone.join("\n")
    );
}
