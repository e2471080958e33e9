//! The file's text and the chosen document's nodes, and the edits made on that text: a node
//! replaced, a key added beside its siblings. [`super`] decides what to change; this writes it.

use granit_parser::ScalarStyle;
use serde_yaml::Value;

use super::render::{
    Quote, is_collection, is_multiline, literal, literal_ok, render_block, render_flow, render_key,
    render_scalar,
};
use super::tree::{
    Kind, Node, colon_after, column, comments_above, content_end, last_line_end, line_start,
    parse_tree, splice,
};
use super::{DocumentChoice, EditError, Placement};
use crate::yaml::path::{Segment, YamlPath};
use crate::yaml::value::untag;

/// The file's text and the chosen document's nodes.
pub(super) struct Source {
    pub(super) text: String,
    root: Node,
    newline: &'static str,
}

impl Source {
    pub(super) fn read(text: &str, document: Option<usize>) -> Result<Source, EditError> {
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
    pub(super) fn find(&self, segments: &[Segment]) -> Option<&Node> {
        let (node, depth) = self.deepest(segments);
        (depth == segments.len()).then_some(node)
    }

    /// The deepest node along `segments` and how many steps reached it.
    pub(super) fn deepest(&self, segments: &[Segment]) -> (&Node, usize) {
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
    pub(super) fn key_of(&self, node: &Node) -> Option<&Node> {
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
    pub(super) fn replace(
        &self,
        node: &Node,
        path: &YamlPath,
        value: &Value,
    ) -> Result<String, EditError> {
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
    pub(super) fn add_key(
        &self,
        map: &Node,
        key: &str,
        value: &Value,
        place: &Placement,
    ) -> String {
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
