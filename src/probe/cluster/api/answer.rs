//! What an answer of the API server means: found, not found (an observation), or an error that
//! names the URL; and whether a body is a well-formed object of the kind asked for.

use serde::Deserialize;

use super::ApiPath;
use super::error::ProbeError;

/// A raw answer to a GET.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RawResponse {
    /// The HTTP status code.
    pub code: u16,
    /// The body as text (a pod log's kept tail).
    pub body: String,
    /// Bytes before `body` that were not kept (only a pod log is cut, keeping its tail).
    pub skipped: u64,
    /// The `Location` header (of a redirect).
    pub location: Option<String>,
    /// The `Retry-After` header (of a 429).
    pub retry_after: Option<String>,
    /// Why an answer that asked to be retried (`Retry-After`) was not retried (the wait did not
    /// fit the request's time, or the retries were used up).
    pub not_retried: Option<String>,
    /// The body was still coming when the request's time was up (a log that streams on): `body`
    /// is what came until then.
    pub unended: bool,
}

/// The subset of `metav1.Status` labcheck reads.
#[derive(Debug, Default, Deserialize)]
struct StatusBody {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    details: Option<StatusDetails>,
}

#[derive(Debug, Default, Deserialize)]
struct StatusDetails {
    #[serde(default)]
    name: String,
}

/// What a response says about the object asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// 2xx with its body.
    Found(String),
    /// The API serves this resource type, and this object is not there (an observation).
    NotFound,
    /// 400 with a message (pod logs of a container that has not started).
    BadRequest(String),
}

/// Turn a response to GET `path` into an answer or an error. `what_for_crd` names what is missing
/// when the resource type itself is not served (e.g. "Argo CD (the Application CRD)").
pub fn classify(
    path: &ApiPath,
    response: &RawResponse,
    server: &str,
    what_for_crd: &str,
) -> Result<Answer, ProbeError> {
    // A 2xx is the object itself: neither read as a Status nor scanned for a message (a whole
    // Application or pod list would be parsed twice for nothing).
    if (200..300).contains(&response.code) {
        return Ok(Answer::Found(response.body.clone()));
    }
    let status: Option<StatusBody> = serde_json::from_str::<StatusBody>(&response.body)
        .ok()
        .filter(|s| s.kind == "Status");
    let message = status
        .as_ref()
        .map(|s| s.message.clone())
        .unwrap_or_else(|| first_line(&response.body));
    match response.code {
        400 => Ok(Answer::BadRequest(message)),
        301 | 302 | 303 | 307 | 308 => Err(ProbeError::Redirected {
            server: server.to_string(),
            code: response.code,
            url: path.url(),
            location: response
                .location
                .clone()
                .unwrap_or_else(|| "(no Location given)".to_string()),
        }),
        429 => Err(ProbeError::RateLimited {
            url: path.url(),
            retry_after: response.retry_after.clone(),
            not_retried: response.not_retried.clone(),
        }),
        401 => Err(ProbeError::Unauthorized {
            server: server.to_string(),
        }),
        403 => Err(ProbeError::Forbidden {
            verb: path.verb().to_string(),
            target: forbidden_target(path),
            message,
        }),
        404 => {
            // A missing object comes back as a Status naming it (`jobs.batch "x" not found`);
            // a resource type nobody serves comes back without a name ("the server could not
            // find the requested resource") or as a bare `404 page not found`.
            let names_object = status
                .as_ref()
                .and_then(|s| s.details.as_ref())
                .is_some_and(|d| Some(&d.name) == path.name.as_ref());
            let object_not_found =
                names_object && status.as_ref().is_some_and(|s| s.reason == "NotFound");
            if object_not_found {
                Ok(Answer::NotFound)
            } else {
                Err(ProbeError::ResourceNotServed {
                    resource: format!("{}/{}", api_version(path), path.resource),
                    what: what_for_crd.to_string(),
                })
            }
        }
        code => Err(ProbeError::Server {
            code,
            url: path.url(),
            message: match (&response.retry_after, &response.not_retried) {
                (Some(after), Some(why)) => {
                    format!("{message} (it asked to retry after {after} s; {why})")
                }
                _ => message,
            },
        }),
    }
}

fn api_version(path: &ApiPath) -> String {
    if path.group.is_empty() {
        path.version.clone()
    } else {
        format!("{}/{}", path.group, path.version)
    }
}

/// "jobs.batch in checkout-dev" (RBAC grants per resource and namespace, not per name).
fn forbidden_target(path: &ApiPath) -> String {
    match &path.namespace {
        Some(ns) => format!("{} in {ns}", path.resource_name()),
        None => path.resource_name(),
    }
}

pub(super) fn first_line(body: &str) -> String {
    if body_looks_like_secret(body) {
        return "(not shown: it looks like a Secret)".to_string();
    }
    let line = body.lines().next().unwrap_or("").trim();
    let mut line: String = line.chars().take(200).collect();
    if line.is_empty() {
        line = "(empty body)".to_string();
    }
    line
}

/// Parse a 2xx body as JSON, or say it is garbage.
pub fn parse_json(path: &ApiPath, body: &str) -> Result<serde_json::Value, ProbeError> {
    let value: serde_json::Value = serde_json::from_str(body).map_err(|e| ProbeError::Garbage {
        url: path.url(),
        expected: "JSON".to_string(),
        reason: format!("{e} (starts with `{}`)", first_line(body)),
    })?;
    if !value.is_object() {
        return Err(ProbeError::Garbage {
            url: path.url(),
            expected: "a Kubernetes object".to_string(),
            reason: "the JSON is not an object".to_string(),
        });
    }
    Ok(value)
}

/// Whether raw text (an error body, a body that is not JSON) holds a Secret: such text is never
/// quoted in a message.
pub fn body_looks_like_secret(body: &str) -> bool {
    let compact: String = body
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'')
        .take(1 << 20)
        .collect();
    compact.contains("kind:Secret") || compact.contains("stringData")
}

/// Whether a parsed object is a Secret by what it is, whatever path it was asked for: its kind,
/// or (a body without `kind`) a Secret's `type` next to `data`, or `stringData`.
pub fn looks_like_secret(object: &serde_json::Value) -> bool {
    let kind = object.get("kind").and_then(serde_json::Value::as_str);
    if kind
        .is_some_and(|k| k.eq_ignore_ascii_case("Secret") || k.eq_ignore_ascii_case("SecretList"))
    {
        return true;
    }
    let secret_type = object
        .get("type")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|t| {
            t == "Opaque" || t.contains("kubernetes.io/") || t.starts_with("helm.sh/")
        });
    (secret_type && object.get("data").is_some()) || object.get("stringData").is_some()
}

/// Check that an object of a kind labcheck knows has the shape Kubernetes gives it, so a check
/// never reads a field of the wrong type as "missing" or "different".
pub fn check_shape(path: &ApiPath, object: &serde_json::Value) -> Result<(), ProbeError> {
    use k8s_openapi::api::{apps::v1 as apps, batch::v1 as batch, core::v1 as core};
    let kind = object
        .get("kind")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let api_version = object
        .get("apiVersion")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    // An answer of another kind than asked for (a ConfigMap path answered with a Secret) is
    // not the object a check means, whatever its fields hold.
    const KNOWN: [(&str, &str); 8] = [
        ("configmaps", "ConfigMap"),
        ("secrets", "Secret"),
        ("pods", "Pod"),
        ("jobs", "Job"),
        ("deployments", "Deployment"),
        ("namespaces", "Namespace"),
        ("services", "Service"),
        ("applications", "Application"),
    ];
    let asked = KNOWN.iter().find(|(plural, _)| *plural == path.resource);
    let answered = KNOWN.iter().find(|(_, k)| *k == kind);
    if path.name.is_some()
        && let (Some((_, asked_kind)), Some(_)) = (asked, answered)
        && *asked_kind != kind
    {
        return Err(ProbeError::Unreadable {
            kind: kind.to_string(),
            url: path.url(),
            reason: format!("labcheck asked for a {asked_kind}, and the answer is a {kind}"),
        });
    }
    fn shape<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Result<(), String> {
        T::deserialize(value).map(|_| ()).map_err(|e| e.to_string())
    }
    let result = match (api_version, kind) {
        ("v1", "ConfigMap") => shape::<core::ConfigMap>(object),
        ("v1", "Pod") => shape::<core::Pod>(object),
        ("v1", "Namespace") => shape::<core::Namespace>(object),
        ("v1", "Service") => shape::<core::Service>(object),
        ("batch/v1", "Job") => shape::<batch::Job>(object),
        ("apps/v1", "Deployment") => shape::<apps::Deployment>(object),
        // Values are blanked before this runs, so only their containers are checked.
        ("v1", "Secret") => ["data", "stringData"]
            .iter()
            .find(|f| {
                object
                    .get(**f)
                    .is_some_and(|v| !v.is_object() && !v.is_null())
            })
            .map_or(Ok(()), |f| Err(format!("`{f}` is not a map"))),
        _ => Ok(()),
    };
    result.map_err(|reason| ProbeError::Unreadable {
        kind: kind.to_string(),
        url: path.url(),
        reason,
    })
}

/// Deserialize a fetched object into a typed struct, or say the shape is wrong.
pub fn typed<T: serde::de::DeserializeOwned>(
    path: &ApiPath,
    value: &serde_json::Value,
    expected: &str,
) -> Result<T, ProbeError> {
    T::deserialize(value).map_err(|e| ProbeError::Garbage {
        url: path.url(),
        expected: expected.to_string(),
        reason: e.to_string(),
    })
}
