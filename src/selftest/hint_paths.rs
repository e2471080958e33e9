//! A hint that sends the learner to a file names one that is there: every
//! `${work}/REPO/PATH` a check's hint writes is a repo the module lists, and a file or folder of
//! that repo in the lab, or one a solution of this step or an earlier one writes. A hint naming
//! a file the lab does not have (renamed, moved, mistyped) sends the learner to edit nothing.

use std::collections::BTreeSet;

use regex::Regex;

use crate::course::{Course, Module};

/// What the module's hints name that is not there, one message each.
pub fn lint_module(course: &Course, module: &Module) -> Vec<String> {
    let name = &module.manifest.module;
    let repos: Vec<&str> = module.manifest.repo_names().collect();
    // Every file of the lab and each folder above one, as `repo/path`.
    let mut known = BTreeSet::new();
    for repo in &repos {
        for file in course
            .files_under(&format!("modules/{name}/lab/{repo}"))
            .unwrap_or_default()
        {
            with_its_folders(&mut known, format!("{repo}/{file}"));
        }
    }
    let named = Regex::new(r"\$\{work\}/([A-Za-z0-9_.-]+)((?:/[A-Za-z0-9_.*-]+)*)")
        .expect("the pattern is valid");
    let mut problems = Vec::new();
    for step in &module.steps {
        // What the solutions up to this step write is there when its hints are read.
        for action in &step.solution {
            if let (Some(repo), Some(file)) = (action.repo(), action.file()) {
                with_its_folders(&mut known, format!("{repo}/{file}"));
            }
        }
        for check in &step.checks {
            for text in check.hint.texts() {
                for found in named.captures_iter(text) {
                    let repo = &found[1];
                    // A sentence may end right after the path.
                    let path = found[2].trim_end_matches(['.', '/']);
                    let whole = format!("{repo}{path}");
                    if !repos.contains(&repo) {
                        problems.push(format!(
                            "{}: {}: check `{}` names `${{work}}/{repo}` in a hint, and module.yaml lists no repo `{repo}` ({})",
                            step.file,
                            step.name,
                            check.id,
                            repos.join(", ")
                        ));
                    } else if !path.is_empty() && !path.contains('*') && !known.contains(&whole) {
                        problems.push(format!(
                            "{}: {}: check `{}` sends the learner to `${{work}}/{whole}`, which the lab's {repo} does not have and no solution up to {} writes; name the file the step edits",
                            step.file, step.name, check.id, step.name
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// `path` and every folder above it.
fn with_its_folders(known: &mut BTreeSet<String>, mut path: String) {
    loop {
        known.insert(path.clone());
        match path.rsplit_once('/') {
            Some((parent, _)) => path = parent.to_string(),
            None => break,
        }
    }
}
