//! Every `argocd` and `kubectl` command the course or labcheck names for the learner (in a hint,
//! a summary, a doctor's "get", labcheck's own words, the README and docs) is one the CLI the
//! tier runs accepts (Argo CD v3.6.2's `argocd`, the machine's `kubectl`): its
//! subcommands exist and it knows every flag. A hint naming a flag a version does not have sends
//! the learner into an error instead of the next step. Each command is parsed, never run: the CLI
//! is asked for its `--help` with the command's words, with no kubeconfig and no Argo CD login,
//! so nothing can reach a cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::named_commands::{
    Named, help_args, named_commands, only_the_last_flags_value_missing, words,
};

/// What labcheck's code fills in (`{ns_flag}`: ` -n NAMESPACE` or nothing; `{kind}` and
/// `{binding}`: the RBAC kinds it names).
const FILL: &[(&str, &str)] = &[
    ("{ns_flag}", " -n checkout-dev"),
    ("{binding}", "rolebinding"),
    ("--{kind}=", "--role="),
    ("create {kind} ", "create role "),
    ("get-{what}", "get-contexts"),
];

/// What the CLI says to `WORDS --help`: `Ok` when it knows the subcommands and every flag.
fn accepted(cli: &Path, words: &[String], home: &Path) -> Result<(), String> {
    let program = &words[0];
    let args = help_args(words);
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
        if only_the_last_flags_value_missing(&format!("{err}{out}"), words) {
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
    let named = named_commands(&["argocd", "kubectl"]);
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
        let Some(words) = words(command, FILL) else {
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
        let words = words(command, FILL).expect("a command");
        let cli = if words[0] == "argocd" {
            parts.argocd.clone()
        } else {
            PathBuf::from("kubectl")
        };
        let verdict = accepted(&cli, &words, home.path());
        assert_eq!(verdict.is_ok(), sound, "`{command}`: {verdict:?}");
    }
}
