//! `labcheck serve`: a snapshot served as a read-only Kubernetes API over plain HTTP, close enough
//! to a real API server that kubectl and kube-rs read it unchanged. Tests run labcheck's cluster
//! checks against it; instructors and the demo use it instead of a cluster.

mod discovery;
mod failure;
mod handler;
mod logs;
mod printers;
mod request;
mod selector;
mod status;
mod table;
mod watch;

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use serde_json::Value;

use crate::snapshot::{ClusterState, ResourceTable, Snapshot, SnapshotError};

pub use printers::human_duration;
pub use selector::{FieldSelector, LabelSelector};

/// How the server behaves besides serving the snapshot.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// Added to every response (for benchmarks and for timeouts in tests).
    pub latency: Duration,
    /// Up to this much more, drawn anew for each response, so concurrent requests do not all
    /// come back in the same instant (a network's spread).
    pub jitter: Duration,
    /// Append one line per answered request to this file, as it is answered (for benchmarks).
    pub request_log: Option<PathBuf>,
    /// Answer requests with this HTTP status and a proper Status body instead of data:
    /// 401 answers everything (authentication comes first); 403, 500 and others answer
    /// resource requests only, so discovery still works as with a real RBAC denial.
    pub fail_with: Option<u16>,
    /// Limit `fail_with` to these resources (plurals such as `applications`); empty means all.
    pub fail_resources: Vec<String>,
    /// The user named in 403 messages; `system:serviceaccount:default:learner` when empty.
    pub user: String,
    /// Misbehave on purpose the way real servers and proxies do (tests of labcheck's messages).
    pub misbehave: Option<Misbehave>,
}

/// Ways a server or a proxy in front of it misbehaves, for tests (resource requests only, so
/// discovery and `/version` still answer).
#[derive(Debug, Clone)]
pub enum Misbehave {
    /// 429 Too Many Requests with `Retry-After: SECONDS`, as API priority and fairness answers.
    RateLimit { retry_after_secs: u64 },
    /// `code` (429, or a 5xx such as 503 from an API server starting up) with `Retry-After:
    /// SECONDS` to the first `times` resource requests, then the real answers: a server that is
    /// busy for a moment, as client-go's retries expect.
    BusyFor {
        code: u16,
        retry_after_secs: u64,
        times: u32,
    },
    /// A 200 whose body comes one byte at a time, `every` apart, never in time for a client's
    /// bound (a proxy or a network that crawls).
    Trickle { every: Duration },
    /// 301 Moved Permanently to `location`, as a misconfigured proxy or ingress answers.
    Redirect { location: String },
    /// The headers and the first bytes of the answer, then nothing, with the connection open.
    StallBody,
    /// Pod logs that never end: a line every 100 ms, for as long as the client reads.
    EndlessLogs,
    /// A get of `plural` answered with `object` instead (a ConfigMap path answered with a Secret).
    Substitute { plural: String, object: Value },
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error(
        "cannot listen on {addr}: {source}. Choose another address with --listen (127.0.0.1:0 picks a free port)"
    )]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot write the kubeconfig {path}: {source}")]
    Kubeconfig {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot open the request log {path}: {source}")]
    RequestLog {
        path: String,
        source: std::io::Error,
    },
}

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub status: u16,
    /// When it was answered, from server start.
    pub at: Duration,
}

impl RecordedRequest {
    /// Anything but a read (GET/HEAD).
    pub fn is_write(&self) -> bool {
        !matches!(
            axum::http::Method::from_bytes(self.method.as_bytes()),
            Ok(method) if crate::http::is_read(&method)
        )
    }
}

/// Every request the server answered, in order; cheap to clone and share.
#[derive(Debug, Clone, Default)]
pub struct RequestLog(Arc<Mutex<Vec<RecordedRequest>>>);

impl RequestLog {
    fn lock(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        // A panic while holding the lock cannot leave the Vec half-written; keep the entries.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, request: RecordedRequest) {
        self.lock().push(request);
    }

    /// All requests so far.
    pub fn entries(&self) -> Vec<RecordedRequest> {
        self.lock().clone()
    }

    /// Requests that tried to change something (labcheck must never send one).
    pub fn writes(&self) -> Vec<RecordedRequest> {
        self.entries()
            .into_iter()
            .filter(|r| r.is_write())
            .collect()
    }

    /// How many requests had this method and exactly this path.
    pub fn count(&self, method: &str, path: &str) -> usize {
        self.lock()
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .count()
    }

    /// Forget what was recorded (e.g. between the phases of a test).
    pub fn clear(&self) {
        self.lock().clear();
    }
}

/// A server that is running; dropping it stops it too.
#[derive(Debug)]
pub struct RunningServer {
    /// Where it listens (the real port when started on port 0).
    pub addr: SocketAddr,
    pub requests: RequestLog,
    served: crate::http::Served,
}

impl RunningServer {
    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stop accepting requests and wait for the server task to end; a client holding a request
    /// open must not keep a test waiting forever.
    pub async fn shutdown(self) {
        self.served.shutdown(Duration::from_secs(2)).await;
    }
}

/// Everything a request handler reads.
struct Shared {
    states: Vec<(Duration, Arc<ClusterState>)>,
    table: ResourceTable,
    started: tokio::time::Instant,
    options: ServeOptions,
    addr: SocketAddr,
    /// `--request-log FILE`, open for appending.
    request_log: Option<Mutex<std::fs::File>>,
    /// State of the jitter's random numbers.
    jitter_seed: std::sync::atomic::AtomicU64,
    /// Resource requests answered with `Misbehave::BusyFor`'s code so far.
    busy_answers: std::sync::atomic::AtomicU32,
}

impl Shared {
    /// The state whose `after` has passed, and its index (used as the resourceVersion).
    fn current(&self) -> (usize, &ClusterState) {
        let elapsed = self.started.elapsed();
        let index = self
            .states
            .iter()
            .rposition(|(after, _)| *after <= elapsed)
            .unwrap_or(0);
        match self.states.get(index) {
            Some((_, state)) => (index, state),
            None => (0, &EMPTY),
        }
    }
}

static EMPTY: std::sync::LazyLock<ClusterState> = std::sync::LazyLock::new(ClusterState::default);

/// Serve `snapshot` on `listen` until the returned server is shut down or dropped.
pub async fn start(
    snapshot: Snapshot,
    listen: SocketAddr,
    options: ServeOptions,
) -> Result<RunningServer, ServeError> {
    snapshot.check()?;
    let bind_failed = |source| ServeError::Bind {
        addr: listen,
        source,
    };
    let listener = crate::http::bind(listen).await.map_err(bind_failed)?;
    let addr = listener.local_addr().map_err(bind_failed)?;
    let requests = RequestLog::default();
    let request_log = match &options.request_log {
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|source| ServeError::RequestLog {
                    path: path.display().to_string(),
                    source,
                })?,
        )),
        None => None,
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let shared = Arc::new(Shared {
        states: snapshot.states(),
        table: snapshot.resource_table(),
        started: tokio::time::Instant::now(),
        options,
        addr,
        request_log,
        jitter_seed: std::sync::atomic::AtomicU64::new(seed | 1),
        busy_answers: std::sync::atomic::AtomicU32::new(0),
    });
    let app = Router::new()
        .fallback(handler::handle)
        .with_state(shared.clone())
        .layer(middleware::from_fn_with_state(
            (shared, requests.clone()),
            record,
        ));
    let served = crate::http::serve(listener, app).map_err(bind_failed)?;
    Ok(RunningServer {
        addr,
        requests,
        served,
    })
}

/// Wait the configured latency, answer, and record the request with its status.
async fn record(
    State((shared, log)): State<(Arc<Shared>, RequestLog)>,
    request: Request,
    next: Next,
) -> Response {
    let method = request.method().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().map(str::to_string);
    let delay = shared.options.latency + shared.jitter();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let response = next.run(request).await;
    let recorded = RecordedRequest {
        method,
        path,
        query,
        status: response.status().as_u16(),
        at: shared.started.elapsed(),
    };
    if let Some(file) = &shared.request_log {
        let line = format!(
            "{}\t{}\t{}{}\t{}\n",
            recorded.at.as_millis(),
            recorded.method,
            recorded.path,
            recorded
                .query
                .as_deref()
                .map(|q| format!("?{q}"))
                .unwrap_or_default(),
            recorded.status
        );
        // One short write per line on a file opened for appending; a full disk must not stop
        // the server from answering.
        let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
        let _ = file.write_all(line.as_bytes());
    }
    log.push(recorded);
    response
}

impl Shared {
    /// A fresh delay in `0..=jitter` (xorshift: spread, not secrecy, is what matters here).
    fn jitter(&self) -> Duration {
        let max = self.options.jitter.as_micros() as u64;
        if max == 0 {
            return Duration::ZERO;
        }
        let mut x = self.jitter_seed.load(std::sync::atomic::Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.jitter_seed
            .store(x, std::sync::atomic::Ordering::Relaxed);
        Duration::from_micros(x % (max + 1))
    }
}

/// A JSON response with the content type a real server sends.
fn json_response(code: StatusCode, value: &Value) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = code;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Write a kubeconfig whose current context `context_name` points at `server_url` (plain HTTP,
/// no credentials: the server does not authenticate).
pub fn write_kubeconfig(
    path: &Path,
    server_url: &str,
    context_name: &str,
) -> Result<(), ServeError> {
    let text = kubeconfig(server_url, context_name);
    std::fs::write(path, text).map_err(|source| ServeError::Kubeconfig {
        path: path.display().to_string(),
        source,
    })
}

/// The kubeconfig text [`write_kubeconfig`] writes.
pub fn kubeconfig(server_url: &str, context_name: &str) -> String {
    // JSON strings are valid YAML scalars, so names and URLs are quoted safely whatever they hold.
    let q = |s: &str| Value::String(s.to_string()).to_string();
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: {name}\n  cluster:\n    server: {url}\ncontexts:\n- name: {name}\n  context:\n    cluster: {name}\n    user: {name}\ncurrent-context: {name}\nusers:\n- name: {name}\n  user: {{}}\npreferences: {{}}\n",
        name = q(context_name),
        url = q(server_url),
    )
}
