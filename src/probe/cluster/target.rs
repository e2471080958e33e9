//! A cached read's URL split as the API lays it out (collection, name, subresource, query):
//! what the watch streams, the followed logs and the waiting code all key their reads by.

/// A read's URL split as the API lays it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target<'a> {
    /// The collection it belongs to: `/api/v1/namespaces/ns/pods`.
    pub collection: String,
    pub name: Option<&'a str>,
    pub subresource: Option<&'a str>,
    pub query: Option<&'a str>,
}

/// Split a cached read's URL; `None` for what is not a resource path (discovery).
pub fn target(url: &str) -> Option<Target<'_>> {
    let (path, query) = match url.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (url, None),
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let prefix = match segments.first() {
        Some(&"api") => 2,
        Some(&"apis") => 3,
        _ => return None,
    };
    let rest = segments.get(prefix..)?;
    let (scope, plural, tail) = match rest {
        ["namespaces", ns, plural, tail @ ..] => (Some(*ns), *plural, tail),
        [plural, tail @ ..] => (None, *plural, tail),
        [] => return None,
    };
    let mut collection = format!("/{}", segments[..prefix].join("/"));
    if let Some(ns) = scope {
        collection.push_str(&format!("/namespaces/{ns}"));
    }
    collection.push('/');
    collection.push_str(plural);
    Some(Target {
        collection,
        name: tail.first().copied(),
        subresource: tail.get(1).copied(),
        query,
    })
}
