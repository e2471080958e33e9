//! The nodes of a YAML file with where each stands (byte offsets from `granit-parser`'s event
//! spans), and the small line arithmetic the edits need.

use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};

use super::EditError;
use crate::yaml::helm::YamlError;

/// A node of the file with where it stands (byte offsets: `start` inclusive, `end` exclusive).
#[derive(Debug)]
pub(super) struct Node {
    pub(super) kind: Kind,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) flow: bool,
    pub(super) style: Option<ScalarStyle>,
}

#[derive(Debug)]
pub(super) enum Kind {
    Scalar(String),
    Map(Vec<(Node, Node)>),
    Seq(Vec<Node>),
    Alias,
}

impl Node {
    pub(super) fn is_key(&self, key: &str) -> bool {
        matches!(&self.kind, Kind::Scalar(s) if s == key)
    }

    /// An empty plain scalar: a key written with nothing after it.
    pub(super) fn is_empty_scalar(&self) -> bool {
        matches!(self.kind, Kind::Scalar(_)) && self.start == self.end
    }
}

/// `text` with `from..to` replaced by `with`.
pub(super) fn splice(text: &str, from: usize, to: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..from]);
    out.push_str(with);
    out.push_str(&text[to.max(from)..]);
    out
}

pub(super) fn only_spaces(s: &str) -> bool {
    s.chars().all(|c| c == ' ')
}

/// Where the line holding `at` starts; the first line after a byte-order mark, which is no column.
pub(super) fn line_start(text: &str, at: usize) -> usize {
    let bom = text.len() - crate::yaml::helm::without_bom(text).len();
    text[..at].rfind('\n').map_or(bom.min(at), |i| i + 1)
}

pub(super) fn column(text: &str, at: usize) -> usize {
    at - line_start(text, at)
}

/// The end of the node's last character that is not white space (a block scalar's span runs
/// on over the blank lines after it).
pub(super) fn content_end(text: &str, node: &Node) -> usize {
    node.start + text[node.start..node.end.max(node.start)].trim_end().len()
}

/// Just past the line break of the line holding the node's last character.
pub(super) fn last_line_end(text: &str, node: &Node) -> usize {
    let mut last = node.end.max(node.start);
    // A block scalar's span ends after its line breaks: step back onto its last character.
    while last > node.start && matches!(text.as_bytes()[last - 1], b'\n' | b'\r') {
        last -= 1;
    }
    match text[last..].find('\n') {
        Some(i) => last + i + 1,
        None => text.len(),
    }
}

/// The start of the comment lines (at `indent`) right above the line starting at `at`.
pub(super) fn comments_above(text: &str, at: usize, indent: usize) -> usize {
    let mut start = at;
    while start > 0 {
        let prev = line_start(text, start - 1);
        let line = text[prev..start].trim_end_matches(['\n', '\r']);
        let body = line.trim_start_matches(' ');
        if body.starts_with('#') && line.len() - body.len() == indent {
            start = prev;
        } else {
            break;
        }
    }
    start
}

/// The `:` after a key (spaces between allowed).
pub(super) fn colon_after(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    rest[skipped..].starts_with(':').then_some(at + skipped)
}

/// Every document of `text` as nodes with their positions.
pub(super) fn parse_tree(text: &str) -> Result<Vec<Node>, EditError> {
    enum Open {
        Map(Vec<Node>, usize, bool),
        Seq(Vec<Node>, usize, bool),
    }
    let mut documents = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let syntax = |span: &Span, message: String| {
        EditError::Yaml(YamlError::Syntax {
            line: span.start.line(),
            column: span.start.col() + 1,
            message,
        })
    };
    // Parsed without a byte-order mark, as the Helm reader parses (`helm::without_bom`); the
    // positions are the file's own, so an edit keeps the mark.
    let body = crate::yaml::helm::without_bom(text);
    let bom = text.len() - body.len();
    let offset = |span: &Span| {
        span.byte_range()
            .map_or((bom, bom), |r| (r.start + bom, r.end + bom))
    };
    let mut parser = Parser::new_from_str(body);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| {
            EditError::Yaml(YamlError::Syntax {
                line: e.marker().line(),
                column: e.marker().col() + 1,
                message: e.info().to_string(),
            })
        })?;
        let (start, end) = offset(&span);
        let done = match event {
            Event::Scalar(value, style, _, _) => Some(Node {
                kind: Kind::Scalar(value.into_owned()),
                start,
                end,
                flow: false,
                style: Some(style),
            }),
            Event::Alias(_) => Some(Node {
                kind: Kind::Alias,
                start,
                end,
                flow: false,
                style: None,
            }),
            Event::MappingStart(style, _, _) => {
                stack.push(Open::Map(Vec::new(), start, style == StructureStyle::Flow));
                None
            }
            Event::SequenceStart(style, _, _) => {
                stack.push(Open::Seq(Vec::new(), start, style == StructureStyle::Flow));
                None
            }
            Event::MappingEnd => match stack.pop() {
                Some(Open::Map(children, open, flow)) => {
                    let mut entries = Vec::new();
                    let mut children = children.into_iter();
                    while let (Some(k), Some(v)) = (children.next(), children.next()) {
                        entries.push((k, v));
                    }
                    let first = entries.first().map_or(open, |(k, _)| k.start);
                    let last = entries.last().map_or(end, |(_, v)| v.end);
                    Some(Node {
                        kind: Kind::Map(entries),
                        start: if flow {
                            open
                        } else {
                            first.min(open.max(first))
                        },
                        end: if flow { end } else { last },
                        flow,
                        style: None,
                    })
                }
                _ => return Err(syntax(&span, "a map ends that never began".to_string())),
            },
            Event::SequenceEnd => match stack.pop() {
                Some(Open::Seq(items, open, flow)) => {
                    let last = items.last().map_or(end, |i| i.end);
                    Some(Node {
                        kind: Kind::Seq(items),
                        start: open,
                        end: if flow { end } else { last },
                        flow,
                        style: None,
                    })
                }
                _ => return Err(syntax(&span, "a list ends that never began".to_string())),
            },
            _ => None,
        };
        if let Some(node) = done {
            match stack.last_mut() {
                Some(Open::Map(children, _, _) | Open::Seq(children, _, _)) => children.push(node),
                None => documents.push(node),
            }
        }
    }
    Ok(documents)
}
