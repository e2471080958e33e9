//! One real cluster per test process, made of plain processes on loopback: etcd, kube-apiserver,
//! kube-controller-manager, kube-scheduler and KWOK (one fake node; pods run as
//! `containers.rs` says, their logs served through the API server's log proxy by the loopback
//! kubelet of `common/kubelet.rs`), then redis, a git server, a Helm chart repository and Argo CD
//! (`argocd.rs`). Every process is started by this file and stopped by PID at exit.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::kubeconfig::{client, write_kubeconfig_in};
use crate::kubelet::{ContainerLog, Kubelet};
use crate::processes::{free_port, tail};

/// How long a part may take to come up on a busy 2-core machine.
pub const READY_LIMIT: Duration = Duration::from_secs(180);

pub use crate::runtime::block_on;

/// The running cluster.
pub struct Cluster {
    /// `https://127.0.0.1:<port>`.
    pub url: String,
    /// Everything of this cluster: certificates, kubeconfigs, data, the processes' logs.
    pub dir: PathBuf,
    /// `O=system:masters`, as a kind cluster's kubeconfig is.
    pub admin_kubeconfig: PathBuf,
    pub admin: kube::Client,
    pub argocd: crate::argocd::ArgoCd,
    /// Every process but etcd and kube-apiserver, for a message when one dies.
    pub parts: std::sync::Mutex<Vec<Part>>,
    /// How long starting took, everything answering.
    pub started_in: Duration,
}

static CLUSTER: OnceLock<Cluster> = OnceLock::new();

/// The cluster, started on first use.
pub fn cluster() -> &'static Cluster {
    CLUSTER.get_or_init(|| {
        let (mut cluster, took) = crate::runtime::start_timed(|| {
            let bin = crate::testbin::binaries_with_controllers();
            let parts = crate::testbin::argocd_parts();
            async move { start(&bin, &parts).await }
        });
        cluster.started_in = took;
        eprintln!(
            "real Argo CD: kube-apiserver at {}, argocd-server at {}, ready in {:.1}s (logs in {})",
            cluster.url,
            cluster.argocd.server,
            cluster.started_in.as_secs_f64(),
            cluster.dir.display()
        );
        cluster
    })
}

/// A process of the cluster: its child and its log, for a message when it dies.
pub struct Part {
    pub name: &'static str,
    pub child: Child,
    pub log: PathBuf,
}

impl Part {
    /// An error naming the part's last words if it has exited.
    pub fn alive(&mut self) -> Result<(), String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Err(format!(
                "{} exited ({status}):\n{}",
                self.name,
                tail(&self.log)
            )),
            _ => Ok(()),
        }
    }
}

/// Start `program` as `name` with its log in `dir/<name>.log`.
pub fn start_part(
    dir: &Path,
    name: &'static str,
    program: &Path,
    args: Vec<String>,
    env: Vec<(String, String)>,
) -> Result<Part, String> {
    let log = dir.join(format!("{name}.log"));
    let child = crate::processes::spawn_with(program, args, env, &log)?;
    Ok(Part { name, child, log })
}

/// Wait until `ready` says yes, failing early with a part's last words when one dies.
pub async fn wait_until<F, Fut>(
    what: &str,
    parts: &mut [&mut Part],
    mut ready: F,
) -> Result<(), String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + READY_LIMIT;
    loop {
        for part in parts.iter_mut() {
            part.alive()?;
        }
        if ready().await {
            return Ok(());
        }
        if Instant::now() > deadline {
            let logs: Vec<String> = parts
                .iter()
                .map(|p| format!("{}:\n{}", p.name, tail(&p.log)))
                .collect();
            return Err(format!(
                "{what} within {READY_LIMIT:?}:\n{}",
                logs.join("\n")
            ));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

async fn start(
    bin: &crate::testbin::Binaries,
    parts: &crate::testbin::ArgoCdParts,
) -> Result<Cluster, String> {
    let (dir, certs) = crate::processes::cluster_dir("labcheck-real-argocd-")?;
    let pki = dir.join("pki");

    let (etcd_url, etcd, etcd_log) = crate::processes::start_etcd(&bin.etcd, &dir)?;
    let mut etcd = Part {
        name: "etcd",
        child: etcd,
        log: etcd_log,
    };

    let kubelet = Kubelet::start(&certs).await?;
    let port = free_port();
    let url = format!("https://127.0.0.1:{port}");
    let mut apiserver = start_part(
        &dir,
        "kube-apiserver",
        &bin.apiserver,
        crate::processes::apiserver_flags(&etcd_url, &pki, port),
        Vec::new(),
    )?;
    let admin_kubeconfig = dir.join("admin.kubeconfig");
    write_kubeconfig_in(&admin_kubeconfig, &url, &pki, "admin", None)?;
    let admin = client(&admin_kubeconfig).await?;
    wait_until(
        "kube-apiserver did not answer /readyz",
        &mut [&mut etcd, &mut apiserver],
        || async {
            let Ok(request) = http::Request::get("/readyz").body(Vec::new()) else {
                return false;
            };
            admin
                .request_text(request)
                .await
                .is_ok_and(|body| body.trim() == "ok")
        },
    )
    .await?;

    // The controllers a cluster runs: Jobs make pods, ServiceAccounts and the root CA appear in
    // every namespace, the garbage collector deletes a hook Job's pods in the foreground.
    let controller_manager = start_part(
        &dir,
        "kube-controller-manager",
        &bin.controller_manager,
        vec![
            format!("--kubeconfig={}", admin_kubeconfig.display()),
            "--leader-elect=false".into(),
            "--use-service-account-credentials=false".into(),
            format!(
                "--service-account-private-key-file={}",
                pki.join("sa.key").display()
            ),
            format!("--root-ca-file={}", pki.join("ca.crt").display()),
            "--secure-port=0".into(),
            // Nothing here allocates a node's CIDRs or binds persistent volumes.
            "--controllers=*,-node-ipam-controller,-persistentvolume-binder-controller,-persistentvolume-attach-detach-controller,-persistentvolume-expander-controller".into(),
        ],
        Vec::new(),
    )?;
    // KWOK does not schedule: without a scheduler a Job's pod never gets a node.
    let scheduler = start_part(
        &dir,
        "kube-scheduler",
        &bin.scheduler,
        vec![
            format!("--kubeconfig={}", admin_kubeconfig.display()),
            "--leader-elect=false".into(),
            "--secure-port=0".into(),
        ],
        Vec::new(),
    )?;
    let stages = dir.join("kwok-stages.yaml");
    std::fs::write(&stages, crate::containers::kwok_stages(&parts.kwok_stages)?)
        .map_err(|e| format!("{}: {e}", stages.display()))?;
    let kwok = start_part(
        &dir,
        "kwok",
        &parts.kwok,
        vec![
            format!("--kubeconfig={}", admin_kubeconfig.display()),
            format!("--config={}", stages.display()),
            "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake".into(),
            "--node-ip=127.0.0.1".into(),
            // The node's kubelet port is the harness's kubelet: `kubectl logs` reaches it
            // through the API server's log proxy.
            format!("--node-port={}", kubelet.port),
            format!("--server-address=127.0.0.1:{}", free_port()),
        ],
        Vec::new(),
    )?;
    let mut controllers = [controller_manager, scheduler, kwok];
    create(&admin, "/api/v1/nodes", &node()).await?;
    tokio::spawn(fill_logs(admin.clone(), kubelet.clone()));
    {
        let [a, b, c] = &mut controllers;
        wait_until(
            "the fake node did not become Ready",
            &mut [a, b, c],
            || async { node_ready(&admin).await },
        )
        .await?;
    }

    let mut processes = Vec::from(controllers);
    processes.push(apiserver);
    processes.push(etcd);
    let argocd = crate::argocd::start(&mut processes, &dir, &url, &certs, &admin, parts).await?;
    Ok(Cluster {
        url,
        dir,
        admin_kubeconfig,
        admin,
        argocd,
        parts: std::sync::Mutex::new(processes),
        started_in: Duration::ZERO,
    })
}

impl Cluster {
    /// An error with the last words of a process of the cluster that has exited.
    pub fn alive(&self) -> Result<(), String> {
        let mut parts = self.parts.lock().map_err(|e| e.to_string())?;
        for part in parts.iter_mut() {
            part.alive()?;
        }
        Ok(())
    }

    /// The last lines and errors of every process, for a failure message.
    pub fn logs(&self) -> String {
        let parts = self.parts.lock().map(|p| {
            p.iter()
                .map(|p| format!("--- {}:\n{}", p.name, tail(&p.log)))
                .collect::<Vec<_>>()
                .join("\n")
        });
        parts.unwrap_or_default()
    }

    /// Keep `part` with the cluster's processes.
    pub fn adopt(&self, part: Part) -> Result<(), String> {
        self.parts.lock().map_err(|e| e.to_string())?.push(part);
        Ok(())
    }
}

/// The one node: KWOK manages it (its annotation), the scheduler puts every pod on it.
fn node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {
            "name": "kwok-node-0",
            "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {"kubernetes.io/hostname": "kwok-node-0", "kubernetes.io/os": "linux", "type": "kwok"},
        },
    })
}

async fn node_ready(admin: &kube::Client) -> bool {
    let Ok(node) = get(admin, "/api/v1/nodes/kwok-node-0").await else {
        return false;
    };
    node["status"]["conditions"].as_array().is_some_and(|c| {
        c.iter()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
    })
}

/// Serve each started container's log as [`crate::containers::behaviour`] writes it, ended once
/// the pod's container has terminated, as kubelet serves the log file of a container.
async fn fill_logs(admin: kube::Client, kubelet: Kubelet) {
    loop {
        if let Ok(list) = get(&admin, "/api/v1/pods").await {
            for pod in list["items"].as_array().into_iter().flatten() {
                let ns = pod["metadata"]["namespace"].as_str().unwrap_or("");
                let name = pod["metadata"]["name"].as_str().unwrap_or("");
                let at = pod["status"]["startTime"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                for status in pod["status"]["containerStatuses"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let container_name = status["name"].as_str().unwrap_or("");
                    let Some(spec) = pod["spec"]["containers"]
                        .as_array()
                        .and_then(|c| c.iter().find(|c| c["name"] == container_name))
                    else {
                        continue;
                    };
                    let ended = status["state"].get("terminated").is_some();
                    if !ended && status["state"].get("running").is_none() {
                        continue;
                    }
                    let text = crate::containers::behaviour(spec).log;
                    kubelet.set_one(
                        &format!("{ns}/{name}/{container_name}"),
                        ContainerLog::Text {
                            text,
                            ended,
                            at: at.clone(),
                        },
                    );
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// GET `path` as JSON.
pub async fn get(client: &kube::Client, path: &str) -> Result<Value, String> {
    let request = http::Request::get(path)
        .body(Vec::new())
        .map_err(|e| e.to_string())?;
    client
        .request::<Value>(request)
        .await
        .map_err(|e| format!("GET {path}: {e}"))
}

/// POST `object` to `path`; one that exists already is left as it is.
pub async fn create(client: &kube::Client, path: &str, object: &Value) -> Result<(), String> {
    let request = http::Request::post(path)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(object).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    match client.request::<Value>(request).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
        Err(e) => Err(format!("POST {path} ({}): {e}", object["metadata"]["name"])),
    }
}
