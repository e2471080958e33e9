//! What `labcheck plan` reads: folders as Argo CD's repo server reads a directory source, files
//! and stdin as written, and the Application the manifests are synced by (named with `--app`, or
//! found among the inputs by its source path), whose `directory` settings then decide what its
//! folder holds.

mod choice;
pub mod files;
mod follow;
mod resolve;

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::plan::app::AppSource;
use crate::plan::{AppSettings, FolderFile, NotTaken, Object, parse_folder_file, parse_manifests};
use crate::probe::argocd_dir::{self, DirectorySettings, Tool};
use crate::probe::files::PathShower;
use choice::{Fit, Place, find_app, fit, not_taken, own_folder, paths_of, place, taken_why};
pub use choice::{RootApp, root_app};
use files::{read_path, shown_from_cwd};
pub use follow::{Judge, child_findings, follow};

/// The manifests of one sync, and what was read around them.
pub struct Input {
    /// The objects the sync applies, in Argo CD's read order.
    pub objects: Vec<Object>,
    pub app: Option<AppSettings>,
    /// Objects read but not part of the sync, and why.
    pub context: Vec<(Object, String)>,
    /// Files not read, and why.
    pub skipped: Vec<(String, String)>,
    /// Why `app` was taken.
    pub why: Option<String>,
    /// Applications in the input not taken, why not, and how to take them.
    pub not_taken: Vec<NotTaken>,
    /// What resolving the taken Application's sources found (a floating revision, …).
    pub notes: Vec<String>,
}

impl Input {
    fn empty() -> Input {
        Input {
            objects: Vec::new(),
            app: None,
            context: Vec::new(),
            skipped: Vec::new(),
            why: None,
            not_taken: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// Objects read from one path given.
struct Part {
    /// The folder given (`None` for a file or stdin).
    folder: Option<PathBuf>,
    objects: Vec<Object>,
    skipped: Vec<(String, String)>,
    tool: Option<(Tool, String)>,
    /// A manifest of a tool's folder that does not parse (only an error if read as YAML).
    unreadable: Option<String>,
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
    let mut unreadable = None;
    for file in found.files {
        match parse_folder_file(&file.shown, &file.text) {
            Ok(FolderFile::Objects(list)) => objects.extend(list),
            Ok(FolderFile::NotKubernetes { why }) => skipped.push((file.shown, why)),
            // A tool's folder is rendered, not read: its `kustomization.yaml` (`kind:
            // Kustomization`, no `metadata`) is no broken manifest. The error counts only if
            // the folder is read as plain YAML after all (an Application's `directory:`).
            Err(e) if found.tool.is_some() => {
                unreadable.get_or_insert_with(|| e.to_string());
            }
            Err(e) => return Err(usage(e.to_string())),
        }
    }
    Ok(Part {
        folder: Some(folder.to_path_buf()),
        objects,
        skipped,
        tool: found.tool,
        unreadable,
    })
}

/// The Application a folder to render belongs to, and what its source says about rendering.
struct RenderWith<'a> {
    app: &'a AppSettings,
    source: Option<&'a AppSource>,
    /// Its value files, resolved and shown from the current folder.
    value_files: Vec<String>,
}

/// "Render it first", for a folder Argo CD renders with a tool: the command, with what the
/// Application gives the tool (release name, namespace, value files) and `--app` so the plan
/// keeps its settings.
fn render_first(folder: &Path, tool: &Tool, because: &str, with: Option<RenderWith>) -> Error {
    let shown = folder.display();
    let plan = match &with {
        Some(w) => format!(
            "labcheck plan --app {} -",
            shown_from_cwd(Path::new(&w.app.object.source.file))
        ),
        None => "labcheck plan -".to_string(),
    };
    let mut extra = String::new();
    let command = match tool {
        Tool::Helm => {
            let mut command = match &with {
                Some(w) => format!(
                    "helm template {} {shown}",
                    w.source
                        .and_then(|s| s.release_name.clone())
                        .unwrap_or_else(|| w.app.name().to_string())
                ),
                None => format!("helm template NAME {shown}"),
            };
            if let Some(w) = &with {
                if let Some(ns) = &w.app.destination_namespace {
                    command.push_str(&format!(" --namespace {ns}"));
                }
                for file in &w.value_files {
                    command.push_str(&format!(" -f {file}"));
                }
                if w.source
                    .is_some_and(|s| s.value_files.len() > w.value_files.len())
                {
                    extra.push_str(" Value files from another repository or a URL are not in the command: add them with `-f`.");
                }
            }
            format!("{command} | {plan}")
        }
        Tool::Kustomize => {
            if with
                .as_ref()
                .and_then(|w| w.source)
                .is_some_and(|s| s.explicit.contains(&"kustomize"))
            {
                extra.push_str(" Argo CD first applies the Application's `kustomize:` settings (images, namePrefix, …), which `kustomize build` alone leaves out.");
            }
            format!("kustomize build {shown} | {plan}")
        }
    };
    usage(format!(
        "{shown} is a {} folder ({because}): Argo CD renders it with {} and applies what comes out, so plan that. Render it first: `{command}`{extra}",
        tool.as_str(),
        tool.as_str()
    ))
}

/// Why an Application whose source is a chart from a Helm repository is not planned from a
/// folder, with the `helm template` command that renders it as Argo CD would (its release name,
/// version, namespace and the value files resolved here), or Argo CD's error if it cannot.
pub fn chart_to_render(app: &AppSettings, root: &Path, also_here: &[String]) -> String {
    let Some(chart) = app.sources.iter().find(|s| s.chart.is_some()) else {
        return "its source has no path: nothing here to plan".to_string();
    };
    let resolved = match resolve::resolve(app, Some(chart), Some(root), also_here) {
        Ok(resolved) => resolved,
        Err(e) => return format!("Argo CD cannot render it: {e}"),
    };
    let mut command = format!(
        "helm template {} {} --repo {} --version {}",
        chart
            .release_name
            .clone()
            .unwrap_or_else(|| app.name().to_string()),
        chart.chart.clone().unwrap_or_default(),
        chart.repo_url,
        chart.target_revision
    );
    if let Some(ns) = &app.destination_namespace {
        command.push_str(&format!(" --namespace {ns}"));
    }
    for file in &resolved.value_files {
        command.push_str(&format!(" -f {file}"));
    }
    format!(
        "its source is chart `{}` from a Helm repository, not a folder: render it first, `{command} | labcheck plan --app {} -`",
        chart.chart.clone().unwrap_or_default(),
        shown_from_cwd(Path::new(&app.object.source.file))
    )
}

/// Argo CD's own error when it cannot render the Application: it syncs nothing.
fn cannot_render(app: &AppSettings, error: &str) -> Error {
    usage(format!(
        "Argo CD cannot render Application {} ({}): {error}. It shows that as a ComparisonError and syncs nothing, so there is no plan",
        app.name(),
        app.object.source
    ))
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
        let given = Path::new(path);
        if let Some(tool) = given
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(argocd_dir::tool_file)
            .filter(|_| given.is_file())
        {
            let folder = given
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            return Err(render_first(
                folder,
                &tool,
                &format!("{path} is its {} file, not a manifest", tool.as_str()),
                None,
            ));
        }
        let mut objects = Vec::new();
        for (shown, text) in read_path(path, &mut stdin_read)? {
            objects.extend(parse_manifests(&shown, &text).map_err(|e| usage(e.to_string()))?);
        }
        parts.push(Part {
            folder: None,
            objects,
            skipped: Vec::new(),
            tool: None,
            unreadable: None,
        });
    }
    let places: Vec<Place> = parts
        .iter()
        .filter_map(|p| p.folder.as_deref())
        .map(place)
        .collect();
    let all: Vec<AppSettings> = parts
        .iter()
        .flat_map(|p| p.objects.iter())
        .filter_map(AppSettings::of)
        .collect();
    let app = find_app(&all, &places, app_arg)?;
    let mut input = match app {
        None => {
            for part in &parts {
                if let (Some(folder), Some((tool, file))) = (&part.folder, &part.tool) {
                    return Err(render_first(
                        folder,
                        tool,
                        &format!("{file} is there"),
                        None,
                    ));
                }
            }
            let mut input = Input::empty();
            for part in parts {
                input.objects.extend(part.objects);
                input.skipped.extend(part.skipped);
            }
            input
        }
        Some(app) => {
            let explicit = app_arg.is_some();
            let mut input = sync_of(parts, app, settings, explicit)?;
            input.why = input
                .app
                .as_ref()
                .map(|a| taken_why(a, &places, explicit, &input.objects));
            input
        }
    };
    input.not_taken = not_taken(&all, &places, input.app.as_ref(), &input.objects);
    Ok(input)
}

/// Split the parts into the app's sync and context, re-reading its folder with its settings.
fn sync_of(
    parts: Vec<Part>,
    app: AppSettings,
    cli: &DirectorySettings,
    explicit: bool,
) -> Result<Input, Error> {
    let places: Vec<(usize, Place)> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.folder.as_deref().map(|f| (i, place(f))))
        .collect();
    // Its own folder: the path read from the git root; with `--app`, also a folder whose root
    // could not be known (no git) or lies higher up than the path says.
    let own: Option<(usize, String, Option<AppSource>)> = places.iter().find_map(|(i, p)| {
        let (fit, source) = fit(&app, p);
        let ok = fit == Fit::Same
            || (explicit && matches!(fit, Fit::RootElsewhere { .. } | Fit::NoRepo));
        ok.then(|| (*i, p.in_repo.clone(), source))
    });
    if own.is_none() && !places.is_empty() && parts.iter().all(|p| p.folder.is_some()) {
        let how = match own_folder(&app) {
            Some(folder) => format!(
                ": plan the Application's own folder, `labcheck plan {} {}`",
                shown_from_cwd(&folder),
                shown_from_cwd(Path::new(&app.object.source.file))
            ),
            None => ": plan the Application's own folder".to_string(),
        };
        return Err(usage(format!(
            "Application {} syncs {} of its repo, but the folder{} given {} `{}`{how}",
            app.name(),
            paths_of(&app),
            if places.len() == 1 { "" } else { "s" },
            if places.len() == 1 { "is" } else { "are" },
            places
                .iter()
                .map(|(_, p)| p.in_repo.clone())
                .collect::<Vec<_>>()
                .join("`, `")
        )));
    }
    let mut input = Input::empty();
    if own.is_none() {
        let resolved =
            resolve::resolve(&app, None, None, &[]).map_err(|e| cannot_render(&app, &e))?;
        input.notes.extend(resolved.notes);
    }
    let app_key = (app.object.source.clone(), app.name().to_string());
    for (index, part) in parts.into_iter().enumerate() {
        let (in_sync, part) = match &own {
            Some((own_index, path, source)) if *own_index == index => {
                let source = source.clone();
                let explicit = source
                    .as_ref()
                    .map(|s| s.explicit.clone())
                    .unwrap_or_default();
                let folder = part.folder.clone().unwrap_or_default();
                let resolved = resolve::resolve(&app, source.as_ref(), Some(&folder), &[])
                    .map_err(|e| cannot_render(&app, &e))?;
                input.notes.extend(resolved.notes);
                let with = || {
                    Some(RenderWith {
                        app: &app,
                        source: source.as_ref(),
                        value_files: resolved.value_files.clone(),
                    })
                };
                if explicit.len() > 1 {
                    return Err(usage(format!(
                        "Application {} names more than one tool for `{path}` ({}): Argo CD refuses it (\"multiple application sources defined\")",
                        app.name(),
                        explicit.join(", ")
                    )));
                }
                match explicit.first().copied() {
                    Some(key @ ("helm" | "kustomize")) => {
                        let tool = if key == "helm" {
                            Tool::Helm
                        } else {
                            Tool::Kustomize
                        };
                        return Err(render_first(
                            &folder,
                            &tool,
                            &format!("its Application has `{key}:`"),
                            with(),
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
                            return Err(render_first(
                                &folder,
                                tool,
                                &format!("{file} is there"),
                                with(),
                            ));
                        }
                    }
                }
                let settings = source.map(|s| s.directory).unwrap_or_default();
                let part = if &settings == cli {
                    part
                } else {
                    read_folder(&folder, &settings)?
                };
                if let Some(error) = &part.unreadable {
                    return Err(usage(error.clone()));
                }
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
    sync_of(vec![part], app, &DirectorySettings::default(), false)
}
