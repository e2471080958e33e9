//! The words of an edit's refusals that depend on who asked (a command's flag or a solution's key)
//! or on what the file holds (an alias and its anchor).

use super::EditError;
use super::tree::Node;
use crate::yaml::path::YamlPath;

/// Which document an edit needed and the file did not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentChoice {
    /// The documents the file holds.
    pub count: usize,
    /// The one asked for (from 0); `None`: none was named.
    pub asked: Option<usize>,
}

impl DocumentChoice {
    /// The words, naming how the caller's user names a document (`--document N`, `document:`).
    pub fn words(&self, option: &str) -> String {
        match self.asked {
            Some(n) => format!(
                "the file holds {} document(s); there is no document {n} (counted from 0)",
                self.count
            ),
            None => format!(
                "the file holds {} documents: name one with {option} (from 0)",
                self.count
            ),
        }
    }
}

impl EditError {
    /// The error in words, a document named the caller's way (`--document N` on the command line).
    pub fn words(&self, document_option: &str) -> String {
        match self {
            EditError::Document(choice) => choice.words(document_option),
            other => other.to_string(),
        }
    }
}

/// The refusal of an edit that would go on through the alias `node` (at `path`): made in
/// the anchored value, it would change every other alias of it too.
pub(super) fn through_alias(t: &str, node: &Node, path: &YamlPath) -> EditError {
    let alias = t[node.start..node.end.max(node.start)].trim();
    let name = alias.trim_start_matches('*');
    // The anchor an alias names is the last one of that name before it.
    let anchor = format!("&{name}");
    let line = t[..node.start]
        .match_indices(&anchor)
        .filter(|(at, _)| {
            !t[at + anchor.len()..].starts_with(|c: char| !c.is_whitespace() && !",]}".contains(c))
        })
        .last()
        .map(|(at, _)| t[..at].matches('\n').count() + 1);
    let anchored = line.map_or_else(String::new, |l| format!(" at line {l}"));
    EditError::Path(format!(
        "`{path}` is the alias `{alias}` of the value anchored{anchored} (`{anchor}`): an edit through it would change that value and every other alias of it too; edit the value where `{anchor}` stands, or write `{path}` out in full in place of `{alias}`"
    ))
}
