//! A mistake is shown once per step. A slip in a file fails every check that compares it: the
//! check of the block the learner added and the whole-file comparison after it both print the
//! same lines. When a later check's diff changes only lines an earlier check's diff already
//! shows, the later one points at the earlier one instead (the reporters decide how to say so).

use std::collections::BTreeSet;

use super::CheckReport;
use crate::outcome::{DetailKind, ShownUnder};

/// Mark each diff whose changed lines an earlier check of the step already shows.
pub(super) fn show_each_mistake_once(checks: &mut [CheckReport]) {
    let mut shown: Vec<(usize, BTreeSet<(char, String)>)> = Vec::new();
    for i in 0..checks.len() {
        let Some(detail) = &checks[i].outcome.detail else {
            continue;
        };
        if detail.kind != DetailKind::Diff {
            continue;
        }
        let changed = changed_lines(&detail.text);
        if changed.is_empty() {
            continue;
        }
        match shown.iter().find(|(_, seen)| changed.is_subset(seen)) {
            Some(&(earlier, _)) => {
                let under = ShownUnder {
                    check: checks[earlier].id.clone(),
                    title: checks[earlier].title.clone(),
                };
                if let Some(detail) = checks[i].outcome.detail.as_mut() {
                    detail.shown_under = Some(under);
                }
            }
            None => shown.push((i, changed)),
        }
    }
}

/// The lines a diff takes out (`-`) and puts in (`+`), without their indentation: a slip reads
/// the same in a diff of one value and in a diff of the whole file, indented deeper.
fn changed_lines(diff: &str) -> BTreeSet<(char, String)> {
    diff.lines()
        .enumerate()
        // A unified diff's first two lines name the files; they are not changes.
        .filter(|(n, line)| !(*n < 2 && (line.starts_with("--- ") || line.starts_with("+++ "))))
        .filter_map(|(_, line)| {
            let mut chars = line.chars();
            let sign = chars.next().filter(|c| matches!(c, '-' | '+'))?;
            Some((sign, chars.as_str().trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;

    fn failing(id: &str, diff: &str) -> CheckReport {
        CheckReport {
            id: id.to_string(),
            kind: "diff",
            title: format!("the {id} check"),
            outcome: Outcome::fail("not the same as the reference")
                .with_detail(DetailKind::Diff, diff),
        }
    }

    fn shown_under(check: &CheckReport) -> Option<&str> {
        check
            .outcome
            .detail
            .as_ref()
            .and_then(|d| d.shown_under.as_ref())
            .map(|s| s.check.as_str())
    }

    const BLOCK: &str = "@@ `configs.cm.health` differs @@\n health: |\n   hs.message = \"\"\n-    hs.status = obj.status.health.status\n+    hs.status = obj.status.health\n";
    const WHOLE_FILE: &str = "--- reference/values.yaml\n+++ yours/values.yaml\n@@ -12,7 +12,7 @@\n       hs.message = \"\"\n-        hs.status = obj.status.health.status\n+        hs.status = obj.status.health\n         end\n";

    #[test]
    fn the_whole_file_diff_of_the_same_slip_points_at_the_block_check_above() {
        let mut checks = vec![failing("block", BLOCK), failing("whole-file", WHOLE_FILE)];
        show_each_mistake_once(&mut checks);
        assert_eq!(shown_under(&checks[0]), None);
        assert_eq!(shown_under(&checks[1]), Some("block"));
    }

    #[test]
    fn a_whole_file_diff_with_a_second_mistake_is_shown_in_full() {
        let more = format!("{WHOLE_FILE}-replicaCount: 2\n+replicaCount: 3\n");
        let mut checks = vec![failing("block", BLOCK), failing("whole-file", &more)];
        show_each_mistake_once(&mut checks);
        assert_eq!(shown_under(&checks[1]), None);
    }

    #[test]
    fn the_same_line_taken_out_is_not_the_same_as_it_put_in() {
        let added = "@@ x @@\n+    hs.status = obj.status.health.status\n";
        let taken_out = "@@ x @@\n-    hs.status = obj.status.health.status\n";
        let mut checks = vec![failing("a", added), failing("b", taken_out)];
        show_each_mistake_once(&mut checks);
        assert_eq!(shown_under(&checks[1]), None);
    }

    #[test]
    fn a_later_check_points_at_the_first_that_shows_the_lines_never_at_one_that_points() {
        let mut checks = vec![
            failing("first", BLOCK),
            failing("second", BLOCK),
            failing("third", WHOLE_FILE),
        ];
        show_each_mistake_once(&mut checks);
        assert_eq!(shown_under(&checks[1]), Some("first"));
        assert_eq!(shown_under(&checks[2]), Some("first"));
    }

    #[test]
    fn file_names_in_the_header_are_not_changes() {
        let changed = changed_lines(WHOLE_FILE);
        assert_eq!(changed.len(), 2, "{changed:?}");
    }
}
