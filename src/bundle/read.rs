//! Learners from bundles (`labcheck class serve … --bundles DIR`): each `NAME.tar.zst` in DIR is
//! learner NAME, shown with the verdicts their bundle's `report.json` records, read with the JSON
//! report's own types (`report::json::read`), and, on a click, the bundle's `report.txt` (their
//! terminal's words when they made it). Nothing in a bundle changes, so such a learner is read
//! once and never run again.

use std::path::{Path, PathBuf};

use super::{Bundle, BundleError};
use crate::class::{LearnerRun, Origin, Recorded};
use crate::outcome::Status;

/// Every `*.tar.zst` in `dir`, sorted by name, as a learner; a file that is not a bundle, or
/// whose report cannot be read, is an error naming it.
pub fn learners_in(dir: &Path) -> Result<Vec<Recorded>, BundleError> {
    let entries = std::fs::read_dir(dir).map_err(|source| BundleError::Folder {
        path: dir.display().to_string(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".tar.zst"))
        .collect();
    files.sort();
    files.iter().map(|f| learner(f)).collect()
}

/// One bundle as a learner.
fn learner(file: &Path) -> Result<Recorded, BundleError> {
    let bundle = Bundle::load(file)?;
    let refused = |reason: String| BundleError::Refused {
        path: file.display().to_string(),
        reason,
    };
    let learner = file
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".tar.zst").to_string())
        .unwrap_or_default();
    let json = bundle
        .get("report.json")
        .ok_or_else(|| refused("has no report.json".to_string()))?;
    let steps = crate::report::json::read(json)
        .map_err(|e| refused(format!("has a report.json this labcheck cannot read: {e}")))?;
    let report = bundle
        .get("report.txt")
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    Ok(Recorded {
        origin: Origin::Bundle {
            file: file.to_path_buf(),
            report,
        },
        run: LearnerRun {
            learner,
            work_dir: None,
            status: Status::fold(steps.iter().map(|s| s.status)),
            steps,
            own: Vec::new(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;
    use crate::run::{CheckReport, StepReport};

    /// A bundle file with `report.json` as `labcheck bundle` writes it (and a report.txt).
    fn bundle_with(dir: &Path, name: &str, json: Option<&str>) {
        let mut bundle = Bundle::default();
        bundle.add("bundle.json", "{}");
        bundle.add("report.txt", format!("{name}'s own words\n"));
        if let Some(json) = json {
            bundle.add("report.json", json);
        }
        std::fs::write(
            dir.join(format!("{name}.tar.zst")),
            bundle.to_tar_zst().expect("packed"),
        )
        .expect("written");
    }

    #[test]
    fn each_bundle_in_the_folder_is_a_learner_with_the_verdicts_and_words_it_recorded() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let step = StepReport::new(
            "module-10",
            "step-4",
            "Release",
            "kind",
            vec![CheckReport::new(
                "synced",
                "argocd_app",
                "Synced",
                Outcome::fail("OutOfSync"),
            )],
        );
        let json = crate::report::json::render(&[step], false);
        bundle_with(dir.path(), "zoe", Some(&json));
        bundle_with(dir.path(), "ana", Some(&json));
        std::fs::write(dir.path().join("notes.txt"), "not a bundle").expect("a file");
        let learners = learners_in(dir.path()).expect("two bundles");
        let names: Vec<&str> = learners.iter().map(|l| l.run.learner.as_str()).collect();
        assert_eq!(names, ["ana", "zoe"], "sorted, only *.tar.zst");
        let ana = &learners[0];
        assert_eq!(ana.run.status, Status::Fail);
        assert_eq!(ana.run.steps[0].checks[0].kind, "argocd_app");
        assert!(
            matches!(&ana.origin, Origin::Bundle { report, .. } if report == "ana's own words\n"),
            "{:?}",
            ana.origin
        );
    }

    #[test]
    fn a_folder_or_bundle_that_cannot_be_read_is_refused_naming_it() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let missing = dir.path().join("no-such-folder");
        let cases: [(&Path, &str); 3] = [
            (&missing, "cannot read --bundles"),
            (dir.path(), "has no report.json"),
            (dir.path(), "cannot read"),
        ];
        for (i, (folder, words)) in cases.into_iter().enumerate() {
            // Each case adds its broken bundle to the folder of the ones before it.
            match i {
                1 => bundle_with(dir.path(), "bob", None),
                2 => {
                    std::fs::remove_file(dir.path().join("bob.tar.zst")).expect("removed");
                    bundle_with(dir.path(), "bob", Some("{\"module\": 3}"));
                }
                _ => {}
            }
            let message = match learners_in(folder) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("case {i}: read"),
            };
            assert!(message.contains(words), "case {i}: {message}");
            if i > 0 {
                assert!(message.contains("bob.tar.zst"), "case {i}: {message}");
            }
        }
    }
}
