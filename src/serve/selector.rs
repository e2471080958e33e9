//! `labelSelector` and `fieldSelector`, with the operators and field labels a real API server
//! accepts (apimachinery `labels/selector.go`, `fields/selector.go`, each kind's field set).

use serde_json::Value;

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Label {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A parsed `labelSelector`; all requirements must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector(Vec<Label>);

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '/'))
}

/// A label value as the API server takes it: empty, or at most 63 letters, digits, `-`, `_` and
/// `.` that begin and end with a letter or digit (apimachinery `validation.IsValidLabelValue`).
fn valid_value(value: &str) -> bool {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    value.is_empty()
        || (value.len() <= 63
            && edge(value.chars().next())
            && edge(value.chars().last())
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
}

/// Split on commas that are not inside `( … )`.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

impl LabelSelector {
    /// Parse `app=x,tier!=db,env in (dev,qa),!legacy`; the error is the message for a 400.
    pub fn parse(text: &str) -> Result<LabelSelector, String> {
        let mut requirements = Vec::new();
        if text.trim().is_empty() {
            return Ok(LabelSelector(requirements));
        }
        for term in split_top_level(text) {
            requirements.push(parse_label_term(term.trim())?);
        }
        Ok(LabelSelector(requirements))
    }

    /// Whether every requirement is `key=value` (or `==`): what labcheck's own reads ask, and all
    /// a cache of them answers without the server.
    pub fn is_equality_only(&self) -> bool {
        self.0.iter().all(|req| matches!(req, Label::Equals(..)))
    }

    /// Does an object with these labels match?
    pub fn matches(&self, labels: Option<&serde_json::Map<String, Value>>) -> bool {
        let get = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        self.0.iter().all(|req| match req {
            Label::Equals(k, v) => get(k) == Some(v.as_str()),
            Label::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Label::In(k, set) => get(k).is_some_and(|l| set.iter().any(|v| v == l)),
            Label::NotIn(k, set) => get(k).is_none_or(|l| !set.iter().any(|v| v == l)),
            Label::Exists(k) => get(k).is_some(),
            Label::NotExists(k) => get(k).is_none(),
        })
    }
}

fn parse_label_term(term: &str) -> Result<Label, String> {
    let bad = || {
        format!(
            "unable to parse requirement: found '{term}', expected: key, !key, key=value, key==value, key!=value, key in (v1,v2) or key notin (v1,v2)"
        )
    };
    if let Some(key) = term.strip_prefix('!') {
        let key = key.trim();
        return if valid_key(key) {
            Ok(Label::NotExists(key.to_string()))
        } else {
            Err(bad())
        };
    }
    for (op, is_in) in [(" notin ", false), (" in ", true)] {
        if let Some((key, rest)) = term.split_once(op) {
            let key = key.trim();
            let rest = rest.trim();
            let Some(values) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
                return Err(bad());
            };
            if !valid_key(key) {
                return Err(bad());
            }
            let values: Vec<String> = values
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect();
            if !values.iter().all(|v| valid_value(v)) {
                return Err(bad());
            }
            return Ok(if is_in {
                Label::In(key.to_string(), values)
            } else {
                Label::NotIn(key.to_string(), values)
            });
        }
    }
    for (op, negated) in [("!=", true), ("==", false), ("=", false)] {
        if let Some((key, value)) = term.split_once(op) {
            let key = key.trim();
            if !valid_key(key) {
                return Err(bad());
            }
            let value = value.trim().to_string();
            if !valid_value(&value) {
                return Err(bad());
            }
            return Ok(if negated {
                Label::NotEquals(key.to_string(), value)
            } else {
                Label::Equals(key.to_string(), value)
            });
        }
    }
    if valid_key(term) {
        Ok(Label::Exists(term.to_string()))
    } else {
        Err(bad())
    }
}

/// A parsed `fieldSelector`: `field=value`, `field==value`, `field!=value`, comma-joined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

/// Field labels a kind supports besides metadata.name and metadata.namespace, with the JSON path
/// each one reads.
fn kind_fields(kind: &str) -> &'static [(&'static str, &'static str)] {
    match kind {
        "Pod" => &[
            ("status.phase", "/status/phase"),
            ("spec.nodeName", "/spec/nodeName"),
            ("spec.restartPolicy", "/spec/restartPolicy"),
            ("spec.schedulerName", "/spec/schedulerName"),
            ("spec.serviceAccountName", "/spec/serviceAccountName"),
            ("status.podIP", "/status/podIP"),
            ("status.nominatedNodeName", "/status/nominatedNodeName"),
        ],
        "Event" => &[
            ("involvedObject.kind", "/involvedObject/kind"),
            ("involvedObject.namespace", "/involvedObject/namespace"),
            ("involvedObject.name", "/involvedObject/name"),
            ("involvedObject.uid", "/involvedObject/uid"),
            ("involvedObject.apiVersion", "/involvedObject/apiVersion"),
            ("involvedObject.fieldPath", "/involvedObject/fieldPath"),
            ("reason", "/reason"),
            ("reportingComponent", "/reportingComponent"),
            ("source", "/source/component"),
            ("type", "/type"),
        ],
        "Secret" => &[("type", "/type")],
        "Namespace" => &[("status.phase", "/status/phase")],
        "Job" => &[("status.successful", "/status/succeeded")],
        "Node" => &[("spec.unschedulable", "/spec/unschedulable")],
        "ReplicaSet" => &[("status.replicas", "/status/replicas")],
        _ => &[],
    }
}

fn field_pointer(kind: &str, field: &str) -> Option<&'static str> {
    match field {
        "metadata.name" => Some("/metadata/name"),
        "metadata.namespace" => Some("/metadata/namespace"),
        _ => kind_fields(kind)
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, p)| *p),
    }
}

impl FieldSelector {
    /// Parse a field selector for objects of `kind`; unknown field labels are a 400, as on a
    /// real server.
    pub fn parse(text: &str, kind: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        if text.trim().is_empty() {
            return Ok(FieldSelector(terms));
        }
        for term in text.split(',') {
            let term = term.trim();
            let (field, negated, value) = if let Some((f, v)) = term.split_once("!=") {
                (f, true, v)
            } else if let Some((f, v)) = term.split_once("==") {
                (f, false, v)
            } else if let Some((f, v)) = term.split_once('=') {
                (f, false, v)
            } else {
                return Err(format!(
                    "invalid selector: '{text}'; can't understand '{term}'"
                ));
            };
            let field = field.trim();
            let Some(pointer) = field_pointer(kind, field) else {
                return Err(format!("field label not supported: {field}"));
            };
            terms.push((pointer.to_string(), negated, value.trim().to_string()));
        }
        Ok(FieldSelector(terms))
    }

    /// Does this object match? A missing field compares as the empty string, as on a server.
    pub fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|(pointer, negated, value)| {
            let actual = match object.pointer(pointer) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            (actual == *value) != *negated
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn every_label_operator_matches_as_kubernetes_does() {
        let l = labels(json!({"job-name": "checkout-migrate", "tier": "db"}));
        let yes = [
            "job-name=checkout-migrate",
            "job-name==checkout-migrate",
            "tier!=web",
            "absent!=x",
            "tier in (db,web)",
            "tier notin (web)",
            "absent notin (web)",
            "job-name",
            "!absent",
            "job-name=checkout-migrate,tier in (db, web),!absent",
        ];
        let no = [
            "job-name=other",
            "tier!=db",
            "tier in (web)",
            "absent in (x)",
            "tier notin (db)",
            "absent",
            "!tier",
        ];
        for (selectors, want) in [(&yes[..], true), (&no[..], false)] {
            for s in selectors {
                let sel = LabelSelector::parse(s).expect("parses");
                assert_eq!(sel.matches(Some(&l)), want, "{s} should match: {want}");
            }
        }
    }

    #[test]
    fn a_broken_label_selector_is_an_error() {
        assert!(LabelSelector::parse("tier in db").is_err());
        assert!(LabelSelector::parse("=x").is_err());
    }

    #[test]
    fn a_value_the_api_server_refuses_is_an_error_as_there() {
        for bad in [
            "a=b=c",
            "a==b!",
            "a!=(b)",
            "tier in (db,we b)",
            "a=-b",
            "a=b-",
            &format!("a={}", "x".repeat(64)),
        ] {
            assert!(LabelSelector::parse(bad).is_err(), "{bad}");
        }
        for good in ["a=", "a=b.c_d-e", &format!("a={}", "x".repeat(63))] {
            assert!(LabelSelector::parse(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn only_key_equals_value_is_equality_only() {
        for (selector, equality) in [
            ("", true),
            ("a=b,c==d", true),
            ("a!=b", false),
            ("a in (b)", false),
            ("a", false),
            ("!a", false),
        ] {
            let parsed = LabelSelector::parse(selector).expect("parses");
            assert_eq!(parsed.is_equality_only(), equality, "{selector}");
        }
    }

    #[test]
    fn pods_can_be_selected_by_phase_but_jobs_cannot() {
        let pod =
            json!({"metadata": {"name": "p", "namespace": "ns"}, "status": {"phase": "Failed"}});
        let sel = FieldSelector::parse("status.phase=Failed,metadata.namespace=ns", "Pod")
            .expect("parses");
        assert!(sel.matches(&pod));
        let sel = FieldSelector::parse("status.phase!=Failed", "Pod").expect("parses");
        assert!(!sel.matches(&pod));
        assert_eq!(
            FieldSelector::parse("status.phase=Failed", "Job"),
            Err("field label not supported: status.phase".to_string())
        );
    }
}
