//! `labcheck plan PATH…`: the order Argo CD will apply manifests in, and (with `--rules`) what is
//! unsafe about the migration hooks among them. Reads files only.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;

use super::output::HumanOrJsonArgs;
use crate::error::{Error, exit};
use crate::plan::{Object, Plan, PlanOptions, parse_manifests};
use crate::probe::argocd_dir::DirectorySettings;
use crate::probe::files::{MAX_FILE_BYTES, PathShower};
use crate::probe::manifests::{read_manifests, read_migration_sources};
use crate::report::{self, HumanOrJson, Styles};
use crate::rules::{self, Severity};

/// `labcheck plan` options.
#[derive(Debug, Args, Clone)]
#[command(
    after_help = "Examples:\n  labcheck plan manifests/                     the sync order of every manifest in a folder\n  helm template shop chart/ | labcheck plan -   rendered Helm output from stdin\n  labcheck plan --rules manifests/ argocd/      the order, plus the migration-hook rules\n\nExit codes: 0 no rule warned (or --rules not given), 1 a rule warned, 2 a path or manifest could not be read."
)]
pub struct PlanArgs {
    /// Manifest files or folders (every .yaml, .yml, .json inside); `-` reads stdin.
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
    /// Without it, an Application in the inputs whose source path is a folder given is used.
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
    let input = super::plan_input::read(&manifest_paths, &settings, args.app.as_deref())?;
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
        .any(|f| f.severity == Severity::Warning);
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

pub(super) fn read_path(path: &str, stdin_read: &mut bool) -> Result<Vec<(String, String)>, Error> {
    if path == "-" {
        if std::mem::replace(stdin_read, true) {
            return Err(Error::Usage(
                "`-` (stdin) can be given only once".to_string(),
            ));
        }
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Usage(format!("cannot read stdin: {e}")))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(Error::Usage(format!(
                "stdin holds more than {MAX_FILE_BYTES} bytes; labcheck plans up to that much"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Usage("stdin is not UTF-8 text".to_string()))?;
        return Ok(vec![("<stdin>".to_string(), text)]);
    }
    let given = PathBuf::from(path);
    if !given.exists() {
        return Err(Error::Usage(format!(
            "{path} does not exist; give a manifest file, a folder of manifests, or - for stdin"
        )));
    }
    let shower = PathShower::new(None);
    let (root, relative) = if given.is_dir() {
        (given.clone(), String::new())
    } else {
        let parent = match given.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = given
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (parent, name)
    };
    let found =
        read_manifests(&root, &relative, &shower).map_err(|e| Error::Usage(format!("{e}")))?;
    if found.is_empty() {
        return Err(Error::Usage(format!(
            "{path} holds no .yaml, .yml or .json file"
        )));
    }
    Ok(found
        .into_iter()
        .map(|(rel, text)| (shown(&root, &rel, given.is_dir()), text))
        .collect())
}

fn shown(root: &Path, relative: &str, from_dir: bool) -> String {
    if from_dir {
        root.join(relative).display().to_string()
    } else if root == Path::new(".") {
        relative.to_string()
    } else {
        root.join(relative).display().to_string()
    }
}
