//! One GET to the API server, bounded: a deadline on the whole exchange, a stall timeout
//! between bytes, a cap on the body (or only a log's tail kept), and errors that say which.

use std::time::Duration;

use super::api::RawResponse;
use super::config;
use super::{ProbeError, REQUEST_TIMEOUT};

/// The most labcheck reads of one answer (an object or a list); more is not a Kubernetes object
/// a course reads, and is refused rather than held in memory.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Of a pod log, labcheck keeps the last this many bytes (a log of many megabytes is read as a
/// stream, never held whole).
pub const MAX_LOG_BYTES: usize = 4 * 1024 * 1024;

/// A body that stops for this long has stalled (less than kube's read timeout, so labcheck sees
/// the stall itself and can say how much had come).
pub const STALL_TIMEOUT: Duration = Duration::from_secs(4);

/// Why a body was not read whole.
pub(super) enum BodyError {
    /// The connection broke off.
    Broken(kube::Error),
    /// Over [`MAX_BODY_BYTES`].
    TooBig,
    /// No byte for [`STALL_TIMEOUT`], after this many.
    Stalled(u64),
    /// Still coming at the deadline, after this many.
    Endless(u64),
}

/// Read a body as a stream until `deadline`: all of it up to [`MAX_BODY_BYTES`], or, with
/// `keep_tail`, its last `keep_tail` bytes and how many came before them.
pub(super) async fn read_bounded(
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

/// A GET of `url` (a path and query) that accepts `accept`.
pub(super) fn get_request(
    url: &str,
    accept: &str,
) -> Result<http::Request<kube::client::Body>, ProbeError> {
    http::Request::get(url)
        .header(http::header::ACCEPT, accept)
        .body(kube::client::Body::empty())
        .map_err(|e| ProbeError::NotConfigured {
            reason: format!("cannot build a request for {url}: {e}"),
            fix: String::new(),
        })
}

pub(super) async fn send(
    client: &kube::Client,
    describe: &str,
    url: String,
    keep_tail: Option<usize>,
) -> Result<RawResponse, ProbeError> {
    let unreachable = |reason: String| unreachable_or_untrusted(describe, reason);
    let request = get_request(&url, "application/json, */*")?;
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
    // The closure borrows the response (whose body is not Sync): it must end before the await
    // below, so that a read can run on a spawned task (the live class page).
    let (location, retry_after) = {
        let header = |name: http::header::HeaderName| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.chars().take(300).collect::<String>())
        };
        (
            header(http::header::LOCATION),
            header(http::header::RETRY_AFTER),
        )
    };
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
pub(super) fn unreachable_or_untrusted(describe: &str, reason: String) -> ProbeError {
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
pub(super) fn chain(error: &dyn std::error::Error) -> String {
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
