//! Failures on purpose (`ServeOptions::fail_with`), worded as a real API server words them, so
//! labcheck's "could not check" paths can be tested.

use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::Shared;
use super::request::{Query, ResourcePath};
use super::status::{self, Qualified};

/// The failure `ServeOptions::fail_with` asks for, if it applies to this request.
pub(super) fn injected(
    shared: &Shared,
    method: &Method,
    path: &ResourcePath,
    query: &Query,
) -> Option<Response> {
    let code = shared.options.fail_with?;
    let only = &shared.options.fail_resources;
    if !only.is_empty() && !only.iter().any(|r| r == path.plural) {
        return None;
    }
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let qualified = Qualified {
        group: path.group,
        plural: path.plural,
    };
    Some(match code.as_u16() {
        403 => {
            let verb = match (method.as_str(), path.name) {
                ("GET", None) if query.flag("watch") => "watch",
                ("GET", None) => "list",
                ("GET" | "HEAD", Some(_)) => "get",
                ("POST", _) => "create",
                ("PUT", _) => "update",
                ("PATCH", _) => "patch",
                ("DELETE", None) => "deletecollection",
                ("DELETE", Some(_)) => "delete",
                _ => "get",
            };
            let user = match shared.options.user.as_str() {
                "" => "system:serviceaccount:default:learner",
                user => user,
            };
            status::forbidden(
                &qualified,
                path.subresource,
                path.name,
                path.namespace,
                verb,
                user,
            )
        }
        404 => status::no_such_resource(),
        500 => {
            status::internal_error("labcheck serve was told to fail this request (fail_with: 500)")
        }
        _ => status::other(
            code,
            &format!(
                "labcheck serve was told to fail this request (fail_with: {})",
                code.as_u16()
            ),
        ),
    })
}

/// The misbehaviour `ServeOptions::misbehave` asks for, if it applies to this request.
pub(super) fn misbehaving(shared: &Shared, path: &ResourcePath) -> Option<Response> {
    use super::Misbehave;
    match shared.options.misbehave.as_ref()? {
        Misbehave::RateLimit { retry_after_secs } => {
            let mut response = status::other(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many requests, please try again later.",
            );
            if let Ok(value) = retry_after_secs.to_string().parse() {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
            Some(response)
        }
        Misbehave::BusyFor {
            code,
            retry_after_secs,
            times,
        } => {
            let answered = shared
                .busy_answers
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if answered >= *times {
                return None;
            }
            let code = StatusCode::from_u16(*code).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
            let mut response = status::other(
                code,
                "labcheck serve was told to be busy for a moment (misbehave: busy)",
            );
            if let Ok(value) = retry_after_secs.to_string().parse() {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
            Some(response)
        }
        Misbehave::Trickle { every } => {
            let every = *every;
            let text =
                b"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"slow\"}}";
            let bytes = futures::stream::unfold(0usize, move |n| async move {
                let byte = *text.get(n)?;
                tokio::time::sleep(every).await;
                Some((
                    Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![byte])),
                    n + 1,
                ))
            });
            Some(streamed("application/json", bytes))
        }
        Misbehave::Redirect { location } => Some(
            (
                StatusCode::MOVED_PERMANENTLY,
                [(header::LOCATION, location.clone())],
                format!("<a href=\"{location}\">Moved Permanently</a>.\n"),
            )
                .into_response(),
        ),
        Misbehave::StallBody => {
            let first = futures::stream::once(async {
                Ok::<_, std::io::Error>(axum::body::Bytes::from_static(
                    b"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{",
                ))
            });
            let stream = futures::StreamExt::chain(first, futures::stream::pending());
            Some(streamed("application/json", stream))
        }
        Misbehave::EndlessLogs if path.subresource == Some("log") => {
            let lines = futures::stream::unfold(0u64, |n| async move {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                let line = format!("migrate: still running, line {n}\n");
                Some((
                    Ok::<_, std::io::Error>(axum::body::Bytes::from(line)),
                    n + 1,
                ))
            });
            Some(streamed("text/plain", lines))
        }
        Misbehave::Substitute { plural, object }
            if plural == path.plural && path.name.is_some() =>
        {
            Some(super::json_response(StatusCode::OK, object))
        }
        _ => None,
    }
}

/// A 200 answer of `content_type` whose body is `chunks`, each sent as it comes.
fn streamed(
    content_type: &'static str,
    chunks: impl futures::Stream<Item = Result<axum::body::Bytes, std::io::Error>> + Send + 'static,
) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, content_type)],
        axum::body::Body::from_stream(chunks),
    )
        .into_response()
}
