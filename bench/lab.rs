//! `bench-lab DIR [WAIT_SECS]`: the lab worlds and served cluster snapshots the benchmark runs on.
//!
//! For each measured point of module 10 (step-2, step-4, break-it) it builds
//! `DIR/<point>/work/…` (real git repos, as `labcheck demo --keep` does) and `DIR/<point>.yaml`
//! (the solved cluster at that point). It also writes `DIR/wait.yaml`: step 4's cluster with its
//! sync still running, turning into the solved state after WAIT_SECS (default 10), to measure the
//! load `--wait` puts on the server while it waits.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use labcheck::lab::cluster::{self, Revisions};
use labcheck::lab::world::{CoursePoint, LabWorld};
use labcheck::snapshot::Snapshot;

const POINTS: [CoursePoint; 3] = [CoursePoint::Step2, CoursePoint::Step4, CoursePoint::BreakIt];

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: bench-lab DIR [WAIT_SECS]");
        return ExitCode::from(2);
    };
    let wait_secs = match args.next().map(|s| s.parse::<u64>()) {
        None => 10,
        Some(Ok(secs)) => secs,
        Some(Err(e)) => {
            eprintln!("bench-lab: WAIT_SECS must be a whole number of seconds: {e}");
            return ExitCode::from(2);
        }
    };
    match build(&dir, Duration::from_secs(wait_secs)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-lab: {e}");
            ExitCode::FAILURE
        }
    }
}

fn build(dir: &Path, wait: Duration) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    for point in POINTS {
        let world = LabWorld::at(&dir.join(point.as_str()), point)
            .map_err(|e| format!("cannot build the lab at {point}: {e}"))?;
        let revs = Revisions::of_world(&world).map_err(|e| format!("{point}: {e}"))?;
        let state = |name: &str| cluster::state(name, &revs).map_err(|e| format!("{point}: {e}"));
        let solved = state(&format!("{point}-solved"))?;
        write(&dir.join(format!("{point}.yaml")), &solved)?;
        if point == CoursePoint::Step4 {
            let waiting = cluster::then(state("step-4-sync-running")?, wait, solved);
            write(&dir.join("wait.yaml"), &waiting)?;
        }
    }
    Ok(())
}

fn write(path: &Path, snapshot: &Snapshot) -> Result<(), String> {
    let text = snapshot
        .to_yaml()
        .map_err(|e| format!("cannot render {}: {e}", path.display()))?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
