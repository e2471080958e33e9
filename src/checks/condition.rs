//! Conditions on one value found at a path: `equals`, `one_of`, `absent`, `present`, `matches`,
//! `ends_with`. Shared by the file checks (values read as Helm reads them, see
//! [`crate::yaml::helm`]) and the cluster checks (Kubernetes objects as JSON).
//!
//! In a check file a condition is written either flattened into a kind's fields
//! (`yaml_value: {…, path: x, equals: true}`, read with [`ConditionFields`]) or nested with its
//! path (`yaml: {path: x, matches: '^-'}`, read as [`PathCondition`]).

use serde::de::{self, Deserialize, Deserializer, MapAccess};
use serde_yaml::Value;

use crate::yaml::fields::{FromMap, deserialize_via};
use crate::yaml::helm::{self, UNSURE_QUOTING_TAG};
use crate::yaml::path::YamlPath;
use crate::yaml::pattern::Pattern;
use crate::yaml::value::{json_to_yaml, kind_name, render, untag, values_equal};

/// A key list for serde's "unknown field, expected one of …": a kind's own keys, then the
/// operators (the order they are named in the message).
macro_rules! with_operators {
    ($($key:literal),* $(,)?) => {
        &[$($key,)* "equals", "one_of", "absent", "present", "matches", "ends_with"]
    };
}
pub(crate) use with_operators;

/// What must hold for the value at a path.
#[derive(Debug, Clone)]
pub enum ValueCondition {
    /// Equal as Helm compares them: numbers by value, mappings regardless of key order.
    Equals(Value),
    /// Equal to one of these.
    OneOf(Vec<Value>),
    /// The path leads nowhere (or to `null`, which Helm and Kubernetes treat as unset).
    Absent,
    /// The path leads to a value other than `null`.
    Present,
    /// A text value matching this regex (searched, not anchored: write `^…$` to anchor).
    Matches(Pattern),
    /// A text value ending with this text.
    EndsWith(String),
}

/// The verdict of a condition on one value, with both sides written out for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionResult {
    pub holds: bool,
    /// What the condition wants, e.g. `` `true` `` or `matching ^-[0-9]+$`.
    pub expected: String,
    /// What was there, e.g. `"6.7"` (text) or `6.7` (a number) or `missing`.
    pub actual: String,
    /// Why a value that looks right is not, e.g. "Helm reads 6.7 as a number: quote it".
    pub note: Option<String>,
}

impl ValueCondition {
    /// The keys that name an operator in a check file.
    pub const KEYS: &'static [&'static str] = with_operators![];

    /// Test the value found at the path (`None`: the path leads nowhere).
    pub fn test(&self, found: Option<&Value>) -> ConditionResult {
        // A word such as `yes` whose quoting labcheck could not see: pass only if the condition
        // holds both for the text and for the boolean Helm would make of it unquoted.
        if let Some(Value::Tagged(tagged)) = found
            && tagged.tag == UNSURE_QUOTING_TAG
        {
            let as_text = self.test_plain(Some(&tagged.value));
            let as_helm = tagged
                .value
                .as_str()
                .map(|word| self.test_plain(Some(&helm::resolve_plain(word))));
            return match as_helm {
                Some(as_helm) if as_helm.holds == as_text.holds => as_text,
                _ => ConditionResult {
                    holds: false,
                    note: Some(format!(
                        "labcheck cannot tell whether Helm reads {} as text or as a boolean here; write it the way the course does (e.g. `true` without quotes)",
                        as_text.actual
                    )),
                    ..as_text
                },
            };
        }
        self.test_plain(found)
    }

    /// Test a value taken from a Kubernetes object (JSON).
    pub fn test_json(&self, found: Option<&serde_json::Value>) -> ConditionResult {
        let converted = found.map(json_to_yaml);
        self.test(converted.as_ref())
    }

    fn test_plain(&self, found: Option<&Value>) -> ConditionResult {
        let found = found.filter(|v| !v.is_null());
        let actual = found.map(render).unwrap_or_else(|| "missing".to_string());
        let result = |holds: bool, expected: String, note: Option<String>| ConditionResult {
            holds,
            expected,
            actual: actual.clone(),
            note: if holds { None } else { note },
        };
        match self {
            ValueCondition::Equals(want) => {
                let holds = found.is_some_and(|v| values_equal(want, v));
                result(holds, render(want), found.and_then(|v| type_note(want, v)))
            }
            ValueCondition::OneOf(options) => {
                let holds = found.is_some_and(|v| options.iter().any(|o| values_equal(o, v)));
                let note = found.and_then(|v| options.iter().find_map(|o| type_note(o, v)));
                let listed: Vec<String> = options.iter().map(render).collect();
                result(holds, format!("one of {}", listed.join(", ")), note)
            }
            ValueCondition::Absent => result(found.is_none(), "absent".to_string(), None),
            ValueCondition::Present => result(found.is_some(), "present".to_string(), None),
            ValueCondition::Matches(pattern) => {
                let expected = format!("text matching {}", pattern.as_str());
                match found.map(untag) {
                    Some(Value::String(text)) => result(pattern.is_match(text), expected, None),
                    Some(other) => result(false, expected, not_text_note(other)),
                    None => result(false, expected, None),
                }
            }
            ValueCondition::EndsWith(suffix) => {
                let expected = format!("text ending in {suffix}");
                match found.map(untag) {
                    Some(Value::String(text)) => result(text.ends_with(suffix), expected, None),
                    Some(other) => result(false, expected, not_text_note(other)),
                    None => result(false, expected, None),
                }
            }
        }
    }
}

deserialize_via!(FromMap, ValueCondition);

impl FromMap for ValueCondition {
    const EXPECTING: &'static str =
        "a map with one of equals, one_of, absent, present, matches, ends_with";

    fn from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut fields = ConditionFields::default();
        while let Some(key) = map.next_key::<String>()? {
            if !fields.read(&key, &mut map)? {
                return Err(de::Error::unknown_field(&key, ValueCondition::KEYS));
            }
        }
        fields.finish()
    }
}

/// Collects operator keys while a kind's own map visitor walks its fields, so a condition can sit
/// flattened among other fields and unknown keys are still rejected (serde's `flatten` cannot do
/// both).
#[derive(Debug, Default)]
pub struct ConditionFields {
    found: Vec<(&'static str, ValueCondition)>,
}

impl ConditionFields {
    /// If `key` is an operator, read its value and return `true`; otherwise leave the value unread.
    pub fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        let (name, condition) = match key {
            "equals" => (
                "equals",
                ValueCondition::Equals(map.next_value::<Expected>()?.0),
            ),
            "one_of" => {
                let options = map.next_value::<Vec<Expected>>()?;
                if options.is_empty() {
                    return Err(de::Error::custom(
                        "`one_of` is empty, so nothing could ever match; list at least one value",
                    ));
                }
                (
                    "one_of",
                    ValueCondition::OneOf(options.into_iter().map(|e| e.0).collect()),
                )
            }
            "absent" => {
                map.next_value::<MustBeTrue>()?;
                ("absent", ValueCondition::Absent)
            }
            "present" => {
                map.next_value::<MustBeTrue>()?;
                ("present", ValueCondition::Present)
            }
            "matches" => ("matches", ValueCondition::Matches(map.next_value()?)),
            "ends_with" => ("ends_with", ValueCondition::EndsWith(map.next_value()?)),
            _ => return Ok(false),
        };
        self.found.push((name, condition));
        Ok(true)
    }

    /// The one condition given; an error if there is none or more than one.
    pub fn finish<E: de::Error>(self) -> Result<ValueCondition, E> {
        let mut found = self.found;
        match found.len() {
            1 => Ok(found.remove(0).1),
            0 => Err(E::custom(format!(
                "no condition: add exactly one of {}",
                ValueCondition::KEYS.join(", ")
            ))),
            _ => {
                let names: Vec<&str> = found.iter().map(|(n, _)| *n).collect();
                Err(E::custom(format!(
                    "exactly one condition per check, but this has {}; split it into several checks",
                    names.join(" and ")
                )))
            }
        }
    }
}

/// The keys a condition on a file's value shares wherever it is written (`yaml_value`, a `git`
/// change): `file` (inside its repo), `path` and one operator. A kind's visitor offers each key
/// it does not know itself to [`FileConditionFields::read`].
#[derive(Debug, Default)]
pub struct FileConditionFields {
    file: Option<String>,
    path: Option<YamlPath>,
    condition: ConditionFields,
}

/// `file`, `path` and the operators with the values read from a check file.
pub struct FileCondition {
    /// The file, relative to the repo root (checked to stay inside it).
    pub file: String,
    /// Where in the file's YAML.
    pub path: YamlPath,
    /// What must hold there.
    pub condition: ValueCondition,
}

impl FileConditionFields {
    /// If `key` is `file`, `path` or an operator, read its value and return `true`; otherwise
    /// leave the value unread.
    pub fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        match key {
            "file" => {
                let value = map.next_value::<String>()?;
                crate::paths::inside_field("file", &value).map_err(de::Error::custom)?;
                self.file = Some(value);
            }
            "path" => self.path = Some(map.next_value::<YamlPath>()?),
            other => return self.condition.read(other, map),
        }
        Ok(true)
    }

    /// The three, or the first one missing (`file`, then `path`, then the condition).
    pub fn finish<E: de::Error>(self) -> Result<FileCondition, E> {
        Ok(FileCondition {
            file: self.file.ok_or_else(|| E::missing_field("file"))?,
            path: self.path.ok_or_else(|| E::missing_field("path"))?,
            condition: self.condition.finish()?,
        })
    }
}

/// A condition with its path, written nested: `{path: image.tag, equals: "6.7.1"}`.
#[derive(Debug, Clone)]
pub struct PathCondition {
    pub path: YamlPath,
    pub condition: ValueCondition,
}

impl PathCondition {
    /// Look the path up in `document` and test the condition there.
    pub fn test(&self, document: &Value) -> ConditionResult {
        self.condition.test(self.path.lookup(document))
    }
}

deserialize_via!(FromMap, PathCondition);

impl FromMap for PathCondition {
    const EXPECTING: &'static str =
        "a map with `path` and one of equals, one_of, absent, present, matches, ends_with";

    fn from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut path = None;
        let mut fields = ConditionFields::default();
        while let Some(key) = map.next_key::<String>()? {
            if key == "path" {
                path = Some(map.next_value::<YamlPath>()?);
            } else if !fields.read(&key, &mut map)? {
                return Err(de::Error::unknown_field(&key, PATH_CONDITION_KEYS));
            }
        }
        let path = path.ok_or_else(|| de::Error::missing_field("path"))?;
        Ok(PathCondition {
            path,
            condition: fields.finish()?,
        })
    }
}

const PATH_CONDITION_KEYS: &[&str] = with_operators!["path"];

/// `absent: true` / `present: true`: `false` would be a double negative that hides intent.
struct MustBeTrue;

impl<'de> Deserialize<'de> for MustBeTrue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match bool::deserialize(deserializer)? {
            true => Ok(MustBeTrue),
            false => Err(de::Error::custom(
                "write `absent: true` or `present: true`; `false` is not accepted (use the other one)",
            )),
        }
    }
}

/// A value a check file expects. Check files are read as YAML 1.2, Helm values as YAML 1.1; a word
/// such as `yes` or `0755` means different things in the two, and quoting cannot be seen here, so
/// it is refused rather than guessed.
struct Expected(Value);

impl<'de> Deserialize<'de> for Expected {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if let Some(word) = first_ambiguous_string(&value) {
            return Err(de::Error::custom(format!(
                "`{word}` is text in a check file but Helm reads it unquoted as {}; write the value Helm should see (e.g. `true`), or use `matches: '^{word}$'` for the text",
                render(&helm::resolve_plain(word))
            )));
        }
        Ok(Expected(value))
    }
}

fn first_ambiguous_string(value: &Value) -> Option<&str> {
    match value {
        // Only words YAML 1.2 reads as text when unquoted (`yes`, `0755`) are in doubt: `6.7`
        // or `true` written in quotes in a check file can only mean the text.
        Value::String(text) => {
            let yaml12_text = matches!(serde_yaml::from_str::<Value>(text), Ok(Value::String(_)));
            (yaml12_text && !helm::resolve_plain(text).is_string()).then_some(text.as_str())
        }
        Value::Sequence(items) => items.iter().find_map(first_ambiguous_string),
        Value::Mapping(map) => map.values().find_map(first_ambiguous_string),
        Value::Tagged(tagged) => first_ambiguous_string(&tagged.value),
        _ => None,
    }
}

/// Explain a mismatch that is only about the type: the learner wrote the right characters, but
/// Helm reads them as another kind of value.
fn type_note(want: &Value, found: &Value) -> Option<String> {
    match (untag(want), untag(found)) {
        (Value::String(text), found @ (Value::Number(_) | Value::Bool(_)))
            if values_equal(&helm::resolve_plain(text), found) =>
        {
            Some(format!(
                "Helm reads {} unquoted as a {}, not as the text \"{text}\" (6.10 would even become 6.1); put it in quotes: \"{text}\"",
                render(found),
                kind_name(found)
            ))
        }
        (want @ (Value::Number(_) | Value::Bool(_)), Value::String(text))
            if values_equal(&helm::resolve_plain(text), want) =>
        {
            Some(format!(
                "it is written in quotes, so Helm reads the text \"{text}\", not the {} {}; remove the quotes",
                kind_name(want),
                render(want)
            ))
        }
        _ => None,
    }
}

fn not_text_note(found: &Value) -> Option<String> {
    match found {
        Value::Number(_) | Value::Bool(_) => Some(format!(
            "Helm reads {} as a {}, not as text; put it in quotes",
            render(found),
            kind_name(found)
        )),
        Value::Mapping(_) | Value::Sequence(_) => Some(format!(
            "there is a {} here, not a text value; check the indentation",
            kind_name(found)
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(text: &str) -> ValueCondition {
        crate::yaml::testing::parsed(text)
    }

    fn helm(text: &str) -> Value {
        match helm::parse_documents(text) {
            Ok(mut docs) if docs.len() == 1 => docs.remove(0),
            other => panic!("{other:?}"),
        }
    }

    fn at<'v>(doc: &'v Value, path: &str) -> Option<&'v Value> {
        YamlPath::parse(path).ok()?.lookup(doc)
    }

    /// `condition` tested on what the values file `values` holds at `path`.
    fn tested(values: &str, condition_text: &str, path: &str) -> ConditionResult {
        condition(condition_text).test(at(&helm(values), path))
    }

    #[test]
    fn equals_true_holds_for_enabled_true() {
        let r = tested(
            "migration:\n  enabled: true   # module 10\n",
            "equals: true",
            "migration.enabled",
        );
        assert!(r.holds, "{r:?}");
        assert_eq!((r.expected.as_str(), r.actual.as_str()), ("true", "true"));
    }

    #[test]
    fn missing_key_fails_and_says_missing() {
        let r = tested("migration: {}\n", "equals: true", "migration.enabled");
        assert!(!r.holds);
        assert_eq!(r.actual, "missing");
    }

    #[test]
    fn unquoted_yes_is_true_for_helm_but_quoted_yes_is_text() {
        let doc = helm("a: yes\nb: \"yes\"\nc: 'on'\nd: OFF\ne: y\n");
        let is_true = condition("equals: true");
        assert!(is_true.test(at(&doc, "a")).holds);
        let quoted = is_true.test(at(&doc, "b"));
        assert!(!quoted.holds);
        assert!(
            quoted
                .note
                .as_deref()
                .unwrap_or("")
                .contains("remove the quotes"),
            "{quoted:?}"
        );
        assert!(!is_true.test(at(&doc, "c")).holds);
        assert!(condition("equals: false").test(at(&doc, "d")).holds);
        assert!(is_true.test(at(&doc, "e")).holds);
    }

    #[test]
    fn unsure_quoting_passes_only_when_both_readings_hold() {
        let unsure = Value::Tagged(Box::new(serde_yaml::value::TaggedValue {
            tag: serde_yaml::value::Tag::new(UNSURE_QUOTING_TAG),
            value: Value::from("yes"),
        }));
        let r = condition("equals: true").test(Some(&unsure));
        assert!(!r.holds);
        assert!(r.note.as_deref().unwrap_or("").contains("cannot tell"));
        assert!(condition("present: true").test(Some(&unsure)).holds);
    }

    #[test]
    fn unquoted_tag_6_7_fails_equals_text_with_a_hint_to_quote_it() {
        let r = tested("image:\n  tag: 6.7\n", "equals: \"6.7\"", "image.tag");
        assert!(!r.holds);
        assert_eq!(r.actual, "6.7");
        assert_eq!(r.expected, "\"6.7\"");
        assert!(r.note.as_deref().unwrap_or("").contains("quotes"), "{r:?}");
    }

    #[test]
    fn numbers_compare_by_value_as_helm_does() {
        let doc = helm("replicas: 2.0\nmode: 0755\nbig: 1_000\n");
        assert!(condition("equals: 2").test(at(&doc, "replicas")).holds);
        // YAML 1.1 reads a leading zero as octal, and drops underscores.
        assert!(condition("equals: 493").test(at(&doc, "mode")).holds);
        assert!(condition("equals: 1000").test(at(&doc, "big")).holds);
    }

    #[test]
    fn equals_compares_maps_regardless_of_key_order() {
        let doc = helm("smokeTest:\n  path: /healthz\n  enabled: true\n");
        let c = condition("equals: {enabled: true, path: /healthz}");
        assert!(c.test(at(&doc, "smokeTest")).holds);
        let c = condition("equals: {enabled: true}");
        assert!(!c.test(at(&doc, "smokeTest")).holds);
    }

    #[test]
    fn one_of_accepts_any_listed_value() {
        let doc = helm("phase: Error\n");
        assert!(
            condition("one_of: [Failed, Error]")
                .test(at(&doc, "phase"))
                .holds
        );
        let r = condition("one_of: [Succeeded]").test(at(&doc, "phase"));
        assert!(!r.holds);
        assert_eq!(r.expected, "one of \"Succeeded\"");
    }

    /// Whether each `(condition, path, holds)` row holds as it says in `doc`.
    fn assert_rows(doc: &Value, rows: &[(&str, &str, bool)]) {
        for &(text, path, want) in rows {
            let r = condition(text).test(at(doc, path));
            assert_eq!(r.holds, want, "{text} at {path}: {r:?}");
        }
    }

    #[test]
    fn absent_and_present_treat_null_as_unset() {
        let doc = helm("migration:\n  enabled: true\n  fail:\n");
        assert_rows(
            &doc,
            &[
                ("absent: true", "migration.fail", true),
                ("absent: true", "migration.gone", true),
                ("absent: true", "migration.enabled", false),
                ("present: true", "migration.enabled", true),
                ("present: true", "migration.fail", false),
            ],
        );
    }

    #[test]
    fn matches_and_ends_with_need_text() {
        let doc = helm(
            "metadata:\n  annotations:\n    argocd.argoproj.io/sync-wave: \"-2\"\n    other: -2\nimage: ghcr.io/stefanprodan/podinfo:6.7.1\n",
        );
        assert_rows(
            &doc,
            &[
                (
                    "matches: '^-[0-9]+$'",
                    r#"metadata.annotations["argocd.argoproj.io/sync-wave"]"#,
                    true,
                ),
                ("matches: '^-[0-9]+$'", "metadata.annotations.other", false),
                ("ends_with: ':6.7.1'", "image", true),
                ("ends_with: ':6.7.0'", "image", false),
            ],
        );
        let unquoted =
            condition("matches: '^-[0-9]+$'").test(at(&doc, "metadata.annotations.other"));
        assert!(unquoted.note.as_deref().unwrap_or("").contains("quotes"));
    }

    #[test]
    fn json_values_from_the_cluster_are_tested_the_same_way() {
        let json = serde_json::json!({"spec": {"replicas": 1, "image": "podinfo:6.7.1"}});
        let path = YamlPath::parse("spec.image").ok();
        let found = path.as_ref().and_then(|p| p.lookup_json(&json));
        assert!(condition("ends_with: ':6.7.1'").test_json(found).holds);
        let replicas = YamlPath::parse("spec.replicas").ok();
        let found = replicas.as_ref().and_then(|p| p.lookup_json(&json));
        assert!(condition("equals: 1").test_json(found).holds);
    }

    #[test]
    fn a_bad_regex_is_a_load_error_at_its_line() {
        let error = match serde_yaml::from_str::<ValueCondition>("\nmatches: '^(-'\n") {
            Ok(c) => panic!("{c:?}"),
            Err(e) => e,
        };
        assert_eq!(error.location().map(|l| l.line()), Some(2));
        assert!(error.to_string().contains("not a valid regular expression"));
    }

    #[test]
    fn two_conditions_or_none_or_unknown_keys_are_refused() {
        for (text, words) in [
            ("equals: 1\nmatches: x\n", "exactly one condition"),
            ("{}", "no condition"),
            ("equal: 1\n", "unknown field `equal`"),
            ("absent: false\n", "`false` is not accepted"),
            ("one_of: []\n", "is empty"),
            ("equals: yes\n", "Helm reads it unquoted as true"),
        ] {
            match serde_yaml::from_str::<ValueCondition>(text) {
                Ok(c) => panic!("{text}: {c:?}"),
                Err(e) => assert!(e.to_string().contains(words), "{text}: {e}"),
            }
        }
    }

    #[test]
    fn path_condition_reads_nested_form() {
        let pc: PathCondition = match serde_yaml::from_str(
            "{ path: 'metadata.annotations[\"argocd.argoproj.io/sync-wave\"]', matches: '^-[0-9]+$' }",
        ) {
            Ok(pc) => pc,
            Err(e) => panic!("{e}"),
        };
        let doc = helm("metadata:\n  annotations:\n    argocd.argoproj.io/sync-wave: \"-1\"\n");
        assert!(pc.test(&doc).holds);
        let missing_path = serde_yaml::from_str::<PathCondition>("{ matches: x }");
        assert!(missing_path.is_err());
    }
}
