//! Finding the cluster as kubectl does: `--kubeconfig`, else `KUBECONFIG`, else `~/.kube/config`,
//! else the in-cluster service account; `--context` picks a context.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::api::ProbeError;

mod exec;
mod proxied;

pub use proxied::client;

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
        _ => crate::paths::home_dir()
            .map(|home| home.join(".kube").join("config"))
            .filter(|p| p.exists())
            .map(Source::Home),
    };
    let Some(source) = source else {
        return in_cluster(context);
    };
    let (kubeconfig, shown, shadowed) = read(&source)?;
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
    check_proxy_url(&kubeconfig, &context_name, &shown)?;
    // What kubectl too would take from a later file that repeats a name: nothing (the first
    // file in KUBECONFIG that names it wins); said, so a learner who edited the later one knows.
    let used = used_names(&kubeconfig, &context_name);
    let mut ignored: Vec<(String, Vec<String>)> = Vec::new();
    for s in shadowed
        .iter()
        .filter(|s| used.contains(&(s.what, s.name.as_str())))
    {
        let entry = format!("{} `{}`", s.what, s.name);
        match ignored.iter_mut().find(|(file, _)| *file == s.ignored_in) {
            Some((_, names)) => names.push(entry),
            None => ignored.push((s.ignored_in.clone(), vec![entry])),
        }
    }
    let ignored: Vec<String> = ignored
        .into_iter()
        .map(|(file, names)| {
            format!(
                "{file} also has {}, which kubectl and labcheck ignore (the first file in $KUBECONFIG to name one wins)",
                names.join(", ")
            )
        })
        .collect();
    exec::replace_exec_with_token(&mut kubeconfig, &context_name).await?;
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| ProbeError::NotConfigured {
            reason: format!("cannot use context `{context_name}` from {shown}: {e}"),
            fix: "check the kubeconfig with `kubectl config view --minify`".to_string(),
        })?;
    bound(&mut config);
    let through = match &config.proxy_url {
        Some(proxy) => format!(", through the proxy {}", without_credentials(proxy)),
        None => String::new(),
    };
    let mut describe = format!("context {context_name} ({}{through})", config.cluster_url);
    for note in ignored {
        describe.push_str("; ");
        describe.push_str(&note);
    }
    Ok(Resolved { config, describe })
}

/// A name a later kubeconfig file repeats, which the merge ignored.
struct Shadowed {
    what: &'static str,
    name: String,
    ignored_in: String,
}

/// The context, cluster and user names the context `context` uses.
fn used_names<'a>(kubeconfig: &'a Kubeconfig, context: &'a str) -> Vec<(&'static str, &'a str)> {
    let mut used = vec![("context", context)];
    if let Some(found) = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
    {
        used.push(("cluster", found.cluster.as_str()));
        if let Some(user) = &found.user {
            used.push(("user", user.as_str()));
        }
    }
    used
}

/// The proxies kube reaches a cluster through (`proxy-url`, or `$HTTPS_PROXY`): kubectl's
/// http, https and socks5; anything else is refused here with words, before kube says only
/// "unsupported protocol" or "invalid authority".
fn check_proxy_url(kubeconfig: &Kubeconfig, context: &str, shown: &str) -> Result<(), ProbeError> {
    let cluster_name = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .map(|c| c.cluster.clone())
        .unwrap_or_default();
    let Some(proxy) = kubeconfig
        .clusters
        .iter()
        .find(|c| c.name == cluster_name)
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.proxy_url.clone())
        .filter(|p| !p.is_empty())
    else {
        return Ok(());
    };
    let problem = match proxy.parse::<http::Uri>() {
        Err(e) => Some(format!("it is not a URL ({e})")),
        Ok(uri) => match uri.scheme_str() {
            Some("http" | "https" | "socks5") if uri.host().is_some() => None,
            Some("http" | "https" | "socks5") => Some("it names no host".to_string()),
            Some("socks5h") => Some(
                "`socks5h://` (names resolved by the proxy) is not one labcheck can use; `socks5://` is".to_string(),
            ),
            Some(other) => Some(format!("`{other}://` is not a proxy protocol labcheck can use")),
            None => Some("it has no scheme such as `http://`".to_string()),
        },
    };
    match problem {
        None => Ok(()),
        Some(problem) => {
            let shown_proxy = proxy
                .parse::<http::Uri>()
                .map(|u| without_credentials(&u))
                .unwrap_or_else(|_| "(not shown: not a URL)".to_string());
            Err(ProbeError::NotConfigured {
                reason: format!(
                    "the kubeconfig {shown} sends cluster `{cluster_name}` through proxy-url {shown_proxy}, which labcheck cannot use: {problem}"
                ),
                fix: "write proxy-url as http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT (the proxies kubectl and labcheck both use), or remove it if the cluster is reached without a proxy".to_string(),
            })
        }
    }
}

/// A proxy URL for messages: scheme, host and port, never a user or password in it.
fn without_credentials(uri: &http::Uri) -> String {
    let host = uri.host().unwrap_or("");
    let port = uri.port_u16().map(|p| format!(":{p}")).unwrap_or_default();
    format!("{}://{host}{port}", uri.scheme_str().unwrap_or("?"))
}

fn read(source: &Source) -> Result<(Kubeconfig, String, Vec<Shadowed>), ProbeError> {
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
            read_one(path, &shown).map(|k| (k, shown.clone(), Vec::new()))
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
            let mut shadowed = Vec::new();
            for path in present {
                let next = read_one(&path, &shown)?;
                let repeats = |what, old: Vec<&str>, new: Vec<&str>| {
                    new.into_iter()
                        .filter(|n| old.contains(n))
                        .map(|n| Shadowed {
                            what,
                            name: n.to_string(),
                            ignored_in: path.display().to_string(),
                        })
                        .collect::<Vec<_>>()
                };
                shadowed.extend(repeats(
                    "context",
                    merged.contexts.iter().map(|c| c.name.as_str()).collect(),
                    next.contexts.iter().map(|c| c.name.as_str()).collect(),
                ));
                shadowed.extend(repeats(
                    "cluster",
                    merged.clusters.iter().map(|c| c.name.as_str()).collect(),
                    next.clusters.iter().map(|c| c.name.as_str()).collect(),
                ));
                shadowed.extend(repeats(
                    "user",
                    merged.auth_infos.iter().map(|c| c.name.as_str()).collect(),
                    next.auth_infos.iter().map(|c| c.name.as_str()).collect(),
                ));
                merged = merged.merge(next).map_err(|e| not_readable(&shown, e))?;
            }
            Ok((merged, shown, shadowed))
        }
        Source::Home(path) => {
            let shown = path.display().to_string();
            read_one(path, &shown).map(|k| (k, shown.clone(), Vec::new()))
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
        // What each of them points at, so the learner sees which one they meant.
        let targets: Vec<String> = match what {
            "contexts" => kubeconfig
                .contexts
                .iter()
                .filter(|c| c.name == name)
                .map(|c| match &c.context {
                    Some(c) => format!("cluster `{}`", c.cluster),
                    None => "nothing".to_string(),
                })
                .collect(),
            "clusters" => kubeconfig
                .clusters
                .iter()
                .filter(|c| c.name == name)
                .map(
                    |c| match c.cluster.as_ref().and_then(|c| c.server.as_ref()) {
                        Some(server) => format!("server {server}"),
                        None => "no server".to_string(),
                    },
                )
                .collect(),
            // A user's entries hold credentials: nothing of them is shown.
            _ => Vec::new(),
        };
        let pointing = if targets.is_empty() {
            String::new()
        } else {
            format!(" (for {})", targets.join(" and "))
        };
        return Err(ProbeError::NotConfigured {
            reason: format!(
                "the kubeconfig {shown} has two {what} named `{name}`{pointing}; kubectl refuses such a file (\"duplicate name\") and uses neither, and so does labcheck"
            ),
            fix: format!(
                "rename or remove one of the {what} named `{name}` (`kubectl config get-{what}` lists them once the file loads)"
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
