//! One Kubernetes object from a manifest, and what its annotations tell Argo CD: hook types,
//! delete policies, sync wave and sync options, read as gitops-engine reads them
//! (`pkg/sync/hook/`, `pkg/sync/hook/helm/`, `pkg/sync/syncwaves/`).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_yaml::Value;

/// `argocd.argoproj.io/hook`
pub const HOOK: &str = "argocd.argoproj.io/hook";
/// `argocd.argoproj.io/hook-delete-policy`
pub const HOOK_DELETE_POLICY: &str = "argocd.argoproj.io/hook-delete-policy";
/// `argocd.argoproj.io/sync-wave`
pub const SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// `argocd.argoproj.io/sync-options`
pub const SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
/// `helm.sh/hook`
pub const HELM_HOOK: &str = "helm.sh/hook";
/// `helm.sh/hook-weight`
pub const HELM_HOOK_WEIGHT: &str = "helm.sh/hook-weight";
/// `helm.sh/hook-delete-policy`
pub const HELM_HOOK_DELETE_POLICY: &str = "helm.sh/hook-delete-policy";

/// Where an object was written: a file (as shown to the user) and the line its document starts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A sync phase of Argo CD, in the order gitops-engine sorts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Phase {
    PreSync,
    Sync,
    PostSync,
    SyncFail,
}

impl Phase {
    /// The word Argo CD uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::PreSync => "PreSync",
            Phase::Sync => "Sync",
            Phase::PostSync => "PostSync",
            Phase::SyncFail => "SyncFail",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A hook type gitops-engine accepts in `argocd.argoproj.io/hook` (or maps a Helm hook to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HookType {
    Phase(Phase),
    Skip,
}

/// A hook that Argo CD runs only when the Application is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum DeletionHook {
    PreDelete,
    PostDelete,
}

impl DeletionHook {
    /// The word Argo CD uses.
    pub fn as_str(self) -> &'static str {
        match self {
            DeletionHook::PreDelete => "PreDelete",
            DeletionHook::PostDelete => "PostDelete",
        }
    }
}

/// When Argo CD deletes a hook object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum DeletePolicy {
    BeforeHookCreation,
    HookSucceeded,
    HookFailed,
}

impl DeletePolicy {
    /// The word Argo CD uses.
    pub fn as_str(self) -> &'static str {
        match self {
            DeletePolicy::BeforeHookCreation => "BeforeHookCreation",
            DeletePolicy::HookSucceeded => "HookSucceeded",
            DeletePolicy::HookFailed => "HookFailed",
        }
    }
}

/// A Kubernetes object read from a manifest.
#[derive(Debug, Clone)]
pub struct Object {
    pub source: Source,
    pub api_version: String,
    pub kind: String,
    /// `metadata.name`, or `metadata.generateName` when the object has no name.
    pub name: String,
    /// Named only by `generateName`: Argo CD appends the revision, phase and time.
    pub generate_name: bool,
    /// `metadata.namespace` (or the destination namespace given to the plan).
    pub namespace: String,
    pub annotations: BTreeMap<String, String>,
    /// The whole object, for rules that look inside it.
    pub body: Value,
}

/// Comma-separated words of an annotation, trimmed, empty ones dropped, each once
/// (gitops-engine's `GetAnnotationCSVs`).
fn csv(text: Option<&String>) -> Vec<&str> {
    let mut words: Vec<&str> = Vec::new();
    for word in text.map(|t| t.split(',')).into_iter().flatten() {
        let word = word.trim();
        if !word.is_empty() && !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// The values a table gives the words of an annotation, in the annotation's order; words the
/// table does not hold are passed over (gitops-engine ignores them).
fn words_as<T: Copy>(text: Option<&String>, table: &[(&str, T)]) -> Vec<T> {
    csv(text)
        .into_iter()
        .filter_map(|word| table.iter().find(|(w, _)| *w == word).map(|(_, v)| *v))
        .collect()
}

/// The hook types of `argocd.argoproj.io/hook`'s words.
const HOOK_TYPES: &[(&str, HookType)] = &[
    ("PreSync", HookType::Phase(Phase::PreSync)),
    ("Sync", HookType::Phase(Phase::Sync)),
    ("PostSync", HookType::Phase(Phase::PostSync)),
    ("SyncFail", HookType::Phase(Phase::SyncFail)),
    ("Skip", HookType::Skip),
];

/// The hook types gitops-engine maps `helm.sh/hook`'s words to.
const HELM_HOOK_TYPES: &[(&str, HookType)] = &[
    ("pre-install", HookType::Phase(Phase::PreSync)),
    ("pre-upgrade", HookType::Phase(Phase::PreSync)),
    ("post-install", HookType::Phase(Phase::PostSync)),
    ("post-upgrade", HookType::Phase(Phase::PostSync)),
];

/// The deletion hooks of `argocd.argoproj.io/hook`'s words.
const DELETION_HOOKS: &[(&str, DeletionHook)] = &[
    ("PreDelete", DeletionHook::PreDelete),
    ("PostDelete", DeletionHook::PostDelete),
];

/// The deletion hooks of `helm.sh/hook`'s words.
const HELM_DELETION_HOOKS: &[(&str, DeletionHook)] = &[
    ("pre-delete", DeletionHook::PreDelete),
    ("post-delete", DeletionHook::PostDelete),
];

/// The delete policies of `argocd.argoproj.io/hook-delete-policy`'s words.
const DELETE_POLICIES: &[(&str, DeletePolicy)] = &[
    ("BeforeHookCreation", DeletePolicy::BeforeHookCreation),
    ("HookSucceeded", DeletePolicy::HookSucceeded),
    ("HookFailed", DeletePolicy::HookFailed),
];

/// The delete policies of `helm.sh/hook-delete-policy`'s words.
const HELM_DELETE_POLICIES: &[(&str, DeletePolicy)] = &[
    ("before-hook-creation", DeletePolicy::BeforeHookCreation),
    ("hook-succeeded", DeletePolicy::HookSucceeded),
    ("hook-failed", DeletePolicy::HookFailed),
];

/// Go's `strconv.Atoi`: an optional sign and decimal digits, within 64 bits.
fn atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl Object {
    /// The API group (`batch` for `batch/v1`, empty for core `v1`).
    pub fn group(&self) -> &str {
        match self.api_version.rsplit_once('/') {
            Some((group, _)) => group,
            None => "",
        }
    }

    /// `Kind/name`, how the plan and the rules name an object.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }

    /// An annotation's value.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.get(key).map(String::as_str)
    }

    /// The hook types gitops-engine reads: the valid words of `argocd.argoproj.io/hook`, else
    /// those of `helm.sh/hook` translated (`pre-install`/`pre-upgrade` → PreSync,
    /// `post-install`/`post-upgrade` → PostSync).
    pub fn hook_types(&self) -> Vec<HookType> {
        let types = words_as(self.annotations.get(HOOK), HOOK_TYPES);
        if types.is_empty() {
            return words_as(self.annotations.get(HELM_HOOK), HELM_HOOK_TYPES);
        }
        types
    }

    /// `Skip` is the only hook type: never applied, never compared.
    pub fn skipped(&self) -> bool {
        let types = self.hook_types();
        types.contains(&HookType::Skip) && types.len() == 1
    }

    /// A hook (not a plain resource): it has an Argo CD hook annotation other than a lone `Skip`,
    /// or a Helm hook annotation other than `crd-install`.
    pub fn is_hook(&self) -> bool {
        if self.annotations.contains_key(HOOK) {
            return !self.skipped();
        }
        self.annotations
            .get(HELM_HOOK)
            .is_some_and(|v| v != "crd-install")
    }

    /// The sync phases the object runs in: one task per phase (gitops-engine's `syncPhases`).
    pub fn sync_phases(&self) -> Vec<Phase> {
        if self.skipped() {
            return Vec::new();
        }
        if !self.is_hook() {
            return vec![Phase::Sync];
        }
        let mut phases: Vec<Phase> = self
            .hook_types()
            .into_iter()
            .filter_map(|t| match t {
                HookType::Phase(p) => Some(p),
                HookType::Skip => None,
            })
            .collect();
        phases.sort();
        phases.dedup();
        phases
    }

    /// Hooks Argo CD runs only when the Application is deleted (`PreDelete`, `PostDelete`, or Helm's
    /// `pre-delete`/`post-delete`).
    pub fn deletion_hooks(&self) -> Vec<DeletionHook> {
        let mut found = words_as(self.annotations.get(HOOK), DELETION_HOOKS);
        if !self.annotations.contains_key(HOOK) || found.is_empty() {
            found.extend(words_as(
                self.annotations.get(HELM_HOOK),
                HELM_DELETION_HOOKS,
            ));
        }
        found.sort();
        found.dedup();
        found
    }

    /// Hook-type words Argo CD does not know (a typo such as `Presync`), from either annotation.
    pub fn unknown_hook_words(&self) -> Vec<String> {
        let argo = csv(self.annotations.get(HOOK)).into_iter().filter(|w| {
            !matches!(
                *w,
                "PreSync" | "Sync" | "PostSync" | "SyncFail" | "Skip" | "PreDelete" | "PostDelete"
            )
        });
        let helm = csv(self.annotations.get(HELM_HOOK))
            .into_iter()
            .filter(|w| {
                !matches!(
                    *w,
                    "pre-install"
                        | "pre-upgrade"
                        | "post-install"
                        | "post-upgrade"
                        | "pre-delete"
                        | "post-delete"
                        | "pre-rollback"
                        | "post-rollback"
                        | "test"
                        | "test-success"
                        | "test-failure"
                        | "crd-install"
                )
            });
        argo.chain(helm).map(str::to_string).collect()
    }

    /// Delete policies of a hook: Argo CD's and Helm's together; `BeforeHookCreation` when none.
    pub fn delete_policies(&self) -> Vec<DeletePolicy> {
        let mut policies = words_as(self.annotations.get(HOOK_DELETE_POLICY), DELETE_POLICIES);
        policies.extend(words_as(
            self.annotations.get(HELM_HOOK_DELETE_POLICY),
            HELM_DELETE_POLICIES,
        ));
        policies.sort();
        policies.dedup();
        if policies.is_empty() {
            policies.push(DeletePolicy::BeforeHookCreation);
        }
        policies
    }

    /// The sync wave: `argocd.argoproj.io/sync-wave` if it is an integer, else
    /// `helm.sh/hook-weight` if it is one, else 0.
    pub fn wave(&self) -> i64 {
        self.annotation(SYNC_WAVE)
            .and_then(atoi)
            .or_else(|| self.annotation(HELM_HOOK_WEIGHT).and_then(atoi))
            .unwrap_or(0)
    }

    /// Whether `argocd.argoproj.io/sync-options` holds `option` (e.g. `PruneLast=true`).
    pub fn has_sync_option(&self, option: &str) -> bool {
        self.sync_option_words().contains(&option)
    }

    /// The words of its `argocd.argoproj.io/sync-options` annotation, trimmed. What is in force
    /// for it also depends on the Application: read that with `Plan::in_force`.
    pub fn sync_option_words(&self) -> Vec<&str> {
        csv(self.annotations.get(SYNC_OPTIONS))
    }

    /// A value inside the object, by keys (no list indexes).
    pub fn get(&self, keys: &[&str]) -> Option<&Value> {
        let mut at = &self.body;
        for key in keys {
            at = untag(at).get(*key)?;
        }
        Some(untag(at))
    }
}

/// Rules and the loader take tags off with the one `untag` of the yaml module.
pub use crate::yaml::value::untag;

#[cfg(test)]
mod tests {
    use super::*;

    fn with(annotations: &[(&str, &str)]) -> Object {
        Object {
            source: Source {
                file: "t.yaml".into(),
                line: 1,
            },
            api_version: "batch/v1".into(),
            kind: "Job".into(),
            name: "j".into(),
            generate_name: false,
            namespace: String::new(),
            annotations: annotations
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: Value::Null,
        }
    }

    #[test]
    fn a_wave_is_the_sync_wave_else_the_helm_weight_else_zero() {
        assert_eq!(with(&[(SYNC_WAVE, "-1")]).wave(), -1);
        assert_eq!(with(&[(SYNC_WAVE, "+2")]).wave(), 2);
        assert_eq!(with(&[(HELM_HOOK_WEIGHT, "5")]).wave(), 5);
        assert_eq!(
            with(&[(SYNC_WAVE, "one"), (HELM_HOOK_WEIGHT, "5")]).wave(),
            5
        );
        assert_eq!(with(&[(SYNC_WAVE, " 1")]).wave(), 0);
        assert_eq!(with(&[]).wave(), 0);
    }

    #[test]
    fn a_hook_with_two_types_runs_in_two_phases() {
        let o = with(&[(HOOK, "PostSync, PreSync,PreSync")]);
        assert!(o.is_hook());
        assert_eq!(o.sync_phases(), vec![Phase::PreSync, Phase::PostSync]);
    }

    #[test]
    fn skip_alone_is_never_applied_but_skip_with_a_phase_is_a_hook() {
        assert!(with(&[(HOOK, "Skip")]).sync_phases().is_empty());
        assert!(!with(&[(HOOK, "Skip")]).is_hook());
        assert_eq!(
            with(&[(HOOK, "Skip,PreSync")]).sync_phases(),
            vec![Phase::PreSync]
        );
    }

    #[test]
    fn helm_hooks_translate_and_crd_install_is_not_a_hook() {
        let o = with(&[(HELM_HOOK, "pre-install,pre-upgrade")]);
        assert_eq!(o.sync_phases(), vec![Phase::PreSync]);
        assert_eq!(
            with(&[(HELM_HOOK, "post-upgrade")]).sync_phases(),
            vec![Phase::PostSync]
        );
        let crd = with(&[(HELM_HOOK, "crd-install")]);
        assert!(!crd.is_hook());
        assert_eq!(crd.sync_phases(), vec![Phase::Sync]);
    }

    #[test]
    fn an_argo_hook_annotation_wins_over_helms() {
        let o = with(&[(HOOK, "PostSync"), (HELM_HOOK, "pre-install")]);
        assert_eq!(o.sync_phases(), vec![Phase::PostSync]);
    }

    #[test]
    fn an_unknown_hook_word_makes_a_hook_that_never_runs() {
        let o = with(&[(HOOK, "Presync")]);
        assert!(o.is_hook());
        assert!(o.sync_phases().is_empty());
        assert_eq!(o.unknown_hook_words(), vec!["Presync"]);
    }

    #[test]
    fn deletion_hooks_are_not_sync_phases() {
        let o = with(&[(HOOK, "PreDelete")]);
        assert!(o.sync_phases().is_empty());
        assert_eq!(o.deletion_hooks(), vec![DeletionHook::PreDelete]);
        let helm = with(&[(HELM_HOOK, "post-delete")]);
        assert_eq!(helm.deletion_hooks(), vec![DeletionHook::PostDelete]);
    }

    #[test]
    fn delete_policy_defaults_to_before_hook_creation_and_merges_helms() {
        assert_eq!(
            with(&[]).delete_policies(),
            vec![DeletePolicy::BeforeHookCreation]
        );
        assert_eq!(
            with(&[
                (HOOK_DELETE_POLICY, "HookSucceeded"),
                (HELM_HOOK_DELETE_POLICY, "hook-failed")
            ])
            .delete_policies(),
            vec![DeletePolicy::HookSucceeded, DeletePolicy::HookFailed]
        );
    }
}
