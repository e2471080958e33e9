//! What stands in for a container runtime: KWOK runs the pods (a fake node, pods Running and
//! Ready, a Job's pod Succeeded or Failed), and this file says, for each container the course's
//! chart renders, how it ends and what it writes, as the real program would:
//!
//! - a `/bin/sh -c SCRIPT` container (the migration, the SyncFail notice) writes what the script's
//!   `echo` lines print (to stdout or `>&2`; kubelet's log has both) and exits with its `exit N`
//!   (0 when it reaches the end);
//! - a `curl --fail … URL` container (the smoke test) exits 22 with curl's words when the path is
//!   `/status/<4xx or 5xx>` (podinfo answers `/status/503` with a 503), else prints podinfo's
//!   `{"status":"OK"}`;
//! - anything else (a server, such as podinfo itself) runs and writes one line.
//!
//! KWOK decides Succeeded or Failed by a jq expression on the pod ([`FAILS`] on its commands and
//! arguments), the log server by [`behaviour`], whose exit code follows the same [`FAILS`]; the
//! walk holds the two together (a Job Failed by KWOK whose log says otherwise fails its checks).

use regex::Regex;
use serde_json::Value;

/// A container fails when its command and arguments, joined by spaces, match this: a script
/// that exits non-zero, or a request for an error status.
pub const FAILS: &str = r"exit [1-9]|/status/[45][0-9][0-9]";

/// How a container ends and what it wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Behaviour {
    /// `None` for a container that keeps running.
    pub exit_code: Option<i32>,
    pub log: String,
}

/// The words of a container's command and arguments, joined by spaces (what [`FAILS`] reads).
fn words(container: &Value) -> String {
    let list = |key: &str| {
        container[key]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    [list("command"), list("args")].concat().join(" ")
}

/// What `container` (a pod's `spec.containers[]` entry) does.
pub fn behaviour(container: &Value) -> Behaviour {
    let command: Vec<&str> = container["command"]
        .as_array()
        .map(|c| c.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let args: Vec<&str> = container["args"]
        .as_array()
        .map(|c| c.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let image = container["image"].as_str().unwrap_or("");
    let fails = Regex::new(FAILS).is_ok_and(|re| re.is_match(&words(container)));
    let shell = matches!(command.as_slice(), [sh, "-c", ..] if sh.ends_with("sh"));
    if shell {
        let script = command.get(2).or(args.first()).copied().unwrap_or("");
        let (log, code) = run_script(script);
        return Behaviour {
            exit_code: Some(if fails { code.max(1) } else { 0 }),
            log,
        };
    }
    if image.contains("curl") {
        let url = args
            .iter()
            .rev()
            .find(|a| a.starts_with("http"))
            .copied()
            .unwrap_or("");
        let status = Regex::new(r"/status/([0-9]{3})")
            .ok()
            .and_then(|re| re.captures(url))
            .and_then(|c| c[1].parse::<u16>().ok())
            .unwrap_or(200);
        return if fails {
            Behaviour {
                exit_code: Some(22),
                log: format!("curl: (22) The requested URL returned error: {status}\n"),
            }
        } else {
            Behaviour {
                exit_code: Some(0),
                log: "{\"status\":\"OK\"}\n".to_string(),
            }
        };
    }
    Behaviour {
        exit_code: None,
        log: format!("{image} started\n"),
    }
}

/// What a shell script's `echo` lines print, up to its `exit N`, and that N (0 at its end).
fn run_script(script: &str) -> (String, i32) {
    let mut log = String::new();
    for statement in statements(script) {
        let words = shlex::split(&statement).unwrap_or_default();
        let words: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| !matches!(*w, ">&2" | "1>&2"))
            .collect();
        match words.as_slice() {
            ["exit", code, ..] => return (log, code.parse().unwrap_or(1)),
            ["echo", text @ ..] => {
                log.push_str(&text.join(" "));
                log.push('\n');
            }
            _ => {}
        }
    }
    (log, 0)
}

/// A script's statements: split at newlines and `;` outside quotes, as sh does (a `;` inside an
/// echoed message is part of the message).
fn statements(script: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quote = None;
    for c in script.chars() {
        match (quote, c) {
            (None, '\n' | ';') => out.push(String::new()),
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            _ => {}
        }
        if (quote.is_some() || !matches!(c, '\n' | ';'))
            && let Some(last) = out.last_mut()
        {
            last.push(c);
        }
    }
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// KWOK's Stages for this tier, as one multi-document YAML text: KWOK's own node and pod stages
/// (from its module, `kustomize/stage/`), with a Job's pod completing as [`FAILS`] says.
pub fn kwok_stages(stages: &std::path::Path) -> Result<String, String> {
    let read = |path: &str| {
        let file = stages.join(path);
        std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))
    };
    let mut docs = vec![
        read("node/fast/node-initialize.yaml")?,
        read("node/heartbeat/node-heartbeat.yaml")?,
        read("pod/fast/pod-ready.yaml")?,
        read("pod/fast/pod-delete.yaml")?,
    ];
    let complete: Value = serde_yaml::from_str(&read("pod/fast/pod-complete.yaml")?)
        .map_err(|e| format!("KWOK's pod-complete stage: {e}"))?;
    let fails = format!(
        "[.spec.containers[] | ((.command // []) + (.args // [])) | join(\" \")] | join(\" \") | test(\"{}\") | tostring",
        FAILS.replace('\\', "\\\\")
    );
    for (name, failing) in [("pod-complete", false), ("pod-fail", true)] {
        let mut stage = complete.clone();
        stage["metadata"]["name"] = Value::from(name);
        let expressions = stage["spec"]["selector"]["matchExpressions"]
            .as_array_mut()
            .ok_or("KWOK's pod-complete stage has no matchExpressions")?;
        expressions.push(serde_json::json!({
            "key": fails, "operator": "In", "values": [failing.to_string()],
        }));
        // A container takes a moment, as the course's do (the migration sleeps 5 s); short,
        // so a sync takes seconds.
        stage["spec"]["delay"] = serde_json::json!({"durationMilliseconds": 1500});
        if failing {
            let template = stage["spec"]["next"]["statusTemplate"]
                .as_str()
                .ok_or("KWOK's pod-complete stage has no statusTemplate")?
                .replace("exitCode: 0", "exitCode: 1")
                .replace("reason: Completed", "reason: Error")
                .replace("phase: Succeeded", "phase: Failed");
            stage["spec"]["next"]["statusTemplate"] = Value::from(template);
        }
        docs.push(serde_yaml::to_string(&stage).map_err(|e| e.to_string())?);
    }
    Ok(docs.join("\n---\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_course_containers_behave_as_their_programs() {
        let cases = [
            (
                json!({"image": "podinfo:6.7.0", "command": ["/bin/sh", "-c"], "args": [
                    "echo \"migrating the checkout database for 6.7.0\"\necho \"migration failed: column orders.total already exists\" >&2; exit 1\n"]}),
                Some(1),
                "migrating the checkout database for 6.7.0\nmigration failed: column orders.total already exists\n",
            ),
            (
                json!({"image": "podinfo:6.7.1", "command": ["/bin/sh", "-c"], "args": [
                    "echo \"migrating the checkout database for 6.7.1\"\nsleep 5; echo \"migration done\"\n"]}),
                Some(0),
                "migrating the checkout database for 6.7.1\nmigration done\n",
            ),
            (
                json!({"image": "curlimages/curl:8.10.1", "args": ["-sS", "--fail", "--max-time", "10", "http://checkout:9898/status/503"]}),
                Some(22),
                "curl: (22) The requested URL returned error: 503\n",
            ),
            (
                json!({"image": "curlimages/curl:8.10.1", "args": ["-sS", "--fail", "http://checkout:9898/healthz"]}),
                Some(0),
                "{\"status\":\"OK\"}\n",
            ),
            // The SyncFail notice: a `;` inside the quotes is the message's, not a new statement.
            (
                json!({"image": "curlimages/curl:8.10.1", "command": ["/bin/sh", "-c"], "args": [
                    "echo \"checkout-dev: the sync failed; team-checkout is notified\"\n"]}),
                Some(0),
                "checkout-dev: the sync failed; team-checkout is notified\n",
            ),
        ];
        for (container, code, log) in cases {
            let got = behaviour(&container);
            assert_eq!(got.exit_code, code, "{container}");
            assert_eq!(got.log, log, "{container}");
        }
    }
}
