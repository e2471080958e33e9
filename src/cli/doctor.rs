//! `labcheck doctor [MODULE]`: is this machine and cluster ready for a module? Parses, calls
//! [`crate::doctor`], hands the result to the reporters.

use clap::Args;

use super::{ClusterArgs, SetupArgs, exit_code, output};
use crate::doctor::{self, Audience, Setup};
use crate::error::Error;
use crate::report::{self, ColorChoice, Styles};

/// `labcheck doctor` options.
#[derive(Debug, Args, Clone)]
pub struct DoctorArgs {
    /// The module to prepare for (its Applications, work repos and tools); without it, only what
    /// every module needs.
    pub module: Option<String>,

    #[command(flatten)]
    pub setup: SetupArgs,

    /// Whose needs to check: a learner's machine, or CI that does the steps with
    /// `labcheck solution … | bash` (adds bash and awk; a git identity may come from the environment).
    #[arg(long = "for", value_enum, default_value_t = Audience::Learner, value_name = "WHO")]
    pub audience: Audience,

    #[command(flatten)]
    pub report: output::ReportArgs,

    /// When to colour output (NO_COLOR is honoured with auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Run doctor, print its report, return the exit code (0 ready, 1 something missing, 3 could not
/// tell).
pub async fn run(args: &DoctorArgs) -> Result<u8, Error> {
    let outputs = args.report.outputs()?;
    let styles = Styles::decide(args.color);
    let course = args.setup.course.load()?;
    let module = match &args.module {
        Some(name) => Some(course.module(name)?.clone()),
        None => None,
    };
    let track = match &module {
        Some(m) => m.track(args.setup.track.as_deref())?.to_string(),
        None => args
            .setup
            .track
            .clone()
            .unwrap_or_else(|| "any".to_string()),
    };
    let tools = match &module {
        Some(m) => m.manifest.needs.tools.clone(),
        None => doctor::all_tools(course.modules.iter().flat_map(|m| &m.manifest.needs.tools)),
    };
    let argocd_namespace = args.cluster.argocd_namespace.clone().unwrap_or_else(|| {
        module
            .as_ref()
            .map(|m| m.manifest.argocd.namespace.clone())
            .unwrap_or_else(|| "argocd".to_string())
    });
    let setup = Setup {
        module,
        tools,
        work_dir: args.setup.work()?.path,
        cluster: args.cluster.options(),
        argocd_namespace,
        path: std::env::var_os("PATH").unwrap_or_default(),
        track,
        audience: args.audience,
    };
    // Doctor without a module reads no repo, but a report is still kept out of every one.
    let protected = match &setup.module {
        Some(m) => report::deliver::Protected::work_repos(&setup.work_dir, &m.manifest.repos),
        None => report::deliver::Protected::work_repos(
            &setup.work_dir,
            course.modules.iter().flat_map(|m| &m.manifest.repos),
        ),
    };
    outputs.check_destinations(&protected)?;
    let report = doctor::examine(&setup).await;
    let reports = [report];
    report::deliver::deliver(&outputs, &protected, styles, |format, styles| {
        crate::report::render(&reports, false, format, styles)
    })?;
    Ok(exit_code(crate::run::verdict(&reports)))
}
