//! `labcheck bundle MODULE [STEP] -o FILE.tar.zst`: a learner's run and what it read, in one file
//! for an instructor (see `bundle`). Read-only like every run: the only file written is FILE,
//! never inside a work repo.

use std::path::PathBuf;

use clap::Args;

use super::{ClusterArgs, SetupArgs, emit, output};
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
    #[command(flatten)]
    pub setup: SetupArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Make the bundle (`bundle::open`) and write it where no work repo is.
pub async fn run(args: &BundleArgs) -> Result<u8, Error> {
    let work_dir = args.setup.work()?.path;
    let opened = bundle::open(args.setup.session(
        &args.cluster,
        &args.module,
        args.step.as_deref(),
        work_dir.clone(),
    ))?;
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
