//! Kubeconfigs for the tiers' users (client certificates from `certs.rs`), and clients from them.

#![allow(dead_code)] // each tier uses its own part of this file

use std::io::Write;
use std::path::Path;

use serde_json::json;

/// A kubeconfig for `user` (its certificate and key are `<user>.crt`, `<user>.key` in `pki`).
pub fn write_kubeconfig(path: &Path, url: &str, pki: &Path, user: &str) -> Result<(), String> {
    write_kubeconfig_in(path, url, pki, user, None)
}

/// [`write_kubeconfig`] whose context names `namespace` (Argo CD's programs take theirs from it).
pub fn write_kubeconfig_in(
    path: &Path,
    url: &str,
    pki: &Path,
    user: &str,
    namespace: Option<&str>,
) -> Result<(), String> {
    let mut context = json!({"cluster": "real", "user": user});
    if let Some(namespace) = namespace {
        context["namespace"] = json!(namespace);
    }
    let config = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "real", "cluster": {
            "server": url,
            "certificate-authority": pki.join("ca.crt"),
        }}],
        "users": [{"name": user, "user": {
            "client-certificate": pki.join(format!("{user}.crt")),
            "client-key": pki.join(format!("{user}.key")),
        }}],
        "contexts": [{"name": "real", "context": context}],
        "current-context": "real",
    });
    let text = serde_yaml::to_string(&config).map_err(|e| e.to_string())?;
    std::fs::File::create(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// A client from a kubeconfig file.
pub async fn client(kubeconfig: &Path) -> Result<kube::Client, String> {
    let kubeconfig = kube::config::Kubeconfig::read_from(kubeconfig).map_err(|e| e.to_string())?;
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .map_err(|e| e.to_string())?;
    kube::Client::try_from(config).map_err(|e| e.to_string())
}
