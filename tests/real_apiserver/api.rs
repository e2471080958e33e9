//! Requests to the real API server as the admin (or any client), with the answer's status code,
//! headers and JSON body; and Argo CD's CRDs installed as Argo CD ships them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

/// An answer: status code, headers, body (JSON when it parses, else the text as a string).
#[derive(Debug, Clone)]
pub struct Answer {
    pub code: u16,
    pub headers: http::HeaderMap,
    pub body: Value,
    pub raw: Vec<u8>,
}

impl Answer {
    /// The body's text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }
}

/// Send `method path` with `body` (JSON, or a patch with `content_type`) and read the whole answer.
pub async fn call_with(
    client: &kube::Client,
    method: &str,
    path: &str,
    body: Option<&Value>,
    content_type: &str,
    accept: &str,
) -> Result<Answer, String> {
    let bytes = body
        .map(|b| serde_json::to_vec(b).unwrap_or_default())
        .unwrap_or_default();
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .header(http::header::CONTENT_TYPE, content_type)
        .header(http::header::ACCEPT, accept)
        .body(kube::client::Body::from(bytes))
        .map_err(|e| e.to_string())?;
    let response = client
        .send(request)
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let code = response.status().as_u16();
    let headers = response.headers().clone();
    let raw = response
        .into_body()
        .collect_bytes()
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?
        .to_vec();
    let body = serde_json::from_slice(&raw)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&raw).into_owned()));
    Ok(Answer {
        code,
        headers,
        body,
        raw,
    })
}

/// `method path` with a JSON body, answered in JSON.
pub async fn call(
    client: &kube::Client,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Answer, String> {
    call_with(
        client,
        method,
        path,
        body,
        "application/json",
        "application/json",
    )
    .await
}

/// Like [`call`], but anything other than `ok` codes is an error naming the answer.
pub async fn expect(
    client: &kube::Client,
    method: &str,
    path: &str,
    body: Option<&Value>,
    ok: &[u16],
) -> Result<Answer, String> {
    let answer = call(client, method, path, body).await?;
    if ok.contains(&answer.code) {
        Ok(answer)
    } else {
        Err(format!(
            "{method} {path} answered {}: {}\nsent: {}",
            answer.code,
            answer.text(),
            body.map(|b| b.to_string()).unwrap_or_default()
        ))
    }
}

/// Where Argo CD's CRDs are: copied from the argo-cd module the real-Argo-CD tier runs
/// (`scripts/argocd-testbin.sh crds`), or `LABCHECK_ARGOCD_CRDS`.
pub fn argocd_crds_dir() -> PathBuf {
    crate::testbin::argocd_crds()
}

/// The CRDs as Argo CD ships them, parsed.
pub fn argocd_crds() -> Result<Vec<Value>, String> {
    let dir = argocd_crds_dir();
    let mut crds = Vec::new();
    for file in ["application-crd.yaml", "appproject-crd.yaml"] {
        let path = dir.join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let crd: Value =
            serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        crds.push(crd);
    }
    Ok(crds)
}

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/// Create Argo CD's CRDs and wait until the API server serves them (`Established`).
pub async fn install_argocd_crds(admin: &kube::Client) -> Result<(), String> {
    let crds = argocd_crds()?;
    for crd in &crds {
        expect(admin, "POST", CRDS, Some(crd), &[201, 409]).await?;
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    for crd in &crds {
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        loop {
            let got = expect(admin, "GET", &format!("{CRDS}/{name}"), None, &[200]).await?;
            let established = got.body["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Established" && c["status"] == "True");
            if established {
                break;
            }
            if Instant::now() > deadline {
                return Err(format!("CRD {name} was not established: {}", got.body));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    // Discovery lists a new group a moment after the CRD is established.
    loop {
        let got = call(admin, "GET", "/apis/argoproj.io/v1alpha1", None).await?;
        if got.code == 200 {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "argoproj.io/v1alpha1 is not served: {}",
                got.text()
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Do what kube-controller-manager's ClusterRole aggregation controller does (a bare API server
/// runs no controllers): fill each ClusterRole that has an `aggregationRule` (`view`, `edit`,
/// `admin`) with the rules of the ClusterRoles its selectors match.
pub async fn aggregate_cluster_roles(admin: &kube::Client) -> Result<(), String> {
    // `edit` aggregates `view`, `admin` aggregates `edit`: three rounds fill all three.
    for _ in 0..3 {
        aggregate_once(admin).await?;
    }
    Ok(())
}

async fn aggregate_once(admin: &kube::Client) -> Result<(), String> {
    let path = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    let roles = expect(admin, "GET", path, None, &[200]).await?.body;
    let roles = roles["items"].as_array().cloned().unwrap_or_default();
    let matches = |role: &Value, selector: &Value| {
        selector["matchLabels"].as_object().is_some_and(|labels| {
            labels
                .iter()
                .all(|(k, v)| role["metadata"]["labels"].get(k) == Some(v))
        })
    };
    for role in &roles {
        let Some(selectors) = role
            .pointer("/aggregationRule/clusterRoleSelectors")
            .and_then(Value::as_array)
        else {
            continue;
        };
        let mut rules: Vec<Value> = Vec::new();
        for other in &roles {
            if other["metadata"]["name"] == role["metadata"]["name"]
                || !selectors.iter().any(|s| matches(other, s))
            {
                continue;
            }
            for rule in other["rules"].as_array().into_iter().flatten() {
                if !rules.contains(rule) {
                    rules.push(rule.clone());
                }
            }
        }
        if role["rules"] == Value::Array(rules.clone()) {
            continue;
        }
        let mut updated = role.clone();
        updated["rules"] = Value::Array(rules);
        let name = role["metadata"]["name"].as_str().unwrap_or_default();
        expect(
            admin,
            "PUT",
            &format!("{path}/{name}"),
            Some(&updated),
            &[200],
        )
        .await?;
    }
    Ok(())
}
