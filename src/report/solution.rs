//! A step's `solution:` as a bash script a person can read before running it (`labcheck
//! solution MODULE STEP`). labcheck only prints it; whoever pipes it to `bash` makes the changes.
//! Edits go through two small awk helpers defined at the top (only those the script uses), so
//! the script needs nothing but bash, git, awk and the cluster tools the course names.

use std::fmt::Write;

use crate::course::Step;
use crate::course::solution::{HEREDOC_END, SolutionAction};
use crate::shell::quote;

/// What `labcheck solution` found for a `revert:` when it printed the script: the commit to
/// revert, or why there is none yet (read-only, from the learner's repo).
pub type RevertTarget = Result<String, String>;

const INSERT_HELPER: &str = r#"# lab_insert FILE UNDER AFTER: put the text on stdin right after the first line equal to
# AFTER inside the block that starts at the first line equal to UNDER (UNDER empty: anywhere).
lab_insert() {
  local file=$1 under=$2 after=$3
  if ! LAB_TEXT=$(cat) LAB_UNDER=$under LAB_AFTER=$after awk '
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

const REPLACE_HELPER: &str = r#"# lab_replace FILE OLD NEW: every line equal to OLD becomes NEW (the course's "- old / + new").
lab_replace() {
  local file=$1
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

/// The script for `step` of `module`, with `work_dir` as shown (absolute) and a target for each
/// `revert:` in order.
pub fn script(module: &str, step: &Step, work_dir: &str, reverts: &[RevertTarget]) -> String {
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
            SolutionAction::Run { command, .. } => {
                let _ = writeln!(out, "{}", words(command));
            }
            SolutionAction::Append { file, text, .. } => {
                if let Some((dir, _)) = file.rsplit_once('/') {
                    let _ = writeln!(out, "mkdir -p {}", quote(dir));
                }
                let _ = write!(
                    out,
                    "cat >>{} <<'{HEREDOC_END}'\n{text}{HEREDOC_END}\n",
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
                        let _ = writeln!(out, "# the commit that made {what}");
                        let _ = writeln!(out, "git revert --no-edit {}", quote(sha));
                    }
                    Some(Err(why)) => {
                        let _ = writeln!(out, "echo {} >&2", quote(why));
                        let _ = writeln!(out, "exit 1");
                    }
                    None => {
                        let why = format!("no commit to revert was looked up for {what}");
                        let _ = writeln!(out, "echo {} >&2", quote(&why));
                        let _ = writeln!(out, "exit 1");
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
