//! `Accept: application/json;as=Table;g=meta.k8s.io` answers: the columns `kubectl get` prints,
//! from the built-in printers (`printers.rs`) or a CRD's `additionalPrinterColumns`.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::printers::{self, Column, NAME};
use crate::snapshot::ResourceType;

/// What each row carries besides its cells (`includeObject`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Include {
    None,
    Metadata,
    Object,
}

impl Include {
    /// From the `includeObject` query parameter; the server's default is `Metadata`.
    pub fn parse(value: Option<&str>) -> Include {
        match value {
            Some("None") => Include::None,
            Some("Object") => Include::Object,
            _ => Include::Metadata,
        }
    }
}

/// A Table of `objects` of type `resource`.
pub fn render(
    resource: &ResourceType,
    objects: &[&Value],
    include: Include,
    resource_version: &str,
    now: Timestamp,
) -> Value {
    let (definitions, rows): (Vec<Value>, Vec<Vec<Value>>) = if !resource.printer_columns.is_empty()
    {
        let mut defs = vec![definition(&NAME)];
        defs.extend(resource.printer_columns.iter().map(|c| {
            json!({"name": c.name, "type": "string", "format": "", "description": c.json_path, "priority": c.priority})
        }));
        let rows = objects
            .iter()
            .map(|o| {
                let mut cells = vec![json!(name(o))];
                cells.extend(
                    resource
                        .printer_columns
                        .iter()
                        .map(|c| json_path(o, &c.json_path)),
                );
                cells
            })
            .collect();
        (defs, rows)
    } else {
        let (columns, cells) = printers::for_kind(&resource.kind);
        let defs = std::iter::once(&NAME)
            .chain(columns.iter())
            .map(definition)
            .collect();
        let rows = objects
            .iter()
            .map(|o| {
                let mut row = vec![json!(name(o))];
                row.extend(cells(o, now));
                row
            })
            .collect();
        (defs, rows)
    };
    let rows: Vec<Value> = objects
        .iter()
        .zip(rows)
        .map(|(object, cells)| {
            let mut row = json!({"cells": cells});
            match include {
                Include::None => {}
                Include::Metadata => {
                    row["object"] = json!({
                        "kind": "PartialObjectMetadata",
                        "apiVersion": "meta.k8s.io/v1",
                        "metadata": object.get("metadata").cloned().unwrap_or_else(|| json!({}))
                    });
                }
                Include::Object => row["object"] = (*object).clone(),
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version},
        "columnDefinitions": definitions,
        "rows": rows
    })
}

fn definition(c: &Column) -> Value {
    json!({"name": c.name, "type": c.kind, "format": c.format, "description": "", "priority": c.priority})
}

fn name(o: &Value) -> &str {
    o.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Follow a CRD printer column path such as `.status.sync.status` or `.spec.containers[0].image`;
/// a path that reaches nothing is a null cell, as the API server's CRD table converter makes it
/// (kubectl prints `<none>`).
fn json_path(o: &Value, path: &str) -> Value {
    let mut current = o;
    for part in path.trim_start_matches('.').split('.') {
        let (field, index) = match part.split_once('[') {
            Some((f, rest)) => (f, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let next = if field.is_empty() {
            Some(current)
        } else {
            current.get(field)
        };
        let next = match (next, index) {
            (Some(v), Some(i)) => v.get(i),
            (v, None) => v,
            (None, Some(_)) => None,
        };
        match next {
            Some(v) => current = v,
            None => return Value::Null,
        }
    }
    match current {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => current.clone(),
        Value::Null => Value::Null,
        other => json!(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printer_column_paths_reach_nested_and_indexed_fields() {
        let app =
            json!({"status": {"sync": {"status": "Synced"}}, "spec": {"c": [{"image": "x:1"}]}});
        assert_eq!(json_path(&app, ".status.sync.status"), "Synced");
        assert_eq!(json_path(&app, ".spec.c[0].image"), "x:1");
        assert_eq!(json_path(&app, ".status.health.status"), Value::Null);
    }
}
