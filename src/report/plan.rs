//! The sync plan and rule findings, for people and as one JSON document.

use std::fmt::Write;

use owo_colors::OwoColorize;
use serde_json::{Value, json};

use super::Styles;
use crate::plan::{Plan, Task, WAVE_DELAY_SECONDS, Wait};
use crate::rules::{Finding, Severity};

fn bold(styles: Styles, text: &str) -> String {
    if styles.color {
        text.bold().to_string()
    } else {
        text.to_string()
    }
}

fn dim(styles: Styles, text: &str) -> String {
    if styles.color {
        text.dimmed().to_string()
    } else {
        text.to_string()
    }
}

fn severity(styles: Styles, s: Severity) -> String {
    let word = format!("{:<7}", s.as_str());
    match (styles.color, s) {
        (false, _) => word,
        (true, Severity::Warning) => word.yellow().to_string(),
        (true, Severity::Note) => word.cyan().to_string(),
    }
}

fn task_line(plan: &Plan, task: &Task, styles: Styles) -> String {
    let o = plan.object(task);
    let mut notes = Vec::new();
    if task.prune {
        notes.push("prune: live, no longer in git".to_string());
    }
    if task.hook {
        let policies: Vec<&str> = o.delete_policies().iter().map(|p| p.as_str()).collect();
        notes.push(format!("hook · delete: {}", policies.join(", ")));
    }
    if o.generate_name {
        notes.push("generateName: Argo CD adds revision, phase and time".to_string());
    }
    if let Some(moved) = &task.moved {
        notes.push(format!(
            "moved in front of {} (written as {} wave {})",
            moved.before, moved.from.0, moved.from.1
        ));
    }
    let name = match o.namespace.as_str() {
        "" => o.reference(),
        ns => format!("{} ({ns})", o.reference()),
    };
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!("  {}", notes.join(" · "))
    };
    format!(
        "      {name:<34}{notes}  {}",
        dim(styles, &o.source.to_string())
    )
}

fn wait_text(wait: &Wait) -> String {
    match wait {
        Wait::Completes { object } => format!("{object} has completed"),
        Wait::Healthy { object, means } => format!("{object}: {means}"),
        Wait::MaybeHealthy { object } => {
            format!("{object}, if Argo CD has a health check for its kind")
        }
    }
}

/// The plan (and the findings, when rules ran) for people.
pub fn render_human(plan: &Plan, findings: Option<&[Finding]>, styles: Styles) -> String {
    let mut out = String::new();
    let files: std::collections::BTreeSet<&str> = plan
        .objects
        .iter()
        .map(|o| o.source.file.as_str())
        .collect();
    let _ = writeln!(
        out,
        "{}",
        bold(
            styles,
            &format!(
                "Sync plan: {} object(s) from {} file(s), in the order Argo CD applies them",
                plan.objects.len(),
                files.len()
            )
        )
    );
    for (i, step) in plan.steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>2}. {}",
            i + 1,
            bold(styles, &format!("{} · wave {}", step.phase, step.wave))
        );
        for task in &step.tasks {
            let _ = writeln!(out, "{}", task_line(plan, task, styles));
        }
        let waits: Vec<String> = step.waits.iter().map(wait_text).collect();
        let line = match (step.last, waits.is_empty()) {
            (true, true) => "then the sync has succeeded: the last step of plain resources ends it right after applying".to_string(),
            (true, false) => format!("waits until {}; then the sync has succeeded", waits.join("; ")),
            (false, true) => format!("nothing to wait for (no health check), then {WAVE_DELAY_SECONDS} s"),
            (false, false) => format!("waits until {}, then {WAVE_DELAY_SECONDS} s", waits.join("; ")),
        };
        let _ = writeln!(out, "    {}", dim(styles, &format!("→ {line}")));
    }
    if plan.steps.is_empty() {
        let _ = writeln!(out, "    nothing to apply");
    }
    if !plan.on_failure.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            bold(
                styles,
                "Only if the sync fails (SyncFail hooks, in this order):"
            )
        );
        for task in &plan.on_failure {
            let _ = writeln!(out, "{}", task_line(plan, task, styles));
        }
    }
    if !plan.on_deletion.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            bold(styles, "Only when the Application is deleted:")
        );
        for (index, hook) in &plan.on_deletion {
            let o = &plan.objects[*index];
            let _ = writeln!(
                out,
                "      {:<34}  {}  {}",
                o.reference(),
                hook.as_str(),
                dim(styles, &o.source.to_string())
            );
        }
    }
    if !plan.not_applied.is_empty() {
        let _ = writeln!(out, "{}", bold(styles, "Never applied by a sync:"));
        for skipped in &plan.not_applied {
            let o = &plan.objects[skipped.object];
            let _ = writeln!(
                out,
                "      {:<34}  {}  {}",
                o.reference(),
                skipped.why,
                dim(styles, &o.source.to_string())
            );
        }
    }
    if let Some(findings) = findings {
        out.push('\n');
        out.push_str(&render_findings(findings, styles));
    }
    out
}

/// The findings alone, for people.
pub fn render_findings(findings: &[Finding], styles: Styles) -> String {
    let mut out = String::new();
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    let notes = findings.len() - warnings;
    if findings.is_empty() {
        let _ = writeln!(out, "{}", bold(styles, "Rules: nothing found"));
        return out;
    }
    let _ = writeln!(
        out,
        "{}",
        bold(
            styles,
            &format!("Rules: {warnings} warning(s), {notes} note(s)")
        )
    );
    for f in findings {
        let _ = writeln!(
            out,
            "{} {}  {}  {}",
            severity(styles, f.severity),
            f.rule,
            f.object,
            dim(styles, &f.source)
        );
        let _ = writeln!(out, "        why: {}", f.reason);
        let _ = writeln!(out, "        fix: {}", f.fix);
    }
    out
}

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
    if let Some(moved) = &task.moved {
        value["moved"] =
            json!({"before": moved.before, "phase": moved.from.0, "wave": moved.from.1});
    }
    value
}

/// The plan as one JSON document; `findings` only when rules ran.
pub fn render_json(plan: &Plan, findings: Option<&[Finding]>) -> String {
    let steps: Vec<Value> = plan
        .steps
        .iter()
        .map(|s| {
            json!({
                "phase": s.phase,
                "wave": s.wave,
                "tasks": s.tasks.iter().map(|t| task_json(plan, t)).collect::<Vec<_>>(),
                "waits": s.waits,
                "last": s.last,
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
    if let Some(findings) = findings {
        doc["findings"] = json!(findings);
        doc["warnings"] = json!(
            findings
                .iter()
                .filter(|f| f.severity == Severity::Warning)
                .count()
        );
    }
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
