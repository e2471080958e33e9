//! Check kind `diff` (not built yet: it reports "could not check", never a verdict).

use serde::Deserialize;

use crate::outcome::Outcome;
use crate::run::Context;

/// Fields of a `diff` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffSpec {
    pub repo: Option<String>,
}

impl DiffSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        self.repo.iter().map(String::as_str).collect()
    }

    /// Decide the check.
    pub async fn evaluate(&self, _ctx: &Context) -> Outcome {
        Outcome::could_not_check("the diff check kind is not built yet")
    }
}
