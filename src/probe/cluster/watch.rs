//! Watch streams for waiting: one list-then-watch per kind and namespace a waiting check reads,
//! feeding the run's cache, so a check re-evaluates the moment the object changes instead of
//! re-reading it every second.
//!
//! The stream follows the API's protocol as `kubectl get -w` and kube's watcher do: list (for the
//! objects and the list's `resourceVersion`), then `?watch=1&resourceVersion=RV&
//! allowWatchBookmarks=true`; each event carries the object and a newer resourceVersion; a
//! BOOKMARK only moves the resourceVersion on; `410 Gone` (as the status of the request, or as an
//! ERROR event) means that version is too old: list again. A server that refuses to watch (403,
//! 405) leaves that kind to the runner's once-a-second poll.

pub use super::target::{Target, target};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::OnceCell;

use super::api::RawResponse;
use super::tasks::Streams;
use super::{Cell, Entry};
use crate::serve::LabelSelector;

/// How long a watch request may stay open before the server ends it (kube's watcher asks for
/// 290 s); the stream is then resumed from the last resourceVersion.
pub const WATCH_SECONDS: u64 = 290;

/// After a stream broke for another reason than 410, wait this long before listing again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The run's cache of reads, shared with the watch tasks that feed it.
pub(super) type Cache = Arc<Mutex<HashMap<String, Entry>>>;

/// Lock the cache; a panic elsewhere leaves it a map of finished or in-flight reads, still valid.
pub(super) fn lock(cache: &Cache) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
    cache.lock().unwrap_or_else(|p| p.into_inner())
}

/// The state of one kind's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamState {
    /// Listing or (re)connecting: its reads are not kept fresh yet.
    Starting,
    /// Listed and watching: its cached reads are the cluster's current state.
    Live,
    /// The server will not list or watch it: its reads are polled.
    Refused,
}

/// The streams of one run, by collection URL (`/apis/batch/v1/namespaces/ns/jobs`).
#[derive(Default)]
pub struct Watches {
    streams: Streams<StreamState>,
}

impl Watches {
    /// The state of the stream for `collection`, if one was started.
    pub fn state(&self, collection: &str) -> Option<StreamState> {
        self.streams.state(collection)
    }

    /// How many streams were started (for tests and `-v`).
    pub fn started(&self) -> Vec<String> {
        self.streams.started()
    }

    /// Start a stream for `collection` unless one runs.
    pub(super) fn ensure(&self, collection: &str, feed: Feed) {
        self.streams
            .ensure(collection, StreamState::Starting, |state| {
                tokio::spawn(follow(collection.to_string(), feed, state, None))
            });
    }
}

/// What a stream needs: a client without a read timeout (a watch is quiet between changes),
/// the cache it feeds, and the counter of changes it bumps.
#[derive(Clone)]
pub(super) struct Feed {
    pub(super) client: kube::Client,
    pub(super) cache: Cache,
    pub(super) changes: Arc<tokio::sync::watch::Sender<u64>>,
    /// The pod logs followed streams answer: a pod's event leaves them be.
    pub(super) streamed: super::streamed::StreamedLogs,
    /// The `timeoutSeconds` each watch request asks for ([`WATCH_SECONDS`] unless a test asks
    /// for less).
    pub(super) watch_seconds: u64,
}

/// The objects of one collection as the stream last saw them, by name.
struct Store {
    api_version: String,
    kind: String,
    resource_version: String,
    objects: BTreeMap<String, Value>,
}

/// Why a watch ended.
enum Ended {
    /// The resourceVersion is too old: list again.
    Gone,
    /// The server closed the stream (its timeout): watch again from the last resourceVersion.
    Closed,
    /// The server refused (403/405/404): poll instead.
    Refused,
    /// The connection broke: list again after a pause.
    Broken,
}

/// List and watch `collection` until the task is aborted; `stale` starts with a watch from an
/// earlier list instead (a test of the 410 path).
async fn follow(
    collection: String,
    feed: Feed,
    state: Arc<Mutex<StreamState>>,
    mut stale: Option<Store>,
) {
    let set = |s: StreamState| *state.lock().unwrap_or_else(|p| p.into_inner()) = s;
    loop {
        let listed = match stale.take() {
            Some(store) => Ok(store),
            None => list(&feed.client, &collection).await,
        };
        let mut store = match listed {
            Ok(store) => store,
            Err(Ended::Refused) => {
                set(StreamState::Refused);
                return;
            }
            Err(_) => {
                set(StreamState::Starting);
                tokio::time::sleep(RETRY_AFTER).await;
                continue;
            }
        };
        let changed = fill(&feed, &collection, &store);
        set(StreamState::Live);
        // The list may show a newer state than the checks read: let them look again (only
        // then: a list that says what they read wakes nobody).
        if changed {
            feed.changes.send_modify(|n| *n += 1);
        }
        let ended = loop {
            match watch(&feed, &collection, &mut store).await {
                Ended::Closed => continue,
                other => break other,
            }
        };
        set(StreamState::Starting);
        match ended {
            Ended::Refused => {
                set(StreamState::Refused);
                return;
            }
            Ended::Gone => {}
            Ended::Broken | Ended::Closed => tokio::time::sleep(RETRY_AFTER).await,
        }
    }
}

async fn list(client: &kube::Client, collection: &str) -> Result<Store, Ended> {
    let request = super::transport::get_request(collection, "application/json")
        .map_err(|_| Ended::Refused)?;
    let response = tokio::time::timeout(super::REQUEST_TIMEOUT, client.send(request))
        .await
        .map_err(|_| Ended::Broken)?
        .map_err(|_| Ended::Broken)?;
    match response.status().as_u16() {
        200 => {}
        401 | 403 | 404 | 405 => return Err(Ended::Refused),
        _ => return Err(Ended::Broken),
    }
    let deadline = tokio::time::Instant::now() + super::REQUEST_TIMEOUT;
    let bytes = super::transport::read_bounded(response.into_body(), None, deadline)
        .await
        .map_err(|_| Ended::Broken)?
        .0;
    let list: Value = serde_json::from_slice(&bytes).map_err(|_| Ended::Broken)?;
    let api_version = list["apiVersion"].as_str().unwrap_or_default().to_string();
    let kind = list["kind"]
        .as_str()
        .and_then(|k| k.strip_suffix("List"))
        .unwrap_or_default()
        .to_string();
    let mut objects = BTreeMap::new();
    for mut item in list["items"].as_array().cloned().unwrap_or_default() {
        // A list leaves out each item's apiVersion and kind; a GET of the object has them.
        if let Some(map) = item.as_object_mut() {
            map.entry("apiVersion").or_insert(json!(api_version));
            map.entry("kind").or_insert(json!(kind));
        }
        if let Some(name) = item.pointer("/metadata/name").and_then(Value::as_str) {
            objects.insert(name.to_string(), item);
        }
    }
    Ok(Store {
        resource_version: list
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        api_version,
        kind,
        objects,
    })
}

async fn watch(feed: &Feed, collection: &str, store: &mut Store) -> Ended {
    use http_body::Body as _;
    let url = format!(
        "{collection}?watch=1&resourceVersion={}&allowWatchBookmarks=true&timeoutSeconds={}",
        store.resource_version, feed.watch_seconds
    );
    let Ok(request) = super::transport::get_request(&url, "application/json") else {
        return Ended::Refused;
    };
    let response =
        match tokio::time::timeout(super::REQUEST_TIMEOUT, feed.client.send(request)).await {
            Ok(Ok(response)) => response,
            _ => return Ended::Broken,
        };
    match response.status().as_u16() {
        200 => {}
        410 => return Ended::Gone,
        401 | 403 | 404 | 405 => return Ended::Refused,
        _ => return Ended::Broken,
    }
    let mut body = response.into_body();
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let frame = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await;
        let Some(frame) = frame else {
            return Ended::Closed;
        };
        let Ok(frame) = frame else {
            return Ended::Broken;
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        pending.extend_from_slice(&data);
        if pending.len() > super::transport::MAX_BODY_BYTES {
            return Ended::Broken;
        }
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(event) = serde_json::from_slice::<Value>(&line) else {
                return Ended::Broken;
            };
            if let Some(ended) = apply(feed, collection, store, event) {
                return ended;
            }
        }
    }
}

/// Apply one watch event to the store and the cache; `Some` when the stream must end.
fn apply(feed: &Feed, collection: &str, store: &mut Store, event: Value) -> Option<Ended> {
    let kind = event["type"].as_str().unwrap_or_default();
    let mut object = event.get("object").cloned().unwrap_or(Value::Null);
    if kind == "ERROR" {
        // A Status: 410 Gone (Expired) means list again.
        return Some(if object["code"].as_u64() == Some(410) {
            Ended::Gone
        } else {
            Ended::Broken
        });
    }
    if let Some(rv) = object
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
    {
        store.resource_version = rv.to_string();
    }
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .map(str::to_string);
    match (kind, name) {
        ("BOOKMARK", _) => return None,
        ("ADDED" | "MODIFIED", Some(name)) => {
            if let Some(map) = object.as_object_mut() {
                map.entry("apiVersion").or_insert(json!(store.api_version));
                map.entry("kind").or_insert(json!(store.kind));
            }
            store.objects.insert(name, object);
        }
        ("DELETED", Some(name)) => {
            store.objects.remove(&name);
        }
        _ => return Some(Ended::Broken),
    }
    // An event about an object no read asked for (another pod of the namespace) changes no
    // answer: nobody looks again for it.
    if fill(feed, collection, store) {
        feed.changes.send_modify(|n| *n += 1);
    }
    None
}

/// Answer every cached read of `collection` from the store: an object's GET with the object
/// (or the API's 404), a list with the matching objects. A read the store cannot answer (a
/// selector beyond `key=value`, a subresource) is dropped, so the next look reads it anew,
/// unless it is a pod log a followed stream answers. Whether any answer changed.
fn fill(feed: &Feed, collection: &str, store: &Store) -> bool {
    let mut changed = false;
    let mut cache = lock(&feed.cache);
    let urls: Vec<String> = cache
        .keys()
        .filter(|url| target(url).is_some_and(|t| t.collection == collection))
        .cloned()
        .collect();
    for url in urls {
        let Some(target) = target(&url) else { continue };
        if target.subresource == Some("log")
            && let Some(pod) = target.name
            && super::streamed::survives(&feed.streamed, &url, store.objects.get(pod))
        {
            continue;
        }
        let answer = match (target.name, target.subresource, target.query) {
            (Some(name), None, None) => Some(match store.objects.get(name) {
                Some(object) => ok(object),
                None => not_found(collection, name),
            }),
            (None, None, query) => equality_selector(query).map(|selector| {
                let items: Vec<&Value> = store
                    .objects
                    .values()
                    .filter(|o| {
                        selector.matches(o.pointer("/metadata/labels").and_then(Value::as_object))
                    })
                    .collect();
                ok(&json!({
                    "kind": format!("{}List", store.kind),
                    "apiVersion": store.api_version,
                    "metadata": {"resourceVersion": store.resource_version},
                    "items": items,
                }))
            }),
            _ => None,
        };
        match answer {
            Some(raw) => {
                let before = cache.get(&url).and_then(|(_, cell)| cell.get());
                if !matches!(before, Some(Ok(old)) if same_answer(old, &raw)) {
                    changed = true;
                }
                let cell: Cell = Arc::new(OnceCell::from(Ok(raw)));
                cache.insert(url, (std::time::Instant::now(), cell));
            }
            None => {
                cache.remove(&url);
                changed = true;
            }
        }
    }
    changed
}

/// Whether two answers to one read say the same: the same status and the same object, or a
/// list of the same items (a list's own resourceVersion moves with any change in the
/// collection, and a list read gives its items without `apiVersion` and `kind`, which the store
/// adds). Anything that does not parse is compared as text.
fn same_answer(old: &RawResponse, new: &RawResponse) -> bool {
    if old.code != new.code || old.skipped != new.skipped {
        return false;
    }
    if old.body == new.body {
        return true;
    }
    let parse = |body: &str| -> Option<Value> {
        let mut value: Value = serde_json::from_str(body).ok()?;
        match value.get_mut("items").map(Value::take) {
            Some(Value::Array(mut items)) => {
                for item in &mut items {
                    if let Some(map) = item.as_object_mut() {
                        map.remove("apiVersion");
                        map.remove("kind");
                    }
                }
                Some(Value::Array(items))
            }
            _ => Some(value),
        }
    };
    match (parse(&old.body), parse(&new.body)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// `labelSelector=a=b,c==d`, read as the API server reads it ([`LabelSelector`]); `None` for
/// any other query (set-based selectors, field selectors, limits), which the store does not
/// answer: only what labcheck's own reads ask is worth holding, and the server words a refusal.
fn equality_selector(query: Option<&str>) -> Option<LabelSelector> {
    let Some(query) = query else {
        return Some(LabelSelector::default());
    };
    // The decoder forgives a broken escape (`%zz`, a `%` at the end) by keeping it as text; a
    // query labcheck did not write that way is one the store must not guess at.
    if !escapes_are_well_formed(query) {
        return None;
    }
    let mut selector = None;
    for (name, text) in form_urlencoded::parse(query.as_bytes()) {
        if name != "labelSelector" || selector.is_some() {
            return None;
        }
        selector = Some(LabelSelector::parse(&text).ok()?);
    }
    selector
        .or_else(|| Some(LabelSelector::default()))
        .filter(LabelSelector::is_equality_only)
}

/// Every `%` is followed by two hex digits.
fn escapes_are_well_formed(query: &str) -> bool {
    query.split('%').skip(1).all(|after| {
        after
            .get(..2)
            .is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
    })
}

fn ok(value: &Value) -> RawResponse {
    RawResponse {
        code: 200,
        body: value.to_string(),
        skipped: 0,
        location: None,
        retry_after: None,
        not_retried: None,
        unended: false,
    }
}

/// The 404 the API answers for a named object that is not there.
fn not_found(collection: &str, name: &str) -> RawResponse {
    let plural = collection.rsplit('/').next().unwrap_or_default();
    let group = collection
        .strip_prefix("/apis/")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_default();
    let qualified = if group.is_empty() {
        plural.to_string()
    } else {
        format!("{plural}.{group}")
    };
    RawResponse {
        code: 404,
        body: json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": format!("{qualified} \"{name}\" not found"),
            "reason": "NotFound",
            "details": {"name": name, "group": group, "kind": plural},
            "code": 404
        })
        .to_string(),
        skipped: 0,
        location: None,
        retry_after: None,
        not_retried: None,
        unended: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::cluster::{ApiPath, Cluster};
    use crate::snapshot::{Changes, Snapshot};

    fn job(complete: bool) -> Value {
        json!({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "checkout-migrate", "namespace": "checkout-dev"},
            "status": if complete { json!({"succeeded": 1}) } else { json!({"active": 1}) }
        })
    }

    /// A Job that completes `after` the server starts, served on loopback.
    async fn served(after: Duration) -> crate::serve::RunningServer {
        let snapshot = Snapshot::new()
            .with_object(job(false))
            .then_after(after, Changes::new().with_object(job(true)));
        crate::serve::start(
            snapshot,
            std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            crate::serve::ServeOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("server: {e}"))
    }

    /// A cluster over [`served`]'s server (the Job completing `after` it starts) that has read
    /// the Job once, as a check does.
    async fn job_read(after: Duration) -> (crate::serve::RunningServer, Cluster) {
        let server = served(after).await;
        let cluster = Cluster::over_http(&server.url(), "test".to_string(), None);
        let job = cluster.job("checkout-dev", "checkout-migrate").await;
        assert!(matches!(job, Ok(Some(_))), "{job:?}");
        (server, cluster)
    }

    fn succeeded(cluster: &Cluster) -> Option<i32> {
        let path = ApiPath::new("batch/v1", "jobs")
            .in_namespace("checkout-dev")
            .named("checkout-migrate");
        let cache = lock(&cluster.cache);
        let raw = cache.get(&path.url())?.1.get()?.as_ref().ok()?;
        let value: Value = serde_json::from_str(&raw.body).ok()?;
        value
            .pointer("/status/succeeded")
            .and_then(Value::as_i64)
            .map(|n| n as i32)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_job_completing_reaches_the_cache_through_the_stream_without_another_get() {
        let (server, cluster) = job_read(Duration::from_millis(800)).await;
        let started = std::time::Instant::now();
        let mut seen = cluster.generation();
        while succeeded(&cluster) != Some(1) {
            assert!(started.elapsed() < Duration::from_secs(5), "no change seen");
            seen = cluster
                .wait_for_change(seen, std::time::Instant::now() + Duration::from_secs(5))
                .await;
        }
        // Seen within a moment of the change, not at the next second's poll.
        assert!(
            started.elapsed() < Duration::from_millis(1500),
            "{:?}",
            started.elapsed()
        );
        let object = "/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate";
        let collection = "/apis/batch/v1/namespaces/checkout-dev/jobs";
        assert_eq!(
            server.requests.count("GET", object),
            1,
            "{:#?}",
            server.requests.entries()
        );
        let watches = queries_to(&server, collection);
        // One list, then one watch from its resourceVersion, with bookmarks.
        assert_eq!(watches.len(), 2, "{watches:?}");
        assert_eq!(watches[0], "");
        assert!(
            watches[1].starts_with("watch=1&resourceVersion=1000&allowWatchBookmarks=true"),
            "{watches:?}"
        );
        assert_eq!(cluster.watched(), [collection]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_read_made_while_a_wait_is_under_way_is_streamed_from_then_on() {
        // Watch mode's ticker waits while the step is judged: the reads come after the wait
        // began, and their changes must still wake it through a stream.
        let server = served(Duration::from_millis(800)).await;
        let cluster = Cluster::over_http(&server.url(), "test".to_string(), None);
        let started = std::time::Instant::now();
        let limit = Duration::from_secs(10);
        // `join!` polls the wait first: it has looked at an empty cache before the read.
        let (seen, job) = tokio::join!(
            cluster.wait_for_change(0, started + limit),
            cluster.job("checkout-dev", "checkout-migrate")
        );
        assert!(matches!(job, Ok(Some(_))), "{job:?}");
        assert!(seen > 0, "the wait saw no change within {limit:?}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            cluster.watched(),
            ["/apis/batch/v1/namespaces/checkout-dev/jobs"]
        );
        let mut seen = seen;
        while succeeded(&cluster) != Some(1) {
            assert!(started.elapsed() < limit, "the Job's completion never came");
            seen = cluster
                .wait_for_change(seen, std::time::Instant::now() + limit)
                .await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_list_that_says_what_the_checks_read_wakes_nobody_and_the_change_after_it_does() {
        let (server, cluster) = job_read(Duration::from_millis(1500)).await;
        let seen = cluster.generation();
        let start = std::time::Instant::now();
        let after_list = cluster
            .wait_for_change(seen, start + Duration::from_millis(900))
            .await;
        let collection = "/apis/batch/v1/namespaces/checkout-dev/jobs";
        assert!(
            !queries_to(&server, collection).is_empty(),
            "the stream listed the jobs"
        );
        assert_eq!(after_list, seen, "a list of what was read is no change");
        assert_eq!(succeeded(&cluster), None);
        let changed = cluster
            .wait_for_change(seen, std::time::Instant::now() + Duration::from_secs(5))
            .await;
        assert!(changed > seen, "the Job's completion is a change");
        assert_eq!(succeeded(&cluster), Some(1));
    }

    fn answer(code: u16, body: Value) -> RawResponse {
        RawResponse {
            code,
            body: body.to_string(),
            skipped: 0,
            location: None,
            retry_after: None,
            not_retried: None,
            unended: false,
        }
    }

    #[test]
    fn answers_are_the_same_when_they_say_the_same_not_when_they_are_spelled_the_same() {
        let pod = |rv: &str, phase: &str| json!({"metadata": {"name": "p", "resourceVersion": rv}, "status": {"phase": phase}});
        let list = |rv: &str, items: Vec<Value>| json!({"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": rv}, "items": items});
        let mut typed = pod("7", "Running");
        typed["apiVersion"] = json!("v1");
        typed["kind"] = json!("Pod");
        let cases = [
            // (what the checks read, what the stream says, the same?)
            (
                answer(200, pod("7", "Running")),
                answer(200, pod("7", "Running")),
                true,
            ),
            (
                answer(200, pod("7", "Running")),
                answer(200, pod("8", "Succeeded")),
                false,
            ),
            (
                answer(200, list("10", vec![pod("7", "Running")])),
                answer(200, list("12", vec![typed])),
                true,
            ),
            (
                answer(200, list("10", vec![pod("7", "Running")])),
                answer(200, list("12", vec![])),
                false,
            ),
            (
                answer(200, list("10", vec![pod("7", "Running")])),
                answer(200, list("12", vec![pod("8", "Running")])),
                false,
            ),
            (
                answer(404, json!({"kind": "Status"})),
                answer(200, pod("7", "Running")),
                false,
            ),
        ];
        for (i, (read, streamed, same)) in cases.iter().enumerate() {
            assert_eq!(same_answer(read, streamed), *same, "case {i}");
        }
    }

    /// The query strings of the requests the server got for `collection`, in order.
    fn queries_to(server: &crate::serve::RunningServer, collection: &str) -> Vec<String> {
        server
            .requests
            .entries()
            .into_iter()
            .filter(|r| r.path == collection)
            .map(|r| r.query.unwrap_or_default())
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_watch_from_a_too_old_resource_version_is_gone_and_lists_again() {
        let server = served(Duration::from_millis(600)).await;
        let client = kube::Client::try_from(kube::Config::new(
            server.url().parse().unwrap_or_else(|e| panic!("{e}")),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let cache = Cache::default();
        let changes = Arc::new(tokio::sync::watch::Sender::new(0));
        let feed = Feed {
            client,
            cache: cache.clone(),
            changes: changes.clone(),
            streamed: Default::default(),
            watch_seconds: WATCH_SECONDS,
        };
        let collection = "/apis/batch/v1/namespaces/checkout-dev/jobs".to_string();
        let path = format!("{collection}/checkout-migrate");
        // A read the stream keeps current.
        lock(&cache).insert(path.clone(), (std::time::Instant::now(), Cell::default()));
        let stale = Store {
            api_version: "batch/v1".to_string(),
            kind: "Job".to_string(),
            resource_version: "7".to_string(),
            objects: BTreeMap::new(),
        };
        let state = Arc::new(Mutex::new(StreamState::Starting));
        let task = tokio::spawn(follow(collection.clone(), feed, state.clone(), Some(stale)));
        let mut rx = changes.subscribe();
        let complete = async {
            loop {
                let _ = rx.changed().await;
                let body = lock(&cache)
                    .get(&path)
                    .and_then(|(_, cell)| cell.get().cloned())
                    .and_then(Result::ok)
                    .map(|raw| raw.body)
                    .unwrap_or_default();
                if body.contains("\"succeeded\":1") {
                    break;
                }
            }
        };
        let done = tokio::time::timeout(Duration::from_secs(5), complete).await;
        task.abort();
        assert!(
            done.is_ok(),
            "the relisted stream never saw the Job complete"
        );
        let queries = queries_to(&server, &collection);
        assert!(queries[0].contains("resourceVersion=7"), "{queries:?}");
        assert_eq!(queries[1], "", "410 Gone, so a new list: {queries:?}");
        // The new watch starts from what the new list returned (the served versions start at
        // 1000; on a slow machine the list may already see the timeline's next state), never
        // from the stale 7 again.
        let resumed_at: u64 = queries[2]
            .split('&')
            .find_map(|pair| pair.strip_prefix("resourceVersion="))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        assert!(resumed_at >= 1000, "{queries:?}");
    }

    #[test]
    fn reads_belong_to_the_collection_of_their_kind_and_namespace() {
        let t = target("/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate").unwrap();
        assert_eq!(t.collection, "/apis/batch/v1/namespaces/checkout-dev/jobs");
        assert_eq!(t.name, Some("checkout-migrate"));
        let t = target("/api/v1/namespaces/ns/pods?labelSelector=job-name%3Dm").unwrap();
        assert_eq!(
            (t.collection.as_str(), t.name, t.query),
            (
                "/api/v1/namespaces/ns/pods",
                None,
                Some("labelSelector=job-name%3Dm")
            )
        );
        let t = target("/api/v1/namespaces/ns/pods/p/log?container=c").unwrap();
        assert_eq!((t.name, t.subresource), (Some("p"), Some("log")));
        // A namespace is a cluster-scoped object of the `namespaces` collection.
        let t = target("/api/v1/namespaces/argocd").unwrap();
        assert_eq!(
            (t.collection.as_str(), t.name),
            ("/api/v1/namespaces", Some("argocd"))
        );
        assert_eq!(target("/version"), None);
    }

    #[test]
    fn only_equality_selectors_are_answered_from_the_store() {
        assert_eq!(
            equality_selector(Some("labelSelector=job-name%3Dcheckout-migrate%2Ca%3D%3Db")),
            LabelSelector::parse("job-name=checkout-migrate,a==b").ok()
        );
        assert_eq!(equality_selector(None), Some(LabelSelector::default()));
        for other in [
            "labelSelector=a%21%3Db",
            "labelSelector=tier+in+%28a%29",
            "fieldSelector=status.phase%3DRunning",
            "labelSelector=a%3Db&limit=5",
            // A value the server refuses is the server's to word.
            "labelSelector=a%3Db%3Dc",
            // Broken escapes are refused, never read as text.
            "labelSelector=a%3Db%zz",
            "labelSelector=a%3Db%2",
            "labelSelector=a%3Db%",
        ] {
            assert_eq!(equality_selector(Some(other)), None, "{other}");
        }
    }
}
