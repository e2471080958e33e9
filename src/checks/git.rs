//! Check kind `git`: the state of a work repo — branch, clean tree, pushed, and what its history
//! holds (HEAD's message, a revert, a commit, a commit that changed a file).
//!
//! Conditions are checked in a fixed order (the order a learner fixes things in) and the first
//! that fails is reported with a hint for that cause. "Pushed" history is read from the
//! remote-tracking ref (`origin/main`), offline: labcheck never fetches.

use std::fmt;
use std::path::Path;

use regex::Regex;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::checks::Context;
use crate::checks::change::ChangeSpec;
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{Cause, DetailKind, Outcome};
use crate::probe::git::{CommitInfo, GitProbeError, RepoReader, RepoSnapshot};

/// Fields of a `git` check. At least one condition besides `repo`; all must hold.
#[derive(Debug, Clone)]
pub struct GitSpec {
    /// The work repo, by its name in module.yaml.
    pub repo: String,
    pub branch: Option<String>,
    pub clean: bool,
    pub pushed: bool,
    pub head_message: Option<Pattern>,
    /// The step's change is committed: found by content, not by message.
    pub made: Option<ChangeSpec>,
    /// HEAD undoes the commit that made this change.
    pub undoes: Option<ChangeSpec>,
    pub has_commit: Option<Pattern>,
    pub touched: Option<Touched>,
}

/// As written in the file, before the "at least one condition" rule.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGitSpec {
    repo: String,
    #[serde(default)]
    branch: Option<String>,
    #[serde(default)]
    clean: Option<bool>,
    #[serde(default)]
    pushed: Option<bool>,
    #[serde(default)]
    head_message: Option<Pattern>,
    #[serde(default)]
    made: Option<ChangeSpec>,
    #[serde(default)]
    undoes: Option<ChangeSpec>,
    #[serde(default)]
    has_commit: Option<Pattern>,
    #[serde(default)]
    touched: Option<Touched>,
}

impl<'de> Deserialize<'de> for GitSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(GitSpecVisitor)
    }
}

/// Validates inside `visit_map`, so serde_yaml reports a missing condition at the check's line
/// (an error raised after deserializing would carry no position).
struct GitSpecVisitor;

impl<'de> Visitor<'de> for GitSpecVisitor {
    type Value = GitSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map with `repo` and at least one condition")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<GitSpec, A::Error> {
        let raw = RawGitSpec::deserialize(MapAccessDeserializer::new(map))?;
        GitSpec::try_from(raw).map_err(de::Error::custom)
    }
}

impl TryFrom<RawGitSpec> for GitSpec {
    type Error = String;

    fn try_from(raw: RawGitSpec) -> Result<Self, Self::Error> {
        // `clean: false` would read as "must be dirty"; nobody means that, so say so.
        for (key, value) in [("clean", raw.clean), ("pushed", raw.pushed)] {
            if value == Some(false) {
                return Err(format!(
                    "`{key}: false` checks nothing; write `{key}: true` or leave `{key}` out"
                ));
            }
        }
        let spec = GitSpec {
            repo: raw.repo,
            branch: raw.branch,
            clean: raw.clean == Some(true),
            pushed: raw.pushed == Some(true),
            head_message: raw.head_message,
            made: raw.made,
            undoes: raw.undoes,
            has_commit: raw.has_commit,
            touched: raw.touched,
        };
        let has_condition = spec.branch.is_some()
            || spec.clean
            || spec.pushed
            || spec.head_message.is_some()
            || spec.made.is_some()
            || spec.undoes.is_some()
            || spec.has_commit.is_some()
            || spec.touched.is_some();
        if has_condition {
            Ok(spec)
        } else {
            Err(format!(
                "the git check on `{}` has no condition; add at least one of branch, clean, pushed, head_message, made, undoes, has_commit, touched",
                spec.repo
            ))
        }
    }
}

/// `touched:` — a commit after the newest commit matching `since` changed `path`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Touched {
    /// A file or folder, relative to the repo root.
    pub path: String,
    /// Marks where the step's commits begin (the previous step's commit); without it only the
    /// pushed HEAD commit counts.
    #[serde(default)]
    pub since: Option<Pattern>,
}

/// A regex on commit messages, compiled when the check file is loaded so a typo is reported
/// with its file:line:col.
#[derive(Clone)]
pub struct Pattern(Regex);

impl Pattern {
    /// The regex as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Matches a commit message without its trailing newline (see [`RepoReader::newest_matching`]).
    fn is_match(&self, message: &str) -> bool {
        self.0.is_match(message.trim_end())
    }

    /// The commit message the pattern stands for when it is a plain (anchored) text, to put in
    /// a `git commit -m` hint; `None` when it has real regex syntax.
    fn literal(&self) -> Option<String> {
        let text = self.as_str().trim_start_matches('^').trim_end_matches('$');
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(chars.next().filter(|n| !n.is_alphanumeric())?),
                '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '^' | '$' => {
                    return None;
                }
                c => out.push(c),
            }
        }
        Some(out)
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({:?})", self.as_str())
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(PatternVisitor)
    }
}

/// Compiles inside `visit_str`, so serde_yaml gives a bad regex the line and column of its value.
struct PatternVisitor;

impl Visitor<'_> for PatternVisitor {
    type Value = Pattern;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a regular expression (a string)")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Pattern, E> {
        Regex::new(text).map(Pattern).map_err(|e| {
            E::custom(format!(
                "`{text}` is not a valid regex: {}",
                e.to_string().lines().last().unwrap_or("invalid").trim()
            ))
        })
    }
}

/// How many dirty paths a summary names before "and N more".
const DIRTY_SHOWN: usize = 5;

impl GitSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        vec![self.repo.as_str()]
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let dir = ctx.repo_dir(&self.repo);
        let shown = shown_path(ctx, &self.repo);
        let snapshot = ctx.git.get(&dir).await;
        let snap = match snapshot.as_ref() {
            Ok(snap) => snap,
            Err(e) => return self.unreadable(ctx, &shown, e),
        };
        let repo = Repo {
            shown: &shown,
            snap,
            dir: &dir,
            module: &ctx.module,
        };
        let local = [
            self.branch.is_some(),
            self.clean,
            self.pushed,
            self.head_message.is_some(),
            self.made.is_some(),
            self.undoes.is_some(),
        ];
        // A half-done rebase or merge moves HEAD around; judging the branch or HEAD then would
        // blame the wrong thing, so finish the operation first.
        if local.contains(&true)
            && let Some(operation) = &snap.operation
        {
            return repo.operation_in_progress(operation);
        }
        let mut passed = Vec::new();
        if let Some(branch) = &self.branch {
            match repo.branch(branch) {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return *outcome,
            }
        }
        if self.clean {
            match repo.clean() {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return *outcome,
            }
        }
        if self.pushed {
            match repo.pushed() {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return *outcome,
            }
        }
        let history = [
            self.head_message.is_some(),
            self.made.is_some(),
            self.undoes.is_some(),
            self.has_commit.is_some(),
            self.touched.is_some(),
        ];
        if history.contains(&true) {
            let reader = match RepoReader::open(&dir) {
                Ok(reader) => reader,
                Err(e) => return self.unreadable(ctx, &shown, &e),
            };
            match self.history_conditions(&repo, &reader) {
                Ok(Ok(mut summaries)) => passed.append(&mut summaries),
                Ok(Err(outcome)) => return *outcome,
                Err(e) => return self.unreadable(ctx, &shown, &e),
            }
        }
        Outcome::pass(format!("{}: {}", self.repo, passed.join("; ")))
    }

    /// The conditions that read history, in order. Outer `Err`: the repo could not be read.
    fn history_conditions(
        &self,
        repo: &Repo<'_>,
        reader: &RepoReader,
    ) -> Result<Result<Vec<String>, Box<Outcome>>, GitProbeError> {
        let mut passed = Vec::new();
        if let Some(pattern) = &self.head_message {
            match repo.head_message(pattern) {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return Ok(Err(outcome)),
            }
        }
        if let Some(change) = &self.made {
            match repo.made(reader, change)? {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return Ok(Err(outcome)),
            }
        }
        if let Some(change) = &self.undoes {
            match repo.undoes(reader, change)? {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return Ok(Err(outcome)),
            }
        }
        if let Some(pattern) = &self.has_commit {
            match repo.has_commit(reader, pattern)? {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return Ok(Err(outcome)),
            }
        }
        if let Some(touched) = &self.touched {
            match repo.touched(reader, touched)? {
                Ok(summary) => passed.push(summary),
                Err(outcome) => return Ok(Err(outcome)),
            }
        }
        Ok(Ok(passed))
    }

    /// The repo is missing or unreadable: labcheck could not look, which is not a verdict.
    fn unreadable(&self, ctx: &Context, shown: &str, error: &GitProbeError) -> Outcome {
        let repo = &self.repo;
        let (summary, cause) = match error {
            GitProbeError::Missing { .. } => (
                format!("{repo}: labcheck looked in {shown}, and it does not exist"),
                "repo-missing",
            ),
            GitProbeError::NotARepo { .. } => (
                format!("{repo}: {shown} exists but is not a git repository (no .git folder)"),
                "not-a-repo",
            ),
            GitProbeError::Shallow { .. } => (
                format!(
                    "{repo}: {shown} is a shallow clone (git clone --depth), so the commits this check looks for may be in the history that was not fetched"
                ),
                "shallow-clone",
            ),
            GitProbeError::Bare { .. } => (
                format!(
                    "{repo}: {shown} is a bare repository (made by `git clone --bare` or `git init --bare`): it has no working tree, so there is nothing to check in it"
                ),
                "bare-repo",
            ),
            GitProbeError::GitdirGone { gitdir, .. } => (
                format!(
                    "{repo}: {shown}/.git is a file pointing at {}, which no longer exists, so git cannot read this repo",
                    gitdir.display()
                ),
                "gitdir-gone",
            ),
            GitProbeError::NotOwned { .. } => (
                format!(
                    "{repo}: {shown} belongs to another user, and git refuses to read such a repository unless it is listed in safe.directory"
                ),
                "repo-not-owned",
            ),
            GitProbeError::Corrupt { source, .. } => (
                format!(
                    "{repo}: {shown} is damaged: an object git needs is missing or broken ({}), so labcheck cannot tell what it holds",
                    source.message()
                ),
                "repo-damaged",
            ),
            GitProbeError::Git { source, .. } => (
                format!(
                    "{repo}: cannot read the git repository in {shown}: {}",
                    source.message()
                ),
                "repo-unreadable",
            ),
        };
        let mut outcome = Outcome::could_not_check(summary).with_cause(Cause::new(cause));
        match error.fix(shown) {
            Some(fix) => outcome = outcome.with_hint(fix),
            None => {
                outcome = outcome.with_diagnosis(
                    "labcheck looks for work repos in --work-dir (default ~/work, or $LABCHECK_WORK_DIR)",
                );
                if let Some(spec) = ctx.repo(&self.repo) {
                    outcome = outcome.with_hint(format!("get {}", spec.get));
                }
            }
        }
        outcome
    }
}

/// `~/work/<dir>` when the work dir is `$HOME/work` (as the course writes it), else the real path.
fn shown_path(ctx: &Context, repo: &str) -> String {
    let dir = ctx.repo_dir(repo);
    let home_work = std::env::var_os("HOME").map(|home| Path::new(&home).join("work"));
    match (home_work, dir.strip_prefix(&ctx.work_dir)) {
        (Some(home_work), Ok(rest)) if home_work == ctx.work_dir => {
            format!("~/work/{}", rest.display())
        }
        _ => dir.display().to_string(),
    }
}

/// One repo's snapshot with the path to show; each method checks one condition and returns a
/// pass summary or the failing outcome.
pub(crate) struct Repo<'a> {
    pub(crate) shown: &'a str,
    pub(crate) snap: &'a RepoSnapshot,
    /// The repo's folder, for the working-tree version of a file.
    pub(crate) dir: &'a Path,
    /// The module being checked, for `labcheck MODULE STEP` in hints.
    pub(crate) module: &'a str,
}

/// A condition holds (with a summary) or fails (with the outcome to report). Boxed: an outcome
/// is large and mostly travels the rare path.
pub(crate) type Verdict = Result<String, Box<Outcome>>;

pub(crate) fn broken(outcome: Outcome) -> Verdict {
    Err(Box::new(outcome))
}

impl Repo<'_> {
    /// `cd <repo>`, quoted so it pastes (a work dir with a space).
    pub(crate) fn cd(&self) -> String {
        crate::shell::cd(self.shown)
    }

    fn branch_name(&self) -> &str {
        self.snap.branch.as_deref().unwrap_or("main")
    }

    fn operation_in_progress(&self, operation: &str) -> Outcome {
        let hint = match operation {
            "bisect" => format!("{} && git bisect reset", self.cd()),
            "merge" => format!(
                "resolve the conflicts, then `git add -A && git commit --no-edit` (or give up with `git merge --abort`) in {}",
                self.shown
            ),
            op => format!(
                "resolve the conflicts and `git add -A && git {op} --continue` (or give up with `git {op} --abort`) in {}",
                self.shown
            ),
        };
        Outcome::fail(format!(
            "a {operation} is in progress in {}, so the step's commit is not finished",
            self.shown
        ))
        .with_actual(format!("{operation} in progress"))
        .with_cause(Cause::new("operation-in-progress"))
        .with_hint(hint)
    }

    fn branch(&self, expected: &str) -> Verdict {
        match (&self.snap.branch, &self.snap.head) {
            (Some(branch), _) if branch == expected => Ok(format!("on {branch}")),
            (Some(branch), _) => broken(
                Outcome::fail(format!(
                    "{} is on branch {branch}, not {expected}",
                    self.shown
                ))
                .with_expected(expected)
                .with_actual(branch.as_str())
                .with_cause(Cause::new("wrong-branch"))
                .with_hint(format!("{} && git switch {expected}", self.cd())),
            ),
            (None, head) => {
                let at = head.as_ref().map(CommitInfo::short).unwrap_or("?");
                broken(
                    Outcome::fail(format!(
                        "{} is not on a branch: HEAD is detached at {at}",
                        self.shown
                    ))
                    .with_expected(expected)
                    .with_actual(format!("detached HEAD at {at}"))
                    .with_cause(Cause::new("detached-head"))
                    .with_hint(format!("{} && git switch {expected}", self.cd())),
                )
            }
        }
    }

    fn clean(&self) -> Verdict {
        let dirty = &self.snap.dirty;
        if dirty.is_empty() {
            return Ok("nothing uncommitted".to_string());
        }
        let mut named = dirty
            .iter()
            .take(DIRTY_SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if dirty.len() > DIRTY_SHOWN {
            named.push_str(&format!(" and {} more", dirty.len() - DIRTY_SHOWN));
        }
        // A submodule is dirty from inside (edits or a new commit there); `git add -A` in the
        // outer repo would record a half-done submodule, so send the learner into it.
        if let Some(sub) = self.snap.dirty_submodules.first() {
            let inside = format!("{}/{}", self.shown, sub.trim_end_matches('/'));
            return broken(
                Outcome::fail(format!(
                    "{} has uncommitted changes inside its submodule {sub} (edited files, or a commit there the outer repo does not record yet)",
                    self.shown
                ))
                .with_expected("a clean working tree")
                .with_actual(format!("submodule {sub} changed"))
                .with_hint(format!(
                    "{} && git status   # commit (or undo) what changed in the submodule; then record it from {}: git add {} && git commit -m \"…\"",
                    crate::shell::cd(&inside),
                    crate::shell::quote_path(self.shown),
                    crate::shell::quote(sub.trim_end_matches('/'))
                ))
                .with_cause(Cause::about("submodule-dirty", sub.trim_end_matches('/'))),
            );
        }
        let count = plural(dirty.len(), "uncommitted change");
        let mut outcome = Outcome::fail(format!("{} has {count}: {named}", self.shown))
            .with_expected("a clean working tree")
            .with_actual(count)
            .with_cause(Cause::new("uncommitted-changes"))
            .with_hint(format!(
                "{} && git add -A && git commit -m \"…\" (or undo what you did not mean to change)",
                self.cd()
            ));
        if dirty.len() > DIRTY_SHOWN {
            outcome = outcome.with_detail(DetailKind::Text, dirty.join("\n"));
        }
        broken(outcome)
    }

    pub(crate) fn unborn(&self) -> Outcome {
        let branch = self.branch_name();
        Outcome::fail(format!("{} has no commit yet on {branch}", self.shown))
            .with_actual("no commits")
            .with_cause(Cause::new("no-commits"))
            .with_hint(format!(
                "{} && git add -A && git commit -m \"…\" && git push -u origin {branch}",
                self.cd()
            ))
    }

    fn pushed(&self) -> Verdict {
        let Some(head) = &self.snap.head else {
            return broken(self.unborn());
        };
        let branch = self.branch_name();
        if !self.snap.has_origin && self.snap.upstream.is_none() {
            return broken(
                Outcome::fail(format!(
                    "{} has no remote `origin`, so nothing can be pushed",
                    self.shown
                ))
                .with_expected(format!("{branch} pushed to origin/{branch}"))
                .with_actual("no remote origin")
                .with_cause(Cause::new("no-remote"))
                .with_hint(format!(
                    "{} && git remote add origin <the repo's URL on your Git server> && git push -u origin {branch}",
                    self.cd()
                )),
            );
        }
        let Some(up) = &self.snap.upstream else {
            return broken(
                Outcome::fail(format!(
                    "{branch} in {} has no upstream: nothing was pushed to origin/{branch}",
                    self.shown
                ))
                .with_expected(format!("{branch} pushed to origin/{branch}"))
                .with_actual("no upstream branch")
                .with_cause(Cause::new("not-pushed"))
                .with_hint(format!("{} && git push -u origin {branch}", self.cd())),
            );
        };
        let expected = format!("{branch} equal to {}", up.name);
        let cause = match (up.ahead, up.behind) {
            (_, 0) => "not-pushed",
            (0, _) => "behind-upstream",
            _ => "diverged",
        };
        let (summary, actual, hint) = match (up.ahead, up.behind) {
            (0, 0) => {
                return Ok(format!(
                    "{branch} is pushed ({} at {})",
                    up.name,
                    head.short()
                ));
            }
            (ahead, 0) => (
                format!(
                    "{branch} is {} ahead of {}: committed but not pushed",
                    plural(ahead, "commit"),
                    up.name
                ),
                format!("{} ahead", plural(ahead, "commit")),
                format!("{} && git push", self.cd()),
            ),
            (0, behind) => (
                format!(
                    "{branch} is {} behind {}: someone pushed after your last pull",
                    plural(behind, "commit"),
                    up.name
                ),
                format!("{} behind", plural(behind, "commit")),
                format!("{} && git pull", self.cd()),
            ),
            (ahead, behind) => (
                format!(
                    "{branch} and {} have diverged: {} not pushed, {} not pulled",
                    up.name,
                    plural(ahead, "local commit"),
                    plural(behind, "commit")
                ),
                format!("{ahead} ahead, {behind} behind"),
                format!("{} && git pull --rebase && git push", self.cd()),
            ),
        };
        broken(
            Outcome::fail(summary)
                .with_expected(expected)
                .with_actual(actual)
                .with_hint(hint)
                .with_cause(Cause::new(cause)),
        )
    }

    fn head_message(&self, pattern: &Pattern) -> Verdict {
        let Some(head) = &self.snap.head else {
            return broken(self.unborn());
        };
        if pattern.is_match(&head.message) {
            return Ok(format!("HEAD is {} \"{}\"", head.short(), head.summary));
        }
        broken(
            Outcome::fail(format!(
                "HEAD of {} is {} \"{}\", not the step's commit",
                self.shown,
                head.short(),
                head.summary
            ))
            .with_expected(format!("HEAD's message matching /{}/", pattern.as_str()))
            .with_actual(head.summary.as_str())
            .with_cause(Cause::new("wrong-head-commit"))
            .with_hint(self.commit_hint(pattern)),
        )
    }

    /// `git add -A && git commit -m "<message>" && git push`, with the message when the pattern
    /// is plain text.
    fn commit_hint(&self, pattern: &Pattern) -> String {
        match pattern.literal() {
            Some(message) => format!(
                "make the step's change, then {} && git add -A && git commit -m \"{message}\" && git push",
                self.cd()
            ),
            None => format!(
                "make the step's change, then commit it (message matching /{}/) and push: {} && git add -A && git commit -m \"…\" && git push",
                pattern.as_str(),
                self.cd()
            ),
        }
    }

    /// The pushed tip: the upstream, what the Git server (and so Argo CD) has.
    fn pushed_tip(&self) -> Result<&str, Box<Outcome>> {
        match &self.snap.upstream {
            Some(up) => Ok(up.sha.as_str()),
            None => {
                let branch = self.branch_name();
                Err(Box::new(
                    Outcome::fail(format!(
                        "nothing of {} is pushed to origin/{branch} yet",
                        self.shown
                    ))
                    .with_actual("no upstream branch")
                    .with_cause(Cause::new("not-pushed"))
                    .with_hint(format!("{} && git push -u origin {branch}", self.cd())),
                ))
            }
        }
    }

    fn upstream_name(&self) -> String {
        self.snap
            .upstream
            .as_ref()
            .map(|u| u.name.clone())
            .unwrap_or_else(|| format!("origin/{}", self.branch_name()))
    }

    fn has_commit(&self, reader: &RepoReader, pattern: &Pattern) -> Result<Verdict, GitProbeError> {
        let tip = match self.pushed_tip() {
            Ok(tip) => tip,
            Err(outcome) => return Ok(Err(outcome)),
        };
        let upstream = self.upstream_name();
        if let Some(found) = reader.newest_matching(tip, &pattern.0)? {
            return Ok(Ok(format!(
                "{upstream} has {} \"{}\"",
                found.short(),
                found.summary
            )));
        }
        let expected = format!("a commit matching /{}/ on {upstream}", pattern.as_str());
        if let Some(head) = &self.snap.head
            && let Some(local) = reader.newest_matching(&head.sha, &pattern.0)?
        {
            return Ok(broken(
                Outcome::fail(format!(
                    "{} \"{}\" is committed in {} but not pushed to {upstream}",
                    local.short(),
                    local.summary,
                    self.shown
                ))
                .with_expected(expected)
                .with_actual("committed, not pushed")
                .with_cause(Cause::new("not-pushed"))
                .with_hint(format!("{} && git push", self.cd())),
            ));
        }
        Ok(broken(
            Outcome::fail(format!(
                "{upstream} in {} has no commit matching /{}/",
                self.shown,
                pattern.as_str()
            ))
            .with_expected(expected)
            .with_actual("no such commit")
            .with_cause(Cause::new("commit-missing"))
            .with_hint(self.commit_hint(pattern)),
        ))
    }

    fn touched(&self, reader: &RepoReader, touched: &Touched) -> Result<Verdict, GitProbeError> {
        let tip = match self.pushed_tip() {
            Ok(tip) => tip,
            Err(outcome) => return Ok(Err(outcome)),
        };
        let upstream = self.upstream_name();
        let path = touched.path.as_str();
        let since = match &touched.since {
            None => None,
            Some(pattern) => match reader.newest_matching(tip, &pattern.0)? {
                Some(commit) => Some(commit),
                None => {
                    return Ok(broken(Outcome::fail(format!(
                        "{upstream} in {} has no commit matching /{}/, the change this step builds on",
                        self.shown,
                        pattern.as_str()
                    ))
                    .with_expected(format!("a commit matching /{}/ on {upstream}", pattern.as_str()))
                    .with_cause(Cause::new("earlier-step-missing"))
                    .with_hint("do the earlier step that makes that commit (and push it) first")));
                }
            },
        };
        let found = match &since {
            Some(since) => reader.commits_touching(tip, Some(&since.sha), path)?,
            // Only the pushed tip itself: compare it with its parent.
            None => reader.tip_touches(tip, path)?.into_iter().collect(),
        };
        if let Some(newest) = found.first() {
            return Ok(Ok(format!(
                "{} \"{}\" on {upstream} changed {path}",
                newest.short(),
                newest.summary
            )));
        }
        let after = match &since {
            Some(since) => format!("after {} \"{}\"", since.short(), since.summary),
            None => format!("at the tip of {upstream}"),
        };
        let expected = format!("a commit {after} that changes {path}");
        let not_pushed = match &self.snap.head {
            Some(head) => reader.commits_touching(&head.sha, Some(tip), path)?,
            None => Vec::new(),
        };
        if let Some(local) = not_pushed.first() {
            return Ok(broken(
                Outcome::fail(format!(
                    "{} \"{}\" changes {path} but is not pushed to {upstream}",
                    local.short(),
                    local.summary
                ))
                .with_expected(expected)
                .with_actual("committed, not pushed")
                .with_cause(Cause::new("not-pushed"))
                .with_hint(format!("{} && git push", self.cd())),
            ));
        }
        let uncommitted = self.snap.dirty.iter().any(|d| {
            d == path || (d.ends_with('/') && path.starts_with(d.as_str())) || {
                let dir = format!("{}/", path.trim_end_matches('/'));
                d.starts_with(&dir)
            }
        });
        if uncommitted {
            return Ok(broken(
                Outcome::fail(format!(
                    "you changed {path} in {} but have not committed it",
                    self.shown
                ))
                .with_expected(expected)
                .with_actual("changed, not committed")
                .with_cause(Cause::new("not-committed"))
                .with_hint(format!(
                    "{} && git add -A && git commit -m \"…\" && git push",
                    self.cd()
                )),
            ));
        }
        Ok(broken(
            Outcome::fail(format!("no commit {after} on {upstream} changes {path}"))
                .with_expected(expected)
                .with_actual(format!("{path} unchanged"))
                .with_cause(Cause::new("file-unchanged"))
                .with_hint(format!(
                    "edit {path} in {} as the step says, then {} && git add -A && git commit -m \"…\" && git push",
                    self.shown,
                    self.cd()
                )),
        ))
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

impl KindReads for GitSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::none()
    }

    fn rename_for_learner(&mut self, _names: &mut dyn LearnerNames) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> Result<GitSpec, String> {
        #[derive(Debug, Deserialize)]
        struct Check {
            #[expect(dead_code, reason = "only here so `git:` is not at line 1")]
            id: String,
            git: GitSpec,
        }
        let yaml = if yaml.starts_with("id:") {
            yaml.to_string()
        } else {
            let indented: String = yaml.lines().map(|l| format!("  {l}\n")).collect();
            format!("id: x\ngit:\n{indented}")
        };
        serde_yaml::from_str::<Check>(&yaml)
            .map(|c| c.git)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_git_check_without_a_condition_is_rejected_at_load() {
        let err = spec("id: x\ngit:\n  repo: checkout-config\n").unwrap_err();
        assert!(err.contains("has no condition"), "{err}");
        assert!(err.contains("line 3"), "{err}");
    }

    #[test]
    fn clean_false_is_rejected_because_it_checks_nothing() {
        let err = spec("repo: x\nclean: false\n").unwrap_err();
        assert!(err.contains("`clean: false` checks nothing"), "{err}");
    }

    #[test]
    fn an_invalid_regex_is_rejected_at_load_with_its_line() {
        let err = spec("repo: x\npushed: true\nhead_message: \"checkout: (6.7.0\"\n").unwrap_err();
        assert!(err.contains("is not a valid regex"), "{err}");
        assert!(err.contains("line 5 column 17"), "{err}");
    }

    #[test]
    fn an_unknown_field_is_rejected() {
        let err = spec("repo: x\npushd: true\n").unwrap_err();
        assert!(err.contains("unknown field `pushd`"), "{err}");
    }

    #[test]
    fn plain_patterns_become_the_commit_message_in_hints() {
        let p = |s: &str| Pattern(Regex::new(s).unwrap());
        assert_eq!(
            p("^checkout: 6\\.7\\.0 with a broken migration$")
                .literal()
                .as_deref(),
            Some("checkout: 6.7.0 with a broken migration")
        );
        assert_eq!(p("^checkout: (a|b)").literal(), None);
        assert_eq!(p("6.7.0").literal(), None);
    }
}
