//! Every `argocd` and `kubectl` command the course or labcheck names for the learner (in a hint,
//! a summary, a doctor's "get", labcheck's own words, the README and docs) is one the CLI the
//! tier runs accepts (Argo CD v3.6.2's `argocd`, the machine's `kubectl`): its
//! subcommands exist and it knows every flag. A hint naming a flag a version does not have sends
//! the learner into an error instead of the next step. Each command is parsed, never run: the CLI
//! is asked for its `--help` with the command's words, with no kubeconfig and no Argo CD login,
//! so nothing can reach a cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, ending: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            files_under(&path, ending, out);
        } else if path.to_string_lossy().ends_with(ending) {
            out.push(path);
        }
    }
}

/// A command as written, and where.
struct Named {
    at: String,
    command: String,
}

/// Commands in backquotes: the course's files (every text a learner reads comes from them), the
/// string literals of labcheck's code (comments left out: they speak to maintainers), the README
/// and the docs.
fn named_commands() -> Vec<Named> {
    let quoted = Regex::new(r"`((?:argocd|kubectl) [^`]*)`").expect("a regex");
    let mut named = Vec::new();
    let mut files = Vec::new();
    files_under(&repo().join("modules"), ".yaml", &mut files);
    files_under(&repo().join("src"), ".rs", &mut files);
    files_under(&repo().join("docs"), ".md", &mut files);
    files.push(repo().join("README.md"));
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let rust = file.extension().is_some_and(|e| e == "rs");
        let markdown = file.extension().is_some_and(|e| e == "md");
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if rust && trimmed.starts_with("//") || !rust && !markdown && trimmed.starts_with('#') {
                continue;
            }
            for found in quoted.captures_iter(line) {
                named.push(Named {
                    at: format!(
                        "{}:{}",
                        file.strip_prefix(repo()).unwrap_or(&file).display(),
                        n + 1
                    ),
                    command: found[1].to_string(),
                });
            }
        }
    }
    named
}

/// The command's own words: up to a pipe, a redirection or the next command; a format
/// placeholder of labcheck's code or a `<word>` of the course as a plain word. `None` for a
/// mention that is not a command (`argocd …`).
fn words(command: &str) -> Option<Vec<String>> {
    let cut = [" | ", " >", " && ", "; ", " 2>"]
        .iter()
        .filter_map(|s| command.find(s))
        .min()
        .unwrap_or(command.len());
    let command = &command[..cut];
    if command.contains('…') {
        return None;
    }
    // What labcheck's code fills in (`{ns_flag}`: ` -n NAMESPACE` or nothing; `{kind}` and
    // `{binding}`: the RBAC kinds it names), then any other placeholder as a name.
    let filled = command
        .replace("{ns_flag}", " -n checkout-dev")
        .replace("{binding}", "rolebinding")
        .replace("--{kind}=", "--role=")
        .replace("create {kind} ", "create role ")
        .replace("get-{what}", "get-contexts");
    let filled = Regex::new(r"\{[a-z_]*\}|<[a-z]+>")
        .expect("a regex")
        .replace_all(&filled, "x")
        .into_owned();
    shlex::split(&filled)
}

/// What the CLI says to `WORDS --help`: `Ok` when it knows the subcommands and every flag.
fn accepted(cli: &Path, words: &[String], home: &Path) -> Result<(), String> {
    let program = &words[0];
    // `--help` goes before a flag named last without its value (`argocd app sync --resource`, a
    // mention), which would otherwise take `--help` as its value.
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let at = match args.last() {
        Some(last) if last.starts_with('-') && !last.contains('=') => args.len() - 1,
        _ => args.len(),
    };
    args.insert(at, "--help");
    let output = Command::new(cli)
        .args(&args)
        .env("HOME", home)
        .env("KUBECONFIG", home.join("no-kubeconfig"))
        .env("ARGOCD_SERVER", "")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cli.display()))?;
    let out = String::from_utf8_lossy(&output.stdout);
    let err = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        // A flag named at the very end with its value left out is a mention (`--resource`).
        if (err.contains("flag needs an argument") || out.contains("flag needs an argument"))
            && words.last().is_some_and(|w| w.starts_with('-'))
        {
            return Ok(());
        }
        return Err(format!("{}{}", err.trim(), out.trim()));
    }
    // The help shown is of the deepest command the words name; a word left over where that
    // command only groups others was not a subcommand it has.
    let usage = out
        .lines()
        .skip_while(|l| !l.starts_with("Usage:"))
        .nth(1)
        .unwrap_or("")
        .trim();
    let path: Vec<&str> = usage
        .split_whitespace()
        .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    let has_subcommands = out.contains("Available Commands:");
    let operands: Vec<&String> = words[1..].iter().filter(|w| !w.starts_with('-')).collect();
    if path.first() != Some(&program.as_str()) {
        return Err(format!("no usage line for {program}:\n{out}"));
    }
    let groups = out.contains(&format!("{} [command]", path.join(" ")));
    if has_subcommands && groups && operands.len() >= path.len() {
        return Err(format!(
            "`{}` is not a command of {program} (the help is of `{}`)",
            operands[path.len() - 1],
            path.join(" ")
        ));
    }
    Ok(())
}

#[test]
fn every_argocd_and_kubectl_command_the_course_and_labcheck_name_is_one_the_cli_accepts() {
    let parts = crate::testbin::argocd_parts();
    let home = tempfile::tempdir().expect("a HOME with no logins");
    let named = named_commands();
    assert!(
        named
            .iter()
            .filter(|n| n.command.starts_with("argocd "))
            .count()
            >= 20
            && named
                .iter()
                .filter(|n| n.command.starts_with("kubectl "))
                .count()
                >= 20,
        "the course and labcheck name commands"
    );
    let mut refused = Vec::new();
    let mut checked = std::collections::BTreeSet::new();
    for Named { at, command } in &named {
        let Some(words) = words(command) else {
            continue;
        };
        if !checked.insert(words.clone()) {
            continue;
        }
        let cli = if words[0] == "argocd" {
            parts.argocd.clone()
        } else {
            PathBuf::from("kubectl")
        };
        if let Err(why) = accepted(&cli, &words, home.path()) {
            refused.push(format!("{at}: `{command}`: {why}"));
        }
    }
    assert!(
        refused.is_empty(),
        "commands the CLI refuses:\n{}",
        refused.join("\n\n")
    );
}

/// The guard holds what it claims: planted commands with a flag or a subcommand the CLI lacks
/// are refused, and their sound neighbours accepted.
#[test]
fn a_command_with_a_flag_or_subcommand_the_cli_lacks_is_refused() {
    let parts = crate::testbin::argocd_parts();
    let home = tempfile::tempdir().expect("a HOME with no logins");
    let cases = [
        (
            "argocd app sync x --sync-option ApplyOutOfSyncOnly=false",
            false,
        ),
        (
            "argocd app set x --sync-option ApplyOutOfSyncOnly=false",
            true,
        ),
        ("argocd app nosuch x", false),
        ("argocd app get x --show-operation", true),
        ("argocd app sync --resourcez", false),
        ("argocd app sync --resource", true),
        ("kubectl -n x logs job/y --bogus", false),
        ("kubectl -n x logs job/y --previous", true),
        ("kubectl nosuch pods", false),
    ];
    for (command, sound) in cases {
        let words = words(command).expect("a command");
        let cli = if words[0] == "argocd" {
            parts.argocd.clone()
        } else {
            PathBuf::from("kubectl")
        };
        let verdict = accepted(&cli, &words, home.path());
        assert_eq!(verdict.is_ok(), sound, "`{command}`: {verdict:?}");
    }
}
