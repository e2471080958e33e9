//! The class flags of a check run: a step or module for a whole class, each learner through the
//! learner's own runner, shown as a matrix with causes, or as one JSON, JUnit or TAP document.

use std::path::PathBuf;

use clap::Args;

use super::{RunArgs, exit_code, output};
use crate::class::{ClassSession, Learners, Renames, Roster};
use crate::error::Error;
use crate::report::{self, Styles};

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

impl RunArgs {
    /// The class session for `module`/`step` the class flags name.
    pub fn class_session(&self, module: &str, step: Option<&str>) -> ClassSession {
        let fleet = &self.fleet;
        let learners = if !fleet.contexts.is_empty() {
            Learners::Contexts(fleet.contexts.clone())
        } else if let Some(dir) = &fleet.kubeconfigs {
            Learners::Kubeconfigs(dir.clone())
        } else if !fleet.learners.is_empty() {
            Learners::Shared {
                names: fleet.learners.clone(),
                renames: Renames {
                    namespace: fleet.namespace_template.clone(),
                    app: fleet.app_template.clone(),
                },
            }
        } else {
            Learners::Nobody
        };
        ClassSession {
            asked: self.asked(module, step),
            roster: Roster {
                learners,
                work_dirs: fleet.work_dirs.clone(),
                cluster: self.cluster.options(),
            },
        }
    }
}

/// Run `module`/`step` for every learner and print the matrix.
pub async fn check(args: &RunArgs, module: &str, step: Option<&str>) -> Result<u8, Error> {
    let outputs = args.report.outputs()?;
    let class = args.class_session(module, step).open()?;
    // A class report is refused where a learner's own would be: inside any learner's work repo.
    let mut protected = output::Protected::default();
    for dir in class.work_dirs() {
        protected.extend(output::Protected::work_repos(
            dir,
            &class.module().manifest.repos,
        ));
    }
    outputs.check_destinations(&protected)?;
    let run = class.run().await;
    let document = report::matrix::Class {
        runs: &run.runs,
        causes: &run.causes,
    };
    output::deliver(
        &outputs,
        &protected,
        Styles::decide(args.color).quiet(args.quiet),
        |format, styles| report::render_document(&document, format, styles),
    )?;
    Ok(exit_code(run.verdict))
}
