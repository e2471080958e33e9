//! What `labcheck plan` reads: folders as Argo CD's repo server reads a directory source, files
//! and stdin as written, and the Application the manifests are synced by (named with `--app`, or
//! found among the inputs by its source path), whose `directory` settings then decide what its
//! folder holds.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::plan::{AppSettings, FolderFile, Object, parse_folder_file, parse_manifests};
use crate::probe::argocd_dir::{self, DirectorySettings, Tool};
use crate::probe::files::PathShower;

/// The manifests of one sync, and what was read around them.
pub struct Input {
    /// The objects the sync applies, in Argo CD's read order.
    pub objects: Vec<Object>,
    pub app: Option<AppSettings>,
    /// Objects read but not part of the sync, and why.
    pub context: Vec<(Object, String)>,
    /// Files not read, and why.
    pub skipped: Vec<(String, String)>,
}

/// Objects read from one path given.
struct Part {
    /// The folder given (`None` for a file or stdin).
    folder: Option<PathBuf>,
    objects: Vec<Object>,
    skipped: Vec<(String, String)>,
    tool: Option<(Tool, String)>,
}

fn usage(message: String) -> Error {
    Error::Usage(message)
}

/// Read a folder as Argo CD does with `settings`.
fn read_folder(folder: &Path, settings: &DirectorySettings) -> Result<Part, Error> {
    let shower = PathShower::new(None);
    let found =
        argocd_dir::read_folder(folder, settings, &shower).map_err(|e| usage(e.to_string()))?;
    if let Some(file) = found.jsonnet.first() {
        return Err(usage(format!(
            "{file} is Jsonnet: Argo CD evaluates it, labcheck cannot. Render it first: `jsonnet {file} | labcheck plan -`"
        )));
    }
    let mut objects = Vec::new();
    let mut skipped: Vec<(String, String)> = found
        .skipped
        .into_iter()
        .map(|s| (s.shown, s.why))
        .collect();
    for file in found.files {
        match parse_folder_file(&file.shown, &file.text).map_err(|e| usage(e.to_string()))? {
            FolderFile::Objects(list) => objects.extend(list),
            FolderFile::NotKubernetes { why } => skipped.push((file.shown, why)),
        }
    }
    Ok(Part {
        folder: Some(folder.to_path_buf()),
        objects,
        skipped,
        tool: found.tool,
    })
}

/// "Render it first", for a folder Argo CD renders with a tool.
fn render_first(folder: &Path, tool: &Tool, because: &str) -> Error {
    let shown = folder.display();
    let command = match tool {
        Tool::Helm => format!("helm template NAME {shown} | labcheck plan -"),
        Tool::Kustomize => format!("kustomize build {shown} | labcheck plan -"),
    };
    usage(format!(
        "{shown} is a {} folder ({because}): Argo CD renders it with {} and applies what comes out, so plan that. Render it first: `{command}`",
        tool.as_str(),
        tool.as_str()
    ))
}

/// The folder relative to its repo root, with `/` (`.` for the root itself).
fn in_repo(folder: &Path) -> String {
    let root = argocd_dir::repo_root(folder);
    let real = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    match real.strip_prefix(&root) {
        Ok(p) if !p.as_os_str().is_empty() => p.to_string_lossy().replace('\\', "/"),
        _ => ".".to_string(),
    }
}

/// Read every path, find the Application, and sort objects into the sync and context.
pub fn read(
    paths: &[String],
    settings: &DirectorySettings,
    app_arg: Option<&str>,
) -> Result<Input, Error> {
    let mut parts = Vec::new();
    let mut stdin_read = false;
    for path in paths {
        if path != "-" && Path::new(path).is_dir() {
            parts.push(read_folder(Path::new(path), settings)?);
            continue;
        }
        let mut objects = Vec::new();
        for (shown, text) in super::plan::read_path(path, &mut stdin_read)? {
            objects.extend(parse_manifests(&shown, &text).map_err(|e| usage(e.to_string()))?);
        }
        parts.push(Part {
            folder: None,
            objects,
            skipped: Vec::new(),
            tool: None,
        });
    }
    let app = find_app(&parts, app_arg)?;
    let Some(app) = app else {
        for part in &parts {
            if let (Some(folder), Some((tool, file))) = (&part.folder, &part.tool) {
                return Err(render_first(folder, tool, &format!("{file} is there")));
            }
        }
        let mut input = Input {
            objects: Vec::new(),
            app: None,
            context: Vec::new(),
            skipped: Vec::new(),
        };
        for part in parts {
            input.objects.extend(part.objects);
            input.skipped.extend(part.skipped);
        }
        return Ok(input);
    };
    sync_of(parts, app, settings)
}

/// The Application named by `--app` (a file holding one, or a name among the inputs), else the
/// one among the inputs whose source path is a folder given.
fn find_app(parts: &[Part], app_arg: Option<&str>) -> Result<Option<AppSettings>, Error> {
    let all: Vec<AppSettings> = parts
        .iter()
        .flat_map(|p| p.objects.iter())
        .filter_map(AppSettings::of)
        .collect();
    if let Some(arg) = app_arg {
        if Path::new(arg).is_file() {
            let mut stdin_read = true;
            let mut found = Vec::new();
            for (shown, text) in super::plan::read_path(arg, &mut stdin_read)? {
                found.extend(
                    parse_manifests(&shown, &text)
                        .map_err(|e| usage(e.to_string()))?
                        .iter()
                        .filter_map(AppSettings::of),
                );
            }
            return match found.len() {
                1 => Ok(found.pop()),
                0 => Err(usage(format!("{arg} holds no Application"))),
                n => Err(usage(format!(
                    "{arg} holds {n} Applications; name one with `--app NAME`"
                ))),
            };
        }
        return match all.into_iter().find(|a| a.name() == arg) {
            Some(app) => Ok(Some(app)),
            None => Err(usage(format!(
                "no Application named `{arg}` in the input, and no file `{arg}`"
            ))),
        };
    }
    let folders: Vec<String> = parts
        .iter()
        .filter_map(|p| p.folder.as_deref())
        .map(in_repo)
        .collect();
    let mut matching: Vec<AppSettings> = all
        .into_iter()
        .filter(|a| folders.iter().any(|f| a.source_for(f).is_some()))
        .collect();
    match matching.len() {
        0 => Ok(None),
        1 => Ok(matching.pop()),
        _ => Err(usage(format!(
            "Applications {} all sync a folder given; name the one to plan for with `--app NAME`",
            matching
                .iter()
                .map(|a| a.name().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Split the parts into the app's sync and context, re-reading its folder with its settings.
fn sync_of(parts: Vec<Part>, app: AppSettings, cli: &DirectorySettings) -> Result<Input, Error> {
    let folders: Vec<(usize, String)> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.folder.as_deref().map(|f| (i, in_repo(f))))
        .collect();
    let own = folders
        .iter()
        .find(|(_, f)| app.source_for(f).is_some())
        .map(|(i, f)| (*i, f.clone()));
    if own.is_none() && !folders.is_empty() && parts.iter().all(|p| p.folder.is_some()) {
        let paths: Vec<String> = app.sources.iter().filter_map(|s| s.path.clone()).collect();
        return Err(usage(format!(
            "Application {} syncs `{}` of its repo, but the folder{} given {} `{}`: plan the Application's own folder",
            app.name(),
            if paths.is_empty() {
                "a chart".to_string()
            } else {
                paths.join("`, `")
            },
            if folders.len() == 1 { "" } else { "s" },
            if folders.len() == 1 { "is" } else { "are" },
            folders
                .iter()
                .map(|(_, f)| f.clone())
                .collect::<Vec<_>>()
                .join("`, `")
        )));
    }
    let mut input = Input {
        objects: Vec::new(),
        app: None,
        context: Vec::new(),
        skipped: Vec::new(),
    };
    let app_key = (app.object.source.clone(), app.name().to_string());
    for (index, part) in parts.into_iter().enumerate() {
        let (in_sync, part) = match &own {
            Some((own_index, path)) if *own_index == index => {
                let source = app.source_for(path).cloned();
                let explicit = source
                    .as_ref()
                    .map(|s| s.explicit.clone())
                    .unwrap_or_default();
                let folder = part.folder.clone().unwrap_or_default();
                if explicit.len() > 1 {
                    return Err(usage(format!(
                        "Application {} names more than one tool for `{path}` ({}): Argo CD refuses it (\"multiple application sources defined\")",
                        app.name(),
                        explicit.join(", ")
                    )));
                }
                match explicit.first().copied() {
                    Some("helm") => {
                        return Err(render_first(
                            &folder,
                            &Tool::Helm,
                            "its Application has `helm:`",
                        ));
                    }
                    Some("kustomize") => {
                        return Err(render_first(
                            &folder,
                            &Tool::Kustomize,
                            "its Application has `kustomize:`",
                        ));
                    }
                    Some("plugin") => {
                        return Err(usage(format!(
                            "Application {} renders `{path}` with a config management plugin; render it the same way and pipe it in: `… | labcheck plan -`",
                            app.name()
                        )));
                    }
                    Some(_) => {}
                    None => {
                        if let Some((tool, file)) = &part.tool {
                            return Err(render_first(&folder, tool, &format!("{file} is there")));
                        }
                    }
                }
                let settings = source.map(|s| s.directory).unwrap_or_default();
                let part = if &settings == cli {
                    part
                } else {
                    read_folder(&folder, &settings)?
                };
                (true, part)
            }
            // Without the app's folder among the inputs (stdin, files), everything given is
            // its sync.
            _ => (own.is_none(), part),
        };
        input.skipped.extend(part.skipped);
        for object in part.objects {
            let is_app = AppSettings::of(&object).is_some()
                && (object.source.clone(), object.name.clone()) == app_key;
            // In its own folder it manages itself and is part of its sync; anywhere else it is
            // only where its settings come from.
            let self_managed = own.is_some() && in_sync;
            if is_app && !self_managed {
                input.context.push((
                    object,
                    "the Application this plan is for: its settings apply; it is not a step of its own sync".to_string(),
                ));
            } else if in_sync {
                input.objects.push(object);
            } else {
                input.context.push((
                    object,
                    format!("not in the folder Application {} syncs", app.name()),
                ));
            }
        }
    }
    input.app = Some(app);
    Ok(input)
}

/// A child Application's own folder read for its own sync.
pub fn read_app_folder(folder: &Path, app: AppSettings) -> Result<Input, Error> {
    let part = read_folder(folder, &DirectorySettings::default())?;
    sync_of(vec![part], app, &DirectorySettings::default())
}

/// A repo URL without the differences that do not matter (`.git`, a trailing `/`, case of the
/// host), to tell whether a child Application's source is this repo.
pub fn normalize_url(url: &str) -> String {
    let trimmed = url.trim().trim_end_matches('/');
    let trimmed = trimmed.strip_suffix(".git").unwrap_or(trimmed);
    trimmed.to_ascii_lowercase()
}

/// The remote URLs a work repo names in `.git/config` (read as text; nothing is run).
pub fn remote_urls(root: &Path) -> Vec<String> {
    let config = root.join(".git").join("config");
    let text = crate::paths::read_regular_text(&config, crate::probe::files::MAX_FILE_BYTES)
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("url"))
        .filter_map(|rest| rest.trim_start().strip_prefix('='))
        .map(normalize_url)
        .collect()
}
