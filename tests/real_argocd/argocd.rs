//! Argo CD v3.6.2 as plain processes: what its install puts in the cluster (the `argocd`
//! namespace, its CRDs from its own module, `argocd-cm`, `argocd-rbac-cm`, `argocd-cmd-params-cm`,
//! `argocd-secret` with an admin password, the `default` AppProject), redis, then its repo
//! server, application controller and API server from its one binary (each by
//! `ARGOCD_BINARY_NAME`), run as Argo CD's own development setup runs them
//! (`ARGOCD_FAKE_IN_CLUSTER`: the destination `https://kubernetes.default.svc` is the
//! kubeconfig's server); and the `argocd` CLI logged in to the API server, as a learner's is.
//!
//! Stand-ins (docs/real-argocd.md): the Deployments and the StatefulSet an install runs Argo CD
//! in are created for what reads them (`labcheck doctor`), their pods run by KWOK; the real
//! programs run beside the cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::certs::Certs;
use crate::cluster::{Part, create, start_part, wait_until};
use crate::kubeconfig::write_kubeconfig_in;
use crate::processes::free_port;

/// The admin's password (what `argocd login` gives; only this test cluster knows it).
pub const PASSWORD: &str = "labcheck-tier-admin";

/// The namespace Argo CD runs in and its Applications live in.
pub const NAMESPACE: &str = "argocd";

/// Argo CD, running.
pub struct ArgoCd {
    /// The API server, `127.0.0.1:<port>` (plain HTTP and gRPC: `--insecure`).
    pub server: String,
    /// A HOME whose `argocd` CLI config is logged in to [`ArgoCd::server`] as admin.
    pub home: PathBuf,
    /// A folder with `argocd` (the CLI) and `helm`, for PATH.
    pub bin: PathBuf,
    /// The Helm chart repository that stands in for argoproj.github.io/argo-helm.
    pub charts: crate::charts::ChartRepo,
}

/// Install Argo CD's objects, start redis and Argo CD's three programs, log the CLI in; the
/// processes go to `processes`.
pub async fn start(
    processes: &mut Vec<Part>,
    dir: &Path,
    url: &str,
    certs: &Certs,
    admin: &kube::Client,
    parts: &crate::testbin::ArgoCdParts,
) -> Result<ArgoCd, String> {
    let home = dir.join("home");
    let bin = dir.join("bin");
    let tmp = dir.join("argocd-tmp");
    for folder in [
        &home,
        &bin,
        &tmp,
        &dir.join("argocd-tls"),
        &dir.join("argocd-ssh"),
        &dir.join("argocd-gpg"),
    ] {
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    std::os::unix::fs::symlink(&parts.argocd, bin.join("argocd")).map_err(|e| e.to_string())?;
    std::os::unix::fs::symlink(&parts.helm, bin.join("helm")).map_err(|e| e.to_string())?;

    install(admin, &bin).await?;

    // Argo CD's own identity: cluster-admin, as its install's ClusterRoles amount to.
    let pem = certs
        .user("argocd", &["system:masters"])
        .map_err(|e| e.to_string())?;
    let pki = dir.join("pki");
    std::fs::write(pki.join("argocd.crt"), &pem.cert).map_err(|e| e.to_string())?;
    std::fs::write(pki.join("argocd.key"), &pem.key).map_err(|e| e.to_string())?;
    let kubeconfig = dir.join("argocd.kubeconfig");
    write_kubeconfig_in(&kubeconfig, url, &pki, "argocd", Some(NAMESPACE))?;

    if std::process::Command::new("redis-server")
        .arg("--version")
        .output()
        .is_err()
    {
        return Err(
            "redis-server is not installed: the tier runs Argo CD's redis from Debian's \
                    package (apt-get install redis-server; .ci/run installs it)"
                .into(),
        );
    }
    let redis_port = free_port();
    let redis = start_part(
        dir,
        "redis",
        Path::new("redis-server"),
        vec![
            "--bind".into(),
            "127.0.0.1".into(),
            "--port".into(),
            redis_port.to_string(),
            "--save".into(),
            String::new(),
            "--appendonly".into(),
            "no".into(),
        ],
        Vec::new(),
    )?;
    let redis_address = format!("127.0.0.1:{redis_port}");

    let charts = crate::charts::ChartRepo::start(dir, &parts.helm).await?;
    let path = format!(
        "{}:{}:{}",
        parts.hack.display(),
        bin.display(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
    );
    let env = |program: &str| -> Vec<(String, String)> {
        [
            ("ARGOCD_BINARY_NAME", program.to_string()),
            ("ARGOCD_FAKE_IN_CLUSTER", "true".into()),
            ("KUBECONFIG", kubeconfig.display().to_string()),
            ("ARGOCD_GPG_ENABLED", "false".into()),
            (
                "ARGOCD_TLS_DATA_PATH",
                dir.join("argocd-tls").display().to_string(),
            ),
            (
                "ARGOCD_SSH_DATA_PATH",
                dir.join("argocd-ssh").display().to_string(),
            ),
            (
                "ARGOCD_GNUPGHOME",
                dir.join("argocd-gpg").display().to_string(),
            ),
            // Two test processes at once must not share the repo server's ask-pass socket or
            // its checkouts.
            (
                "ARGOCD_ASK_PASS_SOCK",
                dir.join("reposerver-ask-pass.sock").display().to_string(),
            ),
            ("TMPDIR", tmp.display().to_string()),
            ("HOME", dir.join("argocd-home").display().to_string()),
            ("PATH", path.clone()),
            // The controller's shard is the number its HOSTNAME ends with.
            ("HOSTNAME", format!("{program}-0")),
            ("HTTP_PROXY", String::new()),
            ("HTTPS_PROXY", String::new()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    };
    let repo_port = free_port();
    let repo_server = start_part(
        dir,
        "argocd-repo-server",
        &parts.argocd,
        vec![
            "--port".into(),
            repo_port.to_string(),
            "--metrics-port".into(),
            free_port().to_string(),
            "--redis".into(),
            redis_address.clone(),
            "--disable-tls".into(),
            // v3.6.2 refuses --disable-tls beside its default client CA path (an mTLS file
            // its install mounts): the path must be given empty.
            "--client-ca-path=".into(),
        ],
        env("argocd-repo-server"),
    )?;
    let repo_address = format!("127.0.0.1:{repo_port}");
    let controller = start_part(
        dir,
        "argocd-application-controller",
        &parts.argocd,
        vec![
            "--repo-server".into(),
            repo_address.clone(),
            "--repo-server-plaintext".into(),
            "--redis".into(),
            redis_address.clone(),
            "--metrics-port".into(),
            free_port().to_string(),
        ],
        env("argocd-application-controller"),
    )?;
    let server_port = free_port();
    let mut server = start_part(
        dir,
        "argocd-server",
        &parts.argocd,
        vec![
            "--insecure".into(),
            "--port".into(),
            server_port.to_string(),
            "--metrics-port".into(),
            free_port().to_string(),
            "--repo-server".into(),
            repo_address,
            "--repo-server-plaintext".into(),
            "--redis".into(),
            redis_address,
            "--staticassets".into(),
            tmp.display().to_string(),
        ],
        env("argocd-server"),
    )?;
    let server_address = format!("127.0.0.1:{server_port}");
    processes.extend([redis, repo_server, controller]);
    {
        let healthz = format!("{server_address}/healthz");
        let mut all: Vec<&mut Part> = processes.iter_mut().collect();
        all.push(&mut server);
        wait_until("argocd-server did not answer /healthz", &mut all, || {
            let healthz = healthz.clone();
            async move { http_ok(&healthz).await }
        })
        .await?;
    }
    processes.push(server);
    login(&bin, &home, &server_address)?;
    Ok(ArgoCd {
        server: server_address,
        home,
        bin,
        charts,
    })
}

/// `GET http://<address>` answers 200.
async fn http_ok(address: &str) -> bool {
    let Ok(mut stream) =
        tokio::net::TcpStream::connect(address.split('/').next().unwrap_or("")).await
    else {
        return false;
    };
    let path = address.split_once('/').map(|(_, p)| p).unwrap_or("");
    let request = format!("GET /{path} HTTP/1.0\r\nHost: localhost\r\n\r\n");
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    if stream.write_all(request.as_bytes()).await.is_err() {
        return false;
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer).starts_with("HTTP/1.0 200")
        || String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200")
}

/// `argocd login` as admin: the CLI's config goes to `home/.config/argocd/config`.
fn login(bin: &Path, home: &Path, server: &str) -> Result<(), String> {
    let output = Command::new(bin.join("argocd"))
        .args([
            "login",
            server,
            "--plaintext",
            "--username",
            "admin",
            "--password",
            PASSWORD,
        ])
        .env("HOME", home)
        .output()
        .map_err(|e| format!("argocd login: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "argocd login {server} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}

/// The admin password's bcrypt hash, as `argocd account bcrypt` makes it.
fn bcrypt(bin: &Path) -> Result<String, String> {
    let output = Command::new(bin.join("argocd"))
        .args(["account", "bcrypt", "--password", PASSWORD])
        .output()
        .map_err(|e| format!("argocd account bcrypt: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "argocd account bcrypt failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The labels Argo CD's settings watch for (`app.kubernetes.io/part-of: argocd`).
fn part_of_argocd() -> Value {
    json!({"app.kubernetes.io/part-of": "argocd"})
}

fn config_map(name: &str, data: Value) -> Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": part_of_argocd()},
        "data": data,
    })
}

/// What Argo CD's install puts in the cluster before its programs start.
async fn install(admin: &kube::Client, bin: &Path) -> Result<(), String> {
    create(
        admin,
        "/api/v1/namespaces",
        &json!({
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE},
        }),
    )
    .await?;
    crate::api::install_argocd_crds(admin).await?;
    // The API server lists ApplicationSets too, and logs an error a second without their CRD.
    let appset = crate::testbin::argocd_crds().join("applicationset-crd.yaml");
    let text =
        std::fs::read_to_string(&appset).map_err(|e| format!("{}: {e}", appset.display()))?;
    let crd: Value =
        serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", appset.display()))?;
    create(
        admin,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &crd,
    )
    .await?;
    let cm = format!("/api/v1/namespaces/{NAMESPACE}/configmaps");
    create(
        admin,
        &cm,
        &config_map("argocd-cm", json!({"admin.enabled": "true"})),
    )
    .await?;
    for name in [
        "argocd-rbac-cm",
        "argocd-cmd-params-cm",
        "argocd-tls-certs-cm",
        "argocd-ssh-known-hosts-cm",
        "argocd-gpg-keys-cm",
    ] {
        create(admin, &cm, &config_map(name, json!({}))).await?;
    }
    let now = jiff::Timestamp::now().to_string();
    create(
        admin,
        &format!("/api/v1/namespaces/{NAMESPACE}/secrets"),
        &json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "argocd-secret", "namespace": NAMESPACE, "labels": part_of_argocd()},
            "stringData": {
                "server.secretkey": "labcheck-tier-server-secret-key",
                "admin.password": bcrypt(bin)?,
                "admin.passwordMtime": now,
            },
        }),
    )
    .await?;
    create(
        admin,
        &format!("/apis/argoproj.io/v1alpha1/namespaces/{NAMESPACE}/appprojects"),
        &json!({
            "apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
            "metadata": {"name": "default", "namespace": NAMESPACE},
            "spec": {
                "sourceRepos": ["*"],
                "destinations": [{"server": "*", "namespace": "*"}],
                "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
            },
        }),
    )
    .await?;
    for (kind, name) in [
        ("deployments", "argocd-server"),
        ("deployments", "argocd-repo-server"),
        ("statefulsets", "argocd-application-controller"),
    ] {
        create(
            admin,
            &format!("/apis/apps/v1/namespaces/{NAMESPACE}/{kind}"),
            &workload(kind, name),
        )
        .await?;
    }
    Ok(())
}

/// A stand-in for the workload an install runs `name` in (its pod run by KWOK).
fn workload(kind: &str, name: &str) -> Value {
    let labels = json!({"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "argocd"});
    let mut object = json!({
        "apiVersion": "apps/v1",
        "kind": if kind == "statefulsets" { "StatefulSet" } else { "Deployment" },
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": name, "image": "quay.io/argoproj/argocd:v3.6.2"}]},
            },
        },
    });
    if kind == "statefulsets" {
        object["spec"]["serviceName"] = json!(name);
    }
    object
}
