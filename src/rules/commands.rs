//! Rules on what a migration container runs: Laravel's `artisan migrate` and Magento's
//! `setup:upgrade`. Commands come from [`shell`]: a `sh -c` script is parsed as a
//! shell parses it, and only commands that run are looked at.

use crate::plan::{Object, Plan};
use crate::rules::shell::{self, RunCommand};
use crate::rules::{Finding, Rule, Severity, containers};

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

/// `shell-script-unparsed`
pub const UNPARSED: Rule = Rule {
    id: "shell-script-unparsed",
    severity: Severity::Note,
    about: "a `sh -c` script labcheck cannot parse (its commands are not checked)",
};

fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Interpreters that run the program named after their options (`php -d x=1 artisan …`).
const INTERPRETERS: &[&str] = &["php", "python", "python3", "ruby", "node", "npx", "bunx"];

/// The program a command runs and the words after it: `php -d x=1 artisan migrate` →
/// (`artisan`, `["migrate"]`); `bundle exec rails db:migrate` → (`rails`, `["db:migrate"]`).
fn program(command: &RunCommand) -> Option<(&str, &[String])> {
    let words = &command.words;
    let mut i = 0;
    loop {
        let word = base(words.get(i)?);
        if INTERPRETERS.contains(&word) {
            i += 1;
            while let Some(option) = words.get(i).filter(|w| w.starts_with('-')) {
                // `-d key=value`, `-c php.ini` take a value; `-dkey=value` does not.
                i += if matches!(option.as_str(), "-d" | "-c") {
                    2
                } else {
                    1
                };
            }
        } else if word == "bundle" && words.get(i + 1).is_some_and(|w| w == "exec") {
            i += 2;
        } else {
            return Some((word, &words[i + 1..]));
        }
    }
}

/// The first word after `name`'s options, when the command runs `name`.
fn subcommand<'c>(command: &'c RunCommand, name: &str) -> Option<&'c str> {
    let (found, rest) = program(command)?;
    if found != name {
        return None;
    }
    rest.iter()
        .find(|w| !w.starts_with('-'))
        .map(String::as_str)
}

/// `artisan migrate` itself (not `migrate:status`).
pub fn is_artisan_migrate(command: &RunCommand) -> bool {
    subcommand(command, "artisan") == Some("migrate")
}

/// `bin/magento setup:upgrade`.
pub fn is_magento_upgrade(command: &RunCommand) -> bool {
    subcommand(command, "magento") == Some("setup:upgrade")
}

/// The command runs `name` with one of `verbs` as its first word after the options.
fn pair(command: &RunCommand, name: &str, verbs: &[&str]) -> bool {
    subcommand(command, name).is_some_and(|verb| verbs.contains(&verb))
}

/// Whether a command runs a database migration: Laravel (`artisan migrate`, `migrate:fresh`,
/// `:refresh`, `:reset`, `:rollback`), Magento `setup:upgrade`, Rails `db:migrate`, Django
/// `manage.py migrate`, Flyway `migrate`, Liquibase `update`, Prisma `migrate deploy`, Alembic
/// `upgrade`, goose `up`, golang-migrate `up`, Doctrine `migrations:migrate`.
pub fn is_migration_command(command: &RunCommand) -> bool {
    matches!(
        subcommand(command, "artisan"),
        Some(
            "migrate" | "migrate:fresh" | "migrate:refresh" | "migrate:reset" | "migrate:rollback"
        )
    ) || is_magento_upgrade(command)
        || pair(command, "rails", &["db:migrate"])
        || pair(command, "rake", &["db:migrate"])
        || pair(command, "manage.py", &["migrate"])
        || pair(command, "flyway", &["migrate"])
        || pair(command, "liquibase", &["update"])
        || pair(command, "prisma", &["migrate"])
        || pair(command, "alembic", &["upgrade"])
        || pair(command, "goose", &["up"])
        || pair(command, "migrate", &["up"])
        || pair(command, "console", &["doctrine:migrations:migrate"])
}

/// Every command an object's containers run (each container parsed on its own).
pub fn object_commands(object: &Object) -> Vec<shell::Commands> {
    containers(object)
        .into_iter()
        .map(shell::of_container)
        .collect()
}

/// Check the commands of every Job, Pod and workload the sync applies.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for object in plan
        .applied_objects()
        .filter(|o| !o.sync_phases().is_empty())
    {
        let who = object.reference();
        let all = object_commands(object);
        let guarded = all
            .iter()
            .flat_map(|c| c.run.iter())
            .any(|c| subcommand(c, "magento") == Some("setup:db:status"));
        let mut upgrades = false;
        for found in &all {
            for message in &found.unparsed {
                findings.push(UNPARSED.found(
                    object,
                    format!("{who} runs a shell script labcheck cannot parse ({message}), so the rules on migration commands did not look inside it; `sh` would likely refuse it too"),
                    "check the script with `sh -n` (quotes, `fi`/`done`/`esac`, heredoc end markers)".to_string(),
                ));
            }
            for command in &found.run {
                if is_artisan_migrate(command) {
                    if !command.has_flag("--force") {
                        findings.push(LARAVEL_FORCE.found(
                            object,
                            format!("{who} runs `{}` without `--force`: in production Laravel asks for confirmation, nobody answers, and the Job hangs until its deadline", command.line()),
                            "add `--force`: `php artisan migrate --force --isolated`".to_string(),
                        ));
                    }
                    if !command.has_flag("--isolated") {
                        findings.push(LARAVEL_ISOLATED.found(
                            object,
                            format!("{who} runs `{}` without `--isolated`: two syncs at once (say a manual sync during an automatic one) run two migrations side by side", command.line()),
                            "add `--isolated`: Laravel takes a lock in its cache (a shared one, such as Redis) and a second migrate exits 0 without doing anything".to_string(),
                        ));
                    }
                }
                if is_magento_upgrade(command) {
                    upgrades = true;
                    if !command.has_flag("--keep-generated") {
                        findings.push(MAGENTO_KEEP_GENERATED.found(
                            object,
                            format!("{who} runs `{}` without `--keep-generated`: it throws away the generated code and static files built into the image (and fails on a read-only file system)", command.line()),
                            "add `--keep-generated`: `php bin/magento setup:upgrade --keep-generated --no-interaction`".to_string(),
                        ));
                    }
                }
            }
        }
        if upgrades && !guarded {
            findings.push(MAGENTO_DB_STATUS.found(
                object,
                format!("{who} runs `setup:upgrade` on every sync without asking `setup:db:status` first, so releases without schema changes pay for a full upgrade too"),
                "run `php bin/magento setup:db:status` first: exit code 0 means nothing to upgrade (import config only), 2 means run `setup:upgrade`".to_string(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(script: &str) -> RunCommand {
        shell::of_script(script)
            .run
            .into_iter()
            .next()
            .unwrap_or(RunCommand { words: Vec::new() })
    }

    #[test]
    fn migration_commands_are_recognised_by_their_words() {
        assert!(is_migration_command(&first("php artisan migrate --force")));
        assert!(is_migration_command(&first(
            "php -d memory_limit=-1 ./artisan migrate:fresh"
        )));
        assert!(is_migration_command(&first(
            "php bin/magento setup:upgrade"
        )));
        assert!(is_migration_command(&first("bundle exec rails db:migrate")));
        assert!(is_migration_command(&first(
            "python manage.py migrate --noinput"
        )));
        assert!(is_migration_command(&first("flyway -url=jdbc:x migrate")));
        assert!(!is_migration_command(&first("php artisan migrate:status")));
        assert!(!is_migration_command(&first("echo php artisan migrate")));
        assert!(!is_migration_command(&first(
            "curl --fail http://shop-web/up"
        )));
    }

    #[test]
    fn flags_are_whole_words() {
        let c = first("php artisan migrate --force-isolated");
        assert!(!c.has_flag("--force"));
        assert!(first("php artisan migrate --force=1").has_flag("--force"));
    }
}
