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
    let repos = &module.manifest.repos;
    // Each repo's folder under the work dir (its `path:`, else its name), by repo name.
    let dir_of = |repo: &str| {
        repos
            .iter()
            .find(|r| r.name == repo)
            .map(|r| r.dir_name().to_string())
    };
    // Every file of the lab and each folder above one, as the work dir holds them.
    let mut known = BTreeSet::new();
    for repo in repos {
        for file in course
            .files_under(&format!("modules/{name}/lab/{}", repo.name))
            .unwrap_or_default()
        {
            with_its_folders(&mut known, format!("{}/{file}", repo.dir_name()));
        }
    }
    let named = Regex::new(r"\$\{work\}((?:/[A-Za-z0-9_.*-]+)+)").expect("the pattern is valid");
    let mut problems = Vec::new();
    for step in &module.steps {
        // What the solutions up to this step write is there when its hints are read.
        for action in &step.solution {
            if let (Some(dir), Some(file)) = (action.repo().and_then(dir_of), action.file()) {
                with_its_folders(&mut known, format!("{dir}/{file}"));
            }
        }
        for check in &step.checks {
            for text in check.hint.texts() {
                for found in named.captures_iter(text) {
                    // A sentence may end right after the path.
                    let path = found[1]
                        .trim_start_matches('/')
                        .trim_end_matches(['.', '/']);
                    let in_a_repo = repos.iter().any(|r| {
                        let dir = r.dir_name();
                        path == dir || path.starts_with(&format!("{dir}/"))
                    });
                    if !in_a_repo {
                        let dirs: Vec<&str> = repos.iter().map(|r| r.dir_name()).collect();
                        problems.push(format!(
                            "{}: {}: check `{}` names `${{work}}/{path}` in a hint, and no repo module.yaml lists is there ({})",
                            step.file,
                            step.name,
                            check.id,
                            dirs.join(", ")
                        ));
                    } else if !path.contains('*') && !known.contains(path) {
                        problems.push(format!(
                            "{}: {}: check `{}` sends the learner to `${{work}}/{path}`, which the lab does not have and no solution up to {} writes; name the file the step edits",
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
