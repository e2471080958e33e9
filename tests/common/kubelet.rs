//! A loopback "kubelet": HTTPS on 127.0.0.1, answering
//! `GET /containerLogs/{namespace}/{pod}/{container}` (`follow`, `tailLines`, `limitBytes`,
//! `timestamps`, `previous`) as kubelet's server does (`pkg/kubelet/server/server.go`
//! `getContainerLogs`), so a `pods/log` request goes through kube-apiserver's real proxy path
//! (`LogLocation` → the Node's InternalIP and kubelet port). The loader gives it the logs of the
//! state it loaded; what it refuses it refuses with kubelet's words and status
//! (`validateContainerLogStatus` in `pkg/kubelet/kubelet_pods.go`: 400 and the error as text).
//! A followed log streams what the container writes next (the loader's next state) and ends
//! when the container does, as kubelet's `follow` reads the log file until the container exits.

#![allow(dead_code)] // the real-Argo-CD tier serves logs as containers write them, not as states load

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::certs::Certs;

/// What kubelet has for one container (`previous` for its last terminated instance).
#[derive(Debug, Clone)]
pub enum ContainerLog {
    /// The log; `ended` when the container has exited (a followed log then ends too).
    Text {
        text: String,
        ended: bool,
        /// When each line was written, for `timestamps=true` (RFC 3339, kubelet's nanoseconds).
        at: String,
    },
    /// kubelet's 400 and its message ("container … is waiting to start: …").
    Refused(String),
    /// A log that never ends, even unfollowed (a container writing faster than it is read, a
    /// kubelet that streams on): `text`, then `then` again and again, forever.
    Endless { text: String, then: String },
}

/// `namespace/pod/container` (`@previous` appended for the last terminated instance).
pub type Logs = BTreeMap<String, ContainerLog>;

/// The running kubelet (a clone serves the same logs).
#[derive(Clone)]
pub struct Kubelet {
    pub port: u16,
    logs: SharedLogs,
}

/// The logs served, shared with the followed streams, which wake when they change.
type SharedLogs = Arc<tokio::sync::watch::Sender<Logs>>;

impl Kubelet {
    /// Listen on a free loopback port with a certificate for 127.0.0.1.
    pub async fn start(certs: &Certs) -> Result<Kubelet, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let cert = rustls::pki_types::CertificateDer::from(certs.kubelet.der.0.clone());
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(
            rustls::pki_types::PrivatePkcs8KeyDer::from(certs.kubelet.der.1.clone()),
        );
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .map_err(|e| e.to_string())?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let tcp = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let port = tcp.local_addr().map_err(|e| e.to_string())?.port();
        let logs: SharedLogs = Arc::new(tokio::sync::watch::Sender::new(Logs::new()));
        let app = Router::new()
            .route(
                "/containerLogs/{namespace}/{pod}/{container}",
                get(container_logs),
            )
            .with_state(logs.clone());
        let listener = TlsListener {
            tcp,
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
        };
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Kubelet { port, logs })
    }

    /// Serve these logs from now on (the state the loader just loaded); a followed log gets
    /// what its container wrote since, and ends if the container did.
    pub fn set(&self, logs: Logs) {
        self.logs.send_replace(logs);
    }

    /// Serve `log` for `namespace/pod/container` from now on, the others as they were.
    pub fn set_one(&self, key: &str, log: ContainerLog) {
        self.logs.send_modify(|logs| {
            logs.insert(key.to_string(), log);
        });
    }
}

struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.tcp.accept().await else {
                continue;
            };
            // A client that gives up mid-handshake is no reason to stop serving.
            if let Ok(tls) = self.acceptor.accept(stream).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// Where a followed log stands: what was sent of it and the changes to the served logs.
struct Follow {
    changes: tokio::sync::watch::Receiver<Logs>,
    sent: String,
    first: Option<Vec<u8>>,
    finished: bool,
}

fn flag(query: &BTreeMap<String, String>, key: &str) -> bool {
    query.get(key).is_some_and(|v| v == "true" || v == "1")
}

fn number(query: &BTreeMap<String, String>, key: &str) -> Option<usize> {
    query
        .get(key)
        .and_then(|v| v.parse::<i64>().ok())
        .and_then(|n| usize::try_from(n).ok())
}

async fn container_logs(
    State(logs): State<SharedLogs>,
    Path((namespace, pod, container)): Path<(String, String, String)>,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let previous = flag(&query, "previous");
    let key = format!(
        "{namespace}/{pod}/{container}{}",
        if previous { "@previous" } else { "" }
    );
    let found = logs.borrow().get(&key).cloned();
    let (text, ended, at) = match found {
        Some(ContainerLog::Text { text, ended, at }) => (text, ended || previous, at),
        Some(ContainerLog::Refused(message)) => {
            return (StatusCode::BAD_REQUEST, message).into_response();
        }
        Some(ContainerLog::Endless { text, then }) => {
            let first =
                futures::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(text)) });
            let rest = futures::stream::unfold(then, |then| async move {
                // A line a tenth of a second, so a read sees it grow without being flooded.
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                Some((Ok(Bytes::from(then.clone())), then))
            });
            use futures::StreamExt;
            return Response::builder()
                .header(header::CONTENT_TYPE, "text/plain")
                .body(Body::from_stream(first.chain(rest)))
                .unwrap_or_default();
        }
        // kubelet knows no such pod or container.
        None => {
            return (
                StatusCode::NOT_FOUND,
                format!("pod {namespace}/{pod} not found"),
            )
                .into_response();
        }
    };
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    if let Some(n) = number(&query, "tailLines") {
        lines.drain(..lines.len().saturating_sub(n));
    }
    if flag(&query, "timestamps") {
        for line in &mut lines {
            *line = format!("{at} {line}");
        }
    }
    let mut body = lines.concat().into_bytes();
    if let Some(limit) = number(&query, "limitBytes") {
        body.truncate(limit);
    }
    // kubelet stops a followed log at `limitBytes` (what comes after it is not bounded here).
    let under_limit = number(&query, "limitBytes").is_none_or(|n| body.len() < n);
    if flag(&query, "follow") && !ended && under_limit {
        // A running container's followed log stays open: what the container writes next comes
        // as it is written, and the stream ends when the container does (or is gone).
        let timestamps = flag(&query, "timestamps");
        let state = Follow {
            changes: logs.subscribe(),
            sent: text,
            first: Some(body),
            finished: false,
        };
        let stream = futures::stream::unfold(state, move |mut state| {
            let key = key.clone();
            async move {
                if state.finished {
                    return None;
                }
                if let Some(first) = state.first.take() {
                    return Some((Ok::<_, std::io::Error>(Bytes::from(first)), state));
                }
                loop {
                    state.changes.changed().await.ok()?;
                    let now = state.changes.borrow_and_update().get(&key).cloned();
                    let Some(ContainerLog::Text { text, ended, at }) = now else {
                        return None;
                    };
                    // A new instance's log is not this stream's: kubelet ends it.
                    let more = text.strip_prefix(state.sent.as_str())?.to_string();
                    state.finished = ended;
                    if more.is_empty() && !ended {
                        continue;
                    }
                    if more.is_empty() {
                        return None;
                    }
                    state.sent = text;
                    let more = match timestamps {
                        true => more
                            .split_inclusive('\n')
                            .map(|line| format!("{at} {line}"))
                            .collect(),
                        false => more,
                    };
                    return Some((Ok(Bytes::from(more)), state));
                }
            }
        });
        return Response::builder()
            .header(header::CONTENT_TYPE, "text/plain")
            .body(Body::from_stream(stream))
            .unwrap_or_default();
    }
    ([(header::CONTENT_TYPE, "text/plain")], body).into_response()
}
