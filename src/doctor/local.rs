//! Doctor's machine side: the module's work repos, git's identity, the tools on PATH.

use std::path::Path;

use super::{Audience, Setup, report};
use crate::course::schema::{RepoSpec, ToolNeed};
use crate::outcome::Outcome;
use crate::probe::git::{GitProbeError, read_repo};
use crate::probe::machine::{self, GitIdentity};
use crate::run::CheckReport;

pub(super) async fn checks(setup: &Setup) -> Vec<CheckReport> {
    let mut out = Vec::new();
    let repos: &[RepoSpec] = setup
        .module
        .as_ref()
        .map(|m| m.manifest.repos.as_slice())
        .unwrap_or_default();
    for repo in repos {
        let dir = setup.work_dir.join(repo.dir_name());
        out.push(report(
            format!("repo-{}", repo.name),
            "git",
            format!(
                "{} is cloned in {}, on main, with an origin remote",
                repo.name,
                setup.work_dir.display()
            ),
            work_repo(&dir, &setup.get_text(&repo.get)),
        ));
    }

    // A commit in a work repo uses that repo's config (which includes the global one).
    let identity_from = repos
        .iter()
        .map(|r| setup.work_dir.join(r.dir_name()))
        .find(|dir| dir.join(".git").exists());
    let (title, outcome) = match setup.audience {
        Audience::Learner => (
            "git knows your name and email (user.name, user.email) for your commits",
            identity(identity_from.as_deref()),
        ),
        Audience::Ci => (
            "git can name the author and committer of the solutions' commits",
            env_identity().unwrap_or_else(|| identity(identity_from.as_deref())),
        ),
    };
    out.push(report("git-identity", "git", title.to_string(), outcome));

    let mut tools = setup.tools.clone();
    if setup.audience == Audience::Ci {
        // What `labcheck solution … | bash` runs besides git and the module's own tools.
        // awk is asked with `-W version`: mawk (Debian's and Ubuntu's awk) refuses `--version`
        // (exit 2), and gawk takes both.
        for (name, version, get) in [
            (
                "bash",
                "--version",
                "install bash (the solution scripts are bash): apt-get install -y bash",
            ),
            (
                "awk",
                "-W version",
                "install awk (the solution scripts edit files with it): apt-get install -y mawk",
            ),
        ] {
            if !tools.iter().any(|t| t.name == name) {
                tools.push(ToolNeed {
                    name: name.to_string(),
                    version: Some(version.split(' ').map(str::to_string).collect()),
                    get: get.to_string(),
                });
            }
        }
    }
    for tool in &tools {
        out.push(report(
            format!("tool-{}", tool.name),
            "tool",
            format!("{} is on your PATH", tool.name),
            tool_outcome(tool, &setup.get_text(&tool.get), &setup.path).await,
        ));
    }
    out
}

/// `get`: how the course says to get the repo, with the learner's work dir in it.
fn work_repo(dir: &Path, get: &str) -> Outcome {
    let shown = dir.display();
    let snapshot = match read_repo(dir) {
        Ok(snapshot) => snapshot,
        Err(GitProbeError::Missing { .. }) => {
            return Outcome::fail(format!("{shown} does not exist")).with_hint(get);
        }
        Err(GitProbeError::NotARepo { .. }) => {
            return Outcome::fail(format!("{shown} is not a git repository"))
                .with_hint(format!("move it aside and clone it: {get}"));
        }
        Err(e @ GitProbeError::Shallow { .. }) => {
            return Outcome::fail(e.to_string()).with_hint(format!(
                "{} && git fetch --unshallow",
                crate::shell::cd(&shown.to_string())
            ));
        }
        // Bare, a gone gitdir, another owner, damage, a read error: each with its own fix.
        Err(e) => {
            let outcome = Outcome::could_not_check(e.to_string());
            return match e.fix(&shown.to_string()) {
                Some(fix) => outcome.with_hint(fix),
                None => outcome,
            };
        }
    };
    let origin = match machine::origin_url(dir) {
        Ok(origin) => origin,
        Err(e) => return Outcome::could_not_check(e.to_string()),
    };
    let mut problems = Vec::new();
    let mut hints = Vec::new();
    match snapshot.branch.as_deref() {
        Some("main") => {}
        Some(other) => {
            problems.push(format!("it is on branch {other}, not main"));
            hints.push(format!(
                "{} && git switch main",
                crate::shell::cd(&shown.to_string())
            ));
        }
        None => {
            problems.push("HEAD is detached, not on main".to_string());
            hints.push(format!(
                "{} && git switch main",
                crate::shell::cd(&shown.to_string())
            ));
        }
    }
    if origin.is_none() {
        problems.push("it has no remote named origin".to_string());
        hints.push(format!(
            "add the course's Git server as origin (`{} && git remote add origin <its URL>`), or clone it again: {}",
            crate::shell::cd(&shown.to_string()),
            get
        ));
    }
    match origin {
        Some(url) if problems.is_empty() => Outcome::pass(format!("on main, origin {url}")),
        _ => Outcome::fail(format!("{shown}: {}", problems.join("; "))).with_hint(hints.join("\n")),
    }
}

/// In CI an identity may come from the environment alone: both names and both emails set.
fn env_identity() -> Option<Outcome> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let author = (var("GIT_AUTHOR_NAME")?, var("GIT_AUTHOR_EMAIL")?);
    var("GIT_COMMITTER_NAME")?;
    var("GIT_COMMITTER_EMAIL")?;
    Some(Outcome::pass(format!(
        "{} <{}> (GIT_AUTHOR_* and GIT_COMMITTER_* in the environment)",
        author.0, author.1
    )))
}

fn identity(repo: Option<&Path>) -> Outcome {
    let GitIdentity {
        name,
        email,
        read_from,
    } = match machine::git_identity(repo) {
        Ok(identity) => identity,
        Err(e) => {
            return Outcome::could_not_check(format!("cannot read git's config: {}", e.message()));
        }
    };
    let mut missing = Vec::new();
    let mut hints = Vec::new();
    if name.is_none() {
        missing.push("user.name");
        hints.push("git config --global user.name \"Your Name\"");
    }
    if email.is_none() {
        missing.push("user.email");
        hints.push("git config --global user.email you@example.com");
    }
    match (name, email) {
        (Some(name), Some(email)) => Outcome::pass(format!("{name} <{email}> ({read_from})")),
        _ => Outcome::fail(format!("{} not set in {read_from}", missing.join(" and "),))
            .with_hint(hints.join("\n")),
    }
}

/// `get`: how the course says to install the tool, with the learner's work dir in it.
async fn tool_outcome(tool: &ToolNeed, get: &str, path: &std::ffi::OsStr) -> Outcome {
    let Some(program) = machine::find_on_path(&tool.name, path) else {
        return Outcome::fail(format!("`{}` is not on your PATH", tool.name)).with_hint(get);
    };
    let args = tool
        .version
        .clone()
        .unwrap_or_else(|| vec!["--version".to_string()]);
    match machine::tool_version(&program, &args).await {
        Ok(version) => Outcome::pass(format!("{version} ({})", program.display())),
        Err(e) => Outcome::fail(format!(
            "{} is on your PATH but does not run: {e}",
            program.display()
        ))
        .with_hint(format!("install it again: {get}")),
    }
}

/// The tools every module of a course needs, each once, in course order.
pub fn all_tools<'a>(needs: impl IntoIterator<Item = &'a ToolNeed>) -> Vec<ToolNeed> {
    let mut tools: Vec<ToolNeed> = Vec::new();
    for tool in needs {
        if !tools.iter().any(|t| t.name == tool.name) {
            tools.push(tool.clone());
        }
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git runs");
        assert!(status.status.success(), "git {args:?}: {status:?}");
    }

    /// The repo's `get:` as doctor shows it, its `${work}` filled in.
    const GET: &str = "git clone <server>/checkout-config.git ~/work/checkout-config";

    #[test]
    fn a_repo_on_another_branch_without_origin_names_both_problems() {
        let dir = tempfile::tempdir().expect("temp dir");
        git(dir.path(), &["init", "--quiet", "-b", "feature"]);
        let out = work_repo(dir.path(), GET);
        assert_eq!(out.status, crate::outcome::Status::Fail);
        out.assert_says("on branch feature, not main");
        out.assert_says("no remote named origin");
        out.assert_hint_names(&["git switch main", "git remote add origin"]);
    }

    #[test]
    fn a_missing_repo_fails_with_the_modules_clone_command() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = work_repo(&dir.path().join("nope"), GET);
        assert_eq!(out.status, crate::outcome::Status::Fail);
        assert_eq!(out.own_hint().as_deref(), Some(GET));
    }

    #[test]
    fn tools_needed_by_several_modules_are_checked_once() {
        let tool = |name: &str| ToolNeed {
            name: name.to_string(),
            version: None,
            get: String::new(),
        };
        let a = [tool("kubectl"), tool("argocd")];
        let b = [tool("argocd"), tool("helm")];
        let names: Vec<String> = all_tools(a.iter().chain(b.iter()))
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["kubectl", "argocd", "helm"]);
    }
}
