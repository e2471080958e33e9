//! The Helm chart repository that stands in for `https://argoproj.github.io/argo-helm`, which
//! the platform's `argocd` Application pulls Argo CD's own chart from (no internet here): a
//! plain HTTP repository on loopback (`index.yaml` and the packaged chart, made by the tier's
//! Helm) holding one chart, `stand-ins/argo-cd/`, at the version the lab pins. It renders only
//! what the course reads of Argo CD's chart: `argocd-cm` from `configs.cm` and
//! `argocd-cmd-params-cm` from `configs.params`, as the real chart's templates do.

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::routing::get;

/// Where the stand-in chart's source is.
pub fn source() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/real_argocd/stand-ins/argo-cd")
}

/// The URL the lab names for Argo CD's chart repository.
pub const UPSTREAM: &str = "https://argoproj.github.io/argo-helm";

/// The running repository.
pub struct ChartRepo {
    /// `http://127.0.0.1:<port>/argo-helm`: what [`UPSTREAM`] is rewritten to in the served lab.
    pub url: String,
}

impl ChartRepo {
    /// Package the stand-in chart with `helm`, index it, and serve the folder.
    pub async fn start(dir: &Path, helm: &Path) -> Result<ChartRepo, String> {
        let folder = dir.join("charts");
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let home = dir.join("helm-home");
        let helm_run = |args: &[&str]| -> Result<(), String> {
            let output = Command::new(helm)
                .args(args)
                .env("HOME", &home)
                .env("HELM_CACHE_HOME", home.join("cache"))
                .env("HELM_CONFIG_HOME", home.join("config"))
                .env("HELM_DATA_HOME", home.join("data"))
                .output()
                .map_err(|e| format!("helm {}: {e}", args.join(" ")))?;
            if output.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "helm {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&output.stderr)
                ))
            }
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let url = format!("http://127.0.0.1:{port}/argo-helm");
        let source = source();
        helm_run(&[
            "package",
            &source.display().to_string(),
            "--destination",
            &folder.display().to_string(),
        ])?;
        helm_run(&[
            "repo",
            "index",
            &folder.display().to_string(),
            "--url",
            &url,
        ])?;
        let app = Router::new()
            .route("/argo-helm/{file}", get(serve))
            .with_state(folder);
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(ChartRepo { url })
    }
}

async fn serve(
    State(folder): State<PathBuf>,
    UrlPath(file): UrlPath<String>,
) -> Result<Vec<u8>, StatusCode> {
    if file.contains('/') || file.starts_with('.') {
        return Err(StatusCode::NOT_FOUND);
    }
    tokio::fs::read(folder.join(file))
        .await
        .map_err(|_| StatusCode::NOT_FOUND)
}
