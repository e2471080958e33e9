//! Reading an `argocd_app` check from the check file: only words Argo CD uses, one of `name`
//! or `parent_of`, a valid `message` regex, an `order` of at least two entries.

use regex::Regex;
use serde::Deserialize;

use super::{ArgocdAppSpec, EntrySpec, HookSpec};
use crate::yaml::one_or_many::OneOrMany;

const SYNC_WORDS: &[&str] = &["Synced", "OutOfSync", "Unknown"];
const HEALTH_WORDS: &[&str] = &[
    "Healthy",
    "Progressing",
    "Degraded",
    "Suspended",
    "Missing",
    "Unknown",
];
const PHASE_WORDS: &[&str] = &["Running", "Terminating", "Succeeded", "Failed", "Error"];
const SYNC_PHASES: &[&str] = &["PreSync", "Sync", "PostSync", "SyncFail"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAppSpec {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    parent_of: Option<String>,
    #[serde(default)]
    sync: Option<String>,
    #[serde(default)]
    health: Option<String>,
    #[serde(default)]
    revision_of: Option<String>,
    /// `phase: Failed` or `phase: [Failed, Error]`.
    #[serde(default)]
    phase: Option<OneOrMany<String>>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    hook: Option<HookSpec>,
    #[serde(default)]
    order: Vec<EntrySpec>,
}

fn one_of(field: &str, value: &str, words: &[&str]) -> Result<(), String> {
    if words.contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "`{field}: {value}` is not a value Argo CD uses; expected one of {}",
            words.join(", ")
        ))
    }
}

impl TryFrom<RawAppSpec> for ArgocdAppSpec {
    type Error = String;

    fn try_from(raw: RawAppSpec) -> Result<Self, Self::Error> {
        if let Some(sync) = &raw.sync {
            one_of("sync", sync, SYNC_WORDS)?;
        }
        if let Some(health) = &raw.health {
            one_of("health", health, HEALTH_WORDS)?;
        }
        let phase = raw.phase.map(OneOrMany::into_vec).unwrap_or_default();
        for p in &phase {
            one_of("phase", p, PHASE_WORDS)?;
        }
        if let Some(hook) = &raw.hook {
            if let Some(p) = &hook.phase {
                one_of("hook.phase", p, SYNC_PHASES)?;
            }
            if let Some(r) = &hook.result {
                one_of(
                    "hook.result",
                    r,
                    &["Running", "Succeeded", "Failed", "Error"],
                )?;
            }
        }
        for entry in &raw.order {
            if let Some(p) = &entry.phase {
                one_of("order[].phase", p, SYNC_PHASES)?;
            }
        }
        if raw.order.len() == 1 {
            return Err("`order` needs at least two entries: it says which came first".to_string());
        }
        let message = match raw.message {
            Some(pattern) => Some(
                Regex::new(&pattern)
                    .map_err(|e| format!("`message: {pattern}` is not a valid regex: {e}"))?,
            ),
            None => None,
        };
        let (name, parent_of) = match (raw.name, raw.parent_of) {
            (Some(name), None) => (name, false),
            (None, Some(child)) => (child, true),
            _ => {
                return Err(
                    "an argocd_app check needs exactly one of `name` (the Application) or `parent_of` (a child Application: its app of apps is judged)"
                        .to_string(),
                );
            }
        };
        Ok(ArgocdAppSpec {
            name,
            parent_of,
            sync: raw.sync,
            health: raw.health,
            revision_of: raw.revision_of,
            phase,
            message,
            hook: raw.hook,
            order: raw.order,
        })
    }
}
