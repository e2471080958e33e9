//! What `labcheck plan` reads: folders as Argo CD's repo server reads a directory source, files
//! and stdin as written, and the Application the manifests are synced by (named with `--app`, or
//! found among the inputs by its source path), whose `directory` settings then decide what its
//! folder holds.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::plan::app::{AppSource, same_path};
use crate::plan::{AppSettings, FolderFile, NotTaken, Object, parse_folder_file, parse_manifests};
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
    let resolved = match crate::cli::plan_resolve::resolve(app, Some(chart), Some(root), also_here)
    {
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

/// The top of the git work tree `path` is in, if it is in one.
pub fn git_root(path: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(path).ok()?;
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// `path` as shown to someone standing in the current folder: relative when it is below it (or
/// near it), else whole.
pub fn shown_from_cwd(path: &Path) -> String {
    let (Ok(real), Ok(cwd)) = (
        std::fs::canonicalize(path),
        std::env::current_dir().and_then(std::fs::canonicalize),
    ) else {
        return path.display().to_string();
    };
    let common = real
        .components()
        .zip(cwd.components())
        .take_while(|(a, b)| a == b)
        .count();
    let up = cwd.components().count() - common;
    // Above the cwd's parent's parent, a whole path reads better than a row of `../`.
    if common <= 1 || up > 2 {
        return real.display().to_string();
    }
    let mut shown = PathBuf::new();
    for _ in 0..up {
        shown.push("..");
    }
    for part in real.components().skip(common) {
        shown.push(part);
    }
    if shown.as_os_str().is_empty() {
        ".".to_string()
    } else {
        shown.display().to_string()
    }
}

/// A folder given, and where it is in its git repository.
struct Place {
    /// As the user gave it.
    shown: String,
    /// The top of its git work tree, if it is in one.
    root: Option<PathBuf>,
    /// Its path from there, with `/` (`.` for the root itself).
    in_repo: String,
}

fn place(folder: &Path) -> Place {
    let root = git_root(folder);
    let real = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let in_repo = match root.as_deref().map(|r| real.strip_prefix(r)) {
        Some(Ok(p)) if !p.as_os_str().is_empty() => p.to_string_lossy().replace('\\', "/"),
        _ => ".".to_string(),
    };
    Place {
        shown: folder.display().to_string(),
        root,
        in_repo,
    }
}

/// How an Application's source path stands to a folder given.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fit {
    /// Read from the folder's git root, its path is the folder.
    Same,
    /// Its path would be the folder only if the repository root were `would_be` (a folder below
    /// the git root: a copy nested in another repository).
    RootElsewhere { would_be: String },
    /// The folder is in no git repository: where the path starts is unknown.
    NoRepo,
    /// Its path names another folder.
    Other,
    /// No source has a path (a chart from a Helm repository).
    NoPath,
}

fn parts(p: &str) -> Vec<&str> {
    p.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect()
}

fn fit_of(source: &AppSource, place: &Place) -> Fit {
    let Some(path) = source.path.as_deref() else {
        return Fit::NoPath;
    };
    if place.root.is_none() {
        return Fit::NoRepo;
    }
    if same_path(path, &place.in_repo) {
        return Fit::Same;
    }
    let (want, have) = (parts(path), parts(&place.in_repo));
    if want.len() < have.len() && have.ends_with(&want) {
        let prefix = have[..have.len() - want.len()].join("/");
        let root = place.root.as_deref().unwrap_or(Path::new(""));
        return Fit::RootElsewhere {
            would_be: shown_from_cwd(&root.join(prefix)),
        };
    }
    Fit::Other
}

/// The best fit of any of the Application's sources with the folder, and that source.
fn fit(app: &AppSettings, place: &Place) -> (Fit, Option<AppSource>) {
    let rank = |f: &Fit| match f {
        Fit::Same => 0,
        Fit::RootElsewhere { .. } => 1,
        Fit::NoRepo => 2,
        Fit::Other => 3,
        Fit::NoPath => 4,
    };
    app.sources
        .iter()
        .map(|s| (fit_of(s, place), Some(s.clone())))
        .min_by_key(|(f, _)| rank(f))
        .unwrap_or((Fit::NoPath, None))
}

/// The folder an Application's path names in the repository its file lies in, if it is there.
fn own_folder(app: &AppSettings) -> Option<PathBuf> {
    let file = Path::new(&app.object.source.file);
    let root = git_root(
        file.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    )?;
    let path = app.sources.iter().find_map(|s| s.path.clone())?;
    let folder = root.join(path.trim_start_matches("./"));
    folder.is_dir().then_some(folder)
}

fn paths_of(app: &AppSettings) -> String {
    let paths: Vec<String> = app.sources.iter().filter_map(|s| s.path.clone()).collect();
    if paths.is_empty() {
        "a chart".to_string()
    } else {
        format!("`{}`", paths.join("`, `"))
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
        for (shown, text) in super::plan::read_path(path, &mut stdin_read)? {
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
                .map(|a| taken_why(a, &places, explicit, &input));
            input
        }
    };
    input.not_taken = not_taken(&all, &places, &input);
    Ok(input)
}

/// Why the Application was taken, in words.
fn taken_why(app: &AppSettings, places: &[Place], explicit: bool, input: &Input) -> String {
    let mut why = if explicit {
        "named with `--app`".to_string()
    } else {
        String::new()
    };
    let best = places
        .iter()
        .map(|p| (p, fit(app, p).0))
        .find(|(_, f)| matches!(f, Fit::Same | Fit::RootElsewhere { .. } | Fit::NoRepo));
    let detail = match best {
        None => "files were given, not a folder, so all of them are its sync".to_string(),
        Some((p, Fit::Same)) => format!(
            "its path {} is the folder given ({}), read from the root of its git repository",
            paths_of(app),
            p.shown
        ),
        Some((p, Fit::RootElsewhere { would_be })) => format!(
            "its path {} is taken to start at `{would_be}`, not at the root of the git repository around {} (where it is `{}`)",
            paths_of(app),
            p.shown,
            p.in_repo
        ),
        Some((p, _)) => format!(
            "{} is in no git repository, so its path {} could not be compared with it",
            p.shown,
            paths_of(app)
        ),
    };
    why = if why.is_empty() {
        detail
    } else {
        format!("{why}; {detail}")
    };
    let key = (&app.object.source, &app.object.name);
    if input.objects.iter().any(|o| (&o.source, &o.name) == key) {
        why.push_str("; it lies in that folder, so it manages itself: its own sync applies it too (planned as an object, as a parent app of apps would apply it)");
    }
    why
}

/// Every Application in the input the plan is not for, with why not and how to take it. The
/// Applications the taken one's sync applies (an app of apps' children) are its objects, not
/// candidates: `--follow` plans them.
fn not_taken(all: &[AppSettings], places: &[Place], input: &Input) -> Vec<NotTaken> {
    let taken = input
        .app
        .as_ref()
        .map(|a| (a.object.source.clone(), a.name().to_string()));
    let in_sync = |a: &AppSettings| {
        input
            .objects
            .iter()
            .any(|o| o.source == a.object.source && o.name == a.object.name)
    };
    let mut found = Vec::new();
    for app in all {
        if taken.as_ref() == Some(&(app.object.source.clone(), app.name().to_string())) {
            continue;
        }
        let planned = in_sync(app);
        if taken.is_some() && planned {
            continue;
        }
        let name = app.name();
        let file = shown_from_cwd(Path::new(&app.object.source.file));
        let own = own_folder(app).map(|f| shown_from_cwd(&f));
        let best = places
            .iter()
            .map(|p| (p, fit(app, p).0))
            .min_by_key(|(_, f)| match f {
                Fit::Same => 0,
                Fit::RootElsewhere { .. } => 1,
                Fit::NoRepo => 2,
                Fit::Other => 3,
                Fit::NoPath => 4,
            });
        let (mut why, how) = match best {
            None => (
                format!(
                    "files were given, not a folder: an Application is taken only for the folder its path ({}) names",
                    paths_of(app)
                ),
                match &own {
                    Some(folder) => format!(
                        "`--app {name}` plans the files given as its sync; `labcheck plan --follow {file}` plans its folder `{folder}` as Argo CD syncs it"
                    ),
                    None => format!("`--app {name}` plans the files given as its sync"),
                },
            ),
            Some((_, Fit::Same)) => (
                "`--app` named another Application".to_string(),
                format!("`--app {name}`"),
            ),
            Some((p, Fit::RootElsewhere { would_be })) => (
                format!(
                    "its repository root is elsewhere: its path {} names {} only if the repository starts at `{would_be}`, but the git repository around it starts higher up (there it is `{}`)",
                    paths_of(app),
                    p.shown,
                    p.in_repo
                ),
                format!("`--app {name}` takes it for this folder"),
            ),
            Some((p, Fit::NoRepo)) => (
                format!(
                    "{} is in no git repository, so where its path {} starts is unknown",
                    p.shown,
                    paths_of(app)
                ),
                format!("`--app {name}` takes it for this folder"),
            ),
            Some((p, Fit::Other)) => (
                format!(
                    "its path {} names another folder: the one given ({}) is `{}` from the root of its git repository",
                    paths_of(app),
                    p.shown,
                    p.in_repo
                ),
                match &own {
                    Some(folder) => format!(
                        "plan its own folder: `labcheck plan {folder} {file}` (or `--follow {file}`)"
                    ),
                    None => format!(
                        "plan its folder {} where it is checked out, with `--app {file}`",
                        paths_of(app)
                    ),
                },
            ),
            Some((_, Fit::NoPath)) => (
                "its source is a chart from a Helm repository, not a folder".to_string(),
                format!(
                    "render the chart (`helm template … | labcheck plan --app {name} - {file}`)"
                ),
            ),
        };
        if planned {
            why.push_str(". It is planned as an object of this sync: that is what a parent app of apps that syncs these files would do, not its own sync");
        }
        found.push(NotTaken {
            name: name.to_string(),
            source: app.object.source.clone(),
            why,
            how,
        });
    }
    found
}

/// The Application named by `--app` (a file holding one, or a name among the inputs), else the
/// one among the inputs whose source path is a folder given.
fn find_app(
    all: &[AppSettings],
    places: &[Place],
    app_arg: Option<&str>,
) -> Result<Option<AppSettings>, Error> {
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
        return match all.iter().find(|a| a.name() == arg) {
            Some(app) => Ok(Some(app.clone())),
            None => Err(usage(format!(
                "no Application named `{arg}` in the input, and no file `{arg}`"
            ))),
        };
    }
    let mut matching: Vec<AppSettings> = all
        .iter()
        .filter(|a| places.iter().any(|p| fit(a, p).0 == Fit::Same))
        .cloned()
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
        let resolved = crate::cli::plan_resolve::resolve(&app, None, None, &[])
            .map_err(|e| cannot_render(&app, &e))?;
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
                let resolved =
                    crate::cli::plan_resolve::resolve(&app, source.as_ref(), Some(&folder), &[])
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
                    Some("helm") => {
                        return Err(render_first(
                            &folder,
                            &Tool::Helm,
                            "its Application has `helm:`",
                            with(),
                        ));
                    }
                    Some("kustomize") => {
                        return Err(render_first(
                            &folder,
                            &Tool::Kustomize,
                            "its Application has `kustomize:`",
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

/// A repo URL without the differences that do not name another repository (scheme, user,
/// `.git`, a trailing `/`, case; `git@host:path` and `https://host/path` alike), to tell whether
/// an Application's source is the clone at hand.
pub fn normalize_url(url: &str) -> String {
    let mut rest = url.trim().trim_end_matches('/');
    rest = rest.strip_suffix(".git").unwrap_or(rest);
    let scp_like = !rest.contains("://");
    if let Some((_, after)) = rest.split_once("://") {
        rest = after;
    }
    if let Some((user, after)) = rest.split_once('@')
        && !user.contains('/')
    {
        rest = after;
    }
    let mut key = rest.to_ascii_lowercase();
    if scp_like
        && let Some(colon) = key.find(':')
        && !key[..colon].contains('/')
    {
        key.replace_range(colon..=colon, "/");
    }
    key
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

/// The root Application of an app of apps, given as its file to `plan --follow FILE`.
pub struct RootApp {
    /// The file, as given.
    pub file: String,
    /// Its source path, as written.
    pub path: String,
    /// The folder that path names in the file's git repository, shown from the current folder.
    pub folder: String,
    /// Said when the clone's remotes do not name the root's repoURL.
    pub note: Option<String>,
}

/// With `--follow` and one file holding one Application: the folder Argo CD syncs for it, in the
/// git repository the file lies in. `None` when the input is not that (folders, several files or
/// Applications, no git repository: the plan then says why no Application was taken).
pub fn root_app(paths: &[String]) -> Result<Option<RootApp>, Error> {
    let [file] = paths else {
        return Ok(None);
    };
    let given = Path::new(file);
    if file == "-" || !given.is_file() {
        return Ok(None);
    }
    let mut stdin_read = true;
    let mut apps = Vec::new();
    for (shown, text) in super::plan::read_path(file, &mut stdin_read)? {
        apps.extend(
            parse_manifests(&shown, &text)
                .map_err(|e| usage(e.to_string()))?
                .iter()
                .filter_map(AppSettings::of),
        );
    }
    let [app] = apps.as_slice() else {
        return Ok(None);
    };
    let parent = given
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(root) = git_root(parent) else {
        return Ok(None);
    };
    let Some(source) = app.sources.iter().find(|s| s.path.is_some()) else {
        return Err(usage(format!(
            "Application {} in {file} has no source path (a chart from a Helm repository): render the chart and pipe it in, `helm template … | labcheck plan --app {file} -`",
            app.name()
        )));
    };
    let path = source.path.clone().unwrap_or_default();
    let remotes = remote_urls(&root);
    let note = (!remotes.is_empty() && !remotes.contains(&normalize_url(&source.repo_url))).then(|| format!(
        "the root Application's repoURL ({}) is not a remote of this clone ({}): its folder `{path}` was planned from this clone, taken to be the same repository",
        source.repo_url,
        remotes.join(", ")
    ));
    let folder = root.join(path.trim_start_matches("./"));
    if !folder.is_dir() {
        return Err(usage(format!(
            "Application {} in {file} syncs `{path}`, which is not a folder in this repository ({})",
            app.name(),
            shown_from_cwd(&root)
        )));
    }
    Ok(Some(RootApp {
        file: file.clone(),
        path,
        folder: shown_from_cwd(&folder),
        note,
    }))
}

#[cfg(test)]
mod tests {
    use super::normalize_url;

    #[test]
    fn one_repository_written_as_https_ssh_or_scp_is_one_key() {
        let key = normalize_url("http://git.course.local/platform/argocd-platform.git");
        for url in [
            "https://git.course.local/platform/argocd-platform",
            "ssh://git@git.course.local/platform/argocd-platform.git",
            "git@git.course.local:platform/argocd-platform.git",
            "HTTP://Git.Course.Local/platform/argocd-platform/",
        ] {
            assert_eq!(normalize_url(url), key, "{url}");
        }
        assert_ne!(
            normalize_url("http://git.course.local/team/shop-config.git"),
            key
        );
    }
}
