//! The Application a plan is for: its source (repo, path, tool, `directory` settings), its
//! destination namespace, and the sync options and retry it syncs with, read as Argo CD reads
//! them (`AC: pkg/apis/application/v1alpha1/types.go`, `controller/sync.go:286-414`).

use serde_yaml::Value;

use crate::plan::object::{Object, untag};
use crate::probe::argocd_dir::DirectorySettings;
use crate::sync_settings::{Retries, automated};

/// One source of an Application (`spec.source`, or one of `spec.sources`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppSource {
    pub repo_url: String,
    /// `path` as written (`.` means the repo root); `None` when empty or absent (a Helm repo
    /// chart, a `ref`-only source; Argo CD refuses a single source with neither path nor chart).
    pub path: Option<String>,
    /// `helm`, `kustomize`, `directory` or `plugin` when the source names its tool
    /// (`types.go:3804-3830` `ExplicitType`); more than one is an error in Argo CD.
    pub explicit: Vec<&'static str>,
    /// `directory:` settings (recurse, include, exclude).
    pub directory: DirectorySettings,
    /// `ref`: the name other sources use as `$name/…` in their value files (multi-source).
    pub ref_name: Option<String>,
    /// `chart`: a chart from a Helm repository.
    pub chart: Option<String>,
    /// `targetRevision` as written (empty: the default branch, like `HEAD`).
    pub target_revision: String,
    /// `helm.valueFiles`, as written.
    pub value_files: Vec<String>,
    /// `helm.ignoreMissingValueFiles`.
    pub ignore_missing_value_files: bool,
    /// `helm.releaseName`.
    pub release_name: Option<String>,
}

/// An Application in the input that the plan is not for: why not, and how to take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotTaken {
    pub name: String,
    /// Where it is written.
    pub source: crate::plan::Source,
    pub why: String,
    /// The command or option that plans for it.
    pub how: String,
}

/// An Application's settings that change what its sync does.
#[derive(Debug, Clone)]
pub struct AppSettings {
    /// The Application object as read.
    pub object: Object,
    pub sources: Vec<AppSource>,
    /// `spec.sources` is used (Argo CD's `HasMultipleSources`, even with one element): only then
    /// are `$ref/…` value files resolved.
    pub multi_source: bool,
    pub destination_namespace: Option<String>,
    /// `spec.syncPolicy.syncOptions`, as written.
    pub sync_options: Vec<String>,
    pub automated: bool,
    /// How often a failed sync runs again.
    pub retries: Retries,
    /// `spec.syncPolicy.managedNamespaceMetadata` is set: Argo CD then applies the namespace on
    /// every sync, not only when it is missing (`controller/sync_namespace.go:14-45`).
    pub managed_namespace: bool,
}

fn text(v: Option<&Value>) -> Option<String> {
    v.map(untag).and_then(Value::as_str).map(str::to_string)
}

fn source(v: &Value) -> AppSource {
    let v = untag(v);
    let mut explicit = Vec::new();
    for key in ["kustomize", "helm", "directory", "plugin"] {
        if v.get(key).is_some_and(|b| !untag(b).is_null()) {
            explicit.push(key);
        }
    }
    let dir = v.get("directory").map(untag);
    let flag = |k: &str| {
        dir.and_then(|d| d.get(k))
            .map(untag)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let glob = |k: &str| text(dir.and_then(|d| d.get(k))).filter(|s| !s.is_empty());
    let helm = v.get("helm").map(untag);
    let value_files = match helm.and_then(|h| h.get("valueFiles")).map(untag) {
        Some(Value::Sequence(list)) => list.iter().filter_map(|f| text(Some(f))).collect(),
        _ => Vec::new(),
    };
    AppSource {
        repo_url: text(v.get("repoURL")).unwrap_or_default(),
        path: text(v.get("path")).filter(|p| !p.is_empty()),
        ref_name: text(v.get("ref")).filter(|r| !r.is_empty()),
        chart: text(v.get("chart")).filter(|c| !c.is_empty()),
        target_revision: text(v.get("targetRevision")).unwrap_or_default(),
        value_files,
        ignore_missing_value_files: helm
            .and_then(|h| h.get("ignoreMissingValueFiles"))
            .map(untag)
            .and_then(Value::as_bool)
            .unwrap_or(false),
        release_name: text(helm.and_then(|h| h.get("releaseName"))).filter(|r| !r.is_empty()),
        explicit,
        directory: DirectorySettings {
            recurse: flag("recurse"),
            include: glob("include"),
            exclude: glob("exclude"),
        },
    }
}

impl AppSettings {
    /// The settings of an `argoproj.io` `Application`; `None` for any other object.
    pub fn of(object: &Object) -> Option<AppSettings> {
        if !(object.group() == "argoproj.io" && object.kind == "Application") {
            return None;
        }
        let mut sources = Vec::new();
        if let Some(Value::Sequence(list)) = object.get(&["spec", "sources"]) {
            sources.extend(list.iter().map(source));
        }
        let multi_source = !sources.is_empty();
        if sources.is_empty()
            && let Some(single) = object.get(&["spec", "source"])
        {
            sources.push(source(single));
        }
        let sync_options = match object.get(&["spec", "syncPolicy", "syncOptions"]) {
            Some(Value::Sequence(list)) => list.iter().filter_map(|v| text(Some(v))).collect(),
            _ => Vec::new(),
        };
        let automated = automated(object.get(&["spec", "syncPolicy", "automated"]));
        let retries = Retries::of(object.get(&["spec", "syncPolicy", "retry"]), automated);
        Some(AppSettings {
            object: object.clone(),
            sources,
            multi_source,
            destination_namespace: text(object.get(&["spec", "destination", "namespace"]))
                .filter(|s| !s.is_empty()),
            sync_options,
            automated,
            retries,
            managed_namespace: object
                .get(&["spec", "syncPolicy", "managedNamespaceMetadata"])
                .is_some_and(|v| !v.is_null()),
        })
    }

    /// The Application's name.
    pub fn name(&self) -> &str {
        &self.object.name
    }

    /// Whether its sync options hold `option` exactly (`types.go:1502` `HasOption`: no trimming,
    /// case matters).
    pub fn has(&self, option: &str) -> bool {
        self.sync_options.iter().any(|o| o == option)
    }

    /// The source whose path is `path` (relative to the repo root, `/`-separated), if any.
    pub fn source_for(&self, path: &str) -> Option<&AppSource> {
        self.sources
            .iter()
            .find(|s| s.path.as_deref().is_some_and(|p| same_path(p, path)))
    }
}

/// Two repo paths name the same folder (`.`, `./x`, `x/` and `x` alike).
pub fn same_path(a: &str, b: &str) -> bool {
    fn parts(p: &str) -> Vec<&str> {
        p.split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect()
    }
    parts(a) == parts(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::objects;

    #[test]
    fn an_applications_sources_options_and_namespace_are_read_as_argo_cd_reads_them() {
        let text = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop}\nspec:\n  source:\n    repoURL: http://git/x.git\n    path: ./manifests/\n    directory: {recurse: true, exclude: 'dev/*'}\n  destination: {namespace: shop}\n  syncPolicy:\n    automated: {enabled: false}\n    syncOptions: [CreateNamespace=true, ' PruneLast=true']\n";
        let app = objects(text)
            .first()
            .and_then(AppSettings::of)
            .expect("an Application");
        assert_eq!(app.destination_namespace.as_deref(), Some("shop"));
        assert!(
            !app.automated,
            "automated.enabled: false turns automation off"
        );
        assert!(app.has("CreateNamespace=true"));
        // HasOption compares whole strings: a space makes it another option.
        assert!(!app.has("PruneLast=true"));
        let source = app.source_for("manifests").expect("its folder");
        assert_eq!(source.explicit, vec!["directory"]);
        assert!(source.directory.recurse);
        assert_eq!(source.directory.exclude.as_deref(), Some("dev/*"));
        assert!(app.source_for("manifests/dev").is_none());
    }

    #[test]
    fn repo_paths_compare_without_dots_and_slashes() {
        for (a, b, same) in [
            ("manifests", "./manifests/", true),
            (".", "", true),
            ("a/b", "a//b/", true),
            ("a", "a/b", false),
        ] {
            assert_eq!(same_path(a, b), same, "{a} {b}");
        }
    }
}
