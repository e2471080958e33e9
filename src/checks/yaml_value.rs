//! Check kind `yaml_value` (not built yet: it reports "could not check", never a verdict).

use serde::Deserialize;

use crate::outcome::Outcome;
use crate::run::Context;

/// Fields of a `yaml_value` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct YamlValueSpec {
    pub repo: Option<String>,
}

impl YamlValueSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        self.repo.iter().map(String::as_str).collect()
    }

    /// Decide the check.
    pub async fn evaluate(&self, _ctx: &Context) -> Outcome {
        Outcome::could_not_check("the yaml_value check kind is not built yet")
    }
}
