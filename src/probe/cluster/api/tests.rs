//! API paths and answers on values: URLs, plurals, status codes, shapes, Secrets.

use super::answer::first_line;
use super::*;

fn app_path() -> ApiPath {
    ApiPath::new("argoproj.io/v1alpha1", "applications")
        .in_namespace("argocd")
        .named("checkout-dev")
}

fn response(code: u16, body: &str) -> RawResponse {
    RawResponse {
        skipped: 0,
        code,
        body: body.to_string(),
        location: None,
        retry_after: None,
        not_retried: None,
        unended: false,
    }
}

/// The error `classify` turns `response` into, as the learner reads it (None: not an error).
fn error_text(path: &ApiPath, response: &RawResponse, context: &str) -> Option<String> {
    classify(path, response, context, "x")
        .err()
        .map(|e| e.to_string())
}

#[test]
fn urls_follow_the_api_layout_for_core_and_named_groups() {
    assert_eq!(
        app_path().url(),
        "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev"
    );
    let logs = ApiPath::new("v1", "pods")
        .in_namespace("checkout-dev")
        .named("checkout-migrate-x1")
        .subresource("log");
    assert_eq!(
        logs.url(),
        "/api/v1/namespaces/checkout-dev/pods/checkout-migrate-x1/log"
    );
    let list = ApiPath::new("v1", "pods")
        .in_namespace("checkout-dev")
        .query(format!(
            "labelSelector={}",
            encode_query("job-name=checkout-migrate")
        ));
    assert_eq!(
        list.url(),
        "/api/v1/namespaces/checkout-dev/pods?labelSelector=job-name%3Dcheckout-migrate"
    );
}

#[test]
fn a_missing_application_is_an_observation_not_an_error() {
    let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"applications.argoproj.io \"checkout-dev\" not found","reason":"NotFound","details":{"name":"checkout-dev","group":"argoproj.io","kind":"applications"},"code":404}"#;
    let answer = classify(&app_path(), &response(404, body), "s", "Argo CD");
    assert_eq!(answer, Ok(Answer::NotFound));
}

#[test]
fn a_generic_404_for_applications_means_argo_cd_is_not_installed() {
    let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#;
    let err = classify(
        &app_path(),
        &response(404, body),
        "s",
        "Argo CD (the Application CRD)",
    );
    assert_eq!(
        err.map_err(|e| e.to_string()),
        Err("the cluster does not serve argoproj.io/v1alpha1/applications: Argo CD (the Application CRD) is not installed".to_string())
    );
    let plain = classify(
        &app_path(),
        &response(404, "404 page not found\n"),
        "s",
        "Argo CD",
    );
    assert!(matches!(plain, Err(ProbeError::ResourceNotServed { .. })));
}

#[test]
fn forbidden_names_the_verb_and_the_resource() {
    let path = ApiPath::new("batch/v1", "jobs")
        .in_namespace("checkout-dev")
        .named("checkout-migrate");
    let body = r#"{"kind":"Status","status":"Failure","message":"jobs.batch \"checkout-migrate\" is forbidden: User \"dev\" cannot get resource \"jobs\" in API group \"batch\" in the namespace \"checkout-dev\"","reason":"Forbidden","code":403}"#;
    assert_eq!(
        error_text(&path, &response(403, body), "s"),
        Some("forbidden: cannot get jobs.batch in checkout-dev".to_string())
    );
}

/// The fix a 403 gets for `path`, refused to user `dev` as RBAC words it.
fn forbidden_fix_for(path: &ApiPath) -> String {
    let body = r#"{"kind":"Status","status":"Failure","message":"x is forbidden: User \"dev\" cannot get resource \"x\"","reason":"Forbidden","code":403}"#;
    classify(path, &response(403, body), "s", "x")
        .err()
        .map(|e| e.fix())
        .unwrap_or_default()
}

#[test]
fn forbidden_names_the_role_that_would_allow_the_read_and_how_to_grant_it() {
    // (path, what the fix must say)
    let cases: Vec<(ApiPath, Vec<&str>)> = vec![
        (
            ApiPath::new("batch/v1", "jobs").in_namespace("checkout-dev"),
            vec![
                "`kubectl auth can-i list jobs.batch -n checkout-dev` says no",
                "ClusterRole `view` allows it when bound in checkout-dev",
                "`kubectl create rolebinding labcheck-view --clusterrole=view --user=dev -n checkout-dev`",
            ],
        ),
        (
            app_path(),
            vec![
                "may not get applications.argoproj.io in argocd",
                "a Role allowing get, list and watch on applications.argoproj.io in argocd",
                "`kubectl create role labcheck-read --verb=get,list,watch --resource=applications.argoproj.io -n argocd`",
                "`kubectl create rolebinding labcheck-read --role=labcheck-read --user=dev -n argocd`",
            ],
        ),
        (
            ApiPath::new("apiextensions.k8s.io/v1", "customresourcedefinitions")
                .named("applications.argoproj.io"),
            vec![
                "a ClusterRole allowing get, list and watch on customresourcedefinitions.apiextensions.k8s.io",
                "`kubectl create clusterrolebinding labcheck-read --clusterrole=labcheck-read --user=dev`",
            ],
        ),
    ];
    for (path, wanted) in cases {
        let fix = forbidden_fix_for(&path);
        for want in wanted {
            assert!(fix.contains(want), "{}: `{want}` not in: {fix}", path.url());
        }
        // Only read verbs are ever granted.
        assert!(
            !fix.contains("--verb=create") && !fix.contains("edit"),
            "{fix}"
        );
    }
}

#[test]
fn server_errors_and_garbage_are_errors_with_the_url() {
    let path = app_path();
    let err = classify(&path, &response(500, "boom"), "s", "x");
    assert!(matches!(err, Err(ProbeError::Server { code: 500, .. })));
    let garbage = parse_json(&path, "<html>hi</html>");
    assert!(matches!(garbage, Err(ProbeError::Garbage { .. })));
}

#[test]
fn plurals_match_what_discovery_would_say() {
    assert_eq!(plural_of("Deployment"), "deployments");
    assert_eq!(plural_of("ConfigMap"), "configmaps");
    assert_eq!(plural_of("Ingress"), "ingresses");
    assert_eq!(plural_of("NetworkPolicy"), "networkpolicies");
    assert_eq!(plural_of("AppProject"), "appprojects");
    assert_eq!(plural_of("Endpoints"), "endpoints");
}

#[test]
fn an_object_of_the_wrong_shape_or_kind_is_unreadable_not_a_verdict() {
    let path = ApiPath::new("v1", "configmaps")
        .in_namespace("argocd")
        .named("argocd-cm");
    let listed = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm"}, "data": ["a", "b"]});
    let error = check_shape(&path, &listed).err().map(|e| e.to_string());
    assert!(
        error.as_deref().is_some_and(|e| e.starts_with(
            "the API returned a ConfigMap labcheck cannot read: invalid type: sequence"
        )),
        "{error:?}"
    );
    let secret = serde_json::json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "argocd-cm"}, "data": {"k": "(redacted by labcheck)"}});
    let error = check_shape(&path, &secret).err().map(|e| e.to_string());
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("asked for a ConfigMap, and the answer is a Secret")),
        "{error:?}"
    );
    let fine = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm"}, "data": {"a": "b"}});
    assert_eq!(check_shape(&path, &fine), Ok(()));
}

#[test]
fn a_secret_is_known_by_what_it_is() {
    let cases = [
        (serde_json::json!({"kind": "Secret", "data": {}}), true),
        (
            serde_json::json!({"type": "Opaque", "data": {"p": "aHVudGVyMg=="}}),
            true,
        ),
        (
            serde_json::json!({"type": "kubernetes.io/tls", "data": {}}),
            true,
        ),
        (serde_json::json!({"stringData": {"p": "x"}}), true),
        (serde_json::json!({"kind": "SecretList", "items": []}), true),
        (
            serde_json::json!({"kind": "ConfigMap", "data": {"type": "Opaque"}}),
            false,
        ),
        (
            serde_json::json!({"kind": "Event", "type": "Warning"}),
            false,
        ),
    ];
    for (object, secret) in cases {
        assert_eq!(looks_like_secret(&object), secret, "{object}");
    }
    assert_eq!(
        first_line("{\"kind\": \"Secret\", \"data\": {\"p\": \"aHVudGVyMg==\"}}"),
        "(not shown: it looks like a Secret)"
    );
}

#[test]
fn redirects_and_rate_limits_say_what_the_server_answered() {
    let path = app_path();
    let mut redirect = response(301, "<a>Moved</a>");
    redirect.location = Some("https://elsewhere:6443/".to_string());
    let error = error_text(&path, &redirect, "context lab");
    assert!(
        error.as_deref().is_some_and(|e| e.contains("answered 301")
            && e.contains("sending labcheck to https://elsewhere:6443/")),
        "{error:?}"
    );
    let mut limited = response(429, "{}");
    limited.retry_after = Some("7".to_string());
    let error = error_text(&path, &limited, "s");
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("429 Too Many Requests") && e.contains("retry after 7 s")),
        "{error:?}"
    );
}
