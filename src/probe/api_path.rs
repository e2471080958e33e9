//! A path into the Kubernetes API: the group, version, resource and name a read asks for, and
//! the URL it is sent as. Below both the cluster probe, which sends it, and the tape, which keeps
//! what each path answered while recording.

use std::fmt;

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
pub(crate) fn encode(segment: &str) -> String {
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

impl fmt::Display for ApiPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url())
    }
}
