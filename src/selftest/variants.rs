//! A learner's files are not the lab's: the walk runs each solution on variants of the files it
//! edits, shaped as learners shape them. A variant is used only when Helm reads it exactly as
//! the lab's file (the same values, so every check that reads values takes it as the same start);
//! one that would read differently is no variant of the start and is left out.

use serde_yaml::Value;

use crate::yaml::value::values_equal;
use crate::yaml::{edit, helm};

/// The ways a learner's copy of a YAML file differs from the lab's without meaning anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Their editor or they took the comments out.
    CommentsRemoved,
    /// Their own notes instead of the lab's comments, and one at the top.
    CommentsChanged,
    /// Every map's keys in another order (what a tool that rewrites YAML leaves).
    KeysReordered,
    /// Each top-level key's value written in flow style (`image: {tag: "6.7.1"}`).
    FlowStyle,
    /// Windows line ends.
    Crlf,
}

impl Variant {
    /// Every variant, in the order the walk runs them.
    pub const ALL: [Variant; 5] = [
        Variant::CommentsRemoved,
        Variant::CommentsChanged,
        Variant::KeysReordered,
        Variant::FlowStyle,
        Variant::Crlf,
    ];

    /// Its name in the self-test's report.
    pub fn name(self) -> &'static str {
        match self {
            Variant::CommentsRemoved => "comments-removed",
            Variant::CommentsChanged => "comments-changed",
            Variant::KeysReordered => "keys-reordered",
            Variant::FlowStyle => "flow-style",
            Variant::Crlf => "crlf",
        }
    }

    /// `text` as the variant writes it, if Helm reads it as the same values and it differs.
    pub fn apply(self, text: &str) -> Option<String> {
        let made = match self {
            Variant::CommentsRemoved => Some(
                text.lines()
                    .filter(|l| !l.trim_start().starts_with('#'))
                    .map(|l| format!("{l}\n"))
                    .collect(),
            ),
            Variant::CommentsChanged => Some(
                std::iter::once("# my own notes on this file\n".to_string())
                    .chain(text.lines().map(|l| {
                        let body = l.trim_start();
                        if body.starts_with('#') {
                            format!("{}# (a note of mine)\n", &l[..l.len() - body.len()])
                        } else {
                            format!("{l}\n")
                        }
                    }))
                    .collect(),
            ),
            Variant::KeysReordered => {
                rewrite(text, |doc| serde_yaml::to_string(&reversed(doc)).ok())
            }
            Variant::FlowStyle => rewrite(text, |doc| match doc {
                Value::Mapping(map) => map
                    .iter()
                    .map(|(k, v)| match k {
                        Value::String(k) => Some(format!("{}: {}\n", edit::key(k), edit::flow(v))),
                        _ => None,
                    })
                    .collect(),
                _ => None,
            }),
            Variant::Crlf => Some(text.replace("\r\n", "\n").replace('\n', "\r\n")),
        }?;
        (made != text && reads_the_same(text, &made)).then_some(made)
    }
}

/// Each document rewritten by `write` (`None`: this variant cannot write it).
fn rewrite(text: &str, write: impl Fn(&Value) -> Option<String>) -> Option<String> {
    let documents = helm::parse_documents(text).ok()?;
    let written: Option<Vec<String>> = documents.iter().map(write).collect();
    Some(written?.join("---\n"))
}

/// The value with every map's keys in reverse order.
fn reversed(value: &Value) -> Value {
    match value {
        Value::Mapping(map) => Value::Mapping(
            map.iter()
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .map(|(k, v)| (k.clone(), reversed(v)))
                .collect(),
        ),
        Value::Sequence(items) => Value::Sequence(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

/// Helm reads both texts as the same documents.
pub fn reads_the_same(a: &str, b: &str) -> bool {
    match (helm::parse_documents(a), helm::parse_documents(b)) {
        (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| values_equal(p, q)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: &str = "# team-checkout: values for dev\nimage:\n  repository: ghcr.io/stefanprodan/podinfo\n  tag: \"6.7.1\"\nreplicaCount: 1\n";

    #[test]
    fn every_variant_of_a_values_file_reads_as_the_same_values_and_looks_different() {
        for variant in Variant::ALL {
            let made = variant
                .apply(DEV)
                .unwrap_or_else(|| panic!("{}: no variant of {DEV}", variant.name()));
            assert_ne!(made, DEV, "{}", variant.name());
            assert!(reads_the_same(DEV, &made), "{}: {made}", variant.name());
        }
        assert_eq!(
            Variant::FlowStyle.apply(DEV).as_deref(),
            Some(
                "image: {repository: ghcr.io/stefanprodan/podinfo, tag: 6.7.1}\nreplicaCount: 1\n"
            )
        );
        assert!(
            Variant::KeysReordered
                .apply(DEV)
                .is_some_and(|t| t.starts_with("replicaCount: 1\nimage:\n  tag:")),
        );
    }

    #[test]
    fn a_file_without_comments_has_no_comment_variant_and_a_multi_document_file_keeps_its_documents()
     {
        assert_eq!(Variant::CommentsRemoved.apply("a: 1\n"), None);
        let two = "a: 1\nb: 2\n---\nc: 3\n";
        let reordered = Variant::KeysReordered.apply(two).expect("a variant");
        assert!(reads_the_same(two, &reordered), "{reordered}");
        assert_eq!(reordered.matches("---").count(), 1, "{reordered}");
    }
}
