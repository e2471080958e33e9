//! Paths into the Kubernetes API and what its answers mean, as pure functions (no I/O), so the
//! rules that turn a 404 into "not found" or "Argo CD is not installed" are tested on values.

use std::fmt;

use serde::Deserialize;

/// One resource (or collection) in the API, addressed without discovery.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ApiPath {
    /// API group; empty for the core group (`v1`).
    pub group: String,
    pub version: String,
    /// Lower-case plural, as in the URL (`jobs`, `applications`).
    pub resource: String,
    pub namespace: Option<String>,
    /// `None` for a list.
    pub name: Option<String>,
    /// e.g. `log` for `pods/NAME/log`.
    pub subresource: Option<String>,
    /// Query string without `?` (`labelSelector=…`).
    pub query: Option<String>,
}

impl ApiPath {
    /// A core-group Secret (or a list of them): its values are never kept.
    pub fn is_secret(&self) -> bool {
        self.group.is_empty() && self.resource == "secrets"
    }

    /// A path from an `apiVersion` (`apps/v1`, `v1`) and a plural.
    pub fn new(api_version: &str, resource: &str) -> ApiPath {
        let (group, version) = match api_version.split_once('/') {
            Some((group, version)) => (group.to_string(), version.to_string()),
            None => (String::new(), api_version.to_string()),
        };
        ApiPath {
            group,
            version,
            resource: resource.to_string(),
            namespace: None,
            name: None,
            subresource: None,
            query: None,
        }
    }

    /// In namespace `ns`.
    pub fn in_namespace(mut self, ns: &str) -> ApiPath {
        self.namespace = Some(ns.to_string());
        self
    }

    /// The object `name`.
    pub fn named(mut self, name: &str) -> ApiPath {
        self.name = Some(name.to_string());
        self
    }

    /// Its subresource (`log`).
    pub fn subresource(mut self, sub: &str) -> ApiPath {
        self.subresource = Some(sub.to_string());
        self
    }

    /// With a query string (already encoded).
    pub fn query(mut self, query: String) -> ApiPath {
        self.query = Some(query);
        self
    }

    /// The URL path and query sent to the API server.
    pub fn url(&self) -> String {
        let mut url = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        if let Some(ns) = &self.namespace {
            url.push_str(&format!("/namespaces/{}", encode(ns)));
        }
        url.push('/');
        url.push_str(&self.resource);
        if let Some(name) = &self.name {
            url.push('/');
            url.push_str(&encode(name));
        }
        if let Some(sub) = &self.subresource {
            url.push('/');
            url.push_str(sub);
        }
        if let Some(query) = &self.query {
            url.push('?');
            url.push_str(query);
        }
        url
    }

    /// `jobs.batch` / `configmaps` / `pods/log`: the resource as RBAC messages and kubectl name it.
    pub fn resource_name(&self) -> String {
        let mut name = self.resource.clone();
        if let Some(sub) = &self.subresource {
            name = format!("{name}/{sub}");
        }
        if !self.group.is_empty() {
            name = format!("{name}.{}", self.group);
        }
        name
    }

    /// The RBAC verb a GET on this path needs.
    pub fn verb(&self) -> &'static str {
        if self.name.is_some() { "get" } else { "list" }
    }

    /// "jobs.batch checkout-migrate in checkout-dev", for messages.
    pub fn describe(&self) -> String {
        let mut text = self.resource_name();
        if let Some(name) = &self.name {
            text.push(' ');
            text.push_str(name);
        }
        if let Some(ns) = &self.namespace {
            text.push_str(&format!(" in {ns}"));
        }
        text
    }
}

/// Percent-encode the few characters that would break a path segment; Kubernetes names are
/// DNS labels, but a typo in a check file must not produce a different request.
fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// Encode a query value (label selectors contain `=` and `,`).
pub fn encode_query(value: &str) -> String {
    encode(value)
}

/// The plural kubectl would find through discovery, for the kinds labcheck reads; other kinds
/// take the English rule (a check may name `resource:` when the rule is wrong).
pub fn plural_of(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    match lower.as_str() {
        "endpoints" => return lower,
        "networkpolicy" => return "networkpolicies".to_string(),
        "ingress" | "ingressclass" => return format!("{lower}es"),
        _ => {}
    }
    if lower.ends_with('s') || lower.ends_with("ch") || lower.ends_with("sh") {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{lower}s")
    }
}

/// Why the cluster could not be read. Every variant becomes "could not check", never a verdict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// No usable configuration (no kubeconfig, unknown context, bad file).
    #[error("{reason}")]
    NotConfigured { reason: String, fix: String },
    /// The API server did not answer (connection refused, DNS, TLS, timeout).
    #[error("cannot reach the Kubernetes API at {server}: {reason}")]
    Unreachable { server: String, reason: String },
    /// 401: the credentials in the kubeconfig were not accepted.
    #[error("unauthorized: the Kubernetes API at {server} did not accept your credentials")]
    Unauthorized { server: String },
    /// 403: RBAC refuses a read.
    #[error("forbidden: cannot {verb} {target}")]
    Forbidden {
        verb: String,
        target: String,
        message: String,
    },
    /// The resource type is not served: its CRD is not installed.
    #[error("the cluster does not serve {resource}: {what} is not installed")]
    ResourceNotServed { resource: String, what: String },
    /// The namespace of the object does not exist.
    #[error("namespace {namespace} does not exist in this cluster")]
    NamespaceMissing { namespace: String },
    /// 5xx or another unexpected status.
    #[error("the Kubernetes API answered {code} to GET {url}: {message}")]
    Server {
        code: u16,
        url: String,
        message: String,
    },
    /// The body is not what the API returns.
    #[error(
        "the Kubernetes API answered GET {url} with something that is not {expected}: {reason}"
    )]
    Garbage {
        url: String,
        expected: String,
        reason: String,
    },
    /// An object of a known kind whose fields have the wrong types (a ConfigMap whose `data` is
    /// a list): no check can read it, so none may judge it.
    #[error("the API returned a {kind} labcheck cannot read: {reason} (GET {url})")]
    Unreadable {
        kind: String,
        url: String,
        reason: String,
    },
    /// 3xx: something between labcheck and the API (or a wrong `server:`) sends it elsewhere.
    #[error(
        "the Kubernetes API at {server} answered {code} to GET {url}, sending labcheck to {location}; labcheck, like kubectl, does not follow redirects"
    )]
    Redirected {
        server: String,
        code: u16,
        url: String,
        location: String,
    },
    /// 429: the API server's rate limits (API priority and fairness) refuse more requests now.
    #[error("the Kubernetes API is rate-limiting requests: it answered 429 Too Many Requests to GET {url}{}", retry_after.as_ref().map(|s| format!(" and asked to retry after {s} s")).unwrap_or_default())]
    RateLimited {
        url: String,
        retry_after: Option<String>,
    },
    /// The answer started and then stopped coming.
    #[error(
        "the Kubernetes API began answering GET {url} and then stopped: no byte for {stall_secs} s after {received} bytes"
    )]
    Stalled {
        url: String,
        received: u64,
        stall_secs: u64,
    },
    /// The answer kept coming and never ended (a followed log, a streaming proxy).
    #[error(
        "the answer to GET {url} never ended: labcheck read {received} bytes for {limit_secs} s and stopped there"
    )]
    Endless {
        url: String,
        received: u64,
        limit_secs: u64,
    },
    /// TLS: the server's certificate does not chain to the kubeconfig's CA.
    #[error(
        "the cluster's certificate is not signed by a CA in your kubeconfig ({server}): {detail}"
    )]
    UntrustedCertificate { server: String, detail: String },
}

impl ProbeError {
    /// What the learner can do about it.
    pub fn fix(&self) -> String {
        match self {
            ProbeError::NotConfigured { fix, .. } => fix.clone(),
            ProbeError::Unreachable { .. } => "start the course cluster (`kind get clusters`; `docker ps`) and check that `kubectl get nodes` answers, or pass --kubeconfig/--context for the right cluster".to_string(),
            ProbeError::Unauthorized { .. } => "your kubeconfig's credentials are expired or wrong: fetch a fresh one (`kind export kubeconfig --name <cluster>`) and try `kubectl get nodes`".to_string(),
            ProbeError::Forbidden { verb, target, .. } => format!(
                "labcheck only reads, but your user may not {verb} {target}; use the course's admin kubeconfig, or ask for read access (`kubectl auth can-i {verb} {}`)",
                target.split(' ').next().unwrap_or(target)
            ),
            ProbeError::ResourceNotServed { what, .. } => format!(
                "install {what} as in the course's setup module, or point labcheck at the course cluster with --kubeconfig/--context"
            ),
            ProbeError::NamespaceMissing { namespace } => format!(
                "check that labcheck reads the course cluster (`kubectl config current-context`); if it does, the namespace {namespace} was never created: sync the Application that creates it"
            ),
            ProbeError::Server { .. } => "the API server is in trouble; wait a moment and run labcheck again (`kubectl get --raw /readyz` shows its state)".to_string(),
            ProbeError::Garbage { .. } => "labcheck may be talking to something that is not a Kubernetes API (a proxy?); check the server in your kubeconfig".to_string(),
            ProbeError::Unreadable { url, .. } => format!(
                "the object does not have the shape Kubernetes gives it: look at it with `kubectl get --raw '{url}'`, and check what serves this API (a proxy or a mock?)"
            ),
            ProbeError::Redirected { .. } => "put the API server's own address in your kubeconfig's `server:` (`kubectl config view --minify` shows it), or remove the proxy that redirects".to_string(),
            ProbeError::RateLimited { retry_after, .. } => format!(
                "wait {} and run labcheck again: the API server is busy (other clients may be flooding it; `kubectl get --raw /readyz` shows its state)",
                retry_after.as_ref().map(|s| format!("{s} s")).unwrap_or_else(|| "a moment".to_string())
            ),
            ProbeError::Stalled { .. } => "the API server or the network in between is stuck; run labcheck again, and check `kubectl get --raw /readyz`".to_string(),
            ProbeError::Endless { .. } => "labcheck reads answers that end; if a proxy streams this path, point --kubeconfig at the API server itself".to_string(),
            ProbeError::UntrustedCertificate { .. } => "get the course cluster's kubeconfig again (`kind export kubeconfig --name <cluster>`): its certificate-authority-data must be the CA of this cluster".to_string(),
        }
    }

    /// A stable id for what went wrong (for grouping a class's results; never parsed from text).
    pub fn cause_id(&self) -> &'static str {
        match self {
            ProbeError::NotConfigured { .. } => "cluster-not-configured",
            ProbeError::Unreachable { .. } => "cluster-unreachable",
            ProbeError::Unauthorized { .. } => "cluster-unauthorized",
            ProbeError::Forbidden { .. } => "cluster-forbidden",
            ProbeError::ResourceNotServed { .. } => "resource-not-served",
            ProbeError::NamespaceMissing { .. } => "namespace-missing",
            ProbeError::Server { .. } => "api-server-error",
            ProbeError::Garbage { .. } => "api-garbage",
            ProbeError::Unreadable { .. } => "api-unreadable-object",
            ProbeError::Redirected { .. } => "api-redirected",
            ProbeError::RateLimited { .. } => "api-rate-limited",
            ProbeError::Stalled { .. } => "api-stalled",
            ProbeError::Endless { .. } => "api-endless-answer",
            ProbeError::UntrustedCertificate { .. } => "cluster-untrusted-certificate",
        }
    }
}

/// A raw answer to a GET.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawResponse {
    pub code: u16,
    pub body: String,
    /// Bytes before `body` that were not kept (only a pod log is cut, keeping its tail).
    pub skipped: u64,
    /// The `Location` header (of a redirect).
    pub location: Option<String>,
    /// The `Retry-After` header (of a 429).
    pub retry_after: Option<String>,
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
    let status: Option<StatusBody> = serde_json::from_str::<StatusBody>(&response.body)
        .ok()
        .filter(|s| s.kind == "Status");
    let message = status
        .as_ref()
        .map(|s| s.message.clone())
        .unwrap_or_else(|| first_line(&response.body));
    match response.code {
        200..=299 => Ok(Answer::Found(response.body.clone())),
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
            message,
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

fn first_line(body: &str) -> String {
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

impl fmt::Display for ApiPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app_path() -> ApiPath {
        ApiPath::new("argoproj.io/v1alpha1", "applications")
            .in_namespace("argocd")
            .named("checkout-dev")
    }

    fn response(code: u16, body: &str) -> RawResponse {
        RawResponse {
            skipped: 0,
            code,
            body: body.to_string(),
            location: None,
            retry_after: None,
        }
    }

    #[test]
    fn urls_follow_the_api_layout_for_core_and_named_groups() {
        assert_eq!(
            app_path().url(),
            "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev"
        );
        let logs = ApiPath::new("v1", "pods")
            .in_namespace("checkout-dev")
            .named("checkout-migrate-x1")
            .subresource("log");
        assert_eq!(
            logs.url(),
            "/api/v1/namespaces/checkout-dev/pods/checkout-migrate-x1/log"
        );
        let list = ApiPath::new("v1", "pods")
            .in_namespace("checkout-dev")
            .query(format!(
                "labelSelector={}",
                encode_query("job-name=checkout-migrate")
            ));
        assert_eq!(
            list.url(),
            "/api/v1/namespaces/checkout-dev/pods?labelSelector=job-name%3Dcheckout-migrate"
        );
    }

    #[test]
    fn a_missing_application_is_an_observation_not_an_error() {
        let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"applications.argoproj.io \"checkout-dev\" not found","reason":"NotFound","details":{"name":"checkout-dev","group":"argoproj.io","kind":"applications"},"code":404}"#;
        let answer = classify(&app_path(), &response(404, body), "s", "Argo CD");
        assert_eq!(answer, Ok(Answer::NotFound));
    }

    #[test]
    fn a_generic_404_for_applications_means_argo_cd_is_not_installed() {
        let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#;
        let err = classify(
            &app_path(),
            &response(404, body),
            "s",
            "Argo CD (the Application CRD)",
        );
        assert_eq!(
            err.map_err(|e| e.to_string()),
            Err("the cluster does not serve argoproj.io/v1alpha1/applications: Argo CD (the Application CRD) is not installed".to_string())
        );
        let plain = classify(
            &app_path(),
            &response(404, "404 page not found\n"),
            "s",
            "Argo CD",
        );
        assert!(matches!(plain, Err(ProbeError::ResourceNotServed { .. })));
    }

    #[test]
    fn forbidden_names_the_verb_and_the_resource() {
        let path = ApiPath::new("batch/v1", "jobs")
            .in_namespace("checkout-dev")
            .named("checkout-migrate");
        let body = r#"{"kind":"Status","status":"Failure","message":"jobs.batch \"checkout-migrate\" is forbidden: User \"dev\" cannot get resource \"jobs\" in API group \"batch\" in the namespace \"checkout-dev\"","reason":"Forbidden","code":403}"#;
        let err = classify(&path, &response(403, body), "s", "x").err();
        assert_eq!(
            err.map(|e| e.to_string()),
            Some("forbidden: cannot get jobs.batch in checkout-dev".to_string())
        );
    }

    #[test]
    fn server_errors_and_garbage_are_errors_with_the_url() {
        let path = app_path();
        let err = classify(&path, &response(500, "boom"), "s", "x");
        assert!(matches!(err, Err(ProbeError::Server { code: 500, .. })));
        let garbage = parse_json(&path, "<html>hi</html>");
        assert!(matches!(garbage, Err(ProbeError::Garbage { .. })));
    }

    #[test]
    fn plurals_match_what_discovery_would_say() {
        assert_eq!(plural_of("Deployment"), "deployments");
        assert_eq!(plural_of("ConfigMap"), "configmaps");
        assert_eq!(plural_of("Ingress"), "ingresses");
        assert_eq!(plural_of("NetworkPolicy"), "networkpolicies");
        assert_eq!(plural_of("AppProject"), "appprojects");
        assert_eq!(plural_of("Endpoints"), "endpoints");
    }

    #[test]
    fn an_object_of_the_wrong_shape_or_kind_is_unreadable_not_a_verdict() {
        let path = ApiPath::new("v1", "configmaps")
            .in_namespace("argocd")
            .named("argocd-cm");
        let listed = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "argocd-cm"}, "data": ["a", "b"]});
        let error = check_shape(&path, &listed).err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.starts_with(
                "the API returned a ConfigMap labcheck cannot read: invalid type: sequence"
            )),
            "{error:?}"
        );
        let secret = serde_json::json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "argocd-cm"}, "data": {"k": "(redacted by labcheck)"}});
        let error = check_shape(&path, &secret).err().map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("asked for a ConfigMap, and the answer is a Secret")),
            "{error:?}"
        );
        let fine = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "argocd-cm"}, "data": {"a": "b"}});
        assert_eq!(check_shape(&path, &fine), Ok(()));
    }

    #[test]
    fn a_secret_is_known_by_what_it_is() {
        let cases = [
            (serde_json::json!({"kind": "Secret", "data": {}}), true),
            (
                serde_json::json!({"type": "Opaque", "data": {"p": "aHVudGVyMg=="}}),
                true,
            ),
            (
                serde_json::json!({"type": "kubernetes.io/tls", "data": {}}),
                true,
            ),
            (serde_json::json!({"stringData": {"p": "x"}}), true),
            (serde_json::json!({"kind": "SecretList", "items": []}), true),
            (
                serde_json::json!({"kind": "ConfigMap", "data": {"type": "Opaque"}}),
                false,
            ),
            (
                serde_json::json!({"kind": "Event", "type": "Warning"}),
                false,
            ),
        ];
        for (object, secret) in cases {
            assert_eq!(looks_like_secret(&object), secret, "{object}");
        }
        assert_eq!(
            first_line("{\"kind\": \"Secret\", \"data\": {\"p\": \"aHVudGVyMg==\"}}"),
            "(not shown: it looks like a Secret)"
        );
    }

    #[test]
    fn redirects_and_rate_limits_say_what_the_server_answered() {
        let path = app_path();
        let mut redirect = response(301, "<a>Moved</a>");
        redirect.location = Some("https://elsewhere:6443/".to_string());
        let error = classify(&path, &redirect, "context lab", "x")
            .err()
            .map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("answered 301")
                && e.contains("sending labcheck to https://elsewhere:6443/")),
            "{error:?}"
        );
        let mut limited = response(429, "{}");
        limited.retry_after = Some("7".to_string());
        let error = classify(&path, &limited, "s", "x")
            .err()
            .map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(
                |e| e.contains("429 Too Many Requests") && e.contains("retry after 7 s")
            ),
            "{error:?}"
        );
    }
}
