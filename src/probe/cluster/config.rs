//! Finding the cluster as kubectl does: `--kubeconfig`, else `KUBECONFIG`, else `~/.kube/config`,
//! else the in-cluster service account; `--context` picks a context.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::api::ProbeError;

mod exec;

/// How long labcheck waits to connect, and for an answer: a dead cluster must not hang a check.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// See [`CONNECT_TIMEOUT`].
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// A resolved client configuration and a name for it in messages.
pub struct Resolved {
    pub config: kube::Config,
    /// `context kind-course (https://127.0.0.1:6443)`.
    pub describe: String,
}

/// Where the kubeconfig comes from.
enum Source {
    Flag(PathBuf),
    Env(std::ffi::OsString),
    Home(PathBuf),
}

/// Resolve the configuration for `--kubeconfig`/`--context`.
pub async fn resolve(
    kubeconfig: Option<&Path>,
    context: Option<&str>,
) -> Result<Resolved, ProbeError> {
    let source = match (kubeconfig, std::env::var_os("KUBECONFIG")) {
        (Some(path), _) => Some(Source::Flag(path.to_path_buf())),
        (None, Some(value)) if !value.is_empty() => Some(Source::Env(value)),
        _ => std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(".kube").join("config"))
            .filter(|p| p.exists())
            .map(Source::Home),
    };
    let Some(source) = source else {
        return in_cluster(context);
    };
    let (kubeconfig, shown) = read(&source)?;
    let options = KubeConfigOptions {
        context: context.map(str::to_string),
        ..KubeConfigOptions::default()
    };
    let context_name = match context {
        Some(name) => {
            if !kubeconfig.contexts.iter().any(|c| c.name == name) {
                let available: Vec<&str> = kubeconfig
                    .contexts
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect();
                return Err(ProbeError::NotConfigured {
                    reason: format!("context `{name}` is not in the kubeconfig {shown}"),
                    fix: if available.is_empty() {
                        "that kubeconfig has no contexts at all: point --kubeconfig at the course cluster's (`kind get kubeconfig --name <cluster> > FILE`)".to_string()
                    } else {
                        format!(
                            "choose one of: {} (`kubectl config get-contexts`)",
                            available.join(", ")
                        )
                    },
                });
            }
            name.to_string()
        }
        None => {
            let names: Vec<&str> = kubeconfig
                .contexts
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            let there = if names.is_empty() {
                "it has no contexts at all".to_string()
            } else {
                format!("it has: {}", names.join(", "))
            };
            match kubeconfig.current_context.clone() {
                Some(name) if names.contains(&name.as_str()) => name,
                Some(name) if !name.is_empty() => {
                    return Err(ProbeError::NotConfigured {
                        reason: format!(
                            "the kubeconfig {shown} names current context `{name}`, which it does not hold ({there})"
                        ),
                        fix: "pick one with --context NAME or `kubectl config use-context NAME`"
                            .to_string(),
                    });
                }
                _ => {
                    return Err(ProbeError::NotConfigured {
                        reason: format!("the kubeconfig {shown} has no current context ({there})"),
                        fix: "pick one with --context NAME or `kubectl config use-context NAME`"
                            .to_string(),
                    });
                }
            }
        }
    };
    let mut kubeconfig = kubeconfig;
    exec::replace_exec_with_token(&mut kubeconfig, &context_name).await?;
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| ProbeError::NotConfigured {
            reason: format!("cannot use context `{context_name}` from {shown}: {e}"),
            fix: "check the kubeconfig with `kubectl config view --minify`".to_string(),
        })?;
    bound(&mut config);
    let describe = format!("context {context_name} ({})", config.cluster_url);
    Ok(Resolved { config, describe })
}

fn read(source: &Source) -> Result<(Kubeconfig, String), ProbeError> {
    let not_readable = |shown: &str, e: kube::config::KubeconfigError| {
        ProbeError::NotConfigured {
        reason: format!("cannot read the kubeconfig {shown}: {e}"),
        fix: "pass --kubeconfig FILE with the course cluster's kubeconfig (`kind get kubeconfig --name <cluster> > FILE`)".to_string(),
    }
    };
    match source {
        Source::Flag(path) => {
            let shown = format!("{} (--kubeconfig)", path.display());
            if !path.exists() {
                return Err(ProbeError::NotConfigured {
                    reason: format!("no kubeconfig at {shown}"),
                    fix: "check the path, or leave --kubeconfig out to use $KUBECONFIG or ~/.kube/config".to_string(),
                });
            }
            read_one(path, &shown).map(|k| (k, shown.clone()))
        }
        Source::Env(value) => {
            let shown = format!("{} ($KUBECONFIG)", value.to_string_lossy());
            let missing: Vec<PathBuf> = std::env::split_paths(value)
                .filter(|p| !p.as_os_str().is_empty() && !p.exists())
                .collect();
            let all = std::env::split_paths(value)
                .filter(|p| !p.as_os_str().is_empty())
                .count();
            if missing.len() == all {
                return Err(ProbeError::NotConfigured {
                    reason: format!("no kubeconfig at {shown}"),
                    fix: "fix KUBECONFIG, or pass --kubeconfig FILE".to_string(),
                });
            }
            // kubectl skips missing files in KUBECONFIG; kube's loader does not.
            let present: Vec<PathBuf> = std::env::split_paths(value)
                .filter(|p| !p.as_os_str().is_empty() && p.exists())
                .collect();
            let mut merged = Kubeconfig::default();
            for path in present {
                let next = read_one(&path, &shown)?;
                merged = merged.merge(next).map_err(|e| not_readable(&shown, e))?;
            }
            Ok((merged, shown))
        }
        Source::Home(path) => {
            let shown = path.display().to_string();
            read_one(path, &shown).map(|k| (k, shown.clone()))
        }
    }
}

/// The most labcheck reads of a kubeconfig file (a few kilobytes in practice).
const MAX_KUBECONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// One kubeconfig file, read as kubectl reads it: a regular file (a FIFO would block), nested
/// as a kubeconfig is, and without two entries of one name (kubectl refuses those too).
fn read_one(path: &Path, shown: &str) -> Result<Kubeconfig, ProbeError> {
    let refuse = |reason: String| {
        ProbeError::NotConfigured {
        reason: format!("cannot read the kubeconfig {shown}: {reason}"),
        fix: "pass --kubeconfig FILE with the course cluster's kubeconfig (`kind get kubeconfig --name <cluster> > FILE`)".to_string(),
    }
    };
    let text = crate::paths::read_regular_text(path, MAX_KUBECONFIG_BYTES)
        .map_err(|e| refuse(e.to_string()))?;
    if let Err(deep) = crate::yaml::guard::check_depth(&text) {
        return Err(refuse(format!("line {}: {}", deep.line, deep.message())));
    }
    let kubeconfig = Kubeconfig::read_from(path).map_err(|e| refuse(e.to_string()))?;
    let duplicate = |names: Vec<&str>| {
        names
            .iter()
            .enumerate()
            .find(|(i, name)| names[..*i].contains(name))
            .map(|(_, name)| name.to_string())
    };
    let found = [
        (
            "contexts",
            duplicate(
                kubeconfig
                    .contexts
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect(),
            ),
        ),
        (
            "clusters",
            duplicate(
                kubeconfig
                    .clusters
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect(),
            ),
        ),
        (
            "users",
            duplicate(
                kubeconfig
                    .auth_infos
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect(),
            ),
        ),
    ];
    if let Some((what, name)) = found
        .into_iter()
        .find_map(|(what, name)| name.map(|n| (what, n)))
    {
        return Err(ProbeError::NotConfigured {
            reason: format!(
                "the kubeconfig {shown} has two {what} named `{name}`; kubectl refuses such a file too, as it cannot tell which one is meant"
            ),
            fix: format!(
                "rename or remove one of the {what} named `{name}` (`kubectl config get-{what}` lists them)"
            ),
        });
    }
    Ok(kubeconfig)
}

fn in_cluster(context: Option<&str>) -> Result<Resolved, ProbeError> {
    let no_config = || {
        ProbeError::NotConfigured {
        reason: "no kubeconfig found: --kubeconfig is not given, KUBECONFIG is not set and ~/.kube/config does not exist".to_string(),
        fix: "pass --kubeconfig FILE with the course cluster's kubeconfig (kind writes it: `kind export kubeconfig --name <cluster>`), or run labcheck where kubectl works".to_string(),
    }
    };
    if context.is_some() || std::env::var_os("KUBERNETES_SERVICE_HOST").is_none() {
        return Err(no_config());
    }
    let mut config = kube::Config::incluster().map_err(|e| ProbeError::NotConfigured {
        reason: format!("running in a pod, but its service account cannot be used: {e}"),
        fix: "mount a service account token, or pass --kubeconfig FILE".to_string(),
    })?;
    bound(&mut config);
    let describe = format!("the in-cluster service account ({})", config.cluster_url);
    Ok(Resolved { config, describe })
}

/// Timeouts on every request: the API server must answer, or labcheck says so.
pub fn bound(config: &mut kube::Config) {
    // kube retries 429/503/504 up to 15 times with backoff growing to minutes; labcheck says what
    // the server answered instead (a 429 with its Retry-After), within seconds.
    config.default_retry = false;
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    config.read_timeout = Some(READ_TIMEOUT);
    config.write_timeout = Some(READ_TIMEOUT);
}
