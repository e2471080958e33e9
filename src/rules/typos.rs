//! Rules on annotations and Application settings Argo CD reads by exact spelling and silently
//! ignores when misspelled: delete policies, sync waves, sync options, and an Application made a
//! hook. (Unknown hook types are `hook-type-unknown` in `hooks.rs`.)
//!
//! Sources (`AC:` argoproj/argo-cd `37ee0097`, engine vendored under `gitops-engine/pkg/`):
//! `sync/common/types.go:25-55` (sync option words), `:126-153` (`NewHookType`,
//! `NewHookDeletePolicy`: exact, case-sensitive), `sync/hook/delete_policy.go:11-24` (an unknown
//! policy is dropped, `BeforeHookCreation` when none is left), `sync/syncwaves/waves.go:12-20`
//! (`strconv.Atoi`, else the Helm weight, else 0), `sync/resource/annotations.go:17-39` (options
//! compared whole after trimming), `pkg/apis/application/v1alpha1/types.go:1502` (`HasOption`: the
//! Application's options compared whole, untrimmed), `controller/sync.go:286-414` (the options
//! the Application reads).

use crate::plan::object::{HOOK, HOOK_DELETE_POLICY, SYNC_OPTIONS, SYNC_WAVE};
use crate::plan::{Object, Plan};
use crate::rules::{Finding, Rule, Severity};

/// `delete-policy-unknown`
pub const DELETE_POLICY: Rule = Rule {
    id: "delete-policy-unknown",
    severity: Severity::Warning,
    about: "a hook delete policy Argo CD does not know (it is ignored; BeforeHookCreation applies)",
};

/// `sync-wave-not-integer`
pub const WAVE: Rule = Rule {
    id: "sync-wave-not-integer",
    severity: Severity::Warning,
    about: "a sync wave that is not a whole number (Argo CD uses wave 0, or the Helm hook weight)",
};

/// `sync-option-unknown`
pub const SYNC_OPTION: Rule = Rule {
    id: "sync-option-unknown",
    severity: Severity::Warning,
    about: "a sync option with a name, value or case Argo CD does not know (it is ignored)",
};

/// `application-as-hook`
pub const APP_HOOK: Rule = Rule {
    id: "application-as-hook",
    severity: Severity::Warning,
    about: "an Application made a PreSync (or other) hook: deleted and created again on every sync",
};

/// Every option Argo CD acts on, and where: `true` for the resource annotation, `false` for the
/// Application only.
const OPTIONS: &[(&str, &[&str], bool)] = &[
    ("Validate", &["false"], true),
    ("SkipDryRunOnMissingResource", &["true"], true),
    ("Prune", &["false", "confirm"], true),
    ("Delete", &["false", "confirm"], true),
    ("PruneLast", &["true"], true),
    ("Replace", &["true", "false"], true),
    ("Force", &["true"], true),
    ("ServerSideApply", &["true", "false"], true),
    ("ApplyOutOfSyncOnly", &["true", "false"], false),
    ("CreateNamespace", &["true"], false),
    (
        "PrunePropagationPolicy",
        &["foreground", "background", "orphan"],
        false,
    ),
    ("RespectIgnoreDifferences", &["true"], false),
    ("FailOnSharedResource", &["true"], false),
    ("ClientSideApplyMigration", &["true", "false"], false),
];

const DELETE_POLICIES: &[&str] = &["BeforeHookCreation", "HookSucceeded", "HookFailed"];

/// Comma-separated words, trimmed (gitops-engine's `GetAnnotationCSVs`).
fn words(text: &str) -> Vec<&str> {
    text.split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect()
}

/// What is wrong with one option word, and the spelling Argo CD wants; `None` when it is right.
/// `on_resource`: written in `argocd.argoproj.io/sync-options` rather than the Application.
pub fn option_problem(word: &str, on_resource: bool) -> Option<(String, String)> {
    let (name, value) = word.split_once('=').unwrap_or((word, ""));
    let known = OPTIONS.iter().find(|(n, _, _)| *n == name);
    let Some((name, values, resource)) = known.or_else(|| {
        OPTIONS
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(name.trim()))
    }) else {
        let close = OPTIONS
            .iter()
            .min_by_key(|(n, _, _)| distance(&n.to_ascii_lowercase(), &name.to_ascii_lowercase()))
            .filter(|(n, _, _)| distance(&n.to_ascii_lowercase(), &name.to_ascii_lowercase()) <= 3);
        let fix = match close {
            Some((n, vs, _)) => format!("did you mean `{n}={}`?", vs[0]),
            None => format!(
                "the options are {}",
                OPTIONS
                    .iter()
                    .map(|(n, _, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Some((format!("`{word}` is not a sync option Argo CD knows"), fix));
    };
    let right_value = values.iter().find(|v| **v == value);
    let spelled = format!(
        "{name}={}",
        right_value
            .copied()
            .or_else(|| values
                .iter()
                .copied()
                .find(|v| v.eq_ignore_ascii_case(value.trim())))
            .unwrap_or(values[0])
    );
    if word != spelled {
        let why = if known.is_none() {
            format!("`{word}`: Argo CD compares option names exactly, case included")
        } else if values.iter().any(|v| v.eq_ignore_ascii_case(value.trim())) {
            format!("`{word}`: Argo CD compares the value exactly, case included")
        } else {
            format!(
                "`{word}`: {name} takes {}",
                values
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        };
        return Some((why, format!("write `{spelled}`")));
    }
    if on_resource && !resource {
        return Some((
            format!("`{word}` is an Application sync option; on a resource Argo CD ignores it"),
            "move it to the Application's `spec.syncPolicy.syncOptions`".to_string(),
        ));
    }
    None
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            previous = current;
        }
    }
    row[b.len()]
}

/// Go's `strconv.Atoi`, as the wave is read.
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && text.parse::<i64>().is_ok()
}

fn check_object(o: &Object, findings: &mut Vec<Finding>) {
    if let Some(text) = o.annotation(HOOK_DELETE_POLICY) {
        for word in words(text) {
            if DELETE_POLICIES.contains(&word) {
                continue;
            }
            let close = DELETE_POLICIES.iter().find(|p| {
                p.eq_ignore_ascii_case(word)
                    || distance(&p.to_ascii_lowercase(), &word.to_ascii_lowercase()) <= 3
            });
            findings.push(DELETE_POLICY.found(
                o,
                format!(
                    "{}: `{HOOK_DELETE_POLICY}: {text}` names `{word}`, which Argo CD does not know: it drops the word, and with no policy left it uses BeforeHookCreation, so the hook is kept (or deleted) other than you meant",
                    o.reference()
                ),
                match close {
                    Some(p) => format!("write `{p}` (case matters)"),
                    None => format!("use {} (case matters)", DELETE_POLICIES.join(", ")),
                },
            ));
        }
    }
    if let Some(text) = o.annotation(SYNC_WAVE)
        && !is_integer(text)
    {
        findings.push(WAVE.found(
            o,
            format!(
                "{}: `{SYNC_WAVE}: \"{text}\"` is not a whole number, so Argo CD ignores it and puts the object in wave {} (its Helm hook weight, else 0)",
                o.reference(),
                o.wave()
            ),
            format!(
                "write a whole number without spaces, e.g. `{SYNC_WAVE}: \"{}\"`",
                text.trim().parse::<f64>().map(|f| f.round() as i64).unwrap_or(0)
            ),
        ));
    }
    if let Some(text) = o.annotation(SYNC_OPTIONS) {
        for word in words(text) {
            if let Some((why, fix)) = option_problem(word, true) {
                findings.push(SYNC_OPTION.found(
                    o,
                    format!("{}: {why}; it has no effect", o.reference()),
                    fix,
                ));
            }
        }
    }
    if o.group() == "argoproj.io" && o.kind == "Application" && o.is_hook() {
        findings.push(APP_HOOK.found(
            o,
            format!(
                "{} is a hook ({}): Argo CD deletes it and creates it again on every sync (BeforeHookCreation), and an Application that is deleted may take everything it deployed with it; Argo CD also does not wait for its health",
                o.reference(),
                o.annotation(HOOK).unwrap_or_default()
            ),
            format!("drop `{HOOK}` and order the Applications with `{SYNC_WAVE}` instead"),
        ));
    }
}

fn check_app(app: &Object, findings: &mut Vec<Finding>) {
    if let Some(serde_yaml::Value::Sequence(list)) = app.get(&["spec", "syncPolicy", "syncOptions"])
    {
        for word in list.iter().filter_map(|v| v.as_str()) {
            if let Some((why, fix)) = option_problem(word, false) {
                findings.push(SYNC_OPTION.found(
                    app,
                    format!(
                        "{}: `spec.syncPolicy.syncOptions` holds {why}; it has no effect",
                        app.reference()
                    ),
                    fix,
                ));
            }
        }
    }
}

/// Check every object of the plan, and the Application it is for.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    let own = plan.app.as_ref().map(|a| &a.object);
    for o in plan.objects.iter().chain(own) {
        if own.is_some_and(|a| std::ptr::eq(a, o)) {
            // A self-managed Application is among the objects and checked there.
            if !plan
                .objects
                .iter()
                .any(|p| p.name == o.name && p.source == o.source)
            {
                check_object(o, findings);
                check_app(o, findings);
            }
            continue;
        }
        check_object(o, findings);
        if o.group() == "argoproj.io" && o.kind == "Application" {
            check_app(o, findings);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_words_are_checked_by_name_value_case_and_place() {
        let cases: &[(&str, bool, Option<&str>)] = &[
            ("PruneLast=true", true, None),
            ("CreateNamespace=true", false, None),
            ("Prune=confirm", true, None),
            ("PrunePropagationPolicy=orphan", false, None),
            ("prunelast=true", true, Some("write `PruneLast=true`")),
            ("PruneLast=True", true, Some("write `PruneLast=true`")),
            ("PruneLast=yes", true, Some("write `PruneLast=true`")),
            (
                "CreateNamespace=true",
                true,
                Some("move it to the Application's `spec.syncPolicy.syncOptions`"),
            ),
            (
                "ServerSideApplied=true",
                false,
                Some("did you mean `ServerSideApply=true`?"),
            ),
            ("Replace", true, Some("write `Replace=true`")),
        ];
        for (word, on_resource, fix) in cases {
            let found = option_problem(word, *on_resource).map(|(_, f)| f);
            assert_eq!(found.as_deref(), *fix, "{word}");
        }
    }

    #[test]
    fn waves_are_integers_as_go_reads_them() {
        for (text, ok) in [
            ("1", true),
            ("-2", true),
            ("+3", true),
            (" 1", false),
            ("1.5", false),
            ("one", false),
            ("", false),
        ] {
            assert_eq!(is_integer(text), ok, "{text:?}");
        }
    }
}
