//! What Argo CD refuses in a multi-source Application's `ref` sources before anything renders:
//! checked from the Application alone (no disk, no git), so the plan can say it for every
//! Application in its input, not only the one it is for.
//!
//! Sources (`AC:` argoproj/argo-cd v3.6.2): `util/argo/argo.go:599-620` `GetRefSources` (ref
//! names, duplicates; the controller wraps its error in `failed to get ref sources: …`,
//! `controller/state.go:327-330`); `reposerver/repository/repository.go:586-625`
//! `resolveReferencedSources` and `:870-900` (`$name/…` value files, only for `spec.sources`;
//! the controller wraps the repo server's error in `failed to generate manifest for source N of
//! M: …`, `controller/state.go:422`, and the condition in `Failed to load target state: …`,
//! `:750`).

use crate::plan::app::AppSettings;

/// Argo CD's error for an Application whose `ref` sources it cannot resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefError {
    /// The source (1-based) whose manifests could not be generated; `None` when the refs
    /// themselves are refused before any source is looked at.
    pub source: Option<usize>,
    /// Argo CD's own words.
    pub message: String,
}

impl RefError {
    /// The `ComparisonError` condition's message, as the controller builds it.
    pub fn condition(&self, sources: usize) -> String {
        match self.source {
            None => format!(
                "Failed to load target state: failed to get ref sources: {}",
                self.message
            ),
            Some(n) => format!(
                "Failed to load target state: failed to generate manifest for source {n} of {sources}: rpc error: code = Unknown desc = {}",
                self.message
            ),
        }
    }
}

/// The first error Argo CD meets resolving `app`'s refs, in the order it meets them.
pub fn ref_error(app: &AppSettings) -> Option<RefError> {
    if let Err(message) = ref_names(app) {
        return Some(RefError {
            source: None,
            message,
        });
    }
    if !app.multi_source {
        return None;
    }
    for (index, source) in app.sources.iter().enumerate() {
        for file in source.value_files.iter().filter(|f| f.starts_with('$')) {
            if let Err(message) = referenced(app, file) {
                return Some(RefError {
                    source: Some(index + 1),
                    message,
                });
            }
        }
    }
    None
}

/// `GetRefSources`: ref names use `[a-zA-Z0-9_-]` only, and none twice.
pub fn ref_names(app: &AppSettings) -> Result<(), String> {
    let mut seen: Vec<&str> = Vec::new();
    for name in app.sources.iter().filter_map(|s| s.ref_name.as_deref()) {
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(format!(
                "sources.ref {name} cannot contain any special characters except '_' and '-'"
            ));
        }
        if seen.contains(&name) {
            return Err("invalid sources: multiple sources had the same `ref` key".to_string());
        }
        seen.push(name);
    }
    Ok(())
}

/// The source a `$name/…` value file refers to, or the repo server's error. Argo CD lists the
/// available names in Go map order (random); they are listed here in the order written.
pub fn referenced<'a>(
    app: &'a AppSettings,
    file: &str,
) -> Result<&'a crate::plan::app::AppSource, String> {
    let var = file.split_once('/').map_or(file, |(var, _)| var);
    let refs: Vec<&crate::plan::app::AppSource> = app
        .sources
        .iter()
        .filter(|s| s.ref_name.is_some())
        .collect();
    let Some(target) = refs
        .iter()
        .find(|s| s.ref_name.as_deref() == var.strip_prefix('$'))
    else {
        if refs.is_empty() {
            return Err(format!(
                "source referenced \"{var}\", but no source has a 'ref' field defined"
            ));
        }
        let names: Vec<String> = refs
            .iter()
            .filter_map(|s| s.ref_name.as_ref().map(|n| format!("${n}")))
            .collect();
        return Err(format!(
            "source referenced \"{var}\", which is not one of the available sources ({})",
            names.join(", ")
        ));
    };
    if target.chart.is_some() {
        return Err("source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources".to_string());
    }
    Ok(target)
}
