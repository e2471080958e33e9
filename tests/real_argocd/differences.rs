//! The listed differences between the fixtures and the recordings
//! (`tests/real_argocd/fixture-differences.yaml`): each a pattern over the difference lines
//! `recordings.rs` prints, and why the difference is legitimate.

use regex::Regex;
use serde::Deserialize;

/// One listed difference.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Difference {
    /// A regular expression a difference line matches (`<fixture>: <object><path>: …`).
    pub matches: String,
    /// Why the fixture may differ from what Argo CD v3.6.2 wrote there.
    pub why: String,
    /// A race between two recordings: seen in some runs, not in others (never stale).
    #[serde(default)]
    pub sometimes: bool,
    #[serde(skip)]
    regex: Option<Regex>,
}

impl Difference {
    /// Whether this entry covers the difference `line`.
    pub fn covers(&self, line: &str) -> bool {
        self.regex.as_ref().is_some_and(|re| re.is_match(line))
    }
}

/// The listed differences; a broken file or pattern fails the test that reads it.
pub fn listed() -> Vec<Difference> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_argocd/fixture-differences.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut list: Vec<Difference> =
        serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for entry in &mut list {
        assert!(
            !entry.why.trim().is_empty(),
            "{}: `{}` says no why",
            path.display(),
            entry.matches
        );
        let regex = Regex::new(&entry.matches)
            .unwrap_or_else(|e| panic!("{}: `{}`: {e}", path.display(), entry.matches));
        entry.regex = Some(regex);
    }
    list
}
