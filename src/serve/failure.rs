//! Failures on purpose (`ServeOptions::fail_with`), worded as a real API server words them, so
//! labcheck's "could not check" paths can be tested.

use axum::http::{Method, StatusCode};
use axum::response::Response;

use super::Shared;
use super::handler::{Query, ResourcePath};
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
