//! Check kind `diff`: a file of the learner's (or a YAML subtree of it) against a reference — a
//! file in a work repo (the course's reference repo) or a file under `expected/` in the course.
//! On a difference the outcome carries a unified diff, reference (`-`) against the learner (`+`).

mod data;
mod text;

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess};
use serde_yaml::Value;

use crate::checks::Context;
use crate::checks::yaml_value::{parse_learner_yaml, read_learner_file};
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{Cause, CauseId, DetailKind, Outcome};
use crate::probe::files::{self, PathShower};
use crate::yaml::fields::{FromMap, deserialize_via};
use crate::yaml::path::YamlPath;
use data::{compare, diff_per_mistake};
use text::{significant_lines, trim_line_ends, unified_diff};

/// Fields of a `diff` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawDiffSpec")]
pub struct DiffSpec {
    /// The learner's work repo.
    pub repo: String,
    /// The learner's file, relative to the repo root.
    pub file: String,
    pub reference: Reference,
    pub mode: DiffMode,
    /// Compare only this part of both files (yaml and contains modes).
    pub subtree: Option<YamlPath>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDiffSpec {
    repo: String,
    file: String,
    reference: Reference,
    #[serde(default)]
    mode: DiffMode,
    #[serde(default)]
    subtree: Option<YamlPath>,
}

impl TryFrom<RawDiffSpec> for DiffSpec {
    type Error = String;

    fn try_from(raw: RawDiffSpec) -> Result<Self, String> {
        if raw.subtree.is_some() && matches!(raw.mode, DiffMode::Text | DiffMode::Whitespace) {
            return Err(format!(
                "`subtree` needs `mode: yaml` or `mode: contains` (a {} diff compares whole files)",
                raw.mode
            ));
        }
        crate::paths::inside_field("file", &raw.file)?;
        Ok(DiffSpec {
            repo: raw.repo,
            file: raw.file,
            reference: raw.reference,
            mode: raw.mode,
            subtree: raw.subtree,
        })
    }
}

/// How the two files are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffMode {
    /// Exactly the same text, as the course's `diff` command.
    #[default]
    Text,
    /// The same text, ignoring trailing spaces, blank lines and CRLF line ends.
    Whitespace,
    /// The same YAML data: key order, comments and quoting style do not matter.
    Yaml,
    /// Every key and value of the reference (a YAML fragment) is in the learner's file; lists are
    /// compared whole.
    Contains,
}

impl fmt::Display for DiffMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DiffMode::Text => "text",
            DiffMode::Whitespace => "whitespace",
            DiffMode::Yaml => "yaml",
            DiffMode::Contains => "contains",
        })
    }
}

/// Where the reference comes from.
#[derive(Debug, Clone)]
pub enum Reference {
    /// A file in a work repo (e.g. the course's reference repo `argocd-gitops`).
    Repo { repo: String, file: String },
    /// A file under `expected/<track>/<module>/` in the course.
    Expected { expected: String },
}

deserialize_via!(FromMap, Reference);

impl FromMap for Reference {
    const EXPECTING: &'static str = "`{repo: NAME, file: PATH}` or `{expected: FILE}`";

    fn from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let (mut repo, mut file, mut expected) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "repo" => repo = Some(map.next_value::<String>()?),
                "file" => file = Some(map.next_value::<String>()?),
                "expected" => expected = Some(map.next_value::<String>()?),
                other => {
                    return Err(de::Error::unknown_field(
                        other,
                        &["repo", "file", "expected"],
                    ));
                }
            }
        }
        for (field, value) in [("file", &file), ("expected", &expected)] {
            if let Some(value) = value {
                crate::paths::inside_field(field, value).map_err(de::Error::custom)?;
            }
        }
        match (repo, file, expected) {
            (Some(repo), Some(file), None) => Ok(Reference::Repo { repo, file }),
            (None, None, Some(expected)) => Ok(Reference::Expected { expected }),
            _ => Err(de::Error::custom(
                "a reference is either `{repo: NAME, file: PATH}` (a file in a work repo) or `{expected: FILE}` (a file under expected/<track>/<module>/), not a mix",
            )),
        }
    }
}

/// How many differing keys a summary names before "and N more".
const KEYS_SHOWN: usize = 5;

impl DiffSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        let mut repos = vec![self.repo.as_str()];
        if let Reference::Repo { repo, .. } = &self.reference {
            repos.push(repo.as_str());
        }
        repos
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let shower = &ctx.paths;
        let (reference_shown, reference_text) = match self.read_reference(ctx, shower) {
            Ok(reference) => reference,
            Err(outcome) => return *outcome,
        };
        let (shown, text) = match read_learner_file(ctx, &self.repo, &self.file, shower) {
            Ok(file) => file,
            Err(outcome) => return *outcome,
        };
        let files = Files {
            reference_shown: &reference_shown,
            reference: &reference_text,
            shown: &shown,
            learner: &text,
        };
        match self.mode {
            DiffMode::Text => files.compare_text(false),
            DiffMode::Whitespace => files.compare_text(true),
            DiffMode::Yaml | DiffMode::Contains => {
                match files.compare_yaml(self.mode, self.subtree.as_ref()) {
                    Ok(outcome) | Err(outcome) => *outcome,
                }
            }
        }
    }

    /// The reference's name (as shown) and text; anything missing is the environment's problem.
    fn read_reference(
        &self,
        ctx: &Context,
        shower: &PathShower,
    ) -> Result<(String, String), Box<Outcome>> {
        match &self.reference {
            Reference::Repo { repo, file } => {
                let repo_dir = ctx.repo_dir(repo);
                let shown = shower.show(&repo_dir.join(file));
                let get = ctx
                    .repo(repo)
                    .map(|r| r.get.clone())
                    .unwrap_or_else(|| format!("the `{repo}` repo"));
                ctx.repo_probe
                    .read_file(&repo_dir, file, shower)
                    .map(|text| (shown.clone(), text))
                    .map_err(|error| {
                        let hint = match error {
                            files::FileError::Missing { .. } => format!(
                                "update the reference repo: `{} && git pull`",
                                crate::shell::cd(&shower.show(&repo_dir))
                            ),
                            files::FileError::RepoMissing { .. } => format!("get {get}"),
                            // A folder or a pipe where the course names its reference file.
                            _ => format!(
                                "the check's `reference: {{repo: {repo}, file: {file}}}` must name a file: tell the course's author (`labcheck course lint` finds it)"
                            ),
                        };
                        Box::new(
                            Outcome::could_not_check(format!(
                                "cannot read the reference {shown}: {error}"
                            ))
                            .with_hint(hint),
                        )
                    })
            }
            Reference::Expected { expected } => ctx
                .references
                .reference_file(&ctx.track, &ctx.module, expected)
                .map(|(name, text)| (format!("{name} (course reference)"), text))
                .map_err(|error| {
                    Box::new(Outcome::could_not_check(format!(
                        "cannot read the course's reference file: {error}"
                    )))
                }),
        }
    }
}

/// Both sides of a comparison.
struct Files<'a> {
    reference_shown: &'a str,
    reference: &'a str,
    shown: &'a str,
    learner: &'a str,
}

impl Files<'_> {
    fn compare_text(&self, ignore_whitespace: bool) -> Outcome {
        let same = if ignore_whitespace {
            significant_lines(self.reference) == significant_lines(self.learner)
        } else {
            self.reference == self.learner
        };
        if same {
            return Outcome::pass(format!(
                "{} is the same as the reference {}",
                self.shown, self.reference_shown
            ));
        }
        let (reference, learner) = if ignore_whitespace {
            (trim_line_ends(self.reference), trim_line_ends(self.learner))
        } else {
            (self.reference.to_string(), self.learner.to_string())
        };
        let lines = unified_diff(
            &reference,
            &learner,
            self.reference_shown,
            self.shown,
            ignore_whitespace,
        );
        self.different(lines.what, lines.text, lines.cause)
    }

    fn different(&self, what: String, diff: String, cause: CauseId) -> Outcome {
        // Both file names head the diff; the summary line keeps to what differs.
        Outcome::fail(format!("not the same as the reference: {what}"))
        .with_diagnosis(
            "in the diff, lines starting with - are the reference's and lines starting with + are yours",
        )
        .with_detail(DetailKind::Diff, diff)
        .with_cause(Cause::new(cause))
    }

    /// `Err` holds an outcome that ends the check early (a file that is not YAML).
    fn compare_yaml(
        &self,
        mode: DiffMode,
        subtree: Option<&YamlPath>,
    ) -> Result<Box<Outcome>, Box<Outcome>> {
        let reference_docs = crate::yaml::helm::parse_documents(self.reference).map_err(|e| {
            Box::new(Outcome::could_not_check(format!(
                "the reference {} is not valid YAML ({e}); the course needs fixing",
                self.reference_shown
            )))
        })?;
        let learner_docs = parse_learner_yaml(self.shown, self.learner)?;
        let (reference, learner) = match subtree {
            None if reference_docs.len() == 1 && learner_docs.len() == 1 => {
                (reference_docs[0].clone(), learner_docs[0].clone())
            }
            // Several documents: compare them as a list, in order.
            None => (
                Value::Sequence(reference_docs),
                Value::Sequence(learner_docs),
            ),
            Some(path) => {
                let (Some(reference_doc), Some(learner_doc)) =
                    (single(&reference_docs), single(&learner_docs))
                else {
                    return Err(Box::new(Outcome::fail(format!(
                        "{} or the reference holds several YAML documents; `subtree` reads files with one",
                        self.shown
                    ))));
                };
                let Some(reference) = path.lookup(reference_doc) else {
                    return Err(Box::new(Outcome::could_not_check(format!(
                        "the reference {} has no `{path}`; the course needs fixing",
                        self.reference_shown
                    ))));
                };
                let Some(learner) = path.lookup(learner_doc) else {
                    return Err(Box::new(
                        Outcome::fail(format!("{} has no `{path}`", self.shown))
                            .with_hint(format!("add `{path}` to {} as the course says", self.shown))
                            .with_cause(Cause::new(CauseId::MissingInFile)),
                    ));
                };
                (reference.clone(), learner.clone())
            }
        };
        let base = subtree
            .cloned()
            .unwrap_or_else(|| YamlPath::from_segments(vec![]));
        let mut differences = Vec::new();
        compare(
            &reference,
            &learner,
            &base,
            mode == DiffMode::Contains,
            &mut differences,
        );
        if differences.is_empty() {
            let what = match (mode, subtree) {
                (DiffMode::Contains, Some(path)) => format!("`{path}` holds everything in"),
                (DiffMode::Contains, None) => "holds everything in".to_string(),
                (_, Some(path)) => format!("`{path}` has the same YAML data as"),
                (_, None) => "has the same YAML data as".to_string(),
            };
            // The course's own `diff` compares text: say so where it would still print lines,
            // so a learner who runs it is not told two things.
            let note = if mode == DiffMode::Yaml
                && subtree.is_none()
                && self.reference != self.learner
            {
                " (the text differs in comments, key order, quoting or spacing, so `diff` still prints lines; Helm reads both the same)"
            } else {
                ""
            };
            return Ok(Box::new(Outcome::pass(format!(
                "{} {what} the reference {}{note}",
                self.shown, self.reference_shown
            ))));
        }
        let mut named: Vec<String> = differences
            .iter()
            .take(KEYS_SHOWN)
            .map(|d| d.said.clone())
            .collect();
        if differences.len() > KEYS_SHOWN {
            named.push(format!("and {} more", differences.len() - KEYS_SHOWN));
        }
        let what = named.join("; ");
        let diff = match (mode, subtree) {
            // The whole files, so line numbers are the learner's own.
            (DiffMode::Yaml, None) => {
                unified_diff(
                    self.reference,
                    self.learner,
                    self.reference_shown,
                    self.shown,
                    false,
                )
                .text
            }
            // One small diff per difference, with only values the learner really has.
            _ => diff_per_mistake(&differences),
        };
        let cause = data::cause_of(&differences);
        Err(Box::new(self.different(what, diff, cause)))
    }
}

fn single(documents: &[Value]) -> Option<&Value> {
    match documents {
        [one] => Some(one),
        _ => None,
    }
}

impl KindReads for DiffSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::none()
    }

    fn rename_for_learner(&mut self, _names: &mut dyn LearnerNames) {}

    fn can_fail(&self) -> crate::checks::can_fail::Causes {
        // The diff shows what differs; which way to change it is the course's to say. A missing
        // or broken file of the learner's says what to do; several documents where `subtree`
        // reads one does not.
        crate::checks::can_fail::Causes::new()
            .all(
                &[
                    CauseId::MissingInFile,
                    CauseId::DiffersInFile,
                    CauseId::ExtraInFile,
                ],
                false,
            )
            .all(&[CauseId::Failed], self.subtree.is_none())
    }
}

#[cfg(test)]
mod tests;
