//! Values as Helm and Kubernetes see them: equality (numbers by value, maps regardless of key
//! order), tags taken off, JSON turned into YAML, and one way to write a value in a report.

use serde_yaml::Value;

/// A value with any YAML tag (`!foo`) taken off: a tag does not change what Helm or Kubernetes
/// reads inside it.
pub fn untag(value: &Value) -> &Value {
    match value {
        Value::Tagged(tagged) => untag(&tagged.value),
        other => other,
    }
}

/// Equality as Helm sees values: every number becomes a float64 in Helm (values pass through
/// JSON), so `2` equals `2.0`; mappings compare regardless of key order; `null` inside a mapping
/// counts as an unset key.
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (untag(a), untag(b)) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64().zip(y.as_f64()).is_some_and(|(x, y)| x == y),
            },
        },
        (Value::Sequence(x), Value::Sequence(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| values_equal(a, b))
        }
        (Value::Mapping(x), Value::Mapping(y)) => {
            let set = |m: &serde_yaml::Mapping| m.iter().filter(|(_, v)| !v.is_null()).count();
            set(x) == set(y)
                && x.iter()
                    .filter(|(_, v)| !v.is_null())
                    .all(|(k, v)| y.get(k).is_some_and(|w| values_equal(v, w)))
        }
        (x, y) => x == y,
    }
}

/// The kind of a value in the learner's words: "number", "text", "map", …
pub fn kind_name(value: &Value) -> &'static str {
    match untag(value) {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "text",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "map",
        Value::Tagged(_) => "tagged value",
    }
}

/// A value for a report: JSON, so text (`"6.7"`) and numbers (`6.7`) look different; long values
/// are cut.
pub fn render(value: &Value) -> String {
    const LIMIT: usize = 200;
    let text = serde_json::to_string(untag(value)).unwrap_or_else(|_| {
        serde_yaml::to_string(value)
            .map(|t| t.trim_end().to_string())
            .unwrap_or_else(|_| format!("{value:?}"))
    });
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A JSON value as the equivalent YAML value.
pub fn json_to_yaml(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Number(i.into())
            } else if let Some(u) = n.as_u64() {
                Value::Number(u.into())
            } else {
                Value::Number(n.as_f64().unwrap_or(f64::NAN).into())
            }
        }
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(items) => {
            Value::Sequence(items.iter().map(json_to_yaml).collect())
        }
        serde_json::Value::Object(map) => Value::Mapping(
            map.iter()
                .map(|(k, v)| (Value::String(k.clone()), json_to_yaml(v)))
                .collect(),
        ),
    }
}
