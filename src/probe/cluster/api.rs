//! Paths into the Kubernetes API and what its answers mean, as pure functions (no I/O), so the
//! rules that turn a 404 into "not found" or "Argo CD is not installed" are tested on values.
//! A path and its URL are `probe::api_path`'s (the tape names reads by them too), plurals are
//! here; why a read failed and its fix in `error`; what an answer means (status codes,
//! `metav1.Status`, JSON, Secrets, object shapes) in `answer`.

mod answer;
mod error;

pub use answer::{
    Answer, RawResponse, body_looks_like_secret, check_shape, classify, looks_like_secret,
    parse_json, typed,
};
pub use error::ProbeError;
// Where it is made: below the cluster and the tape, which both name a read by its path.
pub use crate::probe::api_path::ApiPath;

/// Encode a query value (label selectors contain `=` and `,`).
pub fn encode_query(value: &str) -> String {
    crate::probe::api_path::encode(value)
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

#[cfg(test)]
mod tests;
