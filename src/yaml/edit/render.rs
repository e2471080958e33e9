//! Values written as YAML text the way a person would: a scalar plain where it reads back as the
//! same text (under YAML 1.1 and 1.2), else in the quotes the learner uses nearby; maps and lists
//! in block or flow style; multi-line text as a literal block.

use granit_parser::ScalarStyle;
use serde_yaml::Value;

use super::key_text;
use super::tree::{Kind, Node};
use crate::yaml::helm;
use crate::yaml::value::untag;

/// How the learner quoted text nearby, kept for the text the edit writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    Plain,
    Single,
    Double,
}

impl Quote {
    pub(super) fn of(node: &Node) -> Quote {
        match (&node.kind, node.style) {
            (Kind::Scalar(_), Some(ScalarStyle::SingleQuoted)) => Quote::Single,
            (Kind::Scalar(_), Some(ScalarStyle::DoubleQuoted)) => Quote::Double,
            (Kind::Seq(items), _) => items.first().map_or(Quote::Plain, Quote::of),
            _ => Quote::Plain,
        }
    }
}

pub(super) fn is_collection(value: &Value) -> bool {
    matches!(untag(value), Value::Mapping(_) | Value::Sequence(_))
}

pub(super) fn is_multiline(value: &Value) -> bool {
    matches!(untag(value), Value::String(s) if s.contains('\n'))
}

/// A scalar as YAML text: a string quoted as `quote` asks, or plain when it reads back as the
/// same text (under YAML 1.1 and 1.2: `"yes"`, `"0755"` and `"6.7"` keep their quotes).
pub(super) fn render_scalar(value: &Value, quote: Quote, flow: bool) -> String {
    match untag(value) {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => match quote {
            Quote::Double => double(s),
            Quote::Single if !s.contains(['\n', '\r', '\t']) => {
                format!("'{}'", s.replace('\'', "''"))
            }
            _ if plain_ok(s, flow) => s.clone(),
            _ => double(s),
        },
        other => render_flow(other, quote),
    }
}

pub(super) fn double(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.replace('"', "\\\"")))
}

pub(super) fn render_key(key: &str) -> String {
    if plain_ok(key, false) {
        key.to_string()
    } else {
        double(key)
    }
}

/// Whether `s` written plain reads back as the same text, in block (or flow) context.
pub(super) fn plain_ok(s: &str, flow: bool) -> bool {
    if s.is_empty()
        || s.trim() != s
        || s.contains(['\n', '\r', '\t', '#'])
        || s.contains(": ")
        || s.ends_with(':')
        || s.starts_with([
            '-', '?', ':', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
            '`',
        ])
        || (flow && s.contains([',', '[', ']', '{', '}']))
    {
        return false;
    }
    matches!(helm::resolve_plain(s), Value::String(ref read) if read == s)
        && matches!(serde_yaml::from_str::<Value>(s), Ok(Value::String(ref read)) if read == s)
}

/// A value in flow style: `[a, b]`, `{k: v}`.
pub(super) fn render_flow(value: &Value, quote: Quote) -> String {
    match untag(value) {
        Value::Sequence(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| render_flow(i, quote))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Mapping(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!(
                    "{}: {}",
                    key_text(k).map_or_else(|_| "null".to_string(), |k| render_key(&k)),
                    render_flow(v, quote)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::String(s) if s.contains('\n') => double(s),
        other => render_scalar(other, quote, true),
    }
}

/// A value in block style, one string per line, each indented by `indent`.
pub(super) fn render_block(value: &Value, indent: usize, quote: Quote) -> Vec<String> {
    let pad = " ".repeat(indent);
    let mut lines = Vec::new();
    match untag(value) {
        Value::Mapping(map) if !map.is_empty() => {
            for (k, v) in map {
                let key = key_text(k).map_or_else(|_| "null".to_string(), |k| render_key(&k));
                match untag(v) {
                    Value::Mapping(m) if !m.is_empty() => {
                        lines.push(format!("{pad}{key}:"));
                        lines.extend(render_block(v, indent + 2, quote));
                    }
                    Value::Sequence(s) if !s.is_empty() => {
                        lines.push(format!("{pad}{key}:"));
                        lines.extend(render_block(v, indent + 2, quote));
                    }
                    Value::String(s) if s.contains('\n') && literal_ok(s) => {
                        let (header, body) = literal(s, indent + 2);
                        lines.push(format!("{pad}{key}: {header}"));
                        lines.extend(body);
                    }
                    _ => lines.push(format!("{pad}{key}: {}", render_scalar(v, quote, false))),
                }
            }
        }
        Value::Sequence(items) if !items.is_empty() => {
            for item in items {
                match untag(item) {
                    Value::Mapping(m) if !m.is_empty() => {
                        let inner = render_block(item, indent + 2, quote);
                        for (i, line) in inner.into_iter().enumerate() {
                            if i == 0 {
                                lines.push(format!(
                                    "{pad}- {}",
                                    &line[(indent + 2).min(line.len())..]
                                ));
                            } else {
                                lines.push(line);
                            }
                        }
                    }
                    _ => lines.push(format!("{pad}- {}", render_flow(item, quote))),
                }
            }
        }
        other => lines.push(format!("{pad}{}", render_flow(other, quote))),
    }
    lines
}

/// A multi-line text can be a literal block when its first line does not start with a space.
pub(super) fn literal_ok(s: &str) -> bool {
    !s.starts_with([' ', '\t'])
        && !s.contains('\r')
        && s.chars().all(|c| c == '\n' || !c.is_control() || c == '\t')
}

/// `|`, `|-` or `|+` and the text's lines at `indent`.
pub(super) fn literal(s: &str, indent: usize) -> (&'static str, Vec<String>) {
    let pad = " ".repeat(indent);
    let trailing = s.len() - s.trim_end_matches('\n').len();
    let header = match trailing {
        0 => "|-",
        1 => "|",
        _ => "|+",
    };
    let body = s.trim_end_matches('\n');
    let mut lines: Vec<String> = body
        .split('\n')
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect();
    lines.extend(std::iter::repeat_n(
        String::new(),
        trailing.saturating_sub(1),
    ));
    (header, lines)
}
