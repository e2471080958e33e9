//! Which revision Argo CD holds for one work repo, in single- and multi-source Applications.
//!
//! A multi-source app has no `revision`: it has `revisions[]`, one per source, in the order of the
//! source list stored **next to them** (`comparedTo.sources`, `syncResult.sources`,
//! `history[].sources`), which may differ from `spec.sources` after an edit (facts-2 §1.2–1.4). So
//! the source is found by its `repoURL` in that list, never by its index in the spec.

use crate::probe::cluster::argocd::{AppSource, Application, HistoryEntry};
use crate::repo_url::{self, name as repo_name};

/// A revision list with the source list it belongs to.
#[derive(Debug, Clone, Copy)]
pub struct RevisionView<'a> {
    pub revision: Option<&'a str>,
    pub revisions: &'a [String],
    pub source: Option<&'a AppSource>,
    pub sources: &'a [AppSource],
}

/// What a view says about one repo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The revisions of the sources that point at the repo (several when the repo is listed more
    /// than once, e.g. a chart path and a `ref:` of the same repo).
    Found(Vec<String>),
    /// Nothing recorded yet (no comparison, or a failed one).
    Nothing,
    /// `revisions` and `sources` differ in length: the comparison failed or is in progress.
    Mismatch { revisions: usize, sources: usize },
    /// No source points at the repo; these are the repoURLs it has.
    NotFollowed(Vec<String>),
}

/// A work repo as Argo CD would name it: its `origin` URL and its folder name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoId {
    pub name: String,
    pub origin_url: Option<String>,
}

/// Indices of the sources that point at `repo`: by the normalised `origin` URL; failing that
/// (Argo CD often reaches the Git server by another host name than the learner), by the repo's
/// name as the last segment of the URL.
pub fn matching_sources(sources: &[&AppSource], repo: &RepoId) -> Vec<usize> {
    if let Some(origin) = &repo.origin_url {
        let origin = repo_url::normalise(origin);
        let exact: Vec<usize> = (0..sources.len())
            .filter(|&i| repo_url::normalise(&sources[i].repo_url) == origin)
            .collect();
        if !exact.is_empty() {
            return exact;
        }
    }
    let name = repo
        .origin_url
        .as_deref()
        .map(repo_name)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| repo.name.to_ascii_lowercase());
    (0..sources.len())
        .filter(|&i| repo_name(&sources[i].repo_url) == name)
        .collect()
}

impl<'a> RevisionView<'a> {
    /// `status.sync`: what Argo CD compares to now.
    pub fn compared(app: &'a Application) -> Self {
        let sync = &app.status.sync;
        RevisionView {
            revision: sync.revision.as_deref(),
            revisions: &sync.revisions,
            source: sync.compared_to.source.as_ref(),
            sources: &sync.compared_to.sources,
        }
    }

    /// The last operation: its `syncResult` once it has one, else what was requested.
    pub fn operation(app: &'a Application) -> Option<Self> {
        let op = app.last_operation()?;
        if let Some(result) = &op.sync_result
            && (result.revision.as_deref().is_some_and(|r| !r.is_empty())
                || !result.revisions.is_empty())
        {
            return Some(RevisionView {
                revision: result.revision.as_deref(),
                revisions: &result.revisions,
                source: result.source.as_ref(),
                sources: &result.sources,
            });
        }
        let sync = op.operation.sync.as_ref()?;
        Some(RevisionView {
            revision: sync.revision.as_deref(),
            revisions: &sync.revisions,
            source: sync.source.as_ref(),
            // ≤ v3.1 auto-sync carries no sources; the spec is then the best list there is, and a
            // length mismatch still makes the lookup refuse.
            sources: if sync.sources.is_empty() {
                &app.spec.sources
            } else {
                &sync.sources
            },
        })
    }

    /// One history entry (successful full syncs only).
    pub fn history(entry: &'a HistoryEntry) -> Self {
        RevisionView {
            revision: entry.revision.as_deref(),
            revisions: &entry.revisions,
            source: entry.source.as_ref(),
            sources: &entry.sources,
        }
    }

    fn is_multi(&self) -> bool {
        !self.revisions.is_empty() || !self.sources.is_empty()
    }

    /// The revisions this view holds for `repo`.
    pub fn lookup(&self, repo: &RepoId) -> Lookup {
        if self.is_multi() {
            if self.revisions.is_empty() {
                return Lookup::Nothing;
            }
            if self.revisions.len() != self.sources.len() {
                return Lookup::Mismatch {
                    revisions: self.revisions.len(),
                    sources: self.sources.len(),
                };
            }
            let sources: Vec<&AppSource> = self.sources.iter().collect();
            let found = matching_sources(&sources, repo);
            if found.is_empty() {
                return Lookup::NotFollowed(
                    self.sources.iter().map(|s| s.repo_url.clone()).collect(),
                );
            }
            return Lookup::Found(found.iter().map(|&i| self.revisions[i].clone()).collect());
        }
        let Some(revision) = self.revision.filter(|r| !r.is_empty()) else {
            return Lookup::Nothing;
        };
        if let Some(source) = self.source.filter(|s| !s.repo_url.is_empty())
            && matching_sources(&[source], repo).is_empty()
        {
            return Lookup::NotFollowed(vec![source.repo_url.clone()]);
        }
        Lookup::Found(vec![revision.to_string()])
    }

    /// All revisions, as `argocd app get` shows them (`a, b`).
    pub fn shown(&self) -> String {
        if self.revisions.is_empty() {
            self.revision.unwrap_or("").to_string()
        } else {
            self.revisions.join(", ")
        }
    }

    /// Whether two views name the same revisions (same repo, same order).
    pub fn same_as(&self, other: &RevisionView) -> bool {
        let single = |v: &RevisionView| v.revision.filter(|r| !r.is_empty()).map(str::to_string);
        if self.is_multi() || other.is_multi() {
            !self.revisions.is_empty() && self.revisions == other.revisions
        } else {
            single(self).is_some() && single(self) == single(other)
        }
    }
}

/// The spec source(s) that point at `repo` (for the branch they track).
pub fn spec_sources_for<'a>(app: &'a Application, repo: &RepoId) -> Vec<&'a AppSource> {
    let sources: Vec<&AppSource> = if app.spec.sources.is_empty() {
        app.spec.source.iter().collect()
    } else {
        app.spec.sources.iter().collect()
    };
    matching_sources(&sources, repo)
        .into_iter()
        .map(|i| sources[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SHA: &str = "8f71ac5c6f43101b4ae32d7b903c76bda14adb99";

    /// The work repo `name` as the learner's clone knows it, with its origin at `url`.
    fn repo_at(name: &str, url: &str) -> RepoId {
        RepoId {
            name: name.to_string(),
            origin_url: Some(url.to_string()),
        }
    }

    fn repo() -> RepoId {
        repo_at(
            "checkout-config",
            "git@git.course.local:team-checkout/checkout-config.git",
        )
    }

    /// Facts-2 §1.5 (b): a Helm chart plus a `ref: values` source, in either order.
    fn multi(values_first: bool) -> Application {
        let (sources, revisions) = crate::checks::test_sources::chart_and_values(values_first, SHA);
        serde_json::from_value(json!({
            "spec": {"sources": sources},
            "status": {"sync": {"status": "Synced", "revisions": revisions,
                                "comparedTo": {"source": {"repoURL": ""}, "sources": sources}},
                       "operationState": {"phase": "Succeeded",
                           "operation": {"sync": {"revisions": revisions, "sources": sources}},
                           "syncResult": {"revision": "", "revisions": revisions,
                                          "source": {"repoURL": ""}, "sources": sources}}}
        }))
        .unwrap_or_default()
    }

    #[test]
    fn the_values_source_is_found_by_its_url_in_either_order() {
        for values_first in [false, true] {
            let app = multi(values_first);
            assert_eq!(
                RevisionView::compared(&app).lookup(&repo()),
                Lookup::Found(vec![SHA.to_string()]),
                "values first: {values_first}"
            );
            let op = RevisionView::operation(&app).map(|v| v.lookup(&repo()));
            assert_eq!(op, Some(Lookup::Found(vec![SHA.to_string()])));
        }
    }

    #[test]
    fn the_stored_source_list_wins_over_the_spec_order() {
        // The spec was edited (values moved first) after the last comparison.
        let mut app = multi(false);
        app.spec.sources.reverse();
        assert_eq!(
            RevisionView::compared(&app).lookup(&repo()),
            Lookup::Found(vec![SHA.to_string()])
        );
    }

    #[test]
    fn revisions_and_sources_of_different_lengths_are_not_read() {
        let mut app = multi(false);
        app.status.sync.revisions.pop();
        assert_eq!(
            RevisionView::compared(&app).lookup(&repo()),
            Lookup::Mismatch {
                revisions: 1,
                sources: 2
            }
        );
        app.status.sync.revisions.clear();
        assert_eq!(
            RevisionView::compared(&app).lookup(&repo()),
            Lookup::Nothing
        );
    }

    #[test]
    fn a_repo_no_source_points_at_is_named_as_not_followed() {
        let app = multi(false);
        let other = repo_at("argocd-platform", "/tmp/lab/remotes/argocd-platform.git");
        assert!(matches!(
            RevisionView::compared(&app).lookup(&other),
            Lookup::NotFollowed(urls) if urls.len() == 2
        ));
    }

    #[test]
    fn a_local_remote_matches_by_the_repo_name() {
        let app = multi(true);
        let local = repo_at("checkout-config", "/tmp/lab/remotes/checkout-config.git");
        assert_eq!(
            RevisionView::compared(&app).lookup(&local),
            Lookup::Found(vec![SHA.to_string()])
        );
    }

    #[test]
    fn a_single_source_app_reads_its_revision() {
        let app: Application = serde_json::from_value(json!({
            "spec": {"source": {"repoURL": "http://git.course.local/team-checkout/checkout-config.git", "targetRevision": "main"}},
            "status": {"sync": {"revision": SHA, "comparedTo": {"source": {"repoURL": "http://git.course.local/team-checkout/checkout-config.git"}}}}
        }))
        .unwrap_or_default();
        assert_eq!(
            RevisionView::compared(&app).lookup(&repo()),
            Lookup::Found(vec![SHA.to_string()])
        );
        assert_eq!(spec_sources_for(&app, &repo()).len(), 1);
    }
}
