//! What a container really runs: its `command` + `args`, and — when that is a shell given `-c` —
//! the commands of the script, parsed as a shell parses them (brush-parser: pipelines, `&&`/`||`,
//! `;`, `if`/`case`/loops, quoting, line continuations, heredocs, `$(…)`). Only commands that run
//! count: the words of `echo "… setup:upgrade"` are an argument of `echo`, not a command.

use std::io::BufReader;

use brush_parser::ast;
use brush_parser::word::{self, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};
use serde_yaml::Value;

use crate::plan::object::untag;

/// Shells whose `-c` operand is a script.
const SHELLS: &[&str] = &["sh", "bash", "ash", "dash", "zsh", "ksh", "busybox"];

/// Nesting allowed for `sh -c "sh -c '…'"` and `$(…)`: deeper is not followed.
const MAX_DEPTH: usize = 8;

/// One command that runs: its words after quote removal (an expansion such as `$status` stays as
/// written, since its value is known only at run time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunCommand {
    pub words: Vec<String>,
}

impl RunCommand {
    /// The command as one line, for messages.
    pub fn line(&self) -> String {
        self.words.join(" ")
    }

    /// Whether a word equals `flag` or is `flag=value`.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.words
            .iter()
            .any(|w| w == flag || w.strip_prefix(flag).is_some_and(|r| r.starts_with('=')))
    }
}

/// Text fed to a program's standard input by a heredoc (`mysql <<SQL … SQL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heredoc {
    /// The words of the command that reads it.
    pub command: Vec<String>,
    pub body: String,
}

/// Everything a container runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commands {
    pub run: Vec<RunCommand>,
    pub heredocs: Vec<Heredoc>,
    /// Scripts the shell parser refused (the message says where): their commands are unknown.
    pub unparsed: Vec<String>,
}

/// The commands of one container (`command` then `args`, as Kubernetes joins them).
pub fn of_container(container: &Value) -> Commands {
    let mut argv = Vec::new();
    for key in ["command", "args"] {
        if let Some(Value::Sequence(list)) = container.get(key).map(untag) {
            for word in list {
                match untag(word) {
                    Value::String(s) => argv.push(s.clone()),
                    Value::Number(n) => argv.push(n.to_string()),
                    Value::Bool(b) => argv.push(b.to_string()),
                    _ => {}
                }
            }
        }
    }
    let mut found = Commands::default();
    run_argv(argv, 0, &mut found);
    found
}

/// The commands of a shell script, as `sh -c SCRIPT` would run it.
pub fn of_script(script: &str) -> Commands {
    let mut found = Commands::default();
    parse_script(script, 0, &mut found);
    found
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Drop wrappers that run the rest of the line as the command: `exec`, `env VAR=… `, `nohup`,
/// `time`, `command`, `nice`, `timeout 300`.
fn unwrap(mut argv: Vec<String>) -> Vec<String> {
    loop {
        let Some(first) = argv.first().map(|w| basename(w).to_string()) else {
            return argv;
        };
        let skip = match first.as_str() {
            "exec" | "nohup" | "time" | "command" | "builtin" => 1,
            "env" => {
                1 + argv[1..]
                    .iter()
                    .take_while(|w| w.starts_with('-') || w.contains('='))
                    .count()
            }
            "nice" | "ionice" => {
                1 + argv[1..]
                    .iter()
                    .take_while(|w| w.starts_with('-') || w.parse::<i64>().is_ok())
                    .count()
            }
            "timeout" => {
                let options = argv[1..].iter().take_while(|w| w.starts_with('-')).count();
                2 + options
            }
            _ => return argv,
        };
        if skip >= argv.len() {
            return argv;
        }
        argv.drain(..skip);
    }
}

/// A shell invocation's script: the first operand after an option cluster holding `c`.
fn shell_script(argv: &[String]) -> Option<&str> {
    let first = argv.first()?;
    let name = basename(first);
    let rest = if name == "busybox" {
        // `busybox sh -c …`
        match argv.get(1).map(|w| basename(w)) {
            Some(sh) if SHELLS.contains(&sh) => &argv[2..],
            _ => return None,
        }
    } else if SHELLS.contains(&name) {
        &argv[1..]
    } else {
        return None;
    };
    let mut saw_c = false;
    let mut i = 0;
    while i < rest.len() {
        let word = &rest[i];
        if word == "--" {
            i += 1;
            break;
        }
        if (word.starts_with('-') || word.starts_with('+')) && word.len() > 1 {
            if word[1..].contains('c') && !word.starts_with("--") {
                saw_c = true;
            }
            // `-o pipefail` takes a value.
            if word == "-o" || word == "+o" {
                i += 1;
            }
            i += 1;
            continue;
        }
        break;
    }
    if saw_c {
        rest.get(i).map(String::as_str)
    } else {
        None
    }
}

fn run_argv(argv: Vec<String>, depth: usize, found: &mut Commands) {
    let argv = unwrap(argv);
    if argv.is_empty() {
        return;
    }
    if let Some(script) = shell_script(&argv) {
        if depth < MAX_DEPTH {
            parse_script(script, depth + 1, found);
        }
        return;
    }
    found.run.push(RunCommand { words: argv });
}

fn options() -> ParserOptions {
    ParserOptions {
        sh_mode: true,
        ..ParserOptions::default()
    }
}

fn parse_script(script: &str, depth: usize, found: &mut Commands) {
    let mut parser = Parser::new(BufReader::new(script.as_bytes()), &options());
    match parser.parse_program() {
        Ok(program) => {
            for list in &program.complete_commands {
                walk_list(list, depth, found);
            }
        }
        Err(e) => found.unparsed.push(format!("{e}")),
    }
}

fn walk_list(list: &ast::CompoundList, depth: usize, found: &mut Commands) {
    for ast::CompoundListItem(and_or, _) in &list.0 {
        walk_pipeline(&and_or.first, depth, found);
        for next in &and_or.additional {
            match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => walk_pipeline(p, depth, found),
            }
        }
    }
}

fn walk_pipeline(pipeline: &ast::Pipeline, depth: usize, found: &mut Commands) {
    for command in &pipeline.seq {
        walk_command(command, depth, found);
    }
}

fn walk_command(command: &ast::Command, depth: usize, found: &mut Commands) {
    match command {
        ast::Command::Simple(simple) => walk_simple(simple, depth, found),
        ast::Command::Compound(compound, redirects) => {
            walk_compound(compound, depth, found);
            if let Some(redirects) = redirects {
                for redirect in &redirects.0 {
                    substitutions_in_redirect(redirect, depth, found);
                }
            }
        }
        // A function's body runs when it is called; scripts define functions to call them.
        ast::Command::Function(function) => walk_compound(&function.body.0, depth, found),
        ast::Command::ExtendedTest(..) => {}
    }
}

fn walk_compound(compound: &ast::CompoundCommand, depth: usize, found: &mut Commands) {
    use ast::CompoundCommand as C;
    match compound {
        C::BraceGroup(group) => walk_list(&group.list, depth, found),
        C::Subshell(sub) => walk_list(&sub.list, depth, found),
        C::ForClause(f) => walk_list(&f.body.list, depth, found),
        C::ArithmeticForClause(f) => walk_list(&f.body.list, depth, found),
        C::CaseClause(case) => {
            for item in &case.cases {
                if let Some(cmd) = &item.cmd {
                    walk_list(cmd, depth, found);
                }
            }
        }
        C::IfClause(clause) => {
            walk_list(&clause.condition, depth, found);
            walk_list(&clause.then, depth, found);
            for branch in clause.elses.iter().flatten() {
                if let Some(condition) = &branch.condition {
                    walk_list(condition, depth, found);
                }
                walk_list(&branch.body, depth, found);
            }
        }
        C::WhileClause(w) | C::UntilClause(w) => {
            walk_list(&w.0, depth, found);
            walk_list(&w.1.list, depth, found);
        }
        C::Coprocess(co) => walk_command(&co.body, depth, found),
        C::Arithmetic(_) => {}
    }
}

fn walk_simple(simple: &ast::SimpleCommand, depth: usize, found: &mut Commands) {
    let mut argv = Vec::new();
    let mut heredocs = Vec::new();
    // `VAR=value cmd …`: assignments before the name set the environment, they are not words;
    // after the name (`php -d memory_limit=-1 …`) they are arguments.
    let prefix = simple
        .prefix
        .iter()
        .flat_map(|p| p.0.iter())
        .map(|i| (i, false));
    let suffix = simple
        .suffix
        .iter()
        .flat_map(|s| s.0.iter())
        .map(|i| (i, true));
    if let Some(name) = &simple.word_or_name {
        argv.push(expand(&name.value, depth, found));
    }
    for (item, after_name) in prefix.chain(suffix) {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => argv.push(expand(&w.value, depth, found)),
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                // `status=$(php bin/magento setup:db:status)`: the substitution runs either way.
                let text = expand(&w.value, depth, found);
                if after_name {
                    argv.push(text);
                }
            }
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                if let ast::IoRedirect::HereDocument(_, doc) = redirect {
                    heredocs.push(doc.doc.value.clone());
                } else {
                    substitutions_in_redirect(redirect, depth, found);
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                walk_list(&sub.list, depth, found)
            }
        }
    }
    let argv = unwrap(argv);
    let is_shell_reading_stdin = argv
        .first()
        .is_some_and(|w| SHELLS.contains(&basename(w)) && shell_script(&argv).is_none());
    for body in heredocs {
        if is_shell_reading_stdin && depth < MAX_DEPTH {
            parse_script(&body, depth + 1, found);
        } else {
            found.heredocs.push(Heredoc {
                command: argv.clone(),
                body,
            });
        }
    }
    if !argv.is_empty() {
        run_argv(argv, depth, found);
    }
}

fn substitutions_in_redirect(redirect: &ast::IoRedirect, depth: usize, found: &mut Commands) {
    match redirect {
        ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::Filename(w))
        | ast::IoRedirect::HereString(_, w)
        | ast::IoRedirect::OutputAndError(w, _) => {
            let _ = expand(&w.value, depth, found);
        }
        ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::ProcessSubstitution(_, sub)) => {
            walk_list(&sub.list, depth, found)
        }
        _ => {}
    }
}

/// A word after quote removal; command substitutions inside it are walked as scripts (they run).
fn expand(raw: &str, depth: usize, found: &mut Commands) -> String {
    match word::parse(raw, &options()) {
        Ok(pieces) => {
            let mut text = String::new();
            flatten(&pieces, raw, depth, found, &mut text);
            text
        }
        // Not a word the parser knows: keep it as written rather than guess.
        Err(_) => raw.to_string(),
    }
}

fn flatten(
    pieces: &[WordPieceWithSource],
    raw: &str,
    depth: usize,
    found: &mut Commands,
    out: &mut String,
) {
    for piece in pieces {
        match &piece.piece {
            WordPiece::Text(t) | WordPiece::SingleQuotedText(t) | WordPiece::AnsiCQuotedText(t) => {
                out.push_str(t)
            }
            WordPiece::EscapeSequence(e) => out.push_str(e.strip_prefix('\\').unwrap_or(e)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                flatten(inner, raw, depth, found, out)
            }
            WordPiece::CommandSubstitution(script)
            | WordPiece::BackquotedCommandSubstitution(script) => {
                if depth < MAX_DEPTH {
                    parse_script(script, depth + 1, found);
                }
                out.push_str("$(…)");
            }
            WordPiece::TildeExpansion(_) => out.push('~'),
            // Known only at run time: keep it as written.
            WordPiece::ParameterExpansion(_) | WordPiece::ArithmeticExpression(_) => {
                out.push_str(raw.get(piece.start_index..piece.end_index).unwrap_or("$…"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(found: &Commands) -> Vec<String> {
        found.run.iter().map(RunCommand::line).collect()
    }

    #[test]
    fn echo_arguments_are_not_commands() {
        let found = of_script(
            "echo \"Schemawijzigingen gevonden, setup:upgrade\"\nphp bin/magento setup:upgrade --keep-generated",
        );
        assert_eq!(
            lines(&found),
            vec![
                "echo Schemawijzigingen gevonden, setup:upgrade",
                "php bin/magento setup:upgrade --keep-generated"
            ]
        );
    }

    #[test]
    fn and_or_pipelines_semicolons_and_if_branches_all_count() {
        let found = of_script(
            "set -e; php artisan config:cache && php artisan migrate --force || exit 1\nif php bin/magento setup:db:status; then :; else php bin/magento setup:upgrade | tee /tmp/log; fi",
        );
        assert_eq!(
            lines(&found),
            vec![
                "set -e",
                "php artisan config:cache",
                "php artisan migrate --force",
                "exit 1",
                "php bin/magento setup:db:status",
                ":",
                "php bin/magento setup:upgrade",
                "tee /tmp/log"
            ]
        );
    }

    #[test]
    fn quotes_and_line_continuations_are_removed_as_a_shell_does() {
        let found = of_script("php artisan \\\n  migrate \\\n  '--force' \"--isolated\"");
        assert_eq!(
            lines(&found),
            vec!["php artisan migrate --force --isolated"]
        );
    }

    #[test]
    fn a_heredoc_is_input_not_commands_unless_a_shell_reads_it() {
        let found = of_script(
            "cat <<EOF > /tmp/notes\nphp artisan migrate\nEOF\nsh <<'EOS'\nphp artisan migrate --force\nEOS\nmysql shop <<SQL\nALTER TABLE users DROP COLUMN legacy;\nSQL",
        );
        assert_eq!(
            lines(&found),
            vec!["cat", "php artisan migrate --force", "sh", "mysql shop"]
        );
        assert_eq!(found.heredocs.len(), 2);
        assert_eq!(
            found.heredocs[1].body,
            "ALTER TABLE users DROP COLUMN legacy;\n"
        );
    }

    #[test]
    fn nested_shells_wrappers_and_substitutions_are_followed() {
        let container: Value = serde_yaml::from_str(
            "command: [/bin/bash, -ec]\nargs: [\"exec env APP_ENV=prod sh -c 'php artisan migrate --force'; out=$(bin/magento setup:db:status)\"]",
        )
        .unwrap_or(Value::Null);
        let found = of_container(&container);
        assert_eq!(
            lines(&found),
            vec!["php artisan migrate --force", "bin/magento setup:db:status"]
        );
    }

    #[test]
    fn a_plain_argv_is_one_command_and_a_broken_script_is_reported() {
        let container: Value = serde_yaml::from_str("command: [php, artisan, migrate, --force]")
            .unwrap_or(Value::Null);
        assert_eq!(
            lines(&of_container(&container)),
            vec!["php artisan migrate --force"]
        );
        let broken = of_script("if true; then echo");
        assert!(broken.run.is_empty());
        assert_eq!(broken.unparsed.len(), 1);
    }
}
