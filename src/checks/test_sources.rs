//! For tests only: the source lists of Application shapes that more than one check's tests read.

use serde_json::{Value, json};

/// Facts-2 §1.5 (b): a Helm chart from its Helm repo plus the work repo's values (`ref: values`),
/// as `(sources, revisions)`. `values_first` swaps the order of the sources (and so of the
/// revisions); `values_rev` is the revision the values source was synced at.
pub fn chart_and_values(values_first: bool, values_rev: &str) -> (Value, Value) {
    let chart = json!({"repoURL": "https://stefanprodan.github.io/podinfo", "chart": "podinfo",
                       "targetRevision": "6.7.1", "helm": {"valueFiles": ["$values/helm/dev.yaml"]}});
    let values = json!({"repoURL": "http://git.course.local/team-checkout/checkout-config.git",
                        "targetRevision": "main", "ref": "values"});
    if values_first {
        (json!([values, chart]), json!([values_rev, "6.7.1"]))
    } else {
        (json!([chart, values]), json!(["6.7.1", values_rev]))
    }
}
