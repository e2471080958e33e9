//! Check kind `diff`: a file of the learner's (or a YAML subtree of it) against a reference — a
//! file in a work repo (the course's reference repo) or a file under `expected/` in the course.
//! On a difference the outcome carries a unified diff, reference (`-`) against the learner (`+`).

use std::fmt;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_yaml::Value;
use similar::{DiffTag, TextDiff};

use crate::checks::Context;
use crate::checks::yaml_value::{parse_learner_yaml, read_learner_file};
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{DetailKind, Outcome};
use crate::probe::files::{self, PathShower};
use crate::yaml::path::{Segment, YamlPath};
use crate::yaml::value::{render, values_equal};

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

impl<'de> Deserialize<'de> for Reference {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ReferenceVisitor;

        impl<'de> Visitor<'de> for ReferenceVisitor {
            type Value = Reference;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`{repo: NAME, file: PATH}` or `{expected: FILE}`")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Reference, A::Error> {
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

        deserializer.deserialize_map(ReferenceVisitor)
    }
}

/// A diff of 5 MB files must not run for minutes; similar then gives a coarser but correct diff.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

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
        let shower = PathShower::from_env();
        let (reference_shown, reference_text) = match self.read_reference(ctx, &shower) {
            Ok(reference) => reference,
            Err(outcome) => return *outcome,
        };
        let (shown, text) = match read_learner_file(ctx, &self.repo, &self.file, &shower) {
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
                files::read_repo_file(&repo_dir, file, shower)
                    .map(|text| (shown.clone(), text))
                    .map_err(|error| {
                        let hint = match error {
                            files::FileError::Missing { .. } => format!(
                                "update the reference repo: `{} && git pull`",
                                crate::shell::cd(&shower.show(&repo_dir))
                            ),
                            _ => format!("get {get}"),
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
        let (diff, lines) = unified_diff(
            &reference,
            &learner,
            self.reference_shown,
            self.shown,
            ignore_whitespace,
        );
        self.different(lines, diff)
    }

    fn different(&self, what: String, diff: String) -> Outcome {
        // Both file names head the diff; the summary line keeps to what differs.
        Outcome::fail(format!("not the same as the reference: {what}"))
        .with_diagnosis(
            "in the diff, lines starting with - are the reference's and lines starting with + are yours",
        )
        .with_detail(DetailKind::Diff, diff)
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
                        Outcome::fail(format!("{} has no `{path}`", self.shown)).with_hint(
                            format!("add `{path}` to {} as the course says", self.shown),
                        ),
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
                .0
            }
            // One small diff per difference, with only values the learner really has.
            _ => diff_per_mistake(&differences),
        };
        Err(Box::new(self.different(what, diff)))
    }
}

fn single(documents: &[Value]) -> Option<&Value> {
    match documents {
        [one] => Some(one),
        _ => None,
    }
}

fn to_yaml(value: &Value) -> String {
    serde_yaml::to_string(value).unwrap_or_else(|_| render(value))
}

/// Lines that carry content, without line-end noise.
fn significant_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty())
        .collect()
}

fn trim_line_ends(text: &str) -> String {
    let mut out: String = text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// A unified diff (reference `-`, learner `+`) and which of the learner's lines differ, e.g.
/// "lines 9–20 differ" or "lines are missing after line 8".
fn unified_diff(
    reference: &str,
    learner: &str,
    reference_name: &str,
    learner_name: &str,
    skip_blank_changes: bool,
) -> (String, String) {
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(reference, learner);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(reference_name, learner_name)
        .to_string();
    let old_lines: Vec<&str> = reference.lines().collect();
    let new_lines: Vec<&str> = learner.lines().collect();
    let blank = |lines: &[&str], range: std::ops::Range<usize>| {
        lines
            .get(range)
            .is_none_or(|ls| ls.iter().all(|l| l.trim().is_empty()))
    };
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut missing_after: Vec<usize> = Vec::new();
    for op in diff.ops() {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal
            || (skip_blank_changes
                && blank(&old_lines, old.clone())
                && blank(&new_lines, new.clone()))
        {
            continue;
        }
        if new.is_empty() {
            missing_after.push(new.start);
        } else {
            match ranges.last_mut() {
                Some(last) if last.1 + 1 >= new.start => last.1 = new.end,
                _ => ranges.push((new.start + 1, new.end)),
            }
        }
    }
    let mut parts: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                format!("line {a} differs")
            } else {
                format!("lines {a}–{b} differ")
            }
        })
        .collect();
    parts.extend(missing_after.iter().map(|&n| match n {
        0 => "lines are missing at the start".to_string(),
        n => format!("lines are missing after line {n}"),
    }));
    (text, parts.join(", "))
}

/// One difference between the reference and the learner's data, by path.
struct Difference {
    path: YamlPath,
    /// What the summary says about it.
    said: String,
    /// The reference's value there (`None`: the learner has a key the reference does not).
    want: Option<Value>,
    /// The learner's value there (`None`: missing in theirs).
    have: Option<Value>,
}

/// Name every difference by path. `contains`: only the reference's keys matter.
fn compare(
    reference: &Value,
    learner: &Value,
    at: &YamlPath,
    contains: bool,
    out: &mut Vec<Difference>,
) {
    let shown = |path: &YamlPath| {
        if path.segments().is_empty() {
            "the document".to_string()
        } else {
            format!("`{path}`")
        }
    };
    match (reference, learner) {
        (Value::Mapping(want), Value::Mapping(have)) => {
            for (key, want_value) in want {
                let child = at.child(Segment::Key(key_text(key)));
                match have.get(key) {
                    Some(have_value) if !have_value.is_null() || want_value.is_null() => {
                        compare(want_value, have_value, &child, contains, out);
                    }
                    _ if want_value.is_null() => {}
                    _ => out.push(Difference {
                        said: format!("{} is missing", shown(&child)),
                        path: child,
                        want: Some(want_value.clone()),
                        have: None,
                    }),
                }
            }
            if !contains {
                for (key, have_value) in have {
                    if !want.contains_key(key) && !have_value.is_null() {
                        let child = at.child(Segment::Key(key_text(key)));
                        out.push(Difference {
                            said: format!("{} is not in the reference", shown(&child)),
                            path: child,
                            want: None,
                            have: Some(have_value.clone()),
                        });
                    }
                }
            }
        }
        (want, have) if values_equal(want, have) => {}
        (want, have) => {
            let (have_text, want_text) = (render(have), render(want));
            // A script or a long text does not fit a summary line; the diff below shows it.
            let said = if have_text.len() + want_text.len() > 80
                || have_text.contains("\\n")
                || want_text.contains("\\n")
            {
                format!("{} differs (see the lines below)", shown(at))
            } else {
                format!(
                    "{} is {have_text} in yours, {want_text} in the reference",
                    shown(at)
                )
            };
            out.push(Difference {
                path: at.clone(),
                said,
                want: Some(want.clone()),
                have: Some(have.clone()),
            });
        }
    }
}

/// One small diff per difference: the reference's value at that path (`-`) and the learner's own
/// value there (`+`), nothing invented: a key missing in theirs has no `+` line at all.
fn diff_per_mistake(differences: &[Difference]) -> String {
    let mut out = String::new();
    for difference in differences {
        let path = &difference.path;
        let key = match path.segments().last() {
            Some(Segment::Key(key)) => Some(key.clone()),
            _ => None,
        };
        out.push_str(&format!("@@ {} @@\n", difference.said));
        for (sign, value) in [("-", &difference.want), ("+", &difference.have)] {
            let Some(value) = value else { continue };
            let block = match &key {
                Some(key) => {
                    let mut map = serde_yaml::Mapping::new();
                    map.insert(Value::String(key.clone()), value.clone());
                    to_yaml(&Value::Mapping(map))
                }
                None => to_yaml(value),
            };
            for line in block.lines() {
                out.push_str(sign);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(text) => text.clone(),
        other => render(other),
    }
}

impl KindReads for DiffSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::none()
    }

    fn rename_for_learner(&mut self, _names: &mut dyn LearnerNames) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files<'a>(reference: &'a str, learner: &'a str) -> Files<'a> {
        Files {
            reference_shown: "~/work/argocd-gitops/platform/argocd/values.yaml",
            reference,
            shown: "~/work/argocd-platform/argocd/values.yaml",
            learner,
        }
    }

    fn yaml_outcome(
        reference: &str,
        learner: &str,
        mode: DiffMode,
        subtree: Option<&str>,
    ) -> Outcome {
        let path = subtree.and_then(|s| YamlPath::parse(s).ok());
        match files(reference, learner).compare_yaml(mode, path.as_ref()) {
            Ok(outcome) | Err(outcome) => *outcome,
        }
    }

    const REFERENCE: &str = "configs:\n  cm:\n    # banner\n    ui.bannerpermanent: \"true\"\n    timeout.reconciliation: 60s\nserver:\n  replicas: 1\n";

    #[test]
    fn same_text_passes_and_a_changed_value_fails_with_the_diff() {
        assert_eq!(
            files(REFERENCE, REFERENCE).compare_text(false).status,
            crate::outcome::Status::Pass
        );
        let changed = REFERENCE.replace("replicas: 1", "replicas: 2");
        let outcome = files(REFERENCE, &changed).compare_text(false);
        assert_eq!(outcome.status, crate::outcome::Status::Fail);
        assert!(
            outcome.summary.ends_with(": line 7 differs"),
            "{}",
            outcome.summary
        );
        let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
        assert!(diff.contains("--- ~/work/argocd-gitops/platform/argocd/values.yaml"));
        assert!(diff.contains("+++ ~/work/argocd-platform/argocd/values.yaml"));
        assert!(diff.contains("-  replicas: 1\n+  replicas: 2\n"), "{diff}");
    }

    #[test]
    fn whitespace_mode_ignores_trailing_spaces_blank_lines_and_crlf() {
        let noisy = REFERENCE
            .replace('\n', "  \r\n")
            .replace("server:", "\nserver:");
        assert_eq!(
            files(REFERENCE, &noisy).compare_text(true).status,
            crate::outcome::Status::Pass
        );
        assert_eq!(
            files(REFERENCE, &noisy).compare_text(false).status,
            crate::outcome::Status::Fail
        );
        let indented = REFERENCE.replace("  replicas", "    replicas");
        assert_eq!(
            files(REFERENCE, &indented).compare_text(true).status,
            crate::outcome::Status::Fail
        );
    }

    #[test]
    fn a_missing_block_is_named_as_lines_missing() {
        let without = REFERENCE.replace("    timeout.reconciliation: 60s\n", "");
        let outcome = files(REFERENCE, &without).compare_text(false);
        assert!(
            outcome.summary.contains("lines are missing after line 4"),
            "{}",
            outcome.summary
        );
    }

    #[test]
    fn yaml_mode_ignores_key_order_comments_and_quoting_style() {
        let reordered = "server: {replicas: 1}\nconfigs:\n  cm:\n    timeout.reconciliation: '60s'\n    ui.bannerpermanent: 'true'\n";
        assert_eq!(
            yaml_outcome(REFERENCE, reordered, DiffMode::Yaml, None).status,
            crate::outcome::Status::Pass
        );
    }

    #[test]
    fn yaml_mode_names_the_keys_that_differ() {
        let changed =
            "configs:\n  cm:\n    ui.bannerpermanent: true\n    extra: x\nserver:\n  replicas: 1\n";
        let outcome = yaml_outcome(REFERENCE, changed, DiffMode::Yaml, None);
        assert_eq!(outcome.status, crate::outcome::Status::Fail);
        assert!(
            outcome.summary.contains(
                r#"`configs.cm["ui.bannerpermanent"]` is true in yours, "true" in the reference"#
            ),
            "{}",
            outcome.summary
        );
        assert!(
            outcome
                .summary
                .contains(r#"`configs.cm["timeout.reconciliation"]` is missing"#)
        );
        assert!(
            outcome
                .summary
                .contains("`configs.cm.extra` is not in the reference")
        );
    }

    #[test]
    fn contains_mode_allows_extra_keys_and_names_missing_ones() {
        let fragment = "configs:\n  cm:\n    timeout.reconciliation: 60s\n";
        assert_eq!(
            yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None).status,
            crate::outcome::Status::Pass
        );
        let fragment = "configs:\n  cm:\n    resource.customizations.health.argoproj.io_Application: |\n      hs = {}\n";
        let outcome = yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None);
        assert_eq!(outcome.status, crate::outcome::Status::Fail);
        assert!(outcome.summary.contains(
            r#"`configs.cm["resource.customizations.health.argoproj.io_Application"]` is missing"#
        ));
        let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
        // The learner's side shows only the reference's keys, not the whole file.
        assert!(!diff.contains("replicas"), "{diff}");
    }

    /// The learner's `cm:` has other keys but not the health check: the diff must not show an
    /// empty `cm: {}` they never wrote, only the reference's missing block.
    #[test]
    fn contains_mode_shows_only_lines_the_learner_has() {
        let fragment = "configs:\n  cm:\n    resource.customizations.health.argoproj.io_Application: |\n      hs = {}\n";
        let outcome = yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None);
        let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
        assert!(!diff.contains("cm: {}"), "{diff}");
        assert!(
            diff.lines().filter(|l| l.starts_with('+')).count() == 0,
            "nothing of the learner's is missing-and-shown: {diff}"
        );
        assert!(
            diff.contains("-resource.customizations.health.argoproj.io_Application: |"),
            "{diff}"
        );
    }

    #[test]
    fn each_mistake_gets_its_own_diff() {
        let fragment = "configs:\n  cm:\n    timeout.reconciliation: 90s\n    ui.bannerpermanent: \"true\"\nserver:\n  replicas: 2\n";
        let outcome = yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None);
        let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
        assert_eq!(diff.matches("@@ ").count(), 2, "{diff}");
        assert!(
            diff.contains("-timeout.reconciliation: 90s\n+timeout.reconciliation: 60s"),
            "{diff}"
        );
        assert!(diff.contains("-replicas: 2\n+replicas: 1"), "{diff}");
    }

    #[test]
    fn yaml_equal_but_text_different_passes_with_a_note_about_diff() {
        let reordered = "server: {replicas: 1}\nconfigs:\n  cm:\n    timeout.reconciliation: '60s'\n    ui.bannerpermanent: 'true'\n";
        let outcome = yaml_outcome(REFERENCE, reordered, DiffMode::Yaml, None);
        assert_eq!(outcome.status, crate::outcome::Status::Pass);
        assert!(
            outcome.summary.contains("`diff` still prints lines"),
            "{}",
            outcome.summary
        );
        let same = yaml_outcome(REFERENCE, REFERENCE, DiffMode::Yaml, None);
        assert!(!same.summary.contains("`diff`"), "{}", same.summary);
    }

    #[test]
    fn subtree_compares_only_that_part() {
        let changed = REFERENCE.replace("replicas: 1", "replicas: 3");
        assert_eq!(
            yaml_outcome(REFERENCE, &changed, DiffMode::Yaml, Some("configs.cm")).status,
            crate::outcome::Status::Pass
        );
        let outcome = yaml_outcome(REFERENCE, &changed, DiffMode::Yaml, Some("server"));
        assert!(
            outcome
                .summary
                .contains("`server.replicas` is 3 in yours, 1 in the reference")
        );
        let missing = yaml_outcome(
            REFERENCE,
            "server: {}\n",
            DiffMode::Yaml,
            Some("configs.cm"),
        );
        assert_eq!(missing.status, crate::outcome::Status::Fail);
        assert!(missing.summary.contains("has no `configs.cm`"));
    }

    #[test]
    fn broken_learner_yaml_fails_with_its_position() {
        let outcome = yaml_outcome(REFERENCE, "configs:\n  cm: [\n", DiffMode::Yaml, None);
        assert_eq!(outcome.status, crate::outcome::Status::Fail);
        assert!(
            outcome
                .summary
                .starts_with("~/work/argocd-platform/argocd/values.yaml:")
        );
    }

    #[test]
    fn subtree_with_a_text_mode_is_refused_at_load() {
        let text = "repo: a\nfile: b\nreference: {expected: c}\nmode: text\nsubtree: x\n";
        let error = serde_yaml::from_str::<DiffSpec>(text)
            .err()
            .map(|e| e.to_string());
        assert!(error.unwrap_or_default().contains("`subtree` needs"));
        let mixed = "repo: a\nfile: b\nreference: {expected: c, repo: d}\n";
        let error = serde_yaml::from_str::<DiffSpec>(mixed)
            .err()
            .map(|e| e.to_string());
        assert!(error.unwrap_or_default().contains("not a mix"));
    }
}
