//! Which Application `labcheck plan` is for: named with `--app`, or the one whose source path,
//! read from the root of the git repository, is a folder given; why it was taken, and for every
//! other Application in the input why not and how to take it. Also the root Application of an
//! app of apps given as its file to `--follow`.

use std::path::{Path, PathBuf};

use super::files::{git_root, read_path, remote_urls, shown_from_cwd};
use crate::error::Error;
use crate::plan::app::{AppSource, same_path};
use crate::plan::{AppSettings, NotTaken, Object, parse_manifests};

fn usage(message: String) -> Error {
    Error::Usage(message)
}

/// A folder given, and where it is in its git repository.
pub(super) struct Place {
    /// As the user gave it.
    pub(super) shown: String,
    /// The top of its git work tree, if it is in one.
    pub(super) root: Option<PathBuf>,
    /// Its path from there, with `/` (`.` for the root itself).
    pub(super) in_repo: String,
}

/// Where a folder given is in its git repository.
pub(super) fn place(folder: &Path) -> Place {
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
pub(super) enum Fit {
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
pub(super) fn fit(app: &AppSettings, place: &Place) -> (Fit, Option<AppSource>) {
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
pub(super) fn own_folder(app: &AppSettings) -> Option<PathBuf> {
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

/// The Application's source paths, quoted, for messages.
pub(super) fn paths_of(app: &AppSettings) -> String {
    let paths: Vec<String> = app.sources.iter().filter_map(|s| s.path.clone()).collect();
    if paths.is_empty() {
        "a chart".to_string()
    } else {
        format!("`{}`", paths.join("`, `"))
    }
}

/// Why the Application was taken, in words.
pub(super) fn taken_why(
    app: &AppSettings,
    places: &[Place],
    explicit: bool,
    sync: &[Object],
) -> String {
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
    if sync.iter().any(|o| (&o.source, &o.name) == key) {
        why.push_str("; it lies in that folder, so it manages itself: its own sync applies it too (planned as an object, as a parent app of apps would apply it)");
    }
    why
}

/// Every Application in the input the plan is not for, with why not and how to take it. The
/// Applications the taken one's sync applies (an app of apps' children) are its objects, not
/// candidates: `--follow` plans them.
pub(super) fn not_taken(
    all: &[AppSettings],
    places: &[Place],
    taken: Option<&AppSettings>,
    sync: &[Object],
) -> Vec<NotTaken> {
    let taken = taken.map(|a| (a.object.source.clone(), a.name().to_string()));
    let in_sync = |a: &AppSettings| {
        sync.iter()
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
                    "its path {} names another folder: the one given{} is `{}` from the root of its git repository",
                    paths_of(app),
                    if same_path(&p.shown, &p.in_repo) {
                        String::new()
                    } else {
                        format!(" ({})", p.shown)
                    },
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

/// The Applications in a file a flag names (`--app FILE`, `--follow FILE`).
fn apps_in_file(file: &str) -> Result<Vec<AppSettings>, Error> {
    let mut stdin_read = true;
    let mut apps = Vec::new();
    for (shown, text) in read_path(file, &mut stdin_read)? {
        apps.extend(
            parse_manifests(&shown, &text)
                .map_err(|e| usage(e.to_string()))?
                .iter()
                .filter_map(AppSettings::of),
        );
    }
    Ok(apps)
}

/// The Application named by `--app` (a file holding one, or a name among the inputs), else the
/// one among the inputs whose source path is a folder given.
pub(super) fn find_app(
    all: &[AppSettings],
    places: &[Place],
    app_arg: Option<&str>,
) -> Result<Option<AppSettings>, Error> {
    if let Some(arg) = app_arg {
        if Path::new(arg).is_file() {
            let mut found = apps_in_file(arg)?;
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
    let apps = apps_in_file(file)?;
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
    let note = (!remotes.is_empty() && !remotes.contains(&crate::repo_url::normalise(&source.repo_url))).then(|| format!(
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
