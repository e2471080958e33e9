//! `Status` bodies, shaped like a real kube-apiserver's (apimachinery `errors.go`): clients such
//! as kubectl and kube-rs read `reason` and `details` to tell "no such object" from "no such
//! resource type", so the shapes matter more than the wording.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The group/resource a message is about (`jobs.batch`, or `pods`).
#[derive(Debug, Clone)]
pub struct Qualified<'a> {
    pub group: &'a str,
    pub plural: &'a str,
}

impl Qualified<'_> {
    fn name(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    fn details(&self, name: Option<&str>) -> Value {
        let mut details = serde_json::Map::new();
        if let Some(name) = name {
            details.insert("name".into(), json!(name));
        }
        if !self.group.is_empty() {
            details.insert("group".into(), json!(self.group));
        }
        // apimachinery fills `kind` with the resource (plural), not the Kind.
        details.insert("kind".into(), json!(self.plural));
        Value::Object(details)
    }
}

fn body(code: StatusCode, reason: &str, message: &str, details: Option<Value>) -> Response {
    let mut status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    });
    if let Some(details) = details {
        status["details"] = details;
    }
    status["code"] = json!(code.as_u16());
    super::json_response(code, &status)
}

/// An object that does not exist: `jobs.batch "x" not found`, details {name, group, kind}.
pub fn not_found(resource: &Qualified, name: &str) -> Response {
    body(
        StatusCode::NOT_FOUND,
        "NotFound",
        &format!("{} \"{name}\" not found", resource.name()),
        Some(resource.details(Some(name))),
    )
}

/// A path the server does not serve (e.g. the Argo CD CRD is not installed): no name in details.
pub fn no_such_resource() -> Response {
    body(
        StatusCode::NOT_FOUND,
        "NotFound",
        "the server could not find the requested resource",
        Some(json!({})),
    )
}

/// A path under no group and version the server serves (`/apis/example.com/v1/…`, `/foo`): the
/// API server's mux answers these itself, in plain text, before any API handler sees them.
pub fn page_not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "404 page not found\n",
    )
        .into_response()
}

/// A write, or any verb this read-only server does not serve.
pub fn method_not_allowed(message: &str) -> Response {
    body(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowed",
        message,
        Some(json!({})),
    )
}

/// A request the server understands but cannot answer as asked (bad selector, missing container).
pub fn bad_request(message: &str) -> Response {
    body(StatusCode::BAD_REQUEST, "BadRequest", message, None)
}

/// What the authenticator says to a request it cannot identify.
pub fn unauthorized() -> Response {
    body(
        StatusCode::UNAUTHORIZED,
        "Unauthorized",
        "Unauthorized",
        None,
    )
}

/// RBAC's refusal, worded like the real authorizer.
pub fn forbidden(
    resource: &Qualified,
    subresource: Option<&str>,
    name: Option<&str>,
    namespace: Option<&str>,
    verb: &str,
    user: &str,
) -> Response {
    let object = match name {
        Some(name) => format!("{} \"{name}\"", resource.name()),
        None => resource.name(),
    };
    let rbac_resource = match subresource {
        Some(sub) => format!("{}/{sub}", resource.plural),
        None => resource.plural.to_string(),
    };
    let scope = match namespace {
        Some(ns) => format!("in the namespace \"{ns}\""),
        None => "at the cluster scope".to_string(),
    };
    let message = format!(
        "{object} is forbidden: User \"{user}\" cannot {verb} resource \"{rbac_resource}\" in API group \"{}\" {scope}",
        resource.group
    );
    body(
        StatusCode::FORBIDDEN,
        "Forbidden",
        &message,
        Some(resource.details(name)),
    )
}

/// A server-side failure.
pub fn internal_error(cause: &str) -> Response {
    body(
        StatusCode::INTERNAL_SERVER_ERROR,
        "InternalError",
        &format!("Internal error occurred: {cause}"),
        Some(json!({"causes": [{"message": cause}]})),
    )
}

/// Any other code asked for with `fail_with`: a Status with the matching reason.
pub fn other(code: StatusCode, message: &str) -> Response {
    let reason = match code.as_u16() {
        409 => "Conflict",
        410 => "Expired",
        429 => "TooManyRequests",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "Unknown",
    };
    body(code, reason, message, Some(json!({})))
}

/// Status bodies are responses too.
pub struct Plain(pub StatusCode, pub String);

impl IntoResponse for Plain {
    fn into_response(self) -> Response {
        (
            self.0,
            [(axum::http::header::CONTENT_TYPE, "text/plain")],
            self.1,
        )
            .into_response()
    }
}
