//! Check kind `files`: the files of a work repo matching a glob exist (at least `min_count`) and
//! each satisfies a text regex and/or a condition on every YAML document in it (step 1:
//! `apps/projects.yaml` and `apps/namespaces.yaml` carry a negative sync-wave).

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::checks::Context;
use crate::checks::condition::PathCondition;
use crate::checks::yaml_value::{file_error_outcome, parse_learner_yaml, read_learner_file};
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{DetailKind, Outcome, Status};
use crate::yaml::fields::{FromText, deserialize_via};
use crate::yaml::pattern::Pattern;

/// Fields of a `files` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesSpec {
    /// The work repo (a name from module.yaml).
    pub repo: String,
    /// Files to look at, relative to the repo root (`*` stays within one folder, `**` crosses).
    pub glob: RepoGlob,
    /// At least this many files must match; no match is a failure, never a vacuous pass.
    #[serde(default = "one", deserialize_with = "at_least_one")]
    pub min_count: usize,
    /// Every matching file's text contains a match of this regex.
    #[serde(default)]
    pub contains: Option<Pattern>,
    /// Every YAML document of every matching file satisfies this condition.
    #[serde(default)]
    pub yaml: Option<PathCondition>,
}

fn one() -> usize {
    1
}

fn at_least_one<'de, D: Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    match usize::deserialize(deserializer)? {
        0 => Err(de::Error::custom(
            "`min_count: 0` would pass with no file at all; use 1 or more",
        )),
        n => Ok(n),
    }
}

/// A glob over repo-relative paths, compiled at load.
#[derive(Debug, Clone)]
pub struct RepoGlob {
    source: String,
    matcher: GlobMatcher,
}

impl RepoGlob {
    /// Compile a glob as written in a check file.
    pub fn new(source: &str) -> Result<RepoGlob, String> {
        if crate::paths::relative_inside(source).is_err() {
            return Err(format!(
                "`{source}` leaves the repo; write it relative to the repo root without `..`"
            ));
        }
        GlobBuilder::new(source)
            .literal_separator(true)
            .build()
            .map(|glob| RepoGlob {
                source: source.to_string(),
                matcher: glob.compile_matcher(),
            })
            .map_err(|e| format!("`{source}` is not a valid glob: {e}"))
    }

    /// The glob as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

deserialize_via!(FromText, RepoGlob);

impl FromText for RepoGlob {
    const EXPECTING: &'static str = "a glob such as `apps/*.yaml`";

    fn from_text(text: &str) -> Result<Self, String> {
        RepoGlob::new(text)
    }
}

/// A matching file that does not satisfy the check, and why.
struct Offender {
    file: String,
    why: String,
    note: Option<String>,
}

impl FilesSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        vec![self.repo.as_str()]
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let (repo_dir, repo_shown) = ctx.repo_dir_shown(&self.repo);
        let glob = self.glob.as_str();
        let matched = match ctx
            .repo_probe
            .glob(&repo_dir, &self.glob.matcher, &ctx.paths)
        {
            Ok(matched) => matched,
            Err(error) => return file_error_outcome(ctx, &self.repo, &error, &repo_shown),
        };
        if matched.len() < self.min_count {
            let summary = match matched.as_slice() {
                [] => format!("no file in {repo_shown} matches `{glob}`"),
                some => format!(
                    "only {} file(s) in {repo_shown} match `{glob}` ({}); expected at least {}",
                    some.len(),
                    some.join(", "),
                    self.min_count
                ),
            };
            return Outcome::fail(summary)
                .with_expected(format!(
                    "at least {} file(s) matching `{glob}`",
                    self.min_count
                ))
                .with_actual(matched.len().to_string());
        }

        let mut offenders = Vec::new();
        let mut unreadable: Option<Outcome> = None;
        for relative in &matched {
            match self.inspect(ctx, relative) {
                Ok(None) => {}
                Ok(Some(offender)) => offenders.push(offender),
                Err(outcome) if outcome.status == Status::Fail => {
                    offenders.push(Offender {
                        file: relative.clone(),
                        note: outcome.own_hint(),
                        why: outcome.summary,
                    });
                }
                Err(outcome) => {
                    unreadable.get_or_insert(*outcome);
                }
            }
        }

        if offenders.is_empty() {
            // A file that could not be read may be the one that fails: no pass then.
            if let Some(outcome) = unreadable {
                return outcome;
            }
            return Outcome::pass(format!(
                "{} file(s) in {repo_shown} match `{glob}`{}",
                matched.len(),
                self.what_each_satisfies()
            ))
            .with_actual(matched.join(", "));
        }
        let names: Vec<&str> = offenders.iter().map(|o| o.file.as_str()).collect();
        let first = &offenders[0];
        let summary = format!(
            "{} of {} file(s) matching `{glob}` in {repo_shown} fall short: {} ({})",
            offenders.len(),
            matched.len(),
            names.join(", "),
            first.why
        );
        let detail: Vec<String> = offenders
            .iter()
            .map(|o| format!("{}: {}", o.file, o.why))
            .collect();
        let mut outcome = Outcome::fail(summary)
            .with_expected(format!("every file{}", self.what_each_satisfies()))
            .with_detail(DetailKind::Text, detail.join("\n"));
        if let Some(note) = offenders.iter().find_map(|o| o.note.clone()) {
            outcome = outcome.with_hint(note);
        }
        outcome
    }

    fn what_each_satisfies(&self) -> String {
        let mut parts = Vec::new();
        if let Some(pattern) = &self.contains {
            parts.push(format!("contains a match for `{}`", pattern.as_str()));
        }
        if let Some(condition) = &self.yaml {
            let wanted = condition.condition.test(None).expected;
            parts.push(format!("has `{}` {wanted}", condition.path));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" and each {}", parts.join(" and "))
        }
    }

    /// `Ok(None)`: the file satisfies the check. `Err`: it could not be read (an outcome saying why).
    fn inspect(&self, ctx: &Context, relative: &str) -> Result<Option<Offender>, Box<Outcome>> {
        let (shown, text) = read_learner_file(ctx, &self.repo, relative, &ctx.paths)?;
        if let Some(pattern) = &self.contains
            && !pattern.is_match(&text)
        {
            return Ok(Some(Offender {
                file: relative.to_string(),
                why: format!("no match for `{}`", pattern.as_str()),
                note: None,
            }));
        }
        let Some(condition) = &self.yaml else {
            return Ok(None);
        };
        let documents = parse_learner_yaml(&shown, &text)?;
        let several = documents.len() > 1;
        // Empty documents (a trailing `---`) hold nothing to apply, as kubectl and Argo CD skip them.
        for (i, document) in documents.iter().enumerate().filter(|(_, d)| !d.is_null()) {
            let result = condition.test(document);
            if !result.holds {
                let which = if several {
                    format!("document {i}: ")
                } else {
                    String::new()
                };
                return Ok(Some(Offender {
                    file: relative.to_string(),
                    why: format!(
                        "{which}`{}` is {}, expected {}",
                        condition.path, result.actual, result.expected
                    ),
                    note: result.note,
                }));
            }
        }
        Ok(None)
    }
}

impl KindReads for FilesSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::none()
    }

    fn rename_for_learner(&mut self, _names: &mut dyn LearnerNames) {}

    fn can_fail(&self) -> crate::checks::can_fail::Causes {
        // Too few files, or a file that falls short: named, with a note only where the
        // condition has one.
        crate::checks::can_fail::Causes::new().silent(crate::outcome::CauseId::Failed)
    }
}
