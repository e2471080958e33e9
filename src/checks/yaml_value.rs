//! Check kind `yaml_value`: one value in a YAML file of the learner's working tree, read as Helm
//! reads a values file, satisfies a condition (`migration.enabled` equals `true`).
//!
//! Also home of the helpers the file kinds share: reading a learner's file and turning what went
//! wrong into an outcome (a missing file is the learner's, a missing repo is the environment's).

use serde::de::{self, MapAccess};
use serde_yaml::Value;

use crate::checks::Context;
use crate::checks::can_fail::Causes;
use crate::checks::condition::{
    FileCondition, FileConditionFields, ValueCondition, with_operators,
};
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::files::{FileError, PathShower};
use crate::yaml::fields::{FromMap, deserialize_via};
use crate::yaml::helm::{self, YamlError};
use crate::yaml::path::YamlPath;
use crate::yaml::value::render;

/// Fields of a `yaml_value` check.
#[derive(Debug, Clone)]
pub struct YamlValueSpec {
    /// The work repo (a name from module.yaml).
    pub repo: String,
    /// The file, relative to the repo root.
    pub file: String,
    pub path: YamlPath,
    pub condition: ValueCondition,
    /// Which document of a multi-document file; without it the file must hold exactly one.
    pub document: Option<usize>,
}

const KEYS: &[&str] = with_operators!["repo", "file", "path", "document"];

deserialize_via!(FromMap, YamlValueSpec);

impl FromMap for YamlValueSpec {
    const EXPECTING: &'static str = "a map with `repo`, `file`, `path` and one condition (equals, one_of, absent, present, matches, ends_with)";

    fn from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let (mut repo, mut document) = (None, None);
        let mut fields = FileConditionFields::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "repo" => repo = Some(map.next_value::<String>()?),
                "document" => document = Some(map.next_value::<usize>()?),
                other => {
                    if !fields.read(other, &mut map)? {
                        return Err(de::Error::unknown_field(other, KEYS));
                    }
                }
            }
        }
        let repo = repo.ok_or_else(|| de::Error::missing_field("repo"))?;
        let FileCondition {
            file,
            path,
            condition,
        } = fields.finish()?;
        Ok(YamlValueSpec {
            repo,
            file,
            path,
            condition,
            document,
        })
    }
}

impl YamlValueSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        vec![self.repo.as_str()]
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let shower = &ctx.paths;
        let learner = match read_learner_yaml(ctx, &self.repo, &self.file, shower) {
            Ok(file) => file,
            Err(outcome) => return *outcome,
        };
        let document = match pick_document(&learner, self.document) {
            Ok(document) => document,
            Err(outcome) => return *outcome,
        };
        let found = self.path.lookup(document);
        let result = self.condition.test(found);
        let shown = &learner.shown;
        let path = &self.path;
        if result.holds {
            return Outcome::pass(format!("`{path}` is {} in {shown}", result.actual))
                .with_expected(result.expected)
                .with_actual(result.actual);
        }
        // A selector that matched no item or several is its own message: "not set" would send
        // the learner to add what may well be there under another name.
        let selector_miss = found
            .is_none()
            .then(|| path.selector_miss(document))
            .flatten();
        let summary = match (found.filter(|v| !v.is_null()), &selector_miss) {
            (None, Some(why)) => format!("`{path}` names nothing in {shown}: {why}"),
            (None, None) => format!("`{path}` is not set in {shown}"),
            (Some(_), _) => format!("`{path}` is {} in {shown}", result.actual),
        };
        let mut outcome = Outcome::fail(summary)
            .with_expected(result.expected.clone())
            .with_actual(result.actual.clone());
        // The flat-key trap: `migration.enabled: true` written on one line is a key named
        // "migration.enabled", not `enabled` under `migration`. Repeating "set it" would send the
        // learner round in circles, so say what YAML made of it.
        if found.is_none()
            && let Some(trap) = flat_key_trap(document, &self.path)
        {
            outcome.summary = format!(
                "`{path}` is not set in {shown}: there is a key named `{}` instead",
                trap.written
            );
            return outcome
                .with_diagnosis(format!(
                    "you wrote a key named `{}`; YAML nests by indentation, so that is one key with dots in its name, not `{path}`",
                    trap.written
                ))
                .with_hint(format!(
                    "in {shown}, replace the line `{}: …` with {}",
                    trap.written, trap.nested
                ))
                .with_cause(crate::outcome::Cause::new(crate::outcome::CauseId::FlatKey));
        }
        if selector_miss.is_some() {
            return outcome.with_cause(crate::outcome::Cause::new(
                crate::outcome::CauseId::SelectorMiss,
            ));
        }
        if found.is_none()
            && self.path.segments().len() > 1
            && let Some(existing) = self.path.deepest_existing(document)
        {
            outcome = outcome.with_diagnosis(format!(
                "`{existing}` is there, but not `{path}`; check the spelling and the indentation under `{existing}`"
            ));
        }
        // Whether there is something to add, to correct or to take out decides which of the
        // course's hints fits: "add `migration:`" to a learner who has it with another value
        // would have them write the key twice.
        let cause = match (found.filter(|v| !v.is_null()), &self.condition) {
            (Some(_), ValueCondition::Absent) => CauseId::ExtraInFile,
            (Some(_), _) => CauseId::DiffersInFile,
            (None, _) => CauseId::MissingInFile,
        };
        outcome = outcome.with_cause(Cause::new(cause));
        let hint = match (&result.note, &self.condition) {
            (Some(note), _) => Some(format!("{note} (in {shown})")),
            (None, ValueCondition::Equals(want)) => {
                Some(format!("set `{path}: {}` in {shown}", render(want)))
            }
            (None, ValueCondition::Absent) => Some(format!("remove `{path}` from {shown}")),
            // The check file's own hint says it in the course's words.
            _ => None,
        };
        match hint {
            Some(hint) => outcome.with_hint(hint),
            None => outcome,
        }
    }
}

/// A key written flat (`migration.enabled`) where the path wants it nested.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlatKey {
    /// The key as the learner wrote it.
    pub written: String,
    /// How to write it nested, e.g. `` `migration:` then `  enabled: …` on the next line ``.
    pub nested: String,
}

/// Whether the document holds, where the path's keys should nest, one key whose name is the rest
/// of the path joined with dots.
pub(crate) fn flat_key_trap(document: &Value, path: &YamlPath) -> Option<FlatKey> {
    use crate::yaml::path::Segment;
    let segments = path.segments();
    let mut here = document;
    for (i, segment) in segments.iter().enumerate() {
        let keys: Option<Vec<&str>> = segments[i..]
            .iter()
            .map(|s| match s {
                Segment::Key(key) => Some(key.as_str()),
                Segment::Index(_) | Segment::Select { .. } => None,
            })
            .collect();
        let map = match here {
            Value::Tagged(tagged) => tagged.value.as_mapping(),
            other => other.as_mapping(),
        };
        if let (Some(keys), Some(map)) = (keys, map)
            && keys.len() > 1
        {
            let written = keys.join(".");
            if map.get(written.as_str()).is_some() {
                let nested = keys
                    .iter()
                    .enumerate()
                    .map(|(depth, key)| {
                        let indent = "  ".repeat(depth);
                        if depth + 1 == keys.len() {
                            format!("`{indent}{key}: …`")
                        } else {
                            format!("`{indent}{key}:`")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" then ");
                return Some(FlatKey {
                    written,
                    nested: format!("{nested}, each on its own line"),
                });
            }
        }
        let next = YamlPath::from_segments(vec![segment.clone()]);
        here = next.lookup(here)?;
    }
    None
}

/// A learner's YAML file, read and parsed.
#[derive(Debug)]
pub(crate) struct LearnerYaml {
    /// The path as shown to the learner (`~/work/…`).
    pub shown: String,
    pub documents: Vec<Value>,
}

/// Read and parse a YAML file in a work repo; every failure is already an outcome. (Boxed: an
/// `Outcome` is large next to the file.)
pub(crate) fn read_learner_yaml(
    ctx: &Context,
    repo: &str,
    file: &str,
    shower: &PathShower,
) -> Result<LearnerYaml, Box<Outcome>> {
    let (shown, text) = read_learner_file(ctx, repo, file, shower)?;
    let documents = parse_learner_yaml(&shown, &text)?;
    Ok(LearnerYaml { shown, documents })
}

/// Read a text file in a work repo; every failure is already an outcome.
pub(crate) fn read_learner_file(
    ctx: &Context,
    repo: &str,
    file: &str,
    shower: &PathShower,
) -> Result<(String, String), Box<Outcome>> {
    let repo_dir = ctx.repo_dir(repo);
    let shown = shower.show(&repo_dir.join(file));
    ctx.repo_probe
        .read_file(&repo_dir, file, shower)
        .map(|text| (shown.clone(), text))
        .map_err(|error| Box::new(file_error_outcome(ctx, repo, &error, &shown)))
}

/// Parse a learner's file; broken YAML is the learner's failure (Helm would refuse it too).
pub(crate) fn parse_learner_yaml(shown: &str, text: &str) -> Result<Vec<Value>, Box<Outcome>> {
    helm::parse_documents(text).map_err(|error| {
        Box::new(match error {
            YamlError::Syntax {
                line,
                column,
                message,
            } => Outcome::fail(format!("{shown}:{line}:{column}: {message}"))
                .with_hint(format!(
                    "fix the YAML in {shown} at line {line} (Helm cannot read it either): check the indentation and the quotes there"
                )),
            YamlError::TooComplex(message) => {
                Outcome::could_not_check(format!("{shown}: {message}")).with_hint(format!(
                    "write the values in {shown} out plainly: anchors and aliases (`&x`, `*x`) that repeat each other are not needed in a values file"
                ))
            }
        })
    })
}

/// What a file error means for the check: the learner's missing file fails; anything that keeps
/// labcheck from looking is "could not check".
pub(crate) fn file_error_outcome(
    ctx: &Context,
    repo: &str,
    error: &FileError,
    shown: &str,
) -> Outcome {
    match error {
        FileError::RepoMissing { shown: repo_shown } => {
            let get = ctx
                .repo(repo)
                .map(|r| r.get.clone())
                .unwrap_or_else(|| format!("clone the `{repo}` repo"));
            Outcome::could_not_check(format!(
                "the work repo {repo_shown} is missing, so {shown} cannot be read"
            ))
            .with_hint(format!(
                "get {get} (or point --work-dir at the folder that holds your work repos)"
            ))
        }
        FileError::Missing { .. } => Outcome::fail(format!("{shown} does not exist"))
            .with_hint(format!(
                "create or edit {shown} as the course says (check the file name and that you are on the right branch)"
            )),
        FileError::NotAFile { .. } => Outcome::fail(error.to_string())
            .with_hint(format!("{shown} must be a file; check the path")),
        FileError::NotUtf8 { .. } => Outcome::fail(error.to_string()).with_hint(format!(
            "save {shown} as UTF-8 text (your editor's encoding setting)"
        )),
        FileError::OutsideRepo { .. } => Outcome::could_not_check(error.to_string()).with_hint(
            format!("put the real file at {shown}, inside the repo (labcheck does not follow links out of it)"),
        ),
        FileError::NotRegular { .. } => Outcome::could_not_check(error.to_string())
            .with_hint(format!(
                "replace {shown} with a plain file (labcheck does not read pipes or devices: they could block it)"
            ))
            .with_cause(crate::outcome::Cause::new(crate::outcome::CauseId::NotARegularFile)),
        FileError::TooLarge { .. } => Outcome::could_not_check(error.to_string()).with_hint(
            format!("check that {shown} is the file the course means: a values file is a few kilobytes"),
        ),
        FileError::TooManyEntries { .. } => Outcome::could_not_check(error.to_string())
            .with_hint("delete generated folders (build output, node_modules) from the repo"),
        FileError::Io { .. } => Outcome::could_not_check(error.to_string())
            .with_hint(format!(
                "check that you can read it: `ls -l {}`",
                crate::shell::quote_path(shown)
            )),
        FileError::NotInBundle { .. } => Outcome::could_not_check(error.to_string())
            .with_cause(crate::outcome::Cause::new(crate::outcome::CauseId::NotInBundle)),
    }
}

/// The document a check looks at: the one asked for, or the only one.
pub(crate) fn pick_document(
    learner: &LearnerYaml,
    index: Option<usize>,
) -> Result<&Value, Box<Outcome>> {
    let count = learner.documents.len();
    let shown = &learner.shown;
    match index {
        Some(i) => learner.documents.get(i).ok_or_else(|| {
            Box::new(
                Outcome::fail(format!(
                    "{shown} holds {count} YAML document(s); document {i} (counting from 0) is not there"
                ))
                .with_hint(format!("check the `---` separators in {shown}")),
            )
        }),
        None if count == 1 => Ok(&learner.documents[0]),
        None => Err(Box::new(
            Outcome::fail(format!(
                "{shown} holds {count} YAML documents separated by `---`; a values file holds one"
            ))
            .with_hint(format!("remove the extra `---` lines from {shown}")),
        )),
    }
}

impl KindReads for YamlValueSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::none()
    }

    fn rename_for_learner(&mut self, _names: &mut dyn LearnerNames) {}

    fn can_fail(&self) -> Causes {
        // A missing or unreadable file, broken YAML, more documents than one: each says what to do.
        value_causes(
            Causes::new().hinted(CauseId::Failed),
            &self.path,
            &self.condition,
        )
    }
}

/// What a condition on a YAML value can fail with, and which of those the check names the fix
/// for itself (`set X: V`, `remove X`; a condition with no single right value leaves it to the
/// course).
pub(crate) fn value_causes(causes: Causes, path: &YamlPath, condition: &ValueCondition) -> Causes {
    use crate::yaml::path::Segment;
    let mut causes = causes;
    if path
        .segments()
        .iter()
        .any(|s| matches!(s, Segment::Select { .. }))
    {
        causes = causes.silent(CauseId::SelectorMiss);
    }
    match condition {
        ValueCondition::Absent => return causes.hinted(CauseId::ExtraInFile),
        ValueCondition::Equals(_) => {
            causes = causes.all(&[CauseId::MissingInFile, CauseId::DiffersInFile], true);
        }
        ValueCondition::Present => causes = causes.silent(CauseId::MissingInFile),
        ValueCondition::OneOf(_) | ValueCondition::Matches(_) | ValueCondition::EndsWith(_) => {
            causes = causes.all(&[CauseId::MissingInFile, CauseId::DiffersInFile], false);
        }
    }
    if path.segments().len() > 1 {
        causes = causes.hinted(CauseId::FlatKey);
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trap(yaml: &str, path: &str) -> Option<FlatKey> {
        let document: Value = serde_yaml::from_str(yaml).unwrap();
        flat_key_trap(&document, &YamlPath::parse(path).unwrap())
    }

    #[test]
    fn a_dotted_key_at_the_top_or_one_level_down_is_the_flat_key_trap() {
        for (yaml, path, written) in [
            (
                "image:\n  tag: \"6.7.1\"\nmigration.enabled: true\n",
                "migration.enabled",
                "migration.enabled",
            ),
            (
                "migration:\n  hooks.enabled: true\n",
                "migration.hooks.enabled",
                "hooks.enabled",
            ),
        ] {
            let found = trap(yaml, path).unwrap();
            assert_eq!(found.written, written, "{yaml}");
        }
        let top = trap("migration.enabled: true\n", "migration.enabled").unwrap();
        assert_eq!(
            top.nested,
            "`migration:` then `  enabled: …`, each on its own line"
        );
    }

    #[test]
    fn a_yaml_value_check_names_the_first_missing_or_wrong_key() {
        for (text, words) in [
            ("file: a.yaml\npath: x\nequals: 1\n", "missing field `repo`"),
            ("repo: r\npath: x\nequals: 1\n", "missing field `file`"),
            ("repo: r\nfile: a.yaml\nequals: 1\n", "missing field `path`"),
            ("repo: r\nfile: a.yaml\npath: x\n", "no condition"),
            (
                "repo: r\nfile: ../a.yaml\npath: x\nequals: 1\n",
                "leaves the folder",
            ),
            (
                "repo: r\nfile: a.yaml\npath: x\nequals: 1\nstep: s\n",
                "unknown field `step`, expected one of `repo`, `file`, `path`, `document`",
            ),
        ] {
            match serde_yaml::from_str::<YamlValueSpec>(text) {
                Ok(spec) => panic!("{text}: read as {spec:?}"),
                Err(e) => assert!(e.to_string().contains(words), "{text}: {e}"),
            }
        }
        let spec: YamlValueSpec =
            serde_yaml::from_str("repo: r\nfile: a.yaml\npath: x.y\ndocument: 1\npresent: true\n")
                .unwrap();
        assert_eq!(
            (
                spec.repo.as_str(),
                spec.file.as_str(),
                spec.path.to_string(),
                spec.document
            ),
            ("r", "a.yaml", "x.y".to_string(), Some(1))
        );
    }

    #[test]
    fn a_key_that_is_simply_missing_is_not_the_trap() {
        assert_eq!(
            trap("migration:\n  enabld: true\n", "migration.enabled"),
            None
        );
        assert_eq!(trap("other: 1\n", "migration.enabled"), None);
    }
}
