//! An `http://` cluster behind an `http://` proxy-url, reached as kubectl reaches it: every
//! request goes to the proxy in absolute form (`GET http://host:port/path HTTP/1.1`, with
//! `Proxy-Authorization` when the proxy URL holds a user), as Go's transport sends plain-http
//! requests to a proxy. kube tunnels every request through an http proxy with `CONNECT`, which
//! is what kubectl does for an `https://` cluster only, and which proxies commonly refuse for a
//! port other than 443. Other clusters and proxies keep kube's own client.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine as _;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::{TokioExecutor, TokioIo};
use kube::client::ConfigExt;

/// The client for `config`: kube's, unless the cluster is `http://` behind an `http://` proxy.
pub fn client(config: &kube::Config) -> Result<kube::Client, String> {
    let proxy = config
        .proxy_url
        .as_ref()
        .filter(|p| p.scheme_str() == Some("http"));
    match proxy {
        Some(proxy) if config.cluster_url.scheme_str() == Some("http") => {
            absolute_form(config, proxy)
        }
        _ => kube::Client::try_from(config.clone()).map_err(|e| e.to_string()),
    }
}

fn absolute_form(config: &kube::Config, proxy: &http::Uri) -> Result<kube::Client, String> {
    let authority = proxy
        .authority()
        .ok_or_else(|| format!("the proxy-url {proxy} names no host"))?;
    let address = format!(
        "{}:{}",
        authority.host(),
        authority.port_u16().unwrap_or(80)
    );
    let mut config = config.clone();
    if let Some((userinfo, _)) = authority.as_str().rsplit_once('@') {
        let credentials =
            base64::engine::general_purpose::STANDARD.encode(percent_decoded(userinfo));
        let value = http::HeaderValue::from_str(&format!("Basic {credentials}"))
            .map_err(|e| format!("the proxy-url's user cannot be sent: {e}"))?;
        config
            .headers
            .push((http::header::PROXY_AUTHORIZATION, value));
    }
    let connector = ToProxy {
        address,
        timeout: config.connect_timeout,
    };
    let http = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
        .build::<_, kube::client::Body>(connector);
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer().map_err(|e| e.to_string())?)
        .layer(config.extra_headers_layer().map_err(|e| e.to_string())?)
        .map_err(|e: hyper_util::client::legacy::Error| Box::new(e) as tower::BoxError)
        .service(http);
    Ok(kube::Client::new(service, config.default_namespace.clone()))
}

/// `user:pa%40ss` as the bytes it stands for (a proxy URL escapes `@`, `:` and `%` in them).
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// Connects every request to the proxy, whatever host it names; the connection says it is a
/// proxy's, so the client writes the request line in absolute form.
#[derive(Clone)]
struct ToProxy {
    address: String,
    timeout: Option<Duration>,
}

impl tower::Service<http::Uri> for ToProxy {
    type Response = Proxied;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = std::io::Result<Proxied>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _cluster: http::Uri) -> Self::Future {
        let (address, timeout) = (self.address.clone(), self.timeout);
        Box::pin(async move {
            let connect = tokio::net::TcpStream::connect(address.clone());
            let stream = match timeout {
                Some(limit) => tokio::time::timeout(limit, connect).await.map_err(|_| {
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("the proxy {address} did not accept a connection within {limit:?}"),
                    )
                })??,
                None => connect.await?,
            };
            stream.set_nodelay(true)?;
            Ok(Proxied(TokioIo::new(stream)))
        })
    }
}

/// A connection to the proxy.
struct Proxied(TokioIo<tokio::net::TcpStream>);

impl Connection for Proxied {
    fn connected(&self) -> Connected {
        self.0.connected().proxy(true)
    }
}

impl hyper::rt::Read for Proxied {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Proxied {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::percent_decoded;

    #[test]
    fn a_proxy_users_escapes_are_decoded_and_a_broken_one_kept() {
        for (written, meant) in [
            ("user:pass", "user:pass"),
            ("user:pa%40ss%3Aword", "user:pa@ss:word"),
            ("user:100%25", "user:100%"),
            ("user:50%", "user:50%"),
            ("user:%zz", "user:%zz"),
        ] {
            assert_eq!(percent_decoded(written), meant.as_bytes(), "{written}");
        }
    }
}
