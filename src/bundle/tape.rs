//! The probes' answers in a bundle: what `labcheck bundle` recorded (see `probe::tape`), one JSON
//! file per work repo (`repos/<name>/answers.json`) and one for the cluster's reads
//! (`cluster-answers.json`, the statuses; the objects are in `cluster.yaml`), and reading them back
//! for `labcheck MODULE STEP --bundle FILE`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{About, Bundle, BundleError, CLUSTER, FORMAT};
use crate::course::Module;
use crate::probe::tape::{self, Tape};
use crate::snapshot::Snapshot;

/// The cluster's answers (by URL asked).
pub const CLUSTER_ANSWERS: &str = "cluster-answers.json";

/// A work repo's answers, in `repos/<name>/`.
const REPO_ANSWERS: &str = "answers.json";

/// One work repo's answers: its folder under the work dir, and the answer to each question.
#[derive(Serialize, Deserialize)]
struct RepoAnswers {
    dir: String,
    answers: BTreeMap<String, Value>,
}

/// Put `tape`'s answers into `bundle`.
pub fn add_tape(bundle: &mut Bundle, module: &Module, tape: &Tape) {
    for (area, answers) in tape.areas() {
        if area == tape::CLUSTER {
            bundle.add(
                CLUSTER_ANSWERS,
                serde_json::to_vec_pretty(&answers).unwrap_or_default(),
            );
            continue;
        }
        let name = module
            .manifest
            .repos
            .iter()
            .find(|r| r.dir_name() == area)
            .map_or_else(|| area.clone(), |r| r.name.clone());
        let file = RepoAnswers { dir: area, answers };
        bundle.add(
            format!("repos/{name}/{REPO_ANSWERS}"),
            serde_json::to_vec_pretty(&file).unwrap_or_default(),
        );
    }
}

/// What a replay of `bundle` (read from `path`) for `module` needs: what the bundle says of
/// itself, its answers, and its cluster part. A bundle of another format or module is refused.
pub fn replay_tape(
    bundle: &Bundle,
    path: &Path,
    module: &str,
) -> Result<(About, Tape, Option<Snapshot>), BundleError> {
    let refused = |reason: String| BundleError::Refused {
        path: path.display().to_string(),
        reason,
    };
    let about: About = bundle
        .get("bundle.json")
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        .ok_or_else(|| refused("has no readable bundle.json".to_string()))
        .and_then(|value| {
            let format = value["format"].as_str().unwrap_or("no format").to_string();
            if format != FORMAT {
                return Err(refused(format!(
                    "is of format {format}, and this labcheck replays {FORMAT}: ask the learner for a new bundle made with this labcheck (`labcheck bundle MODULE STEP -o FILE`)"
                )));
            }
            serde_json::from_value(value)
                .map_err(|e| refused(format!("has a bundle.json this labcheck cannot read: {e}")))
        })?;
    if about.module != module {
        return Err(refused(format!(
            "is a bundle of {}, not of {module}: replay it with `labcheck {} {}--bundle {}`",
            about.module,
            about.module,
            about
                .step
                .as_deref()
                .map(|s| format!("{s} "))
                .unwrap_or_default(),
            path.display()
        )));
    }
    let mut areas: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    if let Some(bytes) = bundle.get(CLUSTER_ANSWERS) {
        let answers = serde_json::from_slice(bytes)
            .map_err(|e| refused(format!("has a {CLUSTER_ANSWERS} that is not readable: {e}")))?;
        areas.insert(tape::CLUSTER.to_string(), answers);
    }
    for name in bundle.paths() {
        if !(name.starts_with("repos/") && name.ends_with(&format!("/{REPO_ANSWERS}"))) {
            continue;
        }
        let file: RepoAnswers = bundle
            .get(name)
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .ok_or_else(|| refused(format!("has a {name} that is not readable")))?;
        areas.insert(file.dir, file.answers);
    }
    let cluster = match bundle.get(CLUSTER) {
        Some(yaml) => Some(
            Snapshot::from_yaml_str(&String::from_utf8_lossy(yaml))
                .map_err(|e| refused(format!("has a cluster part that is not a snapshot: {e}")))?,
        ),
        None => None,
    };
    Ok((about, Tape::from_areas(areas), cluster))
}
