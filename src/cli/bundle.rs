//! `labcheck bundle MODULE [STEP] -o FILE.tar.zst`: a learner's run and what it read, in one file
//! for an instructor (see `bundle`). Read-only like every run: the only file written is FILE,
//! never inside a work repo.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::{ClusterArgs, emit, load_course, output};
use crate::bundle::{self, Bundle};
use crate::error::{Error, exit};
use crate::probe::cluster::Cluster;
use crate::probe::tape::{Mode, Tape};
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
    // is what is there now) and without touching their progress, with every probe answer
    // recorded for the replay.
    let tape = Arc::new(Tape::default());
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
        tape: Mode::Record(tape.clone()),
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

    // The cluster part: what the run read, as a snapshot (Secrets and literal env values blanked).
    let cluster = Cluster::connect(&args.cluster.options()).await;
    let captured = match cluster.unavailable_reason() {
        Some(reason) => Err(reason),
        None => {
            let mut snapshot = crate::probe::cluster::tape::snapshot_of(
                &tape,
                &cluster,
                &format!("{}: read from {}", args.module, cluster.describe()),
            )
            .await;
            for object in &mut snapshot.objects {
                bundle::redact_credentials(object);
            }
            snapshot.to_yaml().map_err(|e| e.to_string())
        }
    };
    let about = bundle::About {
        format: bundle::FORMAT.to_string(),
        module: args.module.clone(),
        step: args.step.clone(),
        track: track.clone(),
        created: jiff::Timestamp::now().to_string(),
        work_dir: work_dir.clone(),
        home: crate::paths::home_dir().filter(|home| work_dir.starts_with(home)),
        argocd_namespace: args.cluster.argocd_namespace.clone(),
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
    bundle::add_tape(&mut entries, module, &tape);
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
        "wrote {} ({} files: the report, the answers the checks got, {}the work repos' state and the files the checks read; `labcheck MODULE STEP --bundle FILE` replays it)\n",
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
