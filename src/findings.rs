//! A finding of a manifest rule, as data: rule, severity, object, where, why, what to change.
//! Below both `rules` (which makes findings) and `plan` (whose followed children carry theirs),
//! so neither imports the other for it; reporters print it.

use serde::Serialize;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Argo CD or the API server refuses it: the app does not render, or the sync fails at that
    /// object. `labcheck plan --rules` exits 1.
    Error,
    /// Something that breaks a sync or loses data or evidence: `labcheck plan --rules` exits 1.
    Warning,
    /// Worth knowing; does not change the exit code.
    Note,
}

impl Severity {
    /// The word used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }

    /// An error or a warning: `labcheck plan --rules` exits 1 for it.
    pub fn fails(self) -> bool {
        self != Severity::Note
    }
}

/// What a rule found on one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    /// `Kind/name` of the object.
    pub object: String,
    /// `file:line` where it is written.
    pub source: String,
    /// Why it matters.
    pub reason: String,
    /// What to change.
    pub fix: String,
}
