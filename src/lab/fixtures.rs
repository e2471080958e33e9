//! Module 10's course-test fixtures, generated from the lab worlds and cluster states in Rust.
//! They were written once into `modules/module-10/fixtures/` and are data from then on: `labcheck
//! course test` reads only the files. A test compares these with the files so the two cannot
//! drift; `LABCHECK_WRITE_FIXTURES=1` makes that test rewrite them.

use std::path::Path;

use super::cluster::{self, Revisions};
use super::content;
use super::world::{CoursePoint, LabError, LabWorld, REPOS, fresh_files};
use crate::snapshot::Snapshot;

/// A generated file: its path under `fixtures/` and its text.
pub type Generated = (String, String);

/// What makes one cluster snapshot: the point whose pushed revisions it names, and the state.
struct SnapshotRecipe {
    file: &'static str,
    point: CoursePoint,
    state: fn(CoursePoint, &Revisions) -> Snapshot,
}

fn solved(point: CoursePoint, revs: &Revisions) -> Snapshot {
    cluster::solved(point, revs)
}

fn not_seen_yet(point: CoursePoint, revs: &Revisions) -> Snapshot {
    cluster::not_seen_yet(point, revs)
}

const SNAPSHOTS: &[SnapshotRecipe] = &[
    SnapshotRecipe {
        file: "cluster/fresh-solved.yaml",
        point: CoursePoint::Fresh,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/step-1-solved.yaml",
        point: CoursePoint::Step1,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/step-2-solved.yaml",
        point: CoursePoint::Step2,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/step-2-not-seen-yet.yaml",
        point: CoursePoint::Step2,
        state: not_seen_yet,
    },
    SnapshotRecipe {
        file: "cluster/step-2-hooks-never-synced.yaml",
        point: CoursePoint::Step2,
        state: |_, r| cluster::hooks_never_synced(r),
    },
    SnapshotRecipe {
        file: "cluster/step-3-solved.yaml",
        point: CoursePoint::Step3,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/step-4-solved.yaml",
        point: CoursePoint::Step4,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/step-4-not-seen-yet.yaml",
        point: CoursePoint::Step4,
        state: not_seen_yet,
    },
    SnapshotRecipe {
        file: "cluster/step-4-seen-not-synced.yaml",
        point: CoursePoint::Step4,
        state: |_, r| cluster::seen_not_synced(r),
    },
    SnapshotRecipe {
        file: "cluster/step-4-sync-running.yaml",
        point: CoursePoint::Step4,
        state: |_, r| cluster::sync_running(r),
    },
    SnapshotRecipe {
        file: "cluster/step-5-solved.yaml",
        point: CoursePoint::Step5,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/step-5-not-seen-yet.yaml",
        point: CoursePoint::Step5,
        state: not_seen_yet,
    },
    SnapshotRecipe {
        file: "cluster/step-5-config-missing.yaml",
        point: CoursePoint::Step5,
        state: |_, r| cluster::config_missing(r),
    },
    SnapshotRecipe {
        file: "cluster/break-it-solved.yaml",
        point: CoursePoint::BreakIt,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/break-it-not-seen-yet.yaml",
        point: CoursePoint::BreakIt,
        state: not_seen_yet,
    },
    SnapshotRecipe {
        file: "cluster/break-it-syncfail-never-ran.yaml",
        point: CoursePoint::BreakIt,
        state: |_, r| cluster::postsync_failed(r, false),
    },
    SnapshotRecipe {
        file: "cluster/break-it-fixed-solved.yaml",
        point: CoursePoint::BreakItFixed,
        state: solved,
    },
    SnapshotRecipe {
        file: "cluster/break-it-fixed-not-seen-yet.yaml",
        point: CoursePoint::BreakItFixed,
        state: not_seen_yet,
    },
];

/// Every generated fixture file of module 10: the initial repos, the texts the steps write,
/// and the cluster snapshots with revisions turned into placeholders. Builds lab worlds (real
/// git) in folders under `scratch`.
pub fn module_10(scratch: &Path) -> Result<Vec<Generated>, LabError> {
    let mut out = Vec::new();
    for repo in REPOS {
        for (rel, text) in fresh_files(repo) {
            out.push((format!("repos/{repo}/{rel}"), text));
        }
    }
    let typo = content::platform_values_solved().replacen(
        "hs.status = obj.status.health.status",
        "hs.status = obj.status.health",
        1,
    );
    out.extend([
        (
            "files/platform-values-step-1.yaml".to_string(),
            content::platform_values_solved(),
        ),
        ("files/platform-values-typo.yaml".to_string(), typo),
        (
            "files/dev-step-2.yaml".to_string(),
            content::checkout_dev_hooks_on(),
        ),
        (
            "files/dev-step-4.yaml".to_string(),
            content::checkout_dev_broken_migration(),
        ),
        (
            "files/dev-break-it.yaml".to_string(),
            content::checkout_dev_smoke_test_503(),
        ),
    ]);
    for (i, recipe) in SNAPSHOTS.iter().enumerate() {
        let world = LabWorld::at(&scratch.join(format!("world-{i}")), recipe.point)?;
        let revs = Revisions::of_world(&world)?;
        let snapshot = (recipe.state)(recipe.point, &revs);
        let yaml = snapshot.to_yaml().map_err(|e| LabError::Io {
            path: scratch.join(recipe.file),
            source: std::io::Error::other(e.to_string()),
        })?;
        out.push((recipe.file.to_string(), with_placeholders(&yaml, &revs)));
    }
    Ok(out)
}

/// Revisions of the world become the placeholders a fixture world fills in again.
fn with_placeholders(yaml: &str, revs: &Revisions) -> String {
    let mut text = yaml.replace(&revs.checkout, "${pushed:checkout-config}");
    if revs.checkout_before != revs.checkout {
        text = text.replace(&revs.checkout_before, "${previous:checkout-config}");
    }
    text.replace(&revs.platform, "${pushed:argocd-platform}")
}
