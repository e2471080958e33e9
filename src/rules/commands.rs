//! Rules on what a migration container runs: Laravel's `artisan migrate` and Magento's
//! `setup:upgrade`.

use std::sync::LazyLock;

use regex::Regex;

use crate::plan::Plan;
use crate::rules::{Finding, Rule, Severity, command_line, containers};

/// `laravel-migrate-force`
pub const LARAVEL_FORCE: Rule = Rule {
    id: "laravel-migrate-force",
    severity: Severity::Warning,
    about: "`artisan migrate` without `--force`",
};

/// `laravel-migrate-isolated`
pub const LARAVEL_ISOLATED: Rule = Rule {
    id: "laravel-migrate-isolated",
    severity: Severity::Warning,
    about: "`artisan migrate` without `--isolated`",
};

/// `magento-keep-generated`
pub const MAGENTO_KEEP_GENERATED: Rule = Rule {
    id: "magento-keep-generated",
    severity: Severity::Warning,
    about: "Magento `setup:upgrade` without `--keep-generated`",
};

/// `magento-db-status`
pub const MAGENTO_DB_STATUS: Rule = Rule {
    id: "magento-db-status",
    severity: Severity::Note,
    about: "Magento `setup:upgrade` without a `setup:db:status` guard",
};

static ARTISAN_MIGRATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"artisan\s+migrate(?:\s|$|[;&|\x22'])").ok());
static MIGRATION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"artisan\s+migrate(?:\s|$|[;&|\x22'])|setup:upgrade|db:migrate|manage\.py\s+migrate|\bflyway\b|\bliquibase\b")
        .ok()
});

/// Whether a command line runs a database migration.
pub fn migration_command(line: &str) -> bool {
    MIGRATION.as_ref().is_some_and(|r| r.is_match(line))
}

/// The shell command each match of `needle` belongs to: from the match to the next `&&`, `;`,
/// `|` or line end.
fn commands_at(line: &str, starts: impl Iterator<Item = usize>) -> Vec<&str> {
    starts
        .map(|start| {
            let rest = &line[start..];
            let end = rest.find(['\n', ';', '|', '&']).unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

fn has_flag(command: &str, flag: &str) -> bool {
    command
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == ',')
        .any(|w| w == flag || w.starts_with(&format!("{flag}=")))
}

/// Check the commands of every Job, Pod and workload the sync applies.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for object in plan.objects.iter().filter(|o| !o.sync_phases().is_empty()) {
        for container in containers(object) {
            let line = command_line(container);
            let who = object.reference();
            let artisan = ARTISAN_MIGRATE
                .as_ref()
                .map(|r| r.find_iter(&line).map(|m| m.start()).collect::<Vec<_>>())
                .unwrap_or_default();
            for command in commands_at(&line, artisan.into_iter()) {
                if !has_flag(command, "--force") {
                    findings.push(LARAVEL_FORCE.found(
                        object,
                        format!("{who} runs `{}` without `--force`: in production Laravel asks for confirmation, nobody answers, and the Job hangs until its deadline", command.trim()),
                        "add `--force`: `php artisan migrate --force --isolated`".to_string(),
                    ));
                }
                if !has_flag(command, "--isolated") {
                    findings.push(LARAVEL_ISOLATED.found(
                        object,
                        format!("{who} runs `{}` without `--isolated`: two syncs at once (say a manual sync during an automatic one) run two migrations side by side", command.trim()),
                        "add `--isolated`: Laravel takes a lock in its cache (a shared one, such as Redis) and a second migrate exits 0 without doing anything".to_string(),
                    ));
                }
            }
            let upgrades: Vec<usize> = line
                .match_indices("setup:upgrade")
                .map(|(i, _)| i)
                .collect();
            let guarded = line.contains("setup:db:status");
            for command in commands_at(&line, upgrades.iter().copied()) {
                if !has_flag(command, "--keep-generated") {
                    findings.push(MAGENTO_KEEP_GENERATED.found(
                        object,
                        format!("{who} runs `{}` without `--keep-generated`: it throws away the generated code and static files built into the image (and fails on a read-only file system)", command.trim()),
                        "add `--keep-generated`: `php bin/magento setup:upgrade --keep-generated --no-interaction`".to_string(),
                    ));
                }
            }
            if !upgrades.is_empty() && !guarded {
                findings.push(MAGENTO_DB_STATUS.found(
                    object,
                    format!("{who} runs `setup:upgrade` on every sync without asking `setup:db:status` first, so releases without schema changes pay for a full upgrade too"),
                    "run `php bin/magento setup:db:status` first: exit code 0 means nothing to upgrade (import config only), 2 means run `setup:upgrade`".to_string(),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_migrate_command_ends_at_the_next_shell_separator() {
        let line = "sh -c php artisan migrate --force && php artisan migrate:status --isolated";
        let starts = ARTISAN_MIGRATE
            .as_ref()
            .map(|r| r.find_iter(line).map(|m| m.start()).collect::<Vec<_>>())
            .unwrap_or_default();
        let commands = commands_at(line, starts.into_iter());
        assert_eq!(commands, vec!["artisan migrate --force "]);
        assert!(!has_flag(commands[0], "--isolated"));
    }

    #[test]
    fn migration_commands_are_recognised() {
        assert!(migration_command("php artisan migrate --force"));
        assert!(migration_command("php bin/magento setup:upgrade"));
        assert!(!migration_command("php artisan migrate:status"));
        assert!(!migration_command("curl --fail http://shop-web/up"));
    }
}
