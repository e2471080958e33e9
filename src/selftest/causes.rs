//! `course lint`'s cause coverage: for each check, the causes its kind can fail with for its
//! settings (`KindReads::can_fail`), and which hint each one gets: the course's text keyed by
//! it (`hint.by_cause`), the course's `default` where the author declared it fits
//! (`default_for:`), or labcheck's own. A cause that gets none, a default shown for causes the
//! author never declared it fits, and a key for a cause the check cannot give are refused at
//! their `file:line:col`.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use crate::checks::can_fail::CanFail;
use crate::course::schema::{CheckSpec, CourseHint, DefaultFor};
use crate::course::{Course, Module, Step};

/// Which hint each cause a check can fail with gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckCauses {
    /// The step (`step-2`, `break-it/break`).
    pub step: String,
    /// The check's id.
    pub check: String,
    /// Its kind's key (`argocd_app`).
    pub kind: &'static str,
    /// Causes the course keys under `hint.by_cause`.
    pub keyed: Vec<String>,
    /// Causes the course's `default` (or its one text for every cause) serves.
    pub default: Vec<String>,
    /// Causes labcheck's own hint serves (the kind's, or the cause table's).
    pub labcheck: Vec<String>,
    /// Causes no hint serves.
    pub none: Vec<String>,
}

/// What serves one cause.
enum Served {
    Keyed,
    Default,
    Labcheck,
    Nothing,
}

/// Where one hint's parts are in its file.
#[derive(Debug, Default)]
struct HintAt {
    /// The `hint:` value.
    at: (u64, u64),
    default: Option<(u64, u64)>,
    default_for: Vec<(String, (u64, u64))>,
    by_cause: Vec<(String, (u64, u64))>,
}

/// Where a check is, and its hint.
struct CheckAt {
    id: String,
    at: (u64, u64),
    hint: Option<HintAt>,
}

/// The coverage of every check of every module, by module.
pub fn table(course: &Course) -> Vec<(String, CheckCauses)> {
    course
        .modules
        .iter()
        .flat_map(|m| {
            lint_module(course, m)
                .0
                .into_iter()
                .map(|row| (m.manifest.module.clone(), row))
        })
        .collect()
}

/// The coverage of every check of `module`, and what is wrong with it (`file:line:col: …`).
pub fn lint_module(course: &Course, module: &Module) -> (Vec<CheckCauses>, Vec<String>) {
    let mut table = Vec::new();
    let mut problems = Vec::new();
    let mut positions: Vec<(String, Vec<(String, CheckAt)>)> = Vec::new();
    for step in &module.steps {
        let stem = step
            .name
            .split('/')
            .next()
            .unwrap_or(&step.name)
            .to_string();
        if !positions.iter().any(|(s, _)| *s == stem) {
            let path = format!("modules/{}/{stem}.yaml", module.manifest.module);
            let found = course
                .read_file(&path)
                .ok()
                .and_then(|(_, text)| locate(&text))
                .unwrap_or_default();
            positions.push((stem.clone(), found));
        }
        let stage = step.name.split_once('/').map(|(_, s)| s).unwrap_or("");
        let at_of = |id: &str| {
            positions
                .iter()
                .find(|(s, _)| *s == stem)
                .and_then(|(_, checks)| {
                    checks
                        .iter()
                        .find(|(st, c)| st == stage && c.id == id)
                        .map(|(_, c)| c)
                })
        };
        for check in &step.checks {
            let (row, mut found) = coverage(step, check, at_of(&check.id));
            table.push(row);
            problems.append(&mut found);
        }
    }
    (table, problems)
}

/// One check's coverage and problems.
fn coverage(step: &Step, check: &CheckSpec, at: Option<&CheckAt>) -> (CheckCauses, Vec<String>) {
    let file = &step.file;
    let pos = |p: Option<(u64, u64)>| match p.or(at.map(|a| a.at)) {
        Some((line, column)) => format!("{file}:{line}:{column}"),
        None => file.clone(),
    };
    let hint_at = at.and_then(|a| a.hint.as_ref());
    let causes = check.kind.can_fail();
    let can = causes.list();
    let hint = &check.hint;
    let mut row = CheckCauses {
        step: step.name.clone(),
        check: check.id.clone(),
        kind: check.kind.name(),
        keyed: Vec::new(),
        default: Vec::new(),
        labcheck: Vec::new(),
        none: Vec::new(),
    };
    let mut undeclared = Vec::new();
    for c in &can {
        let key = c.key();
        match served(hint, c) {
            Served::Keyed => row.keyed.push(key),
            Served::Default => {
                if hint.keyed && hint.default_for.is_none() && !c.has_labchecks_hint() {
                    undeclared.push(key.clone());
                }
                row.default.push(key);
            }
            Served::Labcheck => row.labcheck.push(key),
            Served::Nothing => row.none.push(key),
        }
    }
    let mut problems = Vec::new();
    let id = &check.id;
    let name = &step.name;
    if !hint.keyed && !hint.default.is_empty() && can.len() > 1 {
        problems.push(format!(
            "{}: {name}: check `{id}` has one `hint:` for every cause, and it can fail with {}: key its texts by cause (`hint: {{by_cause: …}}`), or write it as `default:` with `default_for:` naming the causes it fits (docs/check-files.md#hints)",
            pos(hint_at.map(|h| h.at)),
            list(&can.iter().map(|c| c.key()).collect::<Vec<_>>())
        ));
    } else if !undeclared.is_empty() {
        problems.push(format!(
            "{}: {name}: check `{id}`'s `default:` would be the only hint for {}, and nothing declares it fits them: name the causes it is true of in `default_for:`, and key the others under `by_cause:`",
            pos(hint_at.and_then(|h| h.default)),
            list(&undeclared)
        ));
    }
    if !row.none.is_empty() {
        problems.push(format!(
            "{}: {name}: check `{id}` can fail with {}, and no hint says what to do then: key a text for each under `hint.by_cause`{}",
            pos(hint_at.map(|h| h.at)),
            list(&row.none),
            if hint.default.is_empty() {
                ""
            } else {
                ", or add it to `default_for:` where `default:` is true of it"
            }
        ));
    }
    let unknown = |cause: crate::causes::CauseId, object: Option<&str>| {
        !can.iter().any(|c| {
            c.id == cause
                && match (object, c.object.as_deref()) {
                    (Some(mine), Some(theirs)) => mine == theirs,
                    _ => true,
                }
        })
    };
    for entry in &hint.by_cause {
        if unknown(entry.cause, entry.object.as_deref()) {
            let at = hint_at.and_then(|h| h.by_cause.iter().find(|(k, _)| *k == entry.key));
            problems.push(format!(
                "{}: {name}: check `{id}` keys a hint by `{}`, a cause it cannot fail with (it can: {}); take the key out",
                pos(at.map(|(_, p)| *p)),
                entry.key,
                list(&can.iter().map(|c| c.key()).collect::<Vec<_>>())
            ));
        }
    }
    if let Some(DefaultFor::Causes(keys)) = &hint.default_for {
        for key in keys {
            if unknown(key.cause, key.object.as_deref()) {
                let at = hint_at.and_then(|h| h.default_for.iter().find(|(k, _)| *k == key.key));
                problems.push(format!(
                    "{}: {name}: check `{id}` declares `default:` fits `{}`, a cause it cannot fail with (it can: {}); take it out of `default_for:`",
                    pos(at.map(|(_, p)| *p)),
                    key.key,
                    list(&can.iter().map(|c| c.key()).collect::<Vec<_>>())
                ));
            }
        }
    }
    (row, problems)
}

/// Which hint a failure with `can` shows, as the runner puts it together.
fn served(hint: &CourseHint, can: &CanFail) -> Served {
    let object = can.object.as_deref();
    if hint.by_cause.iter().any(|h| {
        h.object.is_none() && h.cause == can.id
            || h.object.is_some() && h.cause == can.id && h.object.as_deref() == object
    }) {
        return Served::Keyed;
    }
    // The plain form is shown for every cause, above the check's own hint.
    if !hint.keyed && !hint.default.is_empty() {
        return Served::Default;
    }
    // A keyed default shows only where the check has no hint of its own.
    if can.has_labchecks_hint() {
        return Served::Labcheck;
    }
    let fits = match &hint.default_for {
        None => true,
        Some(DefaultFor::All) => true,
        Some(DefaultFor::Causes(keys)) => keys.iter().any(|k| k.covers(can.id, object)),
    };
    if !hint.default.is_empty() && fits {
        Served::Default
    } else {
        Served::Nothing
    }
}

fn list(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The checks of a step file, with their stage (`""` in a plain step) and where their hints
/// are; `None` when the file does not parse (loading it already said why).
fn locate(text: &str) -> Option<Vec<(String, CheckAt)>> {
    let file: FileAt = serde_saphyr::from_str(text).ok()?;
    let mut out = Vec::new();
    for check in file.checks {
        out.push((String::new(), check.into()));
    }
    for stage in file.stages {
        for check in stage.checks {
            out.push((stage.stage.clone(), check.into()));
        }
    }
    Some(out)
}

#[derive(Deserialize)]
struct FileAt {
    #[serde(default)]
    checks: Vec<RawCheckAt>,
    #[serde(default)]
    stages: Vec<StageAt>,
}

#[derive(Deserialize)]
struct StageAt {
    stage: String,
    #[serde(default)]
    checks: Vec<RawCheckAt>,
}

#[derive(Deserialize)]
struct RawCheckAt {
    id: Spanned<String>,
    #[serde(default)]
    hint: Option<Spanned<HintBody>>,
}

impl From<RawCheckAt> for CheckAt {
    fn from(raw: RawCheckAt) -> CheckAt {
        let at = loc(&raw.id);
        CheckAt {
            id: raw.id.value,
            at,
            hint: raw.hint.map(|h| {
                let at = loc(&h);
                HintAt { at, ..h.value.0 }
            }),
        }
    }
}

fn loc<T>(spanned: &Spanned<T>) -> (u64, u64) {
    (spanned.referenced.line(), spanned.referenced.column())
}

/// A hint's value, read only for where its parts are.
struct HintBody(HintAt);

impl<'de> Deserialize<'de> for HintBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BodyVisitor;
        impl<'de> Visitor<'de> for BodyVisitor {
            type Value = HintBody;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a hint")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<HintBody, E> {
                Ok(HintBody(HintAt::default()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HintBody, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(HintBody(HintAt::default()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HintBody, A::Error> {
                let mut hint = HintAt::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "default" => {
                            hint.default = Some(loc(&map.next_value::<Spanned<IgnoredAny>>()?));
                        }
                        "default_for" => {
                            hint.default_for = map.next_value::<KeysAt>()?.0;
                        }
                        "by_cause" => hint.by_cause = map.next_value::<KeysAt>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(HintBody(hint))
            }
        }
        deserializer.deserialize_any(BodyVisitor)
    }
}

/// The keys of a map, or the items of a list, with where each is.
struct KeysAt(Vec<(String, (u64, u64))>);

impl<'de> Deserialize<'de> for KeysAt {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = KeysAt;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map or a list of cause ids")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<KeysAt, E> {
                Ok(KeysAt(Vec::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeysAt, A::Error> {
                let mut keys = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<String>>()? {
                    keys.push((item.value.clone(), loc(&item)));
                }
                Ok(KeysAt(keys))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeysAt, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push((key.value.clone(), loc(&key)));
                }
                Ok(KeysAt(keys))
            }
        }
        deserializer.deserialize_any(KeysVisitor)
    }
}
