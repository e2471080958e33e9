//! A small renderer for the part of Helm's templates the lab's charts use, so the tests can
//! render `modules/*/lab/**/chart` with each step's values on a machine without `helm`.
//!
//! What it understands, with Go's `text/template` meaning: `{{ .Values.a.b }}` (a missing key
//! renders as nothing, as Helm's output does), string and number literals, pipelines through
//! `default X` and `quote`, `{{ if … }}` / `{{ else }}` / `{{ end }}` with Go's truthiness, and
//! the trim markers `{{-` and `-}}`. Anything else is an error naming the template and the
//! action, never a guess: a chart that grows past this subset fails its test loudly.

use serde_yaml::{Mapping, Value};

/// Why a template could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{template}: {message}")]
pub struct RenderError {
    pub template: String,
    pub message: String,
}

/// One piece of a template: literal text or an action, after trim markers were applied.
#[derive(Debug)]
enum Token<'t> {
    Text(String),
    Action(&'t str),
}

/// The template as a tree.
#[derive(Debug)]
enum Node<'t> {
    Text(String),
    Print(&'t str),
    If {
        condition: &'t str,
        then: Vec<Node<'t>>,
        otherwise: Vec<Node<'t>>,
    },
}

/// Render one template (`name` is for errors) with `values` as `.Values`.
pub fn render(name: &str, text: &str, values: &Value) -> Result<String, RenderError> {
    let error = |message: String| RenderError {
        template: name.to_string(),
        message,
    };
    let tokens = tokenize(text).map_err(error)?;
    let mut tokens = tokens.into_iter();
    let (nodes, end) = parse(&mut tokens).map_err(error)?;
    if let Some(end) = end {
        return Err(error(format!("`{{{{ {end} }}}}` without an `if`")));
    }
    let mut out = String::new();
    emit(&nodes, values, &mut out).map_err(error)?;
    Ok(out)
}

/// Helm's merge of a values file over the chart's defaults: maps merge key by key, anything
/// else in `over` replaces the default.
pub fn coalesce(defaults: &Value, over: &Value) -> Value {
    match (defaults, over) {
        (Value::Mapping(base), Value::Mapping(top)) => {
            let mut merged: Mapping = base.clone();
            for (key, value) in top {
                let next = match base.get(key) {
                    Some(old) => coalesce(old, value),
                    None => value.clone(),
                };
                merged.insert(key.clone(), next);
            }
            Value::Mapping(merged)
        }
        (_, Value::Null) => defaults.clone(),
        (_, other) => other.clone(),
    }
}

/// Render every template of a chart as `helm template` prints them: each file's documents after
/// a `---` and a `# Source:` line, files in name order. `files` are the chart's files relative to
/// the chart folder; only `templates/*.yaml` are rendered.
pub fn render_chart(
    chart: &str,
    files: &[(String, String)],
    values: &Value,
) -> Result<String, RenderError> {
    let mut templates: Vec<&(String, String)> = files
        .iter()
        .filter(|(path, _)| path.starts_with("templates/") && path.ends_with(".yaml"))
        .collect();
    templates.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (path, text) in templates {
        let rendered = render(path, text, values)?;
        if rendered.trim().is_empty() {
            continue;
        }
        out.push_str(&format!("---\n# Source: {chart}/{path}\n"));
        out.push_str(rendered.trim_start_matches('\n'));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

fn tokenize(text: &str) -> Result<Vec<Token<'_>>, String> {
    let mut tokens = Vec::new();
    let mut rest = text;
    let mut trim_next = false;
    while let Some(open) = rest.find("{{") {
        let mut literal = rest[..open].to_string();
        if trim_next {
            literal = literal.trim_start().to_string();
        }
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .ok_or_else(|| format!("`{{{{` at byte {open} is never closed"))?;
        let mut inner = &after[..close];
        // Go's trim markers need a space beside the dash (`{{- x -}}`); `{{-3}}` is a number.
        if let Some(stripped) = inner.strip_prefix("- ") {
            literal = literal.trim_end().to_string();
            inner = stripped;
        }
        trim_next = false;
        if let Some(stripped) = inner.strip_suffix(" -") {
            trim_next = true;
            inner = stripped;
        }
        tokens.push(Token::Text(literal));
        tokens.push(Token::Action(inner.trim()));
        rest = &after[close + 2..];
    }
    let tail = if trim_next { rest.trim_start() } else { rest };
    tokens.push(Token::Text(tail.to_string()));
    Ok(tokens)
}

/// Parse until `end`/`else` (returned) or the end of the tokens.
fn parse<'t>(
    tokens: &mut impl Iterator<Item = Token<'t>>,
) -> Result<(Vec<Node<'t>>, Option<&'t str>), String> {
    let mut nodes = Vec::new();
    while let Some(token) = tokens.next() {
        match token {
            Token::Text(text) => nodes.push(Node::Text(text)),
            Token::Action(action) if action == "end" || action == "else" => {
                return Ok((nodes, Some(action)));
            }
            Token::Action(action) => {
                if let Some(condition) = action.strip_prefix("if ") {
                    let (then, stop) = parse(tokens)?;
                    let otherwise = match stop {
                        Some("else") => match parse(tokens)? {
                            (nodes, Some("end")) => nodes,
                            _ => return Err(format!("`if {condition}` has no `end` after `else`")),
                        },
                        Some(_) => Vec::new(),
                        None => return Err(format!("`if {condition}` has no `end`")),
                    };
                    nodes.push(Node::If {
                        condition: condition.trim(),
                        then,
                        otherwise,
                    });
                } else if action.starts_with("/*") {
                    // A comment renders as nothing.
                } else {
                    let word = action.split_whitespace().next().unwrap_or_default();
                    if matches!(
                        word,
                        "range" | "with" | "define" | "template" | "include" | "block"
                    ) {
                        return Err(format!(
                            "`{{{{ {action} }}}}`: `{word}` is outside what this renderer reads"
                        ));
                    }
                    nodes.push(Node::Print(action));
                }
            }
        }
    }
    Ok((nodes, None))
}

fn emit(nodes: &[Node<'_>], values: &Value, out: &mut String) -> Result<(), String> {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Print(pipeline) => out.push_str(&show(&evaluate(pipeline, values)?, pipeline)?),
            Node::If {
                condition,
                then,
                otherwise,
            } => {
                if truthy(&evaluate(condition, values)?) {
                    emit(then, values, out)?;
                } else {
                    emit(otherwise, values, out)?;
                }
            }
        }
    }
    Ok(())
}

/// Go's truthiness: false, 0, nil and empty strings, lists and maps are false.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Sequence(s) => !s.is_empty(),
        Value::Mapping(m) => !m.is_empty(),
        Value::Tagged(t) => truthy(&t.value),
    }
}

fn evaluate(pipeline: &str, values: &Value) -> Result<Value, String> {
    let mut stages = split_pipeline(pipeline)?.into_iter();
    let first = stages.next().unwrap_or_default();
    let mut value = operand(first.trim(), values)?;
    for stage in stages {
        let words = words(stage.trim())?;
        value = match words.as_slice() {
            [f] if f == "quote" => Value::String(format!("{:?}", show(&value, pipeline)?)),
            [f, arg] if f == "default" => {
                if truthy(&value) {
                    value
                } else {
                    operand(arg, values)?
                }
            }
            _ => {
                return Err(format!(
                    "`{{{{ {pipeline} }}}}`: the function `{}` is outside what this renderer reads",
                    stage.trim()
                ));
            }
        };
    }
    Ok(value)
}

/// `.Values.a.b`, `"text"` or a number.
fn operand(word: &str, values: &Value) -> Result<Value, String> {
    if let Some(path) = word.strip_prefix(".Values") {
        let mut here = values;
        for key in path.split('.').filter(|k| !k.is_empty()) {
            match here.get(key) {
                Some(next) => here = next,
                None => return Ok(Value::Null),
            }
        }
        return Ok(here.clone());
    }
    if word.starts_with('"') {
        return serde_json::from_str::<String>(word)
            .map(Value::String)
            .map_err(|e| format!("`{word}` is not a Go string literal: {e}"));
    }
    if let Ok(n) = word.parse::<i64>() {
        return Ok(Value::Number(n.into()));
    }
    Err(format!(
        "`{word}` is outside what this renderer reads (.Values paths and literals)"
    ))
}

/// Split on `|` outside string literals.
fn split_pipeline(pipeline: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in pipeline.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '|' if !quoted => {
                parts.push(&pipeline[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted {
        return Err(format!("`{pipeline}` has an unclosed string"));
    }
    parts.push(&pipeline[start..]);
    Ok(parts)
}

/// A pipeline stage's words: a string literal stays one word.
fn words(stage: &str) -> Result<Vec<String>, String> {
    shlex::split(stage).map_or_else(
        || Err(format!("`{stage}` cannot be split into words")),
        |split| {
            // shlex drops the quotes; put them back on what was a string literal.
            Ok(split
                .into_iter()
                .enumerate()
                .map(|(i, w)| {
                    if i > 0 && stage.contains(&format!("\"{w}\"")) {
                        format!("{w:?}")
                    } else {
                        w
                    }
                })
                .collect())
        },
    )
}

/// How Go prints a value inside a template.
fn show(value: &Value, pipeline: &str) -> Result<String, String> {
    Ok(match value {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Tagged(t) => show(&t.value, pipeline)?,
        Value::Sequence(_) | Value::Mapping(_) => {
            return Err(format!(
                "`{{{{ {pipeline} }}}}` prints a list or map; this renderer prints only scalars (use toYaml in Helm)"
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Value {
        serde_yaml::from_str(text).expect("test values parse")
    }

    #[test]
    fn renders_the_subset_with_go_semantics() {
        let v = values("image: {tag: '6.7.1'}\nmigration: {enabled: true, fail: false}\nn: 0\n");
        let cases = [
            ("tag {{ .Values.image.tag }}", "tag 6.7.1"),
            ("{{ .Values.missing.key }}|", "|"),
            ("{{ .Values.missing | default \"/healthz\" }}", "/healthz"),
            ("{{ .Values.image.tag | quote }}", "\"6.7.1\""),
            (
                "a\n{{- if .Values.migration.enabled }}\nb\n{{- end }}\nc",
                "a\nb\nc",
            ),
            (
                "a\n{{- if .Values.migration.fail }}\nb\n{{- end }}\nc",
                "a\nc",
            ),
            ("{{ if .Values.n }}x{{ else }}y{{ end }}", "y"),
            ("x {{- 3 -}} y", "x3y"),
            ("{{/* a comment */}}z", "z"),
        ];
        for (template, want) in cases {
            assert_eq!(render("t", template, &v).as_deref(), Ok(want), "{template}");
        }
    }

    #[test]
    fn refuses_what_it_does_not_read_instead_of_guessing() {
        let v = values("a: 1\n");
        for template in [
            "{{ range .Values.a }}x{{ end }}",
            "{{ .Values.a | upper }}",
            "{{ include \"x\" . }}",
            "{{ if .Values.a }}open",
            "{{ end }}",
            "{{ .Release.Name }}",
            "{{ .Values.a",
        ] {
            let error = render("t.yaml", template, &v).expect_err(template);
            assert_eq!(error.template, "t.yaml");
        }
    }

    #[test]
    fn a_values_file_overrides_the_defaults_key_by_key() {
        let defaults = values(
            "image: {repository: r, tag: '1'}\nsmokeTest: {enabled: false, path: /healthz}\n",
        );
        let dev = values("image: {tag: '2'}\nsmokeTest: {enabled: true}\n");
        assert_eq!(
            coalesce(&defaults, &dev),
            values(
                "image: {repository: r, tag: '2'}\nsmokeTest: {enabled: true, path: /healthz}\n"
            )
        );
    }
}
