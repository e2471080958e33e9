//! An object read as the API server reads it: its JSON (as Argo CD sends it) decoded into the
//! typed Kubernetes struct of its kind. k8s-openapi's types are Kubernetes' Go types field for
//! field (one struct per Go struct, named alike), so a field serde cannot read into them is a
//! field Go's decoder cannot read either; what differs is handled here:
//!
//! * Go leaves a missing field or a `null` at its zero value; k8s-openapi requires some fields.
//!   Such a field is filled with a zero of its type and the read goes on.
//! * Go reports only the first type error, in key order (Argo CD marshals the object from a map,
//!   so keys are sorted, as in `serde_json::Map`); every one is found here, the first first.
//! * Go's message (`sigs.k8s.io/json` `UnmarshalTypeError.Error`, `decode.go:135-140`,
//!   `addErrorContext` `:276-289`): `json: cannot unmarshal <value> into Go struct field
//!   <Struct>.<json path of struct fields> of type <go type>`, where `<Struct>` is the innermost
//!   struct and map keys and list indexes are not in the path.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A field the API server cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Where, as a person writes it: `spec.template.spec.containers[0].image`.
    pub path: String,
    /// What is written there, as Go's decoder names it: `string`, `number`, `bool`, `object`,
    /// `array` (with the literal for a number that is no integer of the type: `number 1.5`).
    pub found: String,
    /// What the type needs, in Go's words (`int32`, `string`, `[]v1.Container`); `None` for a
    /// type with its own reader (quantities, int-or-string, times), whose words differ.
    pub go_type: Option<String>,
    /// What the type needs, in plain words.
    pub needs: String,
    /// Go's `<Struct>.<json path>` for the message.
    pub go_field: String,
}

impl Unreadable {
    /// Go's decoder's message, when its words are known.
    pub fn go_message(&self) -> Option<String> {
        self.go_type.as_ref().map(|t| {
            format!(
                "json: cannot unmarshal {} into Go struct field {} of type {t}",
                self.found, self.go_field
            )
        })
    }
}

/// Types with their own `UnmarshalJSON` in Go: refused alike, but in other words.
const OWN_READERS: &[&str] = &[
    "Quantity",
    "IntOrString",
    "Time",
    "MicroTime",
    "RawExtension",
    "ByteString",
    "FieldsV1",
];

/// How many repairs one object may need before the read gives up (each finds one field).
const MAX_STEPS: usize = 64;

/// Every field of `value` that `T`'s reader refuses, first (as the API server reports it) first.
pub fn unreadable<T: DeserializeOwned>(value: &Value) -> Vec<Unreadable> {
    let mut value = value.clone();
    let mut found = Vec::new();
    let mut last: Option<(Vec<Segment>, String)> = None;
    for _ in 0..MAX_STEPS {
        let error = match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(_) => break,
            Err(error) => error,
        };
        let path = segments(error.path());
        let message = error.inner().to_string();
        if last.as_ref() == Some(&(path.clone(), message.clone())) {
            // Nothing put there reads: stop rather than guess.
            break;
        }
        last = Some((path.clone(), message.clone()));
        let (at, new) = if let Some(field) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            // Go leaves a missing field at its zero value: `null` reads as such next round.
            let mut at = path.clone();
            at.push(Segment::Key(field.to_string()));
            (at, Value::Null)
        } else if message.starts_with("invalid type: null")
            || message.starts_with("invalid type: unit value")
        {
            let expected = message.split_once(", expected ").map_or("", |(_, e)| e);
            (path, zero(expected))
        } else {
            if let Some(unreadable) = describe::<T>(&value, &path, &message) {
                found.push(unreadable);
            }
            (path, Value::Null)
        };
        if at.is_empty() || put(&mut value, &at, new).is_none() {
            break;
        }
    }
    found
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

fn segments(path: &serde_path_to_error::Path) -> Vec<Segment> {
    path.iter()
        .filter_map(|s| match s {
            serde_path_to_error::Segment::Map { key } => Some(Segment::Key(key.clone())),
            serde_path_to_error::Segment::Seq { index } => Some(Segment::Index(*index)),
            _ => None,
        })
        .collect()
}

fn shown(path: &[Segment]) -> String {
    let mut out = String::new();
    for s in path {
        match s {
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

fn at_mut<'v>(value: &'v mut Value, path: &[Segment]) -> Option<&'v mut Value> {
    let mut at = value;
    for s in path {
        at = match (s, at) {
            (Segment::Key(k), Value::Object(map)) => map.get_mut(k)?,
            (Segment::Index(i), Value::Array(list)) => list.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Put `new` at `path` (the last key added to its map if missing); the old value back.
fn put(value: &mut Value, path: &[Segment], new: Value) -> Option<Option<Value>> {
    let (last, parent) = path.split_last()?;
    match (last, at_mut(value, parent)?) {
        (Segment::Key(k), Value::Object(map)) => Some(map.insert(k.clone(), new)),
        (Segment::Index(i), Value::Array(list)) => list
            .get_mut(*i)
            .map(|slot| Some(std::mem::replace(slot, new))),
        _ => None,
    }
}

/// What the type at `path` expects, in serde's words: `true` put there, read, put back.
fn expected<T: DeserializeOwned>(value: &mut Value, path: &[Segment]) -> Option<String> {
    let old = if path.is_empty() {
        Some(Some(std::mem::replace(value, Value::Bool(true))))
    } else {
        put(value, path, Value::Bool(true))
    }?;
    let error = serde_path_to_error::deserialize::<_, T>(&*value).err();
    match (old, path.is_empty()) {
        (Some(old), true) => *value = old,
        (Some(old), false) => {
            put(value, path, old);
        }
        (None, _) => {
            if let (Some(Segment::Key(k)), Some(Value::Object(map))) = (
                path.last(),
                at_mut(value, &path[..path.len().saturating_sub(1)]),
            ) {
                map.remove(k);
            }
        }
    }
    let error = error?;
    if segments(error.path()) != path {
        return None;
    }
    let message = error.inner().to_string();
    message
        .split_once(", expected ")
        .map(|(_, e)| e.to_string())
}

/// Go's name for the type serde calls `expected`, probing list and map elements at `path`.
fn go_type<T: DeserializeOwned>(
    value: &mut Value,
    path: &[Segment],
    expected: &str,
) -> Option<String> {
    let simple = match expected {
        "i32" => Some("int32"),
        "i64" => Some("int64"),
        "f64" => Some("float64"),
        "a string" => Some("string"),
        "a boolean" => Some("bool"),
        _ => None,
    };
    if let Some(simple) = simple {
        return Some(simple.to_string());
    }
    if OWN_READERS.contains(&expected) {
        return None;
    }
    let (wrap, probe) = match expected {
        "a sequence" => ("[]", Value::Array(vec![Value::Bool(true)])),
        "a map" => (
            "map[string]",
            Value::Object(serde_json::Map::from_iter([(
                "k".to_string(),
                Value::Bool(true),
            )])),
        ),
        name if name.chars().all(|c| c.is_ascii_alphanumeric()) => {
            return Some(format!("v1.{name}"));
        }
        _ => return None,
    };
    let old = put(value, path, probe)?;
    let mut inner_path = path.to_vec();
    inner_path.push(if wrap == "[]" {
        Segment::Index(0)
    } else {
        Segment::Key("k".to_string())
    });
    let inner = expected_in_place::<T>(value, &inner_path);
    match old {
        Some(old) => {
            put(value, path, old);
        }
        None => {
            put(value, path, Value::Null);
        }
    }
    let inner = inner?;
    go_type::<T>(value, &inner_path, &inner)
        .or_else(|| (OWN_READERS.contains(&inner.as_str())).then(|| inner.clone()))
        .map(|t| format!("{wrap}{t}"))
}

/// What the value already at `path` fails as (it is `true`).
fn expected_in_place<T: DeserializeOwned>(value: &Value, path: &[Segment]) -> Option<String> {
    let error = serde_path_to_error::deserialize::<_, T>(value).err()?;
    (segments(error.path()) == path)
        .then(|| error.inner().to_string())
        .and_then(|m| m.split_once(", expected ").map(|(_, e)| e.to_string()))
}

/// The unreadable field at `path`, from serde's `message`, in Go's words.
fn describe<T: DeserializeOwned>(
    value: &Value,
    path: &[Segment],
    message: &str,
) -> Option<Unreadable> {
    let (found, needs) = if let Some(rest) = message.strip_prefix("invalid type: ") {
        rest.split_once(", expected ")?
    } else if let Some(rest) = message.strip_prefix("invalid value: integer ") {
        // Out of the type's range: Go says `number <literal>`.
        rest.split_once(", expected ")?
    } else {
        return None;
    };
    let literal = found.split('`').nth(1).unwrap_or_default();
    let integer_type = matches!(needs, "i32" | "i64");
    let found = if found.starts_with("string") {
        "string".to_string()
    } else if found.starts_with("boolean") {
        "bool".to_string()
    } else if found == "map" {
        "object".to_string()
    } else if found == "sequence" {
        "array".to_string()
    } else if found.starts_with("integer") || found.starts_with('`') {
        if integer_type {
            format!("number {}", found.trim_matches('`'))
        } else {
            "number".to_string()
        }
    } else if found.starts_with("floating point") {
        if integer_type {
            format!("number {literal}")
        } else {
            "number".to_string()
        }
    } else {
        return None;
    };
    let mut scratch = value.clone();
    let go_type = go_type::<T>(&mut scratch, path, needs);
    Some(Unreadable {
        path: shown(path),
        found,
        go_type,
        needs: needs.to_string(),
        go_field: go_field::<T>(value, path),
    })
}

/// `<innermost struct>.<json names of the struct fields on the way>`, as Go's decoder writes it.
fn go_field<T: DeserializeOwned>(value: &Value, path: &[Segment]) -> String {
    let mut scratch = value.clone();
    let mut fields = Vec::new();
    let mut innermost = String::new();
    for (n, segment) in path.iter().enumerate() {
        let Segment::Key(key) = segment else {
            continue;
        };
        let parent = &path[..n];
        let Some(kind) = expected::<T>(&mut scratch, parent) else {
            continue;
        };
        if kind.chars().all(|c| c.is_ascii_alphanumeric()) && !OWN_READERS.contains(&kind.as_str())
        {
            innermost = kind;
            fields.push(key.clone());
        }
    }
    format!("{innermost}.{}", fields.join("."))
}

/// A zero of the type serde names: what Go leaves in a field it was given `null` for.
fn zero(expected: &str) -> Value {
    match expected {
        "i32" | "i64" | "f64" | "IntOrString" => Value::from(0),
        "a string" | "Quantity" | "ByteString" => Value::from(""),
        "a boolean" => Value::Bool(false),
        "a sequence" => Value::Array(Vec::new()),
        _ => Value::Object(serde_json::Map::new()),
    }
}

/// Every key of `value` that `T`'s typed struct has no field for, as the API server's strict
/// decoder names it (`sigs.k8s.io/json` `newFieldError`, `kubernetes_patch.go:73-123`): the path
/// of struct fields and list indexes, `spec.template.spec.containers[0].imagePullPolise`, in key
/// order (the JSON Argo CD sends has its keys sorted). Only read when `value` decodes: the server
/// reports a type error first and alone. A field is known when the typed struct keeps it on the
/// way back to JSON; k8s-openapi drops a field that is `null`, so such a key is tried with a value.
pub fn unknown_fields<T: DeserializeOwned + Serialize>(value: &Value) -> Vec<String> {
    let Ok(typed) = serde_json::from_value::<T>(value.clone()) else {
        return Vec::new();
    };
    let Ok(kept) = serde_json::to_value(&typed) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    unknown_under::<T>(value, value, &kept, &mut Vec::new(), &mut found);
    found
}

fn unknown_under<T: DeserializeOwned + Serialize>(
    whole: &Value,
    written: &Value,
    kept: &Value,
    path: &mut Vec<Segment>,
    found: &mut Vec<String>,
) {
    match (written, kept) {
        (Value::Object(written), Value::Object(kept)) => {
            for (key, value) in written {
                path.push(Segment::Key(key.clone()));
                match kept.get(key) {
                    Some(kept) => unknown_under::<T>(whole, value, kept, path, found),
                    None if value.is_null() && known_when_set::<T>(whole, path) => {}
                    None => found.push(shown(path)),
                }
                path.pop();
            }
        }
        (Value::Array(written), Value::Array(kept)) => {
            for (i, (value, kept)) in written.iter().zip(kept).enumerate() {
                path.push(Segment::Index(i));
                unknown_under::<T>(whole, value, kept, path, found);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Whether the key at `path` (written as `null`) is a field of `T`: `true` put there is either
/// refused there (a field of another type) or kept (a boolean field). An error elsewhere counts
/// as known: labcheck does not call a field unknown that it could not try.
fn known_when_set<T: DeserializeOwned + Serialize>(whole: &Value, path: &[Segment]) -> bool {
    let mut tried = whole.clone();
    if put(&mut tried, path, Value::Bool(true)).is_none() {
        return true;
    }
    match serde_path_to_error::deserialize::<_, T>(&tried) {
        Err(_) => true,
        Ok(typed) => serde_json::to_value(&typed)
            .ok()
            .is_some_and(|mut kept| at_mut(&mut kept, path).is_some()),
    }
}

/// What the API server's decoder finds in an object of type `T`: fields it cannot read (it
/// refuses the object for the first) and, when none, fields `T` does not have.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypedRead {
    /// Fields of the wrong type or shape, first (as the server reports it) first.
    pub unreadable: Vec<Unreadable>,
    /// Fields `T` has no field for, in the order the strict decoder meets them.
    pub unknown: Vec<String>,
}

/// `value` read as the API server reads an object of type `T`.
pub fn read<T: DeserializeOwned + Serialize>(value: &Value) -> TypedRead {
    let unreadable = unreadable::<T>(value);
    let unknown = if unreadable.is_empty() {
        unknown_fields::<T>(value)
    } else {
        Vec::new()
    };
    TypedRead {
        unreadable,
        unknown,
    }
}
