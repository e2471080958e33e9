//! The class flags of a check run: a step or module for a whole class, each learner through the
//! learner's own runner, shown as a matrix with causes, or as one JSON, JUnit or TAP document.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::{RunArgs, exit_code, load_course, output};
use crate::error::Error;
use crate::fleet::{self, Environment, Renames};
use crate::probe::cluster::ClusterOptions;
use crate::report::{self, Format, Styles};

/// Check a whole class at once (instructors): one environment per learner.
#[derive(Debug, Args, Clone, Default)]
pub struct FleetArgs {
    /// One learner per kubeconfig context (the learner is the context's name).
    #[arg(long, value_delimiter = ',', value_name = "CTX,…", conflicts_with_all = ["kubeconfigs", "learners", "snapshot", "context"])]
    pub contexts: Vec<String>,

    /// One learner per kubeconfig file in DIR (the learner is the file name without extension).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["learners", "snapshot", "kubeconfig", "context"])]
    pub kubeconfigs: Option<PathBuf>,

    /// Learners sharing one cluster, each in their own namespaces (see --namespace-template).
    #[arg(long, value_delimiter = ',', value_name = "NAME,…")]
    pub learners: Vec<String>,

    /// A learner's namespace: '{learner}-{namespace}' (every namespace the step reads), or
    /// '{learner}-checkout-dev' when the step reads only one.
    #[arg(long, value_name = "TEMPLATE", requires = "learners")]
    pub namespace_template: Option<String>,

    /// A learner's Argo CD Application: '{learner}-{app}' (default: the course's names).
    #[arg(long, value_name = "TEMPLATE", requires = "learners")]
    pub app_template: Option<String>,

    /// Each learner's work repos: 'DIR/{learner}' (without it, checks of work repos could not be
    /// checked: "no work dir for this learner").
    #[arg(long, value_name = "TEMPLATE")]
    pub work_dirs: Option<String>,
}

impl FleetArgs {
    /// Whether the run is a fleet run.
    pub fn active(&self) -> bool {
        !self.contexts.is_empty() || self.kubeconfigs.is_some() || !self.learners.is_empty()
    }
}

/// Run `module`/`step` for every learner and print the matrix.
pub async fn check(args: &RunArgs, module: &str, step: Option<&str>) -> Result<u8, Error> {
    let outputs = args.report.outputs()?;
    let course = Arc::new(load_course(args)?);
    let module = course.module(module)?;
    let steps = module.select(step)?;
    let track = module.track(args.track.as_deref())?.to_string();
    let environments = class_of(args, module, &steps)?;
    // A class report is refused where a learner's own would be: inside any learner's work repo.
    let mut protected = output::Protected::default();
    for dir in environments.iter().filter_map(|e| e.work_dir.as_deref()) {
        protected.extend(output::Protected::work_repos(dir, &module.manifest.repos));
    }
    outputs.check_destinations(&protected)?;
    let runs = fleet::run(
        course.clone(),
        module,
        &steps,
        &track,
        args.cluster.argocd_namespace.clone(),
        args.wait_policy(),
        environments,
    )
    .await;
    // The class's failures grouped by cause: decided by the class code, printed by reporters.
    let causes = fleet::causes::group(&runs);
    let render = |format: Format, styles: Styles| match format {
        Format::Human => report::matrix::human(&runs, &causes, styles),
        Format::Json => report::matrix::json(&runs, &causes),
        Format::Yaml => report::json_as_yaml(&report::matrix::json(&runs, &causes)),
        Format::Junit => report::matrix::junit(&runs),
        Format::Tap => report::matrix::tap(&runs, report::tap::Version::Thirteen),
        Format::Tap14 => report::matrix::tap(&runs, report::tap::Version::Fourteen),
    };
    output::deliver(
        &outputs,
        &protected,
        Styles::decide(args.color).quiet(args.quiet),
        render,
    )?;
    let reports: Vec<_> = runs.into_iter().flat_map(|r| r.steps).collect();
    Ok(exit_code(crate::run::verdict(&reports)))
}

/// The class the flags name, its templates checked against what `steps` read: one environment
/// per learner (a class run and the live page share this).
pub(crate) fn class_of(
    args: &RunArgs,
    module: &crate::course::Module,
    steps: &[&crate::course::Step],
) -> Result<Vec<Environment>, Error> {
    let fleet = &args.fleet;
    let argocd_ns = args
        .cluster
        .argocd_namespace
        .clone()
        .unwrap_or_else(|| module.manifest.argocd.namespace.clone());
    let namespaces = fleet::namespaces(steps, &argocd_ns);
    if let Some(t) = &fleet.namespace_template {
        fleet::check_template("--namespace-template", t, "{namespace}", &namespaces)?;
    }
    if let Some(t) = &fleet.app_template {
        let apps = fleet::applications(steps);
        fleet::check_template("--app-template", t, "{app}", &apps)?;
    }
    if let Some(t) = &fleet.work_dirs
        && !t.contains("{learner}")
    {
        return Err(Error::Usage(format!(
            "--work-dirs `{t}` has no {{learner}}: every learner would be read from the same repos (e.g. 'clones/{{learner}}')"
        )));
    }
    environments(args)
}

fn environments(args: &RunArgs) -> Result<Vec<Environment>, Error> {
    let fleet = &args.fleet;
    let work_dir = |learner: &str| {
        fleet
            .work_dirs
            .as_ref()
            .map(|t| PathBuf::from(t.replace("{learner}", learner)))
    };
    let env = |learner: String, cluster: ClusterOptions, names: Renames| Environment {
        work_dir: work_dir(&learner),
        learner,
        cluster,
        names,
    };
    let kubeconfig = args.cluster.kubeconfig.clone();
    if !fleet.contexts.is_empty() {
        return Ok(fleet
            .contexts
            .iter()
            .map(|c| {
                let cluster = ClusterOptions {
                    kubeconfig: kubeconfig.clone(),
                    context: Some(c.clone()),
                    snapshot: None,
                    ..args.cluster.options()
                };
                env(c.clone(), cluster, Renames::default())
            })
            .collect());
    }
    if let Some(dir) = &fleet.kubeconfigs {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            Error::Usage(format!(
                "cannot read --kubeconfigs {}: {e}; point it at a folder with one kubeconfig file per learner",
                dir.display()
            ))
        })?;
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::Usage(format!(
                "--kubeconfigs {} holds no files; put one kubeconfig per learner there (alice.yaml, bob.yaml, …)",
                dir.display()
            )));
        }
        return Ok(files
            .into_iter()
            .map(|file| {
                let learner = file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let cluster = ClusterOptions {
                    kubeconfig: Some(file),
                    context: None,
                    snapshot: None,
                    ..args.cluster.options()
                };
                env(learner, cluster, Renames::default())
            })
            .collect());
    }
    let names = Renames {
        namespace: fleet.namespace_template.clone(),
        app: fleet.app_template.clone(),
    };
    Ok(fleet
        .learners
        .iter()
        .map(|l| env(l.clone(), args.cluster.options(), names.clone()))
        .collect())
}
