//! Edit a YAML file at a path, as a person would with an editor: only the lines the path
//! resolves to change; every other line (comments, blank lines, key order, quoting, flow or block
//! style, CRLF line ends) stays as the learner wrote it. The path is the check files' own
//! ([`super::path`]), so a solution finds a value where a `yaml_value` check reads it.
//!
//! Two edits: [`set`] (a value at a path; a map is merged key by key, so the learner's other keys
//! and comments in it stay) and [`remove`] (a key and its value). Each returns `None` when the file
//! already says so: run twice, the second run changes nothing.
//!
//! Where: the positions come from `granit-parser`'s event spans (byte offsets into the text);
//! what the file means comes from the Helm reader ([`super::helm`]), so "already set" is judged
//! as the checks judge it (YAML 1.1 words, numbers by value).

mod render;
mod source;
mod tree;
mod words;

use serde_yaml::{Mapping, Value};

use super::helm::{self, YamlError};
use super::path::{Segment, YamlPath};
use super::value::{untag, values_equal};
use render::{Quote, render_flow, render_key};
use source::Source;
use tree::{Kind, column, comments_above, last_line_end, line_start, only_spaces, splice};
pub use words::DocumentChoice;
use words::through_alias;

/// Why an edit could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file is not valid YAML.
    #[error("{0}")]
    Yaml(#[from] YamlError),
    /// The path cannot be made in this file (it runs through a list or a value that is not a map).
    #[error("{0}")]
    Path(String),
    /// The document asked for is not in the file, or the file holds several and none was named.
    /// Its words name a solution's `document:`; a command names its own flag ([`EditError::words`]).
    #[error("{}", .0.words("`document:`"))]
    Document(DocumentChoice),
    /// A new file's text cannot be put into the file that is there already.
    #[error("{0}")]
    Create(String),
}

/// Where a key the edit adds goes among its siblings; at the end of its map when the sibling
/// named is not there (or none is named).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// Right after this sibling key (and its value).
    pub after: Option<String>,
    /// Right before this sibling key (and the comment lines just above it).
    pub before: Option<String>,
    /// Comment lines written above a key the edit adds (without `#`).
    pub comment: Option<String>,
}

/// `value` at `path` of the chosen document (the only one when `document` is `None`). A map
/// value is merged: each of its keys is set, the map's other keys stay. `None`: already so.
pub fn set(
    text: &str,
    document: Option<usize>,
    path: &YamlPath,
    value: &Value,
    place: &Placement,
) -> Result<Option<String>, EditError> {
    let mut current = text.to_string();
    let mut changed = false;
    set_into(&mut current, &mut changed, document, path, value, place)?;
    Ok(changed.then_some(current))
}

/// The key at `path` taken out with its value. `None`: it is not there.
pub fn remove(
    text: &str,
    document: Option<usize>,
    path: &YamlPath,
) -> Result<Option<String>, EditError> {
    let (segments, last) = match path.segments().split_last() {
        Some((Segment::Key(last), parent)) => (parent, last),
        _ => {
            return Err(EditError::Path(format!(
                "`{path}`: only a map key can be removed (the path ends in a list item)"
            )));
        }
    };
    let source = Source::read(text, document)?;
    let (parent, depth) = source.deepest(segments);
    if matches!(parent.kind, Kind::Alias) && depth < path.segments().len() {
        let at = YamlPath::from_segments(segments[..depth].to_vec());
        return Err(through_alias(&source.text, parent, &at));
    }
    if depth != segments.len() {
        return Ok(None);
    }
    let Kind::Map(entries) = &parent.kind else {
        return Ok(None);
    };
    let Some(at) = entries.iter().rposition(|(k, _)| k.is_key(last)) else {
        return Ok(None);
    };
    let (key, value) = &entries[at];
    let t = &source.text;
    let out = if entries.len() == 1 {
        // The map's only key: the map becomes `{}` (a parent key with nothing would be null).
        let parent_path = YamlPath::from_segments(segments.to_vec());
        let mut current = text.to_string();
        replace_node(
            &mut current,
            document,
            &parent_path,
            &Value::Mapping(Mapping::new()),
        )?;
        return Ok(Some(current));
    } else if parent.flow {
        if at + 1 < entries.len() {
            splice(t, key.start, entries[at + 1].0.start, "")
        } else {
            splice(t, entries[at - 1].1.end, value.end, "")
        }
    } else if only_spaces(&t[line_start(t, key.start)..key.start]) {
        // The comment lines right above the key, at its indent, are the key's: they go with it
        // (a comment set off by a blank line, or at another indent, stays).
        let from = comments_above(t, line_start(t, key.start), column(t, key.start));
        splice(t, from, last_line_end(t, value), "")
    } else {
        // The first key of a list item (`- name: x`): the next key moves up to the dash.
        splice(t, key.start, entries[at + 1].0.start, "")
    };
    Ok(Some(out))
}

/// A new file with `text`, as `labcheck edit create` and a solution's `create:` make it:
/// `existing` is the file's text (`None`: not there, so the file is `text`). A file that says
/// `text` already is left alone (`None`); a YAML file (`yaml`) that differs gets each top-level
/// key of `text` set in it, so the learner's other keys and comments stay; any other file that
/// differs is an error, never overwritten.
pub fn create(existing: Option<&str>, text: &str, yaml: bool) -> Result<Option<String>, EditError> {
    let Some(before) = existing else {
        return Ok(Some(text.to_string()));
    };
    if before == text {
        return Ok(None);
    }
    if !yaml {
        return Err(EditError::Create(
            "is there already and differs; compare it with the text by hand".to_string(),
        ));
    }
    let value: Value = serde_yaml::from_str(text)
        .map_err(|e| EditError::Create(format!("the text is not YAML: {e}")))?;
    set(
        before,
        None,
        &YamlPath::from_segments(Vec::new()),
        &value,
        &Placement::default(),
    )
}

/// Where the node at `path` of the file's first document starts: (line, column), from 1. For a
/// course file's messages (`file:line:col` of a solution's item).
pub fn position(text: &str, path: &YamlPath) -> Option<(usize, usize)> {
    let source = Source::read(text, Some(0)).ok()?;
    let node = source.find(path.segments())?;
    let start = if let Some(key) = source.key_of(node) {
        key.start.min(node.start)
    } else {
        node.start
    };
    // A block map's node starts at its first key; an item of a list at its first character.
    let line = text[..start].matches('\n').count() + 1;
    Some((line, column(text, start) + 1))
}

/// A value in flow style (`{tag: "6.7.1"}`, `[a, b]`), text plain where it reads back the same.
pub fn flow(value: &Value) -> String {
    render_flow(value, Quote::Plain)
}

/// A key as written in a map: plain where it reads back the same, else double-quoted.
pub fn key(key: &str) -> String {
    render_key(key)
}

fn set_into(
    text: &mut String,
    changed: &mut bool,
    document: Option<usize>,
    path: &YamlPath,
    value: &Value,
    place: &Placement,
) -> Result<(), EditError> {
    let values = helm::parse_documents(text)?;
    let root = pick(&values, document)?;
    let existing = path.lookup(root);
    if existing.is_some_and(|e| holds(e, value)) {
        return Ok(());
    }
    if let (Some(Value::Mapping(_)), Value::Mapping(want)) = (existing.map(untag), untag(value)) {
        for (key, inner) in want {
            let key = key_text(key)?;
            let child = path.child(Segment::Key(key));
            set_into(
                text,
                changed,
                document,
                &child,
                inner,
                &Placement::default(),
            )?;
        }
        return Ok(());
    }
    let source = Source::read(text, document)?;
    let (found, depth) = source.deepest(path.segments());
    let rest = &path.segments()[depth..];
    let out = if rest.is_empty() {
        source.replace(found, path, value)?
    } else {
        if let Some(i) = rest.iter().position(|s| !matches!(s, Segment::Key(_))) {
            return Err(EditError::Path(format!(
                "`{path}`: `{}` names no item of the list, and a solution does not make list items by position or selector",
                YamlPath::from_segments(path.segments()[..=depth + i].to_vec())
            )));
        }
        let keys: Vec<&str> = rest
            .iter()
            .filter_map(|s| match s {
                Segment::Key(k) => Some(k.as_str()),
                _ => None,
            })
            .collect();
        let nested = nest(&keys[1..], value);
        match &found.kind {
            Kind::Alias => {
                return Err(through_alias(
                    &source.text,
                    found,
                    &YamlPath::from_segments(path.segments()[..depth].to_vec()),
                ));
            }
            Kind::Map(_) => source.add_key(found, keys[0], &nested, place),
            Kind::Scalar(s) if s.is_empty() || matches!(s.as_str(), "~" | "null") => {
                let mut map = Mapping::new();
                map.insert(Value::String(keys[0].to_string()), nested);
                source.replace(
                    found,
                    &YamlPath::from_segments(path.segments()[..depth].to_vec()),
                    &Value::Mapping(map),
                )?
            }
            _ => {
                return Err(EditError::Path(format!(
                    "`{path}`: `{}` is not a map, so it cannot hold `{}`",
                    YamlPath::from_segments(path.segments()[..depth].to_vec()),
                    keys[0]
                )));
            }
        }
    };
    *text = out;
    *changed = true;
    Ok(())
}

/// Replace the node at `path` (which exists) with `value`, whatever it holds.
fn replace_node(
    text: &mut String,
    document: Option<usize>,
    path: &YamlPath,
    value: &Value,
) -> Result<(), EditError> {
    let source = Source::read(text, document)?;
    let (found, depth) = source.deepest(path.segments());
    if depth != path.segments().len() {
        return Err(EditError::Path(format!("`{path}` is not in the file")));
    }
    *text = source.replace(found, path, value)?;
    Ok(())
}

/// `existing` already says what `want` says: equal, or for a map every key of `want` holds.
fn holds(existing: &Value, want: &Value) -> bool {
    match (untag(existing), untag(want)) {
        (Value::Mapping(have), Value::Mapping(want)) if !want.is_empty() => {
            want.iter().all(|(k, w)| match have.get(k) {
                Some(h) => holds(h, w),
                None => w.is_null(),
            })
        }
        (e, w) => values_equal(e, w),
    }
}

pub(super) fn key_text(key: &Value) -> Result<String, EditError> {
    match untag(key) {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(EditError::Path(format!(
            "a key to set must be text, not {}",
            super::value::kind_name(other)
        ))),
    }
}

/// `{k1: {k2: … value}}` for the keys still to make.
fn nest(keys: &[&str], value: &Value) -> Value {
    keys.iter().rev().fold(value.clone(), |inner, key| {
        let mut map = Mapping::new();
        map.insert(Value::String((*key).to_string()), inner);
        Value::Mapping(map)
    })
}

fn pick(values: &[Value], document: Option<usize>) -> Result<&Value, EditError> {
    match document {
        Some(n) => values.get(n).ok_or(EditError::Document(DocumentChoice {
            count: values.len(),
            asked: Some(n),
        })),
        None if values.len() == 1 => Ok(&values[0]),
        None => Err(EditError::Document(DocumentChoice {
            count: values.len(),
            asked: None,
        })),
    }
}

#[cfg(test)]
mod tests;
