//! `labcheck snapshot MODULE --out FILE`: capture, read-only, what a module's checks read of the
//! cluster into a snapshot file that `--snapshot` and `labcheck serve` replay. The capture is
//! the runner's (`run::capture`); this parses the flags, writes the file and says what it holds.

use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, exit};
use crate::progress::workdir::WorkDir;
use crate::run::capture::capture;

use super::{ClusterArgs, SetupArgs, emit};

/// Arguments of `labcheck snapshot`.
#[derive(Debug, Args, Clone)]
pub struct SnapshotArgs {
    /// The module whose checks say what to capture, e.g. module-10 (some read the cluster after
    /// your work repos, so --work-dir counts too).
    pub module: String,
    /// Where to write the snapshot (YAML).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,

    #[command(flatten)]
    pub setup: SetupArgs,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Capture the snapshot and write it; returns the exit code.
pub async fn run(args: &SnapshotArgs) -> Result<u8, Error> {
    if args.cluster.snapshot.is_some() {
        return Err(Error::Usage(
            "`labcheck snapshot` reads a live cluster; drop --snapshot (use --kubeconfig/--context)"
                .to_string(),
        ));
    }
    // Without a work dir here (no HOME), the repo checks cannot look; the cluster is still read
    // by every check that reads it.
    let work_dir = match &args.setup.work_dir {
        Some(given) => WorkDir::resolve(Some(given))?.path,
        None => WorkDir::resolve(None).map(|w| w.path).unwrap_or_default(),
    };
    let captured = capture(
        &args
            .setup
            .session(&args.cluster, &args.module, None, work_dir),
    )
    .await?;
    std::fs::write(&args.out, &captured.yaml)
        .map_err(|e| Error::Environment(format!("cannot write {}: {e}", args.out.display())))?;
    emit(&format!(
        "wrote {} objects and {} logs from {} to {}\n",
        captured.objects,
        captured.logs,
        captured.from,
        args.out.display()
    ));
    Ok(exit::PASS)
}
