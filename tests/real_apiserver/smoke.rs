//! The plane is what the tier claims: the pinned release, RBAC in force, Argo CD's CRDs served.

use crate::api::call;
use crate::kubeconfig::client;
use crate::plane::{block_on, plane};

#[test]
fn the_api_server_says_it_is_the_pinned_release() {
    let plane = plane();
    let version = block_on(call(&plane.admin, "GET", "/version", None)).expect("GET /version");
    assert_eq!(version.code, 200, "{}", version.text());
    let pinned = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tools/kube-testbin/go.mod"
    ))
    .expect("tools/kube-testbin/go.mod");
    let release = pinned
        .lines()
        .find_map(|l| l.trim().strip_prefix("k8s.io/kubernetes "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("go.mod requires k8s.io/kubernetes");
    assert_eq!(version.body["gitVersion"], release, "{}", version.body);
    assert_eq!(version.body["major"], "1", "{}", version.body);
}

#[test]
fn the_learner_without_a_role_is_refused_and_the_admin_is_not() {
    let plane = plane();
    let learner = block_on(client(&plane.learner_kubeconfig)).expect("learner client");
    let path = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications";
    let refused = block_on(call(&learner, "GET", path, None)).expect("learner GET");
    assert_eq!(refused.code, 403, "{}", refused.text());
    assert_eq!(refused.body["reason"], "Forbidden", "{}", refused.body);
    assert!(
        refused.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("User \"learner\" cannot list resource \"applications\"")),
        "{}",
        refused.body
    );
    let allowed = block_on(call(&plane.admin, "GET", path, None)).expect("admin GET");
    assert_eq!(allowed.code, 200, "{}", allowed.text());
}
