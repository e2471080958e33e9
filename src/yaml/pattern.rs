//! A regex a course author writes in a check file, compiled when the file is loaded so a typo is
//! a `file:line:col` error, never a failure in the middle of a run.

use regex::Regex;

use super::fields::{FromText, deserialize_via};

/// A regex compiled when the check file is loaded.
#[derive(Debug, Clone)]
pub struct Pattern(Regex);

impl Pattern {
    /// Compile `source`; the error is the regex crate's explanation.
    pub fn new(source: &str) -> Result<Pattern, regex::Error> {
        Regex::new(source).map(Pattern)
    }

    /// Whether `text` contains a match.
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// The regex as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

deserialize_via!(FromText, Pattern);

impl FromText for Pattern {
    const EXPECTING: &'static str = "a regular expression (Rust regex syntax)";

    fn from_text(text: &str) -> Result<Self, String> {
        Pattern::new(text).map_err(|e| {
            format!(
                "`{text}` is not a valid regular expression: {}",
                one_line(&e.to_string())
            )
        })
    }
}

/// The regex crate explains an error over several lines (the pattern, a caret, the words); a
/// `file:line:col` message is one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
