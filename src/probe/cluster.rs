//! Reading the learner's cluster through the Kubernetes API: GET only (get, list, pod logs), raw
//! paths without discovery, and a per-run cache so each object is fetched once however many
//! checks read it.

pub mod api;
pub mod argocd;
pub mod config;
pub mod pods;
pub mod server;
pub mod watch;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use tokio::sync::OnceCell;

use api::{Answer, RawResponse};
pub use api::{ApiPath, ProbeError};
pub use argocd::Application;

/// A hard bound on one request including kube's retries: a check never hangs on the network.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The labels of the selector Kubernetes generates for a Job (`manualSelector` unset); the pods
/// of such a Job also carry `job-name`.
const GENERATED_SELECTOR_KEYS: [&str; 2] = ["batch.kubernetes.io/controller-uid", "controller-uid"];

/// How often a read that no watch stream keeps current is read again while waiting.
pub const WAIT_POLL: Duration = Duration::from_secs(1);

/// What is missing when the Application resource is not served.
const ARGOCD_CRD: &str = "Argo CD (its Application CRD, applications.argoproj.io)";

type Cell = Arc<OnceCell<Result<RawResponse, ProbeError>>>;

/// A cached read and when it was sent.
type Entry = (std::time::Instant, Cell);

/// One request a run sent to the cluster (a cache hit sends none), for `-v`.
#[derive(Debug, Clone)]
pub struct Read {
    /// The path and query, as sent.
    pub url: String,
    /// The HTTP status, or why there was none.
    pub answer: String,
    pub took: Duration,
}

/// The requests of one run, in the order they were answered; the command line prints them.
pub type ReadLog = Arc<Mutex<Vec<Read>>>;

/// Access to one cluster for one run, with a per-run cache.
pub struct Cluster {
    access: Access,
    cache: watch::Cache,
    /// Where to note each request sent (`-v`), when someone asked.
    read_log: Option<ReadLog>,
    /// Keeps the in-process snapshot server (for `--snapshot`) alive as long as the cluster.
    _keep_alive: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// A snapshot served in-process cannot change after this moment (its last timeline entry):
    /// waiting past it cannot change any answer. The text names the snapshot.
    frozen: Option<(std::time::Instant, String)>,
    /// Counts the changes seen (watch events, poll rounds), so waiters wake on the next one.
    changes: Arc<tokio::sync::watch::Sender<u64>>,
    /// Watch streams, one per kind and namespace read while waiting.
    watches: watch::Watches,
}

enum Access {
    Unavailable(ProbeError),
    Api {
        client: kube::Client,
        /// `context kind-course (https://127.0.0.1:6443)`, for messages.
        describe: String,
        /// The client of watch streams, built on the first wait: as `client`, without a read
        /// timeout, since a watch is quiet between changes.
        watch_client: std::sync::OnceLock<Option<kube::Client>>,
        config: Box<kube::Config>,
    },
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.access {
            Access::Unavailable(e) => write!(f, "Cluster(unavailable: {e})"),
            Access::Api { describe, .. } => write!(f, "Cluster({describe})"),
        }
    }
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster::unavailable("no cluster was configured for this run")
    }
}

/// How to reach a cluster, from the command line.
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub snapshot: Option<PathBuf>,
    /// `--request-timeout`: how long one request may take (connect, and each read), instead of
    /// the default.
    pub request_timeout: Option<Duration>,
    /// `-v`: note each request here.
    pub read_log: Option<ReadLog>,
}

/// What a pod's log read gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogRead {
    /// The log text.
    Text(String),
    /// Only the last part of a log longer than [`MAX_LOG_BYTES`]: `skipped` bytes came before it.
    Tail { text: String, skipped: u64 },
    /// The API has no log for it (container not started, pod gone); the API's words.
    NotAvailable(String),
}

impl Cluster {
    /// A cluster that cannot be read, with the reason every cluster check will report.
    pub fn unavailable(reason: impl Into<String>) -> Cluster {
        Cluster::from_error(ProbeError::NotConfigured {
            reason: reason.into(),
            fix: String::new(),
        })
    }

    fn from_error(error: ProbeError) -> Cluster {
        Cluster {
            access: Access::Unavailable(error),
            cache: watch::Cache::default(),
            read_log: None,
            _keep_alive: None,
            frozen: None,
            changes: Arc::new(tokio::sync::watch::Sender::new(0)),
            watches: watch::Watches::default(),
        }
    }

    /// Prepare access (no request is sent until a check reads something).
    pub async fn connect(options: &ClusterOptions) -> Cluster {
        let mut cluster = if let Some(file) = &options.snapshot {
            Self::serve_snapshot(file).await
        } else {
            match config::resolve(options.kubeconfig.as_deref(), options.context.as_deref()).await {
                Ok(mut resolved) => {
                    if let Some(limit) = options.request_timeout {
                        resolved.config.connect_timeout = Some(limit);
                        resolved.config.read_timeout = Some(limit);
                        resolved.config.write_timeout = Some(limit);
                    }
                    Self::from_config(resolved.config, resolved.describe)
                }
                Err(error) => Cluster::from_error(error),
            }
        };
        cluster.read_log = options.read_log.clone();
        cluster
    }

    /// A cluster read through an already built client configuration.
    pub fn from_config(mut config: kube::Config, describe: String) -> Cluster {
        // A plain-http server (a served snapshot, `kubectl proxy`) needs no certificates, but kube
        // builds its TLS connector anyway and, with no CA given, loads the system's whole CA store
        // for it: 60% of the CPU a step costs. An empty trust list for a TLS that never runs.
        if config.cluster_url.scheme_str() == Some("http") && config.root_cert.is_none() {
            config.root_cert = Some(Vec::new());
        }
        match kube::Client::try_from(config.clone()) {
            Ok(client) => Cluster {
                access: Access::Api {
                    client,
                    describe,
                    watch_client: std::sync::OnceLock::new(),
                    config: Box::new(config),
                },
                cache: watch::Cache::default(),
                read_log: None,
                _keep_alive: None,
                frozen: None,
                changes: Arc::new(tokio::sync::watch::Sender::new(0)),
                watches: watch::Watches::default(),
            },
            Err(e) => Cluster::from_error(ProbeError::NotConfigured {
                reason: format!("cannot build a Kubernetes client for {describe}: {e}"),
                fix: "check the kubeconfig with `kubectl config view --minify`".to_string(),
            }),
        }
    }

    /// A cluster served over HTTP at `url` (e.g. an in-process snapshot server), kept alive by
    /// `keep_alive` for as long as this cluster lives.
    pub fn over_http(
        url: &str,
        describe: String,
        keep_alive: Option<Box<dyn std::any::Any + Send + Sync>>,
    ) -> Cluster {
        let uri = match url.parse::<http::Uri>() {
            Ok(uri) => uri,
            Err(e) => {
                return Cluster::from_error(ProbeError::NotConfigured {
                    reason: format!("`{url}` is not a URL: {e}"),
                    fix: String::new(),
                });
            }
        };
        let mut config = kube::Config::new(uri);
        config::bound(&mut config);
        let mut cluster = Cluster::from_config(config, describe);
        cluster._keep_alive = keep_alive;
        cluster
    }

    /// `--snapshot FILE`: serve the file on loopback and read it over HTTP like any cluster, so
    /// snapshots and real clusters share one code path.
    async fn serve_snapshot(file: &std::path::Path) -> Cluster {
        let snapshot = match crate::snapshot::Snapshot::load(file) {
            Ok(snapshot) => snapshot,
            Err(e) => {
                return Cluster::from_error(ProbeError::NotConfigured {
                    reason: format!("cannot use the snapshot: {e}"),
                    fix: "check the file (`labcheck serve FILE` reports the same problem), or capture a new one with `labcheck snapshot MODULE --out FILE`".to_string(),
                });
            }
        };
        let describe = format!("snapshot {}", file.display());
        let last_change = snapshot
            .timeline
            .last()
            .map(|t| t.after)
            .unwrap_or_default();
        let mut cluster = Self::serve(snapshot, &describe).await;
        // The server started just before; counting from now errs on the side of waiting.
        cluster.frozen = Some((std::time::Instant::now() + last_change, describe));
        cluster
    }

    /// Why nothing this cluster answers can change any more (a snapshot file past its last
    /// timeline entry); `None` for a live cluster.
    pub fn frozen(&self) -> Option<String> {
        let (from, describe) = self.frozen.as_ref()?;
        (std::time::Instant::now() >= *from).then(|| format!("the {describe} cannot change"))
    }

    /// Serve an in-memory snapshot on loopback and read it over HTTP (demo and tests).
    pub async fn serve(snapshot: crate::snapshot::Snapshot, describe: &str) -> Cluster {
        let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        match crate::serve::start(snapshot, loopback, crate::serve::ServeOptions::default()).await {
            Ok(server) => {
                let url = server.url();
                Cluster::over_http(&url, format!("{describe} ({url})"), Some(Box::new(server)))
            }
            Err(e) => Cluster::from_error(ProbeError::NotConfigured {
                reason: format!("cannot serve the {describe}: {e}"),
                fix: String::new(),
            }),
        }
    }

    /// Drop cached reads so the next round of a wait sees fresh state.
    pub fn forget(&self) {
        self.cache_lock().clear();
    }

    /// Drop cached reads sent at least `age` ago. Steps that wait side by side each start a new
    /// round every second; a read another step made less than `age` ago is kept, so no object is
    /// read more often than once per `age`, however many steps wait for it.
    pub fn forget_older_than(&self, age: Duration) {
        self.cache_lock()
            .retain(|_, (sent, _)| sent.elapsed() < age);
    }

    /// What this cluster is, for messages ("context kind-course (https://…)").
    pub fn describe(&self) -> String {
        match &self.access {
            Access::Unavailable(_) => "no cluster".to_string(),
            Access::Api { describe, .. } => describe.clone(),
        }
    }

    fn cache_lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        watch::lock(&self.cache)
    }

    /// How many changes this run has seen so far; give it to [`Cluster::wait_for_change`].
    pub fn generation(&self) -> u64 {
        *self.changes.borrow()
    }

    /// Wait until the cluster changes after `seen` (a watch event on a kind read so far), or
    /// until `deadline`; then make the cache answer the next reads with the current state.
    ///
    /// Every kind and namespace read so far gets one watch stream (list, then watch) that keeps
    /// its reads in the cache current. Reads no stream keeps current (pod logs, a kind the server
    /// will not watch, a stream still connecting) are looked at again about once a second, as
    /// they always were. Returns the generation to give next time.
    pub async fn wait_for_change(&self, seen: u64, deadline: std::time::Instant) -> u64 {
        let polled = self.start_watches();
        let deadline = tokio::time::Instant::from_std(deadline);
        let until = if polled {
            deadline.min(tokio::time::Instant::now() + WAIT_POLL)
        } else {
            deadline
        };
        let mut changes = self.changes.subscribe();
        let _ = tokio::time::timeout_at(until, changes.wait_for(|n| *n > seen)).await;
        self.forget_unwatched();
        self.generation()
    }

    /// Start a stream for every collection read so far; whether some read stays polled.
    fn start_watches(&self) -> bool {
        let Access::Api {
            watch_client,
            config,
            ..
        } = &self.access
        else {
            return true;
        };
        let client = watch_client.get_or_init(|| {
            let mut config = (**config).clone();
            config.read_timeout = None;
            kube::Client::try_from(config).ok()
        });
        let urls: Vec<String> = self.cache_lock().keys().cloned().collect();
        let mut polled = false;
        for url in &urls {
            let Some(target) = watch::target(url) else {
                polled = true;
                continue;
            };
            if let Some(client) = client {
                self.watches.ensure(
                    &target.collection,
                    watch::Feed {
                        client: client.clone(),
                        cache: self.cache.clone(),
                        changes: self.changes.clone(),
                    },
                );
            }
            polled |= !self.kept_current(url);
        }
        polled
    }

    /// Whether a live stream keeps the cached read at `url` current.
    fn kept_current(&self, url: &str) -> bool {
        watch::target(url).is_some_and(|t| {
            t.subresource.is_none()
                && self.watches.state(&t.collection) == Some(watch::StreamState::Live)
        })
    }

    /// Drop every cached read that no live stream keeps current and that is a poll interval
    /// old, so the next look reads it anew (about once a second, as before there were streams).
    fn forget_unwatched(&self) {
        let entries: Vec<(String, std::time::Instant)> = self
            .cache_lock()
            .iter()
            .map(|(url, (sent, _))| (url.clone(), *sent))
            .collect();
        let stale: Vec<String> = entries
            .into_iter()
            .filter(|(url, sent)| sent.elapsed() >= WAIT_POLL && !self.kept_current(url))
            .map(|(url, _)| url)
            .collect();
        let mut cache = self.cache_lock();
        for url in stale {
            cache.remove(&url);
        }
    }

    /// The collections watched so far (`/apis/batch/v1/namespaces/ns/jobs`).
    pub fn watched(&self) -> Vec<String> {
        self.watches.started()
    }

    /// GET `path` once per run: concurrent readers share one in-flight request.
    pub async fn get_raw(&self, path: &ApiPath) -> Result<RawResponse, ProbeError> {
        let (client, describe) = match &self.access {
            Access::Unavailable(e) => return Err(e.clone()),
            Access::Api {
                client, describe, ..
            } => (client, describe),
        };
        let url = path.url();
        let keep_tail = (path.subresource.as_deref() == Some("log")).then_some(MAX_LOG_BYTES);
        let cell = self
            .cache_lock()
            .entry(url.clone())
            .or_insert_with(|| (std::time::Instant::now(), Cell::default()))
            .1
            .clone();
        cell.get_or_init(|| async {
            let started = std::time::Instant::now();
            let answer = send(client, describe, url.clone(), keep_tail).await;
            if let Some(log) = &self.read_log {
                let read = Read {
                    answer: match &answer {
                        Ok(raw) => raw.code.to_string(),
                        Err(e) => format!("no answer: {e}"),
                    },
                    url,
                    took: started.elapsed(),
                };
                log.lock().unwrap_or_else(|p| p.into_inner()).push(read);
            }
            answer
        })
        .await
        .clone()
    }

    /// The object at `path`: `Ok(None)` when the API serves its type and it is not there.
    pub async fn get(
        &self,
        path: &ApiPath,
        what_for_crd: &str,
    ) -> Result<Option<serde_json::Value>, ProbeError> {
        let raw = self.get_raw(path).await?;
        match api::classify(path, &raw, &self.describe(), what_for_crd)? {
            Answer::Found(body) => {
                let mut object = api::parse_json(path, &body)?;
                // By what the object is, not by what was asked: a proxy or a broken server may
                // answer a ConfigMap path with a Secret.
                if path.is_secret() || api::looks_like_secret(&object) {
                    redact_secret(&mut object);
                }
                api::check_shape(path, &object)?;
                Ok(Some(object))
            }
            Answer::NotFound => {
                if let Some(ns) = &path.namespace
                    && !self.namespace_exists(ns).await?
                {
                    return Err(ProbeError::NamespaceMissing {
                        namespace: ns.clone(),
                    });
                }
                Ok(None)
            }
            Answer::BadRequest(message) => Err(ProbeError::Server {
                code: 400,
                url: path.url(),
                message,
            }),
        }
    }

    /// Whether namespace `ns` exists. A user who may not read namespaces gets `true`: labcheck
    /// then reports the object as not found, which is what kubectl would show them.
    pub async fn namespace_exists(&self, ns: &str) -> Result<bool, ProbeError> {
        let path = ApiPath::new("v1", "namespaces").named(ns);
        let raw = self.get_raw(&path).await?;
        match api::classify(&path, &raw, &self.describe(), "the core API") {
            Ok(Answer::NotFound) => Ok(false),
            Ok(_) | Err(ProbeError::Forbidden { .. }) => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// A list at `path` (its `items`).
    pub async fn list(
        &self,
        path: &ApiPath,
        what_for_crd: &str,
    ) -> Result<Vec<serde_json::Value>, ProbeError> {
        let raw = self.get_raw(path).await?;
        match api::classify(path, &raw, &self.describe(), what_for_crd)? {
            Answer::Found(body) => {
                let value = api::parse_json(path, &body)?;
                match value.get("items") {
                    Some(serde_json::Value::Array(items)) => {
                        let mut items = items.clone();
                        // Items of a list carry no `kind`; the list's kind says what they are.
                        let all_secrets = path.is_secret() || api::looks_like_secret(&value);
                        for item in &mut items {
                            if all_secrets || api::looks_like_secret(item) {
                                redact_secret(item);
                            }
                        }
                        Ok(items)
                    }
                    // An empty list may come back as `items: null`.
                    Some(serde_json::Value::Null) | None => Ok(Vec::new()),
                    Some(_) => Err(ProbeError::Garbage {
                        url: path.url(),
                        expected: "a list".to_string(),
                        reason: "`items` is not an array".to_string(),
                    }),
                }
            }
            Answer::NotFound => Ok(Vec::new()),
            Answer::BadRequest(message) => Err(ProbeError::Server {
                code: 400,
                url: path.url(),
                message,
            }),
        }
    }

    /// Argo CD Application `name` in `ns`.
    pub async fn application(
        &self,
        ns: &str,
        name: &str,
    ) -> Result<Option<Application>, ProbeError> {
        let path = application_path(ns, name);
        match self.get(&path, ARGOCD_CRD).await? {
            Some(value) => api::typed(&path, &value, "an Argo CD Application").map(Some),
            None => Ok(None),
        }
    }

    /// Job `name` in `ns`.
    pub async fn job(&self, ns: &str, name: &str) -> Result<Option<Job>, ProbeError> {
        let path = ApiPath::new("batch/v1", "jobs")
            .in_namespace(ns)
            .named(name);
        match self.get(&path, "the batch/v1 API").await? {
            Some(value) => api::typed(&path, &value, "a Job").map(Some),
            None => Ok(None),
        }
    }

    /// Pods in `ns` matching a label selector (`a=b,c=d`; empty for all).
    pub async fn pods(&self, ns: &str, selector: &str) -> Result<Vec<Pod>, ProbeError> {
        let mut path = ApiPath::new("v1", "pods").in_namespace(ns);
        if !selector.is_empty() {
            path = path.query(format!("labelSelector={}", api::encode_query(selector)));
        }
        let items = self.list(&path, "the core API").await?;
        items
            .iter()
            .map(|item| api::typed(&path, item, "a Pod"))
            .collect()
    }

    /// The pods of a Job, selected as `kubectl logs job/NAME` selects them: by the Job's
    /// `spec.selector`, else by `job-name`.
    ///
    /// A Job with the selector Kubernetes generates (only its `controller-uid`) labels every pod it
    /// makes with `job-name` as well, so its pods are read from the list by `job-name` (see
    /// [`Cluster::job_pods_by_name`]) and filtered by the selector: that list can be requested
    /// before the Job has arrived, saving a round trip. Other selectors are asked for as they are.
    pub async fn job_pods(&self, ns: &str, job: &Job) -> Result<Vec<Pod>, ProbeError> {
        let name = job.metadata.name.as_deref().unwrap_or("");
        let selector = job.spec.as_ref().and_then(|s| s.selector.as_ref());
        let labels = selector
            .and_then(|s| s.match_labels.as_ref())
            .filter(|labels| !labels.is_empty());
        let Some(labels) = labels else {
            return self.pods(ns, &format!("job-name={name}")).await;
        };
        let generated = !name.is_empty()
            && selector.is_some_and(|s| s.match_expressions.as_ref().is_none_or(Vec::is_empty))
            && labels
                .keys()
                .all(|k| GENERATED_SELECTOR_KEYS.contains(&k.as_str()));
        if generated {
            let pods = self.job_pods_by_name(ns, name).await?;
            return Ok(pods
                .into_iter()
                .filter(|pod| {
                    let have = pod.metadata.labels.as_ref();
                    labels
                        .iter()
                        .all(|(k, v)| have.and_then(|l| l.get(k)) == Some(v))
                })
                .collect());
        }
        let selector = labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        self.pods(ns, &selector).await
    }

    /// Pods labelled `job-name=NAME`; a check that will read a Job's pods asks for these at the
    /// same time as the Job (one request per run, shared through the cache).
    pub async fn job_pods_by_name(&self, ns: &str, name: &str) -> Result<Vec<Pod>, ProbeError> {
        self.pods(ns, &format!("job-name={name}")).await
    }

    /// The log of `container` in pod `pod` (all of it; checks keep what they need).
    pub async fn logs(
        &self,
        ns: &str,
        pod: &str,
        container: Option<&str>,
    ) -> Result<LogRead, ProbeError> {
        let mut path = ApiPath::new("v1", "pods")
            .in_namespace(ns)
            .named(pod)
            .subresource("log");
        if let Some(container) = container {
            path = path.query(format!("container={}", api::encode_query(container)));
        }
        let raw = self.get_raw(&path).await?;
        match api::classify(&path, &raw, &self.describe(), "the core API") {
            Ok(Answer::Found(text)) if raw.skipped > 0 => Ok(LogRead::Tail {
                text,
                skipped: raw.skipped,
            }),
            Ok(Answer::Found(text)) => Ok(LogRead::Text(text)),
            Ok(Answer::BadRequest(message)) => Ok(LogRead::NotAvailable(message)),
            Ok(Answer::NotFound) => Ok(LogRead::NotAvailable(format!("pods \"{pod}\" not found"))),
            // A log 404 without the pod's name still means the pod went away between the list
            // and the read; the log resource itself is always served.
            Err(ProbeError::ResourceNotServed { .. }) => Ok(LogRead::NotAvailable(format!(
                "pod {pod} has no log (it is gone)"
            ))),
            Err(e) => Err(e),
        }
    }
}

/// What stands in for every value of a Secret: checks and snapshots see only its keys.
pub const REDACTED: &str = "(redacted by labcheck)";

/// Blank every value under a Secret's `data` and `stringData` (keys stay: a check may ask whether
/// a key exists), and the copy kubectl leaves in the last-applied annotation.
pub fn redact_secret(object: &mut serde_json::Value) {
    for field in ["data", "stringData"] {
        match object.get_mut(field) {
            Some(serde_json::Value::Object(map)) => {
                for value in map.values_mut() {
                    *value = serde_json::Value::String(REDACTED.to_string());
                }
            }
            // Not a map (a broken Secret): nothing in it can be kept.
            Some(value) if !value.is_null() => {
                *value = serde_json::Value::String(REDACTED.to_string());
            }
            _ => {}
        }
    }
    if let Some(serde_json::Value::Object(annotations)) = object
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        && let Some(value) = annotations.get_mut("kubectl.kubernetes.io/last-applied-configuration")
    {
        *value = serde_json::Value::String(REDACTED.to_string());
    }
}

/// Where Application `name` lives in the API.
pub fn application_path(ns: &str, name: &str) -> ApiPath {
    ApiPath::new("argoproj.io/v1alpha1", "applications")
        .in_namespace(ns)
        .named(name)
}

/// The most labcheck reads of one answer (an object or a list); more is not a Kubernetes object
/// a course reads, and is refused rather than held in memory.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Of a pod log, labcheck keeps the last this many bytes (a log of many megabytes is read as a
/// stream, never held whole).
pub const MAX_LOG_BYTES: usize = 4 * 1024 * 1024;

/// A body that stops for this long has stalled (less than kube's read timeout, so labcheck sees
/// the stall itself and can say how much had come).
pub const STALL_TIMEOUT: Duration = Duration::from_secs(4);

enum BodyError {
    Broken(kube::Error),
    TooBig,
    /// No byte for [`STALL_TIMEOUT`], after this many.
    Stalled(u64),
    /// Still coming at the deadline, after this many.
    Endless(u64),
}

/// Read a body as a stream until `deadline`: all of it up to [`MAX_BODY_BYTES`], or, with
/// `keep_tail`, its last `keep_tail` bytes and how many came before them.
async fn read_bounded(
    mut body: kube::client::Body,
    keep_tail: Option<usize>,
    deadline: tokio::time::Instant,
) -> Result<(Vec<u8>, u64), BodyError> {
    use http_body::Body as _;
    let mut kept: Vec<u8> = Vec::new();
    let mut skipped: u64 = 0;
    loop {
        let received = kept.len() as u64 + skipped;
        let stall_at = tokio::time::Instant::now() + STALL_TIMEOUT;
        let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx));
        let frame = match tokio::time::timeout_at(stall_at.min(deadline), next).await {
            Ok(frame) => frame,
            Err(_) if stall_at <= deadline => return Err(BodyError::Stalled(received)),
            Err(_) => return Err(BodyError::Endless(received)),
        };
        let Some(frame) = frame else { break };
        let Ok(data) = frame.map_err(BodyError::Broken)?.into_data() else {
            continue; // trailers
        };
        kept.extend_from_slice(&data);
        match keep_tail {
            Some(limit) if kept.len() > limit => {
                let cut = kept.len() - limit;
                kept.drain(..cut);
                skipped += cut as u64;
            }
            None if kept.len() > MAX_BODY_BYTES => return Err(BodyError::TooBig),
            _ => {}
        }
    }
    Ok((kept, skipped))
}

async fn send(
    client: &kube::Client,
    describe: &str,
    url: String,
    keep_tail: Option<usize>,
) -> Result<RawResponse, ProbeError> {
    let unreachable = |reason: String| unreachable_or_untrusted(describe, reason);
    let request = http::Request::get(url.as_str())
        .header(http::header::ACCEPT, "application/json, */*")
        .body(kube::client::Body::empty())
        .map_err(|e| ProbeError::NotConfigured {
            reason: format!("cannot build a request for {url}: {e}"),
            fix: String::new(),
        })?;
    let deadline = tokio::time::Instant::now() + REQUEST_TIMEOUT;
    let response = match tokio::time::timeout_at(deadline, client.send(request)).await {
        Ok(response) => response.map_err(|e| unreachable(chain(&e)))?,
        Err(_) => {
            return Err(unreachable(format!(
                "no answer within {}s",
                REQUEST_TIMEOUT.as_secs()
            )));
        }
    };
    let code = response.status().as_u16();
    let header = |name: http::header::HeaderName| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.chars().take(300).collect::<String>())
    };
    let location = header(http::header::LOCATION);
    let retry_after = header(http::header::RETRY_AFTER);
    let (bytes, skipped) = read_bounded(response.into_body(), keep_tail, deadline)
        .await
        .map_err(|e| match e {
            // kube's own read timeout on a body that stopped is a stall too.
            BodyError::Broken(e) if chain(&e).contains("timed out") => ProbeError::Stalled {
                url: url.clone(),
                received: 0,
                stall_secs: config::READ_TIMEOUT.as_secs(),
            },
            BodyError::Broken(e) => unreachable(format!("the answer broke off: {}", chain(&e))),
            BodyError::TooBig => ProbeError::Garbage {
                url: url.clone(),
                expected: "a Kubernetes object".to_string(),
                reason: format!(
                    "the answer is bigger than {} MiB",
                    MAX_BODY_BYTES / (1024 * 1024)
                ),
            },
            BodyError::Stalled(received) => ProbeError::Stalled {
                url: url.clone(),
                received,
                stall_secs: STALL_TIMEOUT.as_secs(),
            },
            BodyError::Endless(received) => ProbeError::Endless {
                url: url.clone(),
                received,
                limit_secs: REQUEST_TIMEOUT.as_secs(),
            },
        })?;
    // A log cut at a byte may start inside a character: drop that partial character.
    let bytes = if skipped > 0 {
        let start = bytes
            .iter()
            .position(|b| (*b as i8) >= -0x40)
            .unwrap_or(bytes.len());
        bytes[start..].to_vec()
    } else {
        bytes
    };
    let body = String::from_utf8(bytes).map_err(|_| ProbeError::Garbage {
        url: url.clone(),
        expected: "text".to_string(),
        reason: "the body is not UTF-8".to_string(),
    })?;
    Ok(RawResponse {
        code,
        body,
        skipped,
        location,
        retry_after,
    })
}

/// A connection error, or, when TLS refused the server's certificate as signed by no CA the
/// kubeconfig trusts, that in words.
fn unreachable_or_untrusted(describe: &str, reason: String) -> ProbeError {
    let lower = reason.to_ascii_lowercase();
    if lower.contains("unknownissuer") || lower.contains("unknown issuer") {
        ProbeError::UntrustedCertificate {
            server: describe.to_string(),
            detail: reason,
        }
    } else {
        ProbeError::Unreachable {
            server: describe.to_string(),
            reason,
        }
    }
}

/// An error and its causes on one line: kube's top-level message alone ("ServiceError") says
/// nothing a learner can act on; the innermost cause ("Connection refused") does.
fn chain(error: &dyn std::error::Error) -> String {
    let mut parts = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.last().cloned().unwrap_or_default()
}
