//! A learner's bundle (`labcheck bundle MODULE [STEP] -o FILE.tar.zst`): what an instructor needs
//! to help without the learner's machine, and nothing else. The report (human and JSON), the
//! cluster objects the step's checks read (a snapshot, Secrets blanked as every read is), and for
//! each work repo the step reads its branch, HEAD, upstream, status and last 20 commits (messages
//! and changed paths, never contents) plus the working-tree files the checks read. A file the
//! checks do not read, a Secret's value, a container's literal environment value and kubectl's
//! last-applied copy never go in.
//!
//! The one bundle module, from making to reading: [`open`] and [`Opened::make`] make one (the run, recorded, and
//! its reports as the reporters word them), [`replay`] gives `--bundle` the session the learner's run was, answered from the bundle, and
//! [`learners_in`] reads bundles back for the class page with the JSON report's own types. It
//! sits above the reporters and the class wing (it uses both), below the command line.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::checks::CheckKind;
use crate::course::{Module, Step};
use crate::probe::cluster::REDACTED;
use crate::probe::files::PathShower;
use crate::probe::git::{LoggedCommit, RepoReader};

mod make;
mod read;
mod replay;
mod tape;
pub use make::{Made, Opened, open};
pub use read::learners_in;
pub use replay::replay;
pub use tape::{add_tape, replay_tape};

/// The format this labcheck writes (in `bundle.json`). v2 added the probes' answers that
/// `labcheck MODULE STEP --bundle FILE` replays.
pub const FORMAT: &str = "labcheck-bundle/v2";

/// How many commits of each repo's history go in.
pub const COMMITS: usize = 20;

/// The cluster part, as a snapshot file (`labcheck serve --bundle` serves it).
pub const CLUSTER: &str = "cluster.yaml";

/// The largest bundle labcheck reads back (a bundle holds a few files and a snapshot).
const MAX_READ_BYTES: u64 = 256 * 1024 * 1024;

/// Why a bundle cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("cannot write the bundle {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot read the bundle {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("cannot read --bundles {path}: {source}")]
    Folder {
        path: String,
        source: std::io::Error,
    },
    #[error("the bundle {path} {reason}")]
    Refused { path: String, reason: String },
}

/// The files of a bundle, in the order they are written.
#[derive(Debug, Default, Clone)]
pub struct Bundle {
    entries: Vec<(String, Vec<u8>)>,
}

impl Bundle {
    /// Add `bytes` as `path` (a relative path with `/`).
    pub fn add(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.entries.push((path.into(), bytes.into()));
    }

    /// The entry at `path`.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.entries
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, b)| b.as_slice())
    }

    /// Every path in it.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(p, _)| p.as_str())
    }

    /// The bundle as a zstd-compressed tar.
    pub fn to_tar_zst(&self) -> std::io::Result<Vec<u8>> {
        let mut tar = tar::Builder::new(Vec::new());
        for (path, bytes) in &self.entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, path, bytes.as_slice())?;
        }
        let tar = tar.into_inner()?;
        zstd::encode_all(tar.as_slice(), 0)
    }

    /// Read a bundle file written by [`Bundle::to_tar_zst`].
    pub fn load(path: &Path) -> Result<Bundle, BundleError> {
        let failed = |reason: String| BundleError::Read {
            path: path.display().to_string(),
            reason,
        };
        let bytes = crate::paths::read_regular(path, MAX_READ_BYTES)
            .map_err(|e| failed(format!("{e:?}")))?;
        let tar = zstd::decode_all(bytes.as_slice())
            .map_err(|e| failed(format!("not zstd-compressed: {e}")))?;
        let mut archive = tar::Archive::new(tar.as_slice());
        let mut bundle = Bundle::default();
        let entries = archive
            .entries()
            .map_err(|e| failed(format!("not a tar archive: {e}")))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| failed(format!("a broken tar entry: {e}")))?;
            let name = entry
                .path()
                .map_err(|e| failed(format!("a broken tar entry: {e}")))?
                .to_string_lossy()
                .into_owned();
            let mut content = Vec::new();
            entry
                .read_to_end(&mut content)
                .map_err(|e| failed(format!("cannot read {name}: {e}")))?;
            bundle.add(name, content);
        }
        if bundle.get("bundle.json").is_none() {
            return Err(failed(
                "no bundle.json: not a bundle from `labcheck bundle`".to_string(),
            ));
        }
        Ok(bundle)
    }
}

/// What a bundle says of itself.
#[derive(Debug, Serialize, Deserialize)]
pub struct About {
    pub format: String,
    pub module: String,
    pub step: Option<String>,
    pub track: String,
    /// When it was made (UTC).
    pub created: String,
    /// The learner's work dir, so a replay's report names the paths the learner's did.
    #[serde(default)]
    pub work_dir: PathBuf,
    /// The learner's home, when their work dir is under it (as `work_dir` already says), so a
    /// replay shows their paths as `~/work/…` as their report did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<PathBuf>,
    /// `--argocd-namespace` of the learner's run, so a replay asks for the same Applications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argocd_namespace: Option<String>,
    /// Why the cluster part is missing, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_error: Option<String>,
}

/// One work repo's state as `git.json` holds it.
#[derive(Debug, Serialize)]
pub struct RepoFacts {
    pub repo: String,
    /// Why it could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub upstream: Option<Upstream>,
    /// `git status --porcelain`'s paths.
    pub status: Vec<String>,
    pub operation: Option<String>,
    pub commits: Vec<LoggedCommit>,
    /// The files the checks read, as found (`files/<path>` in the bundle).
    pub files_read: Vec<String>,
    /// Files the checks read that could not be read, and why.
    pub files_unread: Vec<(String, String)>,
}

/// A branch's upstream.
#[derive(Debug, Serialize)]
pub struct Upstream {
    pub name: String,
    pub sha: String,
    pub ahead: usize,
    pub behind: usize,
}

/// The work repos `steps` read, with the working-tree files (or folders, for `manifests`) their
/// checks read: (repo name, paths).
pub fn reads(steps: &[&Step]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for check in steps.iter().flat_map(|s| &s.checks) {
        let (repo, paths): (&str, Vec<String>) = match &check.kind {
            CheckKind::YamlValue(spec) => (&spec.repo, vec![spec.file.clone()]),
            CheckKind::Diff(spec) => (&spec.repo, vec![spec.file.clone()]),
            CheckKind::Manifests(spec) => (&spec.repo, spec.paths.clone()),
            other => {
                for repo in other.repos() {
                    if !out.iter().any(|(r, _)| r == repo) {
                        out.push((repo.to_string(), Vec::new()));
                    }
                }
                continue;
            }
        };
        match out.iter_mut().find(|(r, _)| r == repo) {
            Some((_, known)) => known.extend(paths),
            None => out.push((repo.to_string(), paths)),
        }
    }
    for (_, paths) in &mut out {
        paths.sort();
        paths.dedup();
    }
    out.sort();
    out
}

/// Read one work repo into `bundle` under `repos/<name>/`: its state and the files the checks
/// read (through the checks' own safe reads: nothing outside the repo, only regular files),
/// their paths shown by `shower`, the run's own, so a bundle never reads `HOME` on its own.
pub fn add_repo(
    bundle: &mut Bundle,
    module: &Module,
    work_dir: &Path,
    shower: &PathShower,
    repo: &str,
    paths: &[String],
) {
    let dir = work_dir.join(
        module
            .manifest
            .repos
            .iter()
            .find(|r| r.name == repo)
            .map_or(repo, |r| r.dir_name()),
    );
    let mut facts = RepoFacts {
        repo: repo.to_string(),
        error: None,
        branch: None,
        head: None,
        upstream: None,
        status: Vec::new(),
        operation: None,
        commits: Vec::new(),
        files_read: Vec::new(),
        files_unread: Vec::new(),
    };
    match RepoReader::open(&dir).and_then(|reader| Ok((reader.snapshot()?, reader))) {
        Ok((state, reader)) => {
            facts.branch = state.branch;
            facts.upstream = state.upstream.map(|u| Upstream {
                name: u.name,
                sha: u.sha,
                ahead: u.ahead,
                behind: u.behind,
            });
            facts.status = state.dirty;
            facts.status.extend(state.untracked);
            facts.status.sort();
            facts.operation = state.operation;
            if let Some(head) = state.head {
                match reader.log_with_paths(&head.sha, COMMITS) {
                    Ok(commits) => facts.commits = commits,
                    Err(e) => facts.error = Some(e.to_string()),
                }
                facts.head = Some(head.sha);
            }
        }
        Err(e) => facts.error = Some(e.to_string()),
    }
    for path in paths {
        match crate::probe::manifests::read_manifests(&dir, path, shower) {
            Ok(files) => {
                for (name, text) in files {
                    bundle.add(format!("repos/{repo}/files/{name}"), text);
                    facts.files_read.push(name);
                }
            }
            Err(e) => facts.files_unread.push((path.clone(), e.to_string())),
        }
    }
    let json = serde_json::to_vec_pretty(&facts).unwrap_or_default();
    bundle.add(format!("repos/{repo}/git.json"), json);
}

/// Blank what a snapshot may carry besides Secrets that can hold a credential: literal `env`
/// values of containers (pods, Jobs' templates) and kubectl's last-applied copy of any object.
pub fn redact_credentials(object: &mut Value) {
    if let Some(annotations) = object
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
        && let Some(value) = annotations.get_mut("kubectl.kubernetes.io/last-applied-configuration")
    {
        *value = Value::String(REDACTED.to_string());
    }
    for spec in [
        "/spec",
        "/spec/template/spec",
        "/spec/jobTemplate/spec/template/spec",
    ] {
        for containers in ["containers", "initContainers", "ephemeralContainers"] {
            let pointer = format!("{spec}/{containers}");
            let Some(list) = object.pointer_mut(&pointer).and_then(Value::as_array_mut) else {
                continue;
            };
            for container in list {
                let Some(env) = container.get_mut("env").and_then(Value::as_array_mut) else {
                    continue;
                };
                for var in env {
                    if let Some(value) = var.get_mut("value") {
                        *value = Value::String(REDACTED.to_string());
                    }
                }
            }
        }
    }
}
