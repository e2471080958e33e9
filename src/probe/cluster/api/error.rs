//! Why the cluster could not be read, what the learner runs to fix it, and its stable cause id.

/// Why the cluster could not be read. Every variant becomes "could not check", never a verdict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[serde(tag = "error", rename_all = "kebab-case")]
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
    #[error("the Kubernetes API is rate-limiting requests: it answered 429 Too Many Requests to GET {url}{}{}", retry_after.as_ref().map(|s| format!(" and asked to retry after {s} s")).unwrap_or_default(), not_retried.as_ref().map(|s| format!("; {s}")).unwrap_or_default())]
    RateLimited {
        url: String,
        retry_after: Option<String>,
        /// Why labcheck did not retry it (the wait was longer than the request's time).
        not_retried: Option<String>,
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
    /// The answer was still coming when the request's time was up (a body that trickles in,
    /// a streaming proxy).
    #[error(
        "the answer to GET {url} did not end within {limit}, the time one request may take (headers to last byte): labcheck read {received} bytes and stopped there"
    )]
    Endless {
        url: String,
        received: u64,
        /// The budget, as given (`10s`, `500ms`).
        limit: String,
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
            // The describe names a proxy when the kubeconfig (proxy-url) or $HTTPS_PROXY gives one.
            ProbeError::Unreachable { server, .. } if server.contains(", through the proxy ") => "labcheck goes through the proxy your kubeconfig names (proxy-url, else $HTTPS_PROXY), as kubectl does: check that the proxy runs and that `kubectl get nodes` answers through it, or remove proxy-url if the cluster is reached without one".to_string(),
            ProbeError::Unreachable { .. } => "start the course cluster (`kind get clusters`; `docker ps`) and check that `kubectl get nodes` answers, or pass --kubeconfig/--context for the right cluster".to_string(),
            ProbeError::Unauthorized { .. } => "your kubeconfig's credentials are expired or wrong: fetch a fresh one (`kind export kubeconfig --name <cluster>`) and try `kubectl get nodes`".to_string(),
            ProbeError::Forbidden {
                verb,
                target,
                message,
            } => forbidden_fix(verb, target, message),
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
            ProbeError::Endless { .. } => "a slow network or proxy: run labcheck again with more time (e.g. --request-timeout 30s) and check `kubectl get --raw /readyz`; if a proxy streams this path, point --kubeconfig at the API server itself".to_string(),
            ProbeError::UntrustedCertificate { .. } => "get the course cluster's kubeconfig again (`kind export kubeconfig --name <cluster>`): its certificate-authority-data must be the CA of this cluster".to_string(),
        }
    }

    /// A stable id for what went wrong (for grouping a class's results; never parsed from text).
    pub fn cause_id(&self) -> crate::causes::CauseId {
        use crate::causes::CauseId;
        match self {
            ProbeError::NotConfigured { .. } => CauseId::ClusterNotConfigured,
            ProbeError::Unreachable { .. } => CauseId::ClusterUnreachable,
            ProbeError::Unauthorized { .. } => CauseId::ClusterUnauthorized,
            ProbeError::Forbidden { .. } => CauseId::ClusterForbidden,
            ProbeError::ResourceNotServed { .. } => CauseId::ResourceNotServed,
            ProbeError::NamespaceMissing { .. } => CauseId::NamespaceMissing,
            ProbeError::Server { .. } => CauseId::ApiServerError,
            ProbeError::Garbage { .. } => CauseId::ApiGarbage,
            ProbeError::Unreadable { .. } => CauseId::ApiUnreadableObject,
            ProbeError::Redirected { .. } => CauseId::ApiRedirected,
            ProbeError::RateLimited { .. } => CauseId::ApiRateLimited,
            ProbeError::Stalled { .. } => CauseId::ApiStalled,
            ProbeError::Endless { .. } => CauseId::ApiEndlessAnswer,
            ProbeError::UntrustedCertificate { .. } => CauseId::ClusterUntrustedCertificate,
        }
    }
}

/// What Kubernetes' built-in ClusterRole `view` lets a user read (the read rules of `view` in
/// `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`), as `resource.group` the way
/// labcheck names them; Secrets are not among them, nor is any CRD's kind unless it aggregates.
const VIEW_READS: &[&str] = &[
    "pods",
    "pods/log",
    "pods/status",
    "configmaps",
    "services",
    "endpoints",
    "events",
    "persistentvolumeclaims",
    "replicationcontrollers",
    "serviceaccounts",
    "limitranges",
    "resourcequotas",
    "namespaces",
    "deployments.apps",
    "replicasets.apps",
    "statefulsets.apps",
    "daemonsets.apps",
    "jobs.batch",
    "cronjobs.batch",
    "horizontalpodautoscalers.autoscaling",
    "ingresses.networking.k8s.io",
    "networkpolicies.networking.k8s.io",
    "poddisruptionbudgets.policy",
    "events.events.k8s.io",
];

/// The fix for a 403: what was refused, the role that would allow it and the commands an
/// administrator runs to grant it (read verbs only), for the user the API server named.
fn forbidden_fix(verb: &str, target: &str, message: &str) -> String {
    let (resource, namespace) = match target.split_once(" in ") {
        Some((resource, ns)) => (resource, Some(ns)),
        None => (target, None),
    };
    // RBAC's message names the user: `User "learner" cannot get resource …`.
    let user = message
        .split_once("User \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(user, _)| user.to_string())
        .unwrap_or_else(|| "<user>".to_string());
    let (can_i, ns_flag) = match namespace {
        Some(ns) => (
            format!("kubectl auth can-i {verb} {resource} -n {ns}"),
            format!(" -n {ns}"),
        ),
        None => (
            format!("kubectl auth can-i {verb} {resource}"),
            String::new(),
        ),
    };
    let kind = if namespace.is_some() {
        "role"
    } else {
        "clusterrole"
    };
    let binding = if namespace.is_some() {
        "rolebinding"
    } else {
        "clusterrolebinding"
    };
    let role = if VIEW_READS.contains(&resource) {
        format!(
            "the built-in ClusterRole `view` allows it{} (`kubectl create {binding} labcheck-view --clusterrole=view --user={user}{ns_flag}`)",
            namespace
                .map(|ns| format!(" when bound in {ns}"))
                .unwrap_or_default()
        )
    } else {
        format!(
            "a {} allowing get, list and watch on {resource}{} does (`kubectl create {kind} labcheck-read --verb=get,list,watch --resource={resource}{ns_flag}` and `kubectl create {binding} labcheck-read --{kind}=labcheck-read --user={user}{ns_flag}`)",
            if namespace.is_some() {
                "Role"
            } else {
                "ClusterRole"
            },
            namespace.map(|ns| format!(" in {ns}")).unwrap_or_default()
        )
    };
    format!(
        "labcheck only reads, but your user may not {verb} {target} (`{can_i}` says no); use the course's admin kubeconfig, or ask your instructor for read access: {role}"
    )
}
