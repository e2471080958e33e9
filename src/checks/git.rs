//! Check kind `git`: the state of a work repo — branch, clean tree, pushed, and what its history
//! holds (HEAD's message, a revert, a commit, a commit that changed a file).
//!
//! Conditions are checked in a fixed order (the order a learner fixes things in) and the first
//! that fails is reported with a hint for that cause. "Pushed" history is read from the
//! remote-tracking ref (`origin/main`), offline: labcheck never fetches.//!
//! The spec and the order of conditions live here; each condition on the repo's state (branch,
//! clean, pushed, HEAD's message) is in `repo`, those that walk history (a commit, a touched
//! path) in `history`, and what an unreadable repo means in `unreadable`.

mod history;
pub(crate) mod repo;
pub mod stray;
pub(crate) mod unreadable;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;

use crate::checks::Context;
use crate::checks::can_fail::Causes;
use crate::checks::change::ChangeSpec;
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{CauseId, Outcome};
use crate::probe::repos::Reader;
use crate::yaml::fields::{FromText, deserialize_via};
use crate::yaml::pattern::Pattern as YamlPattern;

use repo::{Checked, Repo, Stop};
use unreadable::shown_path;

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
    /// HEAD undoes the commit that made this change (boxed: a check kind stays small).
    pub undoes: Option<Box<ChangeSpec>>,
    pub has_commit: Option<Pattern>,
    pub touched: Option<Touched>,
    /// The files of this repo the step names (its own conditions' files and what the step's
    /// solution edits), filled in when the step is loaded: an untracked file counts against
    /// `clean` only here, and a commit hint adds these by name.
    pub step_paths: Vec<String>,
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
            undoes: raw.undoes.map(Box::new),
            has_commit: raw.has_commit,
            touched: raw.touched,
            step_paths: Vec::new(),
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
/// with its file:line:col. The regex is the yaml module's one [`YamlPattern`]; this adds how a
/// commit message is matched and the plain text a hint can show.
#[derive(Clone)]
pub struct Pattern(YamlPattern);

impl Pattern {
    /// The regex as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The compiled regex, for the history walk (which matches each message itself).
    pub(crate) fn regex(&self) -> &regex::Regex {
        self.0.regex()
    }

    /// Matches a commit message without its trailing newline (see `RepoReader::newest_matching`).
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

deserialize_via!(FromText, Pattern);

impl FromText for Pattern {
    const EXPECTING: &'static str = "a regular expression (a string)";

    fn from_text(text: &str) -> Result<Self, String> {
        YamlPattern::new(text).map(Pattern).map_err(|e| {
            format!(
                "`{text}` is not a valid regex: {}",
                e.to_string().lines().last().unwrap_or("invalid").trim()
            )
        })
    }
}

impl GitSpec {
    /// Name the files of this repo the step changes (from its solution), beside the ones the
    /// check's own conditions name; each once, in the order first named.
    pub fn name_step_paths<'a>(&mut self, solution_files: impl IntoIterator<Item = &'a str>) {
        let own: Vec<String> = [
            self.made.as_ref().map(|c| c.file.clone()),
            self.undoes.as_ref().map(|c| c.file.clone()),
            self.touched.as_ref().map(|t| t.path.clone()),
        ]
        .into_iter()
        .flatten()
        .collect();
        let named = own
            .into_iter()
            .chain(solution_files.into_iter().map(str::to_string));
        for path in named {
            if !self.step_paths.contains(&path) {
                self.step_paths.push(path);
            }
        }
    }

    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        vec![self.repo.as_str()]
    }

    /// Decide the check; with `clean`, a note names what git does not track and the step
    /// leaves alone (a secret-looking file: keep it out of git), pass or fail.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let outcome = self.decide(ctx).await;
        if !self.clean {
            return outcome;
        }
        let dir = ctx.repo_dir(&self.repo);
        match ctx.git.get(&ctx.repo_probe, &dir).await.as_ref() {
            Ok(snap) => {
                let shown = shown_path(ctx, &self.repo);
                let repo = self.repo_view(ctx, &shown, snap, &dir);
                match repo.untracked_note() {
                    Some(note) => outcome.with_note(note),
                    None => outcome,
                }
            }
            Err(_) => outcome,
        }
    }

    fn repo_view<'a>(
        &'a self,
        ctx: &'a Context,
        shown: &'a str,
        snap: &'a crate::probe::git::RepoSnapshot,
        dir: &'a std::path::Path,
    ) -> Repo<'a> {
        Repo {
            shown,
            snap,
            dir,
            probe: &ctx.repo_probe,
            module: &ctx.module,
            paths: &ctx.paths,
            step_paths: &self.step_paths,
        }
    }

    async fn decide(&self, ctx: &Context) -> Outcome {
        let dir = ctx.repo_dir(&self.repo);
        let shown = shown_path(ctx, &self.repo);
        let snapshot = ctx.git.get(&ctx.repo_probe, &dir).await;
        let snap = match snapshot.as_ref() {
            Ok(snap) => snap,
            Err(e) => return self.unreadable(ctx, &shown, e),
        };
        let repo = self.repo_view(ctx, &shown, snap, &dir);
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
            let reader = match ctx.repo_probe.open(&dir) {
                Ok(reader) => reader,
                Err(e) => return self.unreadable(ctx, &shown, &e),
            };
            match self.history_conditions(&repo, &reader) {
                Ok(mut summaries) => passed.append(&mut summaries),
                Err(Stop::Failed(outcome)) => return *outcome,
                Err(Stop::Unreadable(e)) => return self.unreadable(ctx, &shown, &e),
            }
        }
        Outcome::pass(format!("{}: {}", self.repo, passed.join("; ")))
    }

    /// The conditions that read history, in order: their summaries, or why the first that did
    /// not pass stopped.
    fn history_conditions(&self, repo: &Repo<'_>, reader: &Reader) -> Result<Vec<String>, Stop> {
        // Each condition asked for, in the fixed order; the first that fails ends the check.
        let conditions: Vec<Condition<'_>> = [
            asked(&self.head_message, move |p| Ok(repo.head_message(p)?)),
            asked(&self.made, move |c| repo.made(reader, c)),
            asked(&self.undoes, move |c| repo.undoes(reader, c)),
            asked(&self.has_commit, move |p| repo.has_commit(reader, p)),
            asked(&self.touched, move |t| repo.touched(reader, t)),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut passed = Vec::new();
        for condition in conditions {
            passed.push(condition()?);
        }
        Ok(passed)
    }
}

/// A condition of the check that reads history, run only when the ones before it held.
type Condition<'a> = Box<dyn Fn() -> Checked + 'a>;

/// `run` on the spec's `field`, as a condition, when the check asks for it.
fn asked<'a, T>(
    field: &'a Option<T>,
    run: impl Fn(&'a T) -> Checked + 'a,
) -> Option<Condition<'a>> {
    field
        .as_ref()
        .map(|value| Box::new(move || run(value)) as Condition<'a>)
}

impl KindReads for GitSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::none()
    }

    fn rename_for_learner(&mut self, _names: &mut dyn LearnerNames) {}

    fn can_fail(&self) -> Causes {
        use CauseId::*;
        let mut causes = Causes::new();
        let local = self.branch.is_some()
            || self.clean
            || self.pushed
            || self.head_message.is_some()
            || self.made.is_some()
            || self.undoes.is_some();
        if local {
            causes = causes.hinted(OperationInProgress);
        }
        if self.branch.is_some() {
            causes = causes.all(&[WrongBranch, DetachedHead], true);
        }
        if self.clean {
            causes = causes.all(&[SubmoduleDirty, UncommittedChanges], true);
        }
        if self.pushed {
            causes = causes.all(
                &[NoCommits, NoRemote, NotPushed, BehindUpstream, Diverged],
                true,
            );
        }
        if self.head_message.is_some() {
            causes = causes.all(&[NoCommits, WrongHeadCommit], true);
        }
        if self.made.is_some() {
            causes = causes.all(
                &[NoCommits, NotCommitted, ChangeNotMade, ChangeUndone],
                true,
            );
        }
        if self.undoes.is_some() {
            causes = causes.all(
                &[NoCommits, NotReverted, PartlyReverted, NothingToRevert],
                true,
            );
        }
        if self.has_commit.is_some() {
            causes = causes.all(&[NoCommits, NotPushed, CommitMissing], true);
        }
        if let Some(touched) = &self.touched {
            causes = causes.all(&[NoCommits, NotPushed, NotCommitted, FileUnchanged], true);
            if touched.since.is_some() {
                // Its hint is the cause table's.
                causes = causes.silent(EarlierStepMissing);
            }
        }
        causes
    }
}

#[cfg(test)]
mod tests;
