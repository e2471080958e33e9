//! `labcheck plan --follow`: an app of apps, each child Application the sync applies planned in
//! its own folder of the same repository, with its own settings, as Argo CD syncs it.

use std::path::{Path, PathBuf};

use super::files::{remote_urls, shown_from_cwd};
use super::{chart_to_render, read_app_folder};
use crate::error::Error;
use crate::findings::Finding;
use crate::plan::{AppSettings, Followed, Plan, PlanOptions};

/// What judges a followed child's plan, if anything does: `labcheck plan --rules` hands the
/// rules' check down, since the rules stand above the plan.
pub type Judge<'a> = Option<&'a dyn Fn(&Plan) -> Vec<Finding>>;

/// How deep `--follow` goes (an app of apps of apps …).
const MAX_FOLLOW_DEPTH: usize = 5;

/// Every child's findings, children's children included.
pub fn child_findings(children: &[Followed]) -> Vec<&Finding> {
    let mut found = Vec::new();
    for child in children {
        if let Ok((plan, findings)) = &child.outcome {
            found.extend(findings.iter().flatten());
            found.extend(child_findings(&plan.children));
        }
    }
    found
}

/// Plan each child Application the sync applies, in its own folder of this repo (the repo of
/// the first folder given): only when its `repoURL` is this repo's (the parent Application's, or
/// a remote in `.git/config`) and its path is a folder here. Each child's plan is judged by
/// `judge` when given (`labcheck plan --rules`: the rules live above the plan).
pub fn follow(plan: &mut Plan, paths: &[String], judge: Judge<'_>) {
    follow_from(plan, paths, judge, &mut Vec::new(), 0);
}

fn follow_from(
    plan: &mut Plan,
    paths: &[String],
    judge: Judge<'_>,
    seen: &mut Vec<PathBuf>,
    depth: usize,
) {
    let root = paths
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_dir())
        .map(|p| crate::probe::argocd_dir::repo_root(&p));
    let mut repos: Vec<String> = root.as_deref().map(remote_urls).unwrap_or_default();
    if let Some(app) = &plan.app {
        repos.extend(
            app.sources
                .iter()
                .map(|s| crate::repo_url::normalise(&s.repo_url)),
        );
    }
    let children: Vec<AppSettings> = plan.applied_objects().filter_map(AppSettings::of).collect();
    for child in children {
        let outcome = follow_one(&child, root.as_deref(), &repos, judge, seen, depth);
        let (folder, outcome) = match outcome {
            Ok((folder, plan, findings)) => (Some(folder), Ok((Box::new(plan), findings))),
            Err(why) => (None, Err(why)),
        };
        plan.children.push(Followed {
            name: child.name().to_string(),
            source: child.object.source.clone(),
            folder,
            outcome,
        });
    }
}

type FollowedPlan = (String, Plan, Option<Vec<Finding>>);

fn follow_one(
    child: &AppSettings,
    root: Option<&Path>,
    repos: &[String],
    judge: Judge<'_>,
    seen: &mut Vec<PathBuf>,
    depth: usize,
) -> Result<FollowedPlan, String> {
    let Some(root) = root else {
        return Err("no folder was given, so its repo is unknown".to_string());
    };
    let Some(source) = child.sources.iter().find(|s| s.path.is_some()) else {
        return Err(chart_to_render(child, root, repos));
    };
    let path = source.path.clone().unwrap_or_default();
    if !repos.contains(&crate::repo_url::normalise(&source.repo_url)) {
        return Err(format!(
            "its source is another repo ({}); plan that repo's `{path}` there",
            source.repo_url
        ));
    }
    let folder = root.join(path.trim_start_matches("./"));
    if !folder.is_dir() {
        return Err(format!("`{path}` is not a folder in this repo"));
    }
    // Shown from where the user stands, like the parent's folder.
    let folder = PathBuf::from(shown_from_cwd(&folder));
    let real = std::fs::canonicalize(&folder).unwrap_or(folder.clone());
    if seen.contains(&real) || depth >= MAX_FOLLOW_DEPTH {
        return Err("already planned above (an app of apps that leads back to itself)".to_string());
    }
    seen.push(real);
    let input = read_app_folder(&folder, child.clone()).map_err(|e| match e {
        Error::Usage(message) => message,
        other => other.to_string(),
    })?;
    let mut plan = Plan::new(
        input.objects,
        Vec::new(),
        &PlanOptions {
            namespace: None,
            app: input.app,
            context: input.context,
        },
    );
    plan.skipped_files = input.skipped;
    plan.app_notes = input.notes;
    plan.app_why = Some(format!(
        "followed from its parent: its path `{path}` is a folder of this repository"
    ));
    let shown = folder.display().to_string();
    follow_from(
        &mut plan,
        std::slice::from_ref(&shown),
        judge,
        seen,
        depth + 1,
    );
    let findings = judge.map(|judge| judge(&plan));
    Ok((shown, plan, findings))
}
