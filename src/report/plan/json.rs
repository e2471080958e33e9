//! The sync plan and rule findings as one JSON document.

use serde_json::{Value, json};

use super::{app_health_text, app_text};
use crate::plan::{AppHealth, Plan, Task, WAVE_DELAY_SECONDS};
use crate::rules::{Finding, Severity};

fn task_json(plan: &Plan, task: &Task) -> Value {
    let o = plan.object(task);
    let mut value = json!({
        "kind": o.kind,
        "api_version": o.api_version,
        "name": o.name,
        "namespace": o.namespace,
        "source": o.source.to_string(),
        "hook": task.hook,
        "prune": task.prune,
    });
    if task.hook {
        value["delete_policies"] = json!(
            o.delete_policies()
                .iter()
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
        );
    }
    if o.generate_name {
        value["generate_name"] = json!(true);
    }
    if plan.created_namespace == Some(task.object) && !task.prune {
        value["created_by"] = json!("CreateNamespace=true");
    }
    if let Some(mode) = plan.apply_mode(task) {
        value["apply_mode"] = json!(mode);
    }
    if let Some(moved) = &task.moved {
        value["moved"] =
            json!({"before": moved.before, "phase": moved.from.0, "wave": moved.from.1});
    }
    value
}

/// The plan as one JSON document; `findings` only when rules ran.
pub fn render_json(plan: &Plan, findings: Option<&[Finding]>) -> String {
    let mut text = serde_json::to_string_pretty(&json_value(plan, findings)).unwrap_or_default();
    text.push('\n');
    text
}

/// The followed children of an app of apps, as JSON.
fn children_json(plan: &Plan) -> Value {
    json!(
        plan.children
            .iter()
            .map(|c| {
                let mut value = json!({"name": c.name, "source": c.source.to_string()});
                match &c.outcome {
                    Ok((child, findings)) => {
                        value["folder"] = json!(c.folder);
                        value["plan"] = json_value(child, findings.as_deref());
                    }
                    Err(why) => value["not_followed"] = json!(why),
                }
                value
            })
            .collect::<Vec<_>>()
    )
}

fn json_value(plan: &Plan, findings: Option<&[Finding]>) -> Value {
    let steps: Vec<Value> = plan
        .steps
        .iter()
        .map(|s| {
            json!({
                "phase": s.phase,
                "wave": s.wave,
                "tasks": s.tasks.iter().map(|t| task_json(plan, t)).collect::<Vec<_>>(),
                "waits": s.waits,
                "not_awaited": s.not_awaited.iter().map(|(o, why)| json!({"object": o, "why": why})).collect::<Vec<_>>(),
                "last": s.last,
                "delete_first": s.deleted_before_creation(plan).iter().map(|t| plan.object(t).reference()).collect::<Vec<_>>(),
                "apply_groups": s.apply_groups(plan).iter().map(|g| g.iter().map(|t| plan.object(t).reference()).collect::<Vec<_>>()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut doc = json!({
        "objects": plan.objects.len(),
        "wave_delay_seconds": WAVE_DELAY_SECONDS,
        "steps": steps,
        "on_failure": plan.on_failure.iter().map(|t| task_json(plan, t)).collect::<Vec<_>>(),
        "on_deletion": plan.on_deletion.iter().map(|(i, h)| {
            let o = &plan.objects[*i];
            json!({"kind": o.kind, "name": o.name, "source": o.source.to_string(), "hook": h})
        }).collect::<Vec<_>>(),
        "not_applied": plan.not_applied.iter().map(|n| {
            let o = &plan.objects[n.object];
            json!({"kind": o.kind, "name": o.name, "source": o.source.to_string(), "why": n.why})
        }).collect::<Vec<_>>(),
    });
    doc["multi_step"] = json!(plan.multi_step);
    doc["duplicates"] = json!(
        plan.duplicates
            .iter()
            .map(|d| json!({"key": d.key, "message": d.message(),
                            "sources": d.sources.iter().map(|s| s.to_string()).collect::<Vec<_>>()}))
            .collect::<Vec<_>>()
    );
    if let Some(health) = &plan.app_health {
        doc["application_health"] = match health {
            AppHealth::Checked { source, key } => {
                json!({"checked": true, "source": source.to_string(), "key": key, "why": app_health_text(health)})
            }
            AppHealth::NotChecked => json!({"checked": false, "why": app_health_text(health)}),
        };
    }
    doc["skipped_files"] = json!(
        plan.skipped_files
            .iter()
            .map(|(f, why)| json!({"file": f, "why": why}))
            .collect::<Vec<_>>()
    );
    doc["context"] = json!(
        plan.context
            .iter()
            .map(|(o, why)| json!({"kind": o.kind, "name": o.name, "source": o.source.to_string(), "why": why}))
            .collect::<Vec<_>>()
    );
    if let Some(app) = &plan.app {
        doc["application"] = json!({
            "name": app.name(),
            "source": app.object.source.to_string(),
            "destination_namespace": app.destination_namespace,
            "sync_options": app.sync_options,
            "automated": app.automated,
            "why": app_text(app),
            "taken_because": plan.app_why,
        });
    }
    if !plan.not_taken.is_empty() {
        doc["applications_not_taken"] = json!(
            plan.not_taken
                .iter()
                .map(|n| json!({"name": n.name, "source": n.source.to_string(), "why": n.why, "how": n.how}))
                .collect::<Vec<_>>()
        );
    }
    if !plan.app_notes.is_empty() {
        doc["application_notes"] = json!(plan.app_notes);
    }
    if let Some(findings) = findings {
        doc["findings"] = json!(findings);
        doc["warnings"] = json!(
            findings
                .iter()
                .filter(|f| f.severity == Severity::Warning)
                .count()
        );
        let errors = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        if errors > 0 {
            doc["errors"] = json!(errors);
        }
    }
    if !plan.children.is_empty() {
        doc["children"] = children_json(plan);
    }
    doc
}
