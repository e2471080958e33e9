//! A step's `solution:`: the course's own actions, in order, as typed data — never prose. Each
//! item does one thing: a command in a work repo, a value set or a key removed in a YAML file at
//! a path (as the checks read it), a new file, a text edit of a file that is not YAML, a `git
//! revert` of the commit that made a named change (found by content), or a command against the
//! cluster (`argocd …`, `kubectl …`). Every action is idempotent: run on files that already say
//! it, it changes nothing. `labcheck solution` prints it as a shell script (`report::solution`);
//! `labcheck course test` walks it on the fixture worlds, twice and on variants of the files.
//!
//! ```yaml
//! solution:
//!   - run: { repo: checkout-config, command: [git, pull, -q] }
//!   - set: { repo: checkout-config, file: helm/dev.yaml, path: image.tag, value: "6.7.0" }
//!   - set: { repo: checkout-config, file: helm/dev.yaml, path: migration, value: { enabled: true } }
//!   - remove: { repo: checkout-config, file: helm/dev.yaml, path: smokeTest.path }
//!   - create: { repo: shop-config, file: manifests/smoke-test.yaml, text: "apiVersion: batch/v1\n…" }
//!   - append: { repo: checkout-config, file: NOTES.md, text: "done\n" }
//!   - revert: { repo: checkout-config, change: { file: helm/dev.yaml, path: migration.fail, equals: true } }
//!   - argocd: [app, sync, checkout-dev, --timeout, "240"]
//!   - kubectl: { args: [-n, checkout-dev, logs, job/checkout-migrate], look: true }
//! ```

use serde::{Deserialize, Deserializer, de};

use crate::checks::change::ChangeSpec;
use crate::yaml::edit::Placement;
use crate::yaml::path::YamlPath;

/// The word that ends a here-document in the printed script; a text may not hold it as a line.
pub const HEREDOC_END: &str = "LABCHECK_EOF";

/// One action of a solution.
#[derive(Debug, Clone)]
pub enum SolutionAction {
    /// A command run in a work repo (`git add -- FILE`), as argv.
    Run { repo: String, command: Vec<String> },
    /// `value` at `path` in the YAML file `file` (`yaml::edit::set`: a map merged key by key,
    /// only the lines the path resolves to change).
    Set {
        repo: String,
        file: String,
        edit: YamlEdit,
        value: serde_yaml::Value,
    },
    /// The key at `path` taken out of the YAML file `file`, with its value.
    Remove {
        repo: String,
        file: String,
        edit: YamlEdit,
    },
    /// A new file with `text`; if the file is there already (a YAML file), each top-level key of
    /// `text` is set in it, so the learner's other keys and comments stay.
    Create {
        repo: String,
        file: String,
        text: String,
    },
    /// `text` added at the end of `file` (created if it is not there), unless the file holds it.
    Append {
        repo: String,
        file: String,
        text: String,
    },
    /// `text` inserted right after the first line equal to `after` that follows the first line
    /// equal to `under` (the course's "add under `migration:`, after `enabled: true`").
    Insert {
        repo: String,
        file: String,
        under: Option<String>,
        after: String,
        text: String,
    },
    /// Every line equal to `line` becomes `with` (the course's `- old` / `+ new`).
    Replace {
        repo: String,
        file: String,
        line: String,
        with: String,
    },
    /// `git revert --no-edit` of the commit that made `change`, found by content when the
    /// script is printed (or walked), never by its message or position.
    Revert { repo: String, change: ChangeSpec },
    /// A command against the cluster, run by the tool the course names.
    Cluster {
        tool: ClusterTool,
        args: Vec<String>,
        /// A look the course asks for (read a log, print a table) that may show an error while
        /// the cluster is still getting there; the script goes on past its failure.
        look: bool,
    },
}

/// Where a `set` or `remove` edits: the path (as `yaml_value` checks read it), the document of a
/// multi-document file, and where a key it adds goes.
#[derive(Debug, Clone)]
pub struct YamlEdit {
    pub path: YamlPath,
    /// Which document, from 0; without it the file must hold one.
    pub document: Option<usize>,
    /// Where a key the edit adds goes (`after:` or `before:` a sibling, else at the end of its
    /// map), with the comment lines written above it.
    pub placement: Placement,
}

/// A file the course edits by YAML path (`set`, `remove`) rather than by line.
pub fn is_yaml_file(file: &str) -> bool {
    file.ends_with(".yaml") || file.ends_with(".yml")
}

/// The cluster tools a solution may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterTool {
    Argocd,
    Kubectl,
}

impl ClusterTool {
    /// The command's name on PATH.
    pub fn as_str(self) -> &'static str {
        match self {
            ClusterTool::Argocd => "argocd",
            ClusterTool::Kubectl => "kubectl",
        }
    }
}

impl SolutionAction {
    /// The work repo the action changes or runs in; none for a cluster command.
    pub fn repo(&self) -> Option<&str> {
        match self {
            SolutionAction::Run { repo, .. }
            | SolutionAction::Set { repo, .. }
            | SolutionAction::Remove { repo, .. }
            | SolutionAction::Create { repo, .. }
            | SolutionAction::Append { repo, .. }
            | SolutionAction::Insert { repo, .. }
            | SolutionAction::Replace { repo, .. }
            | SolutionAction::Revert { repo, .. } => Some(repo),
            SolutionAction::Cluster { .. } => None,
        }
    }

    /// The file it edits, if it edits one.
    pub fn file(&self) -> Option<&str> {
        match self {
            SolutionAction::Set { file, .. }
            | SolutionAction::Remove { file, .. }
            | SolutionAction::Create { file, .. }
            | SolutionAction::Append { file, .. }
            | SolutionAction::Insert { file, .. }
            | SolutionAction::Replace { file, .. } => Some(file),
            _ => None,
        }
    }

    /// What is wrong with this action that loading does not refuse, given the module's repos;
    /// each message says what to write instead (`course lint` places it at the item's line).
    pub fn problems(&self, repos: &[&str]) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(repo) = self.repo()
            && !repos.contains(&repo)
        {
            problems.push(format!(
                "names repo `{repo}`, which module.yaml does not list under repos: ({})",
                repos.join(", ")
            ));
        }
        problems.extend(self.shape_problems());
        problems
    }

    /// What is wrong with the action on its own (no module needed).
    fn shape_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(file) = self.file()
            && let Err(why) = relative_inside(file)
        {
            problems.push(format!("file `{file}`: {why}"));
        }
        let texts: Vec<&str> = match self {
            SolutionAction::Append { text, .. }
            | SolutionAction::Insert { text, .. }
            | SolutionAction::Create { text, .. } => {
                vec![text]
            }
            _ => Vec::new(),
        };
        for text in texts {
            if text.lines().any(|l| l == HEREDOC_END) {
                problems.push(format!(
                    "its text has a line `{HEREDOC_END}`, which ends the printed script's here-document"
                ));
            }
            if !text.ends_with('\n') {
                problems.push(
                    "its text must end with a newline (a YAML block keeps its lines whole)"
                        .to_string(),
                );
            }
        }
        match self {
            SolutionAction::Set { file, .. } | SolutionAction::Remove { file, .. }
                if !is_yaml_file(file) =>
            {
                problems.push(format!(
                    "`{file}` is not a YAML file (.yaml, .yml): edit it with append, insert or replace"
                ));
            }
            SolutionAction::Remove { edit, .. }
                if !matches!(
                    edit.path.segments().last(),
                    Some(crate::yaml::path::Segment::Key(_))
                ) =>
            {
                problems.push(format!(
                    "`path: {}` ends in a list item: remove takes out a map key",
                    edit.path
                ));
            }
            SolutionAction::Set { edit, .. }
                if edit.placement.after.is_some() && edit.placement.before.is_some() =>
            {
                problems.push("give `after:` or `before:`, not both".to_string());
            }
            SolutionAction::Create { file, text, .. } if is_yaml_file(file) => {
                if let Err(e) = crate::yaml::helm::parse_documents(text) {
                    problems.push(format!("its text is not valid YAML: {e}"));
                }
            }
            SolutionAction::Append { file, .. }
            | SolutionAction::Insert { file, .. }
            | SolutionAction::Replace { file, .. }
                if is_yaml_file(file) =>
            {
                problems.push(format!(
                    "`{file}` is a YAML file: edit it by path with `set:` or `remove:` (a learner's file differs in its lines), or write a new one with `create:`"
                ));
            }
            SolutionAction::Run { command, .. }
                if command.first().map(String::as_str) != Some("git") =>
            {
                problems.push(format!(
                    "runs `{}`: a solution's repo commands are git commands (edits are set, remove, create, append, insert or replace; cluster commands are argocd or kubectl)",
                    command.join(" ")
                ));
            }
            SolutionAction::Insert { after, .. } if after.is_empty() => {
                problems.push("`after:` is empty: name the line the text goes after".to_string());
            }
            SolutionAction::Replace { line, .. } if line.contains('\n') => {
                problems
                    .push("`line:` is one line of the file (`with:` may be several)".to_string());
            }
            SolutionAction::Replace { line, with, .. } if line == with => {
                problems.push(
                    "`line:` and `with:` are the same: the action changes nothing".to_string(),
                );
            }
            SolutionAction::Cluster { args, .. } if args.is_empty() => {
                problems.push("a cluster command without arguments".to_string());
            }
            _ => {}
        }
        problems
    }
}

/// A path inside the repo: relative, no `..`, not empty.
fn relative_inside(path: &str) -> Result<(), String> {
    if path.is_empty()
        || path.starts_with('/')
        || path.split('/').any(|p| p == ".." || p.is_empty())
    {
        return Err("a path relative to the repo, without `..` or empty parts".to_string());
    }
    Ok(())
}

/// The keys a course author writes; exactly one action key per item.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction {
    run: Option<RawRun>,
    set: Option<RawSet>,
    remove: Option<RawRemove>,
    create: Option<RawAppend>,
    append: Option<RawAppend>,
    insert: Option<RawInsert>,
    replace: Option<RawReplace>,
    revert: Option<RawRevert>,
    argocd: Option<RawCluster>,
    kubectl: Option<RawCluster>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    repo: String,
    command: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSet {
    repo: String,
    file: String,
    path: YamlPath,
    value: serde_yaml::Value,
    #[serde(default)]
    document: Option<usize>,
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    before: Option<String>,
    #[serde(default)]
    comment: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRemove {
    repo: String,
    file: String,
    path: YamlPath,
    #[serde(default)]
    document: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAppend {
    repo: String,
    file: String,
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInsert {
    repo: String,
    file: String,
    #[serde(default)]
    under: Option<String>,
    after: String,
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReplace {
    repo: String,
    file: String,
    line: String,
    with: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRevert {
    repo: String,
    change: ChangeSpec,
}

/// `argocd: [app, sync, x]`, or `{args: [...], look: true}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawCluster {
    Args(Vec<String>),
    Full {
        args: Vec<String>,
        #[serde(default)]
        look: bool,
    },
}

impl<'de> Deserialize<'de> for SolutionAction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawAction::deserialize(deserializer)?;
        let mut found = Vec::new();
        if let Some(r) = raw.run {
            found.push(SolutionAction::Run {
                repo: r.repo,
                command: r.command,
            });
        }
        if let Some(s) = raw.set {
            found.push(SolutionAction::Set {
                repo: s.repo,
                file: s.file,
                edit: YamlEdit {
                    path: s.path,
                    document: s.document,
                    placement: Placement {
                        after: s.after,
                        before: s.before,
                        comment: s.comment,
                    },
                },
                value: s.value,
            });
        }
        if let Some(r) = raw.remove {
            found.push(SolutionAction::Remove {
                repo: r.repo,
                file: r.file,
                edit: YamlEdit {
                    path: r.path,
                    document: r.document,
                    placement: Placement::default(),
                },
            });
        }
        if let Some(c) = raw.create {
            found.push(SolutionAction::Create {
                repo: c.repo,
                file: c.file,
                text: c.text,
            });
        }
        if let Some(a) = raw.append {
            found.push(SolutionAction::Append {
                repo: a.repo,
                file: a.file,
                text: a.text,
            });
        }
        if let Some(i) = raw.insert {
            found.push(SolutionAction::Insert {
                repo: i.repo,
                file: i.file,
                under: i.under,
                after: i.after,
                text: i.text,
            });
        }
        if let Some(r) = raw.replace {
            found.push(SolutionAction::Replace {
                repo: r.repo,
                file: r.file,
                line: r.line,
                with: r.with,
            });
        }
        if let Some(r) = raw.revert {
            found.push(SolutionAction::Revert {
                repo: r.repo,
                change: r.change,
            });
        }
        for (tool, cluster) in [
            (ClusterTool::Argocd, raw.argocd),
            (ClusterTool::Kubectl, raw.kubectl),
        ] {
            if let Some(c) = cluster {
                let (args, look) = match c {
                    RawCluster::Args(args) => (args, false),
                    RawCluster::Full { args, look } => (args, look),
                };
                found.push(SolutionAction::Cluster { tool, args, look });
            }
        }
        let mut found = found.into_iter();
        match (found.next(), found.next()) {
            (Some(action), None) => Ok(action),
            _ => Err(de::Error::custom(
                "a solution item has exactly one of run, set, remove, create, append, insert, replace, revert, argocd, kubectl",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<SolutionAction>, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn every_kind_of_action_reads() {
        let actions = parse(
            r#"
- run: { repo: r, command: [git, push, -q] }
- append: { repo: r, file: notes.txt, text: "x: 1\n" }
- insert: { repo: r, file: notes.txt, under: "m:", after: "  e: true", text: "  f: true\n" }
- replace: { repo: r, file: notes.txt, line: "a", with: "b" }
- revert: { repo: r, change: { file: a.yaml, path: m.f, equals: true } }
- argocd: [app, sync, x]
- kubectl: { args: [logs, job/x], look: true }
- set: { repo: r, file: a.yaml, path: 'm["a.b/c"]', value: { e: true }, document: 1, after: x, comment: "why" }
- remove: { repo: r, file: a.yml, path: m.f }
- create: { repo: r, file: new.yaml, text: "a: 1\n" }
"#,
        )
        .expect("reads");
        assert_eq!(actions.len(), 10);
        assert!(matches!(
            actions[6],
            SolutionAction::Cluster {
                tool: ClusterTool::Kubectl,
                look: true,
                ..
            }
        ));
        for action in &actions {
            assert_eq!(action.problems(&["r"]), Vec::<String>::new(), "{action:?}");
        }
    }

    #[test]
    fn an_item_with_two_actions_or_an_unknown_key_is_refused() {
        for text in [
            "- { argocd: [a], kubectl: [b] }",
            "- {}",
            "- shell: { repo: r, command: [ls] }",
            "- run: { repo: r, command: [git], extra: 1 }",
            "- set: { repo: r, file: a.yaml, path: 'a[', value: 1 }",
            "- set: { repo: r, file: a.yaml, path: a }",
            "- remove: { repo: r, file: a.yaml, path: a, value: 1 }",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn lint_finds_what_loading_cannot() {
        let cases = [
            (
                "- run: { repo: nope, command: [git, push] }",
                "does not list",
            ),
            ("- run: { repo: r, command: [rm, -rf, x] }", "git commands"),
            (
                "- append: { repo: r, file: ../x, text: \"a\\n\" }",
                "without `..`",
            ),
            (
                "- append: { repo: r, file: x, text: \"a\" }",
                "end with a newline",
            ),
            (
                "- append: { repo: r, file: x, text: \"LABCHECK_EOF\\n\" }",
                "here-document",
            ),
            (
                "- replace: { repo: r, file: x, line: a, with: a }",
                "changes nothing",
            ),
            (
                "- insert: { repo: r, file: helm/dev.yaml, after: a, text: \"b\\n\" }",
                "edit it by path with `set:`",
            ),
            (
                "- append: { repo: r, file: a.yml, text: \"b: 1\\n\" }",
                "edit it by path with `set:`",
            ),
            (
                "- set: { repo: r, file: notes.txt, path: a, value: 1 }",
                "is not a YAML file",
            ),
            (
                "- remove: { repo: r, file: a.yaml, path: 'a[0]' }",
                "ends in a list item",
            ),
            (
                "- set: { repo: r, file: a.yaml, path: a, value: 1, after: b, before: c }",
                "not both",
            ),
            (
                "- create: { repo: r, file: a.yaml, text: \"a: [1\\n\" }",
                "not valid YAML",
            ),
        ];
        for (text, want) in cases {
            let actions = parse(text).expect(text);
            let problems = actions[0].problems(&["r"]);
            assert!(
                problems.iter().any(|p| p.contains(want)),
                "{text}: {problems:?}"
            );
        }
    }
}
