//! A step's change, declared as data: "the commit that made `migration.fail` true in
//! helm/dev.yaml". The `git` kind finds that commit by what it did to the file (read as Helm reads
//! it), never by its message, so a learner's own commit messages and `git revert`'s `Revert "…"`
//! messages cannot mislead it. Used by `git: {made: …}`, `git: {undoes: …}` and a stage's `after:`.

use serde::de::{self, MapAccess};
use serde_yaml::Value;

use crate::checks::condition::{
    FileCondition, FileConditionFields, ValueCondition, with_operators,
};
use crate::yaml::fields::{FromMap, deserialize_via};
use crate::yaml::helm;
use crate::yaml::path::YamlPath;
use crate::yaml::value::values_equal;

/// `{file, path, <condition>, step?}`: the change a commit makes when the condition holds for the
/// file after it and not before it.
#[derive(Debug, Clone)]
pub struct ChangeSpec {
    /// The values file, relative to the repo root.
    pub file: String,
    pub path: YamlPath,
    pub condition: ValueCondition,
    /// The step whose commit this is (`step-4`), named in the hint when there is no such commit
    /// yet: "do step-4 first".
    pub step: Option<String>,
}

const KEYS: &[&str] = with_operators!["file", "path", "step"];

deserialize_via!(FromMap, ChangeSpec);

impl FromMap for ChangeSpec {
    const EXPECTING: &'static str = "a change: a map with `file`, `path` and one condition (equals, one_of, absent, present, matches, ends_with), and optionally `step`";

    fn from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut step = None;
        let mut fields = FileConditionFields::default();
        while let Some(key) = map.next_key::<String>()? {
            if key == "step" {
                step = Some(map.next_value::<String>()?);
            } else if !fields.read(&key, &mut map)? {
                return Err(de::Error::unknown_field(&key, KEYS));
            }
        }
        let FileCondition {
            file,
            path,
            condition,
        } = fields.finish()?;
        Ok(ChangeSpec {
            file,
            path,
            condition,
            step,
        })
    }
}

impl ChangeSpec {
    /// Whether the condition holds in this version of the file (`None`: the file is not there).
    /// A version that is not UTF-8 or not YAML does not hold it: Helm could not read it either.
    pub fn holds(&self, content: Option<&[u8]>) -> bool {
        let document = match content {
            None => None,
            Some(bytes) => match first_document(bytes) {
                Some(document) => Some(document),
                None => return false,
            },
        };
        let found = document.as_ref().and_then(|d| self.path.lookup(d));
        self.condition.test(found).holds
    }

    /// "`migration.fail` `true` in helm/dev.yaml", for summaries.
    pub fn describe(&self) -> String {
        format!(
            "`{}` {} in {}",
            self.path,
            self.condition.test(None).expected,
            self.file
        )
    }
}

impl crate::probe::repos::ContentTest for ChangeSpec {
    fn holds(&self, content: Option<&[u8]>) -> bool {
        ChangeSpec::holds(self, content)
    }

    /// The whole declared change (file, path, condition), so two changes never share a key.
    fn key(&self) -> String {
        format!("{}: {:?}", self.describe(), self)
    }
}

/// The first YAML document of a file as Helm reads it; `None` when it cannot be read.
fn first_document(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    helm::parse_documents(text).ok()?.into_iter().next()
}

/// Whether two versions of a YAML file mean the same to Helm (comments, key order and quoting
/// style aside). `None` when either cannot be read as YAML.
pub fn same_meaning(a: &[u8], b: &[u8]) -> Option<bool> {
    let read = |bytes: &[u8]| -> Option<Vec<Value>> {
        helm::parse_documents(std::str::from_utf8(bytes).ok()?).ok()
    };
    let (a, b) = (read(a)?, read(b)?);
    Some(a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| values_equal(x, y)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(yaml: &str) -> Result<ChangeSpec, String> {
        serde_yaml::from_str::<ChangeSpec>(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn a_change_holds_after_the_commit_and_not_before() {
        let c = change("file: helm/dev.yaml\npath: migration.fail\nequals: true\n").unwrap();
        assert!(c.holds(Some(b"migration:\n  enabled: true\n  fail: true\n")));
        assert!(!c.holds(Some(b"migration:\n  enabled: true\n")));
        assert!(!c.holds(None));
        // Helm reads an unquoted `yes` as true, so a learner who wrote it made the change too.
        assert!(c.holds(Some(b"migration:\n  fail: yes\n")));
        // Broken YAML makes no change Helm could see.
        assert!(!c.holds(Some(b"migration:\n  fail: [true\n")));
    }

    #[test]
    fn unknown_keys_and_missing_conditions_are_refused() {
        let err = change("file: a.yaml\npath: x\nequals: 1\ncommit: y\n").unwrap_err();
        assert!(err.contains("unknown field `commit`"), "{err}");
        let err = change("file: a.yaml\npath: x\n").unwrap_err();
        assert!(err.contains("no condition"), "{err}");
        let err = change("file: ../a.yaml\npath: x\nequals: 1\n").unwrap_err();
        assert!(err.contains("leaves the folder"), "{err}");
    }

    #[test]
    fn same_meaning_ignores_comments_and_order_but_not_values() {
        assert_eq!(
            same_meaning(b"a: 1\nb: 2\n", b"# note\nb: 2\na: 1\n"),
            Some(true)
        );
        assert_eq!(same_meaning(b"a: 1\n", b"a: 2\n"), Some(false));
        assert_eq!(same_meaning(b"a: [1\n", b"a: 1\n"), None);
    }
}
