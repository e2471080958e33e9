//! Reading the learner's work repositories with git2 (read-only).
//!
//! Nothing here writes to a repository: no fetch, no checkout, and status is computed without
//! writing the refreshed index back (the `git` CLI's `git status` would). "Pushed" is judged
//! offline against the remote-tracking ref that `git push` updates (`refs/remotes/origin/main`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use git2::{
    BranchType, ErrorClass, ErrorCode, Oid, Repository, RepositoryOpenFlags, RepositoryState, Sort,
    StatusOptions, Tree,
};
use regex::Regex;
use tokio::sync::OnceCell;

/// `GIT_INDEX_ENTRY_SKIP_WORKTREE`, in an index entry's extended flags (libgit2's index.h).
const SKIP_WORKTREE: u16 = 1 << 14;

/// What labcheck knows about a work repo at the moment it looked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoSnapshot {
    pub path: PathBuf,
    /// The current branch; `None` when HEAD is detached.
    pub branch: Option<String>,
    /// The commit HEAD points at; `None` on an unborn branch (no commit yet).
    pub head: Option<CommitInfo>,
    /// The branch's remote-tracking upstream, if it has one and it exists locally.
    pub upstream: Option<UpstreamInfo>,
    /// Changed, staged and untracked paths, named as `git status --porcelain` names them.
    pub dirty: Vec<String>,
    /// An operation left half done: "merge", "rebase", "cherry-pick", "revert", "bisect", "am".
    pub operation: Option<String>,
    /// Whether the repo has a remote named `origin` (a clone always has one).
    pub has_origin: bool,
    /// The entries of `dirty` that are submodules (changes inside them, or a new commit there).
    pub dirty_submodules: Vec<String>,
}

/// One commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub sha: String,
    /// The first line of the message.
    pub summary: String,
    /// The whole message.
    pub message: String,
}

impl CommitInfo {
    /// The 7-character abbreviation people see in `git log --oneline`.
    pub fn short(&self) -> &str {
        short_sha(&self.sha)
    }
}

/// The 7-character abbreviation of a sha (or the whole thing if it is shorter).
pub fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// The remote-tracking branch a local branch is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamInfo {
    /// As git shows it, e.g. `origin/main`.
    pub name: String,
    pub sha: String,
    /// Local commits not on the upstream (to push).
    pub ahead: usize,
    /// Upstream commits not in the local branch (to pull).
    pub behind: usize,
}

/// Why a repository could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitProbeError {
    #[error("{} does not exist", path.display())]
    Missing { path: PathBuf },
    #[error("{} is not a git repository (it has no .git folder)", path.display())]
    NotARepo { path: PathBuf },
    /// A shallow clone (`git clone --depth`) whose cut-off history may hold what was asked for.
    #[error("{} is a shallow clone: the history labcheck needs was not fetched", path.display())]
    Shallow { path: PathBuf },
    /// A bare repository (`git clone --bare`, or the server's copy): it has no working tree.
    #[error("{} is a bare repository: it has no working tree to work in", path.display())]
    Bare { path: PathBuf },
    /// `.git` is a file (a worktree or a submodule) naming a git folder that is gone.
    #[error("{}/.git points at {}, which does not exist", path.display(), gitdir.display())]
    GitdirGone { path: PathBuf, gitdir: PathBuf },
    /// Owned by another user: git refuses it unless it is listed in `safe.directory`.
    #[error("{} belongs to another user, and git refuses such a repository unless it is marked safe", path.display())]
    NotOwned { path: PathBuf },
    /// An object the check needs (HEAD's commit or tree, a blob) is missing or damaged.
    #[error("{} is damaged: {}", path.display(), source.message())]
    Corrupt {
        path: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("cannot read the git repository at {}: {}", path.display(), source.message())]
    Git {
        path: PathBuf,
        #[source]
        source: git2::Error,
    },
}

impl GitProbeError {
    fn git(path: &Path) -> impl Fn(git2::Error) -> GitProbeError + '_ {
        move |source| GitProbeError::classify(path, source)
    }

    /// Sort a libgit2 error: a missing object is damage (`git fsck` finds it), a foreign owner is
    /// `safe.directory`, anything else is a plain read error.
    pub fn classify(path: &Path, source: git2::Error) -> GitProbeError {
        let path = path.to_path_buf();
        match (source.code(), source.class()) {
            (ErrorCode::Owner, _) => GitProbeError::NotOwned { path },
            (_, ErrorClass::Odb | ErrorClass::Zlib) => GitProbeError::Corrupt { path, source },
            (ErrorCode::NotFound, ErrorClass::Object | ErrorClass::Tree | ErrorClass::Index) => {
                GitProbeError::Corrupt { path, source }
            }
            _ => GitProbeError::Git { path, source },
        }
    }

    /// What the learner runs to fix it, for the path as shown (`~/work/checkout-config`);
    /// `None` when the repo's own `get:` text says it better (missing, not a repo).
    pub fn fix(&self, shown: &str) -> Option<String> {
        let cd = crate::shell::cd(shown);
        Some(match self {
            GitProbeError::Missing { .. } | GitProbeError::NotARepo { .. } => return None,
            GitProbeError::Shallow { .. } => format!("{cd} && git fetch --unshallow"),
            GitProbeError::Bare { .. } => format!(
                "work in a clone of it instead: `git clone {} <your work dir>/<repo>` (a bare repo is what you push to)",
                crate::shell::quote_path(shown)
            ),
            GitProbeError::GitdirGone { gitdir, .. } => format!(
                "its git data at {} is gone (the main repo of this worktree was moved or deleted): move {} aside and clone the repo again",
                crate::shell::quote_path(&gitdir.display().to_string()),
                crate::shell::quote_path(shown)
            ),
            GitProbeError::NotOwned { path } => format!(
                "if you trust it, mark it safe: `git config --global --add safe.directory {}` (or work in a clone you own)",
                crate::shell::quote_path(&path.display().to_string())
            ),
            GitProbeError::Corrupt { .. } => format!(
                "{cd} && git fsck --full   # names what is missing; if it is, clone the repo again and copy your changes over"
            ),
            GitProbeError::Git { .. } => {
                format!("{cd} && git status   # shows what git itself says")
            }
        })
    }
}

/// Read a work repo's state: branch, HEAD, upstream, dirty paths, operation in progress.
pub fn read_repo(path: &Path) -> Result<RepoSnapshot, GitProbeError> {
    let reader = RepoReader::open(path)?;
    reader.snapshot()
}

/// An open repository for the history questions the `git` check asks. Opened read-only in
/// spirit: every method only reads.
pub struct RepoReader {
    path: PathBuf,
    repo: Repository,
}

/// How HEAD relates to a commit it should revert.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// Open the repository whose work tree is exactly `path` (no search upwards, so a plain
    /// folder inside some other repository is not mistaken for a work repo).
    pub fn open(path: &Path) -> Result<RepoReader, GitProbeError> {
        if !path.exists() {
            return Err(GitProbeError::Missing {
                path: path.to_path_buf(),
            });
        }
        if let Some(gitdir) = gone_gitdir(path) {
            return Err(GitProbeError::GitdirGone {
                path: path.to_path_buf(),
                gitdir,
            });
        }
        let repo = Repository::open_ext(
            path,
            RepositoryOpenFlags::NO_SEARCH,
            std::iter::empty::<&std::ffi::OsStr>(),
        )
        .map_err(|source| {
            if source.code() == ErrorCode::NotFound {
                GitProbeError::NotARepo {
                    path: path.to_path_buf(),
                }
            } else {
                GitProbeError::git(path)(source)
            }
        })?;
        if repo.is_bare() {
            return Err(GitProbeError::Bare {
                path: path.to_path_buf(),
            });
        }
        Ok(RepoReader {
            path: path.to_path_buf(),
            repo,
        })
    }

    /// The repository's state now.
    pub fn snapshot(&self) -> Result<RepoSnapshot, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let head_ref = self.repo.find_reference("HEAD").map_err(&err)?;
        let branch_ref = head_ref
            .symbolic_target_bytes()
            .map(|r| String::from_utf8_lossy(r).into_owned());
        let branch = branch_ref
            .as_deref()
            .map(|r| r.strip_prefix("refs/heads/").unwrap_or(r).to_string());
        let head = match self.repo.head() {
            Ok(reference) => {
                let commit = reference.peel_to_commit().map_err(&err)?;
                // libgit2's status treats a missing HEAD tree as an empty one and reports every
                // file as changed: a false verdict. Load it here, so damage is "could not check".
                commit.tree().map_err(&err)?;
                Some(commit_info(&commit))
            }
            Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => {
                None
            }
            Err(e) => return Err(err(e)),
        };
        let upstream = match (&branch, &head) {
            (Some(branch), Some(head)) => self.upstream(branch, &head.sha)?,
            _ => None,
        };
        let dirty = self.dirty()?;
        let submodules = self.submodule_paths();
        let dirty_submodules = dirty
            .iter()
            .filter(|d| submodules.iter().any(|s| s == d.trim_end_matches('/')))
            .cloned()
            .collect();
        Ok(RepoSnapshot {
            path: self.path.clone(),
            branch,
            head,
            upstream,
            dirty,
            dirty_submodules,
            operation: operation(self.repo.state()),
            has_origin: self.repo.find_remote("origin").is_ok(),
        })
    }

    /// The branch's configured upstream; failing that, `origin/<branch>`, which `git push origin
    /// <branch>` updates even without `-u`. `None` when neither ref exists locally.
    fn upstream(&self, branch: &str, head: &str) -> Result<Option<UpstreamInfo>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let configured = self
            .repo
            .find_branch(branch, BranchType::Local)
            .and_then(|b| b.upstream())
            .ok()
            .and_then(|u| {
                let name = u.name().ok().flatten()?.to_string();
                let oid = u.get().peel_to_commit().ok()?.id();
                Some((name, oid))
            });
        let found = match configured {
            Some(found) => Some(found),
            None => self
                .repo
                .find_reference(&format!("refs/remotes/origin/{branch}"))
                .ok()
                .and_then(|r| r.peel_to_commit().ok())
                .map(|c| (format!("origin/{branch}"), c.id())),
        };
        let Some((name, upstream)) = found else {
            return Ok(None);
        };
        let local = Oid::from_str(head).map_err(&err)?;
        let (ahead, behind) = self
            .repo
            .graph_ahead_behind(local, upstream)
            .map_err(&err)?;
        Ok(Some(UpstreamInfo {
            name,
            sha: upstream.to_string(),
            ahead,
            behind,
        }))
    }

    /// Paths `git status --porcelain` would list. `update_index(false)`: libgit2 may refresh stat
    /// data in memory, but must not write `.git/index` (labcheck never writes).
    fn dirty(&self) -> Result<Vec<String>, GitProbeError> {
        let mut options = StatusOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(false)
            .include_ignored(false)
            .exclude_submodules(false)
            .update_index(false);
        let statuses = self
            .repo
            .statuses(Some(&mut options))
            .map_err(GitProbeError::git(&self.path))?;
        // A sparse checkout (`git sparse-checkout set …`) leaves files out of the working tree on
        // purpose and marks them skip-worktree in the index; `git status` ignores them, libgit2
        // reports them deleted. Read the marks so a clean sparse checkout is clean.
        let skip_worktree: BTreeSet<Vec<u8>> = match self.repo.index() {
            Ok(index) => index
                .iter()
                .filter(|e| e.flags_extended & SKIP_WORKTREE != 0)
                .map(|e| e.path)
                .collect(),
            Err(_) => BTreeSet::new(),
        };
        let mut paths = BTreeSet::new();
        for entry in statuses.iter() {
            let status = entry.status();
            if status.is_ignored() || status.is_empty() {
                continue;
            }
            if status == git2::Status::WT_DELETED && skip_worktree.contains(entry.path_bytes()) {
                continue;
            }
            let path = entry
                .path()
                .map(str::to_string)
                .unwrap_or_else(|_| String::from_utf8_lossy(entry.path_bytes()).into_owned());
            paths.insert(path);
        }
        Ok(paths.into_iter().collect())
    }

    /// The paths of the repo's submodules (as `.gitmodules` lists them).
    fn submodule_paths(&self) -> Vec<String> {
        self.repo
            .submodules()
            .map(|subs| {
                subs.iter()
                    .map(|s| s.path().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Commits reachable from `tip`, newest first (as `git log` orders them).
    pub fn history(&self, tip: &str, limit: usize) -> Result<Vec<CommitInfo>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let mut walk = self.repo.revwalk().map_err(&err)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
            .map_err(&err)?;
        walk.push(Oid::from_str(tip).map_err(&err)?).map_err(&err)?;
        let mut commits = Vec::new();
        for oid in walk.take(limit) {
            let commit = self.repo.find_commit(oid.map_err(&err)?).map_err(&err)?;
            commits.push(commit_info(&commit));
        }
        Ok(commits)
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
        let err = GitProbeError::git(&self.path);
        let mut walk = self.repo.revwalk().map_err(&err)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
            .map_err(&err)?;
        walk.push(Oid::from_str(tip).map_err(&err)?).map_err(&err)?;
        if let Some(since) = since {
            walk.hide(Oid::from_str(since).map_err(&err)?)
                .map_err(&err)?;
        }
        let mut touching = Vec::new();
        for oid in walk {
            let commit = self.repo.find_commit(oid.map_err(&err)?).map_err(&err)?;
            // The cut edge of a shallow clone looks like a root commit that adds every file.
            if commit.parent_count() == 0 && self.repo.is_shallow() {
                return Err(self.shallow());
            }
            let tree = commit.tree().map_err(&err)?;
            let parent_tree = match commit.parent(0) {
                Ok(parent) => Some(parent.tree().map_err(&err)?),
                Err(_) => None,
            };
            let before = entry_id(parent_tree.as_ref(), rel);
            let after = entry_id(Some(&tree), rel);
            if before != after {
                touching.push(commit_info(&commit));
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
        let mut walk = self.repo.revwalk().map_err(&err)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
            .map_err(&err)?;
        walk.push(Oid::from_str(tip).map_err(&err)?).map_err(&err)?;
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
        for oid in walk {
            let commit = self.repo.find_commit(oid.map_err(&err)?).map_err(&err)?;
            let after = entry_id(Some(&commit.tree().map_err(&err)?), rel);
            let before = match commit.parent(0) {
                Ok(parent) => entry_id(Some(&parent.tree().map_err(&err)?), rel),
                // The cut edge of a shallow clone: what came before is not here.
                Err(_) if self.repo.is_shallow() => return Err(self.shallow()),
                Err(_) => None,
            };
            if after != before && judge(after)? && !judge(before)? {
                return Ok(Some(commit_info(&commit)));
            }
        }
        Ok(None)
    }

    /// Commits reachable from `tip` but not from `since`, newest first: what came after `since`.
    pub fn commits_after(&self, tip: &str, since: &str) -> Result<Vec<CommitInfo>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let mut walk = self.repo.revwalk().map_err(&err)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
            .map_err(&err)?;
        walk.push(Oid::from_str(tip).map_err(&err)?).map_err(&err)?;
        walk.hide(Oid::from_str(since).map_err(&err)?)
            .map_err(&err)?;
        let mut commits = Vec::new();
        for oid in walk {
            commits.push(commit_info(
                &self.repo.find_commit(oid.map_err(&err)?).map_err(&err)?,
            ));
        }
        Ok(commits)
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
    fn changed_paths(
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

/// The folder a `.git` *file* names (`gitdir: …`, as a worktree or submodule has), when that
/// folder does not exist.
fn gone_gitdir(path: &Path) -> Option<PathBuf> {
    let dotgit = path.join(".git");
    if !dotgit.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(&dotgit).ok()?;
    let named = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = path.join(named);
    (!gitdir.exists()).then_some(gitdir)
}

fn commit_info(commit: &git2::Commit<'_>) -> CommitInfo {
    let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    CommitInfo {
        sha: commit.id().to_string(),
        summary: message.lines().next().unwrap_or_default().to_string(),
        message,
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

fn operation(state: RepositoryState) -> Option<String> {
    let name = match state {
        RepositoryState::Clean => return None,
        RepositoryState::Merge => "merge",
        RepositoryState::Revert | RepositoryState::RevertSequence => "revert",
        RepositoryState::CherryPick | RepositoryState::CherryPickSequence => "cherry-pick",
        RepositoryState::Bisect => "bisect",
        RepositoryState::Rebase
        | RepositoryState::RebaseInteractive
        | RepositoryState::RebaseMerge
        | RepositoryState::ApplyMailboxOrRebase => "rebase",
        RepositoryState::ApplyMailbox => "am",
    };
    Some(name.to_string())
}

/// What the `origin` remote says about a commit, for "pushed where Argo CD looks".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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

type Shared = Arc<Result<RepoSnapshot, GitProbeError>>;

/// Per-run cache: each repo is read once however many checks ask about it, and checks asking
/// at the same time share the one read.
#[derive(Default)]
pub struct GitCache {
    cells: Mutex<HashMap<PathBuf, Arc<OnceCell<Shared>>>>,
}

impl GitCache {
    /// An empty cache.
    pub fn new() -> GitCache {
        GitCache::default()
    }

    /// The snapshot of the repo at `path`, read on first use.
    pub async fn get(&self, path: &Path) -> Shared {
        let cell = {
            // A poisoned lock only means another check panicked; the map is still sound.
            let mut cells = self.cells.lock().unwrap_or_else(|p| p.into_inner());
            cells.entry(path.to_path_buf()).or_default().clone()
        };
        cell.get_or_init(|| async {
            let owned = path.to_path_buf();
            match tokio::task::spawn_blocking(move || read_repo(&owned)).await {
                Ok(result) => Arc::new(result),
                // The blocking read panicked or was cancelled: read again on this thread so the
                // check still gets an answer rather than a hang.
                Err(_) => Arc::new(read_repo(path)),
            }
        })
        .await
        .clone()
    }
}

impl std::fmt::Debug for GitCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitCache").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::world::{CoursePoint, LabRepo, LabWorld};
    use std::process::Command;

    fn world(point: CoursePoint) -> (tempfile::TempDir, LabWorld) {
        let dir = tempfile::tempdir().unwrap();
        let world = LabWorld::at(&dir.path().join("lab"), point).unwrap();
        (dir, world)
    }

    fn snapshot(repo: &LabRepo) -> RepoSnapshot {
        read_repo(repo.path()).unwrap()
    }

    #[test]
    fn a_fresh_clone_is_on_main_clean_and_level_with_origin() {
        let (_dir, world) = world(CoursePoint::Fresh);
        let repo = world.repo("checkout-config").unwrap();
        let snap = snapshot(&repo);
        assert_eq!(snap.branch.as_deref(), Some("main"));
        assert_eq!(
            snap.head.as_ref().map(|h| h.sha.clone()),
            Some(repo.head_sha().unwrap())
        );
        let upstream = snap.upstream.unwrap();
        assert_eq!(
            (upstream.name.as_str(), upstream.ahead, upstream.behind),
            ("origin/main", 0, 0)
        );
        assert!(snap.dirty.is_empty(), "{:?}", snap.dirty);
        assert_eq!(snap.operation, None);
    }

    #[test]
    fn committed_but_not_pushed_is_one_ahead() {
        let (_dir, world) = world(CoursePoint::Step2);
        let repo = world.repo("checkout-config").unwrap();
        repo.write("helm/dev.yaml", "image:\n  tag: \"6.7.0\"\n")
            .unwrap();
        repo.commit_all("not pushed").unwrap();
        let upstream = snapshot(&repo).upstream.unwrap();
        assert_eq!((upstream.ahead, upstream.behind), (1, 0));
        assert_eq!(upstream.sha, repo.upstream_sha().unwrap());
    }

    #[test]
    fn reset_behind_then_committed_again_has_diverged() {
        let (_dir, world) = world(CoursePoint::Step4);
        let repo = world.repo("checkout-config").unwrap();
        repo.git(&["reset", "--quiet", "--hard", "HEAD~1"]).unwrap();
        assert_eq!(
            snapshot(&repo).upstream.map(|u| (u.ahead, u.behind)),
            Some((0, 1))
        );
        repo.write("notes.txt", "mine\n").unwrap();
        repo.commit_all("local only").unwrap();
        assert_eq!(
            snapshot(&repo).upstream.map(|u| (u.ahead, u.behind)),
            Some((1, 1))
        );
    }

    #[test]
    fn dirty_lists_changed_staged_and_untracked_paths_like_porcelain() {
        let (_dir, world) = world(CoursePoint::Fresh);
        let repo = world.repo("argocd-platform").unwrap();
        repo.write("argocd/values.yaml", "changed: true\n").unwrap();
        repo.write("apps/new.yaml", "staged: true\n").unwrap();
        repo.git(&["add", "apps/new.yaml"]).unwrap();
        repo.write("scratch/a.txt", "untracked\n").unwrap();
        repo.write("scratch/b.txt", "untracked\n").unwrap();
        let porcelain: Vec<String> = repo
            .git(&["status", "--porcelain"])
            .unwrap()
            .lines()
            .map(|l| l[3..].to_string())
            .collect();
        let mut expected = porcelain.clone();
        expected.sort();
        assert_eq!(snapshot(&repo).dirty, expected);
        assert_eq!(
            expected,
            ["apps/new.yaml", "argocd/values.yaml", "scratch/"]
        );
    }

    #[test]
    fn detached_head_has_no_branch_and_a_fresh_repo_no_head() {
        let (dir, world) = world(CoursePoint::Step2);
        let repo = world.repo("checkout-config").unwrap();
        repo.git(&["switch", "--quiet", "--detach", "HEAD~1"])
            .unwrap();
        let snap = snapshot(&repo);
        assert_eq!(snap.branch, None);
        assert!(snap.head.is_some());

        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let init = Command::new("git")
            .args(["-c", "init.defaultBranch=main", "init", "--quiet"])
            .current_dir(&empty)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(init.success());
        let snap = read_repo(&empty).unwrap();
        assert_eq!(
            (snap.branch.as_deref(), snap.head, snap.upstream),
            (Some("main"), None, None)
        );
    }

    #[test]
    fn a_revert_left_half_done_is_reported_as_an_operation() {
        let (_dir, world) = world(CoursePoint::Step4);
        let repo = world.repo("checkout-config").unwrap();
        repo.git(&["revert", "--no-commit", "HEAD"]).unwrap();
        assert_eq!(snapshot(&repo).operation.as_deref(), Some("revert"));
    }

    #[test]
    fn a_repo_owned_by_another_user_gets_the_safe_directory_fix() {
        let error = GitProbeError::classify(
            Path::new("/srv/class/ana work"),
            git2::Error::new(
                ErrorCode::Owner,
                ErrorClass::Config,
                "repository path '/srv/class/ana work' is not owned by current user",
            ),
        );
        assert!(matches!(error, GitProbeError::NotOwned { .. }), "{error:?}");
        assert_eq!(
            error.fix("/srv/class/ana work").as_deref(),
            Some(
                "if you trust it, mark it safe: `git config --global --add safe.directory '/srv/class/ana work'` (or work in a clone you own)"
            )
        );
    }

    /// Where the tests may change a file's owner (as root in CI containers), a real repo owned
    /// by another user is refused by libgit2 the way git refuses it.
    #[test]
    fn a_real_repo_owned_by_another_user_is_not_owned() {
        let (_dir, world) = world(CoursePoint::Fresh);
        let repo = world.repo("checkout-config").unwrap();
        let chowned = Command::new("chown")
            .args(["-R", "4242:4242"])
            .arg(repo.path())
            .status()
            .is_ok_and(|s| s.success());
        let result = read_repo(repo.path());
        if chowned {
            assert!(
                matches!(result, Err(GitProbeError::NotOwned { .. })),
                "{result:?}"
            );
        } else {
            // Not allowed to give it away: then it is ours, and reads.
            assert!(result.is_ok(), "{result:?}");
        }
    }

    #[test]
    fn missing_and_plain_folders_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        assert!(matches!(
            read_repo(&missing),
            Err(GitProbeError::Missing { .. })
        ));
        assert!(matches!(
            read_repo(dir.path()),
            Err(GitProbeError::NotARepo { .. })
        ));
    }

    #[test]
    fn git_revert_of_the_step_4_commit_is_detected_as_a_revert() {
        let (_dir, world) = world(CoursePoint::Step5);
        let reader = RepoReader::open(world.repo("checkout-config").unwrap().path()).unwrap();
        let head = reader.snapshot().unwrap().head.unwrap();
        // HEAD's own message ("Revert \"checkout: 6.7.0 …\"") matches too: search below it.
        let parent = reader.history(&head.sha, 2).unwrap()[1].sha.clone();
        let target = reader
            .newest_matching(&parent, &Regex::new("6\\.7\\.0 with a broken").unwrap())
            .unwrap()
            .unwrap();
        assert_ne!(target.sha, head.sha);
        assert_eq!(
            reader.revert_finding(&head.sha, &target.sha).unwrap(),
            RevertFinding::Reverts
        );
    }

    #[test]
    fn a_revert_message_without_the_change_is_not_a_revert() {
        let (_dir, world) = world(CoursePoint::Step4);
        let repo = world.repo("checkout-config").unwrap();
        let target = repo.head_sha().unwrap();
        repo.write("notes.txt", "reverted, honest\n").unwrap();
        repo.commit_all(&format!(
            "Revert \"checkout: 6.7.0 with a broken migration\"\n\nThis reverts commit {target}."
        ))
        .unwrap();
        let reader = RepoReader::open(repo.path()).unwrap();
        let finding = reader
            .revert_finding(&repo.head_sha().unwrap(), &target)
            .unwrap();
        assert_eq!(
            finding,
            RevertFinding::MessageOnly {
                differing: vec!["helm/dev.yaml".to_string(), "notes.txt".to_string()]
            }
        );
    }

    #[test]
    fn undoing_by_hand_restores_the_files_but_is_not_a_revert_commit() {
        let (_dir, world) = world(CoursePoint::Step4);
        let repo = world.repo("checkout-config").unwrap();
        let target = repo.head_sha().unwrap();
        repo.write(
            "helm/dev.yaml",
            &crate::lab::content::checkout_dev_hooks_on(),
        )
        .unwrap();
        repo.commit_all("back to 6.7.1").unwrap();
        let reader = RepoReader::open(repo.path()).unwrap();
        assert_eq!(
            reader
                .revert_finding(&repo.head_sha().unwrap(), &target)
                .unwrap(),
            RevertFinding::ChangesOnly
        );
    }

    #[test]
    fn commits_touching_a_path_stop_at_the_since_commit() {
        let (_dir, world) = world(CoursePoint::Step4);
        let repo = world.repo("checkout-config").unwrap();
        let reader = RepoReader::open(repo.path()).unwrap();
        let tip = repo.upstream_sha().unwrap();
        let since = reader
            .newest_matching(
                &tip,
                &Regex::new("^checkout: migration and smoke test").unwrap(),
            )
            .unwrap()
            .unwrap();
        let touching = reader
            .commits_touching(&tip, Some(&since.sha), "helm/dev.yaml")
            .unwrap();
        let summaries: Vec<&str> = touching.iter().map(|c| c.summary.as_str()).collect();
        assert_eq!(summaries, ["checkout: 6.7.0 with a broken migration"]);
        assert!(
            reader
                .commits_touching(&tip, Some(&since.sha), "helm/prod.yaml")
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            reader.read_blob(&tip, "helm/dev.yaml").unwrap(),
            Some(crate::lab::content::checkout_dev_broken_migration().into_bytes())
        );
        assert_eq!(reader.read_blob(&tip, "helm/none.yaml").unwrap(), None);
    }

    #[test]
    fn the_same_course_point_always_has_the_same_shas() {
        let (_a, one) = world(CoursePoint::Step5);
        let (_b, two) = world(CoursePoint::Step5);
        for name in crate::lab::world::REPOS {
            assert_eq!(
                one.repo(name).unwrap().head_sha().unwrap(),
                two.repo(name).unwrap().head_sha().unwrap(),
                "{name}"
            );
        }
    }

    #[test]
    fn reading_a_dirty_repo_leaves_its_git_folder_byte_identical() {
        let (_dir, world) = world(CoursePoint::Step2);
        let repo = world.repo("checkout-config").unwrap();
        // Same content, new mtime: the index entry is stat-dirty, which tempts a refresh.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        repo.write(
            "helm/dev.yaml",
            &crate::lab::content::checkout_dev_hooks_on(),
        )
        .unwrap();
        repo.write("untracked.txt", "x\n").unwrap();
        let before = tree_bytes(&repo.path().join(".git"));
        let snap = snapshot(&repo);
        assert_eq!(snap.dirty, ["untracked.txt"]);
        assert_eq!(tree_bytes(&repo.path().join(".git")), before);
    }

    fn tree_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    out.push((path.clone(), std::fs::read(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }
}
