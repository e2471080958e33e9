//! `labcheck plan PATH…`: the order Argo CD will apply manifests in, and (with `--rules`) what is
//! unsafe about the migration hooks among them. Reads files only.

use std::path::{Path, PathBuf};

use clap::Args;

use super::output::HumanOrJsonArgs;
use super::plan_files::{self, read_path, shown};
use super::{plan_choice, plan_input};
use crate::error::{Error, exit};
use crate::plan::{AppSettings, Followed, Object, Plan, PlanOptions, parse_manifests};
use crate::probe::argocd_dir::DirectorySettings;
use crate::probe::files::PathShower;
use crate::probe::manifests::read_migration_sources;
use crate::report::{self, HumanOrJson, Styles};
use crate::rules;

/// `labcheck plan` options.
#[derive(Debug, Args, Clone)]
#[command(
    after_help = "Examples:\n  labcheck plan manifests/                     the sync order of a folder, read as Argo CD reads it\n  helm template shop chart/ | labcheck plan -   rendered Helm output from stdin\n  labcheck plan --rules manifests/ argocd/      the order, plus the migration-hook rules\n  labcheck plan --follow apps/                  an app of apps, and each child's own folder\n  labcheck plan --follow root-app.yaml          the root Application's folder, then each child's\n\nExit codes: 0 no rule warned (or --rules not given), 1 a rule warned, 2 a path or manifest could not be read."
)]
pub struct PlanArgs {
    /// Manifest files or folders (read as Argo CD reads a directory source); `-` reads stdin.
    /// With `--follow`, one file holding a root Application plans the folder its path names.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<String>,

    /// Also check the manifests against the migration-hook rules (see docs/plan.md).
    #[arg(long)]
    pub rules: bool,

    /// The Application's destination namespace, for objects that name none.
    #[arg(long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Live objects no longer in git, to show when and in which order they are pruned.
    #[arg(long, value_name = "PATH")]
    pub pruned: Vec<String>,

    /// The Application that syncs the manifests: a name among the inputs, or a file holding it.
    /// Without it, the Application in the inputs whose source path, read from the root of the
    /// git repository, is a folder given; the plan says which was taken and why, and why any
    /// other Application in the input was not.
    #[arg(long, value_name = "NAME|FILE")]
    pub app: Option<String>,

    /// Read subfolders too (`directory.recurse: true`), when no Application says.
    #[arg(long)]
    pub recurse: bool,

    /// Read only files matching this glob (`directory.include`), when no Application says.
    #[arg(long, value_name = "GLOB")]
    pub include: Option<String>,

    /// Skip files matching this glob (`directory.exclude`), when no Application says.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Option<String>,

    /// App of apps: also plan each child Application's folder in this repo, with its settings;
    /// given one file holding the root Application, first plan the folder its path names.
    #[arg(long)]
    pub follow: bool,

    /// `-o human|json` and `--color`.
    #[command(flatten)]
    pub output: HumanOrJsonArgs,
}

/// Run `labcheck plan`; returns the exit code.
pub fn run(args: &PlanArgs) -> Result<u8, Error> {
    let (manifest_paths, mut sources): (Vec<String>, Vec<(String, String)>) =
        split_sources(&args.paths)?;
    let settings = DirectorySettings {
        recurse: args.recurse,
        include: args.include.clone(),
        exclude: args.exclude.clone(),
    };
    let root = if args.follow && args.app.is_none() {
        plan_choice::root_app(&manifest_paths)?
    } else {
        None
    };
    let (manifest_paths, app_arg) = match &root {
        Some(root) => (vec![root.folder.clone()], Some(root.file.clone())),
        None => (manifest_paths, args.app.clone()),
    };
    let mut input = plan_input::read(&manifest_paths, &settings, app_arg.as_deref())?;
    if let Some(root) = &root {
        input.why = Some(format!(
            "it is the root Application in {}: `--follow` plans the folder its path `{}` names ({}), as Argo CD syncs it",
            root.file, root.path, root.folder
        ));
        input.notes.extend(root.note.clone());
    }
    sources.extend(folder_sources(&manifest_paths)?);
    let pruned = load_all(&args.pruned)?;
    let mut plan = Plan::new(
        input.objects,
        pruned,
        &PlanOptions {
            namespace: args.namespace.clone(),
            app: input.app,
            context: input.context,
        },
    );
    plan.skipped_files = input.skipped;
    plan.app_why = input.why;
    plan.not_taken = input.not_taken;
    plan.app_notes = input.notes;
    if args.follow {
        follow(&mut plan, &manifest_paths, args.rules, &mut Vec::new(), 0);
    }
    let findings = args
        .rules
        .then(|| rules::check_with_sources(&plan, &sources));
    let text = match args.output.format {
        HumanOrJson::Json => report::plan::render_json(&plan, findings.as_deref()),
        HumanOrJson::Human => report::plan::render_human(
            &plan,
            findings.as_deref(),
            Styles::decide(args.output.color),
        ),
    };
    super::emit(&text);
    let warned = findings
        .iter()
        .flatten()
        .chain(child_findings(&plan.children))
        .any(|f| f.severity.fails());
    Ok(if warned { exit::FAIL } else { exit::PASS })
}

/// How deep `--follow` goes (an app of apps of apps …).
const MAX_FOLLOW_DEPTH: usize = 5;

/// Every child's findings, children's children included.
fn child_findings(children: &[Followed]) -> Vec<&crate::rules::Finding> {
    let mut found = Vec::new();
    for child in children {
        if let Ok((plan, findings)) = &child.outcome {
            found.extend(findings.iter().flatten());
            found.extend(child_findings(&plan.children));
        }
    }
    found
}

/// Plan each child Application the sync applies, in its own folder of this repo (the repo of
/// the first folder given): only when its `repoURL` is this repo's (the parent Application's, or
/// a remote in `.git/config`) and its path is a folder here.
fn follow(
    plan: &mut Plan,
    paths: &[String],
    rules_on: bool,
    seen: &mut Vec<PathBuf>,
    depth: usize,
) {
    let root = paths
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_dir())
        .map(|p| crate::probe::argocd_dir::repo_root(&p));
    let mut repos: Vec<String> = root
        .as_deref()
        .map(plan_files::remote_urls)
        .unwrap_or_default();
    if let Some(app) = &plan.app {
        repos.extend(
            app.sources
                .iter()
                .map(|s| plan_files::normalize_url(&s.repo_url)),
        );
    }
    let children: Vec<AppSettings> = plan.applied_objects().filter_map(AppSettings::of).collect();
    for child in children {
        let outcome = follow_one(&child, root.as_deref(), &repos, rules_on, seen, depth);
        let (folder, outcome) = match outcome {
            Ok((folder, plan, findings)) => (Some(folder), Ok((Box::new(plan), findings))),
            Err(why) => (None, Err(why)),
        };
        plan.children.push(Followed {
            name: child.name().to_string(),
            source: child.object.source.clone(),
            folder,
            outcome,
        });
    }
}

type FollowedPlan = (String, Plan, Option<Vec<crate::rules::Finding>>);

fn follow_one(
    child: &AppSettings,
    root: Option<&Path>,
    repos: &[String],
    rules_on: bool,
    seen: &mut Vec<PathBuf>,
    depth: usize,
) -> Result<FollowedPlan, String> {
    let Some(root) = root else {
        return Err("no folder was given, so its repo is unknown".to_string());
    };
    let Some(source) = child.sources.iter().find(|s| s.path.is_some()) else {
        return Err(plan_input::chart_to_render(child, root, repos));
    };
    let path = source.path.clone().unwrap_or_default();
    if !repos.contains(&plan_files::normalize_url(&source.repo_url)) {
        return Err(format!(
            "its source is another repo ({}); plan that repo's `{path}` there",
            source.repo_url
        ));
    }
    let folder = root.join(path.trim_start_matches("./"));
    if !folder.is_dir() {
        return Err(format!("`{path}` is not a folder in this repo"));
    }
    // Shown from where the user stands, like the parent's folder.
    let folder = PathBuf::from(plan_files::shown_from_cwd(&folder));
    let real = std::fs::canonicalize(&folder).unwrap_or(folder.clone());
    if seen.contains(&real) || depth >= MAX_FOLLOW_DEPTH {
        return Err("already planned above (an app of apps that leads back to itself)".to_string());
    }
    seen.push(real);
    let input = plan_input::read_app_folder(&folder, child.clone()).map_err(|e| match e {
        Error::Usage(message) => message,
        other => other.to_string(),
    })?;
    let mut plan = Plan::new(
        input.objects,
        Vec::new(),
        &PlanOptions {
            namespace: None,
            app: input.app,
            context: input.context,
        },
    );
    plan.skipped_files = input.skipped;
    plan.app_notes = input.notes;
    plan.app_why = Some(format!(
        "followed from its parent: its path `{path}` is a folder of this repository"
    ));
    let shown = folder.display().to_string();
    follow(
        &mut plan,
        std::slice::from_ref(&shown),
        rules_on,
        seen,
        depth + 1,
    );
    let findings = rules_on.then(|| rules::check(&plan));
    Ok((shown, plan, findings))
}

/// Extensions of migration files given as a path: read as text for `expand-contract`.
const MIGRATION_FILES: &[&str] = &["sql", "php", "rb", "py"];

/// Migration files as (file as shown, text).
type Sources = Vec<(String, String)>;

/// Paths that are migration files (read now) apart from manifest paths.
fn split_sources(paths: &[String]) -> Result<(Vec<String>, Sources), Error> {
    let mut manifests = Vec::new();
    let mut sources = Vec::new();
    for path in paths {
        let given = PathBuf::from(path);
        let is_migration = given.is_file()
            && given
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| MIGRATION_FILES.contains(&e));
        if is_migration {
            let mut stdin_read = true;
            sources.extend(read_path(path, &mut stdin_read)?);
        } else {
            manifests.push(path.clone());
        }
    }
    Ok((manifests, sources))
}

/// Migration files inside the folders among `paths`.
fn folder_sources(paths: &[String]) -> Result<Vec<(String, String)>, Error> {
    let mut found = Vec::new();
    let shower = PathShower::new(None);
    for path in paths.iter().filter(|p| p.as_str() != "-") {
        let root = PathBuf::from(path);
        if !root.is_dir() {
            continue;
        }
        for (rel, text) in
            read_migration_sources(&root, "", &shower).map_err(|e| Error::Usage(format!("{e}")))?
        {
            found.push((shown(&root, &rel, true), text));
        }
    }
    Ok(found)
}

/// Every object in `paths` (live objects for `--pruned`), in the order given (a folder's files
/// sorted by path, subfolders included).
pub fn load_all(paths: &[String]) -> Result<Vec<Object>, Error> {
    let mut objects = Vec::new();
    let mut stdin_read = false;
    for path in paths {
        for (shown, text) in read_path(path, &mut stdin_read)? {
            objects
                .extend(parse_manifests(&shown, &text).map_err(|e| Error::Usage(e.to_string()))?);
        }
    }
    Ok(objects)
}
