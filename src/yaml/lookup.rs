//! Following a [`YamlPath`] through a document, YAML or JSON alike: one walk for both, so a path
//! means the same in a values file and in a Kubernetes object, and a selector that picks no list
//! item or several says so in the same words everywhere.

use super::path::{Segment, YamlPath};

/// Reading a document at a path lives here, beside the walk, so the path type stays below it.
impl YamlPath {
    /// The value at this path in a YAML document, if every step exists (a selector: exactly
    /// one item matches; [`resolve`] says why not).
    pub fn lookup<'v>(&self, root: &'v serde_yaml::Value) -> Option<&'v serde_yaml::Value> {
        resolve(self, root).ok()
    }

    /// The value at this path in a JSON document (Kubernetes objects arrive as JSON).
    pub fn lookup_json<'v>(&self, root: &'v serde_json::Value) -> Option<&'v serde_json::Value> {
        resolve(self, root).ok()
    }

    /// Why this path names nothing in `root` when a selector is the reason (no item matched, or
    /// several did), in a sentence; `None` when it names something or a step is simply absent.
    pub fn selector_miss<T: Tree>(&self, root: &T) -> Option<String> {
        resolve(self, root).err().and_then(|miss| miss.explain())
    }

    /// The longest leading part of this path that exists in `root`, for messages such as
    /// "`migration` exists but has no `enabled`". `None` when even the first step is missing.
    pub fn deepest_existing(&self, root: &serde_yaml::Value) -> Option<YamlPath> {
        (1..=self.segments().len()).rev().find_map(|n| {
            let prefix = YamlPath::from_segments(self.segments()[..n].to_vec());
            prefix.lookup(root).map(|_| prefix)
        })
    }
}

/// A document tree a path can walk: YAML (a values file) or JSON (an object from the cluster).
pub trait Tree: Sized {
    /// The value under `key`, if this is a mapping that has it.
    fn key(&self, key: &str) -> Option<&Self>;
    /// The list items, if this is a list.
    fn items(&self) -> Option<&[Self]>;
    /// A scalar as text (`checkout`, `8080`, `true`), for comparing with a selector's value.
    fn scalar_text(&self) -> Option<String>;
}

impl Tree for serde_yaml::Value {
    fn key(&self, key: &str) -> Option<&Self> {
        match untagged(self) {
            serde_yaml::Value::Mapping(map) => map.get(key),
            _ => None,
        }
    }

    fn items(&self) -> Option<&[Self]> {
        match untagged(self) {
            serde_yaml::Value::Sequence(list) => Some(list),
            _ => None,
        }
    }

    fn scalar_text(&self) -> Option<String> {
        match untagged(self) {
            serde_yaml::Value::String(s) => Some(s.clone()),
            serde_yaml::Value::Number(n) => Some(n.to_string()),
            serde_yaml::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// A `!tag` around a mapping or list does not change what is inside it.
fn untagged(value: &serde_yaml::Value) -> &serde_yaml::Value {
    match value {
        serde_yaml::Value::Tagged(tagged) => &tagged.value,
        other => other,
    }
}

impl Tree for serde_json::Value {
    fn key(&self, key: &str) -> Option<&Self> {
        self.as_object()?.get(key)
    }

    fn items(&self) -> Option<&[Self]> {
        self.as_array().map(Vec::as_slice)
    }

    fn scalar_text(&self) -> Option<String> {
        match self {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// Why a path found nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// A step is not there: a key missing, an index past the end, a list where a map was wanted.
    Absent,
    /// A selector (`[name=checkout]`) matched no item of the list at `list`.
    NoItem {
        list: YamlPath,
        key: String,
        value: String,
        /// What the list's items have under `key`, to show what is there instead.
        seen: Vec<String>,
    },
    /// A selector matched several items: the path cannot say which one the course means.
    SeveralItems {
        list: YamlPath,
        key: String,
        value: String,
        count: usize,
    },
}

impl Miss {
    /// The sentence a check shows for a selector that missed; `None` for a plain absence (each
    /// check words that itself: "not set", "is there, but not …").
    pub fn explain(&self) -> Option<String> {
        match self {
            Miss::Absent => None,
            Miss::NoItem {
                list,
                key,
                value,
                seen,
            } => Some(match seen.as_slice() {
                [] => format!("no item of `{list}` has `{key}: {value}` (none has a `{key}`)"),
                seen => format!(
                    "no item of `{list}` has `{key}: {value}`; the items there have {key} {}",
                    seen.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
            Miss::SeveralItems {
                list,
                key,
                value,
                count,
            } => Some(format!(
                "{count} items of `{list}` have `{key}: {value}`; a selector must pick exactly one, so labcheck cannot tell which is meant"
            )),
        }
    }
}

/// Follow `path` from `root`: the value it names, or why there is none.
pub fn resolve<'v, T: Tree>(path: &YamlPath, root: &'v T) -> Result<&'v T, Miss> {
    let mut here = root;
    for (i, segment) in path.segments().iter().enumerate() {
        here = match segment {
            Segment::Key(key) => here.key(key).ok_or(Miss::Absent)?,
            Segment::Index(n) => here.items().and_then(|l| l.get(*n)).ok_or(Miss::Absent)?,
            Segment::Select { key, value } => {
                let items = here.items().ok_or(Miss::Absent)?;
                let matching: Vec<&T> = items
                    .iter()
                    .filter(|item| {
                        item.key(key).and_then(Tree::scalar_text).as_deref() == Some(value)
                    })
                    .collect();
                let list = || YamlPath::from_segments(path.segments()[..i].to_vec());
                match matching.as_slice() {
                    [one] => one,
                    [] => {
                        return Err(Miss::NoItem {
                            list: list(),
                            key: key.clone(),
                            value: value.clone(),
                            seen: items
                                .iter()
                                .filter_map(|item| item.key(key).and_then(Tree::scalar_text))
                                .collect(),
                        });
                    }
                    several => {
                        return Err(Miss::SeveralItems {
                            list: list(),
                            key: key.clone(),
                            value: value.clone(),
                            count: several.len(),
                        });
                    }
                }
            }
        };
    }
    Ok(here)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> YamlPath {
        YamlPath::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A Deployment whose chart added a sidecar first: `[0]` is no longer the app's container.
    fn with_sidecar_first() -> serde_json::Value {
        serde_json::json!({"spec": {"template": {"spec": {"containers": [
            {"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.24.0"},
            {"name": "podinfo", "image": "ghcr.io/stefanprodan/podinfo:6.7.1", "ports": [{"containerPort": 9898}]}
        ]}}}})
    }

    #[test]
    fn a_selector_finds_the_container_by_name_wherever_the_chart_puts_it() {
        let deployment = with_sidecar_first();
        let image = path("spec.template.spec.containers[name=podinfo].image");
        assert_eq!(
            resolve(&image, &deployment),
            Ok(&serde_json::json!("ghcr.io/stefanprodan/podinfo:6.7.1"))
        );
        // The index the course used to write now reads someone else's value.
        let by_index = path("spec.template.spec.containers[0].image");
        assert_eq!(
            resolve(&by_index, &deployment),
            Ok(&serde_json::json!("docker.io/istio/proxyv2:1.24.0"))
        );
        // A number compares by its text, and selectors nest.
        let port = path("spec.template.spec.containers[name=podinfo].ports[containerPort=9898]");
        assert!(resolve(&port, &deployment).is_ok());
    }

    #[test]
    fn a_selector_that_matches_no_item_or_several_says_which() {
        let deployment = with_sidecar_first();
        let missing = resolve(
            &path("spec.template.spec.containers[name=checkout].image"),
            &deployment,
        )
        .expect_err("no container is called checkout");
        assert_eq!(
            missing.explain().as_deref(),
            Some(
                "no item of `spec.template.spec.containers` has `name: checkout`; the items there have name `istio-proxy`, `podinfo`"
            )
        );
        let twice =
            serde_json::json!({"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]});
        let several = resolve(&path("env[name=A].value"), &twice).expect_err("two items");
        assert_eq!(
            several.explain().as_deref(),
            Some(
                "2 items of `env` have `name: A`; a selector must pick exactly one, so labcheck cannot tell which is meant"
            )
        );
        assert_eq!(
            resolve(&path("spec.replicas"), &deployment),
            Err(Miss::Absent)
        );
        assert_eq!(Miss::Absent.explain(), None);
    }

    #[test]
    fn yaml_and_json_walk_the_same_way() {
        let yaml: serde_yaml::Value = crate::yaml::testing::parsed(
            "containers:\n  - name: sidecar\n    image: a\n  - name: app\n    image: b\n",
        );
        let json = serde_json::json!({"containers": [{"name": "sidecar", "image": "a"}, {"name": "app", "image": "b"}]});
        let p = path("containers[name=app].image");
        assert_eq!(resolve(&p, &yaml).ok().and_then(|v| v.as_str()), Some("b"));
        assert_eq!(resolve(&p, &json).ok().and_then(|v| v.as_str()), Some("b"));
    }
}
