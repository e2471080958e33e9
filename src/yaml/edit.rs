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
mod tree;
mod words;

use granit_parser::ScalarStyle;
use serde_yaml::{Mapping, Value};

use super::helm::{self, YamlError};
use super::path::{Segment, YamlPath};
use super::value::{untag, values_equal};
use render::{
    Quote, is_collection, is_multiline, literal, literal_ok, render_block, render_flow, render_key,
    render_scalar,
};
use tree::{
    Kind, Node, colon_after, column, comments_above, content_end, last_line_end, line_start,
    only_spaces, parse_tree, splice,
};
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

/// The file's text and the chosen document's nodes.
struct Source {
    text: String,
    root: Node,
    newline: &'static str,
}

impl Source {
    fn read(text: &str, document: Option<usize>) -> Result<Source, EditError> {
        let mut documents = parse_tree(text)?;
        let count = documents.len();
        let index = match document {
            Some(n) if n < count => n,
            asked @ Some(_) => return Err(EditError::Document(DocumentChoice { count, asked })),
            None if count <= 1 => 0,
            None => {
                return Err(EditError::Document(DocumentChoice { count, asked: None }));
            }
        };
        let root = if index < count {
            documents.swap_remove(index)
        } else {
            // An empty file: its one document is an empty scalar at its end.
            Node {
                kind: Kind::Scalar(String::new()),
                start: text.len(),
                end: text.len(),
                flow: false,
                style: Some(ScalarStyle::Plain),
            }
        };
        Ok(Source {
            text: text.to_string(),
            root,
            newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
        })
    }

    /// The node at `segments`, if every step is there.
    fn find(&self, segments: &[Segment]) -> Option<&Node> {
        let (node, depth) = self.deepest(segments);
        (depth == segments.len()).then_some(node)
    }

    /// The deepest node along `segments` and how many steps reached it.
    fn deepest(&self, segments: &[Segment]) -> (&Node, usize) {
        let mut here = &self.root;
        for (depth, segment) in segments.iter().enumerate() {
            let next = match (&here.kind, segment) {
                // The last of a key written twice: the one Helm and Kubernetes read.
                (Kind::Map(entries), Segment::Key(k)) => entries
                    .iter()
                    .rev()
                    .find(|(key, _)| key.is_key(k))
                    .map(|(_, v)| v),
                (Kind::Seq(items), Segment::Index(i)) => items.get(*i),
                (Kind::Seq(items), Segment::Select { key, value }) => {
                    let mut matching = items.iter().filter(|item| match &item.kind {
                        Kind::Map(entries) => entries
                            .iter()
                            .rev()
                            .find(|(k, _)| k.is_key(key))
                            .is_some_and(|(_, v)| matches!(&v.kind, Kind::Scalar(s) if s == value)),
                        _ => false,
                    });
                    match (matching.next(), matching.next()) {
                        (Some(one), None) => Some(one),
                        _ => None,
                    }
                }
                _ => None,
            };
            match next {
                Some(node) => here = node,
                None => return (here, depth),
            }
        }
        (here, segments.len())
    }

    /// The key node whose value is `node`, if `node` is a map value.
    fn key_of(&self, node: &Node) -> Option<&Node> {
        fn walk(here: &Node, target: *const Node) -> Option<&Node> {
            match &here.kind {
                Kind::Map(entries) => entries.iter().find_map(|(k, v)| {
                    if std::ptr::eq(v, target) {
                        Some(k)
                    } else {
                        walk(v, target)
                    }
                }),
                Kind::Seq(items) => items.iter().find_map(|i| walk(i, target)),
                _ => None,
            }
        }
        walk(&self.root, node)
    }

    /// Whether `node` sits in a flow collection (where only flow style may go).
    fn in_flow(&self, node: &Node) -> bool {
        fn walk(here: &Node, target: *const Node, flow: bool) -> Option<bool> {
            if std::ptr::eq(here, target) {
                return Some(flow);
            }
            let inner = flow || here.flow;
            match &here.kind {
                Kind::Map(entries) => entries.iter().find_map(|(_, v)| walk(v, target, inner)),
                Kind::Seq(items) => items.iter().find_map(|i| walk(i, target, inner)),
                _ => None,
            }
        }
        walk(&self.root, node, false).unwrap_or(false)
    }

    /// The text with `node` (at `path`) holding `value` instead.
    fn replace(&self, node: &Node, path: &YamlPath, value: &Value) -> Result<String, EditError> {
        let t = &self.text;
        let quote = Quote::of(node);
        if self.in_flow(node) || (node.flow && is_collection(value)) {
            let flow = render_flow(value, quote);
            return Ok(splice(t, node.start, node.end, &flow));
        }
        let single_line_scalar = !is_collection(value) && !is_multiline(value);
        if let Some(key) = self.key_of(node) {
            let indent = column(t, key.start);
            let child = match &node.kind {
                Kind::Map(entries) if !node.flow => {
                    entries.first().map(|(k, _)| column(t, k.start))
                }
                Kind::Seq(items) if !node.flow => items.first().map(|i| {
                    // The dash's column: an indentless list's span does not start at it.
                    let from = line_start(t, i.start);
                    t[from..i.start].find('-').unwrap_or(i.start - from)
                }),
                _ => None,
            }
            .unwrap_or(indent + 2);
            let end = if node.is_empty_scalar() {
                colon_after(t, key.end).map_or(key.end, |c| c + 1)
            } else {
                content_end(t, node)
            };
            let replacement =
                if single_line_scalar && !matches!(node.kind, Kind::Map(_) | Kind::Seq(_)) {
                    // A scalar for a scalar: only the value's own characters change.
                    if node.is_empty_scalar() {
                        format!(": {}", render_scalar(value, quote, false))
                    } else {
                        return Ok(splice(
                            t,
                            node.start,
                            node.end,
                            &render_scalar(value, quote, false),
                        ));
                    }
                } else {
                    format!(":{}", self.block_after_key(value, child, quote))
                };
            return Ok(splice(t, key.end, end, &replacement));
        }
        if single_line_scalar && !matches!(node.kind, Kind::Map(_) | Kind::Seq(_)) {
            if node.start == node.end && node.start == t.len() {
                return Err(EditError::Path(format!(
                    "`{path}`: the file holds no map to set it in"
                )));
            }
            return Ok(splice(
                t,
                node.start,
                node.end,
                &render_scalar(value, quote, false),
            ));
        }
        if std::ptr::eq(node, &self.root) && node.is_empty_scalar() && node.start == t.len() {
            // An empty file (or only comments): the value is the document.
            let lines = render_block(value, 0, quote);
            let mut out = t.clone();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(self.newline);
            }
            for line in lines {
                out.push_str(&line);
                out.push_str(self.newline);
            }
            return Ok(out);
        }
        Err(EditError::Path(format!(
            "`{path}`: a list item or a document cannot be rewritten in place; set a key inside it"
        )))
    }

    /// `value` as written after `key:` in block context: ` scalar`, ` |` and its lines, or a
    /// new line and the block at `indent`.
    fn block_after_key(&self, value: &Value, indent: usize, quote: Quote) -> String {
        let nl = self.newline;
        match untag(value) {
            Value::Mapping(m) if !m.is_empty() => render_block(value, indent, quote)
                .iter()
                .map(|l| format!("{nl}{l}"))
                .collect(),
            Value::Sequence(s) if !s.is_empty() => render_block(value, indent, quote)
                .iter()
                .map(|l| format!("{nl}{l}"))
                .collect(),
            Value::String(s) if s.contains('\n') && literal_ok(s) => {
                let (header, lines) = literal(s, indent);
                let mut out = format!(" {header}");
                for line in lines {
                    out.push_str(nl);
                    out.push_str(&line);
                }
                out
            }
            _ => format!(" {}", render_scalar(value, quote, false)),
        }
    }

    /// The text with `key: value` added to the map `map`.
    fn add_key(&self, map: &Node, key: &str, value: &Value, place: &Placement) -> String {
        let t = &self.text;
        let nl = self.newline;
        let Kind::Map(entries) = &map.kind else {
            return t.clone();
        };
        let quote = entries
            .iter()
            .map(|(_, v)| Quote::of(v))
            .find(|q| *q != Quote::Plain)
            .unwrap_or(Quote::Plain);
        if map.flow || self.in_flow(map) {
            let entry = format!("{}: {}", render_key(key), render_flow(value, quote));
            return match entries.last() {
                Some((_, last)) => splice(t, last.end, last.end, &format!(", {entry}")),
                None => {
                    // `{}`: the entry goes between the braces.
                    let close = t[map.start..map.end]
                        .rfind('}')
                        .map_or(map.end, |i| map.start + i);
                    splice(t, close, close, &entry)
                }
            };
        }
        let Some((first, _)) = entries.first() else {
            return t.clone();
        };
        let indent = column(t, first.start);
        let pad = " ".repeat(indent);
        let mut lines: Vec<String> = place
            .comment
            .iter()
            .flat_map(|c| {
                c.lines()
                    .map(|l| format!("{pad}# {l}").trim_end().to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        let rendered = format!(
            "{pad}{}:{}",
            render_key(key),
            self.block_after_key(value, indent + 2, quote)
        );
        lines.push(rendered);
        let sibling = |name: &Option<String>| {
            name.as_deref()
                .and_then(|n| entries.iter().rposition(|(k, _)| k.is_key(n)))
        };
        let at = if let Some(i) = sibling(&place.after) {
            last_line_end(t, &entries[i].1)
        } else if let Some(i) = sibling(&place.before) {
            comments_above(t, line_start(t, entries[i].0.start), indent)
        } else {
            let (_, last) = &entries[entries.len() - 1];
            last_line_end(t, last)
        };
        let mut insert = String::new();
        if at == t.len() && !t.is_empty() && !t.ends_with('\n') {
            insert.push_str(nl);
        }
        for line in lines {
            insert.push_str(&line);
            insert.push_str(nl);
        }
        splice(t, at, at, &insert)
    }
}

#[cfg(test)]
mod tests;
