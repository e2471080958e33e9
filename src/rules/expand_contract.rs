//! Rule `expand-contract`: a schema change that breaks the code still running during a rolling
//! update — a column renamed or dropped, or made/added `NOT NULL` without a default — seen in a
//! Job's commands, in SQL held by a ConfigMap, or in a migration file given with the manifests.
//!
//! What can be seen: SQL (`RENAME COLUMN`, MySQL `CHANGE old new`, `DROP COLUMN`, `ADD … NOT NULL`
//! or `MODIFY … NOT NULL` or `SET NOT NULL` without `DEFAULT`), Laravel (`renameColumn`,
//! `dropColumn`, a column added in `Schema::table` without `nullable()`/`default()`), Rails
//! (`rename_column`, `remove_column`, `null: false` without `default:`, `change_column_null …
//! false`), Django (`RenameField`, `RemoveField`). What cannot: migrations that live only in the
//! image (the usual case: labcheck sees `php artisan migrate`, not the files it runs), SQL built
//! at run time, whether the code of this release still reads the old column, and which release a
//! migration file belongs to — so it is a note, not a warning.

use std::sync::LazyLock;

use regex::Regex;

use crate::plan::Plan;
use crate::plan::object::untag;
use crate::rules::{Finding, Rule, Severity, command_line, containers};

/// The rule.
pub const RULE: Rule = Rule {
    id: "expand-contract",
    severity: Severity::Note,
    about: "a migration renames or drops a column, or adds NOT NULL without a default, in one release",
};

struct Pattern {
    what: &'static str,
    regex: LazyLock<Option<Regex>>,
}

macro_rules! pattern {
    ($what:expr, $re:expr) => {
        Pattern {
            what: $what,
            regex: LazyLock::new(|| Regex::new($re).ok()),
        }
    };
}

static PATTERNS: [Pattern; 10] = [
    pattern!(
        "renames a column",
        r"(?i)\brename\s+column\b|->\s*renameColumn\s*\(|\brename_column\b|\bRenameField\s*\("
    ),
    pattern!(
        "renames a column (MySQL `CHANGE old new`)",
        r"(?i)\balter\s+table\b[^;]*\bchange\s+(column\s+)?`?(\w+)`?\s+`?(\w+)`?\s"
    ),
    pattern!(
        "drops a column",
        r"(?i)\bdrop\s+column\b|->\s*dropColumns?\s*\(|\bremove_columns?\b|\bRemoveField\s*\("
    ),
    pattern!(
        "adds a NOT NULL column without a default",
        r"(?i)\badd\s+(column\s+)?[^;,]*\bnot\s+null\b[^;,]*"
    ),
    pattern!(
        "makes a column NOT NULL without a default",
        r"(?i)\b(modify\s+(column\s+)?|alter\s+column\s+)[^;,]*\bnot\s+null\b[^;,]*"
    ),
    pattern!("makes a column NOT NULL", r"(?i)\bset\s+not\s+null\b"),
    pattern!(
        "makes a column NOT NULL (Rails)",
        r"change_column_null\s+[^\n]*,\s*false\b"
    ),
    pattern!(
        "adds a NOT NULL column without a default (Rails)",
        r"add_column\s+[^\n]*null:\s*false"
    ),
    pattern!(
        "renames a table",
        r"(?i)\brename\s+table\b|\balter\s+table\s+\S+\s+rename\s+to\b|->\s*rename\s*\(|Schema::rename\s*\("
    ),
    pattern!(
        "adds a NOT NULL column without a default (Laravel)",
        r"\$table->(string|integer|bigInteger|unsignedBigInteger|boolean|text|date|dateTime|timestamp|decimal|float|json|uuid|foreignId|enum)\s*\([^;]*;"
    ),
];

static DEFAULT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bdefault\b|->\s*nullable\s*\(|->\s*useCurrent\s*\(|default:").ok()
});
static SCHEMA_TABLE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"Schema::table\s*\(").ok());

/// The schema changes found in `text`, each as (what, the text that says so).
pub fn scan(text: &str) -> Vec<(&'static str, String)> {
    let mut found = Vec::new();
    let altering_laravel_table = SCHEMA_TABLE.as_ref().is_some_and(|r| r.is_match(text));
    for pattern in &PATTERNS {
        let Some(regex) = pattern.regex.as_ref() else {
            continue;
        };
        let laravel_add = pattern.what.ends_with("(Laravel)");
        if laravel_add && !altering_laravel_table {
            // In Schema::create the table is new: no old code reads it.
            continue;
        }
        for m in regex.find_iter(text) {
            let snippet = m.as_str();
            let needs_default = pattern.what.contains("without a default");
            if needs_default && DEFAULT.as_ref().is_some_and(|d| d.is_match(snippet)) {
                continue;
            }
            if laravel_add && (snippet.contains("->change(") || snippet.contains("->drop")) {
                continue;
            }
            let shown: String = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
            let shown = if shown.chars().count() > 80 {
                format!("{}…", shown.chars().take(80).collect::<String>())
            } else {
                shown
            };
            if !found.iter().any(|(w, s)| *w == pattern.what && *s == shown) {
                found.push((pattern.what, shown));
            }
        }
    }
    found
}

const FIX: &str = "expand and contract over releases: release N adds the new column (nullable or with a default) and writes both; release N+1 reads only the new one; release N+2 drops the old. A PreSync migration runs the new schema under the old pods, and an Argo CD rollback does not roll the database back";

/// Note each schema change seen in the sync's Jobs, in ConfigMaps' SQL, or in `sources`
/// (migration files given with the manifests: (file as shown, text)).
pub fn check(plan: &Plan, sources: &[(String, String)], findings: &mut Vec<Finding>) {
    let has_code = plan.applied_objects().any(|o| {
        o.group() == "apps" && matches!(o.kind.as_str(), "Deployment" | "StatefulSet" | "DaemonSet")
    });
    for object in plan
        .applied_objects()
        .filter(|o| !o.sync_phases().is_empty())
    {
        let mut texts: Vec<String> = containers(object).into_iter().map(command_line).collect();
        if object.kind == "ConfigMap"
            && let Some(serde_yaml::Value::Mapping(data)) = object.get(&["data"])
        {
            texts.extend(
                data.values()
                    .filter_map(|v| untag(v).as_str().map(str::to_string)),
            );
        }
        for (what, shown) in texts.iter().flat_map(|t| scan(t)) {
            findings.push(RULE.found(
                object,
                format!(
                    "{} {what}: `{shown}`{}. Old pods still run during the rollout (and after a rollback) and expect the old schema",
                    object.reference(),
                    if has_code { ", in the same sync as the code" } else { "" }
                ),
                FIX.to_string(),
            ));
        }
    }
    for (file, text) in sources {
        for (what, shown) in scan(text) {
            findings.push(crate::rules::Finding {
                rule: RULE.id,
                severity: RULE.severity,
                object: file.clone(),
                source: file.clone(),
                reason: format!(
                    "the migration {file} {what}: `{shown}`. If it ships with the code that stops using the old column, old pods still run during the rollout (and after a rollback) and break"
                ),
                fix: FIX.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::scan;

    fn whats(text: &str) -> Vec<&'static str> {
        scan(text).into_iter().map(|(w, _)| w).collect()
    }

    #[test]
    fn breaking_changes_are_seen_in_sql_laravel_and_rails() {
        assert_eq!(
            whats("ALTER TABLE users RENAME COLUMN name TO full_name;"),
            vec!["renames a column"]
        );
        assert_eq!(
            whats("ALTER TABLE orders DROP COLUMN legacy_id;"),
            vec!["drops a column"]
        );
        assert_eq!(
            whats("ALTER TABLE orders ADD COLUMN channel varchar(20) NOT NULL;"),
            vec!["adds a NOT NULL column without a default"]
        );
        assert_eq!(
            whats(
                "Schema::table('users', function (Blueprint $table) {\n    $table->renameColumn('name', 'full_name');\n});"
            ),
            vec!["renames a column"]
        );
        assert_eq!(
            whats(
                "Schema::table('orders', function (Blueprint $table) {\n    $table->string('channel');\n});"
            ),
            vec!["adds a NOT NULL column without a default (Laravel)"]
        );
        assert_eq!(
            whats("remove_column :orders, :legacy_id"),
            vec!["drops a column"]
        );
    }

    #[test]
    fn expand_steps_are_not_flagged() {
        assert!(
            whats("ALTER TABLE orders ADD COLUMN channel varchar(20) NOT NULL DEFAULT 'web';")
                .is_empty()
        );
        assert!(whats("ALTER TABLE orders ADD COLUMN channel varchar(20) NULL;").is_empty());
        assert!(whats("Schema::table('orders', function (Blueprint $table) {\n    $table->string('channel')->nullable();\n});").is_empty());
        assert!(whats("Schema::create('orders', function (Blueprint $table) {\n    $table->string('channel');\n});").is_empty());
        assert!(whats("php artisan migrate --force --isolated").is_empty());
    }
}
