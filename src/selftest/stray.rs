//! Every step's solved state again, in a clone kept as learners keep theirs: a `.env` with a
//! password, an editor's swap and backup files beside the step's files, `.DS_Store`, a scratch
//! note and folder, a file the clone ignores. Git tracks none of them and the step names none,
//! so the step must still pass; no hint may add everything, the password must appear nowhere in
//! the report, and a `clean` check must say the `.env` stays out of git.

use std::collections::BTreeSet;

use crate::checks::CheckKind;
use crate::checks::git::stray::adds_everything;
use crate::course::Step;
use crate::course::fixtures::ResolvedChange;
use crate::outcome::{HintPart, Status};
use crate::run::StepReport;

/// The password planted in the `.env`; a report that holds it has leaked a secret.
pub(crate) const PLANTED_PASSWORD: &str = "labcheck-planted-Pa55w0rd";

/// The stray files to plant in every work repo the step reads (written, never added).
pub(crate) fn plant(step: &Step) -> Vec<ResolvedChange> {
    let mut repos = BTreeSet::new();
    let mut step_files: Vec<(String, String)> = Vec::new();
    for check in &step.checks {
        repos.extend(check.kind.repos().into_iter().map(str::to_string));
        if let CheckKind::Git(git) = &check.kind {
            for path in &git.step_paths {
                step_files.push((git.repo.clone(), path.clone()));
            }
        }
    }
    let mut changes = Vec::new();
    let mut write = |repo: &str, path: String, text: &str| {
        changes.push(ResolvedChange::Write {
            repo: repo.to_string(),
            path,
            text: text.to_string(),
        })
    };
    for repo in &repos {
        write(
            repo,
            ".env".into(),
            &format!("DB_PASSWORD={PLANTED_PASSWORD}\n"),
        );
        write(repo, ".DS_Store".into(), "\0\0\0\u{1}Bud1\n");
        write(repo, "notes.txt".into(), "ask about waves\n");
        write(repo, "scratch/try.yaml".into(), "tag: 6.7.9\n");
        // Ignored by this clone only (`.git/info/exclude`), as a learner's own ignore rules are.
        write(repo, ".git/info/exclude".into(), "*.log\n");
        write(repo, "debug.log".into(), "sync log\n");
    }
    for (repo, path) in step_files.iter().filter(|(_, p)| !p.ends_with('/')) {
        let (dir, name) = match path.rsplit_once('/') {
            Some((dir, name)) => (format!("{dir}/"), name),
            None => (String::new(), path.as_str()),
        };
        write(repo, format!("{dir}.{name}.swp"), "b0VIM 9.0\n");
        write(repo, format!("{path}~"), "# an editor's backup\n");
    }
    changes
}

/// What the stray files made the step get wrong, beyond the solved state's own judgement.
pub(crate) fn problems(step: &Step, report: &StepReport) -> Vec<String> {
    let mut problems = Vec::new();
    if serde_json::to_string(report).is_ok_and(|json| json.contains(PLANTED_PASSWORD)) {
        problems.push("the report holds the password planted in an untracked .env".to_string());
    }
    for check in &report.checks {
        let outcome = &check.outcome;
        if let Some(pattern) = outcome
            .hints
            .iter()
            .flat_map(HintPart::texts)
            .find_map(adds_everything)
        {
            problems.push(format!(
                "`{}`'s hint adds everything (`{pattern}`): it would commit the learner's .env",
                check.id
            ));
        }
        let says_clean = step.checks.iter().any(|spec| {
            spec.id == check.id && matches!(&spec.kind, CheckKind::Git(git) if git.clean)
        });
        if says_clean
            && outcome.status == Status::Pass
            && !outcome.note.as_deref().is_some_and(|n| n.contains(".env"))
        {
            problems.push(format!(
                "`{}` passes without a note that .env stays out of git",
                check.id
            ));
        }
    }
    problems
}
