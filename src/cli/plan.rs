//! `labcheck plan PATH…`: the order Argo CD will apply manifests in, and (with `--rules`) what is
//! unsafe about the migration hooks among them. Reads files only.

use std::path::PathBuf;

use clap::Args;

use super::output::HumanOrJsonArgs;
use crate::error::{Error, exit};
use crate::plan::input::files::{read_path, shown};
use crate::plan::input::{self as plan_input};
use crate::plan::{Object, Plan, PlanOptions, parse_manifests};
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
        plan_input::root_app(&manifest_paths)?
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
        let rules: &dyn Fn(&Plan) -> Vec<rules::Finding> = &rules::check;
        plan_input::follow(&mut plan, &manifest_paths, args.rules.then_some(rules));
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
        .chain(plan_input::child_findings(&plan.children))
        .any(|f| f.severity.fails());
    Ok(if warned { exit::FAIL } else { exit::PASS })
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
