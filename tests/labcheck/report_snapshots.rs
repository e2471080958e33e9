//! The reports as a reviewer sees them: the human, JSON, YAML, JUnit, TAP 13 and TAP 14 documents of a few
//! representative states of the course's fixtures (done, not pushed, could not check), for a
//! learner here and for a class in `fleet.rs`. Temp paths, SHAs, timestamps and durations are
//! filtered, so a snapshot changes only when what labcheck says changes.

use std::path::Path;

use crate::harness::MODULE;
use labcheck::lab::cluster::{self, Revisions};
use labcheck::lab::fixtures;
use labcheck::lab::world::LabWorld;
use labcheck::snapshot::Snapshot;

use crate::harness::Labcheck;

/// Every report format a run can print, as `-o` takes it: a format added to `report::Format` is
/// snapshotted here (and for a class in `fleet.rs`) without another edit.
pub fn formats() -> impl Iterator<Item = &'static str> {
    labcheck::report::Format::all().iter().map(|f| f.name())
}

/// `text` with the generated part of each hook pod's name as `[POD]`: the recorded fixtures
/// get the names the Job controller gave at each re-recording.
pub fn without_pod_names(text: &str) -> String {
    let pods = regex::Regex::new(r"\b(checkout-[a-z]+(?:-[a-z]+)*)-[a-z0-9]{5}\b")
        .unwrap_or_else(|e| panic!("{e}"));
    pods.replace_all(text, "$1-[POD]").into_owned()
}

/// Snapshot `text` as `name`, with `root` (the test's temp dir) and everything that differs from
/// run to run or with the fixtures' SHAs filtered out.
pub fn assert_report_snapshot(name: &str, text: &str, root: &Path) {
    let mut text = text.to_string();
    // A temp dir may be reached through a symlink (macOS /var → /private/var): both spellings.
    for spelling in [root.to_path_buf(), root.canonicalize().unwrap_or_default()] {
        let shown = spelling.display().to_string();
        if !shown.is_empty() {
            text = text.replace(&shown, "[ROOT]");
        }
    }
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\b[0-9a-f]{40}\b", "[SHA]");
    settings.add_filter(r"\b[0-9a-f]{7}\b", "[SHORT-SHA]");
    settings.add_filter(
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?",
        "[TIME]",
    );
    settings.add_filter(r#"time="[0-9.]+""#, r#"time="[DURATION]""#);
    settings.add_filter(r#""waited_s": [0-9.]+"#, r#""waited_s": "[DURATION]""#);
    settings.add_filter(r"duration_ms: \d+", "duration_ms: [DURATION]");
    settings.add_filter(r"waited_s: [0-9.]+", "waited_s: [DURATION]");
    let text = without_pod_names(&text);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// A learner's lab in one fixture state, its cluster written to a snapshot file.
struct Learner {
    dir: tempfile::TempDir,
    world: LabWorld,
}

impl Learner {
    /// The repos and cluster of `state` of `step` in the course's fixtures.
    fn in_state(step: &str, state: &str) -> Learner {
        let fixture = fixtures::state(MODULE, step, state).expect("a fixture state");
        let learner = Learner::world(step, state);
        let revs = Revisions::of_world(&learner.world).expect("pushed revisions");
        learner.serve(&cluster::of_state(fixture, &revs).expect("its cluster"));
        learner
    }

    /// The repos of `state` of `step`, the cluster `snapshot` (no cluster yet).
    fn world(step: &str, state: &str) -> Learner {
        let dir = tempfile::tempdir().expect("a temp dir");
        let world = labcheck::lab::cache::in_state(&dir.path().join("lab"), MODULE, step, state)
            .expect("the lab world");
        Learner { dir, world }
    }

    fn serve(&self, snapshot: &Snapshot) {
        let yaml = snapshot.to_yaml().expect("snapshot as YAML");
        std::fs::write(self.cluster(), yaml).expect("the cluster file");
    }

    fn cluster(&self) -> std::path::PathBuf {
        self.dir.path().join("cluster.yaml")
    }

    /// `labcheck module-10 STEP -o FORMAT` against the lab; (exit code, report).
    fn report(&self, step: &str, format: &str) -> (i32, String) {
        let run = Labcheck::new(self.dir.path())
            .args(["module-10", step, "--no-wait", "--format", format])
            .arg("--work-dir")
            .arg(self.world.work_dir())
            .arg("--snapshot")
            .arg(self.cluster())
            .run();
        (run.code, run.stdout)
    }

    /// Every format of `step`'s report snapshotted as `NAME_FORMAT`, each exiting `code`.
    fn assert_reports(&self, name: &str, step: &str, code: i32) {
        for format in formats() {
            let (got, report) = self.report(step, format);
            assert_eq!(got, code, "{format}: {report}");
            assert_report_snapshot(&format!("{name}_{format}"), &report, self.dir.path());
        }
    }
}

#[test]
fn step_4_done_as_the_course_says_in_every_format() {
    Learner::in_state("step-4", "solved").assert_reports("learner_step_4_done", "step-4", 0);
}

#[test]
fn step_2_committed_but_not_pushed_in_every_format() {
    Learner::in_state("step-2", "not-pushed").assert_reports(
        "learner_step_2_not_pushed",
        "step-2",
        1,
    );
}

#[test]
fn step_5_on_a_cluster_without_argo_cd_could_not_be_checked_in_every_format() {
    let learner = Learner::world("step-5", "solved");
    learner.serve(&cluster::argo_cd_missing("module-10").expect("a cluster without Argo CD"));
    learner.assert_reports("learner_step_5_no_argo_cd", "step-5", 3);
}
