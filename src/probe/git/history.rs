//! Walking a work repository's history: the log, the commits that touched a path, whether
//! HEAD reverts a commit, a file's content at a revision.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use git2::{Commit, ErrorCode, Oid, Sort, Tree};
use regex::Regex;

use super::CommitInfo;
use super::error::GitProbeError;
use super::reader::{RepoReader, commit_info};

/// How HEAD relates to a commit it should revert.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RevertFinding {
    /// HEAD's message names the commit and HEAD undoes exactly that commit's changes.
    Reverts,
    /// HEAD's message says it reverts the commit, but its files are not as before that commit:
    /// these paths differ (a hand-written "revert" message, or a revert edited afterwards).
    MessageOnly { differing: Vec<String> },
    /// HEAD undoes the commit's changes but its message lacks `This reverts commit <sha>`.
    ChangesOnly,
    /// HEAD's message says it reverts a different commit.
    RevertsOther { sha: String },
    /// HEAD is not a revert of the commit at all.
    NotARevert,
}

impl RepoReader {
    /// The one walk of a repo's history: the commits reachable from `tip` and not from `hide`,
    /// newest first (as `git log` orders them), each read as it is reached. Every question about
    /// history (the log, the commits that touched a path, the commit that made a change) walks
    /// with it.
    pub(super) fn walk<'r>(
        &'r self,
        tip: &str,
        hide: Option<&str>,
    ) -> Result<impl Iterator<Item = Result<Walked<'r>, GitProbeError>> + 'r, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let mut walk = self.repo.revwalk().map_err(&err)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
            .map_err(&err)?;
        walk.push(Oid::from_str(tip).map_err(&err)?).map_err(&err)?;
        if let Some(hide) = hide {
            walk.hide(Oid::from_str(hide).map_err(&err)?)
                .map_err(&err)?;
        }
        Ok(walk.map(move |oid| {
            let err = GitProbeError::git(&self.path);
            let commit = self.repo.find_commit(oid.map_err(&err)?).map_err(&err)?;
            Ok(Walked {
                reader: self,
                commit,
            })
        }))
    }

    /// Commits reachable from `tip`, newest first (as `git log` orders them).
    pub fn history(&self, tip: &str, limit: usize) -> Result<Vec<CommitInfo>, GitProbeError> {
        self.walk(tip, None)?
            .take(limit)
            .map(|walked| Ok(walked?.info()))
            .collect()
    }

    /// The newest commit reachable from `tip` (inclusive) whose message matches `pattern`.
    /// The message's trailing newline is dropped first, so `$` means "end of the message" as a
    /// course author expects (Rust's `$` does not match before a final `\n`).
    pub fn newest_matching(
        &self,
        tip: &str,
        pattern: &Regex,
    ) -> Result<Option<CommitInfo>, GitProbeError> {
        let found = self
            .history(tip, usize::MAX)?
            .into_iter()
            .find(|c| pattern.is_match(c.message.trim_end()));
        // Not found in a shallow clone: it may be in the part that was never fetched.
        if found.is_none() && self.repo.is_shallow() {
            return Err(self.shallow());
        }
        Ok(found)
    }

    fn shallow(&self) -> GitProbeError {
        GitProbeError::Shallow {
            path: self.path.clone(),
        }
    }

    /// `tip` if it changed `rel` compared with its first parent.
    pub fn tip_touches(&self, tip: &str, rel: &str) -> Result<Option<CommitInfo>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let commit = self
            .repo
            .find_commit(Oid::from_str(tip).map_err(&err)?)
            .map_err(&err)?;
        if commit.parent_count() == 0 && self.repo.is_shallow() {
            return Err(self.shallow());
        }
        let parent_tree = match commit.parent(0) {
            Ok(parent) => Some(parent.tree().map_err(&err)?),
            Err(_) => None,
        };
        let tree = commit.tree().map_err(&err)?;
        Ok(
            (entry_id(parent_tree.as_ref(), rel) != entry_id(Some(&tree), rel))
                .then(|| commit_info(&commit)),
        )
    }

    /// Commits after `since` (exclusive; from the root if `None`) up to `tip` (inclusive) that
    /// changed `rel` (a file, or anything under a folder), newest first. A commit is compared
    /// with its first parent, as `git log --first-parent -p` would show it.
    pub fn commits_touching(
        &self,
        tip: &str,
        since: Option<&str>,
        rel: &str,
    ) -> Result<Vec<CommitInfo>, GitProbeError> {
        let mut touching = Vec::new();
        for walked in self.walk(tip, since)? {
            let walked = walked?;
            // The cut edge of a shallow clone looks like a root commit that adds every file.
            walked.not_at_cut_edge()?;
            if walked.entry(rel)? != walked.parent_entry(rel)? {
                touching.push(walked.info());
            }
        }
        Ok(touching)
    }

    /// The newest commit reachable from `tip` that made a change to `rel`: `holds` is true for
    /// the file after the commit and false before it (its first parent; a root commit starts from
    /// no file). Found by content, so any commit message will do.
    pub fn newest_change(
        &self,
        tip: &str,
        rel: &str,
        holds: &dyn Fn(Option<&[u8]>) -> bool,
    ) -> Result<Option<CommitInfo>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        // The same blob comes back in many commits; judge each once.
        let mut judged: HashMap<Option<Oid>, bool> = HashMap::new();
        let mut judge = |id: Option<Oid>| -> Result<bool, GitProbeError> {
            if let Some(known) = judged.get(&id) {
                return Ok(*known);
            }
            let verdict = match id {
                None => holds(None),
                Some(id) => match self.repo.find_blob(id) {
                    Ok(blob) => holds(Some(blob.content())),
                    // A folder at that path: not a values file.
                    Err(e)
                        if e.code() == ErrorCode::NotFound && self.repo.find_tree(id).is_ok() =>
                    {
                        false
                    }
                    Err(e) => return Err(err(e)),
                },
            };
            judged.insert(id, verdict);
            Ok(verdict)
        };
        for walked in self.walk(tip, None)? {
            let walked = walked?;
            // The cut edge of a shallow clone: what came before is not here.
            walked.not_at_cut_edge()?;
            let (after, before) = (walked.entry(rel)?, walked.parent_entry(rel)?);
            if after != before && judge(after)? && !judge(before)? {
                return Ok(Some(walked.info()));
            }
        }
        Ok(None)
    }

    /// Commits reachable from `tip` but not from `since`, newest first: what came after `since`.
    pub fn commits_after(&self, tip: &str, since: &str) -> Result<Vec<CommitInfo>, GitProbeError> {
        self.walk(tip, Some(since))?
            .map(|walked| Ok(walked?.info()))
            .collect()
    }

    /// The first parent of `sha`; `None` for a root commit.
    pub fn parent(&self, sha: &str) -> Result<Option<String>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let commit = self
            .repo
            .find_commit(Oid::from_str(sha).map_err(&err)?)
            .map_err(&err)?;
        Ok(commit.parent_id(0).ok().map(|id| id.to_string()))
    }

    /// When commit `sha` was committed (committer time, Unix seconds); `None` when this clone
    /// does not have it.
    pub fn commit_time(&self, sha: &str) -> Result<Option<i64>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let Ok(oid) = Oid::from_str(sha) else {
            return Ok(None);
        };
        match self.repo.find_commit(oid) {
            Ok(commit) => Ok(Some(commit.time().seconds())),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(err(e)),
        }
    }

    /// Whether `rel` is the same object at the two commits (both without it counts as the same).
    pub fn same_file(&self, a: &str, b: &str, rel: &str) -> Result<bool, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let id = |sha: &str| -> Result<Option<Oid>, GitProbeError> {
            let commit = self
                .repo
                .find_commit(Oid::from_str(sha).map_err(&err)?)
                .map_err(&err)?;
            Ok(entry_id(Some(&commit.tree().map_err(&err)?), rel))
        };
        Ok(id(a)? == id(b)?)
    }

    /// Whether `head` reverts `target`: its message says `This reverts commit <target>` (what
    /// `git revert` writes) and its change is exactly the inverse of `target`'s change. When
    /// `head` directly follows `target`, that is: `head`'s tree equals `target`'s parent's tree.
    pub fn revert_finding(&self, head: &str, target: &str) -> Result<RevertFinding, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let head = self
            .repo
            .find_commit(Oid::from_str(head).map_err(&err)?)
            .map_err(&err)?;
        let target = self
            .repo
            .find_commit(Oid::from_str(target).map_err(&err)?)
            .map_err(&err)?;
        let named = reverted_sha(&String::from_utf8_lossy(head.message_bytes()));
        let target_tree = target.tree().map_err(&err)?;
        let before_target = match target.parent(0) {
            Ok(p) => Some(p.tree().map_err(&err)?),
            Err(_) => None,
        };
        let head_tree = head.tree().map_err(&err)?;
        let before_head = match head.parent(0) {
            Ok(p) => Some(p.tree().map_err(&err)?),
            Err(_) => None,
        };
        let target_changed = self.changed_paths(before_target.as_ref(), &target_tree)?;
        let head_changed = self.changed_paths(before_head.as_ref(), &head_tree)?;
        // Each path the target changed is back to its state before the target, and HEAD changed
        // nothing else.
        let mut differing: Vec<String> = target_changed
            .iter()
            .filter(|p| entry_id(Some(&head_tree), p) != entry_id(before_target.as_ref(), p))
            .cloned()
            .collect();
        differing.extend(
            head_changed
                .iter()
                .filter(|p| !target_changed.contains(*p))
                .cloned(),
        );
        differing.sort();
        differing.dedup();
        let undoes = differing.is_empty() && !target_changed.is_empty();
        let target_sha = target.id().to_string();
        Ok(match named {
            Some(sha) if sha == target_sha && undoes => RevertFinding::Reverts,
            Some(sha) if sha == target_sha => RevertFinding::MessageOnly { differing },
            Some(sha) if !undoes => RevertFinding::RevertsOther { sha },
            _ if undoes => RevertFinding::ChangesOnly,
            _ => RevertFinding::NotARevert,
        })
    }

    /// Paths whose content differs between two trees (`None` = the empty tree before a root
    /// commit).
    pub(super) fn changed_paths(
        &self,
        old: Option<&Tree<'_>>,
        new: &Tree<'_>,
    ) -> Result<BTreeSet<String>, GitProbeError> {
        let diff = self
            .repo
            .diff_tree_to_tree(old, Some(new), None)
            .map_err(GitProbeError::git(&self.path))?;
        let mut paths = BTreeSet::new();
        for delta in diff.deltas() {
            for file in [delta.old_file(), delta.new_file()] {
                if let Some(path) = file.path() {
                    paths.insert(path.to_string_lossy().into_owned());
                }
            }
        }
        Ok(paths)
    }

    /// The content of `rel` at revision `rev` (a sha, `HEAD`, `origin/main`, …); `None` if the
    /// file is not there.
    pub fn read_blob(&self, rev: &str, rel: &str) -> Result<Option<Vec<u8>>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let tree = self
            .repo
            .revparse_single(rev)
            .and_then(|o| o.peel_to_tree())
            .map_err(&err)?;
        let entry = match tree.get_path(Path::new(rel)) {
            Ok(entry) => entry,
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(err(e)),
        };
        match entry.to_object(&self.repo).map_err(&err)?.into_blob() {
            Ok(blob) => Ok(Some(blob.content().to_vec())),
            Err(_) => Ok(None),
        }
    }
}

/// One commit as [`RepoReader::walk`] reaches it; its trees are read only when asked for.
pub(super) struct Walked<'r> {
    reader: &'r RepoReader,
    commit: Commit<'r>,
}

impl Walked<'_> {
    /// The commit as the checks read it.
    pub(super) fn info(&self) -> CommitInfo {
        commit_info(&self.commit)
    }

    /// The commit's tree.
    pub(super) fn tree(&self) -> Result<Tree<'_>, GitProbeError> {
        self.commit.tree().map_err(self.err())
    }

    /// Its first parent's tree; `None` for a root commit (which starts from nothing).
    pub(super) fn parent_tree(&self) -> Result<Option<Tree<'_>>, GitProbeError> {
        match self.commit.parent(0) {
            Ok(parent) => parent.tree().map(Some).map_err(self.err()),
            Err(_) => Ok(None),
        }
    }

    /// The object at `rel` after the commit, and before it (against its first parent).
    fn entry(&self, rel: &str) -> Result<Option<Oid>, GitProbeError> {
        Ok(entry_id(Some(&self.tree()?), rel))
    }

    fn parent_entry(&self, rel: &str) -> Result<Option<Oid>, GitProbeError> {
        Ok(entry_id(self.parent_tree()?.as_ref(), rel))
    }

    /// An error at the cut edge of a shallow clone: the commit looks like a root commit that
    /// adds every file, and what came before it was never fetched.
    fn not_at_cut_edge(&self) -> Result<(), GitProbeError> {
        if self.commit.parent(0).is_err() && self.reader.repo.is_shallow() {
            return Err(self.reader.shallow());
        }
        Ok(())
    }

    fn err(&self) -> impl Fn(git2::Error) -> GitProbeError + '_ {
        GitProbeError::git(&self.reader.path)
    }
}

/// The object at `rel` in `tree` (a blob, or a subtree for a folder), if any.
fn entry_id(tree: Option<&Tree<'_>>, rel: &str) -> Option<Oid> {
    let rel = rel.trim_end_matches('/');
    tree?.get_path(Path::new(rel)).ok().map(|e| e.id())
}

/// The sha in `This reverts commit <sha>.`, the line `git revert` writes.
pub fn reverted_sha(message: &str) -> Option<String> {
    let rest = message.split("This reverts commit ").nth(1)?;
    let sha: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    (sha.len() == 40).then_some(sha)
}
