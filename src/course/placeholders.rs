//! Placeholders in course files. In fixture snapshots `${pushed:REPO}`, `${previous:REPO}` and
//! `${head:REPO}` stand for git SHAs that exist only once a fixture world is built; in hints
//! `${work}` stands for the learner's work dir, so a path in a hint is theirs and pastes as it is.

use crate::error::Error;
use crate::snapshot::{Snapshot, SnapshotError};

/// Which revision of a repo a placeholder names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// `origin/main` as the last push left it (what Argo CD can see).
    Pushed,
    /// The commit before that (`origin/main~1`: what Argo CD had before the last push).
    Previous,
    /// The learner's local HEAD, pushed or not.
    Head,
}

impl Revision {
    fn parse(word: &str) -> Option<Revision> {
        match word {
            "pushed" => Some(Revision::Pushed),
            "previous" => Some(Revision::Previous),
            "head" => Some(Revision::Head),
            _ => None,
        }
    }
}

/// Replace every `${KIND:REPO}` in `text` with what `resolve` gives; an unknown kind, an
/// unclosed `${` or a repo `resolve` refuses is an error at its `file:line:col`.
pub fn substitute(
    file: &str,
    text: &str,
    resolve: impl Fn(Revision, &str) -> Result<String, String>,
) -> Result<String, Error> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut consumed = 0;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let at = consumed + start;
        let error = |message: String| {
            let (line, column) = line_col(text, at);
            Error::CourseFile {
                file: file.to_string(),
                line,
                column,
                message,
            }
        };
        let Some(len) = rest[start..].find('}') else {
            return Err(error("`${` is not closed with `}`".to_string()));
        };
        let inner = &rest[start + 2..start + len];
        let (kind, repo) = inner.split_once(':').unwrap_or((inner, ""));
        let Some(revision) = Revision::parse(kind) else {
            return Err(error(format!(
                "`${{{inner}}}` is not a placeholder; use ${{pushed:REPO}}, ${{previous:REPO}} or ${{head:REPO}}"
            )));
        };
        out.push_str(&resolve(revision, repo).map_err(|m| error(format!("`${{{inner}}}`: {m}")))?);
        consumed = at + len + 1;
        rest = &text[consumed..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The one placeholder a hint may use: the learner's work dir.
const WORK: &str = "${work}";

/// Refuses a hint text with a placeholder other than `${work}`, or with `~/work` written out
/// (the course's default work dir, which is not every learner's).
pub fn check_hint(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start..];
        if !after.starts_with(WORK) {
            let shown: String = after.chars().take_while(|c| *c != '}').collect();
            return Err(format!(
                "`{shown}}}` is not a placeholder a hint may use; write paths under the work dir as `${{work}}/REPO`"
            ));
        }
        rest = &after[WORK.len()..];
    }
    Ok(())
}

/// Where a hint writes `~/work` for the work dir instead of `${work}`, if it does.
pub fn literal_work_dir(text: &str) -> Option<usize> {
    text.find("~/work")
}

/// `text` with each `${work}` and the path that follows it (`${work}/checkout-config/helm`)
/// replaced by that path under `work_dir` as hints show it (`work_dir` is the shown form, e.g.
/// `~/work`), quoted for a shell.
pub fn render_work(text: &str, work_dir: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(WORK) {
        out.push_str(&rest[..start]);
        let after = &rest[start + WORK.len()..];
        let tail_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || "/._-".contains(c)))
            .unwrap_or(after.len());
        // A sentence's full stop after the path is not part of it.
        let tail = after[..tail_len].trim_end_matches('.');
        let path = format!("{}{tail}", work_dir.trim_end_matches('/'));
        out.push_str(&crate::shell::quote_path(&path));
        rest = &after[tail.len()..];
    }
    out.push_str(rest);
    out
}

/// 1-based line and column of byte offset `at`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Parse a fixture snapshot (placeholders filled in); errors name the fixture file.
pub fn load_snapshot(file: &str, text: &str) -> Result<Snapshot, Error> {
    Snapshot::from_yaml_str(text).map_err(|e| match e {
        SnapshotError::Parse {
            line,
            column,
            message,
            ..
        } => Error::CourseFile {
            file: file.to_string(),
            line,
            column,
            message,
        },
        SnapshotError::Invalid { message, .. } => Error::CourseContent {
            file: file.to_string(),
            message,
        },
        other => Error::CourseContent {
            file: file.to_string(),
            message: other.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(_: Revision, repo: &str) -> Result<String, String> {
        if repo == "checkout-config" {
            Ok("abc".to_string())
        } else {
            Err(format!("no repo `{repo}`"))
        }
    }

    #[test]
    fn a_hint_path_is_the_learners_quoted() {
        let cases = [
            (
                "cd ${work}/checkout-config && git push",
                "~/work",
                "cd ~/work/checkout-config && git push",
            ),
            (
                "cd ${work}/checkout-config && git push",
                "/srv/my lab",
                "cd '/srv/my lab/checkout-config' && git push",
            ),
            (
                "in ${work}/checkout-config/helm/dev.yaml.",
                "/home/ana/my work",
                "in '/home/ana/my work/checkout-config/helm/dev.yaml'.",
            ),
            (
                "(`git log` in ${work}/checkout-config lists it)",
                "~/a b",
                "(`git log` in ~/'a b/checkout-config' lists it)",
            ),
            ("no path here", "/x", "no path here"),
        ];
        for (text, work, shown) in cases {
            assert_eq!(render_work(text, work), shown, "{text} in {work}");
        }
    }

    #[test]
    fn a_hint_may_use_only_the_work_placeholder() {
        assert_eq!(check_hint("cd ${work}/x"), Ok(()));
        assert!(check_hint("cd ${pushed:x}").is_err());
        assert!(check_hint("cd ${wrok}/x").is_err());
        assert_eq!(literal_work_dir("cd ~/work/x"), Some(3));
    }

    #[test]
    fn placeholders_become_revisions() {
        let text = "revision: ${pushed:checkout-config}\nhistory: [${previous:checkout-config}]\n";
        assert_eq!(
            substitute("f.yaml", text, sha).ok().as_deref(),
            Some("revision: abc\nhistory: [abc]\n")
        );
    }

    #[test]
    fn a_misspelt_placeholder_is_refused_at_its_line_and_column() {
        let text = "a: 1\nrevision: ${pushd:checkout-config}\n";
        let error = substitute("f.yaml", text, sha).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some(
                "f.yaml:2:11: `${pushd:checkout-config}` is not a placeholder; use ${pushed:REPO}, ${previous:REPO} or ${head:REPO}"
            )
        );
    }

    #[test]
    fn an_undeclared_repo_is_refused() {
        let error = substitute("f.yaml", "x: ${head:nope}", sha)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("f.yaml:1:4: `${head:nope}`: no repo `nope`")
        );
    }
}
