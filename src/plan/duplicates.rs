//! Argo CD's de-duplication of the manifests: the same group/kind/namespace/name more than once.

use super::Object;
use super::object::Source;
use super::scope;

/// The same group/kind/namespace/name more than once in the manifests: Argo CD keeps the last
/// and sets a `RepeatedResourceWarning` condition (`AC: controller/state.go`,
/// `NormalizeTargetObjects`, formerly `DeduplicateTargetObjects`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// `group/kind/namespace/name`, as Argo CD prints it.
    pub key: String,
    /// Where each copy was written, in input order; the last one is planned.
    pub sources: Vec<Source>,
}

impl Duplicate {
    /// Argo CD's condition message, byte for byte.
    pub fn message(&self) -> String {
        format!(
            "Resource {} appeared {} times among application resources.",
            self.key,
            self.sources.len()
        )
    }
}

/// Argo CD's de-duplication: key group/kind/namespace/name after the namespace is normalised; the
/// last copy of a key wins; an object named only by `generateName` never collides. Returns the
/// indexes of the copies that lose, and the duplicates found.
pub(super) fn duplicates(
    objects: &[Object],
    destination: &str,
    declared: &[(String, String)],
) -> (Vec<usize>, Vec<Duplicate>) {
    let mut by_key: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        if o.generate_name {
            continue;
        }
        let namespace = if scope::cluster_scoped(o, declared) {
            ""
        } else if o.namespace.is_empty() {
            destination
        } else {
            o.namespace.as_str()
        };
        let key = format!("{}/{}/{namespace}/{}", o.group(), o.kind, o.name);
        match by_key.iter_mut().find(|(k, _)| *k == key) {
            Some((_, copies)) => copies.push(i),
            None => by_key.push((key, vec![i])),
        }
    }
    let mut losers = Vec::new();
    let mut found = Vec::new();
    for (key, copies) in by_key.into_iter().filter(|(_, c)| c.len() > 1) {
        losers.extend(copies[..copies.len() - 1].iter().copied());
        found.push(Duplicate {
            key,
            sources: copies.iter().map(|i| objects[*i].source.clone()).collect(),
        });
    }
    (losers, found)
}
