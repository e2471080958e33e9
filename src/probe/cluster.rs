//! Reading the learner's cluster through the Kubernetes API: GET only (get, list, pod logs), raw
//! paths without discovery, and a per-run cache so each object is fetched once however many
//! checks read it.//!
//! The connection and its per-run state live here; the reads checks ask for (objects, lists,
//! Jobs' pods, logs) are in `reads`, waiting for a change (watch streams, polls, keeping the cache
//! current) in `waiting`, and one bounded HTTP exchange in `transport`.

pub mod api;
pub mod argocd;
pub mod config;
pub mod follow;
pub mod pods;
mod reads;
pub mod server;
mod streamed;
pub mod tape;
mod target;
mod tasks;
mod transport;
mod waiting;
pub mod watch;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::OnceCell;

use crate::probe::tape::Mode;
use api::RawResponse;
pub use api::{ApiPath, ProbeError};
pub use argocd::Application;
pub use transport::{MAX_BODY_BYTES, MAX_LOG_BYTES, STALL_TIMEOUT};

/// The bound on one request when `--request-timeout` is not given: connecting, every retry of a
/// busy server's answer, and the body to its last byte. A check never hangs on the network.
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
    /// The answers of a busy server that were retried before `answer` ("429, Retry-After 1 s").
    pub retried: Vec<String>,
}

/// The requests of one run, in the order they were answered; the command line prints them.
pub type ReadLog = Arc<Mutex<Vec<Read>>>;

/// Access to one cluster for one run, with a per-run cache.
pub struct Cluster {
    access: Access,
    cache: watch::Cache,
    /// Where to note each request sent (`-v`), when someone asked.
    read_log: Option<ReadLog>,
    /// How long one request may take, headers to last byte and retries included
    /// (`--request-timeout`, else [`REQUEST_TIMEOUT`]).
    budget: Duration,
    /// Keeps the in-process snapshot server (for `--snapshot`) alive as long as the cluster.
    _keep_alive: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// A snapshot served in-process cannot change after this moment (its last timeline entry):
    /// waiting past it cannot change any answer. The text names the snapshot.
    frozen: Option<(std::time::Instant, String)>,
    /// Counts the changes seen (watch events, poll rounds), so waiters wake on the next one.
    changes: Arc<tokio::sync::watch::Sender<u64>>,
    /// Counts the reads answered from the cluster (not the cache), so a wait under way starts
    /// the streams for reads made while it waits.
    reads_made: tokio::sync::watch::Sender<u64>,
    /// Watch streams, one per kind and namespace read while waiting.
    watches: watch::Watches,
    /// Whether reads are recorded on a tape or answered from one (see [`tape`]).
    tape: Mode,
    /// Pod logs followed while waiting (`kubectl logs -f`), one stream per log read.
    follows: follow::Follows,
    /// The `timeoutSeconds` each watch request asks for.
    watch_seconds: u64,
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
    /// `--request-timeout`: how long one request may take (connecting, retries of a busy server's
    /// answers, the body to its last byte), instead of [`REQUEST_TIMEOUT`].
    pub request_timeout: Option<Duration>,
    /// `-v`: note each request here.
    pub read_log: Option<ReadLog>,
    /// Serve this snapshot in-process instead (a bundle's cluster part), named by the text.
    pub served: Option<(Arc<crate::snapshot::Snapshot>, String)>,
    /// Record every read on a tape, or answer from one (`labcheck bundle`, its replay).
    pub tape: Mode,
    /// How long each watch request asks the server to keep it open (`timeoutSeconds`, whole
    /// seconds, at least one) instead of [`watch::WATCH_SECONDS`]. No flag sets it: the
    /// real-API-server tier makes it short so the server ends watches within a test.
    pub watch_timeout: Option<Duration>,
}

/// What a pod's log read gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogRead {
    /// The log text.
    Text(String),
    /// Only the last part of a log longer than [`MAX_LOG_BYTES`]: `skipped` bytes came before it.
    Tail { text: String, skipped: u64 },
    /// A log still coming when the request's time (`within`, e.g. `10s`) was up, as a followed
    /// log streams on: what came until then (its last [`MAX_LOG_BYTES`], after `skipped`).
    Unended {
        text: String,
        skipped: u64,
        within: String,
    },
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
        Cluster::with_access(Access::Unavailable(error))
    }

    /// A fresh run's state (empty cache, no change seen, no stream) around `access`.
    fn with_access(access: Access) -> Cluster {
        Cluster {
            access,
            cache: watch::Cache::default(),
            read_log: None,
            budget: REQUEST_TIMEOUT,
            _keep_alive: None,
            frozen: None,
            changes: Arc::new(tokio::sync::watch::Sender::new(0)),
            reads_made: tokio::sync::watch::Sender::new(0),
            watches: watch::Watches::default(),
            tape: Mode::Live,
            follows: follow::Follows::default(),
            watch_seconds: watch::WATCH_SECONDS,
        }
    }

    /// Prepare access (no request is sent until a check reads something).
    pub async fn connect(options: &ClusterOptions) -> Cluster {
        let mut cluster = if let Some((snapshot, describe)) = &options.served {
            let mut cluster = Self::serve(snapshot.as_ref().clone(), describe).await;
            // Nothing changes it: waiting cannot change any answer.
            cluster.frozen = Some((std::time::Instant::now(), describe.clone()));
            cluster
        } else if let Some(file) = &options.snapshot {
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
        cluster.tape = options.tape.clone();
        if let Some(limit) = options.request_timeout {
            cluster.budget = limit;
        }
        if let Some(timeout) = options.watch_timeout {
            cluster.watch_seconds = timeout.as_secs().max(1);
        }
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
        match config::client(&config) {
            Ok(client) => Cluster::with_access(Access::Api {
                client,
                describe,
                watch_client: std::sync::OnceLock::new(),
                config: Box::new(config),
            }),
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

    /// Why this cluster cannot be read at all (no kubeconfig, a broken one); `None` when reads
    /// can be sent.
    pub fn unavailable_reason(&self) -> Option<String> {
        match &self.access {
            Access::Unavailable(e) => Some(e.to_string()),
            Access::Api { .. } => None,
        }
    }

    /// What this cluster is, for messages ("context kind-course (https://…)").
    pub fn describe(&self) -> String {
        match &self.access {
            Access::Unavailable(_) => "no cluster".to_string(),
            Access::Api { describe, .. } => describe.clone(),
        }
    }

    /// The per-run cache of reads, by URL (a poisoned lock is still sound).
    fn cache_lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        watch::lock(&self.cache)
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
