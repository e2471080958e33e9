//! labcheck's one HTTP serving layer, for both of its servers: `labcheck serve` (a snapshot as a
//! read-only Kubernetes API) and the class page (`labcheck class serve`). Each brings its own
//! routes; this binds, serves them in a task, stops (gracefully, or at once when dropped: an
//! open keep-alive connection or event stream would hold a graceful shutdown forever), and holds
//! what both say the same way: only reads are answered, and a live answer is never cached.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, Method, header};
use axum::response::Response;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server running in a task of its own; dropping it stops it at once.
#[derive(Debug)]
pub struct Served {
    /// Where it listens (the real port when bound to port 0).
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// Bind `listen` (port 0 picks a free port).
pub async fn bind(listen: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(listen).await
}

/// Serve `app` on `listener` until the returned [`Served`] is shut down or dropped.
pub fn serve(listener: TcpListener, app: Router) -> std::io::Result<Served> {
    let addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await;
    });
    Ok(Served {
        addr,
        stop: Some(stop),
        task: Some(task),
    })
}

impl Served {
    /// Stop accepting requests and wait up to `grace` for the requests in flight; a client
    /// holding one open longer is cut off.
    pub async fn shutdown(mut self, grace: Duration) {
        self.signal_stop();
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(grace, &mut task).await.is_err()
        {
            task.abort();
        }
    }

    fn signal_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.signal_stop();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Whether `method` only reads (GET, HEAD): the only requests either server answers.
pub fn is_read(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

/// `response` as `content_type`, kept by no cache (the class page and a served cluster are live).
pub fn live(mut response: Response, content_type: &'static str) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;

    async fn status_of(addr: SocketAddr, method: &str) -> std::io::Result<u16> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        stream
            .write_all(
                format!("{method} / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").as_bytes(),
            )
            .await?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await?;
        Ok(answer
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0))
    }

    #[tokio::test]
    async fn a_served_router_answers_until_dropped_and_a_shutdown_ends_an_idle_server() {
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let app = || Router::new().route("/", get(|| async { "ok" }));
        let served = serve(bind(loopback).await.expect("a port"), app()).expect("served");
        let addr = served.addr;
        assert_eq!(status_of(addr, "GET").await.expect("an answer"), 200);
        drop(served);
        // The task is aborted: the port no longer answers.
        let after = tokio::time::timeout(Duration::from_secs(2), status_of(addr, "GET")).await;
        assert!(
            !matches!(after, Ok(Ok(200))),
            "a dropped server still answered"
        );

        let served = serve(bind(loopback).await.expect("a port"), app()).expect("served");
        let started = std::time::Instant::now();
        served.shutdown(Duration::from_secs(5)).await;
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "an idle server stops without waiting out its grace"
        );
    }

    #[test]
    fn only_get_and_head_are_reads() {
        let cases = [
            (Method::GET, true),
            (Method::HEAD, true),
            (Method::POST, false),
            (Method::PUT, false),
            (Method::PATCH, false),
            (Method::DELETE, false),
            (Method::OPTIONS, false),
        ];
        for (method, read) in cases {
            assert_eq!(is_read(&method), read, "{method}");
        }
    }
}
