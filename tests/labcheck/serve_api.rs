//! `labcheck serve` over raw HTTP and through kube-rs: list shapes, selectors, Status bodies, the
//! request log, failure injection and the timeline.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use labcheck::serve::{self, RunningServer, ServeOptions};
use labcheck::snapshot::{Changes, Snapshot};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::harness::Labcheck;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn presync_failed() -> Snapshot {
    Snapshot::load(&fixture("presync-failed.yaml")).expect("the fixture is valid")
}

async fn serve_with(snapshot: Snapshot, options: ServeOptions) -> RunningServer {
    crate::harness::serve(snapshot, options).await
}

async fn serve_fixture() -> RunningServer {
    serve_with(presync_failed(), ServeOptions::default()).await
}

/// One HTTP answer.
struct Reply {
    status: u16,
    content_type: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    fn names(&self) -> Vec<String> {
        self.json()["items"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|i| i["metadata"]["name"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

/// A minimal HTTP/1.1 client: one request per connection, so nothing is hidden by a library.
async fn request(addr: SocketAddr, method: &str, target: &str, accept: Option<&str>) -> Reply {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    let accept = accept
        .map(|a| format!("Accept: {a}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\n{accept}Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("sends");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("reads");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a header block");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let content_type = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_default();
    Reply {
        status,
        content_type,
        body: body.to_string(),
    }
}

async fn get(server: &RunningServer, target: &str) -> Reply {
    request(server.addr, "GET", target, None).await
}

#[tokio::test]
async fn lists_carry_kind_version_and_items_as_a_real_server_renders_them() {
    let server = serve_fixture().await;
    let jobs = get(&server, "/apis/batch/v1/namespaces/checkout-dev/jobs").await;
    assert_eq!(jobs.status, 200);
    assert_eq!(jobs.content_type, "application/json");
    let list = jobs.json();
    assert_eq!(list["kind"], "JobList");
    assert_eq!(list["apiVersion"], "batch/v1");
    assert!(list["metadata"]["resourceVersion"].is_string());
    assert_eq!(jobs.names(), ["checkout-migrate", "checkout-sync-failed"]);
    // Built-in items come without kind/apiVersion; custom resources keep theirs.
    assert!(list["items"][0].get("kind").is_none());
    let apps = get(&server, "/apis/argoproj.io/v1alpha1/applications")
        .await
        .json();
    assert_eq!(apps["kind"], "ApplicationList");
    assert_eq!(apps["items"][0]["kind"], "Application");
    let one = get(
        &server,
        "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate",
    )
    .await
    .json();
    assert_eq!(one["kind"], "Job");
    assert_eq!(
        one["status"]["conditions"][1]["reason"],
        "BackoffLimitExceeded"
    );
}

#[tokio::test]
async fn label_selectors_filter_like_kubernetes() {
    let server = serve_fixture().await;
    let pods = |selector: &'static str| {
        let addr = server.addr;
        async move {
            request(
                addr,
                "GET",
                &format!("/api/v1/pods?labelSelector={selector}"),
                None,
            )
            .await
            .names()
        }
    };
    assert_eq!(
        pods("job-name%3Dcheckout-migrate").await,
        ["checkout-migrate-7xq2p"]
    );
    assert_eq!(
        pods("job-name%3D%3Dcheckout-migrate").await,
        ["checkout-migrate-7xq2p"]
    );
    assert_eq!(
        pods("job-name!%3Dcheckout-migrate").await,
        ["checkout-sync-failed-q8r4t"]
    );
    assert_eq!(
        pods("job-name+in+(checkout-migrate,checkout-sync-failed)")
            .await
            .len(),
        2
    );
    assert_eq!(
        pods("job-name%20notin%20(checkout-migrate)").await,
        ["checkout-sync-failed-q8r4t"]
    );
    assert_eq!(pods("job-name").await.len(), 2);
    assert!(pods("!job-name").await.is_empty());
    let broken = get(&server, "/api/v1/pods?labelSelector=job-name+in+oops").await;
    assert_eq!(broken.status, 400);
    assert_eq!(broken.json()["reason"], "BadRequest");
}

#[tokio::test]
async fn field_selectors_support_name_namespace_and_pod_phase() {
    let server = serve_fixture().await;
    let failed = get(&server, "/api/v1/pods?fieldSelector=status.phase%3DFailed").await;
    assert_eq!(failed.names(), ["checkout-migrate-7xq2p"]);
    let by_name = get(
        &server,
        "/apis/batch/v1/jobs?fieldSelector=metadata.name%3Dcheckout-sync-failed,metadata.namespace%3Dcheckout-dev",
    )
    .await;
    assert_eq!(by_name.names(), ["checkout-sync-failed"]);
    let unsupported = get(
        &server,
        "/apis/batch/v1/jobs?fieldSelector=status.phase%3DFailed",
    )
    .await;
    assert_eq!(unsupported.status, 400);
    assert_eq!(
        unsupported.json()["message"],
        "field label not supported: status.phase"
    );
}

#[tokio::test]
async fn a_missing_object_and_a_missing_resource_type_are_told_apart() {
    let server = serve_fixture().await;
    let missing_job = get(
        &server,
        "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-smoke-test",
    )
    .await;
    assert_eq!(missing_job.status, 404);
    assert_eq!(
        missing_job.json(),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "jobs.batch \"checkout-smoke-test\" not found", "reason": "NotFound",
            "details": {"name": "checkout-smoke-test", "group": "batch", "kind": "jobs"}, "code": 404
        })
    );
    let missing_pod = get(&server, "/api/v1/namespaces/checkout-dev/pods/nope")
        .await
        .json();
    assert_eq!(
        missing_pod["details"],
        json!({"name": "nope", "kind": "pods"})
    );

    // Without Argo CD in the snapshot, its type is not served at all.
    let no_argocd = serve_with(
        Snapshot::new().with_object(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "argocd"}}),
        ),
        ServeOptions::default(),
    )
    .await;
    let app = get(
        &no_argocd,
        "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev",
    )
    .await;
    // A group nobody serves never reaches an API handler: the mux's plain-text 404, as a real
    // kube-apiserver answers it (tests/real_apiserver/conformance.rs asks both).
    assert_eq!(app.status, 404);
    assert_eq!(app.body, "404 page not found\n");
    assert!(
        app.content_type.starts_with("text/plain"),
        "{}",
        app.content_type
    );
    // A kind a served group does not have is a JSON Status.
    let widget = get(&no_argocd, "/apis/batch/v1/namespaces/argocd/widgets/x").await;
    assert_eq!(widget.status, 404);
    assert_eq!(
        widget.json(),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the server could not find the requested resource", "reason": "NotFound",
            "details": {}, "code": 404
        })
    );
    let groups = get(&no_argocd, "/apis").await.json();
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert!(
        names.contains(&"batch") && !names.contains(&"argoproj.io"),
        "{names:?}"
    );
}

#[tokio::test]
async fn discovery_describes_applications_with_their_short_names() {
    let server = serve_fixture().await;
    let resources = get(&server, "/apis/argoproj.io/v1alpha1").await.json();
    assert_eq!(resources["kind"], "APIResourceList");
    let app = resources["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .find(|r| r["name"] == "applications")
        .expect("applications are served")
        .clone();
    assert_eq!(app["shortNames"], json!(["app", "apps"]));
    assert_eq!(app["namespaced"], true);
    assert_eq!(app["verbs"], json!(["get", "list", "watch"]));
    let core = get(&server, "/api/v1").await.json();
    assert!(
        core["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .any(|r| r["name"] == "pods/log")
    );
    assert_eq!(get(&server, "/version").await.json()["major"], "1");
}

#[tokio::test]
async fn a_crd_alone_serves_its_type_with_an_empty_list() {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "applications.argoproj.io"},
        "spec": {"group": "argoproj.io", "scope": "Namespaced",
                 "names": {"kind": "Application", "plural": "applications", "shortNames": ["app", "apps"]},
                 "versions": [{"name": "v1alpha1", "served": true, "storage": true}]}
    });
    let server = serve_with(Snapshot::new().with_object(crd), ServeOptions::default()).await;
    let list = get(
        &server,
        "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications",
    )
    .await;
    assert_eq!(list.status, 200);
    assert!(list.names().is_empty());
    let one = get(
        &server,
        "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev",
    )
    .await
    .json();
    assert_eq!(
        one["message"],
        "applications.argoproj.io \"checkout-dev\" not found"
    );
}

#[tokio::test]
async fn pod_logs_honour_container_tail_limit_and_previous() {
    let server = serve_fixture().await;
    let base = "/api/v1/namespaces/checkout-dev/pods/checkout-migrate-7xq2p/log";
    let whole = get(&server, base).await;
    assert_eq!(whole.status, 200);
    assert_eq!(whole.content_type, "text/plain");
    assert!(whole.body.starts_with("running migration"));
    let tail = get(&server, &format!("{base}?container=migrate&tailLines=1")).await;
    assert_eq!(tail.body, "ERROR: migration failed (migration.fail=true)\n");
    let limited = get(&server, &format!("{base}?limitBytes=7")).await;
    assert_eq!(limited.body, "running");
    let wrong = get(&server, &format!("{base}?container=main")).await;
    assert_eq!(wrong.status, 400);
    assert_eq!(
        wrong.json()["message"],
        "container main is not valid for pod checkout-migrate-7xq2p"
    );
    let previous = get(&server, &format!("{base}?previous=true")).await;
    assert_eq!(previous.status, 400);
    assert_eq!(
        previous.json()["message"],
        "previous terminated container \"migrate\" in pod \"checkout-migrate-7xq2p\" not found"
    );
    let no_pod = get(&server, "/api/v1/namespaces/checkout-dev/pods/gone/log").await;
    assert_eq!(no_pod.status, 404);
    assert_eq!(no_pod.json()["message"], "pods \"gone\" not found");
}

#[tokio::test]
async fn a_waiting_container_has_no_log_yet() {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "checkout-5d9f", "namespace": "checkout-dev"},
        "spec": {"containers": [{"name": "podinfo", "image": "ghcr.io/stefanprodan/podinfo:6.7.1"}]},
        "status": {"phase": "Pending", "containerStatuses": [{"name": "podinfo", "ready": false, "restartCount": 0,
            "state": {"waiting": {"reason": "CreateContainerConfigError", "message": "configmap \"checkout-config\" not found"}}}]}
    });
    let server = serve_with(Snapshot::new().with_object(pod), ServeOptions::default()).await;
    let log = get(
        &server,
        "/api/v1/namespaces/checkout-dev/pods/checkout-5d9f/log",
    )
    .await;
    assert_eq!(log.status, 400);
    assert_eq!(
        log.json()["message"],
        "container \"podinfo\" in pod \"checkout-5d9f\" is waiting to start: CreateContainerConfigError"
    );
}

#[tokio::test]
async fn writes_and_watches_are_refused_and_recorded() {
    let server = serve_fixture().await;
    let job = "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate";
    for method in ["DELETE", "PUT", "PATCH"] {
        let reply = request(server.addr, method, job, None).await;
        assert_eq!(reply.status, 405, "{method}");
        assert_eq!(reply.json()["reason"], "MethodNotAllowed");
    }
    let create = request(
        server.addr,
        "POST",
        "/apis/batch/v1/namespaces/checkout-dev/jobs",
        None,
    )
    .await;
    assert_eq!(create.status, 405);
    // Collections are watched (see waiting.rs); a watch of one object by its path is not.
    let watch = get(&server, &format!("{job}?watch=true")).await;
    assert_eq!(watch.status, 405);
    assert!(
        watch.json()["message"]
            .as_str()
            .unwrap_or("")
            .contains("watch")
    );
    let writes = server.requests.writes();
    assert_eq!(
        writes.iter().map(|w| w.method.as_str()).collect::<Vec<_>>(),
        ["DELETE", "PUT", "PATCH", "POST"]
    );
    assert!(writes.iter().all(|w| w.status == 405));
}

#[tokio::test]
async fn the_request_log_shows_each_read_with_its_query_and_status() {
    let server = serve_fixture().await;
    let job = "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate";
    get(&server, job).await;
    get(
        &server,
        "/api/v1/namespaces/checkout-dev/pods?labelSelector=job-name%3Dx",
    )
    .await;
    get(&server, "/apis/batch/v1/namespaces/checkout-dev/jobs/nope").await;
    assert_eq!(server.requests.count("GET", job), 1);
    let entries = server.requests.entries();
    assert_eq!(entries.len(), 3);
    assert_eq!(
        entries[1].query.as_deref(),
        Some("labelSelector=job-name%3Dx")
    );
    assert_eq!(
        entries.iter().map(|e| e.status).collect::<Vec<_>>(),
        [200, 200, 404]
    );
    assert!(server.requests.writes().is_empty());
    server.requests.clear();
    assert!(server.requests.entries().is_empty());
}

#[tokio::test]
async fn the_request_log_file_gets_a_line_per_answer_as_it_is_answered() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("requests.log");
    let server = serve_with(
        presync_failed(),
        ServeOptions {
            request_log: Some(file.clone()),
            ..ServeOptions::default()
        },
    )
    .await;
    get(
        &server,
        "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate",
    )
    .await;
    get(
        &server,
        "/api/v1/namespaces/checkout-dev/pods?labelSelector=job-name%3Dx",
    )
    .await;
    // Read while the server still runs: lines are written as requests are answered.
    let text = std::fs::read_to_string(&file).expect("request log");
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0][0].parse::<u64>().is_ok(), "{text}");
    assert_eq!(
        lines[1][1..],
        [
            "GET",
            "/api/v1/namespaces/checkout-dev/pods?labelSelector=job-name%3Dx",
            "200"
        ]
    );
}

#[tokio::test]
async fn injected_failures_answer_with_real_status_bodies() {
    let forbidden = serve_with(
        presync_failed(),
        ServeOptions {
            fail_with: Some(403),
            fail_resources: vec!["applications".to_string()],
            user: "learner".to_string(),
            ..ServeOptions::default()
        },
    )
    .await;
    let app = get(
        &forbidden,
        "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev",
    )
    .await;
    assert_eq!(app.status, 403);
    assert_eq!(
        app.json()["message"],
        "applications.argoproj.io \"checkout-dev\" is forbidden: User \"learner\" cannot get resource \"applications\" in API group \"argoproj.io\" in the namespace \"argocd\""
    );
    assert_eq!(
        app.json()["details"],
        json!({"name": "checkout-dev", "group": "argoproj.io", "kind": "applications"})
    );
    // Only the named resource fails; discovery and other resources still answer.
    assert_eq!(get(&forbidden, "/apis/batch/v1/jobs").await.status, 200);
    assert_eq!(get(&forbidden, "/apis").await.status, 200);

    let all_jobs = serve_with(
        presync_failed(),
        ServeOptions {
            fail_with: Some(403),
            ..ServeOptions::default()
        },
    )
    .await;
    let list = get(&all_jobs, "/apis/batch/v1/jobs").await.json();
    assert_eq!(
        list["message"],
        "jobs.batch is forbidden: User \"system:serviceaccount:default:learner\" cannot list resource \"jobs\" in API group \"batch\" at the cluster scope"
    );
    let log = get(&all_jobs, "/api/v1/namespaces/checkout-dev/pods/p/log")
        .await
        .json();
    assert_eq!(
        log["message"],
        "pods \"p\" is forbidden: User \"system:serviceaccount:default:learner\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"checkout-dev\""
    );

    let unauthorized = serve_with(
        presync_failed(),
        ServeOptions {
            fail_with: Some(401),
            ..ServeOptions::default()
        },
    )
    .await;
    let version = get(&unauthorized, "/version").await;
    assert_eq!(version.status, 401);
    assert_eq!(version.json()["reason"], "Unauthorized");

    let broken = serve_with(
        presync_failed(),
        ServeOptions {
            fail_with: Some(500),
            ..ServeOptions::default()
        },
    )
    .await;
    let reply = get(&broken, "/apis/batch/v1/jobs").await;
    assert_eq!(reply.status, 500);
    assert_eq!(reply.json()["reason"], "InternalError");
}

#[tokio::test]
async fn the_timeline_switches_state_once_its_time_has_passed() {
    let running = json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "checkout-smoke-test", "namespace": "checkout-dev"},
        "spec": {"completions": 1}, "status": {"active": 1}
    });
    let mut complete = running.clone();
    complete["status"] = json!({"succeeded": 1, "conditions": [
        {"type": "Complete", "status": "True", "reason": "CompletionsReached", "message": "Reached expected number of succeeded pods"}]});
    let snapshot = Snapshot::new()
        .with_object(running)
        .then_after(Duration::from_secs(1), Changes::new().with_object(complete))
        .then_after(
            Duration::from_secs(2),
            Changes::new().deleting("batch/v1", "Job", "checkout-dev", "checkout-smoke-test"),
        );
    let server = serve_with(snapshot, ServeOptions::default()).await;
    let path = "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-smoke-test";
    let first = get(&server, path).await.json();
    assert_eq!(first["status"]["active"], 1);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let second = get(&server, path).await.json();
    assert_eq!(second["status"]["conditions"][0]["type"], "Complete");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(get(&server, path).await.status, 404);
}

#[tokio::test]
async fn latency_delays_every_answer() {
    let server = serve_with(
        presync_failed(),
        ServeOptions {
            latency: Duration::from_millis(150),
            ..ServeOptions::default()
        },
    )
    .await;
    let started = Instant::now();
    assert_eq!(get(&server, "/version").await.status, 200);
    assert!(started.elapsed() >= Duration::from_millis(150));
}

#[tokio::test]
async fn kubectl_style_tables_show_job_status_and_completions() {
    let server = serve_fixture().await;
    let table = request(
        server.addr,
        "GET",
        "/apis/batch/v1/namespaces/checkout-dev/jobs",
        Some("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"),
    )
    .await
    .json();
    assert_eq!(table["kind"], "Table");
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .expect("columns")
        .iter()
        .filter(|c| c["priority"] == 0)
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        columns,
        ["Name", "Status", "Completions", "Duration", "Age"]
    );
    assert_eq!(table["rows"][0]["cells"][0], "checkout-migrate");
    assert_eq!(table["rows"][0]["cells"][2], "0/1");
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

#[tokio::test]
async fn a_stopped_server_refuses_connections() {
    let server = serve_fixture().await;
    let addr = server.addr;
    assert_eq!(get(&server, "/version").await.status, 200);
    server.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn kube_rs_reads_jobs_logs_and_applications_through_a_written_kubeconfig() {
    use k8s_openapi::api::batch::v1::Job;
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, LogParams};

    let server = serve_fixture().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("kubeconfig");
    serve::write_kubeconfig(&path, &server.url(), "labcheck").expect("written");
    let kubeconfig = kube::config::Kubeconfig::read_from(&path).expect("kube-rs reads it");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("a config");
    let client = kube::Client::try_from(config).expect("a client");

    let jobs: Api<Job> = Api::namespaced(client.clone(), "checkout-dev");
    let listed = jobs
        .list(&ListParams::default().labels("job-name=checkout-migrate"))
        .await
        .expect("jobs listed");
    assert_eq!(listed.items.len(), 1);
    let status = listed.items[0].status.clone().unwrap_or_default();
    assert_eq!(status.failed, Some(1));

    let missing = jobs
        .get("checkout-smoke-test")
        .await
        .expect_err("not there");
    match missing {
        kube::Error::Api(status) => {
            assert!(status.is_not_found());
            assert_eq!(
                status.message,
                "jobs.batch \"checkout-smoke-test\" not found"
            );
        }
        other => panic!("expected a Status, got {other:?}"),
    }

    let pods: Api<Pod> = Api::namespaced(client.clone(), "checkout-dev");
    let log = pods
        .logs(
            "checkout-migrate-7xq2p",
            &LogParams {
                tail_lines: Some(1),
                ..LogParams::default()
            },
        )
        .await
        .expect("a log");
    assert_eq!(log, "ERROR: migration failed (migration.fail=true)\n");

    let gvk = GroupVersionKind::gvk("argoproj.io", "v1alpha1", "Application");
    let apps: Api<DynamicObject> =
        Api::namespaced_with(client, "argocd", &ApiResource::from_gvk(&gvk));
    let app = apps.get("checkout-dev").await.expect("the app");
    assert_eq!(
        app.data["status"]["operationState"]["message"],
        "one or more synchronization tasks completed unsuccessfully"
    );
    assert!(server.requests.writes().is_empty());
}

#[tokio::test]
async fn the_example_in_docs_snapshot_md_loads_and_serves() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/snapshot.md"))
            .expect("docs/snapshot.md");
    let example = doc
        .split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split_once("```").map(|(yaml, _)| yaml))
        .find(|yaml| yaml.starts_with("format: labcheck-snapshot/v1"))
        .expect("the documented example");
    let snapshot = Snapshot::from_yaml_str(example).expect("the documented example is valid");
    assert_eq!(snapshot.states().len(), 3);
    let server = serve_with(snapshot, ServeOptions::default()).await;
    let log = get(
        &server,
        "/api/v1/namespaces/checkout-dev/pods/checkout-migrate-7xq2p/log",
    )
    .await;
    assert_eq!(log.body, "running migration 0042_add_orders_index\n");
}

#[test]
fn the_serve_command_refuses_a_broken_snapshot_naming_file_line_and_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("snap.yaml");
    std::fs::write(
        &path,
        "format: labcheck-snapshot/v1\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: argocd-cm, namespace: argocd}\n    data: [unclosed\n",
    )
    .expect("written");
    let run = Labcheck::new(dir.path()).arg("serve").arg(&path).run();
    assert_eq!(run.code, 2);
    let stderr = &run.stderr;
    assert!(
        stderr.starts_with(&format!("labcheck: {}:7:1: ", path.display())),
        "{stderr}"
    );

    std::fs::write(
        &path,
        "format: labcheck-snapshot/v1\nobjects:\n  - {apiVersion: argoproj.io/v1, kind: Application, metadata: {name: checkout-dev, namespace: argocd}}\n",
    )
    .expect("written");
    let run = Labcheck::new(dir.path()).arg("serve").arg(&path).run();
    assert_eq!(run.code, 2);
    let stderr = &run.stderr;
    assert!(
        stderr.contains("objects[0] (checkout-dev): unknown kind Application (apiVersion argoproj.io/v1); Application is served as apiVersion argoproj.io/v1alpha1"),
        "{stderr}"
    );
}

#[test]
fn a_snapshot_written_back_as_yaml_reads_the_same() {
    let original = presync_failed();
    let yaml = original.to_yaml().expect("serialises");
    let again = Snapshot::from_yaml_str(&yaml).expect("reads back");
    assert_eq!(again, original);
    // Strings that look like other YAML types stay strings.
    assert_eq!(
        again.objects[2]["metadata"]["resourceVersion"],
        json!("4711")
    );
}
