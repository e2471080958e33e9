//! Reading manifests: multi-document YAML (plain files, rendered Helm or Kustomize output, JSON),
//! `kind: List` unpacked, each object remembering the file and line it came from. The files are
//! read by the caller (inside a work repo, from disk or from stdin); this only parses text.

use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::plan::object::{Object, Source, untag};
use crate::yaml::helm::{self, YamlError};

/// Why a manifest cannot be planned. Each names the file and line, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("{file}:{line}:{column}: not valid YAML: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    TooComplex { file: String, message: String },
    #[error(
        "{file}:{line}: this document is {what}, not a Kubernetes object (a map with apiVersion, kind and metadata)"
    )]
    NotAnObject {
        file: String,
        line: usize,
        what: &'static str,
    },
    #[error("{file}:{line}: this object has no `{field}`; every Kubernetes object needs one")]
    MissingField {
        file: String,
        line: usize,
        field: &'static str,
    },
    #[error(
        "{file}:{line}: `{path}` is {what}; Kubernetes wants text, so quote it: `{key}: \"{shown}\"`"
    )]
    NotText {
        file: String,
        line: usize,
        path: String,
        key: String,
        what: &'static str,
        shown: String,
    },
    #[error(
        "{file}:{line}: `{snippet}` is an unrendered Helm template; Argo CD renders a chart before it applies anything, and labcheck plans only what comes out. Render it first: `helm template NAME CHART_FOLDER | labcheck plan -`"
    )]
    Template {
        file: String,
        line: usize,
        snippet: String,
    },
}

/// What a file in a folder holds, read as Argo CD's repo server reads a directory source.
#[derive(Debug, Clone)]
pub enum FolderFile {
    Objects(Vec<Object>),
    /// Not a manifest: Argo CD ignores the file (a values file, a tool's config).
    NotKubernetes {
        why: String,
    },
}

/// Names only Helm gives a template: `{{ .Values.x }}` in a manifest means the chart was not
/// rendered. Other `{{ }}` (an Alertmanager or Go template inside a ConfigMap) are data.
const HELM_TEMPLATE_WORDS: &[&str] = &[
    ".Values",
    "$.Values",
    ".Release",
    "$.Release",
    ".Chart",
    ".Capabilities",
    ".Files",
    ".Template",
    "include ",
    "toYaml ",
    "required ",
    "tpl ",
    "template ",
    "define ",
];

/// The first `{{ … }}` in `text` that only Helm would write, with its line.
pub fn helm_template(text: &str) -> Option<(usize, String)> {
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("{{") {
            let after = &rest[start + 2..];
            let Some(end) = after.find("}}") else { break };
            let inner = after[..end].trim_matches(|c: char| c == '-' || c.is_whitespace());
            if HELM_TEMPLATE_WORDS.iter().any(|w| {
                inner.starts_with(w) || inner.contains(&format!(" {}", w.trim_start_matches('$')))
            }) {
                return Some((index + 1, format!("{{{{{}}}}}", &after[..end])));
            }
            rest = &after[end + 2..];
        }
    }
    None
}

/// The objects in `text`, read from `file` (as shown to the user), in the order written.
pub fn parse_manifests(file: &str, text: &str) -> Result<Vec<Object>, LoadError> {
    refuse_template(file, text)?;
    let mut objects = Vec::new();
    for (start, chunk) in split_documents(text) {
        parse_chunk(file, start, chunk, &mut objects)?;
    }
    Ok(objects)
}

fn refuse_template(file: &str, text: &str) -> Result<(), LoadError> {
    match helm_template(text) {
        Some((line, snippet)) => Err(LoadError::Template {
            file: file.to_string(),
            line,
            snippet,
        }),
        None => Ok(()),
    }
}

/// A file found in a folder, read as Argo CD's repo server reads it (`AC:
/// reposerver/repository/repository.go:2079-2107`, `getObjsFromYAMLOrJSON`): when a document
/// cannot be read as an object (broken YAML, not a map, no `kind`) before any object was read,
/// and the file does not hold all of `apiVersion:`, `kind:` and `metadata:`, the file is not a
/// manifest and Argo CD ignores it; otherwise the error stands (Argo CD fails the whole app).
pub fn parse_folder_file(file: &str, text: &str) -> Result<FolderFile, LoadError> {
    let mut objects = Vec::new();
    for (start, chunk) in split_documents(text) {
        let before = objects.len();
        match parse_chunk(file, start, chunk, &mut objects) {
            Ok(()) => {}
            Err(e) if before == 0 && objects.is_empty() && not_an_object(&e) => {
                let looks_like_manifest = ["apiVersion:", "kind:", "metadata:"]
                    .iter()
                    .all(|w| text.contains(w));
                if looks_like_manifest {
                    if let Some((line, snippet)) = helm_template(text) {
                        return Err(LoadError::Template {
                            file: file.to_string(),
                            line,
                            snippet,
                        });
                    }
                    return Err(e);
                }
                return Ok(FolderFile::NotKubernetes {
                    why: format!(
                        "not a Kubernetes object ({}): Argo CD ignores a file like this (a values file, a tool's config)",
                        match &e {
                            LoadError::Syntax { .. } => "not YAML it can read".to_string(),
                            LoadError::NotAnObject { what, .. } => format!("a document is {what}"),
                            _ => "no `kind`".to_string(),
                        }
                    ),
                });
            }
            Err(e) => return Err(e),
        }
    }
    refuse_template(file, text)?;
    Ok(FolderFile::Objects(objects))
}

/// Errors where Argo CD's decoder stops (`kubeyaml.NewYAMLOrJSONDecoder` into `Unstructured`,
/// which needs a map with a `kind`; `apiVersion` and the name are checked only later).
fn not_an_object(e: &LoadError) -> bool {
    matches!(
        e,
        LoadError::Syntax { .. }
            | LoadError::TooComplex { .. }
            | LoadError::NotAnObject { .. }
            | LoadError::MissingField { field: "kind", .. }
    )
}

fn parse_chunk(
    file: &str,
    start: usize,
    chunk: &str,
    objects: &mut Vec<Object>,
) -> Result<(), LoadError> {
    {
        let documents = helm::parse_documents(chunk).map_err(|e| match e {
            YamlError::Syntax {
                line,
                column,
                message,
            } => LoadError::Syntax {
                file: file.to_string(),
                line: start + line - 1,
                column,
                message,
            },
            YamlError::TooComplex(message) => LoadError::TooComplex {
                file: file.to_string(),
                message,
            },
        })?;
        let line = start + first_content_line(chunk);
        let source = Source {
            file: file.to_string(),
            line,
        };
        for document in documents {
            collect(&document, &source, objects)?;
        }
    }
    Ok(())
}

/// Split at `---` lines, keeping each document's first line number (1-based). A `---` at the start
/// of a line is always a document marker: text in a block scalar is indented.
fn split_documents(text: &str) -> Vec<(usize, &str)> {
    let mut chunks = Vec::new();
    let mut start_byte = 0;
    let mut start_line = 1;
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let is_marker =
            line.starts_with("---") && line[3..].chars().next().is_none_or(char::is_whitespace);
        if is_marker && offset > start_byte {
            chunks.push((start_line, &text[start_byte..offset]));
            start_byte = offset;
            start_line = index + 1;
        }
        offset += line.len();
    }
    chunks.push((start_line, &text[start_byte..]));
    chunks
}

/// Lines before the document's first real line (skipping `---`, blanks and comments).
fn first_content_line(chunk: &str) -> usize {
    chunk
        .lines()
        .position(|l| {
            let t = l.trim();
            !(t.is_empty() || t.starts_with('#') || t.starts_with("---"))
        })
        .unwrap_or(0)
}

fn describe(value: &Value) -> &'static str {
    match untag(value) {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a map",
        Value::Tagged(_) => "a tagged value",
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::from("…"),
    }
}

fn collect(document: &Value, source: &Source, out: &mut Vec<Object>) -> Result<(), LoadError> {
    let document = untag(document);
    let map = match document {
        // Comments only, or a trailing `---`: nothing to apply, as kubectl and Argo CD see it.
        Value::Null => return Ok(()),
        Value::Mapping(map) => map,
        other => {
            return Err(LoadError::NotAnObject {
                file: source.file.clone(),
                line: source.line,
                what: describe(other),
            });
        }
    };
    let text = |key: &str| map.get(key).map(untag).and_then(Value::as_str);
    let missing = |field| LoadError::MissingField {
        file: source.file.clone(),
        line: source.line,
        field,
    };
    // A metadata value Kubernetes wants as text, written as something else.
    let not_text = |path: String, key: &str, value: &Value| LoadError::NotText {
        file: source.file.clone(),
        line: source.line,
        path,
        key: key.to_string(),
        what: describe(value),
        shown: scalar_text(value),
    };
    let kind = text("kind").ok_or_else(|| missing("kind"))?;
    // kubectl unpacks `kind: List` (and `…List`) into its items.
    if kind.ends_with("List")
        && let Some(Value::Sequence(items)) = map.get("items").map(untag)
    {
        for item in items {
            collect(item, source, out)?;
        }
        return Ok(());
    }
    let api_version = text("apiVersion").ok_or_else(|| missing("apiVersion"))?;
    let metadata = map
        .get("metadata")
        .map(untag)
        .and_then(Value::as_mapping)
        .ok_or_else(|| missing("metadata"))?;
    let meta_text = |key: &str| {
        metadata
            .get(key)
            .map(untag)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    for key in ["name", "generateName", "namespace"] {
        if let Some(value) = metadata.get(key).map(untag)
            && !matches!(value, Value::String(_) | Value::Null)
        {
            return Err(not_text(format!("metadata.{key}"), key, value));
        }
    }
    let (name, generate_name) = match (meta_text("name"), meta_text("generateName")) {
        (Some(name), _) => (name.to_string(), false),
        (None, Some(prefix)) => (prefix.to_string(), true),
        (None, None) => return Err(missing("metadata.name")),
    };
    let mut annotations = BTreeMap::new();
    if let Some(Value::Mapping(found)) = metadata.get("annotations").map(untag) {
        for (key, value) in found {
            let Some(key) = untag(key).as_str() else {
                continue;
            };
            match untag(value) {
                Value::String(s) => {
                    annotations.insert(key.to_string(), s.clone());
                }
                Value::Null => {
                    annotations.insert(key.to_string(), String::new());
                }
                other => {
                    return Err(not_text(
                        format!("metadata.annotations[\"{key}\"]"),
                        key,
                        other,
                    ));
                }
            }
        }
    }
    out.push(Object {
        source: source.clone(),
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        name,
        generate_name,
        namespace: meta_text("namespace").unwrap_or_default().to_string(),
        annotations,
        body: document.clone(),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::objects;

    #[test]
    fn every_document_keeps_its_file_and_line() {
        let text = "# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# Source: shop/templates/job.yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: b\n---\n";
        let found: Vec<(String, usize)> = objects(text)
            .iter()
            .map(|o| (o.reference(), o.source.line))
            .collect();
        assert_eq!(
            found,
            vec![("ConfigMap/a".to_string(), 2), ("Job/b".to_string(), 8)]
        );
    }

    #[test]
    fn a_list_is_unpacked() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n";
        assert_eq!(objects(text).len(), 2);
    }

    #[test]
    fn broken_yaml_names_the_line_in_the_whole_file() {
        let text =
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: [\n";
        match parse_manifests("x.yaml", text) {
            Err(LoadError::Syntax { line, .. }) => assert!(line >= 6, "line {line}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unquoted_wave_is_refused_with_the_fix() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    argocd.argoproj.io/sync-wave: -1\n";
        let error = parse_manifests("cm.yaml", text)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some(
                "cm.yaml:1: `metadata.annotations[\"argocd.argoproj.io/sync-wave\"]` is a number; Kubernetes wants text, so quote it: `argocd.argoproj.io/sync-wave: \"-1\"`"
            )
        );
    }

    #[test]
    fn an_object_without_kind_is_refused() {
        let error = parse_manifests("a.yaml", "apiVersion: v1\nmetadata: {name: a}\n")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("a.yaml:1: this object has no `kind`; every Kubernetes object needs one")
        );
    }
}
