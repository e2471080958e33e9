//! Revision placeholders in fixture snapshots: `${pushed:REPO}`, `${previous:REPO}` and
//! `${head:REPO}` stand for git SHAs that exist only once a fixture world is built.

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
