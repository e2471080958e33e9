//! `hint:` of a check, as a course author writes it: one text, a list of levels (a nudge, where
//! to look, the exact command), or a map keyed by cause:
//!
//! ```yaml
//! hint:
//!   default: "…"                      # where the check has no hint of its own
//!   default_for: [not-seen-yet]       # the causes `default` fits (or `all`)
//!   by_cause:
//!     not-seen-yet: "…"               # a text, or a list of levels
//!     app-degraded: ["…", "…"]
//!     hook-result:checkout-migrate: "…"   # one object of a cause
//! ```
//!
//! A cause key must be declared in the cause table (`docs/causes.md`); a path in a hint is written
//! `${work}/checkout-config` and comes out as the learner's own, shell-quoted. `default_for:`
//! declares which causes `default` is true of: it is shown for no other, and `course lint`
//! refuses a check whose kind can fail with a cause that gets no hint at all.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::causes::{Cause, CauseId};

/// The course's words for a failed check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CourseHint {
    /// `hint: TEXT` or `hint: [levels]`, or `default:` of the map form.
    pub default: Vec<String>,
    /// The map form was written: `default` then is only for a failure the check has no hint of
    /// its own for; in the plain form the text fits every cause and shows above the check's.
    pub keyed: bool,
    /// `by_cause:` entries, in the file's order.
    pub by_cause: Vec<CauseHint>,
    /// `default_for:`: the causes the author declared `default` fits; `None` when not declared
    /// (then it shows for any cause, and `course lint` refuses it where the check can give more
    /// than the course keys).
    pub default_for: Option<DefaultFor>,
}

/// `default_for:` of a keyed hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultFor {
    /// `default_for: all`: the author says `default` is true of every cause the check can give.
    All,
    /// The causes (or objects of a cause) it fits, in the file's order.
    Causes(Vec<CauseKey>),
}

/// A cause as a course file names it: an id, optionally about one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CauseKey {
    /// As written (`sync-phase:Failed`).
    pub key: String,
    pub cause: CauseId,
    /// Only this object of the cause, when the key names one.
    pub object: Option<String>,
}

impl CauseKey {
    /// Whether `cause` (as a check gave it) is the one this key names.
    pub fn matches(&self, cause: &Cause) -> bool {
        cause.is_about(self.cause, self.object.as_deref())
    }

    /// Whether this key covers every state of a cause `id` about `object` (`None`: any object).
    pub fn covers(&self, id: CauseId, object: Option<&str>) -> bool {
        self.cause == id
            && match (&self.object, object) {
                (None, _) => true,
                (Some(mine), Some(theirs)) => mine == theirs,
                (Some(_), None) => false,
            }
    }

    /// Parse a key as a course file writes it; the error says what is wrong with it.
    fn parse(key: &str) -> Result<CauseKey, String> {
        let (id, object) = match key.split_once(':') {
            Some((id, object)) => (id, Some(object.to_string())),
            None => (key, None),
        };
        let Some(cause) = CauseId::from_id(id) else {
            return Err(format!(
                "`{id}` is not a cause labcheck gives{}; the causes are listed in docs/causes.md",
                crate::course::suggest::did_you_mean(id, CauseId::ALL.iter().map(|c| c.id()))
            ));
        };
        if object.as_deref().is_some_and(str::is_empty) {
            return Err(format!(
                "`{key}` names no object after the `:`; write `{id}` for every object"
            ));
        }
        Ok(CauseKey {
            key: key.to_string(),
            cause,
            object,
        })
    }
}

impl DefaultFor {
    /// Whether the author declared `default` fits `cause` (a failure with no cause: only `all`).
    pub fn admits(&self, cause: Option<&Cause>) -> bool {
        match (self, cause) {
            (DefaultFor::All, _) => true,
            (DefaultFor::Causes(keys), Some(cause)) => keys.iter().any(|k| k.matches(cause)),
            (DefaultFor::Causes(_), None) => false,
        }
    }
}

/// The course's text for one cause (or one object of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CauseHint {
    /// The key as written (`hook-result:checkout-migrate`), for messages and `-v`.
    pub key: String,
    pub cause: CauseId,
    /// Only this object of the cause, when the key names one.
    pub object: Option<String>,
    pub levels: Vec<String>,
}

/// Which of the course's texts fits a failure, and how the runner shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CourseText<'a> {
    /// `by_cause:` has text for this cause: shown, with the check's own hint below it.
    ForCause { key: &'a str, levels: &'a [String] },
    /// The plain form: one text for every cause, shown above the check's own hint.
    Always(&'a [String]),
    /// `default:` of the map form: shown only where the check has no hint of its own.
    Fallback(&'a [String]),
}

impl<'a> CourseText<'a> {
    /// Its levels.
    pub fn levels(self) -> &'a [String] {
        match self {
            CourseText::ForCause { levels, .. } => levels,
            CourseText::Always(levels) | CourseText::Fallback(levels) => levels,
        }
    }
}

impl CourseHint {
    /// The course's text for a failure with `cause`: an entry for that object of the cause,
    /// else for the cause, else the default (if any).
    pub fn for_cause(&self, cause: Option<&Cause>) -> Option<CourseText<'_>> {
        if let Some(cause) = cause {
            let of_cause = self.by_cause.iter().filter(|h| cause.is(h.cause));
            let exact = of_cause
                .clone()
                .find(|h| h.object.is_some() && h.object.as_deref() == cause.object());
            if let Some(entry) = exact.or_else(|| of_cause.clone().find(|h| h.object.is_none())) {
                return Some(CourseText::ForCause {
                    key: &entry.key,
                    levels: &entry.levels,
                });
            }
        }
        let declared_unfit = self.default_for.as_ref().is_some_and(|d| !d.admits(cause));
        if self.default.is_empty() || declared_unfit {
            None
        } else if self.keyed {
            Some(CourseText::Fallback(&self.default))
        } else {
            Some(CourseText::Always(&self.default))
        }
    }

    /// Every text of the hint (each level of each entry), for checks over the course's words.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.default
            .iter()
            .chain(self.by_cause.iter().flat_map(|h| &h.levels))
            .map(String::as_str)
    }

    /// The most levels any of its texts has.
    pub fn most_levels(&self) -> usize {
        self.by_cause
            .iter()
            .map(|h| h.levels.len())
            .chain([self.default.len()])
            .max()
            .unwrap_or(0)
    }
}

/// A text or a list of levels, refused when empty.
struct Levels(Vec<String>);

impl<'de> Deserialize<'de> for Levels {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LevelsVisitor;
        impl<'de> Visitor<'de> for LevelsVisitor {
            type Value = Levels;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a hint text, or a list of hint levels (nudge, where to look, the command)",
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Levels, E> {
                checked(text).map_err(E::custom)?;
                Ok(Levels(vec![text.to_string()]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Levels, A::Error> {
                let mut levels = Vec::new();
                while let Some(level) = seq.next_element::<String>()? {
                    checked(&level).map_err(de::Error::custom)?;
                    levels.push(level);
                }
                if levels.is_empty() {
                    return Err(de::Error::custom(
                        "`hint: []` gives no hint; write at least one level, or leave `hint:` out",
                    ));
                }
                Ok(Levels(levels))
            }
        }
        deserializer.deserialize_any(LevelsVisitor)
    }
}

/// A hint text's placeholders are ones a hint may use (`${work}`).
fn checked(text: &str) -> Result<(), String> {
    crate::course::placeholders::check_hint(text)
}

impl<'de> Deserialize<'de> for CourseHint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HintVisitor;
        impl<'de> Visitor<'de> for HintVisitor {
            type Value = CourseHint;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a hint text, a list of hint levels, or a map with `default:` and `by_cause:`",
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<CourseHint, E> {
                Levels::deserialize(de::value::StrDeserializer::new(text)).map(|l| CourseHint {
                    default: l.0,
                    ..CourseHint::default()
                })
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<CourseHint, A::Error> {
                let levels = Levels::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(CourseHint {
                    default: levels.0,
                    ..CourseHint::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CourseHint, A::Error> {
                let mut hint = CourseHint {
                    keyed: true,
                    ..CourseHint::default()
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "default" => hint.default = map.next_value::<Levels>()?.0,
                        "by_cause" => hint.by_cause = map.next_value::<ByCause>()?.0,
                        "default_for" => {
                            hint.default_for = Some(map.next_value::<DefaultForValue>()?.0);
                        }
                        other => {
                            return Err(de::Error::unknown_field(
                                other,
                                &["default", "default_for", "by_cause"],
                            ));
                        }
                    }
                }
                match &hint.default_for {
                    Some(_) if hint.default.is_empty() => {
                        return Err(de::Error::custom(
                            "`default_for:` names the causes `default:` fits, but there is no `default:`",
                        ));
                    }
                    Some(DefaultFor::Causes(keys)) => {
                        if let Some(both) = keys
                            .iter()
                            .find(|k| hint.by_cause.iter().any(|h| h.key == k.key))
                        {
                            return Err(de::Error::custom(format!(
                                "`{}` is under `by_cause:` and in `default_for:`; its `by_cause:` text is the one shown, so take it out of `default_for:`",
                                both.key
                            )));
                        }
                    }
                    _ => {}
                }
                Ok(hint)
            }
        }
        deserializer.deserialize_any(HintVisitor)
    }
}

/// `by_cause:`: declared cause ids (optionally `:object`) to texts.
struct ByCause(Vec<CauseHint>);

impl<'de> Deserialize<'de> for ByCause {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ByCauseVisitor;
        impl<'de> Visitor<'de> for ByCauseVisitor {
            type Value = ByCause;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from cause ids (docs/causes.md) to hint texts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ByCause, A::Error> {
                let mut entries: Vec<CauseHint> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let CauseKey { cause, object, .. } =
                        CauseKey::parse(&key).map_err(de::Error::custom)?;
                    if entries.iter().any(|e| e.key == key) {
                        return Err(de::Error::custom(format!(
                            "`{key}` is given twice under `by_cause:`"
                        )));
                    }
                    let levels = map.next_value::<Levels>()?.0;
                    entries.push(CauseHint {
                        key,
                        cause,
                        object,
                        levels,
                    });
                }
                Ok(ByCause(entries))
            }
        }
        deserializer.deserialize_map(ByCauseVisitor)
    }
}

/// `default_for:`: `all`, or a list of cause keys.
struct DefaultForValue(DefaultFor);

impl<'de> Deserialize<'de> for DefaultForValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DefaultForVisitor;
        impl<'de> Visitor<'de> for DefaultForVisitor {
            type Value = DefaultForValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`all`, or a list of the cause ids (docs/causes.md) `default:` fits")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<DefaultForValue, E> {
                match text {
                    "all" => Ok(DefaultForValue(DefaultFor::All)),
                    other => Err(E::custom(format!(
                        "`default_for: {other}`: write `all`, or a list of causes (`default_for: [{other}]`)"
                    ))),
                }
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<DefaultForValue, A::Error> {
                let mut keys: Vec<CauseKey> = Vec::new();
                while let Some(key) = seq.next_element::<String>()? {
                    let parsed = CauseKey::parse(&key).map_err(de::Error::custom)?;
                    if keys.iter().any(|k| k.key == key) {
                        return Err(de::Error::custom(format!(
                            "`{key}` is given twice in `default_for:`"
                        )));
                    }
                    keys.push(parsed);
                }
                if keys.is_empty() {
                    return Err(de::Error::custom(
                        "`default_for: []` declares `default:` fits nothing; name the causes it fits, or leave `default:` out",
                    ));
                }
                Ok(DefaultForValue(DefaultFor::Causes(keys)))
            }
        }
        deserializer.deserialize_any(DefaultForVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::schema::CheckSpec;

    fn check(hint: &str) -> Result<CheckSpec, String> {
        let text = format!("id: a\ntitle: a\nhint: {hint}\ngit: {{ repo: r, pushed: true }}\n");
        crate::course::parse_yaml::<CheckSpec>("t.yaml", &text).map_err(|e| e.to_string())
    }

    fn chosen(hint: &CourseHint, cause: Option<Cause>) -> Option<(String, Vec<String>)> {
        hint.for_cause(cause.as_ref()).map(|t| {
            let kind = match t {
                CourseText::ForCause { key, .. } => format!("for {key}"),
                CourseText::Always(_) => "always".to_string(),
                CourseText::Fallback(_) => "fallback".to_string(),
            };
            (kind, t.levels().to_vec())
        })
    }

    #[test]
    fn the_course_text_for_a_cause_is_its_objects_then_the_causes_then_the_default() {
        let spec = check(
            "{default: d, by_cause: {sync-phase: any, 'sync-phase:Failed': [f1, f2], not-seen-yet: n}}",
        )
        .expect("a keyed hint");
        let hint = &spec.hint;
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let cases = [
            (
                Some(Cause::about(CauseId::SyncPhase, "Failed")),
                Some(("for sync-phase:Failed".to_string(), s(&["f1", "f2"]))),
            ),
            (
                Some(Cause::about(CauseId::SyncPhase, "Running")),
                Some(("for sync-phase".to_string(), s(&["any"]))),
            ),
            (
                Some(CauseId::NotSeenYet.cause()),
                Some(("for not-seen-yet".to_string(), s(&["n"]))),
            ),
            (
                Some(CauseId::NotPushed.cause()),
                Some(("fallback".to_string(), s(&["d"]))),
            ),
            (None, Some(("fallback".to_string(), s(&["d"])))),
        ];
        for (cause, expected) in cases {
            assert_eq!(chosen(hint, cause.clone()), expected, "{cause:?}");
        }
        assert_eq!(hint.most_levels(), 2);
    }

    /// `default_for:` says which causes `default:` is true of: it shows for those (an object
    /// of a cause, or every object) and for no other, and `all` for every one.
    #[test]
    fn a_default_shows_only_for_the_causes_its_author_declared_it_fits() {
        let degraded = Cause::about(CauseId::AppDegraded, "Deployment/checkout");
        let cases: &[(&str, Cause, bool)] = &[
            ("[not-seen-yet]", CauseId::NotSeenYet.cause(), true),
            ("[not-seen-yet]", degraded.clone(), false),
            (
                "['sync-phase:Failed']",
                Cause::about(CauseId::SyncPhase, "Failed"),
                true,
            ),
            (
                "['sync-phase:Failed']",
                Cause::about(CauseId::SyncPhase, "Error"),
                false,
            ),
            (
                "[sync-phase]",
                Cause::about(CauseId::SyncPhase, "Error"),
                true,
            ),
            ("all", degraded.clone(), true),
        ];
        for (declared, cause, shown) in cases {
            let spec = check(&format!("{{default: d, default_for: {declared}}}"))
                .unwrap_or_else(|e| panic!("{declared}: {e}"));
            assert_eq!(
                chosen(&spec.hint, Some(cause.clone())).is_some(),
                *shown,
                "{declared} {cause}"
            );
        }
        // Undeclared, as before: shown for any cause (and refused by `course lint` where it
        // would be the only hint for a cause).
        let undeclared = check("{default: d}").expect("a default");
        assert!(chosen(&undeclared.hint, Some(degraded)).is_some());
    }

    #[test]
    fn a_default_for_that_cannot_be_meant_is_refused_at_its_line() {
        let cases = [
            (
                "{default_for: all, by_cause: {not-pushed: p}}",
                "there is no `default:`",
            ),
            (
                "{default: d, default_for: []}",
                "declares `default:` fits nothing",
            ),
            (
                "{default: d, default_for: every}",
                "write `all`, or a list of causes",
            ),
            (
                "{default: d, default_for: [not-pushd]}",
                "(did you mean `not-pushed`?)",
            ),
            (
                "{default: d, default_for: [not-pushed, not-pushed]}",
                "given twice",
            ),
            (
                "{default: d, default_for: [not-pushed], by_cause: {not-pushed: p}}",
                "is under `by_cause:` and in `default_for:`",
            ),
        ];
        for (written, says) in cases {
            let error = check(written).expect_err(written);
            assert!(error.starts_with("t.yaml:3:"), "{written}: {error}");
            assert!(error.contains(says), "{written}: {error}");
        }
    }

    #[test]
    fn the_plain_forms_are_one_text_for_every_cause() {
        for (written, levels) in [("x", vec!["x"]), ("[a, b]", vec!["a", "b"])] {
            let spec = check(written).expect("a hint");
            let levels: Vec<String> = levels.into_iter().map(String::from).collect();
            assert_eq!(
                chosen(&spec.hint, Some(CauseId::AppDegraded.cause())),
                Some(("always".to_string(), levels))
            );
        }
        let keyed = check("{by_cause: {not-pushed: p}}").expect("no default");
        assert_eq!(chosen(&keyed.hint, Some(CauseId::Failed.cause())), None);
    }

    #[test]
    fn a_keyed_hint_that_cannot_be_meant_is_refused_at_its_line() {
        let cases = [
            (
                "{by_cause: {not-pushd: p}}",
                "`not-pushd` is not a cause labcheck gives (did you mean `not-pushed`?)",
            ),
            (
                "{by_cause: {'hook-result:': p}}",
                "names no object after the `:`",
            ),
            ("{by_cause: {not-pushed: []}}", "`hint: []` gives no hint"),
            ("{defualt: x}", "unknown field `defualt`"),
            (
                "\"cd ${wrok}/x\"",
                "`${wrok}` is not a placeholder a hint may use",
            ),
        ];
        for (written, says) in cases {
            let error = check(written).expect_err(written);
            assert!(error.starts_with("t.yaml:3:"), "{written}: {error}");
            assert!(error.contains(says), "{written}: {error}");
        }
    }
}
