//! The text side of `diff`: lines compared as the course's `diff` command compares them, and a
//! unified diff that names the learner's lines that differ.

use std::time::Duration;

use similar::{DiffTag, TextDiff};

use crate::outcome::CauseId;

/// A diff of 5 MB files must not run for minutes; similar then gives a coarser but correct diff.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

/// Lines that carry content, without line-end noise.
pub(super) fn significant_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty())
        .collect()
}

/// Each line without its trailing spaces (and CR), the text ending in one newline.
pub(super) fn trim_line_ends(text: &str) -> String {
    let mut out: String = text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// Two texts compared line by line.
pub(super) struct LineDiff {
    /// A unified diff, reference `-` against learner `+`.
    pub(super) text: String,
    /// Which of the learner's lines differ, e.g. "lines 9–20 differ" or "lines are missing
    /// after line 8".
    pub(super) what: String,
    /// Whether the learner's file lacks lines, has others, or has only lines too many.
    pub(super) cause: CauseId,
}

/// Compare `reference` with `learner`, line by line.
pub(super) fn unified_diff(
    reference: &str,
    learner: &str,
    reference_name: &str,
    learner_name: &str,
    skip_blank_changes: bool,
) -> LineDiff {
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(reference, learner);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(reference_name, learner_name)
        .to_string();
    let old_lines: Vec<&str> = reference.lines().collect();
    let new_lines: Vec<&str> = learner.lines().collect();
    let blank = |lines: &[&str], range: std::ops::Range<usize>| {
        lines
            .get(range)
            .is_none_or(|ls| ls.iter().all(|l| l.trim().is_empty()))
    };
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut missing_after: Vec<usize> = Vec::new();
    let (mut lacks, mut adds) = (false, false);
    for op in diff.ops() {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal
            || (skip_blank_changes
                && blank(&old_lines, old.clone())
                && blank(&new_lines, new.clone()))
        {
            continue;
        }
        lacks |= !old.is_empty();
        adds |= !new.is_empty();
        if new.is_empty() {
            missing_after.push(new.start);
        } else {
            match ranges.last_mut() {
                Some(last) if last.1 + 1 >= new.start => last.1 = new.end,
                _ => ranges.push((new.start + 1, new.end)),
            }
        }
    }
    let mut parts: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                format!("line {a} differs")
            } else {
                format!("lines {a}–{b} differ")
            }
        })
        .collect();
    parts.extend(missing_after.iter().map(|&n| match n {
        0 => "lines are missing at the start".to_string(),
        n => format!("lines are missing after line {n}"),
    }));
    LineDiff {
        text,
        what: parts.join(", "),
        cause: side_cause(lacks, adds),
    }
}

/// The cause of a difference from which sides have lines the other lacks: only the reference's
/// (the learner has yet to add them), only the learner's (to take out), or both (to correct).
pub(super) fn side_cause(reference_only: bool, learner_only: bool) -> CauseId {
    match (reference_only, learner_only) {
        (true, false) => CauseId::MissingInFile,
        (false, true) => CauseId::ExtraInFile,
        _ => CauseId::DiffersInFile,
    }
}
