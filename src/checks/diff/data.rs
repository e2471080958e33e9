//! The data side of `diff` (`mode: yaml` and `contains`): two YAML values compared as Helm reads
//! them, each difference named by its path, and one small diff per difference.

use serde_yaml::Value;

use crate::yaml::path::{Segment, YamlPath};
use crate::yaml::value::{render, values_equal};

/// One difference between the reference and the learner's data, by path.
pub(super) struct Difference {
    path: YamlPath,
    /// What the summary says about it.
    pub(super) said: String,
    /// The reference's value there (`None`: the learner has a key the reference does not).
    want: Option<Value>,
    /// The learner's value there (`None`: missing in theirs).
    have: Option<Value>,
}

/// Name every difference by path. `contains`: only the reference's keys matter.
pub(super) fn compare(
    reference: &Value,
    learner: &Value,
    at: &YamlPath,
    contains: bool,
    out: &mut Vec<Difference>,
) {
    let shown = |path: &YamlPath| {
        if path.segments().is_empty() {
            "the document".to_string()
        } else {
            format!("`{path}`")
        }
    };
    match (reference, learner) {
        (Value::Mapping(want), Value::Mapping(have)) => {
            for (key, want_value) in want {
                let child = at.child(Segment::Key(key_text(key)));
                match have.get(key) {
                    Some(have_value) if !have_value.is_null() || want_value.is_null() => {
                        compare(want_value, have_value, &child, contains, out);
                    }
                    _ if want_value.is_null() => {}
                    _ => out.push(Difference {
                        said: format!("{} is missing", shown(&child)),
                        path: child,
                        want: Some(want_value.clone()),
                        have: None,
                    }),
                }
            }
            if !contains {
                for (key, have_value) in have {
                    if !want.contains_key(key) && !have_value.is_null() {
                        let child = at.child(Segment::Key(key_text(key)));
                        out.push(Difference {
                            said: format!("{} is not in the reference", shown(&child)),
                            path: child,
                            want: None,
                            have: Some(have_value.clone()),
                        });
                    }
                }
            }
        }
        (want, have) if values_equal(want, have) => {}
        (want, have) => {
            let (have_text, want_text) = (render(have), render(want));
            // A script or a long text does not fit a summary line; the diff below shows it.
            let said = if have_text.len() + want_text.len() > 80
                || have_text.contains("\\n")
                || want_text.contains("\\n")
            {
                format!("{} differs (see the lines below)", shown(at))
            } else {
                format!(
                    "{} is {have_text} in yours, {want_text} in the reference",
                    shown(at)
                )
            };
            out.push(Difference {
                path: at.clone(),
                said,
                want: Some(want.clone()),
                have: Some(have.clone()),
            });
        }
    }
}

/// Whether the differences are all the reference's keys the learner lacks, all keys only the
/// learner has, or values to correct.
pub(super) fn cause_of(differences: &[Difference]) -> crate::outcome::CauseId {
    let lacks = differences.iter().any(|d| d.have.is_none());
    let adds = differences.iter().any(|d| d.want.is_none());
    let differs = differences
        .iter()
        .any(|d| d.want.is_some() && d.have.is_some());
    super::text::side_cause(lacks || differs, adds || differs)
}

/// One small diff per difference: the reference's value at that path (`-`) and the learner's own
/// value there (`+`), nothing invented: a key missing in theirs has no `+` line at all.
pub(super) fn diff_per_mistake(differences: &[Difference]) -> String {
    let mut out = String::new();
    for difference in differences {
        let path = &difference.path;
        let key = match path.segments().last() {
            Some(Segment::Key(key)) => Some(key.clone()),
            _ => None,
        };
        out.push_str(&format!("@@ {} @@\n", difference.said));
        // A multi-line value (a script in a block scalar): its lines, diffed with a little
        // context, not the whole block twice.
        if let (Some(Value::String(want)), Some(Value::String(have))) =
            (&difference.want, &difference.have)
            && (want.contains('\n') || have.contains('\n'))
        {
            if let Some(key) = &key {
                out.push_str(&format!(" {key}: |\n"));
            }
            out.push_str(&block_lines_diff(want, have));
            continue;
        }
        for (sign, value) in [("-", &difference.want), ("+", &difference.have)] {
            let Some(value) = value else { continue };
            let block = match &key {
                Some(key) => {
                    let mut map = serde_yaml::Mapping::new();
                    map.insert(Value::String(key.clone()), value.clone());
                    to_yaml(&Value::Mapping(map))
                }
                None => to_yaml(value),
            };
            for line in block.lines() {
                out.push_str(sign);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The lines of two multi-line values that differ, with two lines of context each side, indented
/// as in the block scalar; `…` between distant changes.
fn block_lines_diff(want: &str, have: &str) -> String {
    let diff = similar::TextDiff::from_lines(want, have);
    let mut out = String::new();
    for (n, hunk) in diff
        .unified_diff()
        .context_radius(2)
        .iter_hunks()
        .enumerate()
    {
        if n > 0 {
            out.push_str(" …\n");
        }
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
                similar::ChangeTag::Equal => ' ',
            };
            out.push(sign);
            out.push_str("  ");
            out.push_str(change.value().trim_end_matches('\n'));
            out.push('\n');
        }
    }
    out
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(text) => text.clone(),
        other => render(other),
    }
}

/// A value as YAML text (as JSON if it cannot be written as YAML).
fn to_yaml(value: &Value) -> String {
    serde_yaml::to_string(value).unwrap_or_else(|_| render(value))
}
