//! What a request asks for: its path read the way the API server lays paths out, and its query
//! parameters. The handler and the pieces it calls (failures, logs, watch) all read these.

use super::selector::{FieldSelector, LabelSelector};

/// A request for objects: `/api/v1/namespaces/ns/pods/name/log` and the like.
#[derive(Debug)]
pub(super) struct ResourcePath<'a> {
    pub(super) group: &'a str,
    pub(super) version: &'a str,
    pub(super) namespace: Option<&'a str>,
    pub(super) plural: &'a str,
    pub(super) name: Option<&'a str>,
    pub(super) subresource: Option<&'a str>,
}

/// What a request path names, laid out as the API server lays out its paths.
#[derive(Debug)]
pub(super) enum Route<'a> {
    Version,
    Health,
    CoreVersions,
    Groups,
    Group(&'a str),
    Resources(&'a str, &'a str),
    Resource(ResourcePath<'a>),
    Unknown,
}

/// Read a request path.
pub(super) fn route(path: &str) -> Route<'_> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    // `/apis//v1` is not `/api/v1`: an empty segment names nothing.
    if segments.iter().any(|s| s.is_empty()) {
        return Route::Unknown;
    }
    match segments.as_slice() {
        ["version"] => Route::Version,
        ["healthz" | "readyz" | "livez"] => Route::Health,
        ["api"] => Route::CoreVersions,
        ["api", version] => Route::Resources("", version),
        ["api", version, rest @ ..] => resource_route("", version, rest),
        ["apis"] => Route::Groups,
        ["apis", group] => Route::Group(group),
        ["apis", group, version] => Route::Resources(group, version),
        ["apis", group, version, rest @ ..] => resource_route(group, version, rest),
        _ => Route::Unknown,
    }
}

fn resource_route<'a>(group: &'a str, version: &'a str, rest: &[&'a str]) -> Route<'a> {
    let namespaced = |namespace, tail: &[&'a str]| match tail {
        [plural, name @ ..] if name.len() <= 2 => Route::Resource(ResourcePath {
            group,
            version,
            namespace,
            plural,
            name: name.first().copied(),
            subresource: name.get(1).copied(),
        }),
        _ => Route::Unknown,
    };
    match rest {
        // `/api/v1/namespaces/{name}/{subresource}` belongs to the Namespace itself.
        ["namespaces", _, "status" | "finalize"] if group.is_empty() => namespaced(None, rest),
        ["namespaces", ns, tail @ ..] if !tail.is_empty() => namespaced(Some(*ns), tail),
        _ => namespaced(None, rest),
    }
}

/// Query parameters, decoded as a browser encodes a form (`+` is a space, `%2C` a comma; a `%`
/// that starts no escape stays as written).
pub(super) struct Query(Vec<(String, String)>);

impl Query {
    /// The parameters of a request's query string (none when there is none).
    pub(super) fn parse(query: Option<&str>) -> Query {
        let pairs = form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .into_owned()
            .collect();
        Query(pairs)
    }

    /// The value of a parameter, if given.
    pub(super) fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A boolean parameter as the API reads it (`true`/`1`).
    pub(super) fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some("true" | "1"))
    }

    /// `labelSelector` and `fieldSelector` as a list or a watch reads them; the error is the
    /// 400 message.
    pub(super) fn selectors(&self, kind: &str) -> Result<(LabelSelector, FieldSelector), String> {
        let labels = LabelSelector::parse(self.get("labelSelector").unwrap_or(""))?;
        let fields = FieldSelector::parse(self.get("fieldSelector").unwrap_or(""), kind)?;
        Ok((labels, fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_like_the_api_server_lays_them_out() {
        let Route::Resource(p) =
            route("/apis/batch/v1/namespaces/checkout-dev/jobs/checkout-migrate")
        else {
            panic!("a resource path");
        };
        assert_eq!(
            (p.group, p.namespace, p.plural, p.name),
            (
                "batch",
                Some("checkout-dev"),
                "jobs",
                Some("checkout-migrate")
            )
        );
        let Route::Resource(p) = route("/api/v1/namespaces/argocd") else {
            panic!("a resource path");
        };
        assert_eq!(
            (p.namespace, p.plural, p.name),
            (None, "namespaces", Some("argocd"))
        );
        let Route::Resource(p) = route("/api/v1/namespaces/ns/pods/p/log") else {
            panic!("a resource path");
        };
        assert_eq!(p.subresource, Some("log"));
        let Route::Resource(p) = route("/apis/batch/v1/jobs") else {
            panic!("a resource path");
        };
        assert_eq!((p.namespace, p.name), (None, None));
        assert!(matches!(
            route("/apis/batch/v1/namespaces/ns/jobs/a/b/c"),
            Route::Unknown
        ));
        assert!(matches!(route("/apis//v1/pods"), Route::Unknown));
    }

    #[test]
    fn query_values_are_percent_decoded() {
        let q = Query::parse(Some(
            "labelSelector=job-name%3Dcheckout-migrate%2Ctier+in+(a)&watch=1",
        ));
        assert_eq!(
            q.get("labelSelector"),
            Some("job-name=checkout-migrate,tier in (a)")
        );
        assert!(q.flag("watch"));
        assert_eq!(Query::parse(Some("a=%zz%")).get("a"), Some("%zz%"));
    }

    #[test]
    fn query_edge_cases_read_as_a_form_is_read() {
        for (query, key, want) in [
            ("&&a=1&", "a", Some("1")),
            ("watch", "watch", Some("")),
            ("a=x%2By+z", "a", Some("x+y z")),
            ("a=1=2", "a", Some("1=2")),
            ("a%3Db=c", "a=b", Some("c")),
            ("a=%FF", "a", Some("\u{fffd}")),
            ("a=1&a=2", "a", Some("1")),
            ("", "a", None),
        ] {
            assert_eq!(Query::parse(Some(query)).get(key), want, "{query}");
        }
        assert_eq!(Query::parse(None).get("a"), None);
    }
}
