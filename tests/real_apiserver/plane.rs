//! One real control plane per test process: etcd and kube-apiserver (built by
//! `scripts/kube-testbin.sh`) on free loopback ports, started with the flags controller-runtime's
//! envtest uses, Argo CD's CRDs installed, an admin and a learner kubeconfig. Shared by every test
//! of the process; stopped by PID when the process exits (an `atexit` handler, since statics are
//! never dropped) and killed by the kernel if the process dies without exiting
//! (`PR_SET_PDEATHSIG`).

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::certs::Certs;
use crate::kubeconfig::{client, write_kubeconfig};
use crate::kubelet::Kubelet;
use crate::processes::{apiserver_flags, free_port, spawn, tail};

/// How long the control plane may take to answer `/readyz` 200 on a busy 2-core machine.
const READY_LIMIT: Duration = Duration::from_secs(120);

pub use crate::runtime::{RT, block_on};

/// The running control plane.
pub struct Plane {
    /// `https://127.0.0.1:<port>`.
    pub url: String,
    /// etcd's client URL (`http://127.0.0.1:<port>`).
    pub etcd: String,
    /// Everything of this plane: certificates, kubeconfigs, etcd's data, the processes' logs.
    pub dir: PathBuf,
    /// `O=system:masters`: RBAC does not apply.
    pub admin_kubeconfig: PathBuf,
    /// A user in no group: what it may do comes from the RBAC objects the admin creates.
    pub learner_kubeconfig: PathBuf,
    pub admin: kube::Client,
    pub certs: Certs,
    /// The loopback "kubelet" every Node the loader creates points at.
    pub kubelet: Kubelet,
    /// The audit log of the audited users' requests (`audit.rs`).
    pub audit_log: PathBuf,
    /// How long starting took (both processes to `/readyz` 200, CRDs established).
    pub started_in: Duration,
}

static PLANE: OnceLock<Plane> = OnceLock::new();

/// The control plane, started on first use.
pub fn plane() -> &'static Plane {
    PLANE.get_or_init(|| {
        let (mut plane, took) =
            crate::runtime::start_timed(|| async { start(&crate::testbin::binaries()).await });
        plane.started_in = took;
        eprintln!(
            "real control plane: kube-apiserver at {} (etcd {}) ready in {:.1}s",
            plane.url,
            plane.etcd,
            plane.started_in.as_secs_f64()
        );
        plane
    })
}

async fn start(bin: &crate::testbin::Binaries) -> Result<Plane, String> {
    let (dir, certs) = crate::processes::cluster_dir("labcheck-real-apiserver-")?;

    let (etcd_url, mut etcd, etcd_log) = crate::processes::start_etcd(&bin.etcd, &dir)?;

    let kubelet = Kubelet::start(&certs).await?;
    let port = free_port();
    let url = format!("https://127.0.0.1:{port}");
    let apiserver_log = dir.join("kube-apiserver.log");
    let pki = dir.join("pki");
    let audit_policy = dir.join("audit-policy.yaml");
    let audit_log = dir.join("audit.log");
    std::fs::write(&audit_policy, crate::audit::policy())
        .map_err(|e| format!("{}: {e}", audit_policy.display()))?;
    let mut flags = apiserver_flags(&etcd_url, &pki, port);
    flags.extend([
        // No controller creates the default service account.
        "--disable-admission-plugins=ServiceAccount".into(),
        // Objects stored as JSON, so the loader can set the times a fixture's story gives
        // them (see `loader.rs`); what clients see does not depend on it.
        "--storage-media-type=application/json".into(),
        // The requests of users in the audited group, in order (see `audit.rs`); nobody
        // else's, so the log stays small.
        format!("--audit-policy-file={}", audit_policy.display()),
        format!("--audit-log-path={}", audit_log.display()),
        "--audit-log-mode=blocking".into(),
    ]);
    let mut apiserver = spawn(&bin.apiserver, flags, &apiserver_log)?;

    let admin_kubeconfig = dir.join("admin.kubeconfig");
    let learner_kubeconfig = dir.join("learner.kubeconfig");
    write_kubeconfig(&admin_kubeconfig, &url, &pki, "admin")?;
    write_kubeconfig(&learner_kubeconfig, &url, &pki, "learner")?;
    let admin = client(&admin_kubeconfig).await?;

    let deadline = Instant::now() + READY_LIMIT;
    loop {
        for (child, name, log) in [
            (&mut etcd, "etcd", &etcd_log),
            (&mut apiserver, "kube-apiserver", &apiserver_log),
        ] {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("{name} exited ({status}):\n{}", tail(log)));
            }
        }
        let ready = admin
            .request_text(
                http::Request::get("/readyz")
                    .body(Vec::new())
                    .map_err(|e| e.to_string())?,
            )
            .await;
        if ready.is_ok_and(|body| body.trim() == "ok") {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "kube-apiserver did not answer /readyz within {READY_LIMIT:?}:\n{}",
                tail(&apiserver_log)
            ));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    crate::api::install_argocd_crds(&admin).await?;
    crate::api::aggregate_cluster_roles(&admin).await?;
    crate::audit::grant_cluster_admin(&admin).await?;
    Ok(Plane {
        url,
        etcd: etcd_url,
        dir,
        admin_kubeconfig,
        learner_kubeconfig,
        admin,
        certs,
        kubelet,
        audit_log,
        started_in: Duration::ZERO,
    })
}

impl Plane {
    /// A kubeconfig for a new user `name` in no group (what it may do comes from RBAC objects).
    pub fn user_kubeconfig(&self, name: &str) -> Result<PathBuf, String> {
        self.kubeconfig_in(name, &[])
    }

    /// A kubeconfig for a new user `name` who may do anything and whose every request the
    /// server audits (read them with [`crate::audit::Audit`]).
    pub fn audited_kubeconfig(&self, name: &str) -> Result<PathBuf, String> {
        self.kubeconfig_in(name, &[crate::audit::GROUP])
    }

    fn kubeconfig_in(&self, name: &str, groups: &[&str]) -> Result<PathBuf, String> {
        let pem = self.certs.user(name, groups).map_err(|e| e.to_string())?;
        let pki = self.dir.join("pki");
        std::fs::write(pki.join(format!("{name}.crt")), &pem.cert).map_err(|e| e.to_string())?;
        std::fs::write(pki.join(format!("{name}.key")), &pem.key).map_err(|e| e.to_string())?;
        let path = self.dir.join(format!("{name}.kubeconfig"));
        write_kubeconfig(&path, &self.url, &pki, name)?;
        Ok(path)
    }
}

/// A JSON value's string at `pointer`, or "".
pub fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}
