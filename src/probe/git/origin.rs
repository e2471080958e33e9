//! What the `origin` remote of a work repository holds: its URL, its default branch, and
//! which of its branches contain a commit.

use std::path::Path;

use git2::Oid;

use super::error::GitProbeError;
use super::reader::RepoReader;

/// What the `origin` remote says about a commit, for "pushed where Argo CD looks".
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OriginView {
    /// `remote.origin.url`.
    pub url: Option<String>,
    /// The remote's default branch (`refs/remotes/origin/HEAD`), when the clone recorded it.
    pub default_branch: Option<String>,
    /// Every remote-tracking branch of `origin`, shown as `<name>`.
    pub branches: Vec<String>,
    /// The remote-tracking branches (`origin/<name>`, shown as `<name>`) whose tip is the commit
    /// or has it in its history.
    pub containing: Vec<String>,
}

/// Read `origin`'s URL, default branch and the remote branches that contain `sha`. Only reads.
pub fn origin_view(path: &Path, sha: &str) -> Result<OriginView, GitProbeError> {
    let reader = RepoReader::open(path)?;
    let repo = &reader.repo;
    let err = GitProbeError::git(path);
    let url = repo
        .find_remote("origin")
        .ok()
        .and_then(|r| r.url().ok().map(|u| u.to_string()));
    let default_branch = repo
        .find_reference("refs/remotes/origin/HEAD")
        .ok()
        .and_then(|r| r.symbolic_target().ok().flatten().map(|t| t.to_string()))
        .and_then(|t| t.strip_prefix("refs/remotes/origin/").map(str::to_string));
    let commit = Oid::from_str(sha).map_err(&err)?;
    let mut containing = Vec::new();
    let mut branches = Vec::new();
    for reference in repo
        .references_glob("refs/remotes/origin/*")
        .map_err(&err)?
    {
        let Ok(reference) = reference else { continue };
        let Some(name) = reference
            .name()
            .ok()
            .and_then(|n| n.strip_prefix("refs/remotes/origin/"))
            .filter(|n| *n != "HEAD")
            .map(str::to_string)
        else {
            continue;
        };
        let Ok(tip) = reference.peel_to_commit().map(|c| c.id()) else {
            continue;
        };
        branches.push(name.clone());
        if tip == commit || repo.graph_descendant_of(tip, commit).unwrap_or(false) {
            containing.push(name);
        }
    }
    containing.sort();
    branches.sort();
    Ok(OriginView {
        url,
        default_branch,
        branches,
        containing,
    })
}
