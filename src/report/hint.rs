//! The words of a hint: each typed part a check and the runner put together (`HintPart`) as the
//! learner reads it, and where it came from for `-v` and JSON's `hint_parts`. Every format takes
//! its words from here, so a part reads the same in the terminal, JSON, JUnit and TAP.

use serde::Serialize;

use crate::outcome::{CourseKey, HintPart};

/// A text a hint part carries, as a report words it: a learner's own text as it is; a class's
/// text shared by many learners with each one's own names as what they stand for
/// (`report::matrix`).
pub trait Words {
    /// The words a report shows.
    fn words(&self) -> String;
}

impl Words for String {
    fn words(&self) -> String {
        self.clone()
    }
}

/// What "waiting will not fix this" says before the check's way out.
const WAITING_WILL_NOT_FIX: &str = "waiting will not fix this";

/// One part as JSON's `hint_parts` carries it: `{kind, text, from}`, `kind` one of `first`,
/// `course`, `check` (what the check saw, its advice to wait included) or `cause`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WordedPart {
    pub kind: &'static str,
    pub text: String,
    pub from: String,
}

/// The whole hint as one text, the way every report shows it: each part on its own line, a
/// `first:` part as `first: …` with what follows it as `; then: …`. `None` without parts.
pub fn text<T: Words>(parts: &[HintPart<T>]) -> Option<String> {
    if parts.is_empty() {
        return None;
    }
    let mut first = Vec::new();
    let mut then = Vec::new();
    for part in parts {
        match part {
            HintPart::First { .. } => first.push(words(part)),
            _ => then.push(words(part)),
        }
    }
    let then = then.join("\n");
    Some(match (first.is_empty(), then.is_empty()) {
        (true, _) => then,
        (false, true) => format!("first: {}", first.join("; ")),
        (false, false) => format!("first: {}; then: {then}", first.join("; ")),
    })
}

/// The first line of the hint (a one-line report: `--watch`'s changes).
pub fn first_line(parts: &[HintPart]) -> Option<String> {
    text(parts).and_then(|t| t.lines().next().map(str::to_string))
}

/// Each part with its words and its source, for a check of kind `check_kind`.
pub fn worded(parts: &[HintPart], check_kind: &str) -> Vec<WordedPart> {
    parts
        .iter()
        .map(|part| WordedPart {
            kind: kind(part),
            text: words(part),
            from: from(part, check_kind),
        })
        .collect()
}

/// One part's words, without the `first:` the whole hint puts before the first parts.
fn words<T: Words>(part: &HintPart<T>) -> String {
    match part {
        HintPart::First {
            title, theirs: t, ..
        } => match text(t) {
            Some(theirs) => format!("{title}: {theirs}"),
            None => format!("{title} (see above)"),
        },
        HintPart::Course { text, .. } | HintPart::Check { text } | HintPart::Wait { text } => {
            text.words()
        }
        HintPart::WaitingWillNotFix { instead } => {
            format!("{WAITING_WILL_NOT_FIX}: {}", instead.words())
        }
        HintPart::Cause { cause } => cause.default_hint().unwrap_or_default().to_string(),
    }
}

/// The kind JSON names a part by (a contract: only ever added to), and what `-v` says a part
/// is: both named in one place, so a new part gets both.
fn kind_and_words(part: &HintPart) -> (&'static str, &'static str) {
    match part {
        HintPart::First { .. } => ("first", "first"),
        HintPart::Course { .. } => ("course", "the course's words"),
        HintPart::Check { .. } | HintPart::Wait { .. } | HintPart::WaitingWillNotFix { .. } => {
            ("check", "what the check saw")
        }
        HintPart::Cause { .. } => ("cause", "the cause's hint"),
    }
}

/// The kind JSON names a part by.
fn kind(part: &HintPart) -> &'static str {
    kind_and_words(part).0
}

/// What `-v` says a part is.
pub fn kind_in_words(part: &HintPart) -> &'static str {
    kind_and_words(part).1
}

/// Where a part came from: the course file and key, the check kind, the cause table, or the
/// check the gate waits for.
pub fn from(part: &HintPart, check_kind: &str) -> String {
    match part {
        HintPart::First { check, .. } => format!("after: {check}"),
        HintPart::Course { file, key, .. } => {
            let key = match key {
                CourseKey::ByCause(cause) => format!("hint.by_cause.{cause}"),
                CourseKey::Always => "hint".to_string(),
                CourseKey::Default => "hint.default".to_string(),
            };
            format!("{file}: {key}")
        }
        HintPart::Check { .. } | HintPart::Wait { .. } | HintPart::WaitingWillNotFix { .. } => {
            format!("the {check_kind} check")
        }
        HintPart::Cause { cause } => format!("the cause table: {}", cause.id()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{CauseId, HintLevel};

    fn course(text: &str) -> HintPart {
        HintPart::Course {
            text: text.to_string(),
            file: "step-5.yaml".to_string(),
            key: CourseKey::ByCause("app-degraded".to_string()),
            level: Some(HintLevel { level: 1, of: 2 }),
        }
    }

    fn check(text: &str) -> HintPart {
        HintPart::Check {
            text: text.to_string(),
        }
    }

    #[test]
    fn a_hint_reads_the_same_part_by_part_and_whole() {
        let gate = |theirs: Vec<HintPart>| HintPart::First {
            check: "pushed".to_string(),
            title: "the revert is pushed".to_string(),
            theirs,
        };
        let cases: Vec<(Vec<HintPart>, Option<&str>)> = vec![
            (vec![], None),
            (vec![check("git push")], Some("git push")),
            (
                vec![course("read the pod's log"), check("kubectl logs x")],
                Some("read the pod's log\nkubectl logs x"),
            ),
            (
                vec![gate(vec![])],
                Some("first: the revert is pushed (see above)"),
            ),
            (
                vec![gate(vec![check("git push")]), check("sync it")],
                Some("first: the revert is pushed: git push; then: sync it"),
            ),
            (
                vec![HintPart::WaitingWillNotFix {
                    instead: "fix it in git".to_string(),
                }],
                Some("waiting will not fix this: fix it in git"),
            ),
            (
                vec![HintPart::Cause {
                    cause: CauseId::EarlierStepMissing,
                }],
                Some("do the earlier step that makes that commit (and push it) first"),
            ),
        ];
        for (parts, want) in cases {
            assert_eq!(text(&parts).as_deref(), want, "{parts:?}");
            // JSON's parts say the same words as the whole, each from its source.
            let worded = worded(&parts, "git");
            assert_eq!(worded.len(), parts.len());
        }
    }

    #[test]
    fn each_part_names_where_it_came_from() {
        let parts = [
            course("x"),
            check("y"),
            HintPart::Wait {
                text: "wait".to_string(),
            },
            HintPart::Cause {
                cause: CauseId::EarlierStepMissing,
            },
            HintPart::First {
                check: "made".to_string(),
                title: "t".to_string(),
                theirs: vec![],
            },
        ];
        let froms: Vec<(&str, String)> = worded(&parts, "argocd_app")
            .into_iter()
            .map(|w| (w.kind, w.from))
            .collect();
        assert_eq!(
            froms,
            [
                (
                    "course",
                    "step-5.yaml: hint.by_cause.app-degraded".to_string()
                ),
                ("check", "the argocd_app check".to_string()),
                ("check", "the argocd_app check".to_string()),
                ("cause", "the cause table: earlier-step-missing".to_string()),
                ("first", "after: made".to_string()),
            ]
        );
    }
}
