//! `labcheck bundle MODULE [STEP] -o FILE.tar.zst`: a learner's run and what it read, in one file
//! for an instructor (see `bundle`). Read-only like every run: the only file written is FILE,
//! never inside a work repo.

use std::path::PathBuf;

use clap::Args;

use super::{ClusterArgs, emit, load_course, output};
use crate::bundle::{self, Bundle};
use crate::error::{Error, exit};
use crate::probe::cluster::Cluster;
use crate::report::{self, Format, Styles};
use crate::run::{Session, WaitPolicy};

/// Arguments of `labcheck bundle`.
#[derive(Debug, Args)]
pub struct BundleArgs {
    /// The module, e.g. module-10.
    pub module: String,
    /// The step, exercise or stage; all steps when left out.
    pub step: Option<String>,
    /// Where to write the bundle (a zstd-compressed tar, e.g. bundle.tar.zst).
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub out: PathBuf,
    /// Your course track (defaults to the module's default, e.g. kind).
    #[arg(long)]
    pub track: Option<String>,
    /// Folder holding your work repos.
    #[arg(long, env = "LABCHECK_WORK_DIR", value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Read the course from this folder (modules/ and expected/) instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub course_dir: Option<PathBuf>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Run the step, gather what it read, write the bundle.
pub async fn run(args: &BundleArgs) -> Result<u8, Error> {
    let run_args = super::RunArgs {
        course_dir: args.course_dir.clone(),
        work_dir: args.work_dir.clone(),
        ..super::RunArgs::default()
    };
    let course = load_course(&run_args)?;
    let module = course.module(&args.module)?;
    let steps = module.select(args.step.as_deref())?;
    let track = module.track(args.track.as_deref())?.to_string();
    let work_dir = super::work_dir(&run_args)?;
    let protected = output::Protected::work_repos(&work_dir, &module.manifest.repos);
    let destination = output::check_destination(&args.out, &protected)?;

    // The learner's run as their own `labcheck MODULE STEP` gives it, without waiting (a bundle
    // is what is there now) and without touching their progress.
    let session = Session {
        course_dir: args.course_dir.clone(),
        module: args.module.clone(),
        step: args.step.clone(),
        track: Some(track.clone()),
        work_dir: work_dir.clone(),
        cluster: args.cluster.options(),
        argocd_namespace: args.cluster.argocd_namespace.clone(),
        policy: WaitPolicy::Never,
        log_reads: false,
        paths: crate::probe::files::PathShower::from_env(),
        remember: false,
    };
    let found = session.run(None, &|_| {}).await?;
    let human = report::render(
        &found.reports,
        found.module_run,
        Format::Human,
        Styles::plain(),
    );
    let json = report::render(
        &found.reports,
        found.module_run,
        Format::Json,
        Styles::plain(),
    );

    let argocd_ns = args
        .cluster
        .argocd_namespace
        .clone()
        .unwrap_or_else(|| module.manifest.argocd.namespace.clone());
    let cluster = Cluster::connect(&args.cluster.options()).await;
    let targets = super::snapshot::targets(steps.iter().copied());
    let captured = super::snapshot::capture(&cluster, &argocd_ns, targets, &args.module)
        .await
        .map_err(|e| e.to_string())
        .and_then(|mut snapshot| {
            for object in &mut snapshot.objects {
                bundle::redact_credentials(object);
            }
            snapshot.to_yaml().map_err(|e| e.to_string())
        });
    let about = bundle::About {
        format: bundle::FORMAT,
        module: &args.module,
        step: args.step.as_deref(),
        track: &track,
        created: jiff::Timestamp::now().to_string(),
        cluster_error: captured.as_ref().err().cloned(),
    };
    let mut entries = Bundle::default();
    entries.add(
        "bundle.json",
        serde_json::to_vec_pretty(&about).unwrap_or_default(),
    );
    entries.add("report.txt", human);
    entries.add("report.json", json);
    if let Ok(yaml) = captured {
        entries.add(bundle::CLUSTER, yaml);
    }
    for (repo, paths) in bundle::reads(&steps) {
        bundle::add_repo(&mut entries, module, &work_dir, &repo, &paths);
    }
    let bytes = entries.to_tar_zst().map_err(|e| {
        Error::Environment(format!(
            "cannot write the bundle {}: {e}",
            args.out.display()
        ))
    })?;
    output::write_report_file(&destination, &bytes, &protected)?;
    emit(&format!(
        "wrote {} ({} files: the report, {}the work repos' state and the files the checks read)\n",
        args.out.display(),
        entries.paths().count(),
        if about.cluster_error.is_some() {
            "no cluster part (it could not be read), "
        } else {
            "the cluster objects the checks read, "
        }
    ));
    Ok(exit::PASS)
}
