//! Reading a folder as Argo CD's repo server reads a directory source, so `labcheck plan` sees the
//! files Argo CD sees, in its order. Sources (`AC:` argoproj/argo-cd at `37ee0097`):
//! * `reposerver/repository/repository.go:2218-2275` `getPotentiallyValidManifests`: a
//!   `filepath.Walk` of the folder: names sorted byte-wise within each folder and a subfolder's
//!   files where its name sorts, so `b/x.yaml` comes before `b.yaml` (a sort of whole paths puts
//!   it after); subfolders only with `directory.recurse` (`:2237-2240`);
//! * `:2142-2207` `getPotentiallyValidManifestFile`: only names matching
//!   `^.*\.(yaml|yml|json|jsonnet)$` (`:1995`, `:2151`, case-sensitive); symlinks followed to a
//!   regular file (`:2158-2189`); `exclude`, then `include`, matched as globs on the path relative
//!   to the folder (`:2191-2197`, `util/glob`: gobwas globs without separators, so `*` crosses
//!   `/`; a pattern that does not compile matches nothing); a file holding
//!   `+argocd:skip-file-rendering` anywhere is skipped (`:84`, `:2205`).
//! * `util/app/discovery/discovery.go:50-82`: a file directly in the folder whose name ends in
//!   `Chart.yaml` makes it a Helm chart, `kustomization.yaml`, `kustomization.yml` or
//!   `Kustomization` a Kustomize folder (the later in walk order wins); only without an explicit
//!   source type in the Application (`repository.go:1951-1973`).
//!
//! Whether a YAML file holds Kubernetes objects is decided by the parser (`plan::load`).

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use super::files::{self, FileError, MAX_WALK_ENTRIES, PathShower};

/// The marker that makes Argo CD skip a file (Argo CD 3.1+).
pub const SKIP_MARKER: &str = "+argocd:skip-file-rendering";

/// An Application's `spec.source.directory` settings (or the same given on the command line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectorySettings {
    pub recurse: bool,
    pub include: Option<String>,
    pub exclude: Option<String>,
}

/// A tool Argo CD would run on the folder instead of reading its YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    Helm,
    Kustomize,
}

impl Tool {
    /// The tool's name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Tool::Helm => "Helm",
            Tool::Kustomize => "Kustomize",
        }
    }
}

/// A file Argo CD does not read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The path as shown to the user.
    pub shown: String,
    pub why: String,
}

/// A file Argo CD reads as manifests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// The path relative to the folder, with `/`.
    pub relative: String,
    /// The path as shown to the user.
    pub shown: String,
    pub text: String,
}

/// What Argo CD's repo server finds in a folder.
#[derive(Debug, Clone, Default)]
pub struct Folder {
    /// Manifest files in Argo CD's walk order.
    pub files: Vec<Read>,
    /// `.jsonnet` files: Argo CD evaluates them; labcheck cannot.
    pub jsonnet: Vec<String>,
    pub skipped: Vec<Skipped>,
    /// A chart or kustomization directly in the folder, and the file that says so.
    pub tool: Option<(Tool, String)>,
}

/// The tool a file of this name, directly in a folder, makes Argo CD render the folder with
/// (`discovery.go:50-82`).
pub fn tool_file(name: &str) -> Option<Tool> {
    if name.ends_with("Chart.yaml") {
        Some(Tool::Helm)
    } else if matches!(
        name,
        "kustomization.yaml" | "kustomization.yml" | "Kustomization"
    ) {
        Some(Tool::Kustomize)
    } else {
        None
    }
}

/// The name pattern of `repository.go:1995`.
fn manifest_name(name: &str) -> bool {
    [".yaml", ".yml", ".json", ".jsonnet"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// A glob as `util/glob.Match` without separators reads it; `None` when it does not compile (Argo
/// CD then matches nothing).
fn compile(pattern: &str) -> Option<GlobMatcher> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// The top of the git work tree `folder` is in (where Argo CD's `repoRoot` is), else `folder`.
pub fn repo_root(folder: &Path) -> PathBuf {
    let start = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let mut at = Some(start.as_path());
    while let Some(dir) = at {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
        at = dir.parent();
    }
    start
}

/// Read `folder` as Argo CD's repo server does with `settings`.
pub fn read_folder(
    folder: &Path,
    settings: &DirectorySettings,
    shower: &PathShower,
) -> Result<Folder, FileError> {
    if !folder.is_dir() {
        return Err(FileError::Missing {
            shown: shower.show(folder),
        });
    }
    let root = repo_root(folder);
    let real = std::fs::canonicalize(folder).map_err(|source| FileError::Io {
        shown: shower.show(folder),
        source,
    })?;
    let base = match real.strip_prefix(&root) {
        Ok(p) if !p.as_os_str().is_empty() => format!("{}/", p.to_string_lossy()),
        _ => String::new(),
    };
    let include = settings.include.as_deref().map(|p| (p, compile(p)));
    let exclude = settings.exclude.as_deref().map(|p| (p, compile(p)));
    let mut out = Folder::default();
    let mut seen = 0usize;
    // A stack of (folder, prefix, sorted names left): `filepath.Walk` visits names in order and
    // goes into a subfolder where its name sorts.
    let mut stack: Vec<(PathBuf, String, std::vec::IntoIter<String>)> = vec![(
        folder.to_path_buf(),
        String::new(),
        sorted_names(folder, shower)?,
    )];
    while let Some((dir, prefix, names)) = stack.last_mut() {
        let Some(name) = names.next() else {
            stack.pop();
            continue;
        };
        seen += 1;
        if seen > MAX_WALK_ENTRIES {
            return Err(FileError::TooManyEntries {
                shown: shower.show(folder),
            });
        }
        let path = dir.join(&name);
        let relative = format!("{prefix}{name}");
        let shown = shower.show(&path);
        let meta = std::fs::symlink_metadata(&path).map_err(|source| FileError::Io {
            shown: shown.clone(),
            source,
        })?;
        if meta.is_dir() {
            if name == ".git" {
                continue;
            }
            if settings.recurse {
                let names = sorted_names(&path, shower)?;
                let prefix = format!("{relative}/");
                stack.push((path, prefix, names));
            } else {
                out.skipped.push(Skipped {
                    shown: format!("{shown}/"),
                    why:
                        "a subfolder: Argo CD reads subfolders only with `directory.recurse: true`"
                            .to_string(),
                });
            }
            continue;
        }
        if prefix.is_empty()
            && let Some(tool) = tool_file(&name)
        {
            out.tool = Some((tool, shown.clone()));
        }
        if !manifest_name(&name) {
            let lower = name.to_ascii_lowercase();
            if manifest_name(&lower) {
                out.skipped.push(Skipped {
                    shown,
                    why: "Argo CD reads only names ending in `.yaml`, `.yml`, `.json` (lower case)"
                        .to_string(),
                });
            }
            continue;
        }
        if meta.file_type().is_symlink() {
            match std::fs::metadata(&path) {
                Err(_) => {
                    out.skipped.push(Skipped {
                        shown,
                        why: "a symlink to nothing: Argo CD skips it".to_string(),
                    });
                    continue;
                }
                Ok(target) if !target.is_file() => {
                    out.skipped.push(Skipped {
                        shown,
                        why: "a symlink to something that is not a file: Argo CD skips it"
                            .to_string(),
                    });
                    continue;
                }
                Ok(_) => {}
            }
        } else if !meta.is_file() {
            out.skipped.push(Skipped {
                shown,
                why: "not a regular file: Argo CD skips it".to_string(),
            });
            continue;
        }
        if let Some((pattern, glob)) = &exclude
            && glob.as_ref().is_some_and(|g| g.is_match(&relative))
        {
            out.skipped.push(Skipped {
                shown,
                why: format!("matches `directory.exclude: {pattern}`"),
            });
            continue;
        }
        if let Some((pattern, glob)) = &include
            && !glob.as_ref().is_some_and(|g| g.is_match(&relative))
        {
            out.skipped.push(Skipped {
                shown,
                why: format!("does not match `directory.include: {pattern}`"),
            });
            continue;
        }
        // Symlinks may point anywhere inside the repo, not outside it (`:2167-2169`).
        let text = files::read_repo_file(&root, &format!("{base}{relative}"), shower)?;
        if text.contains(SKIP_MARKER) {
            out.skipped.push(Skipped {
                shown,
                why: format!("holds `{SKIP_MARKER}`: Argo CD (3.1+) skips the file"),
            });
            continue;
        }
        if name.ends_with(".jsonnet") {
            out.jsonnet.push(shown);
            continue;
        }
        out.files.push(Read {
            relative,
            shown,
            text,
        });
    }
    Ok(out)
}

/// The names in `dir`, sorted byte-wise as Go's `filepath.Walk` sorts them.
fn sorted_names(dir: &Path, shower: &PathShower) -> Result<std::vec::IntoIter<String>, FileError> {
    let entries = std::fs::read_dir(dir).map_err(|source| FileError::Io {
        shown: shower.show(dir),
        source,
    })?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| FileError::Io {
            shown: shower.show(dir),
            source,
        })?;
        if let Some(name) = entry.file_name().to_str() {
            names.push(name.to_string());
        }
    }
    names.sort();
    Ok(names.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap_or(root)).ok();
        std::fs::write(full, text).ok();
    }

    #[test]
    fn files_come_in_go_walk_order_not_path_order() {
        let dir = tempfile::tempdir().expect("a temp dir");
        for path in [
            "b.yaml",
            "b/x.yaml",
            "b-c.yaml",
            "a.json",
            "Z.yml",
            "c.jsonnet",
        ] {
            write(dir.path(), path, "{}");
        }
        let settings = DirectorySettings {
            recurse: true,
            ..Default::default()
        };
        let found = read_folder(dir.path(), &settings, &PathShower::new(None)).expect("read");
        let order: Vec<&str> = found.files.iter().map(|f| f.relative.as_str()).collect();
        // Names sorted byte-wise per folder: `b` < `b-c.yaml` < `b.yaml`, and `b/` is walked
        // where `b` sorts.
        assert_eq!(
            order,
            vec!["Z.yml", "a.json", "b/x.yaml", "b-c.yaml", "b.yaml"]
        );
        assert_eq!(found.jsonnet.len(), 1);
    }

    #[test]
    fn a_chart_or_kustomization_directly_in_the_folder_names_the_tool() {
        let dir = tempfile::tempdir().expect("a temp dir");
        write(dir.path(), "Chart.yaml", "name: x\n");
        write(dir.path(), "sub/kustomization.yaml", "resources: []\n");
        let tool = || {
            read_folder(
                dir.path(),
                &DirectorySettings::default(),
                &PathShower::new(None),
            )
            .expect("read")
            .tool
            .map(|(t, _)| t)
        };
        assert_eq!(tool(), Some(Tool::Helm));
        write(dir.path(), "kustomization.yml", "resources: []\n");
        // Both: the later in walk order wins (`discovery.go:62-67`).
        assert_eq!(tool(), Some(Tool::Kustomize));
    }

    #[test]
    fn an_invalid_include_pattern_matches_nothing_as_in_argo_cd() {
        let dir = tempfile::tempdir().expect("a temp dir");
        write(dir.path(), "a.yaml", "{}");
        let settings = DirectorySettings {
            include: Some("[".to_string()),
            ..Default::default()
        };
        let found = read_folder(dir.path(), &settings, &PathShower::new(None)).expect("read");
        assert!(found.files.is_empty());
        assert_eq!(found.skipped.len(), 1);
    }
}
