//! The sync plan and rule findings, for people (here) and as one JSON document (`json`).

mod json;

pub use json::render_json;

use std::fmt::Write;

use owo_colors::OwoColorize;

use super::Styles;
use crate::plan::{AppHealth, Object, Plan, Task, WAVE_DELAY_SECONDS, Wait, unawaited_in_one_step};
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

/// A section's title line, bold.
fn heading(out: &mut String, styles: Styles, title: &str) {
    let _ = writeln!(out, "{}", bold(styles, title));
}

/// An object's line under a section: its reference, what the section says of it, and (dimmed)
/// where it was read.
fn object_line(out: &mut String, styles: Styles, object: &Object, says: &str) {
    let _ = writeln!(
        out,
        "      {:<34}  {says}  {}",
        object.reference(),
        dim(styles, &object.source.to_string())
    );
}

fn severity(styles: Styles, s: Severity) -> String {
    let word = format!("{:<7}", s.as_str());
    match (styles.color, s) {
        (false, _) => word,
        (true, Severity::Error) => word.red().to_string(),
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
    if plan.created_namespace == Some(task.object) && !task.prune {
        notes.push("CreateNamespace=true: created only if it does not exist yet".to_string());
    }
    if let Some(mode) = plan.apply_mode(task) {
        notes.push(mode.to_string());
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
        Wait::HealthyCustom { object, means } => format!("{object}: {means}"),
        Wait::Deleted { object } => format!("{object} is gone (pruned)"),
    }
}

/// What Argo CD does inside a step before the applies, when it does more than apply.
fn step_order(plan: &Plan, step: &crate::plan::Step) -> Option<String> {
    let prunes: Vec<String> = step
        .tasks
        .iter()
        .filter(|t| t.prune)
        .map(|t| plan.object(t).reference())
        .collect();
    let deletes: Vec<String> = step
        .deleted_before_creation(plan)
        .iter()
        .map(|t| plan.object(t).reference())
        .collect();
    if prunes.is_empty() && deletes.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !prunes.is_empty() {
        parts.push(format!("prunes {} first", prunes.join(", ")));
    }
    if !deletes.is_empty() {
        parts.push(format!(
            "{} any copy of {} left by an earlier sync (BeforeHookCreation) and waits until it is gone",
            if prunes.is_empty() { "deletes first" } else { "then deletes" },
            deletes.join(", ")
        ));
    }
    let groups: Vec<String> = step
        .apply_groups(plan)
        .iter()
        .map(|g| {
            g.iter()
                .map(|t| plan.object(t).reference())
                .collect::<Vec<_>>()
                .join(" + ")
        })
        .collect();
    if !groups.is_empty() {
        parts.push(format!("then applies {}", groups.join(", then ")));
    }
    Some(parts.join("; "))
}

fn app_health_text(health: &AppHealth) -> String {
    match health {
        AppHealth::Checked { source, key } => format!(
            "Applications: argocd-cm ({source}) gives them a health check (`{key}`), so a step with Applications waits until each is Healthy"
        ),
        AppHealth::NotChecked => "Applications: no argocd-cm with `resource.customizations.health.argoproj.io_Application` in the input, so an Application has no health check (none is built in since Argo CD 1.8): a wave of Applications is done as soon as they are applied, and the next wave does not wait for them. Add that key to argocd-cm (module 10, step 1) to make waves of Applications wait".to_string(),
    }
}

/// The Application's settings that shape the plan, in one paragraph.
fn app_text(app: &crate::plan::AppSettings) -> String {
    let mut parts = vec![format!(
        "Application {} ({}) syncs these manifests",
        app.name(),
        app.object.source
    )];
    if let Some(ns) = &app.destination_namespace {
        parts.push(format!(
            "objects without a namespace go to `{ns}` (cluster-scoped ones never)"
        ));
    }
    if app.sync_options.is_empty() {
        parts.push("no sync options".to_string());
    } else {
        parts.push(format!("sync options: {}", app.sync_options.join(", ")));
    }
    parts.push(app.retries.describe());
    if app.has("ApplyOutOfSyncOnly=true") {
        parts.push("ApplyOutOfSyncOnly=true: only objects that differ from the cluster are applied, the order of the rest stays".to_string());
    }
    parts.join("; ")
}

/// The plan (and the findings, when rules ran) for people.
pub fn render_human(plan: &Plan, findings: Option<&[Finding]>, styles: Styles) -> String {
    let mut out = String::new();
    let files: std::collections::BTreeSet<&str> = plan
        .objects
        .iter()
        .map(|o| o.source.file.as_str())
        .collect();
    heading(
        &mut out,
        styles,
        &format!(
            "Sync plan: {} object(s) from {} file(s), in the order Argo CD applies them",
            plan.objects.len(),
            files.len()
        ),
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
        if let Some(order) = step_order(plan, step) {
            let _ = writeln!(
                out,
                "    {}",
                dim(styles, &format!("in this step Argo CD {order}"))
            );
        }
        for (object, why) in &step.not_awaited {
            let _ = writeln!(out, "    {}", dim(styles, &format!("({object}: {why})")));
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
    let unawaited = unawaited_in_one_step(plan);
    if !unawaited.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            dim(
                styles,
                &format!(
                    "One step only (one phase, one wave, SyncFail hooks counted): Argo CD waits for hooks but not for the health of {}",
                    unawaited.join(", ")
                )
            )
        );
    }
    if let Some(health) = &plan.app_health {
        let _ = writeln!(out, "{}", app_health_text(health));
    }
    if let Some(app) = &plan.app {
        let _ = writeln!(out, "{}", app_text(app));
        if let Some(why) = &plan.app_why {
            let _ = writeln!(out, "    {}", dim(styles, &format!("taken because {why}")));
        }
    }
    for note in &plan.app_notes {
        let _ = writeln!(out, "{} {note}", bold(styles, "Note:"));
    }
    if !plan.not_taken.is_empty() {
        heading(
            &mut out,
            styles,
            if plan.app.is_some() {
                "Other Applications in the input (this plan is not for them):"
            } else {
                "Applications in the input (this plan is for none of them, so no Application's settings apply):"
            },
        );
        for n in &plan.not_taken {
            let _ = writeln!(
                out,
                "      Application/{:<22}  {}  {}",
                n.name,
                n.why,
                dim(styles, &n.source.to_string())
            );
            let _ = writeln!(out, "        → {}", n.how);
        }
    }
    if !plan.skipped_files.is_empty() {
        heading(&mut out, styles, "Not read (as Argo CD reads a folder):");
        for (file, why) in &plan.skipped_files {
            let _ = writeln!(out, "      {file}  {}", dim(styles, why));
        }
    }
    if !plan.context.is_empty() {
        heading(&mut out, styles, "Read, but not part of this sync:");
        for (o, why) in &plan.context {
            object_line(&mut out, styles, o, why);
        }
    }
    for duplicate in &plan.duplicates {
        let (last, earlier) = duplicate
            .sources
            .split_last()
            .map(|(l, e)| {
                (
                    l.to_string(),
                    e.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} {} Argo CD applies only the last copy ({last}), not {}",
            bold(styles, "Warning:"),
            duplicate.message(),
            earlier.join(", ")
        );
    }
    if !plan.on_failure.is_empty() {
        heading(
            &mut out,
            styles,
            "Only if the sync fails (SyncFail hooks, in this order):",
        );
        for task in &plan.on_failure {
            let _ = writeln!(out, "{}", task_line(plan, task, styles));
        }
    }
    if !plan.on_deletion.is_empty() {
        heading(&mut out, styles, "Only when the Application is deleted:");
        for (index, hook) in &plan.on_deletion {
            object_line(&mut out, styles, &plan.objects[*index], hook.as_str());
        }
    }
    if !plan.not_applied.is_empty() {
        heading(&mut out, styles, "Never applied by a sync:");
        for skipped in &plan.not_applied {
            object_line(
                &mut out,
                styles,
                &plan.objects[skipped.object],
                &skipped.why,
            );
        }
    }
    if let Some(findings) = findings {
        out.push('\n');
        out.push_str(&render_findings(findings, styles));
    }
    for child in &plan.children {
        out.push('\n');
        match &child.outcome {
            Ok((plan, findings)) => {
                heading(
                    &mut out,
                    styles,
                    &format!(
                        "Child Application {} ({}) syncs {}:",
                        child.name,
                        child.source,
                        child.folder.as_deref().unwrap_or("")
                    ),
                );
                out.push_str(&render_human(plan, findings.as_deref(), styles));
            }
            Err(why) => {
                let _ = writeln!(
                    out,
                    "{} not followed: {why}",
                    bold(
                        styles,
                        &format!("Child Application {} ({}):", child.name, child.source)
                    )
                );
            }
        }
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
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let notes = findings.len() - warnings - errors;
    if findings.is_empty() {
        heading(&mut out, styles, "Rules: nothing found");
        return out;
    }
    heading(
        &mut out,
        styles,
        &if errors > 0 {
            format!("Rules: {errors} error(s), {warnings} warning(s), {notes} note(s)")
        } else {
            format!("Rules: {warnings} warning(s), {notes} note(s)")
        },
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
