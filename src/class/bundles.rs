//! Learners from bundles (`labcheck class serve … --bundles DIR`): each `NAME.tar.zst` in DIR is
//! learner NAME, shown with the verdicts their bundle's `report.json` records and, on a click,
//! the bundle's `report.txt` (their terminal's words when they made it). Nothing in a bundle
//! changes, so such a learner is read once and never re-run.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::seat::LearnerRun;
use crate::bundle::Bundle;
use crate::causes::CauseId;
use crate::checks::CheckKind;
use crate::outcome::{Cause, Outcome, Status};
use crate::run::{CheckReport, SkipReason, StepReport};

/// A learner read from a bundle file.
#[derive(Debug, Clone)]
pub struct FromBundle {
    pub learner: String,
    pub file: PathBuf,
    pub run: LearnerRun,
    /// The bundle's `report.txt`.
    pub report: String,
}

/// Every `*.tar.zst` in `dir`, sorted by name; a file that is not a bundle is an error naming it.
pub fn read_dir(dir: &Path) -> Result<Vec<FromBundle>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read --bundles {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".tar.zst"))
        .collect();
    files.sort();
    files.iter().map(|f| read(f)).collect()
}

/// One bundle as a learner.
pub fn read(file: &Path) -> Result<FromBundle, String> {
    let bundle = Bundle::load(file).map_err(|e| e.to_string())?;
    let learner = file
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".tar.zst").to_string())
        .unwrap_or_default();
    let json: Value = bundle
        .get("report.json")
        .and_then(|b| serde_json::from_slice(b).ok())
        .ok_or_else(|| format!("{}: no readable report.json", file.display()))?;
    let docs = match json["steps"].as_array() {
        Some(steps) => steps.clone(),
        None => vec![json],
    };
    let steps: Vec<StepReport> = docs.iter().map(step).collect();
    let report = bundle
        .get("report.txt")
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    Ok(FromBundle {
        run: LearnerRun {
            learner: learner.clone(),
            work_dir: None,
            status: Status::fold(steps.iter().map(|s| s.status)),
            steps,
            placeholders: Vec::new(),
        },
        learner,
        file: file.to_path_buf(),
        report,
    })
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

fn status(v: &Value) -> Status {
    match v["status"].as_str() {
        Some("pass") => Status::Pass,
        Some("fail") => Status::Fail,
        Some("skip") => Status::Skip,
        _ => Status::Error,
    }
}

/// A step document of `-o json` back as the report it was written from (the fields the page
/// shows: status, why skipped, each check's status, summary, hint and cause).
fn step(doc: &Value) -> StepReport {
    let checks = doc["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(check)
        .collect();
    let mut report = StepReport::new(
        text(doc, "module"),
        text(doc, "step"),
        text(doc, "title"),
        text(doc, "track"),
        checks,
    );
    report.status = status(doc);
    report.skipped = match doc["skipped"]["reason"].as_str() {
        Some("replaced") => Some(SkipReason::Replaced {
            by: text(&doc["skipped"], "by"),
        }),
        Some("not-on-track") => Some(SkipReason::NotOnTrack {
            track: text(&doc["skipped"], "track"),
        }),
        Some("nothing-to-judge") => Some(SkipReason::NothingToJudge),
        _ => None,
    };
    report
}

fn check(doc: &Value) -> CheckReport {
    let summary = text(doc, "summary");
    let mut outcome = match status(doc) {
        Status::Pass => Outcome::pass(summary),
        Status::Fail => Outcome::fail(summary),
        Status::Skip => Outcome::skip(summary),
        Status::Error => Outcome::could_not_check(summary),
    };
    if let Some(hint) = doc["hint"].as_str() {
        outcome = outcome.with_hint(hint.to_string());
    }
    if let Some(cause) = doc["cause"].as_str() {
        let (id, object) = match cause.split_once(':') {
            Some((id, object)) => (id, Some(object)),
            None => (cause, None),
        };
        if let Some(id) = CauseId::from_id(id) {
            outcome = outcome.with_cause(match object {
                Some(object) => Cause::about(id, object),
                None => Cause::new(id),
            });
        }
    }
    let kind = CheckKind::NAMES
        .iter()
        .copied()
        .find(|k| doc["kind"] == *k)
        .unwrap_or("sequence");
    CheckReport::new(text(doc, "id"), kind, text(doc, "title"), outcome)
}
