//! Routing and the read verbs: every request goes through [`handle`], which parses the path the
//! way the API server lays it out and answers get, list, logs or a Status.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::request::{Query, ResourcePath, Route, route};
use super::status::{self, Qualified};
use super::table::{self, Include};
use super::{Shared, discovery, failure, json_response, logs};
use crate::snapshot::ResourceType;

const READ_ONLY: &str = "the server does not allow this method on the requested resource (labcheck serve is read-only: it answers get, list and pod logs)";

/// Answer one request.
pub(super) async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if shared.options.fail_with == Some(401) {
        return status::unauthorized();
    }
    let query = Query::parse(uri.query());
    match route(uri.path()) {
        Route::Resource(path) => resource(&shared, &method, &path, &query, &headers),
        _ if !crate::http::is_read(&method) => status::method_not_allowed(READ_ONLY),
        Route::Version => json_response(StatusCode::OK, &discovery::version()),
        Route::Health => (StatusCode::OK, "ok").into_response(),
        Route::CoreVersions => json_response(
            StatusCode::OK,
            &discovery::api_versions(&shared.addr.to_string()),
        ),
        Route::Groups => json_response(StatusCode::OK, &discovery::api_groups(&shared.table)),
        Route::Group(group) => match discovery::api_group(&shared.table, group) {
            Some(doc) => json_response(StatusCode::OK, &doc),
            None => status::page_not_found(),
        },
        Route::Resources(group, version) => {
            match discovery::resource_list(&shared.table, group, version) {
                Some(doc) => json_response(StatusCode::OK, &doc),
                None => status::page_not_found(),
            }
        }
        Route::Unknown => status::page_not_found(),
    }
}

fn resource(
    shared: &Arc<Shared>,
    method: &Method,
    path: &ResourcePath,
    query: &Query,
    headers: &HeaderMap,
) -> Response {
    if let Some(failure) = failure::injected(shared, method, path, query) {
        return failure;
    }
    if let Some(answer) = failure::misbehaving(shared, path) {
        return answer;
    }
    let Some(resource) = shared
        .table
        .by_plural(path.group, path.version, path.plural)
    else {
        // A group and version it serves answers in JSON; one it does not, in plain text.
        let served = shared
            .table
            .types
            .iter()
            .any(|t| t.group == path.group && t.version == path.version);
        return if served {
            status::no_such_resource()
        } else {
            status::page_not_found()
        };
    };
    // A namespaced path for a cluster-scoped type, or a named object without its namespace,
    // is not a path the server has.
    if (path.namespace.is_some() && !resource.namespaced)
        || (path.namespace.is_none() && resource.namespaced && path.name.is_some())
    {
        return status::no_such_resource();
    }
    if !crate::http::is_read(method) {
        return status::method_not_allowed(READ_ONLY);
    }
    if query.flag("watch") {
        return match path.name {
            // One object is watched through its collection and a field selector, as kubectl does.
            None => super::watch::serve(shared.clone(), resource, path.namespace, query),
            Some(_) => status::method_not_allowed(
                "labcheck serve watches collections: add `fieldSelector=metadata.name=NAME` to watch one object",
            ),
        };
    }
    let (index, state) = shared.current();
    let resource_version = (super::watch::FIRST_VERSION + index).to_string();
    let qualified = Qualified {
        group: &resource.group,
        plural: &resource.plural,
    };
    let as_table = wants_table(headers);
    match (path.name, path.subresource) {
        (Some(name), Some("log")) if resource.kind == "Pod" => logs::serve(
            shared,
            index,
            state,
            path.namespace.unwrap_or(""),
            name,
            query,
        ),
        (Some(name), None | Some("status")) => {
            let api_version = resource.api_version();
            match state.get(
                &api_version,
                &resource.kind,
                path.namespace.unwrap_or(""),
                name,
            ) {
                Some(object) if as_table => {
                    table_response(resource, &[object], query, &resource_version)
                }
                Some(object) => json_response(StatusCode::OK, object),
                None => status::not_found(&qualified, name),
            }
        }
        (Some(_), Some(_)) => status::no_such_resource(),
        (None, _) => list(
            resource,
            state,
            path.namespace,
            query,
            as_table,
            &resource_version,
        ),
    }
}

fn list(
    resource: &ResourceType,
    state: &crate::snapshot::ClusterState,
    namespace: Option<&str>,
    query: &Query,
    as_table: bool,
    resource_version: &str,
) -> Response {
    let (labels, fields) = match query.selectors(&resource.kind) {
        Ok(selectors) => selectors,
        Err(message) => return status::bad_request(&message),
    };
    let api_version = resource.api_version();
    let objects: Vec<&Value> = state
        .list(&api_version, &resource.kind, namespace)
        .filter(|o| {
            labels.matches(o.pointer("/metadata/labels").and_then(Value::as_object))
                && fields.matches(o)
        })
        .collect();
    if as_table {
        return table_response(resource, &objects, query, resource_version);
    }
    let items: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut item = (*o).clone();
            // Built-in types are listed without each item's apiVersion and kind (the list
            // carries them); custom resources keep theirs. kubectl and kube-rs read both.
            if !resource.custom
                && let Some(map) = item.as_object_mut()
            {
                map.remove("apiVersion");
                map.remove("kind");
            }
            item
        })
        .collect();
    json_response(
        StatusCode::OK,
        &json!({
            "kind": format!("{}List", resource.kind),
            "apiVersion": api_version,
            "metadata": {"resourceVersion": resource_version},
            "items": items
        }),
    )
}

fn wants_table(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|accept| accept.contains("as=Table") && accept.contains("g=meta.k8s.io"))
}

fn table_response(
    resource: &ResourceType,
    objects: &[&Value],
    query: &Query,
    resource_version: &str,
) -> Response {
    let include = Include::parse(query.get("includeObject"));
    let table = table::render(
        resource,
        objects,
        include,
        resource_version,
        jiff::Timestamp::now(),
    );
    json_response(StatusCode::OK, &table)
}
