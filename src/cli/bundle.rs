//! `labcheck bundle MODULE [STEP] -o FILE.tar.zst`: a learner's run and what it read, in one file
//! for an instructor (see `bundle`). Read-only like every run: the only file written is FILE,
//! never inside a work repo.

use std::path::PathBuf;

use clap::Args;

use super::{ClusterArgs, emit, output};
use crate::bundle;
use crate::error::{Error, exit};

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

/// Make the bundle (`bundle::Request`) and write it where no work repo is.
pub async fn run(args: &BundleArgs) -> Result<u8, Error> {
    let run_args = super::RunArgs {
        work_dir: args.work_dir.clone(),
        ..super::RunArgs::default()
    };
    let work_dir = super::work_dir(&run_args)?;
    let opened = bundle::Request {
        course_dir: args.course_dir.clone(),
        module: args.module.clone(),
        step: args.step.clone(),
        track: args.track.clone(),
        work_dir: work_dir.clone(),
        cluster: args.cluster.options(),
        argocd_namespace: args.cluster.argocd_namespace.clone(),
    }
    .open()?;
    let protected = output::Protected::work_repos(&work_dir, opened.repos());
    let destination = output::check_destination(&args.out, &protected)?;
    let made = opened.make().await?;
    output::write_report_file(&destination, &made.bytes, &protected)?;
    emit(&format!(
        "wrote {} ({} files: the report, the answers the checks got, {}the work repos' state and the files the checks read; `labcheck MODULE STEP --bundle FILE` replays it)\n",
        args.out.display(),
        made.files,
        if made.cluster_error.is_some() {
            "no cluster part (it could not be read), "
        } else {
            "the cluster objects the checks read, "
        }
    ));
    Ok(exit::PASS)
}
