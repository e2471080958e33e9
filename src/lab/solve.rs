//! A step's `solution:` run in process on a lab world, as the printed script would run it on a
//! learner's clones: the YAML edits through the same code `labcheck edit` calls
//! ([`crate::yaml::edit`]), text edits with the script's own rules, and the git commands with the
//! real `git` CLI under the world's fixed identity and clock. Like the script, it is idempotent:
//! a commit is made only when something is staged, and a revert only while the change it undoes
//! is still in the file. Cluster commands are skipped: a lab world has no cluster.

use super::repo::{LabError, LabRepo};
use crate::checks::change::ChangeSpec;
use crate::course::solution::{SolutionAction, is_yaml_file};
use crate::yaml::edit;

/// Run `actions` (a step's solution, or the part of it a fixture names) with `repo` finding a
/// clone by its repo name.
pub fn run(
    actions: &[SolutionAction],
    repo: impl Fn(&str) -> Result<LabRepo, LabError>,
) -> Result<(), LabError> {
    for action in actions {
        let Some(name) = action.repo() else {
            continue;
        };
        let clone = repo(name)?;
        match action {
            SolutionAction::Run { command, .. } => run_command(&clone, command)?,
            SolutionAction::Revert { change, .. } => revert(&clone, change)?,
            edit => edit_file(&clone, edit)?,
        }
    }
    Ok(())
}

/// A `run:` of the solution: a git command; `git commit` only when something is staged.
fn run_command(repo: &LabRepo, command: &[String]) -> Result<(), LabError> {
    let args: Vec<&str> = command.iter().skip(1).map(String::as_str).collect();
    if command.first().map(String::as_str) != Some("git") {
        return Err(LabError::Fixtures(format!(
            "a solution runs `{}`; only git commands run in a work repo",
            command.join(" ")
        )));
    }
    if args.first() == Some(&"commit") && repo.git(&["diff", "--cached", "--quiet"]).is_ok() {
        return Ok(());
    }
    repo.run_git(&args)?;
    Ok(())
}

/// One edit of one file, as `labcheck edit` (YAML) or the script's helpers (text) make it.
fn edit_file(repo: &LabRepo, action: &SolutionAction) -> Result<(), LabError> {
    let Some(file) = action.file() else {
        return Ok(());
    };
    let before = repo.read(file)?;
    let refused = |e: edit::EditError| {
        LabError::Fixtures(format!(
            "{}: the solution's edit cannot be made: {e}",
            repo.path().join(file).display()
        ))
    };
    let after = match action {
        SolutionAction::Set { edit, value, .. } => edit::set(
            before.as_deref().unwrap_or_default(),
            edit.document,
            &edit.path,
            value,
            &edit.placement,
        )
        .map_err(refused)?,
        SolutionAction::Remove { edit, .. } => edit::remove(
            before.as_deref().unwrap_or_default(),
            edit.document,
            &edit.path,
        )
        .map_err(refused)?,
        SolutionAction::Create { text, .. } => {
            edit::create(before.as_deref(), text, is_yaml_file(file)).map_err(refused)?
        }
        SolutionAction::Append { text, .. } => append(before.as_deref(), text),
        SolutionAction::Insert {
            under, after, text, ..
        } => insert(
            before.as_deref().unwrap_or_default(),
            under.as_deref(),
            after,
            text,
        )
        .map_err(|why| LabError::Fixtures(format!("{file}: {why}")))?,
        SolutionAction::Replace { line, with, .. } => {
            replace(before.as_deref().unwrap_or_default(), line, with)
                .map_err(|why| LabError::Fixtures(format!("{file}: {why}")))?
        }
        _ => None,
    };
    match after {
        Some(text) => repo.write(file, &text),
        None => Ok(()),
    }
}

/// `lab_append`: the text at the end (the file made if needed), unless the file holds it.
fn append(before: Option<&str>, text: &str) -> Option<String> {
    let body = text.trim_end_matches('\n');
    match before {
        Some(old) if old.contains(body) => None,
        Some(old) => Some(format!("{old}{body}\n")),
        None => Some(format!("{body}\n")),
    }
}

/// `lab_insert`: the text right after the first line equal to `after` inside the block that
/// starts at the first line equal to `under` (anywhere without one); held already: unchanged.
fn insert(
    before: &str,
    under: Option<&str>,
    after: &str,
    text: &str,
) -> Result<Option<String>, String> {
    let body = text.trim_end_matches('\n');
    if before.contains(body) {
        return Ok(None);
    }
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let under = under.filter(|u| !u.is_empty());
    let mut inside = under.is_none();
    let mut done = false;
    let mut out = String::new();
    for line in before.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        out.push_str(line);
        if let (true, Some(u)) = (inside, under)
            && !bare.trim().is_empty()
            && !bare.trim_start().starts_with('#')
            && bare != u
            && indent(bare) <= indent(u)
        {
            inside = false;
        }
        if inside && !done && bare == after {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(body);
            out.push('\n');
            done = true;
        }
        if !inside && !done && under == Some(bare) {
            inside = true;
        }
    }
    if done {
        Ok(Some(out))
    } else {
        Err(format!(
            "no line '{after}' under '{}' to add the text after",
            under.unwrap_or_default()
        ))
    }
}

/// `lab_replace`: every line equal to `line` becomes `with`; no such line but a `with` one: done.
fn replace(before: &str, line: &str, with: &str) -> Result<Option<String>, String> {
    let has = |l: &str| before.lines().any(|x| x == l);
    if !has(line) {
        return if has(with) {
            Ok(None)
        } else {
            Err(format!("no line '{line}' to change"))
        };
    }
    let out: String = before
        .split_inclusive('\n')
        .map(|l| {
            let (bare, end) = match l.strip_suffix('\n') {
                Some(bare) => (bare, "\n"),
                None => (l, ""),
            };
            if bare == line {
                format!("{with}{end}")
            } else {
                l.to_string()
            }
        })
        .collect();
    Ok(Some(out))
}

/// `git revert --no-edit` of the newest commit that made `change` (found by content, as
/// `labcheck solution` finds it), unless the change is no longer in the file.
fn revert(repo: &LabRepo, change: &ChangeSpec) -> Result<(), LabError> {
    let current = std::fs::read(repo.path().join(&change.file)).ok();
    if !change.holds(current.as_deref()) {
        return Ok(());
    }
    let Some(sha) = newest_change(repo, change)? else {
        return Err(LabError::Fixtures(format!(
            "no commit in {} makes {} to revert",
            repo.path().display(),
            change.describe()
        )));
    };
    repo.run_git(&["revert", "--no-edit", &sha])?;
    Ok(())
}

/// The newest commit on HEAD after which `change` holds and before which it did not.
fn newest_change(repo: &LabRepo, change: &ChangeSpec) -> Result<Option<String>, LabError> {
    let file = &change.file;
    let version =
        |rev: &str| -> Option<Vec<u8>> { repo.git_bytes(&["show", &format!("{rev}:{file}")]).ok() };
    let list = repo.git(&["rev-list", "HEAD", "--", file])?;
    for sha in list.lines() {
        let after = version(sha);
        let before = version(&format!("{sha}~"));
        if change.holds(after.as_deref()) && !change.holds(before.as_deref()) {
            return Ok(Some(sha.to_string()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_edits_follow_the_scripts_helpers_and_are_idempotent() {
        assert_eq!(append(Some("a\n"), "b\n").as_deref(), Some("a\nb\n"));
        assert_eq!(append(Some("a\nb\n"), "b\n"), None);
        assert_eq!(append(None, "b\n").as_deref(), Some("b\n"));
        let file = "m:\n  e: true\nn:\n  e: true\n";
        let once = insert(file, Some("n:"), "  e: true", "  f: 1\n").expect("inserts");
        assert_eq!(
            once.as_deref(),
            Some("m:\n  e: true\nn:\n  e: true\n  f: 1\n")
        );
        assert_eq!(
            insert(
                once.as_deref().unwrap_or_default(),
                Some("n:"),
                "  e: true",
                "  f: 1\n"
            ),
            Ok(None)
        );
        assert!(
            insert(
                "m:\n  x: 1\nn:\n  e: true\n",
                Some("m:"),
                "  e: true",
                "f\n"
            )
            .is_err()
        );
        assert_eq!(
            replace("a\nb\na\n", "a", "c").expect("replaces").as_deref(),
            Some("c\nb\nc\n")
        );
        assert_eq!(replace("c\nb\n", "a", "c"), Ok(None));
        assert!(replace("b\n", "a", "c").is_err());
    }
}
