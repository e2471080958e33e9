//! A kubeconfig's `exec` credential plugin (kubelogin, aws, gke-gcloud-auth-plugin …), run by
//! labcheck itself rather than by kube, for two reasons: kube runs it without a time limit (a
//! plugin waiting for a browser login hung labcheck), and kube's error for a failed plugin holds
//! the plugin's whole output, which may be a bearer token. Here the plugin gets [`EXEC_TIMEOUT`],
//! never a terminal (labcheck runs unattended), and what is said about it is its exit status and
//! the last line of its stderr with anything token-like blanked. Its stdout is never shown.

use std::time::Duration;

use kube::config::{ExecConfig, Kubeconfig};
use serde::Deserialize;

use super::ProbeError;

/// How long a credential plugin may take, so the whole cluster probe says "could not check"
/// within 5 seconds.
pub const EXEC_TIMEOUT: Duration = Duration::from_secs(4);

/// What stands in for a token-like word in a message.
pub const REDACTED_TOKEN: &str = "(redacted)";

#[derive(Deserialize)]
struct ExecCredential {
    #[serde(default)]
    status: Option<CredentialStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CredentialStatus {
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    client_certificate_data: Option<String>,
    #[serde(default)]
    client_key_data: Option<String>,
}

/// If the user of `context` gets its credentials from an exec plugin, run it (bounded) and put
/// what it returned in its place, so kube never runs the plugin itself.
pub async fn replace_exec_with_token(
    kubeconfig: &mut Kubeconfig,
    context: &str,
) -> Result<(), ProbeError> {
    let user = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone());
    let Some(user) = user else { return Ok(()) };
    let Some(auth) = kubeconfig
        .auth_infos
        .iter_mut()
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_mut())
    else {
        return Ok(());
    };
    let Some(exec) = auth.exec.take() else {
        return Ok(());
    };
    let status = run(&exec, &user).await?;
    if let Some(token) = status.token {
        auth.token = Some(secrecy::SecretString::from(token));
    }
    // The kubeconfig holds certificates base64-encoded; the plugin returns them as PEM.
    if let Some(cert) = status.client_certificate_data {
        auth.client_certificate_data = Some(base64(cert.as_bytes()));
    }
    if let Some(key) = status.client_key_data {
        auth.client_key_data = Some(secrecy::SecretString::from(base64(key.as_bytes())));
    }
    Ok(())
}

async fn run(exec: &ExecConfig, user: &str) -> Result<CredentialStatus, ProbeError> {
    let Some(command) = exec.command.as_deref() else {
        return Err(ProbeError::NotConfigured {
            reason: format!("the kubeconfig's user `{user}` has an exec plugin without a command"),
            fix: "add `command:` to its exec section, or get a fresh kubeconfig".to_string(),
        });
    };
    let plugin = format!("credential plugin `{command}` (kubeconfig user `{user}`)");
    let fix = format!(
        "run `kubectl get nodes`, which uses the same plugin, and fix what it says (a login that expired, `{command}` not installed); then run labcheck again"
    );
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(exec.args.iter().flatten());
    for pair in exec.env.iter().flatten() {
        if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
            cmd.env(name, value);
        }
    }
    for name in exec.drop_env.iter().flatten() {
        cmd.env_remove(name);
    }
    let api_version = exec
        .api_version
        .clone()
        .unwrap_or_else(|| "client.authentication.k8s.io/v1".to_string());
    cmd.env(
        "KUBERNETES_EXEC_INFO",
        serde_json::json!({
            "apiVersion": api_version,
            "kind": "ExecCredential",
            "spec": {"interactive": false},
        })
        .to_string(),
    );
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| ProbeError::NotConfigured {
        reason: format!("cannot start the kubeconfig's {plugin}: {e}"),
        fix: fix.clone(),
    })?;
    let output = match tokio::time::timeout(EXEC_TIMEOUT, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => {
            return Err(ProbeError::NotConfigured {
                reason: format!("cannot run the kubeconfig's {plugin}: {e}"),
                fix,
            });
        }
        // Dropping the future kills the plugin (kill_on_drop).
        Err(_) => {
            return Err(ProbeError::NotConfigured {
                reason: format!(
                    "the kubeconfig's {plugin} did not answer within {} s (it may be waiting for a login in a browser or a terminal)",
                    EXEC_TIMEOUT.as_secs()
                ),
                fix,
            });
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(redact_tokens);
        let said = match last {
            Some(line) => format!("; its last words: {line}"),
            None => String::new(),
        };
        return Err(ProbeError::NotConfigured {
            reason: format!("the kubeconfig's {plugin} failed ({}){said}", output.status),
            fix,
        });
    }
    // The output is a credential: parsed, never shown, not even in an error.
    let credential: Option<ExecCredential> = serde_json::from_slice(&output.stdout)
        .ok()
        .or_else(|| serde_yaml::from_slice(&output.stdout).ok());
    match credential.and_then(|c| c.status) {
        Some(status)
            if status.token.is_some()
                || (status.client_certificate_data.is_some()
                    && status.client_key_data.is_some()) =>
        {
            Ok(status)
        }
        _ => Err(ProbeError::NotConfigured {
            reason: format!(
                "the kubeconfig's {plugin} exited 0 but printed no ExecCredential with a token or a client certificate (its output is not shown: it may hold a credential)"
            ),
            fix,
        }),
    }
}

/// A line of a plugin's stderr with every token-like word blanked: long runs of base64/JWT
/// characters, `Bearer X`, and the value of any `token=`/`password:`-like pair. At most 200
/// characters are kept.
pub fn redact_tokens(line: &str) -> String {
    let mut out = Vec::new();
    let mut blank_next = false;
    for word in line.split_whitespace() {
        if blank_next {
            out.push(REDACTED_TOKEN.to_string());
            blank_next = false;
            continue;
        }
        let lower = word.to_ascii_lowercase();
        if lower == "bearer" || lower.ends_with("token:") || lower.ends_with("password:") {
            blank_next = true;
            out.push(word.to_string());
            continue;
        }
        if let Some((key, _)) = word.split_once(['=', ':'])
            && ["token", "secret", "password", "key", "credential"]
                .iter()
                .any(|k| key.to_ascii_lowercase().contains(k))
        {
            out.push(format!("{key}={REDACTED_TOKEN}"));
            continue;
        }
        let bare = word.trim_matches(|c: char| matches!(c, '"' | '\'' | ',' | ';' | '(' | ')'));
        let tokenish = bare.len() >= 20
            && bare.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || matches!(c, '+' | '/' | '=' | '.' | '_' | '-' | '~' | ':')
            })
            && bare.chars().any(|c| c.is_ascii_digit())
            && bare.chars().any(|c| c.is_ascii_alphabetic());
        out.push(if tokenish {
            REDACTED_TOKEN.to_string()
        } else {
            word.to_string()
        });
    }
    let joined = out.join(" ");
    if joined.chars().count() > 200 {
        let cut: String = joined.chars().take(200).collect();
        format!("{cut}…")
    } else {
        joined
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_like_words_in_a_plugin_message_are_blanked() {
        let jwt = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl";
        let cases = [
            (
                format!("error: token {jwt} expired"),
                "error: token (redacted) expired",
            ),
            (
                "Authorization: Bearer abc".to_string(),
                "Authorization: Bearer (redacted)",
            ),
            (
                "bad sha256~SeCrEtToKeN1234567890abcdef".to_string(),
                "bad (redacted)",
            ),
            (
                "failed with token=s3cr3t and id=7".to_string(),
                "failed with token=(redacted) and id=7",
            ),
            (
                "login expired, run `aws sso login`".to_string(),
                "login expired, run `aws sso login`",
            ),
        ];
        for (line, want) in cases {
            assert_eq!(redact_tokens(&line), want);
        }
    }

    #[test]
    fn base64_matches_the_standard_alphabet_with_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"-----BEGIN"), "LS0tLS1CRUdJTg==");
    }
}
