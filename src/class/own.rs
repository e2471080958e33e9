//! What in a learner's report is theirs alone (their work dir, their namespaces and Applications
//! through the class's templates), kept apart from the words around it: a class groups learners
//! by the words and the kind of name in between, never by the names, and a reporter fills in
//! each name as it renders.
//!
//! The checks write a learner's names into their texts, so this is where a class finds them: a
//! name counts where it stands whole, not inside a longer word (learner `ed`'s Application `ed`
//! is not in "pushed").

use serde::Serialize;

/// What one of a learner's own names stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Slot {
    /// Their work dir (as given, or as `~/…` under the instructor's home).
    WorkDir,
    /// A namespace or Application the course calls `course`, renamed for the learner through
    /// `template` (`--namespace-template`, `--app-template`), where `{learner}` stands for the
    /// learner and `slot` (`{namespace}`, `{app}`) for the course's name.
    Renamed {
        template: String,
        slot: &'static str,
        course: String,
    },
}

/// One of a learner's own names, as their report writes it, and what it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnName {
    pub theirs: String,
    pub slot: Slot,
}

/// A piece of a [`Shared`] text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Piece {
    /// Words as the report gave them.
    Text(String),
    /// One of the learner's own names.
    Own(Slot),
}

/// A text of one learner's report with their own names lifted out: learners whose texts differ
/// only in those names have equal ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Shared(pub Vec<Piece>);

impl Shared {
    /// `text` with each of `names` that stands whole in it lifted out; where two names start at
    /// the same place, the longer one (a path under the work dir before the work dir).
    pub fn of(text: &str, names: &[OwnName]) -> Shared {
        let mut pieces = Vec::new();
        let mut words = String::new();
        let mut before: Option<char> = None;
        let mut rest = text;
        while let Some(next) = rest.chars().next() {
            let name = names
                .iter()
                .filter(|n| !n.theirs.is_empty() && rest.starts_with(&n.theirs))
                .filter(|n| stands_whole(before, &n.theirs, &rest[n.theirs.len()..]))
                .max_by_key(|n| n.theirs.len());
            match name {
                Some(name) => {
                    if !words.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut words)));
                    }
                    pieces.push(Piece::Own(name.slot.clone()));
                    before = name.theirs.chars().last();
                    rest = &rest[name.theirs.len()..];
                }
                None => {
                    words.push(next);
                    before = Some(next);
                    rest = &rest[next.len_utf8()..];
                }
            }
        }
        if !words.is_empty() {
            pieces.push(Piece::Text(words));
        }
        Shared(pieces)
    }
}

/// Whether `name`, between `before` and `after`, is a whole name rather than part of a longer
/// word: a name's letter never runs on into a letter beside it.
fn stands_whole(before: Option<char>, name: &str, after: &str) -> bool {
    let joined =
        |a: Option<char>, b: Option<char>| a.is_some_and(in_a_name) && b.is_some_and(in_a_name);
    !joined(before, name.chars().next()) && !joined(name.chars().last(), after.chars().next())
}

/// A character a name (a Kubernetes name, a folder's) runs on with.
fn in_a_name(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work_dir(theirs: &str) -> OwnName {
        OwnName {
            theirs: theirs.to_string(),
            slot: Slot::WorkDir,
        }
    }

    fn app(theirs: &str) -> OwnName {
        OwnName {
            theirs: theirs.to_string(),
            slot: Slot::Renamed {
                template: "{learner}".to_string(),
                slot: "{app}",
                course: "checkout-dev".to_string(),
            },
        }
    }

    fn text(words: &str) -> Piece {
        Piece::Text(words.to_string())
    }

    #[test]
    fn a_learners_names_are_lifted_out_where_they_stand_whole() {
        let ed = app("ed").slot;
        let cases: Vec<(&str, &str, Vec<OwnName>, Vec<Piece>)> = vec![
            (
                "the work dir before a path in it",
                "cd /class/bob/checkout-config && git push",
                vec![work_dir("/class/bob")],
                vec![
                    text("cd "),
                    Piece::Own(Slot::WorkDir),
                    text("/checkout-config && git push"),
                ],
            ),
            (
                "a longer work dir that starts with theirs is someone else's",
                "cd /class/bobby/checkout-config",
                vec![work_dir("/class/bob")],
                vec![text("cd /class/bobby/checkout-config")],
            ),
            (
                "the longer of two names starting at one place",
                "in /class/bob/work/x",
                vec![work_dir("/class/bob"), work_dir("/class/bob/work")],
                vec![text("in "), Piece::Own(Slot::WorkDir), text("/x")],
            ),
            (
                "learner ed's Application ed, not the ed of pushed and synced",
                "pushed and synced: `argocd app sync ed` (ed-x is another name, ed is theirs)",
                vec![app("ed")],
                vec![
                    text("pushed and synced: `argocd app sync "),
                    Piece::Own(ed.clone()),
                    text("` (ed-x is another name, "),
                    Piece::Own(ed),
                    text(" is theirs)"),
                ],
            ),
        ];
        for (case, text, names, want) in cases {
            assert_eq!(Shared::of(text, &names).0, want, "{case}");
        }
    }
}
