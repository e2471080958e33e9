//! The words for a field its kind does not have: Argo CD applies with strict field validation
//! (gitops-engine `resource_ops.go` `newApplyOptions`), and the API server refuses the object in
//! the strict decoder's words (`sigs.k8s.io/json`, `runtime.NewStrictDecodingError`), or, under
//! `ServerSideApply=true`, in structured-merge-diff's words for a typed patch.

use serde_json::Value as Json;

use super::validation::Invalid;
use crate::plan::Object;

/// Why the server refuses `object` for `paths` (the strict decoder's paths), and what to write.
pub fn reason_and_fix(
    object: &Object,
    sent: &Json,
    ssa: bool,
    paths: &[String],
) -> (String, String) {
    let version = object
        .api_version
        .rsplit_once('/')
        .map_or(object.api_version.as_str(), |(_, v)| v);
    let named: Vec<String> = paths
        .iter()
        .map(|p| format!("unknown field {p:?}"))
        .collect();
    let words = if ssa {
        server_side_apply_words(object, sent, paths)
    } else {
        format!(
            "`{kind} in version \"{version}\" cannot be handled as a {kind}: strict decoding error: {named}`",
            kind = object.kind,
            named = named.join(", "),
        )
    };
    let listed: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
    let reason = format!(
        "{kind} has no field{plural} {fields} (Kubernetes 1.33's API): Argo CD applies with strict field validation, and the API server refuses it: {words}.",
        kind = object.kind,
        fields = listed.join(", "),
        plural = if paths.len() > 1 { "s" } else { "" },
    );
    let fix = format!(
        "correct the spelling or the place of {} (`kubectl explain {}.<path>` lists the fields there are); `Validate=false` would not fix it: {}",
        listed.join(", "),
        object.kind.to_ascii_lowercase(),
        if ssa {
            "under server-side apply the server refuses it all the same"
        } else {
            "the server would drop the field silently"
        }
    );
    (reason, fix)
}

/// What validation would refuse once the fields are fixed (the server stops before it now).
pub fn then(invalid: &[Invalid]) -> String {
    if invalid.is_empty() {
        return String::new();
    }
    format!(
        " Without them it would still refuse: {}.",
        invalid
            .iter()
            .map(|i| format!("`{}`", i.error()))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Lists whose elements server-side apply names by their `name` (`[name="migrate"]`), not by
/// their index: the `patchMergeKey` of these fields in Kubernetes' OpenAPI.
const LISTS_BY_NAME: &[&str] = &[
    "containers",
    "initContainers",
    "ephemeralContainers",
    "env",
    "volumes",
];

/// A strict decoder's path (`spec.template.spec.containers[0].imagePullPolise`) as
/// structured-merge-diff writes it (`.spec.template.spec.containers[name="migrate"].imagePullPolise`),
/// read along `sent`; `None` where an element of another list is on the way, whose key labcheck
/// does not model.
fn typed_patch_path(sent: &Json, strict: &str) -> Option<String> {
    let (parents, last) = match strict.rsplit_once('.') {
        Some((parents, last)) => (Some(parents), last),
        None => (None, strict),
    };
    let mut at = sent;
    let mut out = String::new();
    for part in parents.into_iter().flat_map(|p| p.split('.')) {
        let (key, indexes) = part.split_once('[').unwrap_or((part, ""));
        at = at.get(key)?;
        out.push('.');
        out.push_str(key);
        for index in indexes.split('[').filter(|i| !i.is_empty()) {
            let i: usize = index.strip_suffix(']')?.parse().ok()?;
            at = at.get(i)?;
            let name = at.get("name").and_then(Json::as_str)?;
            if !LISTS_BY_NAME.contains(&key) {
                return None;
            }
            out.push_str(&format!("[name={name:?}]"));
        }
    }
    Some(format!("{out}.{last}"))
}

/// What the API server answers a server-side apply (`ServerSideApply=true`) with fields its
/// schema lacks: structured-merge-diff's errors, one per line after `errors:` when there are
/// several (measured on kube-apiserver v1.37.2, `tests/real_apiserver/refused_fields.rs`).
fn server_side_apply_words(object: &Object, sent: &Json, paths: &[String]) -> String {
    let whom = format!(
        "failed to create typed patch object ({}/{}; {}, Kind={})",
        object.namespace, object.name, object.api_version, object.kind
    );
    let typed: Option<Vec<String>> = paths
        .iter()
        .map(|p| typed_patch_path(sent, p).map(|t| format!("{t}: field not declared in schema")))
        .collect();
    match typed.as_deref() {
        Some([one]) => format!("`{whom}: {one}`"),
        Some(many) => format!("`{whom}: errors:\n  {}`", many.join("\n  ")),
        None => format!(
            "`{whom}: …: field not declared in schema` (with ServerSideApply=true, for each of them)"
        ),
    }
}
