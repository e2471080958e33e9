//! The server's own record of what a client asked: kube-apiserver's audit log, for the users of
//! one group only ([`GROUP`]). A test reads it to prove how labcheck talked to the real server
//! (a watch the server ended, the next one and where it resumed, no read between) without
//! trusting labcheck's account of itself.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The group whose members' requests the server audits.
pub const GROUP: &str = "labcheck:audited";

/// The audit policy: every request of [`GROUP`] at `Metadata` (the URI, verb, user, status),
/// nothing of anyone else.
pub fn policy() -> String {
    format!(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n\
         - level: Metadata\n  userGroups: [\"{GROUP}\"]\n- level: None\n"
    )
}

/// Let [`GROUP`] do anything, as `system:masters` may (a client certificate names one group:
/// rcgen keeps one value per subject attribute).
pub async fn grant_cluster_admin(admin: &kube::Client) -> Result<(), String> {
    let binding = serde_json::json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "labcheck-audited"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": GROUP}],
    });
    let path = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
    crate::api::expect(admin, "POST", path, Some(&binding), &[201]).await?;
    Ok(())
}

/// One audit event, the fields the tests read.
#[derive(Debug, Clone)]
pub struct Event {
    pub id: String,
    /// `ResponseStarted` (a long-running request's headers sent), `ResponseComplete`.
    pub stage: String,
    pub verb: String,
    pub user: String,
    /// The path without the query.
    pub path: String,
    pub query: String,
    pub code: u64,
}

impl Event {
    fn parse(line: &str) -> Option<Event> {
        let v: Value = serde_json::from_str(line).ok()?;
        let uri = v["requestURI"].as_str()?;
        let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
        Some(Event {
            id: v["auditID"].as_str()?.to_string(),
            stage: v["stage"].as_str()?.to_string(),
            verb: v["verb"].as_str()?.to_string(),
            user: v.pointer("/user/username")?.as_str()?.to_string(),
            path: path.to_string(),
            query: query.to_string(),
            code: v
                .pointer("/responseStatus/code")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        })
    }

    /// A query parameter's value (as sent, not decoded).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .split('&')
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
    }
}

/// The audit log, read from a point on.
pub struct Audit<'a> {
    file: &'a Path,
    user: String,
}

impl<'a> Audit<'a> {
    /// `user`'s events in `file` (the plane's audit log).
    pub fn of(file: &'a Path, user: &str) -> Audit<'a> {
        Audit {
            file,
            user: user.to_string(),
        }
    }

    /// Every event of the user so far, in the order the server wrote them.
    pub fn events(&self) -> Vec<Event> {
        std::fs::read_to_string(self.file)
            .unwrap_or_default()
            .lines()
            .filter_map(Event::parse)
            .filter(|e| e.user == self.user)
            .collect()
    }

    /// Read the log again until `found` finds something in it, or panic naming `what` after
    /// `limit`. The server writes each event as it happens (`--audit-log-mode=blocking`), so
    /// this waits on the server's own record, not on time.
    pub fn wait_for<T>(
        &self,
        what: &str,
        limit: Duration,
        found: impl Fn(&[Event]) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + limit;
        loop {
            let events = self.events();
            if let Some(t) = found(&events) {
                return t;
            }
            assert!(
                Instant::now() < deadline,
                "the server's audit log never showed {what} within {limit:?}: {:#?}",
                events
                    .iter()
                    .map(|e| format!("{} {} {}?{} {}", e.stage, e.verb, e.path, e.query, e.code))
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A watch of `collection` that the server ended (its `ResponseComplete` after its
/// `ResponseStarted`), and the next watch of it the client opened after that end: their
/// indexes in `events` (the end, the next watch's start).
pub fn ended_and_resumed(events: &[Event], collection: &str) -> Option<(usize, usize)> {
    let is_watch = |e: &Event| e.verb == "watch" && e.path == collection;
    let end = events
        .iter()
        .position(|e| is_watch(e) && e.stage == "ResponseComplete")?;
    let next = events[end + 1..]
        .iter()
        .position(|e| is_watch(e) && e.stage == "ResponseStarted" && e.id != events[end].id)?;
    Some((end, end + 1 + next))
}
