//! The settings in force for one object of a sync: what the Application's
//! `spec.syncPolicy` and the object's own `argocd.argoproj.io/sync-options` annotation decide
//! together, read once, as Argo CD reads them. The plan shows these and every rule reads these, so
//! no rule can say "it has no `Replace=true`" of an object the plan shows replaced.
//!
//! Sources (`AC:` argoproj/argo-cd `37ee0097`, engine vendored under `gitops-engine/pkg/`):
//! `controller/sync.go:395-401` (the Application's options, each compared whole with `HasOption`:
//! no trimming, case matters); `sync/sync_context.go:1168` (`PruneLast`: the Application's or the
//! object's), `:1317-1322` (`ServerSideApply`: the Application's or the object's, and the
//! object's `ServerSideApply=false` wins), `:1434` (`Replace`: the Application's or the object's),
//! `:1764` (`Validate=false`); `controller/appcontroller.go` (retry: `retryCount < limit || limit
//! < 0`, automated with no `retry:` block gets `limit: 5`).
//!
//! Below `plan` and `rules`: it knows option words and YAML values, not objects.

use serde_yaml::Value;

use crate::yaml::value::untag;

/// Where a setting in force comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `spec.syncPolicy.syncOptions` of the Application: it holds for every object of its sync.
    Application,
    /// The object's own `argocd.argoproj.io/sync-options` annotation.
    Object,
}

impl Origin {
    /// Where it is written, for people.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Application => "the Application's syncOptions",
            Origin::Object => "its sync-options annotation",
        }
    }
}

/// The options in force for one object, each with where it comes from (`None`: not in force).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InForce {
    /// `Replace=true`: `kubectl replace`/`create` instead of apply (a changed Job is recreated).
    pub replace: Option<Origin>,
    /// `ServerSideApply=true`, unless the object says `ServerSideApply=false`.
    pub server_side_apply: Option<Origin>,
    /// `PruneLast=true`: pruned after the last Sync wave.
    pub prune_last: Option<Origin>,
    /// `Validate=false`: applied without schema validation.
    pub no_validate: Option<Origin>,
}

/// Comma-separated words of the annotation, trimmed (gitops-engine's `GetAnnotationCSVs`).
pub fn annotation_words(text: Option<&str>) -> Vec<&str> {
    text.map(|t| {
        t.split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

impl InForce {
    /// The options in force for an object whose annotation holds `object_words`, synced by an
    /// Application with `app_options` (empty when no Application is known).
    pub fn of(app_options: &[String], object_words: &[&str]) -> InForce {
        let pick = |option: &str| {
            if app_options.iter().any(|o| o == option) {
                Some(Origin::Application)
            } else if object_words.contains(&option) {
                Some(Origin::Object)
            } else {
                None
            }
        };
        InForce {
            replace: pick("Replace=true"),
            server_side_apply: if object_words.contains(&"ServerSideApply=false") {
                None
            } else {
                pick("ServerSideApply=true")
            },
            prune_last: pick("PruneLast=true"),
            no_validate: pick("Validate=false"),
        }
    }
}

/// How often Argo CD retries a failed sync of an Application.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retries {
    /// No retries: `limit: 0`, a block without `limit`, or a manual app with no block.
    None,
    /// Up to this many, written in the block.
    Limit(i64),
    /// Automated, no `retry:` block: Argo CD's default.
    Default,
    /// A negative limit.
    Unlimited,
    /// A limit that is not a whole number: the API server refuses the Application.
    Invalid,
}

/// Argo CD's default retry limit for an automated sync without a `retry:` block.
pub const DEFAULT_RETRY_LIMIT: i64 = 5;

impl Retries {
    /// From `spec.syncPolicy.retry` (`None` or null when there is no block) and whether the
    /// Application is automated.
    pub fn of(block: Option<&Value>, automated: bool) -> Retries {
        let Some(block) = block.map(untag).filter(|v| !v.is_null()) else {
            return if automated {
                Retries::Default
            } else {
                Retries::None
            };
        };
        match block.get("limit").map(untag) {
            None | Some(Value::Null) => Retries::None,
            Some(Value::Number(n)) => match n.as_i64() {
                Some(0) => Retries::None,
                Some(l) if l < 0 => Retries::Unlimited,
                Some(l) => Retries::Limit(l),
                None => Retries::Invalid,
            },
            Some(_) => Retries::Invalid,
        }
    }

    /// Whether a failed sync runs again.
    pub fn retried(self) -> bool {
        matches!(
            self,
            Retries::Limit(_) | Retries::Default | Retries::Unlimited
        )
    }

    /// What it means, for people.
    pub fn describe(self) -> String {
        match self {
            Retries::None => "a failed sync is not retried".to_string(),
            Retries::Limit(n) => {
                format!("a failed sync is retried up to {n} times, hooks included")
            }
            Retries::Default => format!(
                "automated with no `retry:` block: a failed sync is retried {DEFAULT_RETRY_LIMIT} times (Argo CD's default), hooks included"
            ),
            Retries::Unlimited => {
                "a failed sync is retried without end (negative limit), hooks included".to_string()
            }
            Retries::Invalid => {
                "`retry.limit` is not a whole number: the API server refuses the Application"
                    .to_string()
            }
        }
    }
}

/// Whether `spec.syncPolicy.automated` turns automated sync on (`automated.enabled: false`,
/// Argo CD 3.1+, keeps the block but turns it off).
pub fn automated(block: Option<&Value>) -> bool {
    match block.map(untag) {
        None | Some(Value::Null) => false,
        Some(block) => !matches!(block.get("enabled").map(untag), Some(Value::Bool(false))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_application_and_the_object_decide_together_as_the_engine_does() {
        let app = |o: &[&str]| o.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases: &[(&[&str], &[&str], InForce)] = &[
            (&[], &[], InForce::default()),
            (
                &["Replace=true"],
                &[],
                InForce {
                    replace: Some(Origin::Application),
                    ..InForce::default()
                },
            ),
            (
                &[],
                &["Replace=true", "PruneLast=true"],
                InForce {
                    replace: Some(Origin::Object),
                    prune_last: Some(Origin::Object),
                    ..InForce::default()
                },
            ),
            // The object's ServerSideApply=false wins over the Application's true.
            (
                &["ServerSideApply=true"],
                &["ServerSideApply=false"],
                InForce::default(),
            ),
            // HasOption: the Application's words are compared whole, untrimmed.
            (&[" Replace=true", "replace=true"], &[], InForce::default()),
            (
                &["Validate=false"],
                &[],
                InForce {
                    no_validate: Some(Origin::Application),
                    ..InForce::default()
                },
            ),
        ];
        for (a, o, expected) in cases {
            assert_eq!(InForce::of(&app(a), o), *expected, "{a:?} {o:?}");
        }
    }

    #[test]
    fn retries_are_read_as_the_controller_reads_them() {
        let yaml = |t: &str| serde_yaml::from_str::<Value>(t).unwrap_or(Value::Null);
        for (block, automated, expected) in [
            (None, true, Retries::Default),
            (None, false, Retries::None),
            (Some("null"), true, Retries::Default),
            (Some("{limit: 0}"), true, Retries::None),
            (Some("{refresh: true}"), true, Retries::None),
            (Some("{limit: 3}"), false, Retries::Limit(3)),
            (Some("{limit: -1}"), false, Retries::Unlimited),
            (Some("{limit: two}"), false, Retries::Invalid),
        ] {
            let value = block.map(yaml);
            assert_eq!(
                Retries::of(value.as_ref(), automated),
                expected,
                "{block:?}"
            );
        }
        assert!(automated(Some(&yaml("{}"))));
        assert!(!automated(Some(&yaml("{enabled: false}"))));
        assert!(!automated(None));
    }
}
