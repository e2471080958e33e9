//! A step's `solution:` as a bash script a person can read before running it (`labcheck
//! solution MODULE STEP`). labcheck only prints it; whoever pipes it to `bash` makes the changes.
//! YAML edits are `labcheck edit set|remove|create` lines (located by path, so they work on a
//! learner's own layout); text edits of other files go through small awk helpers defined at the
//! top (only those the script uses). The script needs bash, git, awk, labcheck and the cluster
//! tools the course names.
//!
//! Run twice, it changes nothing the second time: the script first asks labcheck whether the
//! step passes already (then it says so and stops), every edit leaves a file that already says
//! it alone, a commit is made only when something is staged, and a revert only when the change
//! is still in the files.

use std::fmt::Write;

use crate::course::Step;
use crate::course::solution::{HEREDOC_END, SolutionAction};
use crate::shell::quote;

use crate::run::solution::RevertTarget;

const INSERT_HELPER: &str = r#"# lab_insert FILE UNDER AFTER: put the text on stdin right after the first line equal to
# AFTER inside the block that starts at the first line equal to UNDER (UNDER empty: anywhere);
# a file that holds the text already is left alone.
lab_insert() {
  local file=$1 under=$2 after=$3 text
  text=$(cat)
  if [[ -f $file && $(<"$file") == *"$text"* ]]; then
    echo "$file: holds the text already; nothing to change"
    return 0
  fi
  if ! LAB_TEXT=$text LAB_UNDER=$under LAB_AFTER=$after awk '
      BEGIN { u = ENVIRON["LAB_UNDER"]; inside = (u == ""); match(u, /^ */); ui = RLENGTH }
      { print }
      inside == 1 && u != "" && $0 ~ /[^ ]/ && $0 !~ /^ *#/ { match($0, /^ */); if (RLENGTH <= ui) inside = 2 }
      inside == 1 && !done && $0 == ENVIRON["LAB_AFTER"] { print ENVIRON["LAB_TEXT"]; done = 1 }
      inside == 0 && $0 == u { inside = 1 }
      END { exit done ? 0 : 1 }' "$file" >"$file.labcheck-tmp"; then
    rm -f "$file.labcheck-tmp"
    echo "$file: no line '$after' under '$under' to add the text after" >&2
    return 1
  fi
  mv "$file.labcheck-tmp" "$file"
}
"#;

const REPLACE_HELPER: &str = r#"# lab_replace FILE OLD NEW: every line equal to OLD becomes NEW (the course's "- old / + new");
# a file with no OLD line but a NEW one is done already.
lab_replace() {
  local file=$1
  if ! grep -qxF -- "$2" "$file" && grep -qxF -- "$3" "$file"; then
    echo "$file: says '$3' already; nothing to change"
    return 0
  fi
  if ! LAB_OLD=$2 LAB_NEW=$3 awk '
      $0 == ENVIRON["LAB_OLD"] { print ENVIRON["LAB_NEW"]; n++; next }
      { print }
      END { exit n ? 0 : 1 }' "$file" >"$file.labcheck-tmp"; then
    rm -f "$file.labcheck-tmp"
    echo "$file: no line '$2' to change" >&2
    return 1
  fi
  mv "$file.labcheck-tmp" "$file"
}
"#;

const APPEND_HELPER: &str = r#"# lab_append FILE: add the text on stdin at the end of FILE (made if needed), unless FILE holds it.
lab_append() {
  local file=$1 text
  text=$(cat)
  if [[ -f $file && $(<"$file") == *"$text"* ]]; then
    echo "$file: holds the text already; nothing to change"
    return 0
  fi
  mkdir -p "$(dirname "$file")"
  printf '%s\n' "$text" >>"$file"
}
"#;

const STOP_HELPER: &str = r#"# lab_stop WHY: the script cannot go on from here (the course's order was not followed);
# its failure ends the script (set -e).
lab_stop() {
  echo "$1" >&2
  return 1
}
"#;

/// The script for `step` of `module`, with `work_dir` as shown (absolute), a target for each
/// `revert:` in order, and the `--course-dir` the script's own labcheck calls pass on.
pub fn script(
    module: &str,
    step: &Step,
    work_dir: &str,
    reverts: &[RevertTarget],
    course_dir: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "#!/usr/bin/env bash");
    let _ = writeln!(
        out,
        "# {module} {}: {} — the course's own actions, printed by `labcheck solution`.",
        step.name, step.title
    );
    let _ = writeln!(
        out,
        "# Read it before you run it: it changes your work repos (commits, pushes) and your cluster."
    );
    let _ = writeln!(out, "set -euo pipefail");
    let _ = writeln!(out, "work={}", quote(work_dir));
    let uses = |f: fn(&SolutionAction) -> bool| step.solution.iter().any(f);
    if uses(|a| matches!(a, SolutionAction::Insert { .. })) {
        let _ = write!(out, "\n{INSERT_HELPER}");
    }
    if uses(|a| matches!(a, SolutionAction::Replace { .. })) {
        let _ = write!(out, "\n{REPLACE_HELPER}");
    }
    if uses(|a| matches!(a, SolutionAction::Append { .. })) {
        let _ = write!(out, "\n{APPEND_HELPER}");
    }
    if reverts.iter().any(Result::is_err) {
        let _ = write!(out, "\n{STOP_HELPER}");
    }
    let course = course_dir
        .map(|dir| format!(" --course-dir {}", quote(dir)))
        .unwrap_or_default();
    let check = format!(
        "labcheck {} {} --work-dir \"$work\"{course} --no-wait",
        quote(module),
        quote(&step.name)
    );
    let _ = write!(
        out,
        "\n# Done already? labcheck only reads your repos and cluster; if the step passes, nothing is left to do.\n\
         if {check} >/dev/null 2>&1; then\n  \
         echo {}\n  \
         exit 0\n\
         fi\n",
        quote(&format!(
            "{module} {0} is done already (labcheck {module} {0} passes): nothing to do.",
            step.name
        ))
    );
    out.push('\n');
    // Where the script stands: `None` before the first action, then a repo (or the work dir).
    let mut here: Option<Option<&str>> = None;
    let mut reverts = reverts.iter();
    for action in &step.solution {
        let wants = action.repo();
        if here != Some(wants) {
            match wants {
                Some(repo) => {
                    let _ = writeln!(out, "cd \"$work\"/{}", quote(repo));
                }
                None => {
                    let _ = writeln!(out, "cd \"$work\"");
                }
            }
            here = Some(wants);
        }
        let words = |w: &[String]| {
            w.iter()
                .map(|s| quote(s).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        match action {
            SolutionAction::Run { repo, command } if is_commit(command) => {
                // Only what is staged is committed: run again, the script makes no empty commit.
                let _ = writeln!(
                    out,
                    "if git diff --cached --quiet; then\n  echo {}\nelse\n  {}\nfi",
                    quote(&format!(
                        "{repo}: nothing to commit; the step's files are as the solution leaves them"
                    )),
                    words(command)
                );
            }
            SolutionAction::Run { command, .. } => {
                let _ = writeln!(out, "{}", words(command));
            }
            SolutionAction::Set {
                file, edit, value, ..
            } => {
                let mut line = format!(
                    "labcheck edit set {} {}",
                    quote(file),
                    quote(&edit.path.to_string())
                );
                if let Some(n) = edit.document {
                    let _ = write!(line, " --document {n}");
                }
                let place = &edit.placement;
                for (flag, given) in [
                    ("--after", place.after.as_deref()),
                    ("--before", place.before.as_deref()),
                    ("--comment", place.comment.as_deref().map(str::trim_end)),
                ] {
                    if let Some(given) = given {
                        let _ = write!(line, " {flag} {}", quote(given));
                    }
                }
                let yaml = serde_yaml::to_string(value).unwrap_or_default();
                if yaml.trim_end().contains('\n') {
                    let _ = write!(out, "{line} <<'{HEREDOC_END}'\n{yaml}{HEREDOC_END}\n");
                } else {
                    let _ = writeln!(out, "{line} --value {}", quote(yaml.trim_end()));
                }
            }
            SolutionAction::Remove { file, edit, .. } => {
                let mut line = format!(
                    "labcheck edit remove {} {}",
                    quote(file),
                    quote(&edit.path.to_string())
                );
                if let Some(n) = edit.document {
                    let _ = write!(line, " --document {n}");
                }
                let _ = writeln!(out, "{line}");
            }
            SolutionAction::Create { file, text, .. } => {
                let _ = write!(
                    out,
                    "labcheck edit create {} <<'{HEREDOC_END}'\n{text}{HEREDOC_END}\n",
                    quote(file)
                );
            }
            SolutionAction::Append { file, text, .. } => {
                let _ = write!(
                    out,
                    "lab_append {} <<'{HEREDOC_END}'\n{text}{HEREDOC_END}\n",
                    quote(file)
                );
            }
            SolutionAction::Insert {
                file,
                under,
                after,
                text,
                ..
            } => {
                let _ = write!(
                    out,
                    "lab_insert {} {} {} <<'{HEREDOC_END}'\n{text}{HEREDOC_END}\n",
                    quote(file),
                    quote(under.as_deref().unwrap_or_default()),
                    quote(after)
                );
            }
            SolutionAction::Replace {
                file, line, with, ..
            } => {
                let _ = writeln!(
                    out,
                    "lab_replace {} {} {}",
                    quote(file),
                    quote(line),
                    quote(with)
                );
            }
            SolutionAction::Revert { change, .. } => {
                let what = change.describe();
                match reverts.next() {
                    Some(Ok(sha)) => {
                        // Undone already when the commit's own change applies again to the
                        // files (they are as before it): run twice, nothing is reverted twice.
                        let sha = quote(sha);
                        let _ = writeln!(out, "# the commit that made {what}");
                        let _ = writeln!(
                            out,
                            "if git diff {sha}~ {sha} | git apply --check 2>/dev/null; then\n  echo {}\nelse\n  git revert --no-edit {sha}\nfi",
                            quote(&format!(
                                "the commit that made {what} is undone already; nothing to revert"
                            ))
                        );
                    }
                    Some(Err(why)) => {
                        let _ = writeln!(out, "lab_stop {}", quote(why));
                    }
                    None => {
                        let why = format!("no commit to revert was looked up for {what}");
                        let _ = writeln!(out, "lab_stop {}", quote(&why));
                    }
                }
            }
            SolutionAction::Cluster { tool, args, look } => {
                let line = format!("{} {}", tool.as_str(), words(args));
                if *look {
                    let _ = writeln!(
                        out,
                        "{line} || true  # a look; it may fail while the cluster is still moving"
                    );
                } else {
                    let _ = writeln!(out, "{line}");
                }
            }
        }
    }
    out
}

/// `git commit …`: made only when something is staged.
fn is_commit(command: &[String]) -> bool {
    command.first().map(String::as_str) == Some("git")
        && command.get(1).map(String::as_str) == Some("commit")
}
