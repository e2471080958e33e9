//! Replaying a bundle (`labcheck MODULE [STEP] --bundle FILE`): the session a learner's run was,
//! its probes answered from the bundle's recording (work repos) and its cluster part served
//! in-process (the cluster), so an instructor sees the same verdicts without the learner's
//! cluster or repos. Nothing is read from this machine's repos or clusters, no progress is
//! written, and nothing waits (a bundle is one moment).

use std::path::Path;
use std::sync::Arc;

use super::{Bundle, BundleError, replay_tape};
use crate::probe::cluster::ClusterOptions;
use crate::probe::files::PathShower;
use crate::probe::tape::Mode;
use crate::run::{Asked, Session, WaitPolicy};
use crate::snapshot::Snapshot;

/// The session that replays `file`: `asked`'s course, module, and step, track and Argo CD
/// namespace where given (else the bundle's own), and `log_reads` (`-v`); everything else the
/// bundle's (the learner's work dir and home for the paths shown, its answers, its cluster part).
/// A bundle of another module or format is refused with the reason.
pub fn replay(file: &Path, asked: Asked, log_reads: bool) -> Result<Session, BundleError> {
    let bundle = Bundle::load(file)?;
    let (about, tape, cluster) = replay_tape(&bundle, file, &asked.module)?;
    // A bundle whose cluster could not be read holds the reads' errors; an empty snapshot stands
    // behind them (nothing was ever answered from it).
    let served = Arc::new(cluster.unwrap_or_else(Snapshot::new));
    Ok(Session {
        asked: Asked {
            step: asked.step.or(about.step),
            track: asked.track.or(Some(about.track)),
            argocd_namespace: asked.argocd_namespace.or(about.argocd_namespace),
            policy: WaitPolicy::Never,
            paths: PathShower::new(about.home),
            ..asked
        },
        work_dir: about.work_dir,
        cluster: ClusterOptions {
            served: Some((served, format!("bundle {}", file.display()))),
            ..ClusterOptions::default()
        },
        log_reads,
        remember: false,
        tape: Mode::Replay(Arc::new(tape)),
    })
}
