//! One GET to the API server, bounded: a deadline on the whole exchange, a stall timeout
//! between bytes, a cap on the body (or only a log's tail kept), and errors that say which.

use std::time::Duration;

use super::ProbeError;
use super::api::RawResponse;
use super::config;

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
    /// Still coming at the deadline: what was kept, and how many bytes before it were not.
    Endless { kept: Vec<u8>, skipped: u64 },
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
            Err(_) => return Err(BodyError::Endless { kept, skipped }),
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

/// client-go's rest client sends a GET at most this many times more after a busy answer
/// (`maxRetries: 10` in `NewRequest`, k8s.io/client-go/rest/request.go).
pub const MAX_RETRIES: usize = 10;

/// One request as sent: its answer, and the busy answers retried before it (for `-v`).
pub(super) struct Sent {
    pub answer: Result<RawResponse, ProbeError>,
    pub retried: Vec<String>,
}

/// GET `url`, retried as client-go's rest client retries it (`checkWait` in
/// k8s.io/client-go/rest/with_retry.go): a 429 or any 5xx that carries `Retry-After: SECONDS`,
/// after those seconds, and a connection that broke off before the answer, after 1 s; at most
/// [`MAX_RETRIES`] times. Unlike client-go, every attempt and every wait shares one `budget`,
/// headers to the last byte: a wait that would not fit ends the request at once with the answer
/// that asked for it.
pub(super) async fn send(
    client: &kube::Client,
    describe: &str,
    url: String,
    keep_tail: Option<usize>,
    budget: Duration,
) -> Sent {
    let mut retried = Vec::new();
    let answer = attempts(client, describe, &url, keep_tail, budget, &mut retried).await;
    Sent { answer, retried }
}

/// `2s`, `500ms`: a budget as the learner typed it.
pub(super) fn shown(limit: Duration) -> String {
    humantime::format_duration(limit).to_string()
}

async fn attempts(
    client: &kube::Client,
    describe: &str,
    url: &str,
    keep_tail: Option<usize>,
    budget: Duration,
    retried: &mut Vec<String>,
) -> Result<RawResponse, ProbeError> {
    let unreachable = |reason: String| unreachable_or_untrusted(describe, reason);
    let deadline = tokio::time::Instant::now() + budget;
    let fits = |wait: Duration| tokio::time::Instant::now() + wait < deadline;
    let budget_words = format!(
        "the {} one request may take (--request-timeout)",
        shown(budget)
    );
    loop {
        let request = get_request(url, "application/json, */*")?;
        let response = match tokio::time::timeout_at(deadline, client.send(request)).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => {
                let reason = chain(&e);
                // client-go retries a GET whose connection was reset or closed before the answer
                // (IsConnectionReset, IsProbableEOF) as if told `Retry-After: 1`.
                let wait = Duration::from_secs(1);
                if retried.len() < MAX_RETRIES && connection_dropped(&reason) && fits(wait) {
                    retried.push(format!("the connection broke off ({reason}), after 1 s"));
                    tokio::time::sleep(wait).await;
                    continue;
                }
                return Err(unreachable(reason));
            }
            Err(_) => {
                let after = match retried.len() {
                    0 => String::new(),
                    n => format!(" (after {n} retried busy answer(s))"),
                };
                return Err(unreachable(format!(
                    "no answer within {}{after}",
                    shown(budget)
                )));
            }
        };
        let code = response.status().as_u16();
        // The closure borrows the response (whose body is not Sync): it must end before the
        // awaits below, so that a read can run on a spawned task (the live class page).
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
        let mut not_retried = None;
        // Only whole seconds, as client-go reads the header (`retryAfterSeconds`); an HTTP date
        // is not retried there either.
        let wait = retry_after
            .as_deref()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .filter(|_| code == 429 || code >= 500);
        if let Some(seconds) = wait {
            let wait = Duration::from_secs(seconds);
            if retried.len() >= MAX_RETRIES {
                not_retried = Some(format!(
                    "labcheck retried {MAX_RETRIES} times, as kubectl does, and stopped"
                ));
            } else if !fits(wait) {
                not_retried = Some(format!(
                    "labcheck did not wait: that is longer than what is left of {budget_words}"
                ));
            } else {
                let reason = response
                    .status()
                    .canonical_reason()
                    .map(|r| format!(" {r}"))
                    .unwrap_or_default();
                retried.push(format!("{code}{reason}, Retry-After {seconds} s"));
                drop(response);
                tokio::time::sleep(wait).await;
                continue;
            }
        }
        let (bytes, skipped, unended) =
            match read_bounded(response.into_body(), keep_tail, deadline).await {
                Ok((bytes, skipped)) => (bytes, skipped, false),
                // A log still coming at the deadline (a follow-like stream): what came is the
                // log as far as it was read, and the check judges it knowing so.
                Err(BodyError::Endless { kept, skipped }) if keep_tail.is_some() && code == 200 => {
                    (kept, skipped, true)
                }
                Err(e) => return Err(body_error(e, describe, url, budget)),
            };
        let body = text(url, bytes, skipped)?;
        return Ok(RawResponse {
            code,
            body,
            skipped,
            location,
            retry_after,
            not_retried,
            unended,
        });
    }
}

/// Whether a connection error is one client-go retries a GET for: the connection was reset or
/// closed before the answer came (a server restarting, a proxy dropping idle connections).
fn connection_dropped(reason: &str) -> bool {
    let lower = reason.to_ascii_lowercase();
    [
        "connection reset",
        "closed before message completed",
        "unexpected eof",
        "broken pipe",
    ]
    .iter()
    .any(|words| lower.contains(words))
}

/// The error for a body that was not read whole.
fn body_error(error: BodyError, describe: &str, url: &str, budget: Duration) -> ProbeError {
    match error {
        // kube's own read timeout on a body that stopped is a stall too.
        BodyError::Broken(e) if chain(&e).contains("timed out") => ProbeError::Stalled {
            url: url.to_string(),
            received: 0,
            stall_secs: config::READ_TIMEOUT.as_secs(),
        },
        BodyError::Broken(e) => {
            unreachable_or_untrusted(describe, format!("the answer broke off: {}", chain(&e)))
        }
        BodyError::TooBig => ProbeError::Garbage {
            url: url.to_string(),
            expected: "a Kubernetes object".to_string(),
            reason: format!(
                "the answer is bigger than {} MiB",
                MAX_BODY_BYTES / (1024 * 1024)
            ),
        },
        BodyError::Stalled(received) => ProbeError::Stalled {
            url: url.to_string(),
            received,
            stall_secs: STALL_TIMEOUT.as_secs(),
        },
        BodyError::Endless { kept, skipped } => ProbeError::Endless {
            url: url.to_string(),
            received: kept.len() as u64 + skipped,
            limit: shown(budget),
        },
    }
}

/// The body as text; a log cut at a byte may start inside a character: that partial character
/// is dropped.
pub(super) fn text(url: &str, bytes: Vec<u8>, skipped: u64) -> Result<String, ProbeError> {
    let bytes = if skipped > 0 {
        let start = bytes
            .iter()
            .position(|b| (*b as i8) >= -0x40)
            .unwrap_or(bytes.len());
        bytes[start..].to_vec()
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|_| ProbeError::Garbage {
        url: url.to_string(),
        expected: "text".to_string(),
        reason: "the body is not UTF-8".to_string(),
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
