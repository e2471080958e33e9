//! `labcheck MODULE [STEP] --bundle FILE`: replay a learner's bundle offline (the session is
//! `bundle::replay`'s: the learner's run answered from the bundle). This refuses flags naming
//! another source of answers and delivers the reports.

use std::path::Path;

use super::{RunArgs, exit_code};
use crate::bundle;
use crate::error::Error;
use crate::report::{self, Styles};

/// Replay `file` for `module` (and `step`, else the bundle's own step); returns the exit code.
pub async fn run(
    args: &RunArgs,
    module: &str,
    step: Option<&str>,
    file: &Path,
) -> Result<u8, Error> {
    refuse_other_sources(args)?;
    let styles = Styles::decide(args.color).quiet(args.quiet);
    let outputs = args.report.outputs()?;
    // A replay reads no work repo of this machine, so none is protected from a report file.
    let protected = report::deliver::Protected::default();
    outputs.check_destinations(&protected)?;
    let session = bundle::replay(file, args.asked(module, step), args.verbose)
        .map_err(|e| Error::Usage(e.to_string()))?;
    let started = std::time::Instant::now();
    let run = session.run(None, &|_| {}).await?;
    if args.verbose {
        eprint!(
            "{}",
            report::reads::render(&run.read, &run.reports, started.elapsed())
        );
    }
    report::deliver::deliver(&outputs, &protected, styles, |format, styles| {
        report::render(&run.reports, run.module_run, format, styles)
    })?;
    Ok(exit_code(run.verdict))
}

/// A replay answers from the bundle alone; a flag naming another source of answers (or a wait
/// for a cluster that cannot change) is a mistake worth saying.
fn refuse_other_sources(args: &RunArgs) -> Result<(), Error> {
    let cluster = &args.cluster;
    // `--work-dir` may come from $LABCHECK_WORK_DIR, which a replay simply does not use.
    let work_dir_given = args.setup.work_dir.as_ref().is_some_and(|dir| {
        std::env::var_os("LABCHECK_WORK_DIR").is_none_or(|env| env != dir.as_os_str())
    });
    let clash = [
        (
            cluster.snapshot.is_some(),
            "--snapshot",
            "the bundle's cluster part is the cluster a replay reads",
        ),
        (
            cluster.context.is_some() || cluster.kubeconfig.is_some(),
            "--context/--kubeconfig",
            "a replay reads no live cluster, only the bundle's cluster part",
        ),
        (
            work_dir_given,
            "--work-dir",
            "a replay reads the learner's repos as the bundle recorded them, not a work dir here",
        ),
        (
            args.wait.is_some(),
            "--wait",
            "a bundle is the learner's state at one moment, which waiting cannot change",
        ),
        (
            args.fleet.active(),
            "the class flags",
            "a bundle is one learner's run; `labcheck class serve … --bundles DIR` shows several",
        ),
    ];
    match clash.iter().find(|(given, _, _)| *given) {
        Some((_, flag, why)) => Err(Error::Usage(format!(
            "--bundle cannot be used with {flag}: {why}"
        ))),
        None => Ok(()),
    }
}
