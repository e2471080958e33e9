//! Names and paths in module.yaml, checked where they are read so an error has its line: a
//! repo's name and `path:` stay under the work dir; `steps:` are file names, none reserved or
//! listed twice.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// A path a check file names inside a repo or the course: relative, and never leaving it (the
/// rule itself is [`crate::paths::relative_inside`], shared by everything that reads a path).
pub fn inside_path(field: &str, value: &str) -> Result<(), String> {
    crate::paths::inside_field(field, value)
}

/// Step names that are files of their own in a module folder, or commands.
pub const RESERVED_STEP_NAMES: &[(&str, &str)] = &[
    (
        "module",
        "`module.yaml` is the module's own file, not a step file",
    ),
    (
        "quiz",
        "`labcheck MODULE quiz` runs the module's quiz, so a step of that name could never be checked",
    ),
];

/// A repo's `path:` stays under the work dir.
pub(super) fn inside_work_dir<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(deserializer)?;
    if let Some(path) = &value {
        inside_path("path", path)
            .map_err(|m| de::Error::custom(crate::course::about_value(path, m)))?;
    }
    Ok(value)
}

/// A repo's name: its folder under the work dir unless `path:` says otherwise.
pub(super) fn repo_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let name = String::deserialize(deserializer)?;
    inside_path("name", &name)
        .map_err(|m| de::Error::custom(crate::course::about_value(&name, m)))?;
    Ok(name)
}

/// One entry of `steps:`, checked where it is read so the error has its line.
struct StepName(String);

impl<'de> Deserialize<'de> for StepName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        let refuse =
            |message: String| de::Error::custom(crate::course::about_value(&name, message));
        inside_path("steps", &name).map_err(refuse)?;
        if name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(refuse(format!(
                "step `{name}` is not a file name: a step is `NAME.yaml` in the module's folder (no `/`, no leading `.`)"
            )));
        }
        // Reserved whatever the case: on a case-insensitive file system (macOS, Windows)
        // `Quiz.yaml` is the quiz's file.
        let stem = name
            .strip_suffix(".yaml")
            .or_else(|| name.strip_suffix(".yml"))
            .unwrap_or(&name);
        if let Some((reserved, why)) = RESERVED_STEP_NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(stem))
        {
            return Err(refuse(format!(
                "a step may not be called `{name}`: `{reserved}` is a name the course format reserves ({why}); rename the step"
            )));
        }
        if stem != name {
            return Err(refuse(format!(
                "step `{name}` is written with its file's extension: `steps:` lists names, and labcheck reads `NAME.yaml`; write `{stem}`"
            )));
        }
        Ok(StepName(name))
    }
}

/// `steps:` in module.yaml: at least one, each a file in the module folder, none twice.
pub(super) fn step_names<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    struct ListVisitor;
    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of step names")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut names: Vec<String> = Vec::new();
            while let Some(StepName(name)) = seq.next_element()? {
                if names.contains(&name) {
                    return Err(de::Error::custom(crate::course::about_value(
                        &name,
                        format!("step `{name}` is listed twice under steps:"),
                    )));
                }
                names.push(name);
            }
            if names.is_empty() {
                return Err(de::Error::custom(
                    "`steps:` is empty: a module lists at least one step (the file names without .yaml)",
                ));
            }
            Ok(names)
        }
    }
    deserializer.deserialize_seq(ListVisitor)
}
