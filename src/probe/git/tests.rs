//! Reading real repositories built by the lab driver (real commits, pushes, `git revert`).

use std::path::{Path, PathBuf};

use git2::{ErrorClass, ErrorCode};
use regex::Regex;

use super::*;
use crate::lab::world::{LabRepo, LabWorld};
use std::process::Command;

fn world(point: &str) -> (tempfile::TempDir, LabWorld) {
    let dir = tempfile::tempdir().unwrap();
    let world = crate::lab::cache::at(&dir.path().join("lab"), "module-10", point).unwrap();
    (dir, world)
}

/// The checkout-config repo of the lab at `point`, open for history questions, and the tip
/// the learner pushed (its upstream).
fn pushed_history(point: &str) -> (tempfile::TempDir, RepoReader, String) {
    let (dir, world) = world(point);
    let repo = world.repo("checkout-config").unwrap();
    let reader = RepoReader::open(repo.path()).unwrap();
    let tip = repo.upstream_sha().unwrap();
    (dir, reader, tip)
}

fn snapshot(repo: &LabRepo) -> RepoSnapshot {
    read_repo(repo.path()).unwrap()
}

#[test]
fn a_fresh_clone_is_on_main_clean_and_level_with_origin() {
    let (_dir, world) = world("fresh");
    let repo = world.repo("checkout-config").unwrap();
    let snap = snapshot(&repo);
    assert_eq!(snap.branch.as_deref(), Some("main"));
    assert_eq!(
        snap.head.as_ref().map(|h| h.sha.clone()),
        Some(repo.head_sha().unwrap())
    );
    let upstream = snap.upstream.unwrap();
    assert_eq!(
        (upstream.name.as_str(), upstream.ahead, upstream.behind),
        ("origin/main", 0, 0)
    );
    assert!(snap.dirty.is_empty(), "{:?}", snap.dirty);
    assert_eq!(snap.operation, None);
}

#[test]
fn committed_but_not_pushed_is_one_ahead() {
    let (_dir, world) = world("step-2");
    let repo = world.repo("checkout-config").unwrap();
    repo.write("helm/dev.yaml", "image:\n  tag: \"6.7.0\"\n")
        .unwrap();
    repo.commit_written("not pushed").unwrap();
    let upstream = snapshot(&repo).upstream.unwrap();
    assert_eq!((upstream.ahead, upstream.behind), (1, 0));
    assert_eq!(upstream.sha, repo.upstream_sha().unwrap());
}

#[test]
fn reset_behind_then_committed_again_has_diverged() {
    let (_dir, world) = world("step-4");
    let repo = world.repo("checkout-config").unwrap();
    repo.git(&["reset", "--quiet", "--hard", "HEAD~1"]).unwrap();
    assert_eq!(
        snapshot(&repo).upstream.map(|u| (u.ahead, u.behind)),
        Some((0, 1))
    );
    repo.write("notes.txt", "mine\n").unwrap();
    repo.commit_written("local only").unwrap();
    assert_eq!(
        snapshot(&repo).upstream.map(|u| (u.ahead, u.behind)),
        Some((1, 1))
    );
}

#[test]
fn status_splits_changed_and_staged_paths_from_untracked_files_like_porcelain_uall() {
    let (_dir, world) = world("fresh");
    let repo = world.repo("argocd-platform").unwrap();
    repo.write("argocd/values.yaml", "changed: true\n").unwrap();
    repo.write("apps/new.yaml", "staged: true\n").unwrap();
    repo.git(&["add", "apps/new.yaml"]).unwrap();
    repo.write("scratch/a.txt", "untracked\n").unwrap();
    repo.write("scratch/b.txt", "untracked\n").unwrap();
    let porcelain: Vec<String> = repo
        .git(&["status", "--porcelain", "--untracked-files=all"])
        .unwrap()
        .lines()
        .map(|l| l[3..].to_string())
        .collect();
    let mut expected = porcelain.clone();
    expected.sort();
    let snap = snapshot(&repo);
    let mut both = [snap.dirty.clone(), snap.untracked.clone()].concat();
    both.sort();
    assert_eq!(both, expected);
    assert_eq!(snap.dirty, ["apps/new.yaml", "argocd/values.yaml"]);
    assert_eq!(snap.untracked, ["scratch/a.txt", "scratch/b.txt"]);
    assert!(snap.conflicted.is_empty());
}

#[test]
fn detached_head_has_no_branch_and_a_fresh_repo_no_head() {
    let (dir, world) = world("step-2");
    let repo = world.repo("checkout-config").unwrap();
    repo.git(&["switch", "--quiet", "--detach", "HEAD~1"])
        .unwrap();
    let snap = snapshot(&repo);
    assert_eq!(snap.branch, None);
    assert!(snap.head.is_some());

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let init = Command::new("git")
        .args(["-c", "init.defaultBranch=main", "init", "--quiet"])
        .current_dir(&empty)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(init.success());
    let snap = read_repo(&empty).unwrap();
    assert_eq!(
        (snap.branch.as_deref(), snap.head, snap.upstream),
        (Some("main"), None, None)
    );
}

#[test]
fn a_revert_left_half_done_is_reported_as_an_operation() {
    let (_dir, world) = world("step-4");
    let repo = world.repo("checkout-config").unwrap();
    repo.git(&["revert", "--no-commit", "HEAD"]).unwrap();
    assert_eq!(snapshot(&repo).operation.as_deref(), Some("revert"));
}

#[test]
fn a_repo_owned_by_another_user_gets_the_safe_directory_fix() {
    let error = GitProbeError::classify(
        Path::new("/srv/class/ana work"),
        git2::Error::new(
            ErrorCode::Owner,
            ErrorClass::Config,
            "repository path '/srv/class/ana work' is not owned by current user",
        ),
    );
    assert!(matches!(error, GitProbeError::NotOwned { .. }), "{error:?}");
    assert_eq!(
        error.fix("/srv/class/ana work").as_deref(),
        Some(
            "if you trust it, mark it safe: `git config --global --add safe.directory '/srv/class/ana work'` (or work in a clone you own)"
        )
    );
}

/// Where the tests may change a file's owner (as root in CI containers), a real repo owned
/// by another user is refused by libgit2 the way git refuses it.
#[test]
fn a_real_repo_owned_by_another_user_is_not_owned() {
    let (_dir, world) = world("fresh");
    let repo = world.repo("checkout-config").unwrap();
    let chowned = Command::new("chown")
        .args(["-R", "4242:4242"])
        .arg(repo.path())
        .status()
        .is_ok_and(|s| s.success());
    let result = read_repo(repo.path());
    if chowned {
        assert!(
            matches!(result, Err(GitProbeError::NotOwned { .. })),
            "{result:?}"
        );
    } else {
        // Not allowed to give it away: then it is ours, and reads.
        assert!(result.is_ok(), "{result:?}");
    }
}

#[test]
fn missing_and_plain_folders_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    assert!(matches!(
        read_repo(&missing),
        Err(GitProbeError::Missing { .. })
    ));
    assert!(matches!(
        read_repo(dir.path()),
        Err(GitProbeError::NotARepo { .. })
    ));
}

#[test]
fn git_revert_of_the_step_4_commit_is_detected_as_a_revert() {
    let (_dir, world) = world("step-5");
    let reader = RepoReader::open(world.repo("checkout-config").unwrap().path()).unwrap();
    let head = reader.snapshot().unwrap().head.unwrap();
    // HEAD's own message ("Revert \"checkout: 6.7.0 …\"") matches too: search below it.
    let parent = reader.history(&head.sha, 2).unwrap()[1].sha.clone();
    let target = reader
        .newest_matching(&parent, &Regex::new("6\\.7\\.0 with a broken").unwrap())
        .unwrap()
        .unwrap();
    assert_ne!(target.sha, head.sha);
    assert_eq!(
        reader.revert_finding(&head.sha, &target.sha).unwrap(),
        RevertFinding::Reverts
    );
}

#[test]
fn a_revert_message_without_the_change_is_not_a_revert() {
    let (_dir, world) = world("step-4");
    let repo = world.repo("checkout-config").unwrap();
    let target = repo.head_sha().unwrap();
    repo.write("notes.txt", "reverted, honest\n").unwrap();
    repo.commit_written(&format!(
        "Revert \"checkout: 6.7.0 with a broken migration\"\n\nThis reverts commit {target}."
    ))
    .unwrap();
    let reader = RepoReader::open(repo.path()).unwrap();
    let finding = reader
        .revert_finding(&repo.head_sha().unwrap(), &target)
        .unwrap();
    assert_eq!(
        finding,
        RevertFinding::MessageOnly {
            differing: vec!["helm/dev.yaml".to_string(), "notes.txt".to_string()]
        }
    );
}

#[test]
fn undoing_by_hand_restores_the_files_but_is_not_a_revert_commit() {
    let (_dir, world) = world("step-4");
    let repo = world.repo("checkout-config").unwrap();
    let target = repo.head_sha().unwrap();
    repo.write(
        "helm/dev.yaml",
        &crate::lab::cache::file_at("module-10", "step-2", "checkout-config", "helm/dev.yaml")
            .unwrap(),
    )
    .unwrap();
    repo.commit_written("back to 6.7.1").unwrap();
    let reader = RepoReader::open(repo.path()).unwrap();
    assert_eq!(
        reader
            .revert_finding(&repo.head_sha().unwrap(), &target)
            .unwrap(),
        RevertFinding::ChangesOnly
    );
}

#[test]
fn commits_touching_a_path_stop_at_the_since_commit() {
    let (_dir, reader, tip) = pushed_history("step-4");
    let since = reader
        .newest_matching(
            &tip,
            &Regex::new("^checkout: migration and smoke test").unwrap(),
        )
        .unwrap()
        .unwrap();
    let touching = reader
        .commits_touching(&tip, Some(&since.sha), "helm/dev.yaml")
        .unwrap();
    let summaries: Vec<&str> = touching.iter().map(|c| c.summary.as_str()).collect();
    assert_eq!(summaries, ["checkout: 6.7.0 with a broken migration"]);
    assert!(
        reader
            .commits_touching(&tip, Some(&since.sha), "helm/prod.yaml")
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        reader.read_blob(&tip, "helm/dev.yaml").unwrap(),
        Some(
            crate::lab::cache::file_at("module-10", "step-4", "checkout-config", "helm/dev.yaml")
                .unwrap()
                .into_bytes()
        )
    );
    assert_eq!(reader.read_blob(&tip, "helm/none.yaml").unwrap(), None);
}

#[test]
fn the_same_course_point_always_has_the_same_shas() {
    // One world copied from this process's built worlds, one built from scratch.
    let (_a, one) = world("step-5");
    let scratch = tempfile::tempdir().unwrap();
    let two = LabWorld::at(&scratch.path().join("lab"), "module-10", "step-5").unwrap();
    let names: Vec<&str> = one.repo_names().collect();
    assert_eq!(names.len(), 3, "{names:?}");
    for name in names {
        assert_eq!(
            one.repo(name).unwrap().head_sha().unwrap(),
            two.repo(name).unwrap().head_sha().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn reading_a_dirty_repo_leaves_its_git_folder_byte_identical() {
    let (_dir, world) = world("step-2");
    let repo = world.repo("checkout-config").unwrap();
    // Same content, new mtime: the index entry is stat-dirty, which tempts a refresh.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    repo.write(
        "helm/dev.yaml",
        &crate::lab::cache::file_at("module-10", "step-2", "checkout-config", "helm/dev.yaml")
            .unwrap(),
    )
    .unwrap();
    repo.write("untracked.txt", "x\n").unwrap();
    let before = tree_bytes(&repo.path().join(".git"));
    let snap = snapshot(&repo);
    assert_eq!(snap.untracked, ["untracked.txt"]);
    assert!(snap.dirty.is_empty(), "{:?}", snap.dirty);
    assert_eq!(tree_bytes(&repo.path().join(".git")), before);
}

fn tree_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_log_the_touching_commits_and_what_came_after_are_one_walk_of_the_same_history() {
    // Step 5's lab: the learner committed, pushed, broke the release and reverted it.
    let (_dir, reader, tip) = pushed_history("step-5");
    let log = reader.log_with_paths(&tip, usize::MAX).unwrap();
    let history = reader.history(&tip, usize::MAX).unwrap();
    let shas = |commits: &[CommitInfo]| commits.iter().map(|c| c.sha.clone()).collect::<Vec<_>>();
    assert!(log.len() > 2, "{log:?}");
    assert_eq!(
        log.iter().map(|c| c.sha.clone()).collect::<Vec<_>>(),
        shas(&history)
    );
    for (n, since) in history.iter().enumerate() {
        let after = reader.commits_after(&tip, &since.sha).unwrap();
        assert_eq!(shas(&after), shas(&history[..n]), "after {}", since.summary);
    }
    for path in [
        "helm/dev.yaml",
        "helm/prod.yaml",
        "helm/",
        "nothing/here.yaml",
    ] {
        let touching = reader.commits_touching(&tip, None, path).unwrap();
        let logged: Vec<String> = log
            .iter()
            .filter(|c| c.changed.iter().any(|p| p.starts_with(path)))
            .map(|c| c.sha.clone())
            .collect();
        assert_eq!(shas(&touching), logged, "{path}");
    }
    // The newest commit that made dev.yaml what it is now is the newest that touched it.
    let now = reader.read_blob(&tip, "helm/dev.yaml").unwrap();
    let made = reader
        .newest_change(&tip, "helm/dev.yaml", &|c| c.map(<[u8]>::to_vec) == now)
        .unwrap()
        .map(|c| c.sha);
    let newest_touch = reader
        .commits_touching(&tip, None, "helm/dev.yaml")
        .unwrap()
        .first()
        .map(|c| c.sha.clone());
    assert_eq!(made, newest_touch);
}

#[test]
fn a_shallow_clone_is_said_to_be_shallow_by_every_walk_that_needs_the_cut_off_part() {
    let (dir, world) = world("step-5");
    let repo = world.repo("checkout-config").unwrap();
    let shallow = dir.path().join("shallow");
    // `--depth` over a plain path is ignored: git clones shallow only over a URL.
    // The lab's remotes are paths relative to the clone (a copied world keeps working).
    let origin = repo.git(&["remote", "get-url", "origin"]).unwrap();
    let origin = world
        .work_dir()
        .join("checkout-config")
        .join(origin.trim().trim_start_matches("file://"))
        .canonicalize()
        .unwrap();
    let origin = format!("file://{}", origin.display());
    let status = Command::new("git")
        .args(["clone", "--quiet", "--depth", "1", &origin])
        .arg(&shallow)
        .status()
        .unwrap();
    assert!(status.success());
    let reader = RepoReader::open(&shallow).unwrap();
    let tip = reader.snapshot().unwrap().head.unwrap().sha;
    let shallow_error = |e: GitProbeError| matches!(e, GitProbeError::Shallow { .. });
    assert!(
        reader
            .commits_touching(&tip, None, "helm/dev.yaml")
            .is_err_and(shallow_error)
    );
    assert!(
        reader
            .newest_change(&tip, "helm/dev.yaml", &|c| c.is_none())
            .is_err_and(shallow_error)
    );
    assert!(
        reader
            .newest_matching(&tip, &Regex::new("^no such message$").unwrap())
            .is_err_and(shallow_error)
    );
    // The log only reads what is there: the one commit the clone holds.
    assert_eq!(reader.log_with_paths(&tip, 10).unwrap().len(), 1);
    assert_eq!(reader.history(&tip, 10).unwrap().len(), 1);
}
