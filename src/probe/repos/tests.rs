//! Recording and replaying a real work repo (module 10's lab after step 5: step 4's commit and its
//! `git revert`, pushed): every question a check asks gets the same answer from the tape as from
//! the repo, with no repo at all, and a question the tape lacks is a noted miss.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::Glob;
use regex::Regex;

use super::{ContentTest, Repos};
use crate::probe::files::{FileError, PathShower};
use crate::probe::git::GitProbeError;
use crate::probe::tape::{Mode, Tape, noting_misses_sync};

/// "The file says `fail: true`", as a `made:` change would test it.
struct SaysFailTrue;

impl ContentTest for SaysFailTrue {
    fn holds(&self, content: Option<&[u8]>) -> bool {
        content.is_some_and(|c| String::from_utf8_lossy(c).contains("fail: true"))
    }

    fn key(&self) -> String {
        "says fail: true".to_string()
    }
}

/// An answer as text: the value, or the error as the learner would read it.
fn shown<T: std::fmt::Debug, E: std::fmt::Display>(answer: &Result<T, E>) -> String {
    match answer {
        Ok(value) => format!("{value:?}"),
        Err(e) => format!("error: {e}"),
    }
}

/// Every answer to the questions the checks ask of checkout-config, as text (errors included).
fn ask_everything(repos: &Repos, dir: &Path) -> Vec<String> {
    let shower = PathShower::new(None);
    let mut answers = Vec::new();
    let snapshot = repos.snapshot(dir);
    answers.push(shown(&snapshot.as_ref().map(|s| (&s.path, &s.head))));
    let head = snapshot
        .ok()
        .and_then(|s| s.head)
        .map(|h| h.sha)
        .unwrap_or_default();
    let reader = match repos.open(dir) {
        Ok(reader) => reader,
        Err(e) => {
            answers.push(e.to_string());
            return answers;
        }
    };
    let pattern = Regex::new("(?i)revert").unwrap_or_else(|e| panic!("{e}"));
    let matching = reader.newest_matching(&head, &pattern);
    answers.push(shown(&matching));
    let made = reader.newest_change(&head, "helm/dev.yaml", &SaysFailTrue);
    answers.push(shown(&made));
    let made = made.ok().flatten().map(|c| c.sha).unwrap_or_default();
    answers.push(shown(&reader.tip_touches(&head, "helm/dev.yaml")));
    answers.push(shown(&reader.commits_touching(&head, None, "helm/")));
    answers.push(shown(&reader.commits_after(&head, &made)));
    answers.push(shown(&reader.parent(&made)));
    answers.push(shown(&reader.revert_finding(&head, &made)));
    answers.push(shown(&reader.read_blob(&head, "helm/dev.yaml")));
    answers.push(shown(&reader.read_blob(&head, "no/such.yaml")));
    answers.push(shown(&reader.parent("not-a-sha")));
    answers.push(shown(&repos.read_file(dir, "helm/dev.yaml", &shower)));
    answers.push(shown(&repos.read_file(dir, "helm/missing.yaml", &shower)));
    let glob = Glob::new("helm/*.yaml")
        .unwrap_or_else(|e| panic!("{e}"))
        .compile_matcher();
    answers.push(shown(&repos.glob(dir, &glob, &shower)));
    answers.push(shown(&repos.manifests(dir, "helm", &shower)));
    answers
}

fn lab() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let world = crate::lab::cache::at(&dir.path().join("lab"), "module-10", "step-5")
        .unwrap_or_else(|e| panic!("{e}"));
    let work = world.work_dir();
    (dir, work)
}

#[tokio::test]
async fn a_replay_answers_every_question_as_the_repo_did_without_the_repo() {
    let (dir, work) = lab();
    let repo = work.join("checkout-config");
    let tape = Arc::new(Tape::default());
    let recording = Repos::new(Mode::Record(tape.clone()), work.clone());
    let live = ask_everything(&recording, &repo);
    let origin = recording.origin_view(&repo, "0000000000000000000000000000000000000000");
    let live_origin = shown(&origin.await);
    // Through JSON, as a bundle carries it, and with the lab gone.
    let json = serde_json::to_string(&tape.areas()).unwrap_or_else(|e| panic!("{e}"));
    drop(dir);
    assert!(!repo.exists());
    let areas = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    let replaying = Repos::new(Mode::Replay(Arc::new(Tape::from_areas(areas))), work);
    let (replayed, misses) = noting_misses_sync(|| ask_everything(&replaying, &repo));
    assert_eq!(replayed, live);
    assert!(misses.is_empty(), "{misses:?}");
    let origin = replaying.origin_view(&repo, "0000000000000000000000000000000000000000");
    assert_eq!(shown(&origin.await), live_origin);
    // The answers were worth replaying: the change, its revert, a file and an error among them.
    let all = live.join("\n");
    for wanted in [
        "Reverts",
        "broken migration",
        "does not exist",
        "helm/dev.yaml",
    ] {
        assert!(all.contains(wanted), "{wanted} in {all}");
    }
}

#[test]
fn a_question_the_tape_does_not_hold_is_a_noted_miss_never_an_answer() {
    let work = PathBuf::from("/nowhere/work");
    let repo = work.join("checkout-config");
    let replaying = Repos::new(Mode::Replay(Arc::new(Tape::default())), work);
    let shower = PathShower::new(None);
    let ((state, file), misses) = noting_misses_sync(|| {
        (
            replaying.snapshot(&repo),
            replaying.read_file(&repo, "helm/dev.yaml", &shower),
        )
    });
    assert!(
        matches!(state, Err(GitProbeError::NotInBundle { .. })),
        "{state:?}"
    );
    assert!(
        matches!(file, Err(FileError::NotInBundle { .. })),
        "{file:?}"
    );
    assert_eq!(
        misses,
        vec![
            "checkout-config: snapshot".to_string(),
            "checkout-config: read_file \"helm/dev.yaml\"".to_string()
        ]
    );
}

#[test]
fn a_missing_repo_replays_as_missing_where_the_replay_looks() {
    let (dir, work) = lab();
    let gone = work.join("not-cloned");
    let tape = Arc::new(Tape::default());
    let recorded = Repos::new(Mode::Record(tape.clone()), work).snapshot(&gone);
    assert!(matches!(recorded, Err(GitProbeError::Missing { .. })));
    drop(dir);
    let elsewhere = PathBuf::from("/replay/work");
    let replayed =
        Repos::new(Mode::Replay(tape), elsewhere.clone()).snapshot(&elsewhere.join("not-cloned"));
    match replayed {
        Err(GitProbeError::Missing { path }) => assert_eq!(path, elsewhere.join("not-cloned")),
        other => panic!("{other:?}"),
    }
}
